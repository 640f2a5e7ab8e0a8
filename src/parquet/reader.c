/* The Parquet reader: footer, schema, projection, row-group selection and
 * batch iteration over the leaf column readers. */
#include "parquet/reader.h"
#include <stdio.h>
#include <strings.h>
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

#define PQ_FOOTER_GUESS (64 * 1024)

struct pq_reader {
	pq_source src;
	dl_arena arena;
	pq_file_metadata md;
	pq_schema schema;
	pq_out plan;
	pq_pool *pool;
	int64_t *rg_first; /* nrow_groups + 1 prefix sums */
	int *rgs;
	int nrgs, rg_pos;
	int64_t batch;
	bool started;
	dl_pool *tpool;    /* parallel column decoding, or NULL */
	int *needed;       /* indexes of the leaves to read */
	int nneeded;
	/* the open row group */
	bool rg_open;
	int cur_rg;
	int64_t rg_done, rg_rows;
	pq_leaf_reader *readers;
	bool *need, *values;
	bool *raw_nanos;   /* leaves under a shredded variant's typed_value */
	/* page index: per row group, the index bytes and the decoded indexes
	 * of each leaf (loaded on first use) */
	struct pq_rg_index *rgi;
	/* row ranges per row group (pq_reader_set_row_ranges): NULL = all rows */
	pq_row_range **ranges;
	int *nranges;
	int cur_range;
	bool **want;       /* per leaf: the pages of the open row group to read */
	pq_skip_stats skip;
	/* per leaf: the Bloom filter of the last row group probed (IN lists
	 * probe one filter many times) */
	struct pq_bloom_slot *bloom;
};

typedef struct pq_bloom_slot {
	int rg_plus1;         /* 0: none loaded */
	bool usable;
	pq_bloom f;
} pq_bloom_slot;

typedef struct pq_rg_index {
	bool loaded;
	const uint8_t *bytes; /* the row group's index bytes, from file offset `off` */
	uint8_t *owned;
	int64_t off;
	size_t len;
	signed char *state;   /* per leaf: 0 not decoded, 1 decoded, -1 absent or bad */
	pq_offset_index *oi;  /* per leaf */
	pq_column_index *ci;  /* per leaf (n < 0: absent) */
} pq_rg_index;

static int read_footer(pq_reader *r)
{
	pq_source *s = &r->src;
	if (s->size < 12) return dl_error_set(DL_ECORRUPT, "%s: %lld bytes is too small for a Parquet file", s->name, (long long)s->size);
	size_t tail = s->size < PQ_FOOTER_GUESS ? (size_t)s->size : PQ_FOOTER_GUESS;
	const uint8_t *p;
	uint8_t *owned;
	DL_TRY(pq_source_read(s, s->size - (int64_t)tail, tail, &p, &owned));
	const uint8_t *end = p + tail;
	int rc = 0;
	if (!memcmp(end - 4, "PARE", 4))
		rc = dl_error_set(DL_EUNSUPPORTED, "%s: the file has an encrypted footer; encrypted Parquet is not supported", s->name);
	else if (memcmp(end - 4, "PAR1", 4))
		rc = dl_error_set(DL_ECORRUPT, "%s: not a Parquet file (no PAR1 magic at the end)", s->name);
	uint32_t flen = 0;
	if (rc == 0) {
		memcpy(&flen, end - 8, 4);
		if ((int64_t)flen > s->size - 12)
			rc = dl_error_set(DL_ECORRUPT, "%s: footer length %u exceeds the file size %lld", s->name, flen, (long long)s->size);
	}
	if (rc == 0 && (size_t)flen + 8 > tail) {
		dl_free(owned);
		DL_TRY(pq_source_read(s, s->size - 8 - flen, (size_t)flen + 8, &p, &owned));
		end = p + flen + 8;
	}
	if (rc == 0) rc = pq_file_metadata_decode(&r->md, &r->arena, end - 8 - flen, flen, s->name);
	dl_free(owned);
	return rc;
}

