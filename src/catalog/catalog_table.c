/* CREATE TABLE and DROP TABLE in the catalog. Rule (docs/CATALOG.md):
 *
 *   CREATE: 1. reserve the name: a createTable change (the entry, not yet
 *   active) committed against the latest catalog; of racing creates of a
 *   name exactly one commits it, the others get
 *   TABLE_OR_VIEW_ALREADY_EXISTS. 2. Check the location (a managed
 *   directory must hold no object; an external one either a Delta table to
 *   register or nothing) and create the Delta table (dl_create_table,
 *   which leaves no file when it fails). 3. activate the entry with the
 *   Delta table's id. A failure in 2 gives the name back (a dropTable of
 *   this entry). Step 3 fails only when the entry was dropped meanwhile;
 *   the table this call created is then deleted, so no directory is left
 *   without an entry by a live process.
 *
 *   DROP: commit the dropTable change first, so the name is free
 *   atomically; then, for a managed table that was active, delete the
 *   files of its directory if it still holds the Delta table the entry
 *   recorded (same metaData.id). A CREATE of the same name meanwhile finds
 *   the directory non-empty (LOCATION_ALREADY_EXISTS) until the last file
 *   is gone, so the delete never meets a newer table's files. An entry
 *   still being created is dropped without touching files: its creator
 *   (step 3 above) deletes what it made.
 *
 *   A crash between steps leaves either a reserved entry (lookups say it
 *   is being created; DROP TABLE removes it) or, after a DROP, files under
 *   a managed directory with no entry (a CREATE then fails with
 *   LOCATION_ALREADY_EXISTS, as in Spark, until they are removed). */
#include "catalog/catalog_internal.h"

#include <stdio.h>
#include <string.h>
#include <stddef.h>

#include "deltalake/snapshot.h"
#include "ops/create.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/options.h"
#include "util/uuid.h"

/* The current error, kept across cleanup work that may raise its own. */
typedef struct saved_error {
	int code;
	char klass[96];
	char message[1024];
} saved_error;

static void save_error(saved_error *s, int code)
{
	const dl_error *e = dl_error_last();
	s->code = code;
	snprintf(s->klass, sizeof s->klass, "%s", e->code == code ? e->klass : "");
	snprintf(s->message, sizeof s->message, "%s", e->code == code ? e->message : "");
}

static int restore_error(const saved_error *s)
{
	if (s->klass[0]) return dl_error_set_class(s->code, s->klass, "%s", s->message);
	return dl_error_set(s->code, "%s", s->message);
}

typedef struct table_change {
	dl_cat_name n;
	char entry_id[DL_UUID_TEXT_LEN + 1];
	const char *location;
	const char *table_id;
	bool external;
	bool if_not_exists, if_exists;
	/* drop: what the dropped entry was */
	bool found_external, found_active;
	char *found_location, *found_table_id;
	bool entry_gone; /* activate: the reserved entry was dropped meanwhile */
} table_change;

int dl_cat_table_exists(const char *schema, const char *table)
{
	return dl_error_set_class(DL_EEXISTS, "TABLE_OR_VIEW_ALREADY_EXISTS",
	                          "Cannot create table or view `%s`.`%s` because it already exists. "
	                          "Choose a different name, drop or replace the existing object, or "
	                          "add the IF NOT EXISTS clause to tolerate pre-existing objects.",
	                          schema, table);
}

static int decide_reserve(dl_cat_change *out, const dl_cat_state *st, void *payload)
{
	table_change *tc = payload;
	if (!dl_cat_has_schema(st, tc->n.schema)) return dl_cat_schema_not_found(tc->n.schema);
	if (dl_cat_find_table(st, tc->n.schema, tc->n.table)) {
		if (tc->if_not_exists) return 1;
		return dl_cat_table_exists(tc->n.schema, tc->n.table);
	}
	memset(out, 0, sizeof *out);
	out->op = DL_CAT_CREATE_TABLE;
	out->schema = tc->n.schema;
	out->table = tc->n.table;
	out->entry_id = tc->entry_id;
	out->location = tc->location;
	out->external = tc->external;
	return 0;
}

/* Our reserved entry, or NULL when it is no longer there. */
static const dl_cat_table *own_entry(const dl_cat_state *st, const table_change *tc)
{
	const dl_cat_table *t = dl_cat_find_table(st, tc->n.schema, tc->n.table);
	return t && strcmp(t->entry_id, tc->entry_id) == 0 && !t->active ? t : NULL;
}

