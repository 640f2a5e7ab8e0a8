/* TEMPORARY: stand-ins for the planner (src/sql/plan.h) until the planner
 * branch is merged; this file is deleted by that merge's follow-up. They
 * fail with DL_EUNSUPPORTED so every statement but queries works now. */
#include "sql/plan.h"
#include "util/error.h"

int sql_plan_query(dl_batch_stream **out, const sql_env *env, const sql_query *q)
{
	(void)env;
	(void)q;
	*out = NULL;
	return dl_error_set(DL_EUNSUPPORTED, "queries are not supported yet (the planner is not merged)");
}

int sql_explain_query(dl_buf *out, const sql_env *env, const sql_query *q, const char *mode)
{
	(void)out;
	(void)env;
	(void)q;
	(void)mode;
	return dl_error_set(DL_EUNSUPPORTED, "EXPLAIN is not supported yet (the planner is not merged)");
}

int sql_query_schema(dl_type **out, const sql_env *env, const sql_query *q)
{
	(void)env;
	(void)q;
	*out = NULL;
	return dl_error_set(DL_EUNSUPPORTED, "queries are not supported yet (the planner is not merged)");
}