static int check_row_groups(pq_reader *r)
{
	r->rg_first = dl_calloc((size_t)r->md.nrow_groups + 1, sizeof *r->rg_first);
	if (!r->rg_first) return DL_ENOMEM;
	for (uint32_t i = 0; i < r->md.nrow_groups; i++) {
		const pq_row_group *g = &r->md.row_groups[i];
		if (g->ncolumns != (uint32_t)r->schema.nleaves)
			return dl_error_set(DL_ECORRUPT, "%s: row group %u has %u columns but the schema has %d", r->src.name, i,
			                    g->ncolumns, r->schema.nleaves);
		if (g->num_rows < 0 || g->num_rows > INT64_MAX / 2 - r->rg_first[i])
			return dl_error_set(DL_ECORRUPT, "%s: row group %u has an invalid row count %lld", r->src.name, i,
			                    (long long)g->num_rows);
		/* Every row has at least one value (maybe a null) in every leaf, so
		 * a row count above a chunk's value count is a lie; checking it keeps
		 * projections of absent columns from producing rows that never were. */
		for (uint32_t c = 0; c < g->ncolumns; c++)
			if (g->columns[c].has_meta_data && g->num_rows > g->columns[c].meta_data.num_values)
				return dl_error_set(DL_ECORRUPT, "%s: row group %u has %lld rows but column %u holds %lld values",
				                    r->src.name, i, (long long)g->num_rows, c,
				                    (long long)g->columns[c].meta_data.num_values);
		r->rg_first[i + 1] = r->rg_first[i] + g->num_rows;
	}
	return 0;
}

static int set_plan(pq_reader *r, pq_out *plan)
{
	pq_plan_free(&r->plan);
	r->plan = *plan;
	memset(r->need, 0, (size_t)r->schema.nleaves);
	memset(r->values, 0, (size_t)r->schema.nleaves);
	pq_plan_leaves(&r->plan, r->need, r->values);
	memset(r->raw_nanos, 0, (size_t)r->schema.nleaves);
	pq_variant_typed_leaves(&r->plan, r->raw_nanos, false);
	r->nneeded = 0;
	for (int i = 0; i < r->schema.nleaves; i++)
		if (r->need[i]) r->needed[r->nneeded++] = i;
	return 0;
}

static int finish_open(pq_reader *r)
{
	DL_TRY(read_footer(r));
	DL_TRY(pq_schema_build(&r->schema, &r->md, r->src.name));
	DL_TRY(check_row_groups(r));
	int nl = r->schema.nleaves;
	r->readers = dl_calloc((size_t)nl, sizeof *r->readers);
	r->need = dl_calloc((size_t)nl, 1);
	r->values = dl_calloc((size_t)nl, 1);
	r->raw_nanos = dl_calloc((size_t)nl, 1);
	r->needed = dl_calloc((size_t)nl, sizeof *r->needed);
	r->pool = pq_pool_new();
	if (!r->readers || !r->need || !r->values || !r->raw_nanos || !r->needed || !r->pool) return DL_ENOMEM;
	pq_out all;
	DL_TRY(pq_plan_copy(&all, &r->schema.root));
	DL_TRY(set_plan(r, &all));
	r->batch = PQ_DEFAULT_BATCH_ROWS;
	return pq_reader_set_row_groups(r, NULL, 0);
}

static int open_common(pq_reader **out, pq_reader *r, int rc)
{
	if (rc == 0) rc = finish_open(r);
	if (rc < 0) {
		pq_reader_free(r);
		*out = NULL;
		return rc;
	}
	*out = r;
	return 0;
}

int pq_reader_open_store(pq_reader **out, dl_store *store, const char *path, int64_t size)
{
	*out = NULL;
	pq_reader *r = dl_calloc(1, sizeof *r);
	if (!r) return DL_ENOMEM;
	return open_common(out, r, pq_source_open_store(&r->src, store, path, size));
}

int pq_reader_open_memory(pq_reader **out, const uint8_t *data, size_t len, const char *name)
{
	*out = NULL;
	pq_reader *r = dl_calloc(1, sizeof *r);
	if (!r) return DL_ENOMEM;
	return open_common(out, r, pq_source_open_memory(&r->src, data, len, name));
}

static void close_row_group(pq_reader *r)
{
	if (!r->rg_open) return;
	for (int i = 0; i < r->schema.nleaves; i++)
		if (r->need[i]) pq_leaf_reader_close(&r->readers[i]);
	pq_source_prefetch(&r->src, NULL, 0); /* drops the fetched chunks */
	r->rg_open = false;
}

static void free_page_state(pq_reader *r)
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

void pq_reader_free(pq_reader *r)
{
	if (!r) return;
	close_row_group(r);
	free_page_state(r);
	pq_plan_free(&r->plan);
	pq_pool_unref(r->pool);
	pq_schema_free(&r->schema);
	dl_free(r->readers);
	dl_free(r->need);
	dl_free(r->values);
	dl_free(r->raw_nanos);
	dl_free(r->needed);
	dl_free(r->rg_first);
	dl_free(r->rgs);
	dl_arena_free(&r->arena);
	pq_source_close(&r->src);
	dl_free(r);
}