static int decide_activate(dl_cat_change *out, const dl_cat_state *st, void *payload)
{
	table_change *tc = payload;
	if (!own_entry(st, tc)) {
		tc->entry_gone = true;
		return dl_error_set(DL_ECONFLICT,
		                    "table `%s`.`%s` was dropped by a concurrent DROP TABLE while it was "
		                    "being created; the table created for it was deleted",
		                    tc->n.schema, tc->n.table);
	}
	memset(out, 0, sizeof *out);
	out->op = DL_CAT_ACTIVATE_TABLE;
	out->schema = tc->n.schema;
	out->table = tc->n.table;
	out->entry_id = tc->entry_id;
	out->table_id = tc->table_id;
	return 0;
}

static int decide_unreserve(dl_cat_change *out, const dl_cat_state *st, void *payload)
{
	table_change *tc = payload;
	if (!own_entry(st, tc)) return 1; /* dropped meanwhile: nothing to give back */
	memset(out, 0, sizeof *out);
	out->op = DL_CAT_DROP_TABLE;
	out->schema = tc->n.schema;
	out->table = tc->n.table;
	out->entry_id = tc->entry_id;
	return 0;
}

/* Deletes every object in `s`, the Delta log first so that readers see the
 * table vanish rather than files missing under a live log. */
static int delete_all(dl_store *s)
{
	dl_object_list l = {NULL, 0};
	DL_TRY(dl_store_list_recursive(&l, s, ""));
	int rc = 0;
	for (int pass = 0; pass < 2 && rc == 0; pass++)
		for (size_t i = 0; i < l.count && rc == 0; i++) {
			bool log = strncmp(l.items[i].path, "_delta_log/", 11) == 0;
			if (log != (pass == 0)) continue;
			rc = dl_store_delete(s, l.items[i].path);
			if (rc == DL_ENOTFOUND) {
				dl_error_clear();
				rc = 0;
			}
		}
	dl_object_list_free(&l);
	return rc;
}

int dl_cat_open_store(dl_store **out, const dl_catalog *c, const char *uri)
{
	return dl_store_open(out, uri, c->store_options);
}

int dl_cat_delete_managed_data(dl_catalog *c, const dl_cat_table *t)
{
	char *uri;
	DL_TRY(dl_cat_entry_uri(&uri, c, t));
	dl_store *s = NULL;
	dl_snapshot *snap = NULL;
	int rc = dl_cat_open_store(&s, c, uri);
	if (rc == 0) rc = dl_ops_open_latest(&snap, s);
	/* Only the Delta table this entry registered is ours to delete. */
	const char *id = snap ? dl_snapshot_table_id(snap) : NULL;
	if (rc == 0 && id && t->table_id && strcmp(id, t->table_id) == 0) rc = delete_all(s);
	dl_snapshot_free(snap);
	dl_store_free(s);
	if (rc < 0) dl_error_prefix("the table was dropped, but deleting its files at %s failed", uri);
	dl_free(uri);
	return rc;
}

/* Step 2 of CREATE: the Delta table at `uri`, created or found; its id into
 * *table_id (dl_free), *created when this call made it. */
