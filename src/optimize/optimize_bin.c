/* One OPTIMIZE bin: its files read through a scan of the snapshot (their
 * deletion vectors applied, so purged rows are gone; stable row ids and
 * commit versions read along when the table tracks rows) and streamed into
 * new files. Bin-packing writes the rows as they come, into one file per
 * bin as Spark does; multi-dimensional clustering first samples the order
 * columns to get each column's range bounds, then sorts the rows by their
 * curve key with the engine's external sort (it spills past its memory
 * budget, so a bin is never held whole) and cuts the sorted rows into files
 * of maxFileSize. */
#include "optimize/optimize_internal.h"

#include <stdio.h>
#include <string.h>

#include "exec/exec.h"
#include "optimize/curve.h"
#include "table/scan.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/pool.h"

#define KEY_COLUMN "__dl_optimize_curve_key"
#define SORT_MEMORY (256LL * 1024 * 1024)

/* Makes the scan read exactly the bin's files (the scan was planned over
 * every live file, so its arrays are large enough for any subset). */
static int restrict_files(dl_scan *s, const dl_opt_file *files, size_t n)
{
	if (n > s->nfiles)
		return dl_error_set(DL_ERROR, "OPTIMIZE: a bin of %zu files in a scan of %zu", n, s->nfiles);
	for (size_t i = 0; i < n; i++) s->files[i] = files[i].index;
	s->nfiles = n;
	return 0;
}

static int open_scan(dl_scan **out, opt_cmd *c, const dl_opt_bin *b, const char *const *cols, int ncols,
                     int threads)
{
	dl_scan_options so = DL_SCAN_OPTIONS_INIT;
	so.columns = cols;
	so.ncolumns = ncols;
	so.threads = threads;
	DL_TRY(dl_scan_open(out, c->snap, &so));
	int rc = restrict_files(*out, c->plan.files + b->first, b->n);
	if (rc < 0) {
		dl_scan_free(*out);
		*out = NULL;
	}
	return rc;
}

/* The leaf array of an order column in a batch whose top-level column of
 * the order column is at `top`; *null_parent when a parent struct is null. */
static const dl_array *order_leaf(const dl_batch *b, int top, const opt_order_col *o, int64_t row,
                                  int *null_parent)
{
	const dl_array *a = b->cols[top];
	*null_parent = 0;
	for (int d = 0; d < o->depth; d++) {
		if (a->validity && !((a->validity[row >> 3] >> (row & 7)) & 1)) *null_parent = 1;
		a = a->children[o->path[d]];
	}
	return a;
}

/* xorshift64*: a fixed seed per bin, so OPTIMIZE is repeatable */
static uint64_t next_rand(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1Dull;
}

/* First pass: a reservoir sample of each order column's non-null keys
 * (only those columns are read), then the range bounds. */
