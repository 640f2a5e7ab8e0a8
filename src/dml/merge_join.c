/* MERGE's read side (Spark's ClassicMergeExecutor.findTouchedFiles and
 * writeAllChanges, done in one pass): the source read once (in memory while
 * it fits the budget, else spilled), the
 * target's candidate files (pruned by the ON condition's target-only terms
 * when no NOT MATCHED BY SOURCE clause needs every row) streamed with each
 * row's file and position (only the columns evaluated here: join_columns),
 * a hash join built on the smaller side whose kind
 * the clauses decide (inner; target outer for NOT MATCHED BY SOURCE; source
 * outer for NOT MATCHED), and per joined row the first clause whose
 * condition holds. What a clause does to a target row is recorded by file
 * and position for the rewrite engine (merge_recs.c); inserted rows are
 * computed here. */
#include "dml/merge_capture.h"
#include "dml/merge_internal.h"
#include "dml/merge_recs.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "log/deletion_vector.h"
#include "log/replay.h"
#include "log/row_set.h"
#include "log/snapshot.h"
#include "table/scan.h"
#include "exec/spill.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/time.h"

/* ---- source ---- */

static int long_column(dl_array **out, int64_t n, int64_t start, int64_t step)
{
	dl_type *lt = dl_type_new(DL_TYPE_LONG);
	if (!lt) return DL_ENOMEM;
	dl_array *a = dl_array_new(lt, n);
	dl_type_unref(lt);
	if (!a) return dl_error_last()->code;
	int64_t *v = a->values;
	for (int64_t i = 0; i < n; i++) v[i] = start + i * step;
	*out = a;
	return 0;
}

/* The source stream's schema: __s0.., __srow. */
static int source_schema(mg_exec *x, dl_type **out)
{
	*out = dl_type_struct(x->canon->children + x->nt + 2, x->ns + 1);
	return *out ? 0 : dl_error_last()->code;
}

/* A batch of `schema` whose first n columns are moved out of `b`. */
static int adopt(dl_batch **out, dl_type *schema, dl_batch *b, int n, int64_t rows)
{
	dl_batch *o = dl_batch_new(schema, rows);
	if (!o) return dl_error_last()->code;
	for (int i = 0; i < n; i++) {
		o->cols[i] = b->cols[i];
		b->cols[i] = NULL;
	}
	*out = o;
	return 0;
}

static int source_ctx(mg_exec *x, dl_exec_ctx *ctx)
{
	*ctx = (dl_exec_ctx)DL_EXEC_CTX_INIT;
	ctx->mem = &x->mem;
	ctx->temp_dir = x->m->o.temp_dir;
	return 0;
}

/* The source no longer fits the budget: what is held goes to a spill file,
 * and every later batch with it. */
static int spill_source(mg_exec *x, const dl_type *ss)
{
	dl_exec_ctx ctx;
	source_ctx(x, &ctx);
	DL_TRY(dl_spill_open(&x->sspill, &ctx, ss, "merge source"));
	for (int i = 0; i < x->nsb; i++) {
		DL_TRY(dl_spill_write(x->sspill, x->sbatches[i]));
		dl_batch_free(x->sbatches[i]);
		x->sbatches[i] = NULL;
	}
	x->nsb = 0;
	dl_exec_mem_release(&x->mem, x->scharged);
	x->scharged = 0;
	return 0;
}

static int hold_source(mg_exec *x, const dl_type *ss, dl_batch *o, int *cap)
{
	if (!x->sspill) {
		int64_t bytes = dl_batch_bytes(o);
		if (dl_exec_mem_charge(&x->mem, bytes, "merge source") == 0) {
			if (x->nsb == *cap) {
				int nc = *cap ? *cap * 2 : 16;
				dl_batch **nb = dl_reallocarray(x->sbatches, (size_t)nc, sizeof *nb);
				if (!nb) {
					dl_exec_mem_release(&x->mem, bytes);
					return DL_ENOMEM;
				}
				x->sbatches = nb;
				*cap = nc;
			}
			x->sbatches[x->nsb++] = o;
			x->scharged += bytes;
			return 1;
		}
		DL_TRY(spill_source(x, ss));
	}
	return dl_spill_write(x->sspill, o);
}

