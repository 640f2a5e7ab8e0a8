/* The MERGE builder (include/deltalake/merge.h) and the execution driver:
 * the clause rules Spark checks before running (at least one WHEN clause,
 * only the last clause of each kind may omit its condition), then one
 * transaction on the target's latest snapshot: source read once, schema
 * evolved, names resolved, files planned, the join, the write side, the
 * commitInfo, the commit. A failure anywhere deletes what was written. */
#include "dml/merge.h"
#include <string.h>
#include "dml/merge_capture.h"
#include "dml/merge_internal.h"
#include "dml/merge_recs.h"
#include "exec/spill.h"
#include "log/protocol.h"
#include "log/snapshot.h"
#include "log/table_features.h"
#include "ops/auto_optimize.h"
#include "ops/create.h"
#include "ops/type_change_meta.h"
#include "rewrite/change_data.h"
#include "rewrite/file_writer.h"
#include "util/block_cache.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/options.h"
#include "util/time.h"

static const size_t merge_options_ends[] = {
	DL_OPTIONS_END(dl_merge_options, temp_dir), /* 1 */
	sizeof(dl_merge_options),                   /* 2: automatic widening */
};
DL_OPTIONS_ENDS_CHECK(merge_options_ends, DL_MERGE_OPTIONS_VERSION);

int dl_merge_new(dl_merge **out, const char *target_uri, const dl_merge_options *opts)
{
	*out = NULL;
	static const dl_merge_options def = DL_MERGE_OPTIONS_INIT;
	dl_merge *m = dl_calloc(1, sizeof *m);
	if (!m) return DL_ENOMEM;
	m->o = def;
	int rc = opts ? dl_options_load(&m->o, opts, merge_options_ends, DL_MERGE_OPTIONS_VERSION,
	                                "dl_merge_options", "DL_MERGE_OPTIONS_INIT")
	              : 0;
	if (rc == 0 && (unsigned)m->o.auto_widening > DL_AUTO_WIDENING_NEVER)
		rc = dl_error_set(DL_EINVALID, "dl_merge_options.auto_widening: not a dl_auto_widening");
	if (rc == 0 && !target_uri && !m->o.store)
		rc = dl_error_set(DL_EINVALID, "dl_merge_new: no target table given");
	if (rc == 0 && target_uri && !(m->uri = dl_strdup(target_uri))) rc = DL_ENOMEM;
	m->src_version = -1;
	if (rc < 0) {
		dl_merge_free(m);
		return rc;
	}
	*out = m;
	return 0;
}

static void free_clause(mg_clause *c, int nw)
{
	dl_free(c->cond);
	for (int i = 0; i < c->n; i++) {
		dl_free(c->cols[i]);
		dl_free(c->vals[i]);
	}
	dl_free(c->cols);
	dl_free(c->vals);
	dl_expr_free(c->cond_e);
	for (int i = 0; c->set && i < nw; i++) dl_expr_free(c->set[i]);
	dl_free(c->set);
}

void dl_merge_free(dl_merge *m)
{
	if (!m) return;
	for (int i = 0; i < m->ncl; i++) free_clause(&m->cl[i], 0);
	dl_free(m->cl);
	dl_batch_stream_free(m->src);
	dl_free(m->src_uri);
	dl_free(m->uri);
	dl_free(m->talias);
	dl_free(m->salias);
	dl_free(m->on);
	dl_free(m);
}

static int has_source(dl_merge *m)
{
	if (m->src || m->src_uri)
		return dl_error_set(DL_EINVALID, "the merge already has a source");
	return 0;
}

int dl_merge_source_batches(dl_merge *m, dl_batch_stream *source)
{
	int rc = has_source(m);
	if (rc < 0) {
		dl_batch_stream_free(source);
		return rc;
	}
	m->src = source;
	return 0;
}

int dl_merge_source_stream(dl_merge *m, struct ArrowArrayStream *source)
{
	if (!m || !source || !source->release)
		return dl_error_set(DL_EINVALID, "dl_merge_source_stream: no source stream given");
	DL_TRY(has_source(m));
	dl_batch_stream *s;
	DL_TRY(dl_batch_stream_import(&s, source));
	m->src = s;
	return 0;
}

int dl_merge_source_table(dl_merge *m, const char *uri, int64_t version)
{
	if (!m || !uri) return dl_error_set(DL_EINVALID, "dl_merge_source_table: no table given");
	DL_TRY(has_source(m));
	if (!(m->src_uri = dl_strdup(uri))) return DL_ENOMEM;
	m->src_version = version;
	return 0;
}

static int set_str(char **dst, const char *s)
{
	dl_free(*dst);
	*dst = NULL;
	if (s && !(*dst = dl_strdup(s))) return DL_ENOMEM;
	return 0;
}

