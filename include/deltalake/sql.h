/* SQL: Spark SQL as Delta uses it, over a warehouse catalog (docs/SQL.md).
 *
 *   dl_sql_conn *db;
 *   dl_sql_options o = DL_SQL_OPTIONS_INIT;
 *   o.warehouse = "/data/warehouse";            // NULL: $DELTALAKE_WAREHOUSE, ./warehouse
 *   dl_sql_open(&db, &o);
 *
 *   struct ArrowArrayStream rows;
 *   dl_sql_execute(&rows, db, "SELECT id, count(*) FROM delta.`/data/t` GROUP BY id");
 *   ... rows.get_next(&rows, &batch) ... rows.release(&rows);
 *
 *   dl_sql_stmt *st;                             // prepared, with ? parameters
 *   dl_sql_prepare(&st, NULL, db, "SELECT * FROM sales.orders WHERE id = ?");
 *   dl_sql_bind_int64(st, 1, 42);
 *   dl_sql_stmt_execute(&rows, st);
 *   dl_sql_stmt_free(st);
 *   dl_sql_close(db);
 *
 * Every statement has a result: a query its rows; DELETE, UPDATE, MERGE and
 * INSERT one row of Spark's result columns (num_affected_rows,
 * num_inserted_rows...); OPTIMIZE, VACUUM, DESCRIBE, SHOW... Spark's result
 * columns; statements that return nothing in Spark (CREATE, DROP, USE, SET
 * key = value...) a stream with no columns and no rows.
 *
 * Errors are DL_E* codes with Spark's error class in dl_error_last()->klass
 * where Spark has one (TABLE_OR_VIEW_NOT_FOUND, UNRESOLVED_COLUMN.WITH_SUGGESTION,
 * PARSE_SYNTAX_ERROR, DELTA_...); syntax errors give the line and column and
 * a caret line in the message. A statement whose operation does not exist yet
 * fails with DL_EUNSUPPORTED and says so.
 *
 * Thread safety: a connection runs one statement at a time (it holds the
 * current schema and the SET values); use one connection per thread. Any
 * number of connections and processes may share a warehouse.
 * dl_sql_interrupt may be called from any thread or a signal handler. */
#ifndef DELTALAKE_SQL_H
#define DELTALAKE_SQL_H
#include "deltalake/common.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "deltalake/arrow.h"
#include "deltalake/store.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef struct dl_sql_conn dl_sql_conn;
typedef struct dl_sql_stmt dl_sql_stmt;

#define DL_SQL_OPTIONS_VERSION 2
typedef struct dl_sql_options {
	int version;               /* DL_SQL_OPTIONS_VERSION */
	/* The warehouse of the catalog (a path or store URI). NULL:
	 * $DELTALAKE_WAREHOUSE, else ./warehouse. Nothing is created until a
	 * statement writes. */
	const char *warehouse;
	/* Options of every store the connection opens (credentials,
	 * endpoints). Borrowed: must outlive the connection. NULL: defaults. */
	const dl_store_options *store_options;
	/* Memory for operators that hold rows (aggregation, join, sort) before
	 * they spill to temporary files: bytes; 0 = half the machine's RAM;
	 * SET memory_limit = '256MB' changes it per connection. */
	int64_t memory_limit;
	/* Directory of spill files; NULL: $TMPDIR, else /tmp. */
	const char *temp_dir;
	/* Session time zone (spark.sql.session.timeZone); NULL: $TZ, else UTC. */
	const char *time_zone;
	/* Version 2: confine the connection to these Delta tables (paths or
	 * URIs, compared after normalizing "." and ".." segments and repeated
	 * '/'): a reference ``delta.`path` `` to one of them is allowed; every
	 * other table reference (catalog names, other paths, parquet/csv/json
	 * files, table_changes) is refused with DL_EPERM naming it. range()
	 * stays allowed. nallowed_tables == 0: no confinement. Borrowed: must
	 * outlive the connection. (`deltalake ui`'s query box.) */
	const char *const *allowed_tables;
	int nallowed_tables;
} dl_sql_options;
#define DL_SQL_OPTIONS_INIT {DL_SQL_OPTIONS_VERSION, NULL, NULL, 0, NULL, NULL, NULL, 0}

/* Opens a connection; opts NULL: the defaults. */
DL_EXTERN(int) dl_sql_open(dl_sql_conn **out, const dl_sql_options *opts);
DL_EXTERN(void) dl_sql_close(dl_sql_conn *c);

/* Runs the ';'-separated statements of `sql` in order, stopping at the
 * first error; *out is the result of the last one (consume it before the
 * next call on this connection). On error *out is released (its release
 * is NULL). A query's rows are produced as *out is read: an error while
 * reading is returned by get_next, with get_last_error's text. */
DL_EXTERN(int) dl_sql_execute(struct ArrowArrayStream *out, dl_sql_conn *c, const char *sql);

/* Prepares the first statement of `sql`. *tail (when tail is not NULL) is
 * set to the text after it, so a caller can run a script statement by
 * statement (sqlite3_prepare_v2's convention); when `sql` holds only blanks
 * and comments, *out is NULL and the return is 0. Parameters are `?`
 * (numbered from 1 in order of appearance); unbound ones are NULL. */
DL_EXTERN(int) dl_sql_prepare(dl_sql_stmt **out, const char **tail, dl_sql_conn *c, const char *sql);
DL_EXTERN(int) dl_sql_stmt_param_count(const dl_sql_stmt *s);
DL_EXTERN(int) dl_sql_bind_null(dl_sql_stmt *s, int i);
DL_EXTERN(int) dl_sql_bind_bool(dl_sql_stmt *s, int i, bool v);
DL_EXTERN(int) dl_sql_bind_int64(dl_sql_stmt *s, int i, int64_t v);
DL_EXTERN(int) dl_sql_bind_double(dl_sql_stmt *s, int i, double v);
/* A STRING value (copied); len SIZE_MAX: NUL-terminated. */
DL_EXTERN(int) dl_sql_bind_text(dl_sql_stmt *s, int i, const char *v, size_t len);
/* Runs the statement with the values bound now; may be run again. */
DL_EXTERN(int) dl_sql_stmt_execute(struct ArrowArrayStream *out, dl_sql_stmt *s);
/* "SELECT", "INSERT", "MERGE", "CREATE TABLE", "DESCRIBE HISTORY"... */
DL_EXTERN(const char *) dl_sql_stmt_kind(const dl_sql_stmt *s);
/* The statement's text as written (borrowed, lives with s). */
DL_EXTERN(const char *) dl_sql_stmt_text(const dl_sql_stmt *s);
DL_EXTERN(void) dl_sql_stmt_free(dl_sql_stmt *s);

/* Makes the statement running on c (and its stream being read) fail with
 * DL_ECANCELLED as soon as possible; a statement that writes leaves the
 * table as it was unless it had committed. Async-signal-safe. */
DL_EXTERN(void) dl_sql_interrupt(dl_sql_conn *c);

/* True when `text` ends a statement: its last token outside quotes, back
 * quotes and comments is ';' (sqlite3_complete): a shell reads more lines
 * until then. */
DL_EXTERN(bool) dl_sql_complete(const char *text);

/* The current schema (USE), borrowed until the next statement. */
DL_EXTERN(const char *) dl_sql_current_schema(const dl_sql_conn *c);

#ifdef __cplusplus
}
#endif
#endif