int dl_mg_read_source(mg_exec *x)
{
	dl_type *ss = NULL;
	DL_TRY(source_schema(x, &ss));
	dl_batch_stream *s = x->m->src;
	int rc = 0, cap = 0;
	int64_t row = 0;
	for (;;) {
		dl_batch *b;
		rc = dl_batch_stream_next(s, &b);
		if (rc < 0 || !b) break;
		dl_batch *o = NULL;
		if (b->num_rows) rc = adopt(&o, ss, b, x->ns, b->num_rows);
		if (rc == 0 && o) rc = long_column(&o->cols[x->ns], b->num_rows, row, 1);
		row += b->num_rows;
		dl_batch_free(b);
		if (rc == 0 && o) rc = dl_mg_key_range_add(x, o);
		if (rc == 0 && o) rc = hold_source(x, ss, o, &cap);
		if (rc == 1) rc = 0; /* o is held */
		else dl_batch_free(o);
		if (rc < 0) break;
	}
	x->nsrc = row;
	dl_type_unref(ss);
	x->mt.num_source_rows = x->nsrc;
	return rc;
}

/* ---- target files ---- */

static int64_t stats_records(const dl_add *a)
{
	const char *p = a->stats ? strstr(a->stats, "\"numRecords\":") : NULL;
	if (!p) return a->size / 8;
	int64_t n = strtoll(p + 13, NULL, 10);
	if (a->dv) n -= a->dv->cardinality;
	return n;
}

int dl_mg_plan_files(mg_exec *x)
{
	dl_scan_options so = DL_SCAN_OPTIONS_INIT;
	so.filter = x->prune;
	so.threads = 1;
	dl_scan *plan;
	DL_TRY(dl_scan_open(&plan, x->snap, &so));
	const dl_log_state *st = dl_snapshot_state(x->snap);
	size_t n = dl_scan_file_count(plan);
	int rc = 0;
	x->files = dl_calloc(n + 1, sizeof *x->files);
	x->recs = dl_calloc(n + 1, sizeof *x->recs);
	if (!x->files || !x->recs) rc = DL_ENOMEM;
	for (size_t i = 0; i < n && rc == 0; i++) {
		const dl_add *a = dl_log_state_add(st, dl_scan_file_snapshot_index(plan, i));
		x->files[x->nfiles++] = a;
		x->target_rows_est += stats_records(a);
		/* conflict detection: a concurrent removal of a file read conflicts */
		rc = dl_txn_read_file(x->txn, a->path);
	}
	dl_scan_free(plan);
	if (rc == 0) {
		if (x->prune) rc = dl_txn_read_predicate(x->txn, x->prune);
		else dl_txn_read_whole_table(x->txn);
	}
	return rc;
}

/* The target side of the join: the candidate files in order, each row with
 * __file and __pos (its position in the file, the old DV's rows skipped:
 * they are a row set, about a bit a row at most, read by a cursor).
 * A file is read a part at a time (dl_scan_read_add_parts: runs of row
 * groups of at least 4 batches), the next part only once the join has
 * taken the batches of the last, so the rows held are a part's, however
 * large the file: peak memory does not grow with the target's files. */
typedef struct tstream {
	mg_exec *x;
	dl_type *schema;
	dl_scan *reader;
	size_t file;
	dl_batch **q;
	int nq, qi, capq;
	dl_scan_file_parts *parts; /* the file being read, while parts remain */
	int part, nparts;          /* the part last read, of nparts */
	int64_t pos;
	dl_rowset old;
	dl_rowset_cursor old_c;
	uint64_t old_next;    /* the least old DV row >= pos (UINT64_MAX: none) */
	int err;
} tstream;

/* Keeps the file's parts beyond the first to read one at a time. */
static int take_parts(void *payload, dl_scan_file_parts *fp, int nparts)
{
	tstream *t = payload;
	if (nparts > 1) {
		dl_scan_file_parts_ref(fp, 1);
		t->parts = fp;
		t->nparts = nparts;
	}
	return 0;
}

