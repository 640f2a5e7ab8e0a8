/* ALTER TABLE t CLUSTER BY (cols) | CLUSTER BY NONE onto dl_alter_cluster_by
 * (include/deltalake/alter.h). Each column is a multi-part name, given to
 * the operation as text with its parts joined by '.' (backquoted where a
 * part needs it), which the operation resolves against the table's schema.
 * The result is empty, as Spark's command returns no rows. */
#include "sql/session_internal.h"
#include <string.h>
#include "deltalake/alter.h"
#include "optimize/clustering.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

int sql_alter_cluster_by(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	int n = st->cluster_none ? 0 : st->ncluster;
	char **names = dl_calloc((size_t)n + 1, sizeof *names);
	if (!names) return DL_ENOMEM;
	int rc = 0, have = 0;
	for (int i = 0; i < n && rc == 0; i++) {
		dl_buf b = DL_BUF_INIT;
		rc = dl_column_name_join(&b, (const char *const *)st->cluster_cols[i].parts, st->cluster_cols[i].nparts);
		if (rc == 0) rc = dl_buf_putc(&b, 0);
		if (rc == 0) names[have++] = dl_buf_detach(&b, NULL);
		else dl_buf_free(&b);
	}
	sql_target t;
	memset(&t, 0, sizeof t);
	if (rc == 0) rc = sql_target_resolve(&t, c, st->table);
	if (rc == 0) {
		dl_alter_options o = DL_ALTER_OPTIONS_INIT;
		o.store_options = c->store_options;
		int64_t version;
		rc = dl_alter_cluster_by(&version, t.uri, (const char *const *)names, (size_t)n, &o);
		sql_target_free(&t);
	}
	for (int i = 0; i < have; i++) dl_free(names[i]);
	dl_free(names);
	DL_TRY(rc);
	return sql_empty_result(out);
}
