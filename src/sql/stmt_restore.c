/* RESTORE TABLE, CREATE TABLE ... SHALLOW CLONE and CONVERT TO DELTA
 * statements onto dl_restore, dl_shallow_clone and dl_convert_to_delta
 * (deltalake/maintenance.h, src/maint), with Spark's result rows:
 *   RESTORE: table_size_after_restore, num_of_files_after_restore,
 *            num_removed_files, num_restored_files, removed_files_size,
 *            restored_files_size (RestoreTableCommandBase.outputSchema);
 *   CLONE:   source_table_size, source_num_of_files, num_removed_files,
 *            num_copied_files, removed_files_size, copied_files_size
 *            (CloneTableCommand.output);
 *   CONVERT: no rows (ConvertToDeltaCommand returns Seq.empty).
 * A CLONE into a catalog name is created through the catalog as CREATE
 * TABLE is (the name reserved, the clone committed at the managed path or
 * the LOCATION, then the entry made visible). */
#include <stdatomic.h>
#include <string.h>
#include "deltalake/catalog.h"
#include "deltalake/maintenance.h"
#include "sql/session_internal.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/time.h"

static int on_progress(const dl_progress_info *info, void *payload)
{
	(void)info;
	dl_sql_conn *c = payload;
	return atomic_load(&c->interrupt) ? 1 : 0;
}

static int cancelled_or(int rc, dl_sql_conn *c)
{
	if (rc == DL_ECANCELLED && atomic_load(&c->interrupt)) return sql_cancelled();
	return rc;
}

static int long_row(dl_batch_stream **out, const char *const *names, const int64_t *v, int n)
{
	dl_type_id types[6] = {DL_TYPE_LONG, DL_TYPE_LONG, DL_TYPE_LONG, DL_TYPE_LONG, DL_TYPE_LONG, DL_TYPE_LONG};
	sql_rows r;
	DL_TRY(sql_rows_init(&r, names, types, n));
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++) rc = sql_rows_int(&r, i, v[i]);
	if (rc == 0) rc = sql_rows_finish(out, &r);
	sql_rows_free(&r);
	return rc;
}

/* A time-travel clause as (version, timestamp text): *version -1 and
 * ts[0] set for TIMESTAMP AS OF (the instant in UTC, which the
 * maintenance calls read back exactly). */
static int time_travel(int64_t *version, char ts[DL_TIME_TEXT_MAX + 2], dl_sql_conn *c,
                       const sql_time_travel *tt)
{
	*version = -1;
	ts[0] = 0;
	if (tt->kind == TT_NONE) return 0;
	sql_env env;
	sql_session_env(&env, c);
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	DL_TRY(sql_time_travel_options(&so, tt, &env.ctx));
	if (so.as_of_version >= 0) {
		*version = so.as_of_version;
		return 0;
	}
	size_t n = dl_timestamp_format_iso(ts, so.as_of_timestamp_ms * 1000, NULL, 3);
	ts[n] = 'Z';
	ts[n + 1] = 0;
	return 0;
}

/* ---- RESTORE ---------------------------------------------------------- */

int sql_run_restore(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	int64_t version;
	char ts[DL_TIME_TEXT_MAX + 2];
	DL_TRY(time_travel(&version, ts, c, &st->tt));
	sql_target t;
	DL_TRY(sql_target_resolve(&t, c, st->table));
	dl_restore_options o = DL_RESTORE_OPTIONS_INIT;
	o.store_options = c->store_options;
	o.progress = on_progress;
	o.progress_payload = c;
	o.to_version = version;
	o.to_timestamp = version < 0 ? ts : NULL;
	o.ignore_missing_files = sql_setting_true(c, "spark.sql.files.ignoreMissingFiles");
	dl_restore_metrics m;
	int rc = cancelled_or(dl_restore(&m, t.uri, &o), c);
	sql_target_free(&t);
	DL_TRY(rc);
	static const char *const names[] = {"table_size_after_restore", "num_of_files_after_restore",
	                                    "num_removed_files",        "num_restored_files",
	                                    "removed_files_size",       "restored_files_size"};
	int64_t v[] = {m.tableSizeAfterRestore, m.numOfFilesAfterRestore, m.numRemovedFiles,
	               m.numRestoredFiles,      m.removedFilesSize,        m.restoredFilesSize};
	return long_row(out, names, v, 6);
}

/* ---- CREATE TABLE ... SHALLOW CLONE ----------------------------------- */

typedef struct clone_call {
	const char *source;
	dl_clone_options o;
	dl_clone_metrics m;
} clone_call;