static void drop_parts(tstream *t)
{
	dl_scan_file_parts_unref(t->parts);
	t->parts = NULL;
	t->part = t->nparts = 0;
}

static int collect(void *payload, dl_batch *b)
{
	tstream *t = payload;
	if (t->nq == t->capq) {
		int cap = t->capq ? t->capq * 2 : 8;
		dl_batch **nq = dl_reallocarray(t->q, (size_t)cap, sizeof *nq);
		if (!nq) {
			dl_batch_free(b);
			return DL_ENOMEM;
		}
		t->q = nq;
		t->capq = cap;
	}
	t->q[t->nq++] = b;
	return 0;
}

static int load_file(tstream *t)
{
	mg_exec *x = t->x;
	const dl_add *a = x->files[t->file];
	dl_rowset_free(&t->old);
	t->pos = 0;
	if (a->dv) {
		dl_dv_rows rows;
		DL_TRY(dl_dv_load_from(&rows, t->reader->dvs, a->dv));
		int rc = dl_rowset_from_dv(&t->old, &rows);
		dl_dv_rows_free(&rows);
		if (rc < 0) return dl_error_prefix("deletion vector of %s", a->path);
	}
	dl_rowset_cursor_init(&t->old_c, &t->old);
	t->old_next = dl_rowset_next(&t->old_c, 0);
	t->nq = t->qi = 0;
	drop_parts(t);
	return dl_scan_read_add_parts(t->reader, a, take_parts, collect, t);
}

/* The next part of the file being read into the queue. */
static int load_part(tstream *t)
{
	int rc = dl_scan_read_part(t->parts, ++t->part, NULL, collect, t);
	if (rc < 0 || t->part + 1 >= t->nparts) drop_parts(t);
	return rc;
}

static int tstream_next(dl_batch_stream *s, dl_batch **out)
{
	tstream *t = s->private_data;
	*out = NULL;
	mg_exec *x = t->x;
	while (t->qi >= t->nq) {
		for (int i = t->qi; i < t->nq; i++) dl_batch_free(t->q[i]);
		t->nq = t->qi = 0;
		if (!t->parts && t->file >= x->nfiles) return 0;
		int64_t t0 = dl_monotonic_ns();
		int rc;
		if (t->parts) {
			rc = load_part(t);
		} else {
			rc = load_file(t);
			t->file++;
		}
		x->scan_ns += dl_monotonic_ns() - t0;
		DL_TRY(rc);
	}
	dl_batch *b = t->q[t->qi];
	t->q[t->qi++] = NULL;
	int64_t n = b->num_rows;
	dl_batch *o = NULL;
	int rc = adopt(&o, t->schema, b, x->ntread, n);
	if (rc == 0) rc = long_column(&o->cols[x->ntread], n, (int64_t)t->file - 1, 0);
	if (rc == 0) rc = long_column(&o->cols[x->ntread + 1], n, 0, 0);
	if (rc == 0) {
		int64_t *p = o->cols[x->ntread + 1]->values;
		for (int64_t j = 0; j < n; j++) {
			while (t->old_next == (uint64_t)t->pos) t->old_next = dl_rowset_next(&t->old_c, (uint64_t)++t->pos);
			p[j] = t->pos++;
		}
	}
	dl_batch_free(b);
	if (rc < 0) {
		dl_batch_free(o);
		return rc;
	}
	*out = o;
	return 0;
}

static const dl_type *tstream_schema(dl_batch_stream *s) { return ((tstream *)s->private_data)->schema; }

static void tstream_release(dl_batch_stream *s)
{
	tstream *t = s->private_data;
	for (int i = t->qi; i < t->nq; i++) dl_batch_free(t->q[i]);
	dl_free(t->q);
	dl_rowset_free(&t->old);
	drop_parts(t);
	dl_scan_free(t->reader);
	dl_type_unref(t->schema);
	dl_free(t);
	dl_free(s);
}

