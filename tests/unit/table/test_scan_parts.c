/* Parallelism inside large files: a file of many row groups is cut into
 * parts that several threads decode at once (table/scan_stream.c,
 * dl_scan_read_file_parts). At 2 and 3 threads, with queues of one batch
 * and the default, the scan yields exactly the batches of 1 thread (same
 * rows, same order, same batch boundaries), with a deletion vector whose
 * rows straddle row-group boundaries, row ids (file row positions),
 * partition values, filters that prune row groups and pages, late
 * materialization and a projection; the metrics agree, and the file was
 * really cut. Workers that wait (queue full, or no part left) help decode
 * the leaf columns of the batches the consumer waits for; a decoding
 * failure on a helper reaches the consumer with its message. Releasing
 * the stream midway stops the parts' workers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "table/scan.h"
#include "table_fixture.h"
#include "util/error.h"

#define BIG0 6000 /* rows of the first large file (ids 0..) */
#define SMALL 10  /* rows of the small file after it */
#define BIG1 3000 /* rows of the second large file */
#define NROWS (BIG0 + SMALL + BIG1)

static const uint64_t deleted[] = {0, 249, 250, 251, 1777, 3000, 3001, 5999};

static const char *schema_json =
	"\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":["
	"{\\\"name\\\":\\\"id\\\",\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}},"
	"{\\\"name\\\":\\\"grp\\\",\\\"type\\\":\\\"integer\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}},"
	"{\\\"name\\\":\\\"name\\\",\\\"type\\\":\\\"string\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}},"
	"{\\\"name\\\":\\\"part\\\",\\\"type\\\":\\\"integer\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\"";

static int grp_of(int64_t id) { return (int)((id * 7919) % 50); }

/* ids [first, first + n): id, grp, name ("n<id>", null every 11th row). */
static size_t write_file(fixture *f, const char *path, int64_t first, int n, int64_t rg_rows)
{
	dl_type *lt = dl_type_new(DL_TYPE_LONG), *it = dl_type_new(DL_TYPE_INTEGER), *st = dl_type_new(DL_TYPE_STRING);
	dl_field fs[3] = {{"id", lt, true, "{}"}, {"grp", it, true, "{}"}, {"name", st, true, "{}"}};
	dl_type *schema = dl_type_struct(fs, 3);
	dl_batch *b = dl_batch_new(schema, n);
	dl_builder *bl[3];
	for (int c = 0; c < 3; c++) assert_int_equal(dl_builder_new(&bl[c], fs[c].type), 0);
	for (int i = 0; i < n; i++) {
		int64_t id = first + i;
		dl_builder_append_int(bl[0], id);
		dl_builder_append_int(bl[1], grp_of(id));
		if (id % 11 == 4) {
			dl_builder_append_null(bl[2]);
		} else {
			char s[32];
			snprintf(s, sizeof s, "n%lld", (long long)id);
			dl_builder_append_str(bl[2], s);
		}
	}
	for (int c = 0; c < 3; c++) {
		assert_int_equal(dl_builder_finish(&b->cols[c], bl[c]), 0);
		dl_builder_free(bl[c]);
	}
	dl_buf buf = DL_BUF_INIT;
	pq_sink sink;
	pq_sink_init_buf(&sink, &buf);
	pq_writer_options o = PQ_WRITER_OPTIONS_INIT;
	o.row_group_rows = rg_rows;
	o.page_bytes = 400; /* several pages per row group: the page index prunes */
	o.dictionary = false;
	o.page_index = true;
	pq_writer *w;
	assert_int_equal(pq_writer_open(&w, schema, &sink, &o), 0);
	assert_int_equal(pq_writer_write(w, b), 0);
	assert_int_equal(pq_writer_close(w), 0);
	pq_writer_free(w);
	assert_int_equal(dl_store_put(f->store, path, buf.data, buf.len), 0);
	size_t len = buf.len;
	dl_buf_free(&buf);
	dl_batch_free(b);
	dl_type_unref(schema);
	dl_type_unref(lt);
	dl_type_unref(it);
	dl_type_unref(st);
	return len;
}

/* Three files in this order: big0 (part=3, rows in 24 row groups, a DV),
 * small (part=4, one row group), big1 (part=5, 12 row groups). */
static void make_table(fixture *f)
{
	assert_int_equal(fixture_open(f), 0);
	size_t s0 = write_file(f, "part=3/big0.parquet", 0, BIG0, 250);
	size_t s1 = write_file(f, "part=4/small.parquet", BIG0, SMALL, 250);
	size_t s2 = write_file(f, "part=5/big1.parquet", BIG0 + SMALL, BIG1, 250);
	dl_buf dv = DL_BUF_INIT;
	assert_int_equal(fixture_dv(f, deleted, sizeof deleted / sizeof *deleted, &dv, 0x52), 0);
	char add0[1024], add1[512], add2[512], meta[2048];
	snprintf(add0, sizeof add0,
	         "{\"add\":{\"path\":\"part=3/big0.parquet\",\"partitionValues\":{\"part\":\"3\"},\"size\":%zu,"
	         "\"modificationTime\":1,\"dataChange\":true,\"baseRowId\":1000,\"defaultRowCommitVersion\":0,"
	         "\"deletionVector\":%s}}", s0, dv.data);
	snprintf(add1, sizeof add1,
	         "{\"add\":{\"path\":\"part=4/small.parquet\",\"partitionValues\":{\"part\":\"4\"},\"size\":%zu,"
	         "\"modificationTime\":1,\"dataChange\":true,\"baseRowId\":7000,\"defaultRowCommitVersion\":0}}", s1);
	snprintf(add2, sizeof add2,
	         "{\"add\":{\"path\":\"part=5/big1.parquet\",\"partitionValues\":{\"part\":\"5\"},\"size\":%zu,"
	         "\"modificationTime\":1,\"dataChange\":true,\"baseRowId\":8000,\"defaultRowCommitVersion\":0}}", s2);
	snprintf(meta, sizeof meta,
	         "{\"metaData\":{\"id\":\"parts\",\"format\":{\"provider\":\"parquet\",\"options\":{}},\"schemaString\":%s,"
	         "\"partitionColumns\":[\"part\"],\"configuration\":{\"delta.enableDeletionVectors\":\"true\","
	         "\"delta.enableRowTracking\":\"true\"},\"createdTime\":1}}", schema_json);
	const char *lines[] = {
		"{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":[\"deletionVectors\"],"
		"\"writerFeatures\":[\"deletionVectors\",\"rowTracking\",\"domainMetadata\"]}}",
		meta, add0, add1, add2};
	assert_int_equal(fixture_commit(f, 0, lines, 5), 0);
	dl_buf_free(&dv);
}

typedef struct scan_out {
	dl_batch *b[2048];
	int n;
	int64_t parts_split;
	int64_t leaves_helped;
	dl_scan_metrics m;
} scan_out;

static void scan_out_free(scan_out *o)
{
	for (int i = 0; i < o->n; i++) dl_batch_free(o->b[i]);
	o->n = 0;
}

static void run(scan_out *out, const char *dir, const dl_scan_options *o)
{
	memset(out, 0, sizeof *out);
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, dir, NULL), 0);
	dl_scan *scan;
	int rc = dl_scan_open(&scan, snap, o);
	if (rc < 0) fail_msg("dl_scan_open: %s", dl_error_last()->message);
	dl_batch_stream *bs;
	assert_int_equal(dl_scan_batches(&bs, scan), 0);
	dl_batch *b;
	while ((rc = dl_batch_stream_next(bs, &b)) == 0 && b) {
		assert_true(out->n < 2048);
		out->b[out->n++] = b;
	}
	if (rc < 0) fail_msg("scan: %s", dl_error_last()->message);
	dl_batch_stream_free(bs);
	dl_scan_get_metrics(&out->m, scan);
	out->parts_split = scan->parts_split;
	out->leaves_helped = scan->leaves_helped;
	dl_scan_free(scan);
	dl_snapshot_free(snap);
}

