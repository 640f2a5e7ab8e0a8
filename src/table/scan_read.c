/* Reading one data file of a scan: Parquet decoding with the physical
 * projection, deletion vectors by file row index, partition values as
 * columns, row tracking columns, physical -> logical names, the residual
 * filter, then the output columns. */
#include <inttypes.h>
#include <string.h>
#include "columnar/builder.h"
#include "log/partition_values.h"
#include "log/row_set.h"
#include "parquet/reader.h"
#include "table/scan.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/pool.h"

int dl_partition_value_array(dl_array **out, dl_type *t, const char *value)
{
	*out = NULL;
	dl_scalar sc;
	DL_TRY(dl_partition_value_parse(&sc, t, value));
	dl_builder *b;
	DL_TRY(dl_builder_new(&b, t));
	int rc;
	if (sc.is_null) {
		rc = dl_builder_append_null(b);
	} else {
		switch (t->id) {
		case DL_TYPE_BOOLEAN: rc = dl_builder_append_bool(b, sc.v.b); break;
		case DL_TYPE_FLOAT:
		case DL_TYPE_DOUBLE: rc = dl_builder_append_double(b, sc.v.f64); break;
		case DL_TYPE_DECIMAL: rc = dl_builder_append_decimal(b, sc.v.dec); break;
		case DL_TYPE_STRING:
		case DL_TYPE_BINARY: rc = dl_builder_append_bytes(b, sc.v.str.ptr, sc.v.str.len); break;
		case DL_TYPE_NULL: rc = dl_builder_append_null(b); break;
		default:
			if (dl_type_is_integral(t) || t->id == DL_TYPE_DATE || t->id == DL_TYPE_TIMESTAMP ||
			    t->id == DL_TYPE_TIMESTAMP_NTZ) rc = dl_builder_append_int(b, sc.v.i64);
			else rc = dl_error_set(DL_EUNSUPPORTED, "partition columns of type %s are not supported",
			                       dl_type_id_name(t->id));
		}
	}
	if (rc == 0) rc = dl_builder_finish(out, b);
	dl_builder_free(b);
	return rc;
}

static int retype_map(dl_array *a, dl_type *t)
{
	if (a->nchildren < 1) return 0;
	dl_field f[2] = {t->children[0], t->children[1]};
	f[0].nullable = false;
	dl_type *entries = dl_type_struct(f, 2);
	if (!entries) return DL_ENOMEM;
	int rc = dl_array_retype(a->children[0], entries);
	dl_type_unref(entries);
	return rc;
}

int dl_array_retype(dl_array *a, dl_type *t)
{
	if (a->type != t) {
		dl_type *old = a->type;
		a->type = dl_type_ref(t);
		dl_type_unref(old);
	}
	switch (t->id) {
	case DL_TYPE_STRUCT:
	case DL_TYPE_VARIANT:
		for (int i = 0; i < a->nchildren && i < t->nchildren; i++)
			DL_TRY(dl_array_retype(a->children[i], t->children[i].type));
		return 0;
	case DL_TYPE_ARRAY:
		return a->nchildren ? dl_array_retype(a->children[0], t->children[0].type) : 0;
	case DL_TYPE_MAP: return retype_map(a, t);
	default: return 0;
	}
}

/* ---- partition columns shared by a file's batches ----
 *
 * A partition value is the same on every row of a file, so each file
 * builds one array of the value repeated (as many rows as its largest
 * batch) and every batch's column borrows a prefix of its buffers, released
 * through owner_release when the last batch is freed (possibly on the
 * consumer's thread, hence the atomic count). */

typedef struct shared_col {
	int refs;
	dl_array *a;
} shared_col;

static void shared_col_release(void *p)
{
	shared_col *s = p;
	if (__atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		dl_array_free(s->a);
		dl_free(s);
	}
}

