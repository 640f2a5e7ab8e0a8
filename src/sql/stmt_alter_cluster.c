/* ALTER TABLE t CLUSTER BY (...) | NONE onto dl_alter_cluster_by.
 *
 * PLACEHOLDER until the statement's operation lands: each function fails
 * with DL_EUNSUPPORTED naming the statement, as stmt.c's not_yet did. */
#include "sql/session_internal.h"
#include "util/error.h"

int sql_alter_cluster_by(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	(void)out;
	(void)c;
	return dl_error_set(DL_EUNSUPPORTED, "%s is not supported yet", dl_sql_stmt_kind_name(st->kind));
}