const pq_file_metadata *pq_reader_metadata(const pq_reader *r) { return &r->md; }
const dl_type *pq_reader_schema(const pq_reader *r) { return r->schema.type; }
const dl_type *pq_reader_output_schema(const pq_reader *r) { return r->plan.type; }
int64_t pq_reader_num_rows(const pq_reader *r) { return r->rg_first[r->md.nrow_groups]; }
int pq_reader_num_row_groups(const pq_reader *r) { return (int)r->md.nrow_groups; }

int64_t pq_reader_row_group_first_row(const pq_reader *r, int rg)
{
	return rg >= 0 && (uint32_t)rg < r->md.nrow_groups ? r->rg_first[rg] : -1;
}

int64_t pq_reader_row_group_rows(const pq_reader *r, int rg)
{
	return rg >= 0 && (uint32_t)rg < r->md.nrow_groups ? r->md.row_groups[rg].num_rows : -1;
}

static int not_started(pq_reader *r)
{
	if (r->started) return dl_error_set(DL_EINVALID, "%s: projection and row groups must be set before reading", r->src.name);
	return 0;
}

int pq_reader_set_projection(pq_reader *r, const dl_type *requested, bool by_field_id)
{
	DL_TRY(not_started(r));
	pq_out plan;
	DL_TRY(pq_plan_project(&plan, &r->schema, requested, by_field_id, r->src.name));
	return set_plan(r, &plan);
}

int pq_reader_select_columns(pq_reader *r, const char *const *names, int n)
{
	DL_TRY(not_started(r));
	const dl_type *ft = r->schema.type;
	dl_field *f = dl_calloc(n > 0 ? (size_t)n : 1, sizeof *f);
	if (!f) return DL_ENOMEM;
	for (int i = 0; i < n; i++) {
		int idx = dl_type_field_index(ft, names[i]);
		if (idx < 0) {
			dl_free(f);
			return dl_error_set(DL_ENOTFOUND, "%s: no column '%s' in the file", r->src.name, names[i]);
		}
		f[i] = ft->children[idx];
	}
	dl_type *req = dl_type_struct(f, n);
	dl_free(f);
	if (!req) return DL_ENOMEM;
	int rc = pq_reader_set_projection(r, req, false);
	dl_type_unref(req);
	return rc;
}

/* Length of a path's first segment. */
static size_t seg_len(const char *p)
{
	const char *dot = strchr(p, '.');
	return dot ? (size_t)(dot - p) : strlen(p);
}

static bool same_seg(const char *a, const char *b)
{
	size_t la = seg_len(a), lb = seg_len(b);
	return la == lb && !strncasecmp(a, b, la);
}

/* The part of struct `ft` selected by paths[0..n) (each relative to ft). */
static int select_struct(const pq_reader *r, const dl_type *ft, const char **paths, int n, dl_type **out)
{
	dl_field *fields = dl_calloc((size_t)n, sizeof *fields);
	dl_type **owned = dl_calloc((size_t)n, sizeof *owned);
	const char **rest = dl_calloc((size_t)n, sizeof *rest);
	int nf = 0, rc = (fields && owned && rest) ? 0 : DL_ENOMEM;
	for (int i = 0; rc == 0 && i < n; i++) {
		bool seen = false;
		for (int j = 0; j < i && !seen; j++) seen = same_seg(paths[j], paths[i]);
		if (seen) continue;
		char name[256];
		snprintf(name, sizeof name, "%.*s", (int)seg_len(paths[i]), paths[i]);
		int idx = dl_type_field_index(ft, name);
		if (idx < 0) {
			rc = dl_error_set(DL_ENOTFOUND, "%s: no column '%s' in the file", r->src.name, name);
			break;
		}
		const dl_field *f = &ft->children[idx];
		/* The whole field when a path ends here or the field is no struct. */
		int nr = 0;
		bool whole = f->type->id != DL_TYPE_STRUCT;
		for (int j = i; j < n; j++) {
			if (!same_seg(paths[j], paths[i])) continue;
			const char *dot = strchr(paths[j], '.');
			if (!dot) whole = true;
			else rest[nr++] = dot + 1;
		}
		dl_type *t = f->type;
		if (!whole) {
			rc = select_struct(r, f->type, rest, nr, &owned[nf]);
			t = owned[nf];
		}
		fields[nf++] = (dl_field){f->name, t, f->nullable, f->metadata};
	}
	if (rc == 0) {
		*out = dl_type_struct(fields, nf);
		if (!*out) rc = DL_ENOMEM;
	}
	for (int i = 0; owned && i < nf; i++)
		if (owned[i]) dl_type_unref(owned[i]);
	dl_free(fields);
	dl_free(owned);
	dl_free(rest);
	return rc;
}

