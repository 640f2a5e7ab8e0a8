/* sharing('PROFILE#share.schema.table'): a Delta Sharing table as a
 * relation, the same as delta.`PROFILE#share.schema.table` (the path
 * resolves through the sharing store backend, include/deltalake/sharing.h)
 * but checked as a shared table name first, so a typo gets the sharing
 * error ("share.schema.table (three non-empty names)") rather than "not a
 * Delta table". */
#include "sql/resolve_internal.h"
#include "deltalake/sharing.h"
#include "expr/ast.h"
#include "util/error.h"
#include "util/mem.h"
#include <string.h>

int sql_sharing_relation(sql_relation **out, dl_sql_conn *c, const sql_table_ref *ref, const dl_exec_ctx *ctx)
{
	*out = NULL;
	if (ref->nargs != 1)
		return dl_error_set_class(DL_EINVALID, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
		                          "[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `sharing` requires 1 parameters but "
		                          "the actual number is %d.", ref->nargs);
	dl_scalar name;
	dl_expr *h = NULL;
	DL_TRY(sql_eval_const(&name, &h, ref->args[0], "STRING", ctx));
	char *text = name.is_null ? NULL : dl_strndup(name.v.str.ptr, name.v.str.len);
	dl_expr_free(h);
	if (!text) return dl_error_set(DL_EINVALID, "sharing: the table is NULL");
	char *profile, *share, *schema, *table;
	int rc = dl_sharing_parse_path(&profile, &share, &schema, &table, text);
	if (rc == 0) {
		dl_free(profile);
		dl_free(share);
		dl_free(schema);
		dl_free(table);
		rc = dl_sharing_register();
	}
	if (rc == 0) {
		sql_table_ref pr;
		memset(&pr, 0, sizeof pr);
		pr.kind = TREF_PATH;
		pr.format = "delta";
		pr.path = text;
		pr.alias = ref->alias;
		pr.tt = ref->tt;
		rc = sql_resolve(out, c, &pr, ctx);
	}
	dl_free(text);
	if (rc < 0 && !*dl_error_last()->klass) return dl_error_prefix("sharing");
	return rc;
}