static int sample_ranges(opt_cmd *c, const dl_opt_bin *b, size_t bin, dl_curve_ranges *ranges)
{
	const dl_type *schema = dl_snapshot_schema(c->snap);
	const char *cols[32];
	int pos[32], ncols = 0;
	for (int k = 0; k < c->norder; k++) {
		int p = -1;
		for (int j = 0; j < ncols && p < 0; j++)
			if (!strcmp(cols[j], schema->children[c->order[k].top].name)) p = j;
		if (p < 0) {
			p = ncols;
			cols[ncols++] = schema->children[c->order[k].top].name;
		}
		pos[k] = p;
	}
	dl_scan *s;
	DL_TRY(open_scan(&s, c, b, cols, ncols, c->plan.nbins == 1 ? 0 : 1));
	uint64_t *sample[32] = {0};
	int64_t seen[32] = {0};
	size_t have[32] = {0};
	uint64_t seed = 0x9E3779B97F4A7C15ull ^ (uint64_t)(bin + 1);
	int rc = 0;
	for (int k = 0; k < c->norder && rc == 0; k++)
		if (!(sample[k] = dl_calloc(DL_CURVE_MAX_SAMPLE, sizeof(uint64_t)))) rc = DL_ENOMEM;
	dl_batch_stream *st = NULL;
	if (rc == 0) rc = dl_scan_batches(&st, s);
	while (rc == 0) {
		dl_batch *bt = NULL;
		if ((rc = dl_batch_stream_next(st, &bt)) < 0 || !bt) break;
		for (int k = 0; k < c->norder; k++) {
			for (int64_t r = 0; r < bt->num_rows; r++) {
				int np, null;
				const dl_array *a = order_leaf(bt, pos[k], &c->order[k], r, &np);
				uint64_t key = dl_curve_value_key(a, r, &null);
				if (np || null) continue;
				if (have[k] < DL_CURVE_MAX_SAMPLE) {
					sample[k][have[k]++] = key;
				} else {
					uint64_t j = next_rand(&seed) % (uint64_t)(seen[k] + 1);
					if (j < DL_CURVE_MAX_SAMPLE) sample[k][j] = key;
				}
				seen[k]++;
			}
		}
		dl_batch_free(bt);
		if (atomic_load(&c->cancel)) rc = dl_error_set(DL_ECANCELLED, "%s cancelled", c->operation);
	}
	dl_batch_stream_free(st);
	for (int k = 0; k < c->norder && rc == 0; k++)
		rc = dl_curve_ranges_from_sample(&ranges[k], sample[k], have[k], DL_CURVE_RANGE_IDS);
	for (int k = 0; k < c->norder; k++) dl_free(sample[k]);
	dl_scan_free(s);
	return rc;
}

/* ---- the stream that appends each row's curve key ---- */

typedef struct key_stream {
	dl_batch_stream base;
	dl_batch_stream *in;
	dl_type *schema;
	dl_type *long_t;
	opt_cmd *c;
	dl_curve_ranges *ranges;
	int bits;
	const dl_hilbert_table *hilbert; /* clustering by 2 or more columns */
} key_stream;

static const dl_type *ks_schema(dl_batch_stream *s) { return ((key_stream *)s)->schema; }

static int ks_next(dl_batch_stream *s, dl_batch **out)
{
	key_stream *k = (key_stream *)s;
	*out = NULL;
	dl_batch *in;
	DL_TRY(dl_batch_stream_next(k->in, &in));
	if (!in) return 0;
	if (atomic_load(&k->c->cancel)) {
		dl_batch_free(in);
		return dl_error_set(DL_ECANCELLED, "%s cancelled", k->c->operation);
	}
	dl_batch *o = dl_batch_new(k->schema, in->num_rows);
	dl_array *keys = o ? dl_array_new(k->long_t, in->num_rows) : NULL;
	if (!keys) {
		dl_batch_free(o);
		dl_batch_free(in);
		return DL_ENOMEM;
	}
	int64_t *kv = keys->values;
	uint32_t ids[32];
	for (int64_t r = 0; r < in->num_rows; r++) {
		for (int j = 0; j < k->c->norder; j++) {
			int np, null;
			const dl_array *a = order_leaf(in, k->c->order[j].top, &k->c->order[j], r, &np);
			uint64_t v = dl_curve_value_key(a, r, &null);
			uint32_t id = dl_curve_range_id(&k->ranges[j], v, np || null);
			ids[j] = id >> (k->bits < 10 ? 10 - k->bits : 0);
		}
		uint64_t key = k->c->hilbert ? dl_hilbert_key(k->hilbert, ids, k->c->norder, k->bits)
		                             : dl_zorder_key(ids, k->c->norder, k->bits);
		kv[r] = (int64_t)key; /* at most 63 bits: sorts as a signed long */
	}
	for (int i = 0; i < in->ncols; i++) {
		o->cols[i] = in->cols[i];
		in->cols[i] = NULL;
	}
	o->cols[in->ncols] = keys;
	dl_batch_free(in);
	*out = o;
	return 0;
}

static void ks_release(dl_batch_stream *s)
{
	key_stream *k = (key_stream *)s;
	dl_batch_stream_free(k->in);
	dl_type_unref(k->schema);
	dl_type_unref(k->long_t);
	dl_free(k);
}

