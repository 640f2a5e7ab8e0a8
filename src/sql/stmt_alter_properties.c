/* ALTER TABLE SET/UNSET TBLPROPERTIES, ADD/DROP CONSTRAINT and DROP
 * FEATURE onto deltalake/alter.h (src/alter).
 *
 * The target is a catalog name or delta.`path` (sql_target_resolve). A
 * CHECK expression reaches the table as the text written in the statement,
 * which is what Spark stores. Like Spark,
 * these statements return no rows. */
#include "sql/session_internal.h"

#include <string.h>
#include "deltalake/alter.h"
#include "sql/print.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

static int run(const sql_stmt *st, const char *uri, const dl_alter_options *o)
{
	int64_t v;
	int n = st->nprops;
	switch (st->alter) {
	case ALTER_SET_PROPERTIES:
	case ALTER_UNSET_PROPERTIES: {
		const char **keys = dl_calloc((size_t)n + 1, sizeof *keys);
		const char **values = dl_calloc((size_t)n + 1, sizeof *values);
		int rc = keys && values ? 0 : DL_ENOMEM;
		for (int i = 0; rc == 0 && i < n; i++) {
			keys[i] = st->props[i].key;
			values[i] = st->props[i].value;
			if (st->alter == ALTER_SET_PROPERTIES && !values[i])
				rc = dl_error_set(DL_EINVALID, "SET TBLPROPERTIES: property '%s' has no value", keys[i]);
		}
		if (rc == 0 && st->alter == ALTER_SET_PROPERTIES)
			rc = dl_alter_set_properties(&v, uri, keys, values, (size_t)n, o);
		else if (rc == 0)
			rc = dl_alter_unset_properties(&v, uri, keys, (size_t)n, st->if_exists, o);
		dl_free(keys);
		dl_free(values);
		return rc;
	}
	case ALTER_ADD_CONSTRAINT: {
		if (st->check_text) return dl_alter_add_constraint(&v, uri, st->constraint, st->check_text, o);
		dl_buf b = DL_BUF_INIT; /* a statement built without source text */
		ex_node *e = st->check;
		int rc = sqlp_exprs(&b, &e, 1);
		if (rc == 0) rc = dl_alter_add_constraint(&v, uri, st->constraint, b.data, o);
		dl_buf_free(&b);
		return rc;
	}
	case ALTER_DROP_CONSTRAINT:
		return dl_alter_drop_constraint(&v, uri, st->constraint, st->if_exists, o);
	case ALTER_DROP_FEATURE:
		return dl_drop_feature(&v, uri, st->feature, st->truncate_history, o);
	default:
		return dl_error_set(DL_EUNSUPPORTED, "this ALTER TABLE form is not a property form");
	}
}

int sql_alter_properties(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	sql_target t;
	DL_TRY(sql_target_resolve(&t, c, st->table));
	dl_alter_options o = DL_ALTER_OPTIONS_INIT;
	o.store_options = c->store_options;
	int rc = run(st, t.uri, &o);
	sql_target_free(&t);
	DL_TRY(rc);
	return sql_empty_result(out);
}
