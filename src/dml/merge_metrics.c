/* MERGE's commitInfo as Spark writes it (DeltaOperations.Merge):
 * operationParameters predicate (a JSON array of the condition's SQL),
 * matchedPredicates / notMatchedPredicates / notMatchedBySourcePredicates
 * (JSON arrays of {"predicate": condition, "actionType": "update" | "delete"
 * | "insert"}, the predicate omitted without a condition), each value a JSON
 * string; operationMetrics with DeltaOperationMetrics.MERGE's keys, the
 * deletion-vector counts summed as MERGE_DELETION_VECTORS does (added and
 * removed include updated) and numOutputRows recomputed as inserted +
 * updated + copied. */
#include "dml/merge_internal.h"
#include <string.h>
#include "expr/ast.h"
#include "json/json.h"
#include "rewrite/change_data.h"
#include "rewrite/file_writer.h"
#include "util/buf.h"
#include "util/error.h"

static const char *action_type(const mg_clause *c)
{
	switch (c->action) {
	case MG_DELETE: return "delete";
	case MG_INSERT:
	case MG_INSERT_ALL: return "insert";
	default: return "update";
	}
}

static const char *binary_op(int op)
{
	switch (op) {
	case OP_ADD: return "+";
	case OP_SUB: return "-";
	case OP_MUL: return "*";
	case OP_DIV: return "/";
	case OP_MOD: return "%";
	case OP_IDIV: return "div";
	case OP_CONCAT: return "||";
	case OP_BITAND: return "&";
	case OP_BITOR: return "|";
	case OP_BITXOR: return "^";
	case OP_EQ: return "=";
	case OP_LT: return "<";
	case OP_LE: return "<=";
	case OP_GT: return ">";
	case OP_GE: return ">=";
	case OP_NSEQ: return "<=>";
	case OP_AND: return "AND";
	case OP_OR: return "OR";
	default: return NULL;
	}
}

/* Spark's Expression.sql for the operators a condition is built of: each
 * binary operator parenthesized ("(t.id = s.id)", "((a = 1) AND (b > 2))"),
 * NOT and != as "(NOT ...)"; other nodes in our canonical SQL. */
static int spark_sql(dl_buf *out, const ex_node *n)
{
	if (n->kind == EX_OP && n->nargs == 2 && n->op == OP_NE) {
		DL_TRY(dl_buf_printf(out, "(NOT ("));
		DL_TRY(spark_sql(out, n->args[0]));
		DL_TRY(dl_buf_printf(out, " = "));
		DL_TRY(spark_sql(out, n->args[1]));
		return dl_buf_printf(out, "))");
	}
	if (n->kind == EX_OP && n->nargs == 2 && binary_op(n->op)) {
		DL_TRY(dl_buf_printf(out, "("));
		DL_TRY(spark_sql(out, n->args[0]));
		DL_TRY(dl_buf_printf(out, " %s ", binary_op(n->op)));
		DL_TRY(spark_sql(out, n->args[1]));
		return dl_buf_printf(out, ")");
	}
	if (n->kind == EX_OP && n->nargs == 1 && n->op == OP_NOT) {
		DL_TRY(dl_buf_printf(out, "(NOT "));
		DL_TRY(spark_sql(out, n->args[0]));
		return dl_buf_printf(out, ")");
	}
	return ex_print(out, n);
}

/* A condition as Spark prints it. */
static int cond_sql(dl_buf *out, const char *sql)
{
	dl_expr *e;
	if (dl_expr_parse(&e, sql) < 0) {
		dl_error_clear();
		return dl_buf_printf(out, "%s", sql);
	}
	int rc = spark_sql(out, e->root);
	dl_expr_free(e);
	return rc;
}

static int predicates(mg_exec *x, mg_kind kind, const char *key)
{
	dl_buf b = DL_BUF_INIT, sql = DL_BUF_INIT;
	dl_json_writer w;
	dl_jw_init(&w, &b);
	dl_jw_array_begin(&w);
	int rc = 0;
	for (int i = 0; i < x->m->ncl && rc == 0; i++) {
		const mg_clause *c = &x->m->cl[i];
		if (c->kind != kind) continue;
		dl_jw_object_begin(&w);
		if (c->cond) {
			dl_buf_clear(&sql);
			rc = cond_sql(&sql, c->cond);
			dl_jw_key(&w, "predicate");
			dl_jw_string(&w, sql.data ? sql.data : "");
		}
		dl_jw_key(&w, "actionType");
		dl_jw_string(&w, action_type(c));
		dl_jw_object_end(&w);
	}
	dl_jw_array_end(&w);
	if (rc == 0) rc = dl_jw_finish(&w);
	if (rc == 0) rc = dl_txn_set_parameter(x->txn, key, b.data);
	dl_buf_free(&b);
	dl_buf_free(&sql);
	return rc;
}

