/* RESTORE TABLE, CREATE TABLE ... SHALLOW CLONE and CONVERT TO DELTA
 * statements onto dl_restore, dl_shallow_clone and dl_convert_to_delta
 * (deltalake/maintenance.h, src/maint).
 *
 * PLACEHOLDER until the statement's operation lands: each function fails
 * with DL_EUNSUPPORTED naming the statement, as stmt.c's not_yet did. */
#include "sql/session_internal.h"
#include "util/error.h"

int sql_run_restore(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	(void)out;
	(void)c;
	return dl_error_set(DL_EUNSUPPORTED, "%s is not supported yet", dl_sql_stmt_kind_name(st->kind));
}

int sql_run_clone(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	(void)out;
	(void)c;
	return dl_error_set(DL_EUNSUPPORTED, "%s is not supported yet", dl_sql_stmt_kind_name(st->kind));
}

int sql_run_convert(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	(void)out;
	(void)c;
	return dl_error_set(DL_EUNSUPPORTED, "%s is not supported yet", dl_sql_stmt_kind_name(st->kind));
}
