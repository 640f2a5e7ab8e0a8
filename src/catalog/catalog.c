/* The catalog handle, schemas, lookups and listings (public:
 * deltalake/catalog.h). Every operation first reads the catalog log past
 * the version the handle has seen (catalog_log.c), so a handle sees the
 * changes of other processes as soon as it is used again. */
#include "catalog/catalog_internal.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/mem.h"
#include "util/options.h"

int dl_catalog_open(dl_catalog **out, const char *warehouse_uri, const dl_catalog_options *opts)
{
	static const size_t ends[] = {sizeof(dl_catalog_options)};
	DL_OPTIONS_ENDS_CHECK(ends, DL_CATALOG_OPTIONS_VERSION);
	*out = NULL;
	dl_catalog_options o = DL_CATALOG_OPTIONS_INIT;
	DL_TRY(dl_options_load(&o, opts, ends, DL_CATALOG_OPTIONS_VERSION, "dl_catalog_options",
	                       "DL_CATALOG_OPTIONS_INIT"));
	if (!o.store && (!warehouse_uri || !*warehouse_uri))
		return dl_error_set(DL_EINVALID, "dl_catalog_open: no warehouse given (a URI or "
		                                 "options.store)");
	dl_catalog *c = dl_calloc(1, sizeof *c);
	if (!c) return DL_ENOMEM;
	dl_cat_state_init(&c->state);
	memcpy(c->current, "default", sizeof "default");
	int rc = 0;
	c->store_options = o.store_options;
	if (o.store) c->store = o.store;
	else {
		rc = dl_store_open(&c->store, warehouse_uri, o.store_options);
		c->own_store = true;
	}
	if (rc == 0) {
		c->root = dl_strdup(dl_store_root(c->store));
		if (!c->root) rc = DL_ENOMEM;
	}
	if (rc == 0) rc = dl_cat_refresh(&c->state, c->store);
	if (rc < 0) {
		dl_catalog_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

void dl_catalog_free(dl_catalog *c)
{
	if (!c) return;
	dl_cat_state_free(&c->state);
	if (c->own_store) dl_store_free(c->store);
	dl_free(c->root);
	dl_free(c);
}

const char *dl_catalog_warehouse(const dl_catalog *c)
{
	return c->root;
}

const char *dl_catalog_current_schema(const dl_catalog *c)
{
	return c->current;
}

int dl_catalog_set_current_schema(dl_catalog *c, const char *schema)
{
	char s[DL_CAT_NAME_MAX + 1];
	DL_TRY(dl_cat_parse_ident(s, schema ? schema : "", schema ? strlen(schema) : 0));
	DL_TRY(dl_cat_refresh(&c->state, c->store));
	if (!dl_cat_has_schema(&c->state, s)) return dl_cat_schema_not_found(s);
	memcpy(c->current, s, strlen(s) + 1);
	return 0;
}

/* ---- schemas ---- */

typedef struct schema_change {
	const char *schema;
	bool if_not_exists, if_exists, cascade;
	/* drop: the managed tables to delete, copied from the state dropped */
	dl_cat_table *tables;
	size_t ntables;
} schema_change;

static int decide_create_schema(dl_cat_change *out, const dl_cat_state *st, void *payload)
{
	schema_change *sc = payload;
	if (dl_cat_has_schema(st, sc->schema)) {
		if (sc->if_not_exists) return 1;
		return dl_error_set_class(DL_EEXISTS, "SCHEMA_ALREADY_EXISTS",
		                          "Cannot create schema `%s` because it already exists. Choose a "
		                          "different name, drop the existing schema, or add the IF NOT "
		                          "EXISTS clause to tolerate pre-existing schema.",
		                          sc->schema);
	}
	memset(out, 0, sizeof *out);
	out->op = DL_CAT_CREATE_SCHEMA;
	out->schema = sc->schema;
	return 0;
}

int dl_catalog_create_schema(dl_catalog *c, const char *schema, bool if_not_exists)
{
	char s[DL_CAT_NAME_MAX + 1];
	DL_TRY(dl_cat_parse_ident(s, schema ? schema : "", schema ? strlen(schema) : 0));
	schema_change sc = {.schema = s, .if_not_exists = if_not_exists};
	int rc = dl_cat_commit(&c->state, c->store, decide_create_schema, &sc);
	return rc < 0 ? rc : 0;
}

static void free_table_copies(schema_change *sc)
{
	for (size_t i = 0; i < sc->ntables; i++) {
		dl_free(sc->tables[i].location);
		dl_free(sc->tables[i].table_id);
	}
	dl_free(sc->tables);
	sc->tables = NULL;
	sc->ntables = 0;
}

static int decide_drop_schema(dl_cat_change *out, const dl_cat_state *st, void *payload)
{
	schema_change *sc = payload;
	if (strcmp(sc->schema, "default") == 0)
		return dl_error_set_class(DL_EINVALID, "UNSUPPORTED_FEATURE.DROP_DATABASE",
		                          "The feature is not supported: Drop the default database "
		                          "`spark_catalog`.`default`.");
	if (!dl_cat_has_schema(st, sc->schema)) {
		if (sc->if_exists) return 1;
		return dl_cat_schema_not_found(sc->schema);
	}
	free_table_copies(sc);
	size_t n = 0;
	for (size_t i = 0; i < st->ntables; i++) n += strcmp(st->tables[i].schema, sc->schema) == 0;
	if (n && !sc->cascade)
		return dl_error_set_class(DL_EINVALID, "SCHEMA_NOT_EMPTY",
		                          "Cannot drop a schema `%s` because it contains objects. Use "
		                          "DROP SCHEMA ... CASCADE to drop the schema and all its "
		                          "objects.",
		                          sc->schema);
	sc->tables = n ? dl_calloc(n, sizeof *sc->tables) : NULL;
	if (n && !sc->tables) return DL_ENOMEM;
	for (size_t i = 0; i < st->ntables; i++) {
		const dl_cat_table *t = &st->tables[i];
		if (strcmp(t->schema, sc->schema) != 0 || t->external || !t->active) continue;
		dl_cat_table *k = &sc->tables[sc->ntables++];
		k->location = dl_strdup(t->location);
		k->table_id = dl_strdup(t->table_id);
		if (!k->location || !k->table_id) return DL_ENOMEM;
		k->active = true;
	}
	memset(out, 0, sizeof *out);
	out->op = DL_CAT_DROP_SCHEMA;
	out->schema = sc->schema;
	return 0;
}

int dl_catalog_drop_schema(dl_catalog *c, const char *schema, bool if_exists, bool cascade)
{
	char s[DL_CAT_NAME_MAX + 1];
	DL_TRY(dl_cat_parse_ident(s, schema ? schema : "", schema ? strlen(schema) : 0));
	schema_change sc = {.schema = s, .if_exists = if_exists, .cascade = cascade};
	int rc = dl_cat_commit(&c->state, c->store, decide_drop_schema, &sc);
	if (rc == 0) {
		if (strcmp(c->current, s) == 0) memcpy(c->current, "default", sizeof "default");
		/* The schema and its entries are gone; now the managed data. */
		for (size_t i = 0; i < sc.ntables && rc == 0; i++)
			rc = dl_cat_delete_managed_data(c, &sc.tables[i]);
	}
	free_table_copies(&sc);
	return rc < 0 ? rc : 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int dl_catalog_list_schemas(dl_catalog_name_list *out, dl_catalog *c)
{
	memset(out, 0, sizeof *out);
	DL_TRY(dl_cat_refresh(&c->state, c->store));
	size_t n = c->state.nschemas + 1;
	out->names = dl_calloc(n, sizeof *out->names);
	if (!out->names) return DL_ENOMEM;
	out->names[out->count++] = dl_strdup("default");
	for (size_t i = 0; i < c->state.nschemas; i++)
		out->names[out->count++] = dl_strdup(c->state.schemas[i]);
	for (size_t i = 0; i < out->count; i++)
		if (!out->names[i]) {
			dl_catalog_name_list_free(out);
			return DL_ENOMEM;
		}
	qsort(out->names, out->count, sizeof *out->names, cmp_str);
	return 0;
}

void dl_catalog_name_list_free(dl_catalog_name_list *l)
{
	if (!l) return;
	for (size_t i = 0; i < l->count; i++) dl_free(l->names[i]);
	dl_free(l->names);
	l->names = NULL;
	l->count = 0;
}

/* ---- tables: lookup and listing ---- */

void dl_catalog_table_info_free(dl_catalog_table_info *i)
{
	if (!i) return;
	dl_free(i->schema);
	dl_free(i->name);
	dl_free(i->uri);
	dl_free(i->table_id);
	memset(i, 0, sizeof *i);
}

void dl_catalog_table_list_free(dl_catalog_table_list *l)
{
	if (!l) return;
	for (size_t i = 0; i < l->count; i++) dl_catalog_table_info_free(&l->items[i]);
	dl_free(l->items);
	l->items = NULL;
	l->count = 0;
}

static int fill_info(dl_catalog_table_info *out, const dl_catalog *c, const dl_cat_table *t)
{
	memset(out, 0, sizeof *out);
	out->schema = dl_strdup(t->schema);
	out->name = dl_strdup(t->name);
	out->type = t->external ? DL_CATALOG_EXTERNAL : DL_CATALOG_MANAGED;
	out->table_id = t->table_id ? dl_strdup(t->table_id) : NULL;
	int rc = dl_cat_entry_uri(&out->uri, c, t);
	if (rc == 0 && (!out->schema || !out->name || (t->table_id && !out->table_id)))
		rc = DL_ENOMEM;
	if (rc < 0) dl_catalog_table_info_free(out);
	return rc;
}

int dl_catalog_lookup_table(dl_catalog_table_info *out, dl_catalog *c, const char *name)
{
	memset(out, 0, sizeof *out);
	dl_cat_name n;
	DL_TRY(dl_cat_parse_name(&n, name, c->current));
	DL_TRY(dl_cat_refresh(&c->state, c->store));
	const dl_cat_table *t = dl_cat_find_table(&c->state, n.schema, n.table);
	if (!t) return dl_cat_table_not_found(n.schema, n.table);
	if (!t->active)
		return dl_error_set_class(DL_ENOTFOUND, "TABLE_OR_VIEW_NOT_FOUND",
		                          "The table `%s`.`%s` is being created (or its creation was "
		                          "interrupted: DROP TABLE removes the entry).",
		                          n.schema, n.table);
	return fill_info(out, c, t);
}

int dl_catalog_table_uri(char **uri, dl_catalog *c, const char *name)
{
	*uri = NULL;
	dl_catalog_table_info i;
	DL_TRY(dl_catalog_lookup_table(&i, c, name));
	*uri = i.uri;
	i.uri = NULL;
	dl_catalog_table_info_free(&i);
	return 0;
}

static int cmp_info(const void *a, const void *b)
{
	return strcmp(((const dl_catalog_table_info *)a)->name,
	              ((const dl_catalog_table_info *)b)->name);
}

int dl_catalog_list_tables(dl_catalog_table_list *out, dl_catalog *c, const char *schema)
{
	memset(out, 0, sizeof *out);
	char s[DL_CAT_NAME_MAX + 1];
	if (schema) DL_TRY(dl_cat_parse_ident(s, schema, strlen(schema)));
	else memcpy(s, c->current, strlen(c->current) + 1);
	DL_TRY(dl_cat_refresh(&c->state, c->store));
	if (!dl_cat_has_schema(&c->state, s)) return dl_cat_schema_not_found(s);
	const dl_cat_state *st = &c->state;
	out->items = st->ntables ? dl_calloc(st->ntables, sizeof *out->items) : NULL;
	if (st->ntables && !out->items) return DL_ENOMEM;
	for (size_t i = 0; i < st->ntables; i++) {
		const dl_cat_table *t = &st->tables[i];
		if (!t->active || strcmp(t->schema, s) != 0) continue;
		int rc = fill_info(&out->items[out->count], c, t);
		if (rc < 0) {
			dl_catalog_table_list_free(out);
			return rc;
		}
		out->count++;
	}
	if (out->count) qsort(out->items, out->count, sizeof *out->items, cmp_info);
	return 0;
}