static void same_array(const dl_array *x, const dl_array *y, int64_t n)
{
	assert_int_equal(x->type->id, y->type->id);
	for (int64_t i = 0; i < n; i++) {
		assert_int_equal(dl_array_is_valid(x, i), dl_array_is_valid(y, i));
		if (!dl_array_is_valid(x, i)) continue;
		switch (x->type->id) {
		case DL_TYPE_STRING: {
			int32_t xl = x->offsets[i + 1] - x->offsets[i], yl = y->offsets[i + 1] - y->offsets[i];
			assert_int_equal(xl, yl);
			assert_memory_equal(x->data + x->offsets[i], y->data + y->offsets[i], (size_t)xl);
			break;
		}
		case DL_TYPE_INTEGER: assert_int_equal(((const int32_t *)x->values)[i], ((const int32_t *)y->values)[i]); break;
		default: assert_int_equal(((const int64_t *)x->values)[i], ((const int64_t *)y->values)[i]); break;
		}
	}
}

/* The same batches: count, boundaries, every value. */
static void same_batches(const scan_out *a, const scan_out *b)
{
	assert_int_equal(a->n, b->n);
	for (int k = 0; k < a->n; k++) {
		assert_int_equal(a->b[k]->num_rows, b->b[k]->num_rows);
		assert_int_equal(a->b[k]->ncols, b->b[k]->ncols);
		for (int c = 0; c < a->b[k]->ncols; c++) same_array(a->b[k]->cols[c], b->b[k]->cols[c], a->b[k]->num_rows);
	}
}

