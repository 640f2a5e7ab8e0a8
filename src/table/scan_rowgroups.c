/* Row-group and page pruning: the scan's filter against each row group's
 * footer statistics (Parquet ColumnChunk min/max/null counts), after file
 * pruning by the log's statistics, then against the Bloom filters and the
 * page index of the row groups kept (below). Only leaves whose file type is the column's
 * logical type are used (a widened column's old file statistics would be
 * compared in the wrong type). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "log/schema.h"
#include "parquet/reader.h"
#include "table/scan.h"
#include "util/error.h"
#include "util/mem.h"

typedef struct rg_provider {
	const dl_scan *s;
	pq_reader *r;
	int rg;
	dl_arena arena;
} rg_provider;

/* The dotted physical path of a logical column path; false when a piece
 * is not a struct field of the schema. */
static bool physical_path(rg_provider *p, const char *const *path, int depth, const dl_type **leaf,
                          dl_buf *out)
{
	const dl_type *t = dl_snapshot_schema(p->s->snap);
	for (int i = 0; i < depth; i++) {
		if (!t || t->id != DL_TYPE_STRUCT) return false;
		int k = dl_type_field_index(t, path[i]);
		if (k < 0) return false;
		const char *name = t->children[k].name;
		if (p->s->mode != DL_CM_NONE && dl_field_physical_name(&t->children[k], p->s->mode, &p->arena, &name) < 0) {
			dl_error_clear();
			return false;
		}
		if (i && dl_buf_putc(out, '.') < 0) return false;
		if (dl_buf_puts(out, name) < 0) return false;
		t = t->children[k].type;
	}
	*leaf = t;
	return true;
}

/* The leaf of a column path of the filter (-1: none usable) and its
 * logical type; partition columns have none (file pruning did them). */
static int find_leaf(rg_provider *p, const char *const *path, int depth, const dl_type **t)
{
	if (depth == 1) {
		for (int i = 0; i < p->s->npart; i++)
			if (strcasecmp(p->s->part_names[i], path[0]) == 0) return -1;
	}
	dl_buf b = DL_BUF_INIT;
	*t = NULL;
	bool ok = physical_path(p, path, depth, t, &b);
	int leaf = ok && b.data ? pq_reader_find_leaf(p->r, b.data) : -1;
	dl_buf_free(&b);
	if (leaf < 0 || !dl_type_is_primitive(*t)) return -1;
	return leaf;
}

/* Footer or page statistics as the pruning's column statistics; `rows`
 * is the row count they describe. */
static void fill_stats(const pq_column_stats *cs, const dl_type *t, dl_col_stats *out)
{
	if (!cs->type || !dl_type_equals(cs->type, t)) return;
	if (cs->has_null_count) {
		out->has_null_count = true;
		out->null_count = cs->null_count;
		if (cs->null_count == cs->num_values && cs->num_values > 0) out->all_null = true;
	}
	if (!cs->has_min_max) return;
	dl_scalar *v[2] = {&out->min, &out->max};
	const pq_stat_value *sv[2] = {&cs->min, &cs->max};
	for (int k = 0; k < 2; k++) {
		dl_scalar *x = v[k];
		x->type = t->id;
		x->precision = t->precision;
		x->scale = t->scale;
		switch (t->id) {
		case DL_TYPE_BOOLEAN: x->v.b = sv[k]->b; break;
		case DL_TYPE_FLOAT:
		case DL_TYPE_DOUBLE: x->v.f64 = sv[k]->d; break;
		case DL_TYPE_DECIMAL: x->v.dec = sv[k]->dec; break;
		case DL_TYPE_STRING:
		case DL_TYPE_BINARY:
			x->v.str.ptr = (const char *)sv[k]->s;
			x->v.str.len = sv[k]->len;
			break;
		default: x->v.i64 = sv[k]->i; break;
		}
	}
	out->has_min = out->has_max = true;
	/* writers may truncate long byte-array bounds: treat max as a prefix */
	out->max_is_prefix = t->id == DL_TYPE_STRING || t->id == DL_TYPE_BINARY;
}