static int key_stream_open(dl_batch_stream **out, dl_batch_stream *in, opt_cmd *c, dl_curve_ranges *ranges)
{
	*out = NULL;
	key_stream *k = dl_calloc(1, sizeof *k);
	if (!k) {
		dl_batch_stream_free(in);
		return DL_ENOMEM;
	}
	k->in = in;
	k->c = c;
	k->ranges = ranges;
	/* range ids are < 1000: 10 bits, fewer when the columns would not fit */
	k->bits = dl_curve_bits(c->norder, DL_CURVE_RANGE_IDS);
	int hrc = c->hilbert && c->norder > 1 ? dl_hilbert_table_get(&k->hilbert, c->norder) : 0;
	if (hrc) {
		ks_release(&k->base);
		return hrc;
	}
	k->base.schema = ks_schema;
	k->base.next = ks_next;
	k->base.release = ks_release;
	const dl_type *is = dl_batch_stream_schema(in);
	dl_field *f = dl_calloc((size_t)is->nchildren + 1, sizeof *f);
	k->long_t = dl_type_new(DL_TYPE_LONG);
	if (!f || !k->long_t) {
		dl_free(f);
		ks_release(&k->base);
		return DL_ENOMEM;
	}
	memcpy(f, is->children, (size_t)is->nchildren * sizeof *f);
	f[is->nchildren] = (dl_field){(char *)KEY_COLUMN, k->long_t, false, (char *)"{}"};
	k->schema = dl_type_struct(f, is->nchildren + 1);
	dl_free(f);
	if (!k->schema) {
		ks_release(&k->base);
		return DL_ENOMEM;
	}
	*out = &k->base;
	return 0;
}

/* ---- gathering small batches ---- */

/* Small input files make small batches (5,000 rows a file in
 * bench_optimize.sh), and the Parquet writer splits each batch over its
 * threads column by column, then waits for every column: for 5,000 rows
 * waking a helper costs about as much as its share of the work, so the
 * helpers sat mostly idle and the encoding ran on about one core. The
 * batches are gathered up to the writer's largest slice (64Ki rows, or
 * GATHER_BYTES of arrays, whichever comes first) and written as one;
 * a batch already that large goes through as it is. The rows and their
 * order do not change, and neither the gathering nor the output depends
 * on the thread count. */
#define GATHER_ROWS 65536
#define GATHER_BYTES (16LL * 1024 * 1024)
#define GATHER_MAX 256

typedef struct gather {
	dl_batch *held[GATHER_MAX];
	int nheld;
	int64_t rows, bytes;
	int ncols; /* the columns written (the curve key stays behind) */
	/* Write-behind (a bin alone on the machine): the gathered batch is
	 * written by a thread of `behind` while this thread reads and gathers
	 * the next, so decoding, gathering and encoding overlap. One write in
	 * flight at a time, so at most two gathered batches exist and the
	 * output is written in the same order. */
	dl_pool *behind;
	dl_waitgroup wg;
	struct behind_job {
		dl_files_writer *w;
		dl_batch *b;
		int ncols;
	} job;
	bool in_flight;
} gather;

/* Bytes of an array's buffers, about. */
static int64_t array_bytes(const dl_array *a)
{
	int64_t n = a->data_len + a->length * (dl_type_fixed_width(a->type) + (a->offsets ? 4 : 0) + 1);
	for (int k = 0; k < a->nchildren; k++) n += array_bytes(a->children[k]);
	return n;
}

static int write_view(dl_files_writer *w, const dl_batch *b, int ncols)
{
	dl_batch view = *b;
	view.ncols = ncols;
	return dl_files_writer_write(w, &view);
}

static int behind_task(void *arg)
{
	struct behind_job *j = arg;
	int rc = write_view(j->w, j->b, j->ncols);
	dl_batch_free(j->b);
	j->b = NULL;
	return rc;
}

/* Waits for the write in flight; its failure, if any. */
static int gather_wait(gather *g)
{
	if (!g->in_flight) return 0;
	g->in_flight = false;
	return dl_waitgroup_wait(&g->wg);
}

