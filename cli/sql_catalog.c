/* Catalog listings for completion (sql_catalog.h), cached by their SQL
 * text. A failing listing (no warehouse yet, a statement not supported)
 * just offers nothing: completion must never print an error. */
#include "sql_catalog.h"
#include <string.h>
#include "util.h"

typedef struct cache_entry {
	char *sql;
	sql_names names;
} cache_entry;

struct sql_catalog_cache {
	sql_session *s;
	cache_entry *e;
	size_t n, cap;
};

int sql_catalog_cache_new(sql_catalog_cache **out, sql_session *s)
{
	*out = dl_cli_calloc(1, sizeof **out);
	if (!*out) return DL_ENOMEM;
	(*out)->s = s;
	return 0;
}

static void clear(sql_catalog_cache *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->e[i].sql);
		sql_names_free(&c->e[i].names);
	}
	c->n = 0;
}

void sql_catalog_cache_free(sql_catalog_cache *c)
{
	if (!c) return;
	clear(c);
	free(c->e);
	free(c);
}

/* Appends the names `sql` gives (column `column`) to out. */
static int listing(sql_names *out, sql_catalog_cache *c, const char *sql, const char *column)
{
	if (c->s->catalog_changed) {
		clear(c);
		c->s->catalog_changed = false;
	}
	cache_entry *hit = NULL;
	for (size_t i = 0; i < c->n && !hit; i++)
		if (!strcmp(c->e[i].sql, sql)) hit = &c->e[i];
	if (!hit) {
		if (c->n == c->cap) {
			size_t cap = c->cap ? c->cap * 2 : 8;
			cache_entry *g = dl_cli_realloc(c->e, cap * sizeof *g);
			if (!g) return DL_ENOMEM;
			c->e = g;
			c->cap = cap;
		}
		hit = &c->e[c->n];
		memset(hit, 0, sizeof *hit);
		hit->sql = dl_cli_strdup(sql);
		if (!hit->sql) return DL_ENOMEM;
		c->n++;
		/* A failure is remembered as no names, so it is not retried at every Tab. */
		if (sql_query_column(&hit->names, c->s->conn, sql, column) < 0) sql_names_clear(&hit->names);
		dl_cli_error_clear();
	}
	for (size_t i = 0; i < hit->names.n; i++) {
		const char *nm = hit->names.v[i];
		if (!nm[0] || nm[0] == '#') continue; /* DESCRIBE's "# Partition Information" section */
		if (!sql_names_has(out, nm)) DL_CLI_TRY(sql_names_add(out, nm, strlen(nm)));
	}
	return 0;
}

static int quoted_sql(char *buf, size_t cap, const char *prefix, const char *name)
{
	if (strchr(name, '`')) return -1;
	int n = snprintf(buf, cap, "%s`%s`", prefix, name);
	return n > 0 && (size_t)n < cap ? 0 : -1;
}

static int tables(sql_names *out, const char *schema, void *payload)
{
	char sql[512];
	if (!schema) return listing(out, payload, "SHOW TABLES", "tableName");
	if (quoted_sql(sql, sizeof sql, "SHOW TABLES IN ", schema) < 0) return 0;
	return listing(out, payload, sql, "tableName");
}

static int schemas(sql_names *out, void *payload)
{
	return listing(out, payload, "SHOW SCHEMAS", NULL);
}

static int columns(sql_names *out, const char *table, void *payload)
{
	char sql[600];
	int n = snprintf(sql, sizeof sql, "DESCRIBE %s", table); /* identifiers only: see sql_complete.c */
	if (n < 0 || (size_t)n >= sizeof sql) return 0;
	return listing(out, payload, sql, "col_name");
}

void sql_catalog_of(sql_catalog *out, sql_catalog_cache *c)
{
	out->tables = tables;
	out->schemas = schemas;
	out->columns = columns;
	out->payload = c;
}
