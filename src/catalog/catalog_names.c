/* Names in the catalog, where they live in the warehouse, and which
 * warehouse a program uses.
 *
 * Identifiers follow Spark's session catalog (SessionCatalog.validateName:
 * letters, digits and '_'), compared case-insensitively by storing them in
 * lower case, as Spark does with spark.sql.caseSensitive off. Locations
 * follow Spark's default warehouse layout: the database `default` is the
 * warehouse directory itself, another database `s` is <warehouse>/s.db, and
 * a managed table is a directory named for it inside its database's. */
#include "catalog/catalog_internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

int dl_cat_schema_not_found(const char *schema)
{
	return dl_error_set_class(DL_ENOTFOUND, "SCHEMA_NOT_FOUND",
	                          "The schema `%s` cannot be found. Verify the spelling and "
	                          "correctness of the schema and catalog. To tolerate the error on "
	                          "drop use DROP SCHEMA IF EXISTS.",
	                          schema);
}

int dl_cat_table_not_found(const char *schema, const char *table)
{
	return dl_error_set_class(DL_ENOTFOUND, "TABLE_OR_VIEW_NOT_FOUND",
	                          "The table or view `%s`.`%s` cannot be found. Verify the spelling "
	                          "and correctness of the schema and catalog. To tolerate the error "
	                          "on drop use DROP TABLE IF EXISTS.",
	                          schema, table);
}

static int invalid_name(const char *s, size_t n, const char *why)
{
	return dl_error_set_class(DL_EINVALID, "INVALID_SCHEMA_OR_RELATION_NAME",
	                          "`%.*s` is not a valid name for tables/schemas. Valid names only "
	                          "contain alphabet characters, numbers and _%s.",
	                          (int)(n > 200 ? 200 : n), s, why);
}

int dl_cat_parse_ident(char out[DL_CAT_NAME_MAX + 1], const char *s, size_t n)
{
	if (n >= 2 && s[0] == '`' && s[n - 1] == '`') {
		s++;
		n -= 2;
	}
	if (n == 0) return invalid_name(s, n, "");
	if (n > DL_CAT_NAME_MAX) return invalid_name(s, n, " (at most 128 of them)");
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (!isalnum(ch) && ch != '_') return invalid_name(s, n, "");
		out[i] = (char)tolower(ch);
	}
	out[n] = 0;
	return 0;
}

/* The next '.'-separated part of name from *p (backquoted parts may hold
 * no '`' or '.', as identifiers cannot). */
static size_t part_len(const char *p)
{
	const char *e = strchr(p, '.');
	return e ? (size_t)(e - p) : strlen(p);
}

int dl_cat_parse_name(dl_cat_name *out, const char *name, const char *current)
{
	if (!name) return invalid_name("", 0, "");
	const char *parts[4];
	size_t lens[4];
	int n = 0;
	for (const char *p = name;; n++) {
		if (n == 4) break;
		parts[n] = p;
		lens[n] = part_len(p);
		p += lens[n];
		if (!*p) {
			n++;
			break;
		}
		p++;
	}
	if (n == 4)
		return dl_error_set_class(DL_EINVALID, "REQUIRES_SINGLE_PART_NAMESPACE",
		                          "spark_catalog requires a single-part namespace, but got "
		                          "`%s`.",
		                          name);
	char first[DL_CAT_NAME_MAX + 1];
	if (n == 3) DL_TRY(dl_cat_parse_ident(first, parts[0], lens[0]));
	if (n == 1) {
		DL_TRY(dl_cat_parse_ident(out->table, parts[0], lens[0]));
		memcpy(out->schema, current, strlen(current) + 1);
	} else {
		DL_TRY(dl_cat_parse_ident(out->schema, parts[n - 2], lens[n - 2]));
		DL_TRY(dl_cat_parse_ident(out->table, parts[n - 1], lens[n - 1]));
	}
	if (n == 3 && strcmp(first, "spark_catalog") != 0)
		return dl_error_set_class(DL_EINVALID, "REQUIRES_SINGLE_PART_NAMESPACE",
		                          "spark_catalog requires a single-part namespace, but got "
		                          "`%s`.",
		                          name);
	/* <warehouse>/_catalog holds the catalog log. */
	if (strcmp(out->schema, "default") == 0 && strcmp(out->table, "_catalog") == 0)
		return invalid_name(out->table, strlen(out->table),
		                    " (and `default`.`_catalog` is reserved for the catalog's log)");
	return 0;
}

int dl_cat_join(char **out, const char *root, const char *rel)
{
	dl_buf b = DL_BUF_INIT;
	int rc = dl_buf_printf(&b, "%s/%s", root, rel);
	if (rc < 0) {
		dl_buf_free(&b);
		return rc;
	}
	*out = dl_buf_detach(&b, NULL);
	return 0;
}

int dl_cat_managed_path(char **out, const char *schema, const char *table)
{
	dl_buf b = DL_BUF_INIT;
	int rc = strcmp(schema, "default") == 0 ? dl_buf_puts(&b, table)
	                                        : dl_buf_printf(&b, "%s.db/%s", schema, table);
	if (rc < 0) {
		dl_buf_free(&b);
		return rc;
	}
	*out = dl_buf_detach(&b, NULL);
	return 0;
}

int dl_cat_entry_uri(char **out, const dl_catalog *c, const dl_cat_table *t)
{
	/* external, or a managed table moved by SET LOCATION: the URI itself */
	if (t->external || strstr(t->location, "://") || t->location[0] == '/') {
		*out = dl_strdup(t->location);
		return *out ? 0 : DL_ENOMEM;
	}
	return dl_cat_join(out, c->root, t->location);
}

/* An absolute form of a local path (URIs and absolute paths as given). */
static int absolute(char **out, const char *p)
{
	if (strstr(p, "://") || p[0] == '/') {
		*out = dl_strdup(p);
		return *out ? 0 : DL_ENOMEM;
	}
	char *cwd = getcwd(NULL, 0);
	if (!cwd) return dl_error_errno("getting the working directory for", p);
	while (p[0] == '.' && p[1] == '/') p += 2;
	dl_buf b = DL_BUF_INIT;
	int rc = strcmp(p, ".") == 0 ? dl_buf_puts(&b, cwd) : dl_buf_printf(&b, "%s/%s", cwd, p);
	free(cwd);
	if (rc < 0) {
		dl_buf_free(&b);
		return rc;
	}
	*out = dl_buf_detach(&b, NULL);
	return 0;
}

int dl_cat_absolute_location(char **out, const char *p)
{
	return absolute(out, p);
}

int dl_catalog_warehouse_resolve(char **out, const char *flag_value)
{
	*out = NULL;
	const char *w = flag_value;
	if (!w || !*w) w = getenv("DELTALAKE_WAREHOUSE");
	if (!w || !*w) w = "warehouse";
	return absolute(out, w);
}