/* The catalog's `make`: the clone committed at the table's location. */
static int make_clone(int64_t *version, const char *uri, void *payload)
{
	clone_call *cc = payload;
	DL_TRY(dl_shallow_clone(&cc->m, cc->source, uri, &cc->o));
	*version = cc->m.version;
	return 0;
}

static int clone_into(clone_call *cc, dl_sql_conn *c, const sql_stmt *st)
{
	if (st->table->kind == TREF_PATH) {
		if (strcmp(st->table->format, "delta") != 0)
			return dl_error_set_class(DL_EUNSUPPORTED, "UNSUPPORTED_DATASOURCE",
			                          "[UNSUPPORTED_DATASOURCE] CREATE TABLE %s.`...` SHALLOW CLONE: a clone is a "
			                          "Delta table (delta.`path`)",
			                          st->table->format);
		if (st->location)
			return dl_error_set(DL_EINVALID, "CREATE TABLE delta.`%s` SHALLOW CLONE ... LOCATION: the path "
			                                 "already is the location", st->table->path);
		return dl_shallow_clone(&cc->m, cc->source, st->table->path, &cc->o);
	}
	char *name = NULL;
	DL_TRY(sql_ref_name(&name, st->table));
	dl_catalog_table_info info;
	int rc = dl_catalog_lookup_table(&info, c->cat, name);
	if (rc == 0) {
		if (st->if_not_exists) {
			/* nothing: Spark's CREATE TABLE IF NOT EXISTS on an existing table */
		} else if (!st->or_replace) {
			rc = dl_error_set_class(DL_EEXISTS, "TABLE_OR_VIEW_ALREADY_EXISTS",
			                        "[TABLE_OR_VIEW_ALREADY_EXISTS] Cannot create table or view %s because it "
			                        "already exists.",
			                        name);
		} else if (st->location) {
			rc = dl_error_set(DL_EUNSUPPORTED, "CREATE OR REPLACE TABLE %s SHALLOW CLONE ... LOCATION: changing a "
			                                   "catalog table's location is not supported yet", name);
		} else {
			cc->o.replace = true;
			rc = dl_shallow_clone(&cc->m, cc->source, info.uri, &cc->o);
		}
		dl_catalog_table_info_free(&info);
	} else if (rc == DL_ENOTFOUND) {
		dl_error_clear();
		if (st->replace_only) {
			rc = dl_error_set_class(DL_ENOTFOUND, "DELTA_CANNOT_REPLACE_MISSING_TABLE",
			                        "[DELTA_CANNOT_REPLACE_MISSING_TABLE] Table %s cannot be replaced as it does "
			                        "not exist. Use CREATE OR REPLACE TABLE to create the table.",
			                        name);
		} else {
			dl_catalog_table_options to = DL_CATALOG_TABLE_OPTIONS_INIT;
			to.location = st->location;
			to.if_not_exists = st->if_not_exists;
			to.make = make_clone;
			to.make_payload = cc;
			int64_t v;
			rc = dl_catalog_create_table(&v, c->cat, name, &to);
		}
	}
	dl_free(name);
	return rc;
}