/* Writes b (owned) now, or hands it to the write-behind thread once the
 * previous write is done. */
static int write_owned(gather *g, dl_files_writer *w, dl_batch *b)
{
	if (!g->behind) {
		int rc = write_view(w, b, g->ncols);
		dl_batch_free(b);
		return rc;
	}
	int rc = gather_wait(g);
	if (rc < 0) {
		dl_batch_free(b);
		return rc;
	}
	g->job = (struct behind_job){w, b, g->ncols};
	rc = dl_pool_submit(g->behind, &g->wg, behind_task, &g->job);
	if (rc < 0) {
		dl_batch_free(b);
		return rc;
	}
	g->in_flight = true;
	return 0;
}

/* Writes the held batches as one and lets them go. */
static int gather_write(gather *g, dl_files_writer *w)
{
	if (g->nheld == 0) return 0;
	dl_batch *all = g->nheld == 1 ? g->held[0] : dl_batch_concat(g->held, g->nheld);
	int rc = all ? 0 : dl_error_last()->code;
	for (int k = g->nheld == 1 ? 1 : 0; k < g->nheld; k++) dl_batch_free(g->held[k]);
	g->nheld = 0;
	g->rows = g->bytes = 0;
	return rc < 0 ? rc : write_owned(g, w, all);
}

/* Takes b (owned). */
static int gather_add(gather *g, dl_files_writer *w, dl_batch *b)
{
	int64_t bytes = 0;
	for (int k = 0; k < b->ncols; k++) bytes += array_bytes(b->cols[k]);
	if (g->nheld == 0 && (b->num_rows >= GATHER_ROWS || bytes >= GATHER_BYTES)) return write_owned(g, w, b);
	if (g->nheld > 0 && (g->rows + b->num_rows > GATHER_ROWS || g->bytes + bytes > GATHER_BYTES)) {
		int rc = gather_write(g, w);
		if (rc < 0) {
			dl_batch_free(b);
			return rc;
		}
	}
	g->held[g->nheld++] = b;
	g->rows += b->num_rows;
	g->bytes += bytes;
	return g->nheld == GATHER_MAX || g->rows >= GATHER_ROWS || g->bytes >= GATHER_BYTES ? gather_write(g, w)
	                                                                                   : 0;
}

static int gather_init(gather *g, int ncols, bool behind)
{
	memset(g, 0, sizeof *g);
	g->ncols = ncols;
	dl_waitgroup_init(&g->wg);
	return behind ? dl_pool_create(&g->behind, 1) : 0;
}

/* Waits for the write in flight (the writer outlives it) and frees the
 * rest; the first failure of the wait when rc is 0. */
static int gather_end(gather *g, int rc)
{
	/* a failure here keeps its own message over the write's */
	char msg[1024] = "", klass[128] = "";
	if (rc < 0) {
		snprintf(msg, sizeof msg, "%s", dl_error_last()->message);
		snprintf(klass, sizeof klass, "%s", dl_error_last()->klass ? dl_error_last()->klass : "");
	}
	int wrc = gather_wait(g);
	if (rc < 0 && wrc < 0) dl_error_set_class(rc, klass, "%s", msg);
	if (g->behind) dl_pool_free(g->behind);
	dl_waitgroup_destroy(&g->wg);
	for (int k = 0; k < g->nheld; k++) dl_batch_free(g->held[k]);
	g->nheld = 0;
	return rc < 0 ? rc : wrc;
}

/* ---- the bin ---- */

