/* The page index of a pq_reader (PageIndex.md: each row group's
 * ColumnIndex and OffsetIndex, loaded on first use), the row ranges that
 * select pages from it, and Bloom filter probes. */
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

void pq_reader_free_page_state(pq_reader *r)
{
	for (uint32_t g = 0; r->rgi && g < r->md.nrow_groups; g++) {
		dl_free(r->rgi[g].owned);
		dl_free(r->rgi[g].state);
		dl_free(r->rgi[g].oi);
		dl_free(r->rgi[g].ci);
	}
	dl_free(r->rgi);
	for (uint32_t g = 0; r->ranges && g < r->md.nrow_groups; g++) dl_free(r->ranges[g]);
	dl_free(r->ranges);
	dl_free(r->nranges);
	for (int i = 0; r->want && i < r->schema.nleaves; i++) dl_free(r->want[i]);
	dl_free(r->want);
	for (int i = 0; r->bloom && i < r->schema.nleaves; i++) pq_bloom_free(&r->bloom[i].f);
	dl_free(r->bloom);
}

/* ---- the page index ---- */

/* Reads the row group's ColumnIndex and OffsetIndex bytes in one request
 * (writers put them together after the row groups). */
static int load_rg_index(pq_reader *r, int rg)
{
	if (!r->rgi) {
		r->rgi = dl_calloc(r->md.nrow_groups ? r->md.nrow_groups : 1, sizeof *r->rgi);
		if (!r->rgi) return DL_ENOMEM;
	}
	pq_rg_index *x = &r->rgi[rg];
	if (x->loaded) return 0;
	int nl = r->schema.nleaves;
	x->state = dl_calloc((size_t)nl, 1);
	x->oi = dl_calloc((size_t)nl, sizeof *x->oi);
	x->ci = dl_calloc((size_t)nl, sizeof *x->ci);
	if (!x->state || !x->oi || !x->ci) return DL_ENOMEM;
	int64_t lo = INT64_MAX, hi = 0;
	const pq_row_group *g = &r->md.row_groups[rg];
	for (int i = 0; i < nl; i++) {
		const pq_column_chunk *c = &g->columns[i];
		int64_t o[2] = {c->has_offset_index_offset && c->has_offset_index_length ? c->offset_index_offset : -1,
		                c->has_column_index_offset && c->has_column_index_length ? c->column_index_offset : -1};
		int32_t l[2] = {c->offset_index_length, c->column_index_length};
		for (int k = 0; k < 2; k++) {
			if (o[k] < 0 || l[k] <= 0 || o[k] > r->src.size - l[k]) continue;
			if (o[k] < lo) lo = o[k];
			if (o[k] + l[k] > hi) hi = o[k] + l[k];
		}
	}
	x->loaded = true;
	if (lo >= hi) return 0;
	int rc = pq_source_read(&r->src, lo, (size_t)(hi - lo), &x->bytes, &x->owned);
	if (rc < 0) return dl_error_prefix("%s: row group %d, page index", r->src.name, rg);
	x->off = lo;
	x->len = (size_t)(hi - lo);
	return 0;
}

/* The decoded indexes of a leaf (oi->n == 0 when absent, ci->n < 0 when
 * absent). A page index that does not decode is not used, as parquet-mr
 * ignores one it cannot read: the pages are then all read. */
static int leaf_index(pq_reader *r, int rg, int leaf, const pq_offset_index **oi, const pq_column_index **ci)
{
	DL_TRY(load_rg_index(r, rg));
	pq_rg_index *x = &r->rgi[rg];
	if (x->state[leaf] == 0) {
		x->state[leaf] = -1;
		x->ci[leaf].n = -1;
		const pq_column_chunk *c = &r->md.row_groups[rg].columns[leaf];
		char what[256];
		snprintf(what, sizeof what, "%s: row group %d, column '%s', page index", r->src.name, rg,
		         r->schema.leaves[leaf].path);
		int64_t oo = c->offset_index_offset, co = c->column_index_offset;
		if (x->bytes && c->has_offset_index_offset && c->has_offset_index_length && oo >= x->off &&
		    c->offset_index_length > 0 && oo + c->offset_index_length <= x->off + (int64_t)x->len) {
			int rc = pq_offset_index_decode(&x->oi[leaf], &r->arena, x->bytes + (oo - x->off),
			                                (size_t)c->offset_index_length, what);
			const pq_offset_index *o = &x->oi[leaf];
			if (rc == DL_ENOMEM) return rc;
			if (rc == 0 && (o->n == 0 || o->pages[o->n - 1].first_row >= r->md.row_groups[rg].num_rows))
				rc = DL_ECORRUPT;
			if (rc < 0) {
				dl_error_clear();
				memset(&x->oi[leaf], 0, sizeof x->oi[leaf]);
			} else {
				x->state[leaf] = 1;
			}
		}
		if (x->state[leaf] == 1 && c->has_column_index_offset && c->has_column_index_length && co >= x->off &&
		    c->column_index_length > 0 && co + c->column_index_length <= x->off + (int64_t)x->len) {
			int rc = pq_column_index_decode(&x->ci[leaf], &r->arena, x->bytes + (co - x->off),
			                                (size_t)c->column_index_length, what);
			if (rc == DL_ENOMEM) return rc;
			if (rc < 0 || x->ci[leaf].n != x->oi[leaf].n) {
				dl_error_clear();
				memset(&x->ci[leaf], 0, sizeof x->ci[leaf]);
				x->ci[leaf].n = -1;
			}
		}
	}
	*oi = &x->oi[leaf];
	*ci = &x->ci[leaf];
	return 0;
}

