/* Opening a Parquet file: the footer read and checked, the schema, the
 * projection (by names, paths or a requested type), the row groups to read
 * and the accessors of the footer (row counts, leaves, statistics). */
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

#define PQ_FOOTER_GUESS (64 * 1024)

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
	dl_free(r->late_col);
	r->late_col = NULL;
	memcpy(r->early, r->needed, (size_t)r->nneeded * sizeof *r->early);
	r->nearly = r->nneeded;
	r->nlate = 0;
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
	r->early = dl_calloc((size_t)nl + 1, sizeof *r->early);
	r->late = dl_calloc((size_t)nl + 1, sizeof *r->late);
	r->pool = pq_pool_new();
	if (!r->readers || !r->need || !r->values || !r->raw_nanos || !r->needed || !r->early || !r->late || !r->pool)
		return DL_ENOMEM;
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

void pq_reader_free(pq_reader *r)
{
	if (!r) return;
	pq_reader_close_row_group(r);
	pq_reader_free_page_state(r);
	pq_plan_free(&r->plan);
	pq_pool_unref(r->pool);
	pq_schema_free(&r->schema);
	dl_free(r->readers);
	dl_free(r->need);
	dl_free(r->values);
	dl_free(r->raw_nanos);
	dl_free(r->needed);
	dl_free(r->early);
	dl_free(r->late);
	dl_free(r->late_col);
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

int pq_reader_set_projection(pq_reader *r, const dl_type *requested, bool by_field_id)
{
	DL_TRY(pq_reader_not_started(r));
	pq_out plan;
	DL_TRY(pq_plan_project(&plan, &r->schema, requested, by_field_id, r->src.name));
	return set_plan(r, &plan);
}

int pq_reader_select_columns(pq_reader *r, const char *const *names, int n)
{
	DL_TRY(pq_reader_not_started(r));
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
	DL_TRY(pq_reader_not_started(r));
	dl_type *req;
	DL_TRY(select_struct(r, r->schema.type, (const char **)paths, n, &req));
	int rc = pq_reader_set_projection(r, req, false);
	dl_type_unref(req);
	return rc;
}

int pq_reader_set_row_groups(pq_reader *r, const int *rgs, int n)
{
	DL_TRY(pq_reader_not_started(r));
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
	pq_reader_close_row_group(r);
	r->started = false;
	r->rg_pos = 0;
	return 0;
}

int pq_reader_set_output_pool(pq_reader *r, pq_pool *pool)
{
	DL_TRY(pq_reader_not_started(r));
	pq_pool_ref(pool);
	pq_pool_unref(r->pool);
	r->pool = pool;
	return 0;
}

int pq_reader_set_batch_size(pq_reader *r, int64_t rows)
{
	if (rows < 0) return dl_error_set(DL_EINVALID, "negative batch size");
	r->batch = rows ? rows : PQ_DEFAULT_BATCH_ROWS;
	return 0;
}
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