/* Which target columns the join phase reads (x->tread, x->ntread): those
 * of the ON keys and residual, of every clause condition and of the insert
 * values, the only expressions evaluated over the joined rows (updated
 * values are computed by the rewrite engine's callback over the rows it
 * re-reads, merge_write.c; the captured rows and the records hold source
 * columns and positions only). A bound expression names its columns in
 * EX_COL nodes alone (the binder refuses `f(*)`, windows and subqueries),
 * so dl_expr_columns lists them all. On the copy-on-write upsert
 * `ON t.id = s.id ... UPDATE SET * ... INSERT *` that is `id` alone, and
 * the other columns are not decoded twice. */
typedef struct tcol_mark {
	mg_exec *x;
	bool *need;
	bool all;
} tcol_mark;

static int mark_tcol(const char *const *path, int depth, void *payload)
{
	tcol_mark *m = payload;
	if (depth < 1 || strncmp(path[0], "__t", 3) != 0) return 0;
	char *end;
	long i = strtol(path[0] + 3, &end, 10);
	/* not a canonical target name after all: read every column */
	if (end == path[0] + 3 || *end || i < 0 || i >= m->x->nt) m->all = true;
	else m->need[i] = true;
	return 0;
}

static int join_columns(mg_exec *x)
{
	bool *need = dl_calloc((size_t)x->nt + 1, sizeof *need);
	x->tread = dl_arena_calloc(&x->arena, (size_t)x->nt + 1, sizeof *x->tread);
	if (!need || !x->tread) {
		dl_free(need);
		return DL_ENOMEM;
	}
	tcol_mark m = {x, need, false};
	int rc = 0;
	for (int k = 0; k < x->nkeys && rc == 0; k++) rc = dl_expr_columns(x->tkeys[k], mark_tcol, &m);
	if (rc == 0 && x->residual) rc = dl_expr_columns(x->residual, mark_tcol, &m);
	for (int k = 0; k < x->m->ncl && rc == 0; k++) {
		const mg_clause *c = &x->m->cl[k];
		if (c->cond_e) rc = dl_expr_columns(c->cond_e, mark_tcol, &m);
		/* inserts are computed here (add_inserts); they name only the
		 * source, but what they name is read whatever it is */
		for (int w = 0; c->kind == MG_NOT_MATCHED && c->set && w < x->nw && rc == 0; w++)
			if (c->set[w]) rc = dl_expr_columns(c->set[w], mark_tcol, &m);
	}
	bool any = false;
	for (int i = 0; i < x->nt; i++) any = any || need[i] || m.all;
	/* the reader counts a file's rows by a column it decodes */
	if (!any && x->nt > 0) need[0] = true;
	x->ntread = 0;
	for (int i = 0; i < x->nt; i++) x->tread[i] = need[i] || m.all ? x->ntread++ : -1;
	dl_free(need);
	return rc;
}

/* The target stream's schema: the columns read, then __file and __pos. */
static int read_schema(mg_exec *x, dl_type **out)
{
	dl_field *f = dl_calloc((size_t)x->ntread + 2, sizeof *f);
	if (!f) return DL_ENOMEM;
	int k = 0;
	for (int i = 0; i < x->nt; i++)
		if (x->tread[i] >= 0) f[k++] = x->canon->children[i];
	f[k++] = x->canon->children[x->nt];
	f[k++] = x->canon->children[x->nt + 1];
	*out = dl_type_struct(f, k);
	dl_free(f);
	return *out ? 0 : dl_error_last()->code;
}

static int target_stream(mg_exec *x, dl_batch_stream **out)
{
	DL_TRY(join_columns(x));
	dl_batch_stream *s = dl_calloc(1, sizeof *s);
	tstream *t = dl_calloc(1, sizeof *t);
	const char **cols = dl_calloc((size_t)x->nt + 1, sizeof *cols);
	int rc = s && t && cols ? 0 : DL_ENOMEM;
	if (rc == 0) {
		t->x = x;
		t->old.budget = &x->rs_budget;
		s->private_data = t;
		s->schema = tstream_schema;
		s->next = tstream_next;
		s->release = tstream_release;
		rc = read_schema(x, &t->schema);
	}
	for (int i = 0; rc == 0 && i < x->nt; i++)
		if (x->tread[i] >= 0) cols[x->tread[i]] = x->tschema->children[i].name;
	if (rc == 0) {
		dl_scan_options so = DL_SCAN_OPTIONS_INIT;
		so.columns = cols;
		so.ncolumns = x->ntread;
		so.threads = 1;
		rc = dl_scan_open(&t->reader, x->snap, &so);
	}
	dl_free(cols);
	if (rc < 0) {
		/* wired up only when all three allocations succeeded */
		if (s && s->private_data) tstream_release(s);
		else {
			dl_free(s);
			dl_free(t);
		}
		return rc;
	}
	*out = s;
	return 0;
}

