/* ALTER TABLE: one entry for the statement, routing each form to the file
 * of its kind (columns and table-level forms, properties/constraints/
 * features, clustering), so those can change independently. */
#include "sql/session_internal.h"
#include "util/error.h"

int sql_run_alter(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	switch (st->alter) {
	case ALTER_ADD_COLUMNS:
	case ALTER_DROP_COLUMNS:
	case ALTER_RENAME_COLUMN:
	case ALTER_ALTER_COLUMN:
	case ALTER_CHANGE_COLUMN:
	case ALTER_REPLACE_COLUMNS:
	case ALTER_SET_LOCATION:
	case ALTER_RENAME_TABLE:
		return sql_alter_columns(out, c, st);
	case ALTER_SET_PROPERTIES:
	case ALTER_UNSET_PROPERTIES:
	case ALTER_ADD_CONSTRAINT:
	case ALTER_DROP_CONSTRAINT:
	case ALTER_DROP_FEATURE:
		return sql_alter_properties(out, c, st);
	case ALTER_CLUSTER_BY:
		return sql_alter_cluster_by(out, c, st);
	}
	return dl_error_set(DL_EUNSUPPORTED, "this ALTER TABLE form is not supported");
}
