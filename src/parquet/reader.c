/* Reading a Parquet file: the selected row groups' column chunks fetched,
 * the leaf column readers decoding each batch (in parallel on a pool when
 * given), the batches assembled from them, and late materialization (some
 * columns decoded only for the rows a caller keeps). */
#include "parquet/reader.h"
#include <stdio.h>
#include <strings.h>
#include "parquet/reader_internal.h"
#include "parquet/bloom_read.h"
#include "parquet/column_read.h"
#include "parquet/file_source.h"
#include "parquet/output_pool.h"
#include "parquet/schema_read.h"
#include "parquet/stats_read.h"
#include "parquet/variant_shred.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/pool.h"

void pq_reader_close_row_group(pq_reader *r)
{
	if (!r->rg_open) return;
	for (int i = 0; i < r->schema.nleaves; i++)
		if (r->need[i]) {
			r->pages_passed += r->readers[i].pages_passed;
			pq_leaf_reader_close(&r->readers[i]);
		}
	pq_source_prefetch(&r->src, NULL, 0); /* drops the fetched chunks */
	r->rg_open = false;
	r->late_pending = false;
}


/* Fetches the needed column chunks of a row group in as few requests as
 * pq_source_prefetch can (coalesced, several in flight); the leaf readers
 * then find their bytes fetched. A chunk whose metadata is bad is left out:
 * its leaf reader names the problem. */
static int prefetch_row_group(pq_reader *r, int rg)
{
	if (!r->src.store) return 0;
	pq_range *ranges = dl_malloc((size_t)(r->schema.nleaves ? r->schema.nleaves : 1) * sizeof *ranges);
	if (!ranges) return DL_ENOMEM;
	int n = 0;
	for (int i = 0; i < r->schema.nleaves; i++) {
		if (!r->need[i]) continue;
		const pq_column_chunk *cc = &r->md.row_groups[rg].columns[i];
		if (cc->encrypted || cc->file_path || !cc->has_meta_data) continue;
		const pq_column_meta *m = &cc->meta_data;
		int64_t start = m->data_page_offset;
		if (m->has_dictionary_page_offset && m->dictionary_page_offset > 0 && m->dictionary_page_offset < start)
			start = m->dictionary_page_offset;
		if (start < 0 || m->total_compressed_size < 0 || m->total_compressed_size > r->src.size) continue;
		const pq_offset_index *oi = r->want && r->want[i] ? &r->rgi[rg].oi[i] : NULL;
		if (!oi) {
			ranges[n++] = (pq_range){start, (size_t)m->total_compressed_size};
			continue;
		}
		/* the dictionary, then each run of wanted pages */
		int extra = 1 + oi->n;
		pq_range *g = dl_realloc(ranges, ((size_t)n + (size_t)extra + (size_t)r->schema.nleaves) * sizeof *g);
		if (!g) {
			dl_free(ranges);
			return DL_ENOMEM;
		}
		ranges = g;
		if (oi->pages[0].offset > start && r->values[i]) ranges[n++] = (pq_range){start, (size_t)(oi->pages[0].offset - start)};
		for (int j = 0; j < oi->n; j++) {
			if (!r->want[i][j]) continue;
			int k = j;
			while (k + 1 < oi->n && r->want[i][k + 1]) k++;
			ranges[n++] = (pq_range){oi->pages[j].offset, (size_t)(oi->pages[k].offset + oi->pages[k].size - oi->pages[j].offset)};
			j = k;
		}
	}
	int rc = pq_source_prefetch(&r->src, ranges, n);
	dl_free(ranges);
	if (rc < 0) return dl_error_prefix("%s, row group %d", r->src.name, rg);
	return 0;
}

static int open_row_group(pq_reader *r, int rg)
{
	r->cur_rg = rg;
	r->rg_done = 0;
	r->cur_range = 0;
	r->rg_rows = r->md.row_groups[rg].num_rows;
	DL_TRY(pq_reader_select_pages(r, rg));
	DL_TRY(prefetch_row_group(r, rg));
	r->rg_open = true;
	for (int i = 0; i < r->schema.nleaves; i++) {
		if (!r->need[i]) continue;
		pq_page_sel sel, *ps = NULL;
		if (r->want && r->want[i]) {
			sel = (pq_page_sel){r->rgi[rg].oi[i].pages, r->rgi[rg].oi[i].n, r->want[i]};
			ps = &sel;
		}
		int rc = pq_leaf_reader_open(&r->readers[i], &r->src, &r->md, rg, &r->schema.leaves[i], i, r->values[i], r->pool, ps);
		r->readers[i].raw_nanos = r->raw_nanos[i];
		if (rc < 0) {
			/* Readers after i were never opened; close just those before. */
			for (int j = i + 1; j < r->schema.nleaves; j++) memset(&r->readers[j], 0, sizeof r->readers[j]);
			pq_reader_close_row_group(r);
			return rc;
		}
	}
	return 0;
}

