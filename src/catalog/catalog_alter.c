/* ALTER TABLE ... RENAME TO and SET LOCATION on catalog tables: one catalog
 * change each, decided against the latest catalog and committed with the
 * catalog log's put-if-absent rule (catalog_log.c, docs/CATALOG.md), so of
 * racing changes to one entry each is re-decided on the state the others
 * left.
 *
 *   RENAME: Spark's SessionCatalog.renameTable: the new name must be in
 *   the same schema (_LEGACY_ERROR_TEMP_1073) and free
 *   (TABLE_OR_VIEW_ALREADY_EXISTS). The renameTable change moves the entry
 *   (its entryId, table id and location) to the new name atomically. The
 *   data stays where it is: a Hive warehouse renames a managed table's
 *   directory, but a store without a rename primitive could only copy and
 *   delete, which is neither atomic nor safe against a writer still
 *   committing to the old path; the entry records its location, so the
 *   table reads and drops as before (a new managed table of the old name
 *   finds that directory in use: LOCATION_ALREADY_EXISTS).
 *
 *   SET LOCATION: Spark's AlterTableSetLocationDeltaCommand: only the
 *   catalog's pointer changes. The new location must hold a Delta table
 *   (DELTA_MISSING_DELTA_TABLE) whose schema and partition columns equal
 *   the current table's, internal column metadata aside
 *   (DELTA_SET_LOCATION_SCHEMA_MISMATCH); the setTableLocation change
 *   records the absolute location and the new table's id. */
#include "catalog/catalog_internal.h"

#include <stdio.h>
#include <string.h>

#include "deltalake/snapshot.h"
#include "log/schema.h"
#include "log/snapshot.h"
#include "ops/create.h"
#include "util/arena.h"
#include "util/error.h"
#include "util/mem.h"

typedef struct entry_change {
	dl_cat_name from;
	char to_table[DL_CAT_NAME_MAX + 1];
	char entry_id[64];        /* the entry this change was decided for */
	const char *location;     /* set location: absolute */
	const char *table_id;     /* set location: the new table's id */
} entry_change;

/* The active entry of ec->from, or the error Spark raises. */
static int active_entry(const dl_cat_table **out, const dl_cat_state *st, const entry_change *ec)
{
	const dl_cat_table *t = dl_cat_find_table(st, ec->from.schema, ec->from.table);
	if (!t) return dl_cat_table_not_found(ec->from.schema, ec->from.table);
	if (!t->active)
		return dl_error_set_class(DL_ENOTFOUND, "TABLE_OR_VIEW_NOT_FOUND",
		                          "The table `%s`.`%s` is being created (or its creation was "
		                          "interrupted: DROP TABLE removes the entry).",
		                          ec->from.schema, ec->from.table);
	/* a change decided for one entry never applies to a later one of the
	 * same name (dropped and re-created meanwhile) */
	if (ec->entry_id[0] && strcmp(t->entry_id, ec->entry_id) != 0)
		return dl_error_set_class(DL_ECONFLICT, "TABLE_OR_VIEW_NOT_FOUND",
		                          "The table `%s`.`%s` was dropped and re-created while it was "
		                          "being altered; run the statement again.",
		                          ec->from.schema, ec->from.table);
	*out = t;
	return 0;
}

static int decide_rename(dl_cat_change *out, const dl_cat_state *st, void *payload)
{
	entry_change *ec = payload;
	ec->entry_id[0] = 0; /* whichever entry holds the name now */
	const dl_cat_table *t;
	DL_TRY(active_entry(&t, st, ec));
	if (strcmp(ec->to_table, ec->from.table) == 0 || dl_cat_find_table(st, ec->from.schema, ec->to_table))
		return dl_cat_table_exists(ec->from.schema, ec->to_table);
	/* the change's strings must not be the state's (catalog_log.h) */
	snprintf(ec->entry_id, sizeof ec->entry_id, "%s", t->entry_id);
	memset(out, 0, sizeof *out);
	out->op = DL_CAT_RENAME_TABLE;
	out->schema = ec->from.schema;
	out->table = ec->from.table;
	out->entry_id = ec->entry_id;
	out->to_table = ec->to_table;
	return 0;
}

int dl_catalog_rename_table(dl_catalog *c, const char *name, const char *new_name)
{
	if (!c || !name || !new_name) return dl_error_set(DL_EINVALID, "dl_catalog_rename_table: NULL argument");
	entry_change ec;
	memset(&ec, 0, sizeof ec);
	DL_TRY(dl_cat_parse_name(&ec.from, name, c->current));
	/* Spark qualifies an unqualified new name with the source's database */
	dl_cat_name to;
	DL_TRY(dl_cat_parse_name(&to, new_name, ec.from.schema));
	if (strcmp(to.schema, ec.from.schema) != 0)
		return dl_error_set_class(DL_EINVALID, "_LEGACY_ERROR_TEMP_1073",
		                          "RENAME TABLE source and destination databases do not match: "
		                          "'%s' != '%s'.",
		                          ec.from.schema, to.schema);
	memcpy(ec.to_table, to.table, sizeof ec.to_table);
	int rc = dl_cat_commit(&c->state, c->store, decide_rename, &ec);
	return rc < 0 ? rc : 0;
}

/* ---- SET LOCATION ---- */

/* A field's comment (NULL: none); metadata that is not valid JSON counts
 * as none (the schema parser already accepted it). */