static int rg_column(void *payload, const char *const *path, int depth, dl_col_stats *out)
{
	rg_provider *p = payload;
	memset(out, 0, sizeof *out);
	const dl_type *t;
	int leaf = find_leaf(p, path, depth, &t);
	if (leaf < 0) return 0;
	pq_column_stats cs;
	if (pq_reader_column_stats(p->r, p->rg, leaf, &cs) < 0) {
		dl_error_clear();
		return 0;
	}
	fill_stats(&cs, t, out);
	return 0;
}

/* ---- Bloom filters ----
 *
 * After the footer statistics kept a row group: `col = v` and `col IN
 * (...)` ask the chunk's Bloom filter, for a file column of exactly the
 * column's type (prune.c only asks for uncast columns). */
static int rg_contains(void *payload, const char *const *path, int depth, const dl_scalar *v, bool *out)
{
	rg_provider *p = payload;
	*out = true;
	const dl_type *t;
	int leaf = find_leaf(p, path, depth, &t);
	pq_column_stats cs;
	if (leaf < 0 || pq_reader_column_stats(p->r, p->rg, leaf, &cs) < 0 || !cs.type || !dl_type_equals(cs.type, t) ||
	    v->type != t->id) {
		dl_error_clear();
		return 0;
	}
	pq_stat_value sv;
	memset(&sv, 0, sizeof sv);
	switch (t->id) {
	case DL_TYPE_BOOLEAN: return 0;
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE: sv.d = v->v.f64; break;
	case DL_TYPE_DECIMAL: sv.dec = v->v.dec; break;
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY:
		sv.s = (const uint8_t *)v->v.str.ptr;
		sv.len = (uint32_t)v->v.str.len;
		if (v->v.str.len > UINT32_MAX) return 0;
		break;
	default: sv.i = v->v.i64; break;
	}
	return pq_reader_bloom_may_contain(p->r, p->rg, leaf, &sv, out);
}

static bool has_bloom_filters(pq_reader *r, int rg)
{
	const pq_row_group *g = &pq_reader_metadata(r)->row_groups[rg];
	for (uint32_t i = 0; i < g->ncolumns; i++)
		if (g->columns[i].has_meta_data && g->columns[i].meta_data.has_bloom_filter_offset) return true;
	return false;
}

/* ---- pages (the ColumnIndex) ----
 *
 * The row group is cut at every page boundary of the filter's columns;
 * each segment lies inside one page of each of them, so the filter is
 * judged on those pages' statistics (a page's null count only tells a
 * segment "no nulls" or "all nulls"). Segments that may match become the
 * row ranges the reader produces; pages of every read column outside them
 * are skipped (their OffsetIndex aligns them by first_row_index). */

#define MAX_FILTER_LEAVES 32

typedef struct page_provider {
	rg_provider *rp;
	int nleaves;
	int leaves[MAX_FILTER_LEAVES];
	const dl_type *types[MAX_FILTER_LEAVES];
	int npages[MAX_FILTER_LEAVES];
	int cur[MAX_FILTER_LEAVES];   /* page of each leaf holding the segment */
	int64_t seg_first, seg_rows;
	bool collecting;              /* first pass: which leaves the filter reads */
} page_provider;