int sql_run_clone(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	if (!st->shallow)
		return dl_error_set_class(DL_EUNSUPPORTED, "DELTA_UNSUPPORTED_DEEP_CLONE",
		                          "[DELTA_UNSUPPORTED_DEEP_CLONE] Deep clone is not supported by this Delta "
		                          "version. (SHALLOW CLONE is.)");
	if (st->source->kind == TREF_PATH && strcmp(st->source->format, "delta") != 0)
		return dl_error_set_class(DL_EUNSUPPORTED, "DELTA_CLONE_UNSUPPORTED_SOURCE",
		                          "[DELTA_CLONE_UNSUPPORTED_SOURCE] Unsupported clone source '%s.`%s`', whose "
		                          "format is %s. The supported formats are 'delta' (a Parquet directory can be "
		                          "converted with CONVERT TO DELTA first).",
		                          st->source->format, st->source->path, st->source->format);
	clone_call cc;
	memset(&cc, 0, sizeof cc);
	dl_clone_options d = DL_CLONE_OPTIONS_INIT;
	cc.o = d;
	cc.m.version = -1;
	char ts[DL_TIME_TEXT_MAX + 2];
	DL_TRY(time_travel(&cc.o.source_version, ts, c, &st->source->tt));
	if (cc.o.source_version < 0 && ts[0]) cc.o.source_timestamp = ts;
	sql_target src;
	DL_TRY(sql_target_resolve(&src, c, st->source));
	cc.source = src.uri;
	cc.o.source_name = src.display;
	int n = st->nprops;
	const char **keys = dl_calloc((size_t)(n ? n : 1), sizeof *keys);
	const char **vals = dl_calloc((size_t)(n ? n : 1), sizeof *vals);
	int rc = keys && vals ? 0 : DL_ENOMEM;
	for (int i = 0; i < n && rc == 0; i++) {
		keys[i] = st->props[i].key;
		vals[i] = st->props[i].value;
		if (!vals[i]) rc = dl_error_set(DL_EINVALID, "TBLPROPERTIES: '%s' has no value", keys[i]);
	}
	cc.o.property_keys = keys;
	cc.o.property_values = vals;
	cc.o.nproperties = n;
	cc.o.if_not_exists = st->if_not_exists;
	cc.o.replace = st->or_replace && st->table->kind == TREF_PATH;
	cc.o.store_options = c->store_options;
	cc.o.progress = on_progress;
	cc.o.progress_payload = c;
	if (rc == 0) rc = cancelled_or(clone_into(&cc, c, st), c);
	dl_free(keys);
	dl_free(vals);
	sql_target_free(&src);
	DL_TRY(rc);
	static const char *const names[] = {"source_table_size", "source_num_of_files", "num_removed_files",
	                                    "num_copied_files",  "removed_files_size",  "copied_files_size"};
	int64_t v[] = {cc.m.sourceTableSize,  cc.m.sourceNumOfFiles,  cc.m.numRemovedFiles,
	               cc.m.numCopiedFiles,   cc.m.removedFilesSize,  cc.m.copiedFilesSize};
	return long_row(out, names, v, 6);
}

/* ---- CONVERT TO DELTA ------------------------------------------------- */

int sql_run_convert(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	const sql_table_ref *ref = st->table;
	if (ref->kind == TREF_NAME || (ref->kind == TREF_PATH && strcmp(ref->format, "delta") == 0)) {
		/* Catalog tables and delta.`path` are Delta tables already:
		 * ConvertToDeltaCommand does nothing for those (a missing one is
		 * the resolver's error) */
		sql_target t;
		DL_TRY(sql_target_resolve(&t, c, ref));
		dl_snapshot *snap = NULL;
		dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
		so.metadata_only = true;
		int rc = sql_open_snapshot(&snap, c, &t, &so);
		dl_snapshot_free(snap);
		sql_target_free(&t);
		DL_TRY(rc);
		return sql_empty_result(out);
	}
	if (ref->kind == TREF_PATH && strcmp(ref->format, "iceberg") == 0) {
		/* CONVERT TO DELTA iceberg.`path` (maint/convert_iceberg.c) */
		if (st->ncols || st->no_statistics)
			return dl_error_set(DL_EINVALID, "CONVERT TO DELTA iceberg.`path` takes neither NO STATISTICS "
			                                 "nor PARTITIONED BY (the Iceberg partition spec is used)");
		dl_convert_options o = DL_CONVERT_OPTIONS_INIT;
		o.store_options = c->store_options;
		dl_convert_metrics m;
		DL_TRY(cancelled_or(dl_convert_iceberg_to_delta(&m, ref->path, &o), c));
		return sql_empty_result(out);
	}
	if (ref->kind != TREF_PATH || strcmp(ref->format, "parquet") != 0)
		return dl_error_set_class(DL_EUNSUPPORTED, "DELTA_CONVERSION_UNSUPPORTED_SOURCE",
		                          "[DELTA_CONVERSION_UNSUPPORTED_SOURCE] CONVERT TO DELTA only supports parquet "
		                          "and iceberg tables: parquet.`path` or iceberg.`path`%s%s",
		                          ref->kind == TREF_PATH ? ", not " : "",
		                          ref->kind == TREF_PATH ? ref->format : "");
	dl_buf ddl = DL_BUF_INIT;
	int rc = 0;
	if (st->ncols) {
		rc = sql_column_defs_ddl(&ddl, st->cols, st->ncols);
		if (rc == 0) rc = dl_buf_putc(&ddl, 0);
	}
	dl_convert_options o = DL_CONVERT_OPTIONS_INIT;
	o.store_options = c->store_options;
	o.progress = on_progress;
	o.progress_payload = c;
	o.partition_schema_ddl = st->ncols ? (const char *)ddl.data : NULL;
	o.no_statistics = st->no_statistics;
	dl_convert_metrics m;
	if (rc == 0) rc = cancelled_or(dl_convert_to_delta(&m, ref->path, &o), c);
	dl_buf_free(&ddl);
	DL_TRY(rc);
	return sql_empty_result(out);
}