static int shared_col_new(shared_col **out, const dl_array *one, int64_t rows)
{
	shared_col *s = dl_calloc(1, sizeof *s);
	if (!s) return DL_ENOMEM;
	s->refs = 1;
	s->a = dl_array_repeat(one, 0, rows > 0 ? rows : 1);
	if (!s->a) {
		dl_free(s);
		return DL_ENOMEM;
	}
	dl_array_null_count(s->a);
	*out = s;
	return 0;
}

/* The first n rows of the shared array, borrowing its buffers. */
static dl_array *shared_col_view(shared_col *s, int64_t n)
{
	dl_array *a = dl_calloc(1, sizeof *a);
	if (!a) return NULL;
	const dl_array *src = s->a;
	a->type = dl_type_ref(src->type);
	a->length = n;
	a->null_count = src->null_count ? n : 0;
	a->validity = src->validity;
	a->values = src->values;
	a->offsets = src->offsets;
	a->data = src->data;
	a->data_len = src->offsets ? src->offsets[n] : 0;
	a->owner_release = shared_col_release;
	a->owner = s;
	__atomic_add_fetch(&s->refs, 1, __ATOMIC_ACQ_REL);
	return a;
}

/* ---- per-file state ----
 *
 * What every part of a file shares (struct dl_scan_file_parts: the
 * partition values, the deletion vector, the row-group plan), loaded once
 * by the reader that opens the file first, and what each reader of a part
 * has of its own (file_read). Parts are read on several threads at once,
 * so the shared state is read-only once the file's first reader split it. */

struct dl_scan_file_parts {
	int refs;
	dl_scan *s;
	const dl_add *add;
	dl_array **part;      /* per read column: one-row partition value, or NULL */
	shared_col **shared;  /* per read column: the value repeated for whole batches */
	/* the DV's rows (or, keep_listed, the only rows kept): a row set, about
	 * a bit a row at most where a sorted list took 8 bytes (issue 11) */
	dl_rowset listed;
	bool keep_listed;     /* only the listed rows survive (change data feed) */
	dl_scan_rg_plan plan; /* the row groups to read */
	int *part_lo;         /* part k: plan.rgs[part_lo[k] .. part_lo[k + 1]) */
	int nparts;
};

typedef struct file_read {
	dl_scan *s;
	dl_scan_file_parts *p;
	pq_reader *r;
	dl_selection sel;
	dl_selection sel2;
	dl_rowset_cursor listed_c; /* into p->listed: batches come in row order */
	bool late;            /* the reader has late columns (process_late) */
	dl_scan_emit_rows_fn emit_rows; /* dl_scan_read_add_rows: emit with row indexes */
	uint64_t *rows;       /* ... the file row index of each emitted row */
	size_t rows_cap;
} file_read;

static dl_scan_file_parts *parts_new(dl_scan *s, const dl_add *add)
{
	dl_scan_file_parts *p = dl_calloc(1, sizeof *p);
	if (!p) return NULL;
	p->refs = 1;
	p->s = s;
	p->add = add;
	return p;
}

void dl_scan_file_parts_ref(dl_scan_file_parts *p, int n)
{
	__atomic_add_fetch(&p->refs, n, __ATOMIC_ACQ_REL);
}

void dl_scan_file_parts_unref(dl_scan_file_parts *p)
{
	if (!p || __atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) != 0) return;
	int nread = p->s->read_schema->nchildren;
	if (p->part)
		for (int i = 0; i < nread; i++) dl_array_free(p->part[i]);
	if (p->shared)
		for (int i = 0; i < nread; i++)
			if (p->shared[i]) shared_col_release(p->shared[i]);
	dl_free(p->part);
	dl_free(p->shared);
	dl_rowset_free(&p->listed);
	dl_scan_rg_plan_free(&p->plan);
	dl_free(p->part_lo);
	dl_free(p);
}

static void file_read_free(file_read *f)
{
	pq_reader_free(f->r);
	dl_selection_free(&f->sel);
	dl_selection_free(&f->sel2);
	dl_free(f->rows);
}

