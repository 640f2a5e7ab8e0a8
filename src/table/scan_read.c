/* Reading one data file of a scan: Parquet decoding with the physical
 * projection, deletion vectors by file row index, partition values as
 * columns, row tracking columns, physical -> logical names, the residual
 * filter, then the output columns. */
#include <inttypes.h>
#include <string.h>
#include "columnar/builder.h"
#include "log/partition_values.h"
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

/* ---- per-file state ---- */

typedef struct file_read {
	dl_scan *s;
	const dl_add *add;
	pq_reader *r;
	dl_array **part;      /* per read column: one-row partition value, or NULL */
	shared_col **shared;  /* per read column: the value repeated for whole batches */
	uint64_t *deleted;    /* sorted deleted row indexes (or kept ones: keep_listed) */
	size_t ndeleted;
	bool keep_listed;     /* only the listed rows survive (change data feed) */
	bool borrowed_rows;   /* `deleted` belongs to the caller */
	dl_selection sel;
	dl_selection sel2;
	bool late;            /* the reader has late columns (process_late) */
	dl_scan_emit_rows_fn emit_rows; /* dl_scan_read_add_rows: emit with row indexes */
	uint64_t *rows;       /* ... the file row index of each emitted row */
	size_t rows_cap;
} file_read;

static void file_read_free(file_read *f, int nread)
{
	pq_reader_free(f->r);
	if (f->part)
		for (int i = 0; i < nread; i++) dl_array_free(f->part[i]);
	if (f->shared)
		for (int i = 0; i < nread; i++)
			if (f->shared[i]) shared_col_release(f->shared[i]);
	dl_free(f->part);
	dl_free(f->shared);
	if (!f->borrowed_rows) dl_free(f->deleted);
	dl_selection_free(&f->sel);
	dl_selection_free(&f->sel2);
	dl_free(f->rows);
}

static int load_partitions(file_read *f, int nread)
{
	f->part = dl_calloc((size_t)nread + 1, sizeof *f->part);
	f->shared = dl_calloc((size_t)nread + 1, sizeof *f->shared);
	if (!f->part || !f->shared) return DL_ENOMEM;
	/* rows of the largest batch of this file */
	int64_t rows = pq_reader_num_rows(f->r);
	if (rows > f->s->batch_rows) rows = f->s->batch_rows;
	for (int i = 0; i < nread; i++) {
		const dl_scan_col *c = &f->s->cols[i];
		if (c->kind != DL_SCOL_PARTITION) continue;
		bool found;
		const char *v = dl_str_map_get(&f->add->partition_values, c->part_key, &found);
		int rc = dl_partition_value_array(&f->part[i], (dl_type *)c->type, v);
		if (rc < 0) return dl_error_prefix("partition value of column '%s'", c->part_key);
		DL_TRY(shared_col_new(&f->shared[i], f->part[i], rows));
	}
	return 0;
}

static int load_dv(file_read *f)
{
	if (!f->add->dv) return 0;
	dl_dv_rows rows;
	DL_TRY(dl_dv_load_from(&rows, f->s->dvs, f->add->dv));
	int rc = dl_dv_rows_to_array(&rows, &f->deleted, &f->ndeleted);
	dl_dv_rows_free(&rows);
	return rc;
}

/* Rows of [first, first+n) that the deletion vector keeps (or, with
 * keep_listed, the listed rows); *any false when every row is kept (no
 * selection needed). */
static int dv_selection(file_read *f, int64_t first, int64_t n, bool *any)
{
	*any = false;
	if (!f->ndeleted && !f->keep_listed) return 0;
	size_t lo = 0, hi = f->ndeleted;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->deleted[mid] < (uint64_t)first) lo = mid + 1;
		else hi = mid;
	}
	bool none_listed = lo == f->ndeleted || f->deleted[lo] >= (uint64_t)(first + n);
	if (none_listed && !f->keep_listed) return 0;
	*any = true;
	DL_TRY(dl_selection_reserve(&f->sel, n));
	f->sel.count = 0;
	size_t d = lo;
	for (int64_t j = 0; j < n; j++) {
		bool listed = d < f->ndeleted && f->deleted[d] == (uint64_t)(first + j);
		if (listed) d++;
		if (listed == f->keep_listed) f->sel.idx[f->sel.count++] = (uint32_t)j;
	}
	return 0;
}

