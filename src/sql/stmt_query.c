/* Queries, VALUES and EXPLAIN through the planner (sql/plan.h) over the
 * session's resolver. */
#include "sql/session_internal.h"
#include "util/buf.h"
#include "util/error.h"
#include <string.h>

int sql_run_query(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	sql_env env;
	sql_session_env(&env, c);
	dl_batch_stream *s = NULL;
	DL_TRY(sql_plan_query(&s, &env, st->query));
	return sql_interruptible(out, s, &c->interrupt);
}

int sql_run_explain(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	const sql_stmt *in = st->inner;
	if (!in || in->kind != ST_QUERY)
		return dl_error_set(DL_EUNSUPPORTED, "EXPLAIN %s is not supported yet (EXPLAIN explains queries)",
		                    in ? dl_sql_stmt_kind_name(in->kind) : "");
	sql_env env;
	sql_session_env(&env, c);
	dl_buf b = DL_BUF_INIT;
	int rc = sql_explain_query(&b, &env, in->query, st->explain_mode);
	if (rc == 0) rc = dl_buf_putc(&b, 0);
	static const char *const names[] = {"plan"};
	static const dl_type_id types[] = {DL_TYPE_STRING};
	sql_rows r;
	memset(&r, 0, sizeof r);
	if (rc == 0) rc = sql_rows_init(&r, names, types, 1);
	if (rc == 0) rc = sql_rows_str(&r, 0, (const char *)b.data);
	if (rc == 0) rc = sql_rows_finish(out, &r);
	sql_rows_free(&r);
	dl_buf_free(&b);
	return rc;
}