int dl_merge_alias(dl_merge *m, const char *target_alias, const char *source_alias)
{
	if (!m) return DL_EINVALID;
	DL_TRY(set_str(&m->talias, target_alias && *target_alias ? target_alias : NULL));
	return set_str(&m->salias, source_alias && *source_alias ? source_alias : NULL);
}

int dl_merge_on(dl_merge *m, const char *condition)
{
	if (!m || !condition || !*condition) return dl_error_set(DL_EINVALID, "dl_merge_on: no condition");
	return set_str(&m->on, condition);
}

int dl_merge_with_schema_evolution(dl_merge *m)
{
	if (!m) return DL_EINVALID;
	m->evolve = true;
	return 0;
}

static int add_clause(dl_merge *m, mg_kind kind, mg_action action, const char *cond, const char *const *cols,
                      const char *const *vals, int n)
{
	if (!m) return DL_EINVALID;
	if (n < 0 || (n > 0 && (!cols || !vals)))
		return dl_error_set(DL_EINVALID, "a MERGE clause's columns and values are missing");
	if ((action == MG_UPDATE || action == MG_INSERT) && n == 0)
		return dl_error_set(DL_EINVALID, "a MERGE %s clause needs at least one column",
		                    action == MG_UPDATE ? "UPDATE" : "INSERT");
	if (m->ncl == m->cap) {
		int cap = m->cap ? m->cap * 2 : 4;
		mg_clause *nc = dl_reallocarray(m->cl, (size_t)cap, sizeof *nc);
		if (!nc) return DL_ENOMEM;
		m->cl = nc;
		m->cap = cap;
	}
	mg_clause c;
	memset(&c, 0, sizeof c);
	c.kind = kind;
	c.action = action;
	int rc = cond && *cond && !(c.cond = dl_strdup(cond)) ? DL_ENOMEM : 0;
	if (rc == 0 && n) {
		c.cols = dl_calloc((size_t)n, sizeof *c.cols);
		c.vals = dl_calloc((size_t)n, sizeof *c.vals);
		if (!c.cols || !c.vals) rc = DL_ENOMEM;
		for (int i = 0; rc == 0 && i < n; i++) {
			c.cols[i] = dl_strdup(cols[i] ? cols[i] : "");
			c.vals[i] = dl_strdup(vals[i] ? vals[i] : "");
			if (!c.cols[i] || !c.vals[i]) rc = DL_ENOMEM;
			c.n = i + 1;
		}
	}
	if (rc < 0) {
		free_clause(&c, 0);
		return rc;
	}
	m->cl[m->ncl++] = c;
	return 0;
}

int dl_merge_when_matched_update(dl_merge *m, const char *condition, const char *const *columns,
                                 const char *const *values, int n)
{
	return add_clause(m, MG_MATCHED, MG_UPDATE, condition, columns, values, n);
}
int dl_merge_when_matched_update_all(dl_merge *m, const char *condition)
{
	return add_clause(m, MG_MATCHED, MG_UPDATE_ALL, condition, NULL, NULL, 0);
}
int dl_merge_when_matched_delete(dl_merge *m, const char *condition)
{
	return add_clause(m, MG_MATCHED, MG_DELETE, condition, NULL, NULL, 0);
}
int dl_merge_when_not_matched_insert(dl_merge *m, const char *condition, const char *const *columns,
                                     const char *const *values, int n)
{
	return add_clause(m, MG_NOT_MATCHED, MG_INSERT, condition, columns, values, n);
}
int dl_merge_when_not_matched_insert_all(dl_merge *m, const char *condition)
{
	return add_clause(m, MG_NOT_MATCHED, MG_INSERT_ALL, condition, NULL, NULL, 0);
}
int dl_merge_when_not_matched_by_source_update(dl_merge *m, const char *condition, const char *const *columns,
                                               const char *const *values, int n)
{
	return add_clause(m, MG_BY_SOURCE, MG_UPDATE, condition, columns, values, n);
}
int dl_merge_when_not_matched_by_source_delete(dl_merge *m, const char *condition)
{
	return add_clause(m, MG_BY_SOURCE, MG_DELETE, condition, NULL, NULL, 0);
}

/* ---- checks Spark makes before running (DeltaMergeInto) ---- */