static int load_partitions(dl_scan_file_parts *p, int64_t file_rows)
{
	int nread = p->s->read_schema->nchildren;
	p->part = dl_calloc((size_t)nread + 1, sizeof *p->part);
	p->shared = dl_calloc((size_t)nread + 1, sizeof *p->shared);
	if (!p->part || !p->shared) return DL_ENOMEM;
	/* rows of the largest batch of this file */
	int64_t rows = file_rows;
	if (rows > p->s->batch_rows) rows = p->s->batch_rows;
	for (int i = 0; i < nread; i++) {
		const dl_scan_col *c = &p->s->cols[i];
		if (c->kind != DL_SCOL_PARTITION) continue;
		bool found;
		const char *v = dl_str_map_get(&p->add->partition_values, c->part_key, &found);
		int rc = dl_partition_value_array(&p->part[i], (dl_type *)c->type, v);
		if (rc < 0) return dl_error_prefix("partition value of column '%s'", c->part_key);
		DL_TRY(shared_col_new(&p->shared[i], p->part[i], rows));
	}
	return 0;
}

static int load_dv(dl_scan_file_parts *p)
{
	if (!p->add->dv) return 0;
	dl_dv_rows rows;
	DL_TRY(dl_dv_load_from(&rows, p->s->dvs, p->add->dv));
	int rc = dl_rowset_from_dv(&p->listed, &rows);
	dl_dv_rows_free(&rows);
	return rc;
}

/* Rows of [first, first+n) that the deletion vector keeps (or, with
 * keep_listed, the listed rows); *any false when every row is kept (no
 * selection needed). */
static int dv_selection(file_read *f, int64_t first, int64_t n, bool *any)
{
	*any = false;
	const dl_scan_file_parts *p = f->p;
	if (!p->listed.count && !p->keep_listed) return 0;
	if (!p->keep_listed && dl_rowset_next(&f->listed_c, (uint64_t)first) >= (uint64_t)(first + n)) return 0;
	*any = true;
	DL_TRY(dl_selection_reserve(&f->sel, n));
	f->sel.count = (int64_t)dl_rowset_select(&f->listed_c, (uint64_t)first, (uint32_t)n, p->keep_listed,
	                                         f->sel.idx);
	return 0;
}

static int row_tracking_column(file_read *f, dl_array **out, const dl_scan_col *c, dl_batch *pb, int64_t first,
                               int64_t n)
{
	bool id = c->kind == DL_SCOL_ROW_ID;
	int mat = id ? f->s->mat_row_id : f->s->mat_row_cv;
	const dl_array *m = pb && mat >= 0 ? pb->cols[mat] : NULL;
	int64_t base = id ? f->p->add->base_row_id : f->p->add->default_row_commit_version;
	dl_array *a = dl_array_new((dl_type *)c->type, n);
	if (!a) return DL_ENOMEM;
	int64_t *v = a->values;
	for (int64_t j = 0; j < n; j++) {
		if (m && dl_array_is_valid(m, j)) {
			v[j] = ((const int64_t *)m->values)[j];
			continue;
		}
		if (base == DL_NONE) {
			dl_array_free(a);
			return dl_error_set(DL_ECORRUPT, "data file %s has no %s, so its %s values are unknown; the "
			                    "table's row tracking metadata is incomplete", f->p->add->path,
			                    id ? "baseRowId" : "defaultRowCommitVersion",
			                    id ? "row_id" : "row_commit_version");
		}
		v[j] = id ? base + first + j : base;
	}
	*out = a;
	return 0;
}

/* The read batch of n rows starting at file row `first` (pb holds the
 * decoded data columns, or NULL when none are read). Takes pb's arrays. */