/* ---- clause evaluation over joined rows ---- */

/* Assigns to rows[0..n) of V (those with assign[] == -1) the first clause of
 * `kind` whose condition holds, evaluating each condition only on the rows
 * still unassigned (Spark evaluates the clauses as CASE WHEN, in order). */
static int assign_clauses(mg_exec *x, const dl_batch *V, mg_kind kind, const uint32_t *rows, int64_t n,
                          int32_t *assign)
{
	uint32_t *left = dl_calloc((size_t)n + 1, sizeof *left);
	if (!left) return DL_ENOMEM;
	int64_t nl = n;
	memcpy(left, rows, (size_t)n * sizeof *left);
	int rc = 0;
	for (int k = 0; k < x->m->ncl && nl > 0 && rc == 0; k++) {
		mg_clause *c = &x->m->cl[k];
		if (c->kind != kind) continue;
		if (!c->cond_e) {
			for (int64_t i = 0; i < nl; i++) assign[left[i]] = k;
			nl = 0;
			break;
		}
		dl_batch *sub = dl_batch_take(V, left, nl);
		if (!sub) {
			rc = dl_error_last()->code;
			break;
		}
		dl_array *v = NULL;
		rc = dl_expr_eval(&v, c->cond_e, sub, NULL);
		int64_t keep = 0;
		for (int64_t i = 0; rc == 0 && i < nl; i++) {
			bool t = dl_array_is_valid(v, i) && dl_bit_get(v->values, i);
			if (t) assign[left[i]] = k;
			else left[keep++] = left[i];
		}
		if (rc == 0) nl = keep;
		dl_array_free(v);
		dl_batch_free(sub);
	}
	dl_free(left);
	return rc;
}

static int add_inserts(mg_exec *x, const dl_batch *V, int k, const uint32_t *rows, int64_t n)
{
	mg_clause *c = &x->m->cl[k];
	dl_batch *sub = dl_batch_take(V, rows, n);
	if (!sub) return dl_error_last()->code;
	dl_type *is = x->ins_schema[k];
	dl_batch *o = dl_batch_new(is, n);
	int rc = o ? 0 : dl_error_last()->code;
	int j = 0;
	for (int w = 0; w < x->nw && rc == 0; w++) {
		if (!c->set[w]) continue;
		rc = dl_expr_eval(&o->cols[j++], c->set[w], sub, NULL);
	}
	dl_batch_free(sub);
	if (rc < 0) {
		dl_batch_free(o);
		return rc;
	}
	c->rows += n;
	return dl_mg_insert_add(x, k, o);
}