int pq_reader_set_pool(pq_reader *r, dl_pool *pool)
{
	r->tpool = pool;
	return 0;
}

int pq_reader_set_parallel(pq_reader *r, pq_parallel_fn par, void *payload)
{
	r->par = par;
	r->par_payload = payload;
	return 0;
}

typedef struct read_ctx {
	pq_reader *r;
	const int *leaves;
	int64_t rows;
	int64_t seek; /* row of the row group to start at, or -1: where the last batch ended */
	const uint32_t *sel; /* late leaves: only these of the rows (NULL: all) */
	int64_t nsel;
} read_ctx;

static int read_leaves(void *arg, size_t begin, size_t end)
{
	read_ctx *c = arg;
	for (size_t i = begin; i < end; i++) {
		pq_leaf_reader *lr = &c->r->readers[c->leaves[i]];
		if (c->seek >= 0) DL_TRY(pq_leaf_seek(lr, c->seek));
		if (c->sel) DL_TRY(pq_leaf_read_rows_sel(lr, c->rows, c->sel, c->nsel));
		else DL_TRY(pq_leaf_read_rows(lr, c->rows));
	}
	return 0;
}

static int run_leaves(pq_reader *r, read_ctx *ctx, int n)
{
	/* Leaf columns are independent until assembly: decode them in
	 * parallel when a pool was given. */
	if (r->par && n > 1) return r->par(r->par_payload, (size_t)n, read_leaves, ctx);
	if (r->tpool && n > 1) return dl_parallel_for(r->tpool, (size_t)n, 1, read_leaves, ctx);
	return read_leaves(ctx, 0, (size_t)n);
}

static int make_batch(pq_reader *r, int64_t k, int64_t seek, dl_batch **out)
{
	const pq_out *plan = &r->plan;
	read_ctx ctx = {r, r->early, k, seek, NULL, 0};
	DL_TRY(run_leaves(r, &ctx, r->nearly));
	if (r->nlate) {
		r->late_pending = true;
		r->late_rows = k;
		r->late_seek = seek;
	}
	dl_batch *b = dl_calloc(1, sizeof *b);
	if (!b) return DL_ENOMEM;
	b->schema = dl_type_ref(plan->type);
	b->num_rows = k;
	b->cols = dl_calloc(plan->nchildren ? (size_t)plan->nchildren : 1, sizeof *b->cols);
	if (!b->cols) {
		dl_batch_free(b);
		return DL_ENOMEM;
	}
	for (int i = 0; i < plan->nchildren; i++) {
		if (r->late_col && r->late_col[i]) {
			b->ncols = i + 1; /* left NULL for pq_reader_read_late */
			continue;
		}
		int rc = pq_assemble(&b->cols[i], &plan->children[i], r->readers, k, r->src.name);
		b->ncols = i + 1;
		if (rc < 0) {
			dl_batch_free(b);
			return rc;
		}
	}
	*out = b;
	return 0;
}

int pq_reader_next(pq_reader *r, dl_batch **out, int64_t *first_row)
{
	*out = NULL;
	r->started = true;
	if (r->late_pending) DL_TRY(pq_reader_read_late(r, NULL, 0, NULL));
	for (;;) {
		if (!r->rg_open) {
			if (r->rg_pos >= r->nrgs) return 0;
			int rg = r->rgs[r->rg_pos++];
			if (r->ranges && r->ranges[rg] && r->nranges[rg] == 0) continue; /* no row wanted */
			DL_TRY(open_row_group(r, rg));
		}
		const pq_row_range *rr = r->ranges && r->ranges[r->cur_rg] ? r->ranges[r->cur_rg] : NULL;
		int64_t end = r->rg_rows, seek = -1;
		if (rr) {
			if (r->cur_range >= r->nranges[r->cur_rg]) {
				pq_reader_close_row_group(r);
				continue;
			}
			const pq_row_range *x = &rr[r->cur_range];
			if (r->rg_done < x->first) {
				r->rg_done = x->first;
				seek = x->first;
			}
			end = x->end;
		}
		if (r->rg_done >= end) {
			pq_reader_close_row_group(r);
			continue;
		}
		int64_t k = end - r->rg_done;
		if (k > r->batch) k = r->batch;
		int rc = make_batch(r, k, seek, out);
		if (rc < 0) {
			pq_reader_close_row_group(r);
			r->rg_pos = r->nrgs; /* a failed file stays failed */
			return rc;
		}
		if (first_row) *first_row = r->rg_first[r->cur_rg] + r->rg_done;
		r->rg_done += k;
		if (rr && r->rg_done >= end) r->cur_range++;
		return 0;
	}
}