static int check_rg_leaf(const pq_reader *r, int rg, int leaf)
{
	if (rg < 0 || (uint32_t)rg >= r->md.nrow_groups || leaf < 0 || leaf >= r->schema.nleaves)
		return dl_error_set(DL_EINVALID, "%s: no row group %d / leaf column %d", r->src.name, rg, leaf);
	return 0;
}

int pq_reader_num_pages(pq_reader *r, int rg, int leaf, int *n)
{
	*n = 0;
	DL_TRY(check_rg_leaf(r, rg, leaf));
	const pq_offset_index *oi;
	const pq_column_index *ci;
	DL_TRY(leaf_index(r, rg, leaf, &oi, &ci));
	*n = oi->n;
	return 0;
}

int pq_reader_page_rows(pq_reader *r, int rg, int leaf, int page, int64_t *first, int64_t *rows)
{
	DL_TRY(check_rg_leaf(r, rg, leaf));
	const pq_offset_index *oi;
	const pq_column_index *ci;
	DL_TRY(leaf_index(r, rg, leaf, &oi, &ci));
	if (page < 0 || page >= oi->n) return dl_error_set(DL_EINVALID, "%s: no page %d", r->src.name, page);
	*first = oi->pages[page].first_row;
	int64_t end = page + 1 < oi->n ? oi->pages[page + 1].first_row : r->md.row_groups[rg].num_rows;
	*rows = end - *first;
	return 0;
}

int pq_reader_page_stats(pq_reader *r, int rg, int leaf, int page, pq_column_stats *out)
{
	memset(out, 0, sizeof *out);
	int64_t first, rows;
	DL_TRY(pq_reader_page_rows(r, rg, leaf, page, &first, &rows));
	const pq_offset_index *oi;
	const pq_column_index *ci;
	DL_TRY(leaf_index(r, rg, leaf, &oi, &ci));
	const pq_rleaf *lf = &r->schema.leaves[leaf];
	out->type = lf->type;
	out->num_values = rows;
	if (ci->n < 0) return 0;
	if (ci->null_pages[page]) {
		out->has_null_count = true;
		out->null_count = rows;
		return 0;
	}
	/* The page's entry as a chunk's statistics, decoded the same way. */
	pq_column_chunk cc;
	memset(&cc, 0, sizeof cc);
	cc.has_meta_data = true;
	cc.meta_data.num_values = rows;
	cc.meta_data.has_statistics = true;
	pq_statistics *st = &cc.meta_data.statistics;
	st->has_min_value = st->has_max_value = true;
	st->min_value = ci->min[page];
	st->max_value = ci->max[page];
	if (ci->has_null_counts) {
		st->has_null_count = true;
		st->null_count = ci->null_counts[page];
	}
	pq_column_order order = (uint32_t)leaf < r->md.ncolumn_orders ? r->md.column_orders[leaf] : PQ_ORDER_UNKNOWN;
	pq_stats_decode(lf, &cc, order, out);
	return 0;
}