static const char *comment_of(const dl_field *f, dl_arena *a)
{
	const char *c = NULL;
	if (dl_field_metadata_string(f, "comment", a, &c) < 0) {
		dl_error_clear();
		return NULL;
	}
	return c;
}

/* Same names, types, nullability and comments, recursively: Spark's schema
 * check after removeInternalDeltaMetadata (column mapping ids and physical
 * names, type-widening history, generation and identity metadata are
 * internal, so only the user's comment is compared). */
static bool same_shape(const dl_type *a, const dl_type *b, dl_arena *ar)
{
	if (a->id != b->id || a->nchildren != b->nchildren) return false;
	if (a->id == DL_TYPE_DECIMAL && (a->precision != b->precision || a->scale != b->scale)) return false;
	for (int i = 0; i < a->nchildren; i++) {
		const dl_field *fa = &a->children[i], *fb = &b->children[i];
		if (strcmp(fa->name, fb->name) != 0 || fa->nullable != fb->nullable ||
		    !same_shape(fa->type, fb->type, ar))
			return false;
		if (a->id == DL_TYPE_STRUCT) {
			const char *ca = comment_of(fa, ar), *cb = comment_of(fb, ar);
			if ((ca || cb) && (!ca || !cb || strcmp(ca, cb) != 0)) return false;
		}
	}
	return true;
}

static bool same_partitioning(const dl_metadata *a, const dl_metadata *b)
{
	if (a->npartition_columns != b->npartition_columns) return false;
	for (uint32_t i = 0; i < a->npartition_columns; i++)
		if (strcmp(a->partition_columns[i], b->partition_columns[i]) != 0) return false;
	return true;
}

/* The latest snapshot at `uri`; DELTA_MISSING_DELTA_TABLE naming `what`
 * when there is none. */
static int open_table(dl_snapshot **out, dl_store **store, const dl_catalog *c, const char *uri,
                      const char *what)
{
	*out = NULL;
	DL_TRY(dl_cat_open_store(store, c, uri));
	DL_TRY(dl_ops_open_latest(out, *store));
	if (!*out)
		return dl_error_set_class(DL_ENOTFOUND, "DELTA_MISSING_DELTA_TABLE", "%s is not a Delta table.", what);
	return 0;
}

static int check_schemas(dl_snapshot *old, dl_snapshot *neu)
{
	const dl_metadata *om = dl_snapshot_state(old)->metadata, *nm = dl_snapshot_state(neu)->metadata;
	dl_arena ar = DL_ARENA_INIT;
	bool same = same_shape(dl_snapshot_schema(old), dl_snapshot_schema(neu), &ar) && same_partitioning(om, nm);
	dl_arena_free(&ar);
	if (same) return 0;
	return dl_error_set_class(DL_EINVALID, "DELTA_SET_LOCATION_SCHEMA_MISMATCH",
	                          "The schema of the new Delta location is different than the current "
	                          "table schema.\noriginal schema:\n%s\ndestination schema:\n%s\n\nIf "
	                          "this is an intended change, you may turn this check off by running:\n"
	                          "%%sql set spark.databricks.delta.alterLocation.bypassSchemaCheck = true",
	                          om->schema_string, nm->schema_string);
}

static int decide_set_location(dl_cat_change *out, const dl_cat_state *st, void *payload)
{
	entry_change *ec = payload;
	const dl_cat_table *t;
	DL_TRY(active_entry(&t, st, ec));
	memset(out, 0, sizeof *out);
	out->op = DL_CAT_SET_LOCATION;
	out->schema = ec->from.schema;
	out->table = ec->from.table;
	out->entry_id = ec->entry_id;
	out->location = ec->location;
	out->table_id = ec->table_id;
	return 0;
}

int dl_catalog_set_table_location(dl_catalog *c, const char *name, const char *location)
{
	if (!c || !name || !location || !*location)
		return dl_error_set(DL_EINVALID, "dl_catalog_set_table_location: no table or location");
	entry_change ec;
	memset(&ec, 0, sizeof ec);
	DL_TRY(dl_cat_parse_name(&ec.from, name, c->current));
	DL_TRY(dl_cat_refresh(&c->state, c->store));
	const dl_cat_table *t;
	DL_TRY(active_entry(&t, &c->state, &ec));
	snprintf(ec.entry_id, sizeof ec.entry_id, "%s", t->entry_id);
	char *old_uri = NULL, *new_uri = NULL, qualified[2 * DL_CAT_NAME_MAX + 8];
	snprintf(qualified, sizeof qualified, "`%s`.`%s`", ec.from.schema, ec.from.table);
	dl_store *os = NULL, *ns = NULL;
	dl_snapshot *old = NULL, *neu = NULL;
	int rc = dl_cat_entry_uri(&old_uri, c, t);
	if (rc == 0) rc = dl_cat_absolute_location(&new_uri, location);
	if (rc == 0) rc = open_table(&old, &os, c, old_uri, qualified);
	if (rc == 0) rc = open_table(&neu, &ns, c, new_uri, new_uri);
	if (rc == 0) rc = check_schemas(old, neu);
	if (rc == 0) {
		ec.location = new_uri;
		ec.table_id = dl_snapshot_table_id(neu);
		rc = dl_cat_commit(&c->state, c->store, decide_set_location, &ec);
	}
	dl_snapshot_free(old);
	dl_snapshot_free(neu);
	dl_store_free(os);
	dl_store_free(ns);
	dl_free(old_uri);
	dl_free(new_uri);
	return rc < 0 ? rc : 0;
}