static bool is_deleted(int64_t id)
{
	for (size_t k = 0; k < sizeof deleted / sizeof *deleted; k++)
		if (id < BIG0 && deleted[k] == (uint64_t)id) return true;
	return false;
}

/* What filter k keeps, by hand. */
static bool holds(int k, int64_t id)
{
	switch (k) {
	case 0: return true;
	case 1: return grp_of(id) == 7;
	case 2: return id >= 1200 && id <= 3100;
	case 3: return id >= 8500 || (id >= 240 && id < 260);
	default: return id >= 5990 && id < 6020;
	}
}

static const char *filters[] = {
	NULL,
	"grp = 7",                                  /* no pruning; name decoded late */
	"id BETWEEN 1200 AND 3100",                 /* row groups and pages pruned */
	"id >= 8500 OR (id >= 240 AND id < 260)",   /* across the DV's rows at a boundary */
	"id >= 5990 AND id < 6020",                 /* the end of big0, small, the start of big1 */
};

/* Rows (id, row_id, part) against the filter by hand. */
static void expect_rows(const scan_out *o, int k)
{
	int64_t id = 0;
	int j = 0;
	int64_t row = 0;
	for (; id < NROWS; id++) {
		if (!holds(k, id) || is_deleted(id)) continue;
		while (j < o->n && row == o->b[j]->num_rows) j++, row = 0;
		if (j == o->n) fail_msg("filter %s: row id %lld missing", filters[k] ? filters[k] : "none", (long long)id);
		const dl_batch *b = o->b[j];
		assert_int_equal(col_i64(b, 0, row), id);
		int64_t base = id < BIG0 ? 1000 : id < BIG0 + SMALL ? 7000 - BIG0 : 8000 - BIG0 - SMALL;
		assert_int_equal(col_i64(b, 4, row), base + id);  /* row_id: baseRowId + file row index */
		assert_int_equal(col_i64(b, 3, row), id < BIG0 ? 3 : id < BIG0 + SMALL ? 4 : 5);
		row++;
	}
	while (j < o->n && row == o->b[j]->num_rows) j++, row = 0;
	assert_int_equal(j, o->n); /* no row beyond */
}

