/* ALTER TABLE forms on columns (ADD/DROP/RENAME/ALTER/CHANGE/REPLACE
 * COLUMNS) and on the table (RENAME TO, SET LOCATION) onto
 * deltalake/alter.h (src/alter).
 *
 * PLACEHOLDER until the statement's operation lands: each function fails
 * with DL_EUNSUPPORTED naming the statement, as stmt.c's not_yet did. */
#include "sql/session_internal.h"
#include "util/error.h"

int sql_alter_columns(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	(void)out;
	(void)c;
	return dl_error_set(DL_EUNSUPPORTED, "%s is not supported yet", dl_sql_stmt_kind_name(st->kind));
}