static int process(mg_exec *x, const dl_batch *V)
{
	int64_t n = V->num_rows;
	const dl_array *fcol = V->cols[x->nt], *pcol = V->cols[x->nt + 1], *scol = V->cols[x->nt + 2 + x->ns];
	uint32_t *mrow = dl_calloc((size_t)n + 1, sizeof *mrow), *brow = dl_calloc((size_t)n + 1, sizeof *brow),
	         *irow = dl_calloc((size_t)n + 1, sizeof *irow);
	int32_t *assign = dl_malloc(((size_t)n + 1) * sizeof *assign);
	int rc = mrow && brow && irow && assign ? 0 : DL_ENOMEM;
	int64_t nm = 0, nb = 0, ni = 0;
	for (int64_t i = 0; rc == 0 && i < n; i++) {
		bool t = dl_array_is_valid(fcol, i), s = dl_array_is_valid(scol, i);
		assign[i] = -1;
		if (t && s) mrow[nm++] = (uint32_t)i;
		else if (t) brow[nb++] = (uint32_t)i;
		else if (s) irow[ni++] = (uint32_t)i;
	}
	if (rc == 0 && nm && x->has_matched) rc = assign_clauses(x, V, MG_MATCHED, mrow, nm, assign);
	if (rc == 0 && nb && x->has_by_source) rc = assign_clauses(x, V, MG_BY_SOURCE, brow, nb, assign);
	if (rc == 0 && ni && x->has_not_matched) rc = assign_clauses(x, V, MG_NOT_MATCHED, irow, ni, assign);
	const int64_t *fv = fcol->values, *pv = pcol->values, *sv = scol->values;
	/* the source columns of the rows a matched clause updates, kept for the
	 * rewrite engine's callback (irow is free until the inserts) */
	int64_t *crow = rc == 0 ? dl_malloc(((size_t)n + 1) * sizeof *crow) : NULL;
	if (rc == 0 && !crow) rc = DL_ENOMEM;
	int64_t nu = 0;
	uint32_t *urow = brow ? brow + nb : NULL; /* brow has room for n rows, nb used (NULL when out of memory) */
	for (int64_t k = 0; rc == 0 && k < nm; k++) {
		uint32_t i = mrow[k];
		crow[i] = -1;
		if (assign[i] >= 0 && x->m->cl[assign[i]].action != MG_DELETE) urow[nu++] = i;
	}
	if (rc == 0 && nu) {
		int64_t *cr = dl_malloc((size_t)nu * sizeof *cr);
		if (!cr) rc = DL_ENOMEM;
		if (rc == 0) rc = dl_mg_capture(x, V, urow, nu, cr);
		for (int64_t k = 0; rc == 0 && k < nu; k++) crow[urow[k]] = cr[k];
		dl_free(cr);
	}
	/* matched pairs: Spark counts every pair for the multiple-match check,
	 * only those some clause acts on when all clauses are MATCHED ones */
	for (int64_t k = 0; rc == 0 && k < nm; k++) {
		uint32_t i = mrow[k];
		if (x->has_matched && (assign[i] >= 0 || !x->matched_only))
			rc = dl_mg_rec_push(x, fv[i], (uint64_t)pv[i], assign[i], sv[i], crow[i]);
	}
	for (int64_t k = 0; rc == 0 && k < nb; k++) {
		uint32_t i = brow[k];
		if (assign[i] >= 0) rc = dl_mg_rec_push(x, fv[i], (uint64_t)pv[i], assign[i], x->nsrc, -1);
	}
	dl_free(crow);
	/* inserts, per clause */
	for (int c = 0; rc == 0 && ni && c < x->m->ncl; c++) {
		if (x->m->cl[c].kind != MG_NOT_MATCHED) continue;
		int64_t nc = 0;
		for (int64_t k = 0; k < ni; k++)
			if (assign[irow[k]] == c) mrow[nc++] = irow[k];
		if (nc) rc = add_inserts(x, V, c, mrow, nc);
	}
	dl_free(mrow);
	dl_free(brow);
	dl_free(irow);
	dl_free(assign);
	return rc;
}