static int page_column(void *payload, const char *const *path, int depth, dl_col_stats *out)
{
	page_provider *pp = payload;
	memset(out, 0, sizeof *out);
	const dl_type *t;
	int leaf = find_leaf(pp->rp, path, depth, &t);
	if (leaf < 0) return 0;
	int k = 0;
	while (k < pp->nleaves && pp->leaves[k] != leaf) k++;
	if (pp->collecting) {
		if (k == pp->nleaves && k < MAX_FILTER_LEAVES) {
			pp->leaves[k] = leaf;
			pp->types[k] = t;
			pp->nleaves++;
		}
		return 0;
	}
	if (k == pp->nleaves || pp->npages[k] <= 0) return 0;
	pq_column_stats cs;
	if (pq_reader_page_stats(pp->rp->r, pp->rp->rg, leaf, pp->cur[k], &cs) < 0) {
		dl_error_clear();
		return 0;
	}
	bool all_null = cs.has_null_count && cs.null_count == cs.num_values && cs.num_values > 0;
	bool no_nulls = cs.has_null_count && cs.null_count == 0;
	fill_stats(&cs, t, out);
	out->has_null_count = all_null || no_nulls;
	out->null_count = all_null ? pp->seg_rows : 0;
	out->all_null = all_null;
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Row ranges of row group rg that may match (*n = -1: all of them, or
 * nothing to judge by); ranges is malloc'd. */
static int page_ranges(const dl_scan *s, rg_provider *rp, int rg, pq_row_range **out, int *n)
{
	*out = NULL;
	*n = -1;
	page_provider pp;
	memset(&pp, 0, sizeof pp);
	pp.rp = rp;
	pp.collecting = true;
	rp->rg = rg;
	int64_t rows = pq_reader_row_group_rows(rp->r, rg);
	dl_stats_provider sp = {rows, page_column, &pp, NULL, NULL};
	bool may;
	DL_TRY(dl_expr_may_match(&may, s->prune, &sp));
	pp.collecting = false;
	/* boundaries: every page start of the filter's leaves with a column index */
	size_t nb = 0, cap = 0;
	int64_t *bounds = NULL;
	int rc = 0;
	for (int k = 0; k < pp.nleaves && rc == 0; k++) {
		int np = 0;
		pq_column_stats probe;
		if (pq_reader_num_pages(rp->r, rg, pp.leaves[k], &np) < 0 || np <= 1 ||
		    pq_reader_page_stats(rp->r, rg, pp.leaves[k], 0, &probe) < 0) {
			dl_error_clear();
			continue;
		}
		/* no ColumnIndex: the pages say nothing */
		if (!probe.has_min_max && !probe.has_null_count) continue;
		pp.npages[k] = np;
		for (int j = 0; j < np && rc == 0; j++) {
			int64_t first, pr;
			rc = pq_reader_page_rows(rp->r, rg, pp.leaves[k], j, &first, &pr);
			if (rc == 0 && nb == cap) {
				cap = cap ? cap * 2 : 64;
				int64_t *g = dl_reallocarray(bounds, cap, sizeof *g);
				if (!g) rc = DL_ENOMEM;
				else bounds = g;
			}
			if (rc == 0) bounds[nb++] = first;
		}
	}
	if (rc < 0 || nb == 0) {
		dl_free(bounds);
		return rc;
	}
	qsort(bounds, nb, sizeof *bounds, cmp_i64);
	size_t u = 0;
	for (size_t i = 0; i < nb; i++)
		if (!u || bounds[u - 1] != bounds[i]) bounds[u++] = bounds[i];
	pq_row_range *ranges = dl_malloc(u * sizeof *ranges);
	if (!ranges) {
		dl_free(bounds);
		return DL_ENOMEM;
	}
	int nr = 0;
	for (size_t i = 0; i < u && rc == 0; i++) {
		int64_t a = bounds[i], b = i + 1 < u ? bounds[i + 1] : rows;
		pp.seg_first = a;
		pp.seg_rows = b - a;
		sp.num_records = b - a;
		for (int k = 0; k < pp.nleaves; k++) {
			if (pp.npages[k] <= 0) continue;
			int64_t first, pr;
			while (pp.cur[k] + 1 < pp.npages[k] &&
			       pq_reader_page_rows(rp->r, rg, pp.leaves[k], pp.cur[k] + 1, &first, &pr) == 0 && first <= a)
				pp.cur[k]++;
		}
		rc = dl_expr_may_match(&may, s->prune, &sp);
		if (rc == 0 && may) {
			if (nr && ranges[nr - 1].end == a) ranges[nr - 1].end = b;
			else ranges[nr++] = (pq_row_range){a, b};
		}
	}
	dl_free(bounds);
	if (rc < 0 || (nr == 1 && ranges[0].first == 0 && ranges[0].end == rows)) {
		dl_free(ranges);
		return rc;
	}
	*out = ranges;
	*n = nr;
	return 0;
}

void dl_scan_rg_plan_free(dl_scan_rg_plan *p)
{
	for (int i = 0; p->ranges && i < p->nrgs; i++) dl_free(p->ranges[i]);
	dl_free(p->ranges);
	dl_free(p->nranges);
	dl_free(p->rgs);
	memset(p, 0, sizeof *p);
}

int dl_scan_rg_plan_all(dl_scan_rg_plan *p, const pq_reader *r)
{
	memset(p, 0, sizeof *p);
	int n = pq_reader_num_row_groups(r);
	p->rgs = dl_malloc((size_t)(n > 0 ? n : 1) * sizeof *p->rgs);
	if (!p->rgs) return DL_ENOMEM;
	for (int i = 0; i < n; i++) p->rgs[i] = i;
	p->nrgs = n;
	return 0;
}

int dl_scan_rg_plan_apply(const dl_scan_rg_plan *p, pq_reader *r, int lo, int hi)
{
	for (int i = lo; p->ranges && i < hi; i++) {
		if (!p->ranges[i]) continue;
		int rc = pq_reader_set_row_ranges(r, p->rgs[i], p->ranges[i], p->nranges[i]);
		if (rc < 0) return rc; /* 1: a read column has no offset index, so every page is read */
	}
	return pq_reader_set_row_groups(r, p->rgs + lo, hi - lo);
}

int dl_scan_plan_row_groups(dl_scan *s, pq_reader *r, dl_scan_rg_plan *out)
{
	DL_TRY(dl_scan_rg_plan_all(out, r));
	int n = out->nrgs;
	if (n <= 0 || !s->prune) return 0;
	int *keep = out->rgs;
	out->ranges = dl_calloc((size_t)n, sizeof *out->ranges);
	out->nranges = dl_calloc((size_t)n, sizeof *out->nranges);
	if (!out->ranges || !out->nranges) {
		dl_scan_rg_plan_free(out);
		return DL_ENOMEM;
	}
	rg_provider p = {s, r, 0, DL_ARENA_INIT};
	int nk = 0, rc = 0;
	int64_t nbloom = 0;
	for (int rg = 0; rg < n && rc == 0; rg++) {
		p.rg = rg;
		dl_stats_provider sp = {pq_reader_row_group_rows(r, rg), rg_column, &p, NULL, NULL};
		bool may = true;
		rc = dl_expr_may_match(&may, s->prune, &sp);
		/* the filters are read only for row groups the statistics keep,
		 * and counted apart */
		if (rc == 0 && may && has_bloom_filters(r, rg)) {
			sp.may_contain = rg_contains;
			rc = dl_expr_may_match(&may, s->prune, &sp);
			if (rc == 0 && !may) nbloom++;
		}
		if (may) keep[nk++] = rg;
		dl_arena_reset(&p.arena);
	}
	/* inside the row groups kept: the pages */
	int nk2 = 0;
	for (int i = 0; i < nk && rc == 0; i++) {
		pq_row_range *ranges;
		int nr;
		rc = page_ranges(s, &p, keep[i], &ranges, &nr);
		dl_arena_reset(&p.arena);
		if (rc < 0) break;
		if (nr == 0) {
			dl_free(ranges);
			continue; /* no page can match */
		}
		/* ranges are applied per reader (dl_scan_rg_plan_apply): the
		 * units of a file read its row groups with readers of their own */
		out->ranges[nk2] = nr > 0 ? ranges : NULL;
		out->nranges[nk2] = nr > 0 ? nr : 0;
		if (nr < 0) dl_free(ranges);
		keep[nk2++] = keep[i];
	}
	if (rc == 0 && nk2 + nbloom < n)
		__atomic_add_fetch(&s->metrics.row_groups_pruned_stats, (int64_t)n - nk2 - nbloom, __ATOMIC_RELAXED);
	if (rc == 0 && nbloom) __atomic_add_fetch(&s->metrics.row_groups_pruned_bloom, nbloom, __ATOMIC_RELAXED);
	out->nrgs = nk2;
	dl_arena_free(&p.arena);
	if (rc < 0) {
		/* the ranges past nk2 were never set */
		dl_scan_rg_plan_free(out);
		return rc;
	}
	return nk2 == 0 ? 1 : 0; /* 1: no row group can match */
}