static int build_read_batch(file_read *f, dl_batch **out, dl_batch *pb, int64_t first, int64_t n)
{
	dl_scan *s = f->s;
	dl_batch *b = dl_batch_new(s->read_schema, n);
	if (!b) return DL_ENOMEM;
	int rc = 0;
	for (int i = 0; i < s->read_schema->nchildren && rc == 0; i++) {
		const dl_scan_col *c = &s->cols[i];
		switch (c->kind) {
		case DL_SCOL_DATA:
			b->cols[i] = pb->cols[c->data_index];
			pb->cols[c->data_index] = NULL;
			/* NULL: a late column, decoded after the filter */
			if (s->mode != DL_CM_NONE && b->cols[i]) rc = dl_array_retype(b->cols[i], (dl_type *)c->type);
			break;
		case DL_SCOL_PARTITION:
			b->cols[i] = n <= f->p->shared[i]->a->length ? shared_col_view(f->p->shared[i], n)
			                                             : dl_array_repeat(f->p->part[i], 0, n);
			if (!b->cols[i]) rc = DL_ENOMEM;
			break;
		default: rc = row_tracking_column(f, &b->cols[i], c, pb, first, n); break;
		}
	}
	if (rc < 0) {
		dl_batch_free(b);
		return rc;
	}
	*out = b;
	return 0;
}

/* Hands the output batch o (n rows of the batch at file row `first`) to the
 * caller. Row j of o is row idx[j] (NULL: j) of the batch the filter saw,
 * which is row map[that] (NULL: the same) of the batch read; with
 * emit_rows the file row index of each is passed along. */
static int emit_batch(file_read *f, dl_batch *o, int64_t first, const uint32_t *idx, const uint32_t *map,
                      dl_scan_emit_fn emit, void *payload)
{
	if (!f->emit_rows) return emit(payload, o);
	size_t n = (size_t)o->num_rows;
	if (n + 1 > f->rows_cap) {
		uint64_t *p = dl_reallocarray(f->rows, n + 1, sizeof *p);
		if (!p) {
			dl_batch_free(o);
			return DL_ENOMEM;
		}
		f->rows = p;
		f->rows_cap = n + 1;
	}
	for (size_t j = 0; j < n; j++) {
		uint32_t r = idx ? idx[j] : (uint32_t)j;
		f->rows[j] = (uint64_t)first + (map ? map[r] : r);
	}
	return f->emit_rows(payload, o, f->rows);
}

/* The output columns of `b`, restricted to sel (NULL: all rows, moved). */
static int project_output(dl_scan *s, dl_batch **out, dl_batch *b, const dl_selection *sel)
{
	int64_t n = sel ? sel->count : b->num_rows;
	dl_batch *o = dl_batch_new(s->out_schema, n);
	if (!o) return DL_ENOMEM;
	for (int k = 0; k < s->nout; k++) {
		int r = s->out_cols[k];
		if (sel) {
			o->cols[k] = dl_array_take(b->cols[r], sel->idx, n);
		} else {
			o->cols[k] = b->cols[r];
			b->cols[r] = NULL;
		}
		if (!o->cols[k]) {
			dl_batch_free(o);
			return DL_ENOMEM;
		}
	}
	*out = o;
	return 0;
}

/* The rows sel[0..n) of b, whose late columns (NULL) are left NULL. */
static dl_batch *take_early(const dl_batch *b, const uint32_t *sel, int64_t n)
{
	dl_batch *o = dl_batch_new(b->schema, n);
	for (int i = 0; o && i < b->ncols; i++)
		if (b->cols[i] && !(o->cols[i] = dl_array_take(b->cols[i], sel, n))) {
			dl_batch_free(o);
			o = NULL;
		}
	return o;
}

/* Late materialization: the filter runs over the columns it reads (the
 * others are NULL in b), then the other data columns are decoded for the
 * rows it keeps only (pq_reader_read_late). */