static void parts_match_one_thread(void **state)
{
	(void)state;
	fixture f;
	make_table(&f);
	const char *all[] = {"id", "grp", "name", "part", DL_SCAN_ROW_ID};
	const char *proj[] = {"name", "part"};
	int64_t helped = 0;
	for (int k = 0; k < (int)(sizeof filters / sizeof *filters); k++) {
		for (int p = 0; p < 2; p++) {
			dl_scan_options o = DL_SCAN_OPTIONS_INIT;
			o.filter = filters[k];
			o.columns = p ? proj : all;
			o.ncolumns = p ? 2 : 5;
			o.batch_rows = 50; /* parts of 200+ rows: one per row group of 250 */
			o.threads = 1;
			scan_out one;
			run(&one, f.dir, &o);
			assert_int_equal(one.parts_split, 0);
			assert_int_equal(one.leaves_helped, 0);
			if (!p) expect_rows(&one, k);
			for (int threads = 2; threads <= 3; threads++) {
				for (int mq = 0; mq <= 1; mq++) {
					o.threads = threads;
					o.max_queued_batches = mq;
					scan_out many;
					run(&many, f.dir, &o);
					same_batches(&one, &many);
					helped += many.leaves_helped;
					/* the large files were cut (those pruning leaves rows in) */
					if (k == 0) assert_int_equal(many.parts_split, 23 + 11);
					else if (k != 4) assert_true(many.parts_split > 0);
					assert_int_equal(many.m.row_groups_pruned_stats, one.m.row_groups_pruned_stats);
					assert_int_equal(many.m.pages_skipped, one.m.pages_skipped);
					assert_int_equal(many.m.page_bytes_skipped, one.m.page_bytes_skipped);
					scan_out_free(&many);
				}
			}
			if (k == 2) {
				assert_true(one.m.row_groups_pruned_stats > 0);
				assert_true(one.m.pages_skipped > 0);
			}
			scan_out_free(&one);
		}
	}
	/* the waiting workers did decode leaves of others' batches (with a
	 * queue of one batch, the worker ahead waits after its first) */
	assert_true(helped > 0);
	fixture_close(&f);
}

/* A large file's batches at 2 threads with batches of the default size
 * cut into parts of 4 batches' rows: several row groups per part. */
static void parts_group_row_groups(void **state)
{
	(void)state;
	fixture f;
	make_table(&f);
	dl_scan_options o = DL_SCAN_OPTIONS_INIT;
	o.batch_rows = 300; /* parts of at least 1200 rows: 5 row groups of 250 */
	o.threads = 1;
	scan_out one, two;
	run(&one, f.dir, &o);
	o.threads = 2;
	run(&two, f.dir, &o);
	same_batches(&one, &two);
	/* big0: 24 row groups in parts of 5 -> 5 parts; big1: 12 -> 3 */
	assert_int_equal(two.parts_split, 4 + 2);
	scan_out_free(&one);
	scan_out_free(&two);
	fixture_close(&f);
}

/* Releasing the stream while parts are being decoded stops their workers
 * (and frees the parts never read). */
static void release_midway(void **state)
{
	(void)state;
	fixture f;
	make_table(&f);
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, f.dir, NULL), 0);
	dl_scan_options o = DL_SCAN_OPTIONS_INIT;
	o.batch_rows = 50;
	o.threads = 2;
	o.max_queued_batches = 1;
	dl_scan *scan;
	assert_int_equal(dl_scan_open(&scan, snap, &o), 0);
	for (int stop = 1; stop < 180; stop += 37) {
		dl_batch_stream *bs;
		assert_int_equal(dl_scan_batches(&bs, scan), 0);
		int64_t want = 1; /* row 0 is deleted */
		for (int i = 0; i < stop; i++) {
			dl_batch *b;
			assert_int_equal(dl_batch_stream_next(bs, &b), 0);
			assert_non_null(b);
			for (int64_t r = 0; r < b->num_rows; r++) {
				while (is_deleted(want)) want++;
				assert_int_equal(col_i64(b, 0, r), want);
				want++;
			}
			dl_batch_free(b);
		}
		dl_batch_stream_free(bs);
	}
	dl_scan_free(scan);
	dl_snapshot_free(snap);
	fixture_close(&f);
}

/* A file of no row groups (an empty write) beside one with rows: cut
 * into one empty part, read at 1 and 2 threads without touching past the
 * part bounds (ASan caught the bounds array one entry short). */