int dl_mg_commit_info(mg_exec *x)
{
	dl_buf b = DL_BUF_INIT, sql = DL_BUF_INIT;
	dl_json_writer w;
	dl_jw_init(&w, &b);
	dl_jw_array_begin(&w);
	int rc = cond_sql(&sql, x->m->on);
	dl_jw_string(&w, sql.data ? sql.data : "");
	dl_jw_array_end(&w);
	if (rc == 0) rc = dl_jw_finish(&w);
	if (rc == 0) rc = dl_txn_set_parameter(x->txn, "predicate", b.data);
	dl_buf_free(&b);
	dl_buf_free(&sql);
	DL_TRY(rc);
	DL_TRY(predicates(x, MG_MATCHED, "matchedPredicates"));
	DL_TRY(predicates(x, MG_NOT_MATCHED, "notMatchedPredicates"));
	DL_TRY(predicates(x, MG_BY_SOURCE, "notMatchedBySourcePredicates"));

	dl_merge_metrics *m = &x->mt;
	for (int i = 0; i < x->m->ncl; i++) {
		const mg_clause *c = &x->m->cl[i];
		bool del = c->action == MG_DELETE;
		if (c->kind == MG_MATCHED && del) m->num_target_rows_matched_deleted += c->rows;
		else if (c->kind == MG_MATCHED) m->num_target_rows_matched_updated += c->rows;
		else if (c->kind == MG_BY_SOURCE && del) m->num_target_rows_not_matched_by_source_deleted += c->rows;
		else if (c->kind == MG_BY_SOURCE) m->num_target_rows_not_matched_by_source_updated += c->rows;
		else m->num_target_rows_inserted += c->rows;
	}
	m->num_target_rows_updated = m->num_target_rows_matched_updated + m->num_target_rows_not_matched_by_source_updated;
	m->num_target_rows_deleted = m->num_target_rows_matched_deleted + m->num_target_rows_not_matched_by_source_deleted;
	if (x->rw) {
		const dl_rewrite_metrics *r = dl_rewrite_get_metrics(x->rw);
		m->num_target_rows_copied = r->copied_rows;
		m->num_target_files_added += r->added_files;
		m->num_target_bytes_added += r->added_bytes;
		m->num_target_files_removed = r->removed_files;
		m->num_target_bytes_removed = r->removed_bytes;
		m->num_target_change_files_added += r->change_files;
		m->num_target_deletion_vectors_added = r->dvs_added;
		m->num_target_deletion_vectors_removed = r->dvs_removed;
		m->num_target_deletion_vectors_updated = r->dvs_updated;
	}
	for (int i = 0; i < x->ninsert_files; i++) {
		m->num_target_files_added += (int64_t)dl_files_writer_count(x->insert_files[i]);
		m->num_target_bytes_added += dl_files_writer_bytes(x->insert_files[i]);
	}
	if (x->cdc) m->num_target_change_files_added += (int64_t)dl_change_writer_count(x->cdc);
	m->num_output_rows = m->num_target_rows_inserted + m->num_target_rows_updated + m->num_target_rows_copied;
	m->scan_time_ms = x->scan_ns / 1000000;
	m->rewrite_time_ms = x->rewrite_ns / 1000000;

	struct { const char *k; int64_t v; } kv[] = {
		{"numSourceRows", m->num_source_rows},
		{"numTargetRowsInserted", m->num_target_rows_inserted},
		{"numTargetRowsUpdated", m->num_target_rows_updated},
		{"numTargetRowsMatchedUpdated", m->num_target_rows_matched_updated},
		{"numTargetRowsNotMatchedBySourceUpdated", m->num_target_rows_not_matched_by_source_updated},
		{"numTargetRowsDeleted", m->num_target_rows_deleted},
		{"numTargetRowsMatchedDeleted", m->num_target_rows_matched_deleted},
		{"numTargetRowsNotMatchedBySourceDeleted", m->num_target_rows_not_matched_by_source_deleted},
		{"numTargetRowsCopied", m->num_target_rows_copied},
		{"numTargetBytesAdded", m->num_target_bytes_added},
		{"numTargetBytesRemoved", m->num_target_bytes_removed},
		{"numOutputRows", m->num_output_rows},
		{"numTargetFilesAdded", m->num_target_files_added},
		{"numTargetFilesRemoved", m->num_target_files_removed},
		{"numTargetChangeFilesAdded", m->num_target_change_files_added},
		{"scanTimeMs", m->scan_time_ms},
		{"rewriteTimeMs", m->rewrite_time_ms},
		/* MERGE_DELETION_VECTORS: updated DVs count as added and removed */
		{"numTargetDeletionVectorsAdded", m->num_target_deletion_vectors_added + m->num_target_deletion_vectors_updated},
		{"numTargetDeletionVectorsRemoved", m->num_target_deletion_vectors_removed + m->num_target_deletion_vectors_updated},
		{"numTargetDeletionVectorsUpdated", m->num_target_deletion_vectors_updated},
	};
	for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++) DL_TRY(dl_txn_set_metric(x->txn, kv[i].k, kv[i].v));
	return 0;
}