static int make_table(int64_t *version, char **table_id, bool *created, const dl_catalog *c,
                      const char *uri, const table_change *tc, const dl_catalog_table_options *o)
{
	const dl_create_options *create = o->create;
	struct ArrowArrayStream *data = o->data;
	const dl_write_options *write = o->write;
	*version = -1;
	*table_id = NULL;
	*created = false;
	dl_store *s;
	DL_TRY(dl_cat_open_store(&s, c, uri));
	dl_object_list l = {NULL, 0};
	dl_snapshot *snap = NULL;
	int rc = dl_store_list_recursive(&l, s, "");
	if (rc == 0 && tc->external) rc = dl_ops_open_latest(&snap, s);
	char rel[2 * DL_CAT_NAME_MAX + 8];
	snprintf(rel, sizeof rel, "`%s`.`%s`", tc->n.schema, tc->n.table);
	if (rc < 0) {
	} else if (!tc->external && l.count) {
		rc = dl_error_set_class(DL_EEXISTS, "LOCATION_ALREADY_EXISTS",
		                        "Cannot name the managed table as %s, as its associated "
		                        "location '%s' already exists. Please pick a different table "
		                        "name, or remove the existing location first.",
		                        rel, uri);
	} else if (snap && (create || data || o->make)) {
		rc = dl_error_set(DL_EUNSUPPORTED,
		                  "CREATE TABLE %s with columns at LOCATION '%s', which already holds a "
		                  "Delta table, is not supported yet; omit the columns to register the "
		                  "existing table",
		                  rel, uri);
	} else if (snap) {
		*table_id = dl_strdup(dl_snapshot_table_id(snap));
		if (!*table_id) rc = DL_ENOMEM;
	} else if (l.count) {
		rc = dl_error_set_class(DL_EEXISTS, "DELTA_CREATE_TABLE_WITH_NON_EMPTY_LOCATION",
		                        "Cannot create table ('%s'). The associated location ('%s') is "
		                        "not empty and also not a Delta table.",
		                        rel, uri);
	} else if (data) {
		/* CREATE TABLE AS SELECT: the rows and the table in one commit */
		dl_write_options wo = DL_WRITE_OPTIONS_INIT;
		if (write && write->version != DL_WRITE_OPTIONS_VERSION)
			return dl_error_set(DL_EINVALID, "dl_catalog_table_options.write: version %d, this "
			                                 "library takes %d", write->version, DL_WRITE_OPTIONS_VERSION);
		if (write) wo = *write;
		wo.version = DL_WRITE_OPTIONS_VERSION;
		wo.mode = DL_WRITE_ERROR_IF_EXISTS;
		wo.store = s;
		wo.store_options = NULL;
		rc = dl_write(version, uri, data, &wo);
		if (rc == 0) {
			*created = true;
			dl_snapshot *ns = NULL;
			rc = dl_ops_open_latest(&ns, s);
			if (rc == 0 && !ns) rc = dl_error_set(DL_ENOTFOUND, "the table created at %s is gone", uri);
			if (rc == 0 && !(*table_id = dl_strdup(dl_snapshot_table_id(ns)))) rc = DL_ENOMEM;
			dl_snapshot_free(ns);
		}
	} else if (o->make) {
		/* a table the caller commits (SHALLOW CLONE) */
		rc = o->make(version, uri, o->make_payload);
		if (rc == 0) {
			*created = true;
			rc = dl_ops_open_latest(&snap, s);
			if (rc == 0 && !snap) rc = dl_error_set(DL_ENOTFOUND, "the table created at %s is gone", uri);
			if (rc == 0 && !(*table_id = dl_strdup(dl_snapshot_table_id(snap)))) rc = DL_ENOMEM;
		}
	} else if (!create) {
		rc = dl_error_set_class(DL_EINVALID, "DELTA_SCHEMA_NOT_PROVIDED",
		                        "Table schema is not provided. Please provide the schema "
		                        "(column definition) of the table %s: no Delta table exists at "
		                        "'%s'.",
		                        rel, uri);
	} else {
		/* through the store opened above, so the catalog's store options apply */
		dl_create_options co = DL_CREATE_OPTIONS_INIT;
		/* a caller's older struct is shorter: version 1 ends before `store`,
		 * version 2 before `cluster_by` */
		size_t have = create->version >= 3   ? sizeof co
		              : create->version == 2 ? offsetof(dl_create_options, cluster_by)
		                                     : offsetof(dl_create_options, store);
		memcpy(&co, create, have);
		co.version = DL_CREATE_OPTIONS_VERSION;
		co.is_managed = !tc->external;
		co.store = s;
		co.store_options = NULL;
		rc = dl_create_table(version, uri, &co);
		if (rc == 0) {
			*created = true;
			dl_snapshot_free(snap);
			snap = NULL;
			rc = dl_ops_open_latest(&snap, s);
			if (rc == 0 && !snap)
				rc = dl_error_set(DL_ENOTFOUND, "the table created at %s is gone", uri);
			if (rc == 0) {
				*table_id = dl_strdup(dl_snapshot_table_id(snap));
				if (!*table_id) rc = DL_ENOMEM;
			}
		}
	}
	dl_snapshot_free(snap);
	dl_object_list_free(&l);
	dl_store_free(s);
	return rc;
}

/* Deletes the table step 2 created at uri (it was empty before). */
static void delete_created(const dl_catalog *c, const char *uri)
{
	dl_store *s;
	if (dl_cat_open_store(&s, c, uri) == 0) {
		(void)delete_all(s);
		dl_store_free(s);
	}
}

static int create_table(int64_t *version, dl_catalog *c, const char *name, const dl_catalog_table_options *op);

int dl_catalog_create_table(int64_t *version, dl_catalog *c, const char *name,
                            const dl_catalog_table_options *opts)
{
	static const size_t ends[] = {DL_OPTIONS_END(dl_catalog_table_options, if_not_exists),
	                              DL_OPTIONS_END(dl_catalog_table_options, write),
	                              sizeof(dl_catalog_table_options)};
	DL_OPTIONS_ENDS_CHECK(ends, DL_CATALOG_TABLE_OPTIONS_VERSION);
	*version = -1;
	dl_catalog_table_options o = DL_CATALOG_TABLE_OPTIONS_INIT;
	int rc = dl_options_load(&o, opts, ends, DL_CATALOG_TABLE_OPTIONS_VERSION, "dl_catalog_table_options",
	                         "DL_CATALOG_TABLE_OPTIONS_INIT");
	if (rc == 0 && (!!o.data + !!o.create + !!o.make) > 1)
		rc = dl_error_set(DL_EINVALID, "dl_catalog_create_table: give one of `create`, `data` and `make`");
	if (rc == 0) rc = create_table(version, c, name, &o);
	/* the rows are consumed whatever happened */
	if (o.data && o.data->release) o.data->release(o.data);
	return rc;
}