int dl_mg_join(mg_exec *x)
{
	dl_exec_ctx ctx = DL_EXEC_CTX_INIT;
	ctx.mem = &x->mem;
	ctx.temp_dir = x->m->o.temp_dir;
	dl_batch_stream *ts = NULL, *ss = NULL, *j = NULL;
	dl_type *sschema = NULL;
	int rc = target_stream(x, &ts);
	if (rc == 0) rc = source_schema(x, &sschema);
	if (rc == 0 && x->sspill) {
		rc = dl_spill_stream(&ss, x->sspill, &ctx);
		x->sspill = NULL;
	} else if (rc == 0) {
		/* the join charges what it holds itself */
		dl_exec_mem_release(&x->mem, x->scharged);
		x->scharged = 0;
		rc = dl_batch_stream_from_batches(&ss, sschema, x->sbatches, x->nsb);
		dl_free(x->sbatches);
		x->sbatches = NULL;
		x->nsb = 0;
	}
	/* the hash table on the smaller side (the right input is the build side) */
	bool swap = x->target_rows_est < x->nsrc;
	bool outer_t = x->has_by_source, outer_s = x->has_not_matched;
	dl_join_kind kind = outer_t && outer_s ? DL_JOIN_FULL
	                    : outer_t          ? (swap ? DL_JOIN_RIGHT : DL_JOIN_LEFT)
	                    : outer_s          ? (swap ? DL_JOIN_LEFT : DL_JOIN_RIGHT)
	                                       : (x->nkeys ? DL_JOIN_INNER : DL_JOIN_CROSS);
	if (kind == DL_JOIN_CROSS && x->residual) kind = DL_JOIN_INNER;
	dl_exec_join spec = {kind, x->nkeys, swap ? x->skeys : x->tkeys, swap ? x->tkeys : x->skeys,
	                     x->null_safe, x->residual};
	if (rc == 0) {
		rc = dl_exec_hash_join(&j, swap ? ss : ts, swap ? ts : ss, &spec, &ctx);
		ts = ss = NULL;
		for (int k = 0; k < x->nkeys; k++) x->tkeys[k] = x->skeys[k] = NULL;
		x->residual = NULL;
	}
	dl_batch_stream_free(ts);
	dl_batch_stream_free(ss);
	/* the joined columns in canonical order (-1: a target column not read) */
	int nc = x->nt + 2 + x->ns + 1, nts = x->ntread + 2, nss = x->ns + 1;
	int tb = swap ? nss : 0, sb = swap ? 0 : nts;
	int *perm = dl_calloc((size_t)nc, sizeof *perm);
	if (rc == 0 && !perm) rc = DL_ENOMEM;
	for (int i = 0; rc == 0 && i < nc; i++)
		perm[i] = i < x->nt       ? (x->tread[i] < 0 ? -1 : tb + x->tread[i])
		          : i < x->nt + 2 ? tb + x->ntread + (i - x->nt)
		                          : sb + (i - x->nt - 2);
	dl_array **cols = rc == 0 ? dl_calloc((size_t)nc, sizeof *cols) : NULL;
	/* the all-NULL stand-ins, kept while the batches keep their length */
	dl_array **nulls = rc == 0 ? dl_calloc((size_t)x->nt + 1, sizeof *nulls) : NULL;
	if (rc == 0 && (!cols || !nulls)) rc = DL_ENOMEM;
	while (rc == 0) {
		dl_batch *b;
		rc = dl_batch_stream_next(j, &b);
		if (rc < 0 || !b) break;
		for (int i = 0; i < nc && rc == 0; i++) {
			if (perm[i] >= 0) {
				cols[i] = b->cols[perm[i]];
				continue;
			}
			if (!nulls[i] || nulls[i]->length != b->num_rows) {
				dl_array_free(nulls[i]);
				nulls[i] = dl_array_new_null(x->canon->children[i].type, b->num_rows);
				if (!nulls[i]) rc = dl_error_last()->code;
			}
			cols[i] = nulls[i];
		}
		if (rc < 0) {
			dl_batch_free(b);
			break;
		}
		dl_batch V = {x->canon, b->num_rows, nc, cols};
		rc = process(x, &V);
		if (rc == 0) rc = dl_mg_recs_flush(x);
		dl_batch_free(b);
		if (rc == 0 && x->m->o.progress) {
			dl_progress_info p = {"merge", "joining", "files", 0, (int64_t)x->nfiles, -1, -1};
			if (x->m->o.progress(&p, x->m->o.progress_payload) != 0)
				rc = dl_error_set(DL_ECANCELLED, "merge cancelled by the progress callback");
		}
	}
	for (int i = 0; nulls && i < x->nt; i++) dl_array_free(nulls[i]);
	dl_free(nulls);
	dl_free(cols);
	dl_free(perm);
	dl_batch_stream_free(j);
	dl_type_unref(sschema);
	if (rc == 0) rc = dl_mg_recs_check(x);
	return rc;
}