static int process_late(file_read *f, dl_batch *b, int64_t first, int64_t n, dl_scan_emit_fn emit, void *payload)
{
	dl_scan *s = f->s;
	bool dv_any;
	DL_TRY(dv_selection(f, first, n, &dv_any));
	/* the filter sees only the rows the deletion vector keeps (an ANSI
	 * error on a deleted row must not fail the scan) */
	dl_batch *fb = b;
	if (dv_any && !(fb = take_early(b, f->sel.idx, f->sel.count))) return DL_ENOMEM;
	static const dl_eval_ctx ctx = DL_EVAL_CTX_INIT;
	int rc = dl_expr_filter(&f->sel2, s->residual, fb, &ctx);
	if (fb != b) dl_batch_free(fb);
	if (rc < 0) return rc;
	/* rows of the batch: kept by the filter among those the DV keeps */
	if (dv_any)
		for (int64_t j = 0; j < f->sel2.count; j++) f->sel2.idx[j] = f->sel.idx[f->sel2.idx[j]];
	int64_t m = f->sel2.count;
	if (m == 0) return pq_reader_read_late(f->r, NULL, 0, NULL);
	int np = s->phys_request->nchildren;
	dl_array **late = dl_calloc((size_t)np + 1, sizeof *late);
	if (!late) return DL_ENOMEM;
	rc = pq_reader_read_late(f->r, f->sel2.idx, m, late);
	dl_batch *o = rc == 0 ? dl_batch_new(s->out_schema, m) : NULL;
	if (rc == 0 && !o) rc = DL_ENOMEM;
	for (int k = 0; rc == 0 && k < s->nout; k++) {
		int r = s->out_cols[k];
		const dl_scan_col *c = &s->cols[r];
		if (!b->cols[r] && c->kind == DL_SCOL_DATA) {
			o->cols[k] = late[c->data_index];
			late[c->data_index] = NULL;
			if (o->cols[k] && s->mode != DL_CM_NONE) rc = dl_array_retype(o->cols[k], (dl_type *)c->type);
		} else {
			o->cols[k] = b->cols[r] ? dl_array_take(b->cols[r], f->sel2.idx, m) : NULL;
		}
		if (rc == 0 && !o->cols[k]) rc = dl_error_set(DL_ENOMEM, "out of memory");
	}
	for (int i = 0; i < np; i++) dl_array_free(late[i]);
	dl_free(late);
	if (rc < 0) {
		dl_batch_free(o);
		return rc;
	}
	return emit_batch(f, o, first, f->sel2.idx, NULL, emit, payload);
}

static int process_batch(file_read *f, dl_batch *pb, int64_t first, int64_t n, dl_scan_emit_fn emit,
                         void *payload)
{
	dl_scan *s = f->s;
	dl_batch *b = NULL;
	DL_TRY(build_read_batch(f, &b, pb, first, n));
	if (f->late) {
		int rc = process_late(f, b, first, n, emit, payload);
		dl_batch_free(b);
		return rc;
	}
	bool dv_any;
	const uint32_t *map = NULL; /* rows of b -> rows read, once the DV's are taken */
	int rc = dv_selection(f, first, n, &dv_any);
	if (rc == 0 && dv_any && s->residual) {
		dl_batch *t = dl_batch_take(b, f->sel.idx, f->sel.count);
		dl_batch_free(b);
		b = t;
		if (!b) rc = DL_ENOMEM;
		dv_any = false;
		map = f->sel.idx;
	}
	const dl_selection *sel = dv_any ? &f->sel : NULL;
	if (rc == 0 && s->residual) {
		static const dl_eval_ctx ctx = DL_EVAL_CTX_INIT;
		rc = dl_expr_filter(&f->sel2, s->residual, b, &ctx);
		if (rc == 0 && f->sel2.count < b->num_rows) sel = &f->sel2;
	}
	dl_batch *o = NULL;
	if (rc == 0 && (sel ? sel->count : b->num_rows) > 0) rc = project_output(s, &o, b, sel);
	dl_batch_free(b);
	if (rc < 0 || !o) return rc;
	return emit_batch(f, o, first, sel ? sel->idx : NULL, map, emit, payload);
}

/* Files without data columns to read (only partition values or row
 * tracking): rows come from the footer's row counts. */