static int check_clauses(mg_exec *x)
{
	dl_merge *m = x->m;
	if (!m->on) return dl_error_set(DL_EINVALID, "the merge has no ON condition (dl_merge_on)");
	if (!m->src && !m->src_uri)
		return dl_error_set(DL_EINVALID, "the merge has no source (dl_merge_source_stream/_table)");
	if (m->ncl == 0)
		return dl_error_set_class(DL_EINVALID, "DELTA_MERGE_MISSING_WHEN",
		                          "[DELTA_MERGE_MISSING_WHEN] There must be at least one WHEN clause "
		                          "in a MERGE statement.");
	static const char *const classes[] = {"NON_LAST_MATCHED_CLAUSE_OMIT_CONDITION",
	                                      "NON_LAST_NOT_MATCHED_BY_TARGET_CLAUSE_OMIT_CONDITION",
	                                      "NON_LAST_NOT_MATCHED_BY_SOURCE_CLAUSE_OMIT_CONDITION"};
	static const char *const names[] = {"MATCHED", "NOT MATCHED [BY TARGET]", "NOT MATCHED BY SOURCE"};
	int nmatched = 0;
	for (int i = 0; i < m->ncl; i++) {
		const mg_clause *c = &m->cl[i];
		nmatched += c->kind == MG_MATCHED;
		if (c->cond) continue;
		for (int j = i + 1; j < m->ncl; j++)
			if (m->cl[j].kind == c->kind)
				return dl_error_set_class(DL_EINVALID, classes[c->kind],
				                          "[%s] When there are more than one %s clauses in a MERGE "
				                          "statement, only the last %s clause can omit the condition.",
				                          classes[c->kind], names[c->kind], names[c->kind]);
	}
	x->has_matched = nmatched > 0;
	x->matched_only = true;
	for (int i = 0; i < m->ncl; i++) {
		if (m->cl[i].kind == MG_NOT_MATCHED) x->has_not_matched = true, x->matched_only = false;
		if (m->cl[i].kind == MG_BY_SOURCE) x->has_by_source = true, x->matched_only = false;
	}
	x->single_uncond_delete = false;
	if (nmatched == 1)
		for (int i = 0; i < m->ncl; i++)
			if (m->cl[i].kind == MG_MATCHED)
				x->single_uncond_delete = m->cl[i].action == MG_DELETE && !m->cl[i].cond;
	return 0;
}

static int open_source(mg_exec *x)
{
	dl_merge *m = x->m;
	if (!m->src) {
		dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
		so.as_of_version = m->src_version;
		so.store_options = m->o.store_options;
		DL_TRY(dl_exec_scan(&m->src, m->src_uri, &so, NULL));
	}
	x->sschema = dl_type_ref((dl_type *)dl_batch_stream_schema(m->src));
	x->ns = x->sschema->nchildren;
	return 0;
}

static int insert_schemas(mg_exec *x)
{
	int n = x->m->ncl;
	x->ins_schema = dl_calloc((size_t)n, sizeof *x->ins_schema);
	dl_field *f = dl_calloc((size_t)x->nw + 1, sizeof *f);
	int rc = x->ins_schema && f ? 0 : DL_ENOMEM;
	for (int k = 0; k < n && rc == 0; k++) {
		mg_clause *c = &x->m->cl[k];
		if (c->kind != MG_NOT_MATCHED) continue;
		int nf = 0;
		for (int w = 0; w < x->nw; w++)
			if (c->set[w]) f[nf++] = x->wschema->children[w];
		if (!(x->ins_schema[k] = dl_type_struct(f, nf))) rc = dl_error_last()->code;
	}
	dl_free(f);
	return rc;
}

static int run(mg_exec *x, dl_merge_metrics *out)
{
	dl_merge *m = x->m;
	x->t0 = dl_monotonic_ns();
	DL_TRY(check_clauses(x));
	if (m->o.store) {
		x->store = m->o.store;
	} else {
		DL_TRY(dl_store_open(&x->store, m->uri, m->o.store_options));
		x->owns_store = true;
	}
	DL_TRY(dl_ops_open_latest(&x->snap, x->store));
	if (!x->snap)
		return dl_error_set(DL_ENOTFOUND, "MERGE INTO %s: no Delta table there", dl_store_root(x->store));
	dl_txn_options to = DL_TXN_OPTIONS_INIT;
	to.operation = "MERGE";
	to.user_metadata = m->o.user_metadata;
	DL_TRY(dl_txn_begin(&x->txn, x->store, x->snap, &to));
	const dl_metadata *md = dl_snapshot_state(x->snap)->metadata;
	x->config = md->configuration;
	dl_table_properties_defaults(&x->props);
	DL_TRY(dl_table_properties_parse(&x->props, &x->config, false));
	const dl_protocol *proto = dl_snapshot_state(x->snap)->protocol;
	x->widen = x->props.enable_type_widening && (dl_protocol_has(proto, DL_FEATURE_TYPE_WIDENING) ||
	                                             dl_protocol_has(proto, DL_FEATURE_TYPE_WIDENING_PREVIEW));
	dl_widening_of(&x->widening, &x->config, m->o.auto_widening);
	x->tschema = dl_snapshot_schema(x->snap);
	x->nt = x->tschema->nchildren;
	DL_TRY(open_source(x));
	DL_TRY(dl_mg_build_canon(x));
	DL_TRY(dl_mg_evolve_schema(x));
	DL_TRY(dl_mg_split_on(x));
	DL_TRY(dl_mg_resolve_clauses(x));
	DL_TRY(insert_schemas(x));
	DL_TRY(dl_mg_read_source(x));
	DL_TRY(dl_mg_key_range(x));
	DL_TRY(dl_mg_plan_files(x));
	DL_TRY(dl_mg_join(x));
	DL_TRY(dl_mg_write(x));
	DL_TRY(dl_mg_commit_info(x));
	x->mt.execution_time_ms = (dl_monotonic_ns() - x->t0) / 1000000;
	DL_TRY(dl_txn_set_metric(x->txn, "executionTimeMs", x->mt.execution_time_ms));
	if (m->o.progress) {
		dl_progress_info p = {"merge", "committing", "files", 1, 1, -1, -1};
		if (m->o.progress(&p, m->o.progress_payload) != 0)
			return dl_error_set(DL_ECANCELLED, "merge cancelled by the progress callback (committing)");
	}
	DL_TRY(dl_txn_commit(x->txn, &x->mt.version));
	/* Spark's AutoCompact post-commit hook; it never fails the merge */
	dl_ops_auto_compact_after_commit(x->store, &x->config, -1, x->mt.version);
	if (out) *out = x->mt;
	return 0;
}