static int create_table(int64_t *version, dl_catalog *c, const char *name, const dl_catalog_table_options *op)
{
	dl_catalog_table_options o = *op;
	table_change tc;
	memset(&tc, 0, sizeof tc);
	DL_TRY(dl_cat_parse_name(&tc.n, name, c->current));
	if (o.create && o.create->version >= 1 && o.create->mode != DL_CREATE_ERROR_IF_EXISTS)
		return dl_error_set(DL_EUNSUPPORTED, "dl_catalog_create_table: create.mode must be "
		                                     "DL_CREATE_ERROR_IF_EXISTS (CREATE OR REPLACE "
		                                     "through the catalog is not supported yet; use "
		                                     "if_not_exists for IF NOT EXISTS)");
	if (!o.location && !o.create && !o.data && !o.make)
		return dl_error_set_class(DL_EINVALID, "DELTA_SCHEMA_NOT_PROVIDED",
		                          "Table schema is not provided. Please provide the schema "
		                          "(column definition) of the managed table `%s`.`%s`.",
		                          tc.n.schema, tc.n.table);
	char *location = NULL;
	int rc = o.location ? dl_cat_absolute_location(&location, o.location)
	                    : dl_cat_managed_path(&location, tc.n.schema, tc.n.table);
	if (rc == 0) rc = dl_uuid_v4(tc.entry_id);
	tc.location = location;
	tc.external = o.location != NULL;
	tc.if_not_exists = o.if_not_exists;
	if (rc == 0) rc = dl_cat_commit(&c->state, c->store, decide_reserve, &tc);
	if (rc != 0) { /* an error, or 1: IF NOT EXISTS found the name taken */
		dl_free(location);
		return rc < 0 ? rc : 0;
	}
	char *uri = NULL;
	char *table_id = NULL;
	bool created = false;
	int64_t v = -1;
	rc = tc.external ? ((uri = dl_strdup(location)) ? 0 : DL_ENOMEM)
	                 : dl_cat_join(&uri, c->root, location);
	if (rc == 0) rc = make_table(&v, &table_id, &created, c, uri, &tc, &o);
	if (rc == 0) {
		tc.table_id = table_id;
		rc = dl_cat_commit(&c->state, c->store, decide_activate, &tc);
		if (rc < 0 && tc.entry_gone && created) delete_created(c, uri);
	} else {
		saved_error e;
		save_error(&e, rc);
		(void)dl_cat_commit(&c->state, c->store, decide_unreserve, &tc);
		rc = restore_error(&e);
	}
	if (rc == 0) *version = v;
	dl_free(table_id);
	dl_free(uri);
	dl_free(location);
	return rc;
}

static int decide_drop(dl_cat_change *out, const dl_cat_state *st, void *payload)
{
	table_change *tc = payload;
	const dl_cat_table *t = dl_cat_find_table(st, tc->n.schema, tc->n.table);
	if (!t) {
		if (tc->if_exists) return 1;
		return dl_cat_table_not_found(tc->n.schema, tc->n.table);
	}
	dl_free(tc->found_location);
	dl_free(tc->found_table_id);
	tc->found_location = dl_strdup(t->location);
	tc->found_table_id = t->table_id ? dl_strdup(t->table_id) : NULL;
	if (!tc->found_location || (t->table_id && !tc->found_table_id)) return DL_ENOMEM;
	tc->found_external = t->external;
	tc->found_active = t->active;
	snprintf(tc->entry_id, sizeof tc->entry_id, "%s", t->entry_id);
	memset(out, 0, sizeof *out);
	out->op = DL_CAT_DROP_TABLE;
	out->schema = tc->n.schema;
	out->table = tc->n.table;
	out->entry_id = tc->entry_id;
	return 0;
}

int dl_catalog_drop_table(dl_catalog *c, const char *name, bool if_exists)
{
	table_change tc;
	memset(&tc, 0, sizeof tc);
	DL_TRY(dl_cat_parse_name(&tc.n, name, c->current));
	tc.if_exists = if_exists;
	int rc = dl_cat_commit(&c->state, c->store, decide_drop, &tc);
	if (rc == 0 && !tc.found_external && tc.found_active) {
		dl_cat_table t = {.location = tc.found_location, .table_id = tc.found_table_id,
		                  .active = true};
		rc = dl_cat_delete_managed_data(c, &t);
	}
	dl_free(tc.found_location);
	dl_free(tc.found_table_id);
	return rc < 0 ? rc : 0;
}