static int read_counts_only(file_read *f, dl_scan_emit_fn emit, void *payload)
{
	int nrg = pq_reader_num_row_groups(f->r);
	for (int rg = 0; rg < nrg; rg++) {
		int64_t first = pq_reader_row_group_first_row(f->r, rg);
		int64_t rows = pq_reader_row_group_rows(f->r, rg);
		for (int64_t off = 0; off < rows; off += f->s->batch_rows) {
			int64_t n = rows - off < f->s->batch_rows ? rows - off : f->s->batch_rows;
			DL_TRY(process_batch(f, NULL, first + off, n, emit, payload));
		}
	}
	return 0;
}

static int open_reader(dl_scan *s, const dl_add *add, pq_reader **r)
{
	dl_store *store;
	const char *rel;
	DL_TRY(dl_scan_resolve_path(s, add->path, &store, &rel));
	int rc = pq_reader_open_store(r, store, rel, add->size > 0 ? add->size : -1);
	if (rc == DL_ENOTFOUND && add->log_version >= 0)
		return dl_error_set(DL_ENOTFOUND, "data file %s is missing (version %" PRId64
		                    " added it); it may have been deleted or vacuumed", add->path, add->log_version);
	if (rc == DL_ENOTFOUND)
		return dl_error_set(DL_ENOTFOUND, "data file %s is missing (the checkpoint of version %" PRId64
		                    " lists it); it may have been deleted or vacuumed", add->path, -add->log_version - 2);
	return rc;
}

/* Projection, batch size, buffers and late columns, before the row groups. */
static int setup_reader(file_read *f)
{
	dl_scan *s = f->s;
	DL_TRY(pq_reader_set_projection(f->r, s->phys_request, s->by_field_id));
	DL_TRY(pq_reader_set_batch_size(f->r, s->batch_rows));
	DL_TRY(pq_reader_set_output_pool(f->r, s->buffers));
	if (s->late_data) {
		DL_TRY(pq_reader_set_late_columns(f->r, s->late_data));
		for (int i = 0; i < s->phys_request->nchildren; i++) f->late |= pq_reader_column_is_late(f->r, i);
	}
	return 0;
}

static int read_rows(file_read *f, dl_scan_emit_fn emit, void *payload)
{
	dl_scan *s = f->s;
	int rc = 0;
	while (rc == 0) {
		dl_batch *pb = NULL;
		int64_t first = 0;
		rc = pq_reader_next(f->r, &pb, &first);
		if (rc < 0 || !pb) break;
		rc = process_batch(f, pb, first, pb->num_rows, emit, payload);
		dl_batch_free(pb);
	}
	pq_skip_stats st;
	pq_reader_skip_stats(f->r, &st);
	if (st.pages_skipped) {
		__atomic_add_fetch(&s->metrics.pages_skipped, st.pages_skipped, __ATOMIC_RELAXED);
		__atomic_add_fetch(&s->metrics.page_bytes_skipped, st.bytes_skipped, __ATOMIC_RELAXED);
	}
	return rc;
}

/* Rows of the file the DV keeps: its rows less the DV's (an inline DV may
 * list rows past the end, which delete nothing). */
static int64_t live_rows(const dl_scan_file_parts *p, const pq_reader *r)
{
	int64_t total = pq_reader_num_rows(r);
	return total - (int64_t)dl_rowset_rank(&p->listed, (uint64_t)total);
}

/* Cuts the planned row groups into parts of at least 4 batches' rows
 * each (a part costs a reader of its own: the footer read again, the page
 * index of its row groups), never inside a row group. */