static void free_exec(mg_exec *x)
{
	dl_merge *m = x->m;
	for (int k = 0; k < m->ncl; k++) {
		mg_clause *c = &m->cl[k];
		dl_expr_free(c->cond_e);
		c->cond_e = NULL;
		for (int w = 0; c->set && w < x->nw; w++) dl_expr_free(c->set[w]);
		dl_free(c->set);
		c->set = NULL;
		if (x->ins_schema) dl_type_unref(x->ins_schema[k]);
	}
	dl_free(x->ins_schema);
	for (int k = 0; k < x->nkeys; k++) {
		if (x->tkeys) dl_expr_free(x->tkeys[k]);
		if (x->skeys) dl_expr_free(x->skeys[k]);
	}
	dl_free(x->tkeys);
	dl_free(x->skeys);
	dl_free(x->null_safe);
	dl_free(x->key_tcol);
	dl_free(x->key_ssql);
	dl_expr_free(x->residual);
	for (int i = 0; i < x->nsb; i++) dl_batch_free(x->sbatches[i]);
	dl_free(x->sbatches);
	dl_exec_mem_release(&x->mem, x->scharged);
	dl_spill_free(x->sspill);
	dl_mg_key_range_free(x);
	dl_mg_capture_free(x);
	dl_mg_inserts_free(x);
	if (x->cap_lock_init) pthread_mutex_destroy(&x->cap_lock);
	dl_mg_recs_free(x);
	dl_free((void *)x->files);
	dl_rewrite_free(x->rw); /* its row sets released from x->mem */
	dl_mg_row_sets_done(x);
	dl_enforcer_free(x->enf);
	if (x->lock_init) pthread_mutex_destroy(&x->enf_lock);
	dl_free(x->gen_recompute);
	for (int i = 0; i < x->ninsert_files; i++) dl_files_writer_free(x->insert_files[i]);
	dl_free(x->insert_files);
	dl_change_writer_free(x->cdc);
	dl_type_unref(x->canon);
	dl_type_unref(x->wschema);
	dl_type_unref(x->sschema);
	dl_txn_free(x->txn);
	dl_snapshot_free(x->snap);
	if (x->owns_store) dl_store_free(x->store);
	dl_arena_free(&x->arena);
}

int dl_merge_execute(dl_merge_metrics *metrics, dl_merge *m)
{
	if (metrics) memset(metrics, 0, sizeof *metrics);
	if (!m) return dl_error_set(DL_EINVALID, "dl_merge_execute: no merge");
	if (m->executed) return dl_error_set(DL_EINVALID, "the merge already executed; build a new one");
	m->executed = true;
	mg_exec x;
	memset(&x, 0, sizeof x);
	x.m = m;
	x.mem = (dl_exec_memory)DL_EXEC_MEMORY_INIT(m->o.memory_limit);
	dl_block_cache_under_limit(m->o.memory_limit);
	int rc = dl_mg_row_sets_budget(&x);
	if (rc == 0) rc = run(&x, metrics);
	/* a commit that may have landed names the files: they stay */
	if (rc < 0 && !(x.txn && dl_txn_commit_unknown(x.txn))) {
		dl_error saved = *dl_error_last();
		char *msg = dl_strdup(saved.message), *klass = dl_strdup(saved.klass);
		dl_mg_discard(&x);
		if (msg && klass && *klass) dl_error_set_class(rc, klass, "%s", msg);
		else if (msg) dl_error_set(rc, "%s", msg);
		dl_free(msg);
		dl_free(klass);
	}
	free_exec(&x);
	return rc;
}