int dl_opt_write_bin(opt_cmd *c, size_t i)
{
	const dl_opt_bin *b = &c->plan.bins[i];
	const dl_type *schema = dl_snapshot_schema(c->snap);
	int ns = schema->nchildren;
	const char **cols = dl_calloc((size_t)ns + 3, sizeof *cols);
	if (!cols) return DL_ENOMEM;
	for (int k = 0; k < ns; k++) cols[k] = schema->children[k].name;
	int nc = ns;
	if (c->preserve) {
		cols[nc++] = DL_SCAN_ROW_ID;
		cols[nc++] = DL_SCAN_ROW_COMMIT_VERSION;
	}
	int threads = c->plan.nbins == 1 ? 0 : 1;
	dl_curve_ranges ranges[32];
	memset(ranges, 0, sizeof ranges);
	dl_scan *s = NULL;
	dl_batch_stream *st = NULL;
	dl_exec_memory mem = DL_EXEC_MEMORY_INIT(SORT_MEMORY);
	int rc = 0;
	if (c->norder) rc = sample_ranges(c, b, i, ranges);
	if (rc == 0) rc = open_scan(&s, c, b, cols, nc, threads);
	if (rc == 0) rc = dl_scan_batches(&st, s);
	if (rc == 0 && c->norder) {
		dl_batch_stream *ks = NULL, *sorted = NULL;
		rc = key_stream_open(&ks, st, c, ranges);
		st = NULL;
		dl_exec_sort_key key = {NULL, false, DL_NULLS_DEFAULT};
		if (rc == 0) rc = dl_expr_parse(&key.expr, KEY_COLUMN);
		dl_exec_ctx ctx = DL_EXEC_CTX_INIT;
		ctx.mem = &mem;
		ctx.threads = threads;
		if (rc == 0) {
			rc = dl_exec_sort(&sorted, ks, &key, 1, -1, 0, &ctx);
			ks = NULL;
		}
		dl_batch_stream_free(ks);
		st = sorted;
	}
	dl_files_writer_options fo;
	memset(&fo, 0, sizeof fo);
	fo.store = c->store;
	fo.schema = schema;
	fo.partition_columns = c->part_cols;
	fo.npartition_columns = c->npart;
	fo.props = &c->props;
	/* bin-packing writes one file per bin (the bin is at most maxFileSize);
	 * a clustering range-partitions its sorted rows into
	 * ceil(bin size / maxFileSize) files of equal row counts, as Spark's
	 * repartitionByRange(numOutputFiles) does */
	fo.target_file_size = INT64_MAX / 4;
	if (c->norder) {
		int64_t nout = (b->bytes + c->max_file_size - 1) / c->max_file_size, rows = 0;
		bool known = true;
		for (size_t k = 0; k < b->n; k++) {
			const dl_opt_file *f = &c->plan.files[b->first + k];
			if (f->num_records < 0) known = false;
			else rows += f->num_records - f->dv_cardinality;
		}
		if (nout < 1) nout = 1;
		if (known && nout > 1) fo.max_records_per_file = (rows + nout - 1) / nout;
		else if (!known) fo.target_file_size = c->max_file_size;
	}
	fo.data_change = false;
	/* one bin has the machine to itself: its columns encode in parallel */
	fo.threads = c->plan.nbins == 1 ? dl_default_threads() : 1;
	fo.hidden = c->hidden;
	fo.nhidden = c->nhidden;
	if (rc == 0) rc = dl_files_writer_open(&c->outs[i], &fo);
	gather g;
	int grc = gather_init(&g, ns + c->nhidden, c->plan.nbins == 1);
	if (rc == 0) rc = grc;
	while (rc == 0) {
		dl_batch *bt = NULL;
		if ((rc = dl_batch_stream_next(st, &bt)) < 0 || !bt) break;
		atomic_fetch_add(&c->rows_done, bt->num_rows);
		rc = gather_add(&g, c->outs[i], bt);
		if (rc == 0 && atomic_load(&c->cancel))
			rc = dl_error_set(DL_ECANCELLED, "%s cancelled by the progress callback", c->operation);
	}
	if (rc == 0) rc = gather_write(&g, c->outs[i]);
	rc = gather_end(&g, rc);
	if (rc == 0) rc = dl_files_writer_finish(c->outs[i]);
	dl_batch_stream_free(st);
	dl_scan_free(s);
	for (int k = 0; k < c->norder; k++) dl_curve_ranges_free(&ranges[k]);
	dl_free(cols);
	if (rc == 0) {
		atomic_fetch_add(&c->bins_done, 1);
		atomic_fetch_add(&c->files_done, (int64_t)b->n);
	}
	return rc;
}