static int cut_parts(dl_scan_file_parts *p, const pq_reader *r)
{
	const dl_scan_rg_plan *pl = &p->plan;
	/* nrgs + 1 bounds, and one more for a file of no row groups: {0, 0} */
	p->part_lo = dl_malloc(((size_t)pl->nrgs + 2) * sizeof *p->part_lo);
	if (!p->part_lo) return DL_ENOMEM;
	int64_t min_rows = 4 * p->s->batch_rows, acc = 0;
	int k = 0;
	p->part_lo[k++] = 0;
	for (int i = 0; i < pl->nrgs; i++) {
		if (pl->ranges && pl->ranges[i])
			for (int j = 0; j < pl->nranges[i]; j++) acc += pl->ranges[i][j].end - pl->ranges[i][j].first;
		else acc += pq_reader_row_group_rows(r, pl->rgs[i]);
		if (acc >= min_rows && i + 1 < pl->nrgs) {
			p->part_lo[k++] = i + 1;
			acc = 0;
		}
	}
	p->part_lo[k] = pl->nrgs;
	p->nparts = k;
	return 0;
}

static int scan_threads(const dl_scan *s)
{
	dl_pool *pool;
	if (s->threads > 0) return s->threads;
	return dl_pool_shared(&pool) == 0 ? dl_pool_size(pool) : 1;
}

static int read_data(file_read *f, dl_scan_split_fn split, dl_scan_par_fn par, dl_scan_emit_fn emit, void *payload)
{
	dl_scan *s = f->s;
	dl_scan_file_parts *p = f->p;
	DL_TRY(setup_reader(f));
	if (s->prune_data_cols) {
		int rc = dl_scan_plan_row_groups(s, f->r, &p->plan);
		if (rc < 0) return rc;
		if (rc == 1) return 0; /* no row group can match */
	} else {
		DL_TRY(dl_scan_rg_plan_all(&p->plan, f->r));
	}
	DL_TRY(cut_parts(p, f->r));
	int hi = p->plan.nrgs;
	bool was_split = false;
	if (split) {
		if (split(payload, p, p->nparts) == 0) {
			hi = p->part_lo[1];
			was_split = p->nparts > 1;
		} else {
			dl_error_clear(); /* read every part here instead */
		}
	}
	DL_TRY(dl_scan_rg_plan_apply(&p->plan, f->r, 0, hi));
	/* The leaf columns of each batch decode through the caller's par (a
	 * scan stream's waiting workers help), or, fewer files than threads
	 * and the file not cut into parts (one row group, say), in parallel on
	 * the pool, so the other threads are not idle while it is read. */
	dl_pool *pool;
	int threads = scan_threads(s);
	if (par) DL_TRY(pq_reader_set_parallel(f->r, par, payload));
	else if (!was_split && s->nfiles < (size_t)threads && dl_pool_shared(&pool) == 0)
		DL_TRY(pq_reader_set_pool(f->r, pool));
	return read_rows(f, emit, payload);
}

/* Reads an add action; with split, offers its parts beyond the first to
 * the caller (dl_scan_read_file_parts). */