size_t pq_reader_pooled_bytes(const pq_reader *r) { return pq_pool_bytes(r->pool); }

/* ---- late materialization ---- */

int pq_reader_set_late_columns(pq_reader *r, const bool *late)
{
	DL_TRY(pq_reader_not_started(r));
	const pq_out *plan = &r->plan;
	dl_free(r->late_col);
	r->late_col = dl_calloc(plan->nchildren ? (size_t)plan->nchildren : 1, 1);
	if (!r->late_col) return DL_ENOMEM;
	bool *leaf_late = dl_calloc((size_t)r->schema.nleaves + 1, 1);
	if (!leaf_late) return DL_ENOMEM;
	/* Only flat leaves: their levels are one per row, so a row selection
	 * maps straight to level positions. Nested columns stay early. */
	for (int i = 0; i < plan->nchildren; i++) {
		const pq_out *c = &plan->children[i];
		if (!late || !late[i] || c->kind != PQ_OUT_LEAF || r->schema.leaves[c->leaf].max_rep) continue;
		r->late_col[i] = true;
		leaf_late[c->leaf] = true;
	}
	r->nearly = r->nlate = 0;
	for (int i = 0; i < r->nneeded; i++) {
		int leaf = r->needed[i];
		if (leaf_late[leaf]) r->late[r->nlate++] = leaf;
		else r->early[r->nearly++] = leaf;
	}
	dl_free(leaf_late);
	return 0;
}

bool pq_reader_column_is_late(const pq_reader *r, int col)
{
	return r->late_col && col >= 0 && col < r->plan.nchildren && r->late_col[col];
}

int pq_reader_read_late(pq_reader *r, const uint32_t *sel, int64_t n, dl_array **out)
{
	if (!r->late_pending) {
		if (n || out) return dl_error_set(DL_EINVALID, "%s: no batch with late columns to complete", r->src.name);
		return 0;
	}
	r->late_pending = false;
	int64_t k = r->late_rows;
	/* A dense selection decodes every value and takes the rows after: its
	 * runs are too short for skipping to pay. */
	bool sparse = !out || n * 4 <= k;
	static const uint32_t none[1] = {0};
	read_ctx ctx = {r, r->late, k, r->late_seek, sparse ? (sel && n ? sel : none) : NULL, sparse ? n : 0};
	int rc = run_leaves(r, &ctx, r->nlate);
	const pq_out *plan = &r->plan;
	for (int i = 0; rc == 0 && out && i < plan->nchildren; i++) {
		if (!r->late_col[i]) continue;
		if (sparse) {
			rc = pq_assemble(&out[i], &plan->children[i], r->readers, n, r->src.name);
			continue;
		}
		dl_array *all;
		rc = pq_assemble(&all, &plan->children[i], r->readers, k, r->src.name);
		if (rc < 0) break;
		out[i] = dl_array_take(all, sel, n);
		dl_array_free(all);
		if (!out[i]) rc = DL_ENOMEM;
	}
	if (rc < 0) {
		for (int i = 0; out && i < plan->nchildren; i++)
			if (r->late_col[i]) {
				dl_array_free(out[i]);
				out[i] = NULL;
			}
		pq_reader_close_row_group(r);
		r->rg_pos = r->nrgs; /* a failed file stays failed */
	}
	return rc;
}

int64_t pq_reader_pages_passed(const pq_reader *r)
{
	int64_t n = r->pages_passed;
	for (int i = 0; r->rg_open && i < r->schema.nleaves; i++) n += r->readers[i].pages_passed;
	return n;
}