int pq_reader_select_paths(pq_reader *r, const char *const *paths, int n)
{
	DL_TRY(not_started(r));
	dl_type *req;
	DL_TRY(select_struct(r, r->schema.type, (const char **)paths, n, &req));
	int rc = pq_reader_set_projection(r, req, false);
	dl_type_unref(req);
	return rc;
}

int pq_reader_set_row_groups(pq_reader *r, const int *rgs, int n)
{
	DL_TRY(not_started(r));
	int total = (int)r->md.nrow_groups;
	if (!rgs) n = total;
	int *sel = dl_malloc((size_t)(n > 0 ? n : 1) * sizeof *sel);
	if (!sel) return DL_ENOMEM;
	for (int i = 0; i < n; i++) {
		sel[i] = rgs ? rgs[i] : i;
		if (sel[i] < 0 || sel[i] >= total) {
			dl_free(sel);
			return dl_error_set(DL_EINVALID, "%s: row group %d does not exist (the file has %d)", r->src.name,
			                    rgs[i], total);
		}
	}
	dl_free(r->rgs);
	r->rgs = sel;
	r->nrgs = n;
	r->rg_pos = 0;
	return 0;
}

int pq_reader_rewind(pq_reader *r)
{
	close_row_group(r);
	r->started = false;
	r->rg_pos = 0;
	return 0;
}

int pq_reader_set_batch_size(pq_reader *r, int64_t rows)
{
	if (rows < 0) return dl_error_set(DL_EINVALID, "negative batch size");
	r->batch = rows ? rows : PQ_DEFAULT_BATCH_ROWS;
	return 0;
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
	DL_TRY(not_started(r));
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
static int select_pages(pq_reader *r, int rg)
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

static int open_row_group(pq_reader *r, int rg)
{
	r->cur_rg = rg;
	r->rg_done = 0;
	r->cur_range = 0;
	r->rg_rows = r->md.row_groups[rg].num_rows;
	DL_TRY(select_pages(r, rg));
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
			close_row_group(r);
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

typedef struct read_ctx {
	pq_reader *r;
	int64_t rows;
	int64_t seek; /* row of the row group to start at, or -1: where the last batch ended */
} read_ctx;

static int read_leaves(void *arg, size_t begin, size_t end)
{
	read_ctx *c = arg;
	for (size_t i = begin; i < end; i++) {
		pq_leaf_reader *lr = &c->r->readers[c->r->needed[i]];
		if (c->seek >= 0) DL_TRY(pq_leaf_seek(lr, c->seek));
		DL_TRY(pq_leaf_read_rows(lr, c->rows));
	}
	return 0;
}

static int make_batch(pq_reader *r, int64_t k, int64_t seek, dl_batch **out)
{
	const pq_out *plan = &r->plan;
	/* Leaf columns are independent until assembly: decode them in
	 * parallel when a pool was given. */
	read_ctx ctx = {r, k, seek};
	if (r->tpool && r->nneeded > 1) DL_TRY(dl_parallel_for(r->tpool, (size_t)r->nneeded, 1, read_leaves, &ctx));
	else DL_TRY(read_leaves(&ctx, 0, (size_t)r->nneeded));
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
				close_row_group(r);
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
			close_row_group(r);
			continue;
		}
		int64_t k = end - r->rg_done;
		if (k > r->batch) k = r->batch;
		int rc = make_batch(r, k, seek, out);
		if (rc < 0) {
			close_row_group(r);
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

int pq_reader_num_leaves(const pq_reader *r) { return r->schema.nleaves; }

const char *pq_reader_leaf_path(const pq_reader *r, int leaf)
{
	return leaf >= 0 && leaf < r->schema.nleaves ? r->schema.leaves[leaf].path : NULL;
}

int pq_reader_find_leaf(const pq_reader *r, const char *path)
{
	for (int i = 0; i < r->schema.nleaves; i++)
		if (!strcasecmp(r->schema.leaves[i].path, path)) return i;
	return -1;
}

int pq_reader_column_stats(const pq_reader *r, int rg, int leaf, pq_column_stats *out)
{
	if (rg < 0 || (uint32_t)rg >= r->md.nrow_groups || leaf < 0 || leaf >= r->schema.nleaves)
		return dl_error_set(DL_EINVALID, "%s: no row group %d / leaf column %d", r->src.name, rg, leaf);
	pq_column_order order = (uint32_t)leaf < r->md.ncolumn_orders ? r->md.column_orders[leaf] : PQ_ORDER_UNKNOWN;
	pq_stats_decode(&r->schema.leaves[leaf], &r->md.row_groups[rg].columns[leaf], order, out);
	return 0;
}