static int row_tracking_column(file_read *f, dl_array **out, const dl_scan_col *c, dl_batch *pb, int64_t first,
                               int64_t n)
{
	bool id = c->kind == DL_SCOL_ROW_ID;
	int mat = id ? f->s->mat_row_id : f->s->mat_row_cv;
	const dl_array *m = pb && mat >= 0 ? pb->cols[mat] : NULL;
	int64_t base = id ? f->add->base_row_id : f->add->default_row_commit_version;
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
			                    "table's row tracking metadata is incomplete", f->add->path,
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
			b->cols[i] = n <= f->shared[i]->a->length ? shared_col_view(f->shared[i], n)
			                                          : dl_array_repeat(f->part[i], 0, n);
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

static int read_data(file_read *f, dl_scan_emit_fn emit, void *payload)
{
	dl_scan *s = f->s;
	DL_TRY(pq_reader_set_projection(f->r, s->phys_request, s->by_field_id));
	DL_TRY(pq_reader_set_batch_size(f->r, s->batch_rows));
	DL_TRY(pq_reader_set_output_pool(f->r, s->buffers));
	/* Fewer files than threads (one large file): the leaf columns of each
	 * batch decode in parallel on the pool, so the other threads are not
	 * idle while the file is read. */
	dl_pool *pool;
	if (dl_pool_shared(&pool) == 0 && s->nfiles < (size_t)(s->threads > 0 ? s->threads : dl_pool_size(pool)))
		DL_TRY(pq_reader_set_pool(f->r, pool));
	if (s->late_data) {
		DL_TRY(pq_reader_set_late_columns(f->r, s->late_data));
		for (int i = 0; i < s->phys_request->nchildren; i++) f->late |= pq_reader_column_is_late(f->r, i);
	}
	if (s->prune_data_cols) {
		int rc = dl_scan_prune_row_groups(s, f->r);
		if (rc < 0) return rc;
		if (rc == 1) return 0; /* no row group can match */
	}
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
static int64_t live_rows(const file_read *f)
{
	int64_t total = pq_reader_num_rows(f->r), gone = 0;
	for (size_t i = f->ndeleted; i-- > 0 && f->deleted[i] >= (uint64_t)total;) gone++;
	return total - ((int64_t)f->ndeleted - gone);
}

static int read_add(dl_scan *s, const dl_add *add, const uint64_t *only_rows, size_t nonly, bool use_only,
                    dl_scan_emit_fn emit, dl_scan_emit_rows_fn emit_rows, int64_t *live, void *payload)
{
	file_read f;
	memset(&f, 0, sizeof f);
	f.s = s;
	f.add = add;
	f.emit_rows = emit_rows;
	if (use_only) {
		f.keep_listed = true;
		f.borrowed_rows = true;
		f.deleted = (uint64_t *)only_rows;
		f.ndeleted = nonly;
		if (nonly == 0) return 0;
	}
	int nread = s->read_schema->nchildren;
	dl_store *store;
	const char *rel;
	int rc = dl_scan_resolve_path(s, f.add->path, &store, &rel);
	if (rc == 0) {
		rc = pq_reader_open_store(&f.r, store, rel, f.add->size > 0 ? f.add->size : -1);
		if (rc == DL_ENOTFOUND && f.add->log_version >= 0)
			rc = dl_error_set(DL_ENOTFOUND, "data file %s is missing (version %" PRId64
			                  " added it); it may have been deleted or vacuumed", f.add->path,
			                  f.add->log_version);
		else if (rc == DL_ENOTFOUND)
			rc = dl_error_set(DL_ENOTFOUND, "data file %s is missing (the checkpoint of version %" PRId64
			                  " lists it); it may have been deleted or vacuumed", f.add->path,
			                  -f.add->log_version - 2);
	}
	if (rc == 0) rc = load_partitions(&f, nread);
	if (rc == 0 && !use_only) rc = load_dv(&f);
	/* A DV may mark rows past the file's end: Spark's own Base85 decoding of
	 * an overflowing last group of an inline DV gives such rows
	 * (kernel-data/cdf-table-with-dv, written by Databricks), and Spark
	 * reads them as deleting nothing, so for inline DVs they are not an
	 * error. A DV file's bitmap has no such excuse: a row past the end is
	 * a corrupt or misattached DV, and deleting "nothing" for it would make
	 * the row count (numRecords - cardinality) disagree with the rows read
	 * (issue 17 item 8). */
	if (rc == 0 && !use_only && f.ndeleted && f.add->dv->storage_type != 'i' &&
	    f.deleted[f.ndeleted - 1] >= (uint64_t)pq_reader_num_rows(f.r))
		rc = dl_error_set(DL_ECORRUPT, "the deletion vector of data file %s (%c%s) deletes row %llu, "
		                  "but the file has %lld rows", f.add->path, f.add->dv->storage_type,
		                  f.add->dv->path_or_inline, (unsigned long long)f.deleted[f.ndeleted - 1],
		                  (long long)pq_reader_num_rows(f.r));
	if (rc == 0 && live) *live = live_rows(&f);
	if (rc == 0) rc = s->phys_request->nchildren ? read_data(&f, emit, payload) : read_counts_only(&f, emit, payload);
	file_read_free(&f, nread);
	if (rc < 0 && rc != DL_ECANCELLED && rc != DL_ENOTFOUND) dl_error_prefix("reading data file %s", f.add->path);
	return rc;
}

int dl_scan_read_add(dl_scan *s, const dl_add *add, const uint64_t *only_rows, size_t nonly, bool use_only,
                     dl_scan_emit_fn emit, void *payload)
{
	return read_add(s, add, only_rows, nonly, use_only, emit, NULL, NULL, payload);
}

int dl_scan_read_add_rows(dl_scan *s, const dl_add *add, int64_t *live, dl_scan_emit_rows_fn emit,
                          void *payload)
{
	*live = 0;
	return read_add(s, add, NULL, 0, false, NULL, emit, live, payload);
}

int dl_scan_read_file(dl_scan *s, size_t i, dl_scan_emit_fn emit, void *payload)
{
	return dl_scan_read_add(s, dl_log_state_add(dl_snapshot_state(s->snap), s->files[i]), NULL, 0, false, emit,
	                        payload);
}
