/* The SQL session: a connection's state (catalog, SET values, interrupt
 * flag), statement dispatch and the table resolver. The public side is
 * include/deltalake/sql.h (api.c); one file per statement family
 * (stmt_ddl.c, stmt_show.c, stmt_describe.c, stmt_insert.c, stmt_query.c)
 * behind one dispatch table (stmt.c). */
#ifndef DL_SQL_SESSION_INTERNAL_H
#define DL_SQL_SESSION_INTERNAL_H
#include "storage/resolve.h"
#include "deltalake/catalog.h"
#include "deltalake/sql.h"
#include "deltalake/write.h" /* dl_auto_widening */
#include "sql/plan.h"
#include "sql/sql.h"
#include <stdatomic.h>

typedef struct sql_setting {
	char *key;   /* as written (Spark keys are case-sensitive) */
	char *value; /* raw text, trimmed, quotes of a 'quoted' value removed */
} sql_setting;

struct dl_sql_conn {
	dl_catalog *cat;
	const dl_store_options *store_options;
	int64_t memory_limit;      /* bytes; what SET memory_limit changes */
	int64_t default_memory_limit;
	char *temp_dir;            /* NULL: $TMPDIR or /tmp (the operators' rule) */
	char *time_zone;           /* spark.sql.session.timeZone */
	char *default_time_zone;
	sql_setting *settings;     /* other keys given to SET, in order of first SET */
	int nsettings, capsettings;
	_Atomic bool interrupt;
	dl_exec_memory mem;        /* the running statement's budget */
	dl_path_roots allowed_tables; /* canonical; n == 0: unconfined (dl_sql_options v2) */
};

/* ---- session.c ---- */
/* The planner's environment for a statement on c (resolver, memory budget,
 * time zone, interrupt flag). */