static void empty_file(void **state)
{
	(void)state;
	fixture f;
	assert_int_equal(fixture_open(&f), 0);
	size_t s0 = write_file(&f, "part=1/empty.parquet", 0, 0, 250);
	size_t s1 = write_file(&f, "part=2/rows.parquet", 0, 600, 250);
	char add0[512], add1[512], meta[2048];
	snprintf(add0, sizeof add0,
	         "{\"add\":{\"path\":\"part=1/empty.parquet\",\"partitionValues\":{\"part\":\"1\"},\"size\":%zu,"
	         "\"modificationTime\":1,\"dataChange\":true}}", s0);
	snprintf(add1, sizeof add1,
	         "{\"add\":{\"path\":\"part=2/rows.parquet\",\"partitionValues\":{\"part\":\"2\"},\"size\":%zu,"
	         "\"modificationTime\":1,\"dataChange\":true}}", s1);
	snprintf(meta, sizeof meta,
	         "{\"metaData\":{\"id\":\"empty\",\"format\":{\"provider\":\"parquet\",\"options\":{}},"
	         "\"schemaString\":%s,\"partitionColumns\":[\"part\"],\"configuration\":{},\"createdTime\":1}}",
	         schema_json);
	const char *lines[] = {"{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}", meta, add0, add1};
	assert_int_equal(fixture_commit(&f, 0, lines, 4), 0);
	dl_scan_options o = DL_SCAN_OPTIONS_INIT;
	o.batch_rows = 50;
	scan_out one, two;
	o.threads = 1;
	run(&one, f.dir, &o);
	o.threads = 2;
	run(&two, f.dir, &o);
	same_batches(&one, &two);
	int64_t rows = 0;
	for (int i = 0; i < two.n; i++) rows += two.b[i]->num_rows;
	assert_int_equal(rows, 600);
	scan_out_free(&one);
	scan_out_free(&two);
	fixture_close(&f);
}

/* A corrupt page in a row group of a later part: the scan fails with the
 * same message at 1, 2 and 3 threads, whichever worker decoded the leaf
 * (at 2 and 3, a helper may have). */
static void helper_failure(void **state)
{
	(void)state;
	fixture f;
	make_table(&f);
	uint8_t *data;
	size_t len;
	char path[1024];
	snprintf(path, sizeof path, "part=3/big0.parquet");
	assert_int_equal(dl_store_get(&data, &len, f.store, path), 0);
	/* 64 bytes in the data of a row group about 60% into the file: its page
	 * checksum (or zstd) fails */
	memset(data + len * 6 / 10, 0xA5, 64);
	assert_int_equal(dl_store_put(f.store, path, data, len), 0);
	dl_free(data);
	char first[1024] = "";
	for (int threads = 1; threads <= 3; threads++) {
		for (int mq = 0; mq <= 1; mq++) {
			dl_snapshot *snap;
			assert_int_equal(dl_snapshot_open(&snap, f.dir, NULL), 0);
			dl_scan_options o = DL_SCAN_OPTIONS_INIT;
			o.batch_rows = 50;
			o.threads = threads;
			o.max_queued_batches = mq;
			dl_scan *scan;
			assert_int_equal(dl_scan_open(&scan, snap, &o), 0);
			dl_batch_stream *bs;
			assert_int_equal(dl_scan_batches(&bs, scan), 0);
			dl_batch *b;
			int rc;
			while ((rc = dl_batch_stream_next(bs, &b)) == 0 && b) dl_batch_free(b);
			assert_true(rc < 0);
			const char *msg = dl_error_last()->message;
			assert_non_null(strstr(msg, "big0.parquet"));
			if (!first[0]) snprintf(first, sizeof first, "%s", msg);
			else assert_string_equal(msg, first);
			dl_batch_stream_free(bs);
			dl_scan_free(scan);
			dl_snapshot_free(snap);
		}
	}
	fixture_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parts_match_one_thread),
		cmocka_unit_test(parts_group_row_groups),
		cmocka_unit_test(release_midway),
		cmocka_unit_test(empty_file),
		cmocka_unit_test(helper_failure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