int pq_reader_bloom_may_contain(pq_reader *r, int rg, int leaf, const pq_stat_value *v, bool *maybe)
{
	*maybe = true;
	DL_TRY(check_rg_leaf(r, rg, leaf));
	uint8_t tmp[16];
	const uint8_t *p;
	size_t n;
	if (!pq_bloom_plain_value(&r->schema.leaves[leaf], v, tmp, &p, &n)) return 0;
	if (!r->bloom && !(r->bloom = dl_calloc((size_t)r->schema.nleaves, sizeof *r->bloom))) return DL_ENOMEM;
	pq_bloom_slot *b = &r->bloom[leaf];
	if (b->rg_plus1 != rg + 1) {
		pq_bloom_free(&b->f);
		char what[256];
		snprintf(what, sizeof what, "%s: row group %d, column '%s', Bloom filter", r->src.name, rg,
		         r->schema.leaves[leaf].path);
		int rc = pq_bloom_read(&r->src, &r->md.row_groups[rg].columns[leaf], what, &b->f);
		b->rg_plus1 = rc < 0 ? 0 : rg + 1;
		if (rc < 0) return rc;
		b->usable = rc == 0;
	}
	if (b->usable) *maybe = pq_bloom_check(&b->f, pq_bloom_hash(p, n));
	return 0;
}

int pq_reader_set_row_ranges(pq_reader *r, int rg, const pq_row_range *ranges, int n)
{
	DL_TRY(pq_reader_not_started(r));
	if (rg < 0 || (uint32_t)rg >= r->md.nrow_groups)
		return dl_error_set(DL_EINVALID, "%s: row group %d does not exist", r->src.name, rg);
	int64_t rows = r->md.row_groups[rg].num_rows;
	for (int i = 0; i < n; i++)
		if (ranges[i].first < (i ? ranges[i - 1].end : 0) || ranges[i].end <= ranges[i].first || ranges[i].end > rows)
			return dl_error_set(DL_EINVALID, "%s: row group %d: row ranges must be sorted, disjoint and inside its %lld rows",
			                    r->src.name, rg, (long long)rows);
	/* Every leaf read needs an offset index to find its pages. */
	for (int i = 0; i < r->nneeded; i++) {
		int np;
		DL_TRY(pq_reader_num_pages(r, rg, r->needed[i], &np));
		if (np == 0) return 1;
	}
	if (!r->ranges) {
		r->ranges = dl_calloc(r->md.nrow_groups, sizeof *r->ranges);
		r->nranges = dl_calloc(r->md.nrow_groups, sizeof *r->nranges);
		if (!r->ranges || !r->nranges) return DL_ENOMEM;
	}
	pq_row_range *copy = dl_malloc((size_t)(n > 0 ? n : 1) * sizeof *copy);
	if (!copy) return DL_ENOMEM;
	int k = 0;
	for (int i = 0; i < n; i++) {
		if (k && copy[k - 1].end == ranges[i].first) copy[k - 1].end = ranges[i].end; /* adjacent: one range */
		else copy[k++] = ranges[i];
	}
	dl_free(r->ranges[rg]);
	r->ranges[rg] = copy;
	r->nranges[rg] = k;
	return 0;
}

void pq_reader_skip_stats(const pq_reader *r, pq_skip_stats *out)
{
	*out = r->skip;
}

/* The pages of each needed leaf that the row group's ranges touch. */
int pq_reader_select_pages(pq_reader *r, int rg)
{
	for (int i = 0; r->want && i < r->schema.nleaves; i++) {
		dl_free(r->want[i]);
		r->want[i] = NULL;
	}
	if (!r->ranges || !r->ranges[rg]) return 0;
	if (!r->want) {
		r->want = dl_calloc((size_t)r->schema.nleaves, sizeof *r->want);
		if (!r->want) return DL_ENOMEM;
	}
	const pq_row_range *rr = r->ranges[rg];
	int nr = r->nranges[rg];
	for (int t = 0; t < r->nneeded; t++) {
		int leaf = r->needed[t];
		const pq_offset_index *oi;
		const pq_column_index *ci;
		DL_TRY(leaf_index(r, rg, leaf, &oi, &ci));
		if (oi->n == 0) return dl_error_set(DL_EINVALID, "%s: row group %d, column '%s' has no offset index", r->src.name,
		                                    rg, r->schema.leaves[leaf].path);
		bool *w = dl_calloc((size_t)oi->n, 1);
		if (!w) return DL_ENOMEM;
		r->want[leaf] = w;
		int k = 0;
		for (int j = 0; j < oi->n; j++) {
			int64_t a = oi->pages[j].first_row, b = j + 1 < oi->n ? oi->pages[j + 1].first_row : r->rg_rows;
			while (k < nr && rr[k].end <= a) k++;
			w[j] = k < nr && rr[k].first < b;
			r->skip.pages_total++;
			if (!w[j]) {
				r->skip.pages_skipped++;
				r->skip.bytes_skipped += oi->pages[j].size;
			}
		}
	}
	return 0;
}