void sql_session_env(sql_env *env, dl_sql_conn *c);
/* Starts a statement: clears the interrupt flag and the memory budget. */
void sql_session_begin(dl_sql_conn *c);
/* SET / RESET. */
int sql_run_set(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
int sql_run_reset(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
/* A key given to SET (not memory_limit or the time zone), NULL when not
 * set; _true: its value is "true" (any case). Keys the session reads:
 * spark.sql.sources.partitionOverwriteMode (dynamic: INSERT OVERWRITE
 * replaces only the partitions written), spark.databricks.delta.schema.
 * autoMerge.enabled (INSERT adds new columns). */
const char *sql_setting_get(const dl_sql_conn *c, const char *key);
bool sql_setting_true(const dl_sql_conn *c, const char *key);
/* spark.databricks.delta.typeWidening.allowAutomaticWidening (ALWAYS,
 * SAME_FAMILY_TYPE or NEVER, any case; unset: ALWAYS, Spark's default). */
#define SQL_KEY_AUTO_WIDENING "spark.databricks.delta.typeWidening.allowAutomaticWidening"
int sql_auto_widening(dl_auto_widening *out, const dl_sql_conn *c);
/* The session's auto optimize settings (spark.databricks.delta.autoCompact.
 * enabled, optimizeWrite.enabled, optimizeWrite.binSize) onto a write's
 * options (stmt_ddl.c). */
void sql_write_auto_optimize(dl_write_options *wo, const dl_sql_conn *c);
/* A zone id Spark's ZoneId.of accepts (util/tz.h). */
bool sql_zone_valid(const char *name);
/* "256MB", "1g", "1048576" -> bytes; DL_EINVALID naming the value. */
int sql_parse_bytes(int64_t *out, const char *text);

/* ---- stmt.c: dispatch ---- */
/* Runs one statement; *out is its result (a stream with no columns for
 * statements without one). */
int sql_stmt_run(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
/* A stream that fails with DL_ECANCELLED once *flag is set (checked before
 * every batch); takes ownership of in. */
int sql_interruptible(dl_batch_stream **out, dl_batch_stream *in, const _Atomic bool *flag);
/* [CLASS] errors. */
int sql_cancelled(void);

/* ---- result rows (stmt_result.c) ---- */
/* A small result built row by row: SHOW, DESCRIBE, DML counts. */
typedef struct sql_rows {
	dl_type *schema;
	struct dl_builder **cols;
	int ncols;
	int64_t nrows;
} sql_rows;
/* Columns named names[i] of type ids types[i] (primitive types only). */
int sql_rows_init(sql_rows *r, const char *const *names, const dl_type_id *types, int n);
/* Columns of any types (references taken). */
int sql_rows_init_typed(sql_rows *r, const char *const *names, dl_type *const *types, int n);
/* MAP<STRING, STRING> and ARRAY<STRING> (new references). */
dl_type *sql_type_string_map(void);
dl_type *sql_type_string_array(void);
/* A map cell from a JSON object's text / an array cell from a JSON
 * array's text (NULL text: a NULL cell); non-string values as JSON. */
int sql_rows_json(sql_rows *r, int i, const char *text);
void sql_rows_free(sql_rows *r);
/* Appends the next cell of column i; a NULL string is a NULL cell. */
int sql_rows_str(sql_rows *r, int i, const char *s);
int sql_rows_int(sql_rows *r, int i, int64_t v);
int sql_rows_bool(sql_rows *r, int i, bool v);
int sql_rows_null(sql_rows *r, int i);
/* The rows as a stream (r is emptied; free it still). */
int sql_rows_finish(dl_batch_stream **out, sql_rows *r);
/* A stream with no columns and no rows. */
int sql_empty_result(dl_batch_stream **out);

/* ---- resolve.c ---- */
/* The table a statement's target names (catalog name or delta.`path`),
 * as a URI (dl_free) plus its catalog entry when it has one. */
typedef struct sql_target {
	char *uri;
	char *display;          /* `schema.table` or delta.`path` */
	bool from_catalog;
	dl_catalog_table_info info; /* when from_catalog */
} sql_target;
int sql_target_resolve(sql_target *out, dl_sql_conn *c, const sql_table_ref *ref);
void sql_target_free(sql_target *t);
/* A table reference's catalog name as text ("schema.table"). */
int sql_ref_name(char **out, const sql_table_ref *ref);
/* sql_env.resolve. */
int sql_resolve(sql_relation **out, void *payload, const sql_table_ref *ref, const dl_exec_ctx *ctx);
/* The Delta snapshot options of a time-travel clause (evaluated in ctx's
 * zone). */
int sql_time_travel_options(dl_snapshot_options *o, const sql_time_travel *tt, const dl_exec_ctx *ctx);
/* Opens the latest snapshot of a target (the error Spark gives for a
 * path without a Delta table: DELTA_MISSING_DELTA_TABLE). */
int sql_open_snapshot(dl_snapshot **out, dl_sql_conn *c, const sql_target *t, const dl_snapshot_options *o);

/* ---- statement families ---- */
int sql_run_query(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
int sql_run_explain(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
int sql_run_create_table(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
int sql_run_create_schema(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
int sql_run_drop_schema(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
int sql_run_drop_table(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
int sql_run_use(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
int sql_run_show_tables(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
int sql_run_show_schemas(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
int sql_run_show_columns(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
int sql_run_show_tblproperties(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
int sql_run_show_create_table(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
int sql_run_describe_table(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
int sql_run_describe_history(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
int sql_run_describe_detail(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
int sql_run_insert(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
/* stmt_dml.c: through deltalake/dml.h and deltalake/merge.h */
int sql_run_delete(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
int sql_run_update(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
int sql_run_merge(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
/* maintenance (stmt_optimize.c, stmt_vacuum.c, stmt_restore.c) */
int sql_run_optimize(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
int sql_run_reorg(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
int sql_run_vacuum(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
int sql_run_fsck(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
int sql_run_generate(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
int sql_run_restore(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
int sql_run_clone(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
int sql_run_convert(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
/* ALTER TABLE (stmt_alter.c routes to the other stmt_alter_*.c) */
int sql_run_alter(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
int sql_alter_columns(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
int sql_alter_properties(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);
int sql_alter_cluster_by(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);

/* Spark's simpleString of a type (bigint, decimal(10,2), struct<a:int>). */
int sql_type_simple(dl_buf *out, const dl_type *t);
/* Resolves ref and opens its snapshot (with its time travel); on success
 * free both. */
int sql_target_snapshot(dl_snapshot **snap, sql_target *t, dl_sql_conn *c, const sql_table_ref *ref, bool meta_only);

/* The columns of a CREATE TABLE as Spark DDL text for dl_create_options
 * (stmt_ddl.c; SHOW CREATE TABLE prints the same). */
int sql_column_defs_ddl(dl_buf *out, const sql_column_def *cols, int n);
/* Writes the rows of `data` (owned) into the table at uri in one commit:
 * INSERT and CTAS (stmt_insert.c). */
int sql_write_rows(int64_t *version, int64_t *rows, dl_sql_conn *c, const char *uri, dl_batch_stream *data,
                   const dl_write_options *wo);

#endif
