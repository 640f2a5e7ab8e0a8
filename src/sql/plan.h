/* The query planner: a parsed query (sql/ast.h) -> a tree of src/exec
 * operators, a dl_batch_stream. It resolves names (columns, qualifiers,
 * aliases, CTEs), expands stars, splits aggregates and window functions out
 * of expressions, plans subqueries, pushes projections and filters into the
 * sources, and prints plans for EXPLAIN.
 *
 * Tables are not its business: every table reference that is not a CTE or
 * a subquery (a catalog name, delta.`path`, parquet.`glob`, csv/json files,
 * table_changes(...), with time travel) is handed to the environment's
 * resolver, which returns a sql_relation: a schema, and a way to open it
 * with the columns and filter the plan needs. The session (session.c)
 * provides the resolver; the planner never opens a table itself. */
#ifndef DL_SQL_PLAN_H
#define DL_SQL_PLAN_H
#include "exec/exec.h"
#include "sql/ast.h"
#include "util/buf.h"

/* A table the resolver found. The planner owns it after resolve() and
 * calls release() once (after open(), or without opening it). */
typedef struct sql_relation sql_relation;
struct sql_relation {
	/* The columns (a DL_TYPE_STRUCT, a reference owned by the relation). */
	const dl_type *schema;
	/* "delta.`/data/t` VERSION AS OF 3", for EXPLAIN and messages. */
	const char *display;
	/* Rows it holds, from the log's statistics (-1: unknown): the planner
	 * builds joins' hash tables on the smaller side. */
	int64_t est_rows;
	/* The rows: only the columns cols[0..ncols) in that order (ncols < 0:
	 * every column); `filter` (owned, may be NULL) is a conjunction of
	 * predicates over the schema that the relation may use to skip files
	 * and rows: the planner applies it again above, so a relation may
	 * ignore it. */
	int (*open)(dl_batch_stream **out, sql_relation *r, const char *const *cols, int ncols, dl_expr *filter,
	            const dl_exec_ctx *ctx);
	/* EXPLAIN: appends what open() with these arguments would read ("files
	 * 3 of 20 after pruning"); may be NULL. filter is borrowed. */
	int (*explain)(dl_buf *out, sql_relation *r, const char *const *cols, int ncols, const dl_expr *filter,
	               const dl_exec_ctx *ctx);
	void (*release)(sql_relation *r);
	void *impl;
};

typedef struct sql_env {
	/* Resolves a TREF_NAME (not a CTE: the planner tries CTEs first),
	 * TREF_PATH or TREF_FUNCTION into *out. Errors carry Spark's classes
	 * (TABLE_OR_VIEW_NOT_FOUND...). */
	int (*resolve)(sql_relation **out, void *payload, const sql_table_ref *ref, const dl_exec_ctx *ctx);
	void *payload;
	dl_exec_ctx ctx; /* time zone, memory budget, temp dir, interrupt */
} sql_env;

/* Plans and opens q. The stream's column names are the query's output
 * names (aliases, or Spark's names for unnamed expressions, e.g.
 * `count(1)`, `(a + 1)`). Errors (Spark's classes): unknown columns
 * UNRESOLVED_COLUMN.WITH_SUGGESTION, ambiguous ones AMBIGUOUS_REFERENCE,
 * a non-grouped column MISSING_AGGREGATION, ... */
int sql_plan_query(dl_batch_stream **out, const sql_env *env, const sql_query *q);

/* EXPLAIN [EXTENDED | FORMATTED ...] q: the plan as text, one operator a
 * line, indented by depth, with pushed-down filters and pruned files. */
int sql_explain_query(dl_buf *out, const sql_env *env, const sql_query *q, const char *mode);

/* The output schema q would have, without reading any rows (the sources
 * are resolved, not opened): CREATE TABLE AS SELECT, INSERT column
 * matching. *out is a reference (dl_type_release). */
int sql_query_schema(dl_type **out, const sql_env *env, const sql_query *q);

#endif