static int read_add(dl_scan *s, const dl_add *add, const uint64_t *only_rows, size_t nonly, bool use_only,
                    dl_scan_split_fn split, dl_scan_par_fn par, dl_scan_emit_fn emit, dl_scan_emit_rows_fn emit_rows,
                    int64_t *live, void *payload)
{
	if (use_only && nonly == 0) return 0;
	dl_scan_file_parts *p = parts_new(s, add);
	if (!p) return DL_ENOMEM;
	file_read f;
	memset(&f, 0, sizeof f);
	f.s = s;
	f.p = p;
	f.emit_rows = emit_rows;
	dl_rowset_cursor_init(&f.listed_c, &p->listed);
	int rc = 0;
	if (use_only) {
		p->keep_listed = true;
		rc = dl_rowset_push(&p->listed, only_rows, nonly, add->path);
	}
	if (rc == 0) rc = open_reader(s, add, &f.r);
	if (rc == 0) rc = load_partitions(p, pq_reader_num_rows(f.r));
	if (rc == 0 && !use_only) rc = load_dv(p);
	/* A DV may mark rows past the file's end: Spark's own Base85 decoding of
	 * an overflowing last group of an inline DV gives such rows
	 * (kernel-data/cdf-table-with-dv, written by Databricks), and Spark
	 * reads them as deleting nothing, so for inline DVs they are not an
	 * error. A DV file's bitmap has no such excuse: a row past the end is
	 * a corrupt or misattached DV, and deleting "nothing" for it would make
	 * the row count (numRecords - cardinality) disagree with the rows read
	 * (issue 17 item 8). */
	if (rc == 0 && !use_only && p->listed.count && add->dv->storage_type != 'i' &&
	    p->listed.last >= (uint64_t)pq_reader_num_rows(f.r))
		rc = dl_error_set(DL_ECORRUPT, "the deletion vector of data file %s (%c%s) deletes row %llu, "
		                  "but the file has %lld rows", add->path, add->dv->storage_type,
		                  add->dv->path_or_inline, (unsigned long long)p->listed.last,
		                  (long long)pq_reader_num_rows(f.r));
	if (rc == 0 && live) *live = live_rows(p, f.r);
	if (rc == 0)
		rc = s->phys_request->nchildren ? read_data(&f, split, par, emit, payload) : read_counts_only(&f, emit, payload);
	file_read_free(&f);
	dl_scan_file_parts_unref(p);
	if (rc < 0 && rc != DL_ECANCELLED && rc != DL_ENOTFOUND) dl_error_prefix("reading data file %s", add->path);
	return rc;
}

int dl_scan_read_add(dl_scan *s, const dl_add *add, const uint64_t *only_rows, size_t nonly, bool use_only,
                     dl_scan_emit_fn emit, void *payload)
{
	return read_add(s, add, only_rows, nonly, use_only, NULL, NULL, emit, NULL, NULL, payload);
}

int dl_scan_read_add_rows(dl_scan *s, const dl_add *add, int64_t *live, dl_scan_emit_rows_fn emit,
                          void *payload)
{
	*live = 0;
	return read_add(s, add, NULL, 0, false, NULL, NULL, NULL, emit, live, payload);
}

int dl_scan_read_add_parts(dl_scan *s, const dl_add *add, dl_scan_split_fn split, dl_scan_emit_fn emit,
                           void *payload)
{
	return read_add(s, add, NULL, 0, false, split, NULL, emit, NULL, NULL, payload);
}

int dl_scan_read_file(dl_scan *s, size_t i, dl_scan_emit_fn emit, void *payload)
{
	return dl_scan_read_file_parts(s, i, NULL, NULL, emit, payload);
}

int dl_scan_read_file_parts(dl_scan *s, size_t i, dl_scan_split_fn split, dl_scan_par_fn par, dl_scan_emit_fn emit,
                            void *payload)
{
	return read_add(s, dl_log_state_add(dl_snapshot_state(s->snap), s->files[i]), NULL, 0, false, split, par, emit,
	                NULL, NULL, payload);
}

int dl_scan_read_part(dl_scan_file_parts *p, int k, dl_scan_par_fn par, dl_scan_emit_fn emit, void *payload)
{
	dl_scan *s = p->s;
	if (k < 1 || k >= p->nparts) return dl_error_set(DL_EINVALID, "part %d of data file %s does not exist", k, p->add->path);
	file_read f;
	memset(&f, 0, sizeof f);
	f.s = s;
	f.p = p;
	dl_rowset_cursor_init(&f.listed_c, &p->listed);
	int rc = open_reader(s, p->add, &f.r);
	if (rc == 0) rc = setup_reader(&f);
	if (rc == 0 && par) rc = pq_reader_set_parallel(f.r, par, payload);
	if (rc == 0) rc = dl_scan_rg_plan_apply(&p->plan, f.r, p->part_lo[k], p->part_lo[k + 1]);
	if (rc == 0) rc = read_rows(&f, emit, payload);
	file_read_free(&f);
	if (rc < 0 && rc != DL_ECANCELLED && rc != DL_ENOTFOUND) dl_error_prefix("reading data file %s", p->add->path);
	return rc;
}
