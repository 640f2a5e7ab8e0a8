/* Scans of hand-made tables: projection, partition values, pruning by
 * partitions, stats and row groups, deletion vectors, column mapping, type
 * widening, row tracking, file order under parallel decoding, and the
 * errors for missing data files and corrupt deletion vectors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "table/scan.h"
#include "table_fixture.h"
#include "util/error.h"

static const char *protocol = "{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,"
                              "\"readerFeatures\":[\"deletionVectors\"],"
                              "\"writerFeatures\":[\"deletionVectors\",\"rowTracking\",\"domainMetadata\"]}}";

/* Two files partitioned by `part`: part=1 holds ids 0..9 (rows 2 and 5
 * deleted by a DV), part=2 holds ids 10..19. */
static void make_basic(fixture *f)
{
	assert_int_equal(fixture_open(f), 0);
	int64_t a[10], b[10];
	for (int i = 0; i < 10; i++) a[i] = i, b[i] = 10 + i;
	int64_t s1, s2;
	assert_int_equal(fixture_parquet(f, "part=1/a.parquet", fixture_batch("id", a, 10, true, DL_TYPE_LONG), &s1), 0);
	assert_int_equal(fixture_parquet(f, "part=2/b.parquet", fixture_batch("id", b, 10, true, DL_TYPE_LONG), &s2), 0);
	uint64_t del[] = {2, 5};
	dl_buf dv = DL_BUF_INIT;
	assert_int_equal(fixture_dv(f, del, 2, &dv, 0x61), 0);
	char add1[1024], add2[1024];
	snprintf(add1, sizeof add1,
	         "{\"add\":{\"path\":\"part=1/a.parquet\",\"partitionValues\":{\"part\":\"1\"},\"size\":%lld,"
	         "\"modificationTime\":1,\"dataChange\":true,\"baseRowId\":100,\"defaultRowCommitVersion\":0,"
	         "\"stats\":\"{\\\"numRecords\\\":10,\\\"minValues\\\":{\\\"id\\\":0},\\\"maxValues\\\":{\\\"id\\\":9},"
	         "\\\"nullCount\\\":{\\\"id\\\":0}}\",\"deletionVector\":%s}}", (long long)s1, dv.data);
	snprintf(add2, sizeof add2,
	         "{\"add\":{\"path\":\"part=2/b.parquet\",\"partitionValues\":{\"part\":\"2\"},\"size\":%lld,"
	         "\"modificationTime\":1,\"dataChange\":true,\"baseRowId\":200,\"defaultRowCommitVersion\":0,"
	         "\"stats\":\"{\\\"numRecords\\\":10,\\\"minValues\\\":{\\\"id\\\":10},\\\"maxValues\\\":{\\\"id\\\":19},"
	         "\\\"nullCount\\\":{\\\"id\\\":0}}\"}}", (long long)s2);
	const char *lines[] = {
		"{\"commitInfo\":{\"timestamp\":1000,\"operation\":\"WRITE\",\"operationParameters\":{\"mode\":\"Append\"}}}",
		protocol,
		"{\"metaData\":{\"id\":\"t1\",\"format\":{\"provider\":\"parquet\",\"options\":{}},\"schemaString\":"
		"\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"id\\\",\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true,"
		"\\\"metadata\\\":{}},{\\\"name\\\":\\\"name\\\",\\\"type\\\":\\\"string\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}},"
		"{\\\"name\\\":\\\"part\\\",\\\"type\\\":\\\"integer\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\","
		"\"partitionColumns\":[\"part\"],\"configuration\":{\"delta.enableDeletionVectors\":\"true\","
		"\"delta.enableRowTracking\":\"true\",\"delta.enableChangeDataFeed\":\"true\"},\"createdTime\":1}}",
		add1, add2};
	assert_int_equal(fixture_commit(f, 0, lines, 5), 0);
	dl_buf_free(&dv);
}

static void full_scan(void **state)
{
	(void)state;
	fixture f;
	make_basic(&f);
	dl_batch *b;
	assert_int_equal(fixture_scan(&b, f.dir, NULL, NULL), 0);
	assert_non_null(b);
	assert_int_equal(b->num_rows, 18);
	assert_int_equal(b->ncols, 3);
	assert_string_equal(b->schema->children[2].name, "part");
	assert_int_equal(b->cols[2]->type->id, DL_TYPE_INTEGER);
	int64_t sum = 0;
	for (int64_t i = 0; i < b->num_rows; i++) {
		int64_t id = col_i64(b, 0, i);
		assert_true(id != 2 && id != 5);
		assert_int_equal(col_i64(b, 2, i), id < 10 ? 1 : 2);
		sum += id;
	}
	assert_int_equal(sum, 190 - 7);
	dl_batch_free(b);
	fixture_close(&f);
}

static void projection_and_filters(void **state)
{
	(void)state;
	fixture f;
	make_basic(&f);
	const char *cols[] = {"PART", "id"};
	dl_scan_options o = DL_SCAN_OPTIONS_INIT;
	o.columns = cols;
	o.ncolumns = 2;
	o.filter = "part = 2";
	dl_batch *b;
	dl_scan_metrics m;
	assert_int_equal(fixture_scan(&b, f.dir, &o, &m), 0);
	assert_int_equal(m.files_pruned_partitions, 1);
	assert_int_equal(b->num_rows, 10);
	assert_string_equal(b->schema->children[0].name, "part");
	assert_string_equal(b->schema->children[1].name, "id");
	dl_batch_free(b);
	/* stats prune the first file; the residual filter keeps exactly 15..19 */
	o.filter = "id >= 15";
	assert_int_equal(fixture_scan(&b, f.dir, &o, &m), 0);
	assert_int_equal(m.files_pruned_stats, 1);
	assert_int_equal(b->num_rows, 5);
	for (int64_t i = 0; i < 5; i++) assert_int_equal(col_i64(b, 1, i), 15 + i);
	dl_batch_free(b);
	/* a filter on a column not projected, matching a deleted row: none */
	o.filter = "name = 'n5'";
	assert_int_equal(fixture_scan(&b, f.dir, &o, &m), 0);
	assert_null(b);
	o.filter = "name = 'n6' OR id = 19";
	assert_int_equal(fixture_scan(&b, f.dir, &o, &m), 0);
	assert_int_equal(b->num_rows, 2);
	dl_batch_free(b);
	/* the same filter as an expression (the write path's form) */
	dl_expr *e;
	assert_int_equal(dl_expr_parse(&e, "name = 'n6' OR id = 19"), 0);
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, f.dir, NULL), 0);
	dl_scan_options eo = o;
	eo.filter = NULL;
	dl_scan *scan;
	assert_int_equal(dl_scan_open_expr(&scan, snap, &eo, e), 0);
	assert_int_equal(dl_scan_file_count(scan), 2);
	dl_scan_free(scan);
	assert_int_equal(dl_scan_open_expr(&scan, snap, &o, e), DL_EINVALID);
	dl_snapshot_free(snap);
	dl_expr_free(e);
	/* errors name the problem */
	o.filter = "nope > 1";
	assert_true(fixture_scan(&b, f.dir, &o, NULL) < 0);
	assert_non_null(strstr(dl_error_last()->message, "nope"));
	const char *bad[] = {"missing"};
	o.filter = NULL;
	o.columns = bad;
	o.ncolumns = 1;
	assert_int_equal(fixture_scan(&b, f.dir, &o, NULL), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "missing"));
	fixture_close(&f);
}

/* dl_scan_read_add_rows: the rows the DV and the filter keep, with their
 * positions in the file, whatever the row groups pruned (4 rows each) and
 * with the column the filter does not read decoded late. */
typedef struct rows_seen {
	dl_buf text;
} rows_seen;

static int collect_rows(void *payload, dl_batch *b, const uint64_t *rows)
{
	rows_seen *r = payload;
	for (int64_t i = 0; i < b->num_rows; i++) {
		const dl_array *name = b->cols[1];
		int32_t s = name->offsets[i], e = name->offsets[i + 1];
		dl_buf_printf(&r->text, "%llu:%lld:%.*s:%lld:%lld;", (unsigned long long)rows[i],
		              (long long)col_i64(b, 0, i), (int)(e - s), (const char *)name->data + s,
		              (long long)((const int32_t *)b->cols[2]->values)[i], (long long)col_i64(b, 3, i));
	}
	dl_batch_free(b);
	return 0;
}

static void read_rows_positions(void **state)
{
	(void)state;
	fixture f;
	make_basic(&f);
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, f.dir, NULL), 0);
	const char *cols[] = {"id", "name", "part", DL_SCAN_ROW_ID};
	dl_scan_options o = DL_SCAN_OPTIONS_INIT;
	o.columns = cols;
	o.ncolumns = 4;
	o.filter = "id > 4 AND id % 3 = 0";
	o.threads = 1;
	dl_scan *scan;
	assert_int_equal(dl_scan_open(&scan, snap, &o), 0);
	assert_non_null(scan->late_data);
	const char *want[2] = {"6:6:n6:1:106;9:9:n9:1:109;", "2:12:n12:2:202;5:15:n15:2:205;8:18:n18:2:208;"};
	int64_t lives[2] = {8, 10};
	const dl_log_state *st = dl_snapshot_state(snap);
	assert_int_equal(dl_scan_file_count(scan), 2);
	for (size_t i = 0; i < 2; i++) {
		const dl_add *a = dl_log_state_add(st, dl_scan_file_snapshot_index(scan, i));
		int k = strstr(a->path, "part=1") ? 0 : 1;
		rows_seen r = {DL_BUF_INIT};
		dl_buf_puts(&r.text, "");
		int64_t live = -1;
		assert_int_equal(dl_scan_read_add_rows(scan, a, &live, collect_rows, &r), 0);
		assert_string_equal(r.text.data, want[k]);
		assert_int_equal(live, lives[k]);
		dl_buf_free(&r.text);
	}
	dl_scan_free(scan);
	/* no late columns (the filter reads every data column) and no filter */
	const char *two[] = {"id", "name", "part", DL_SCAN_ROW_ID};
	o.columns = two;
	o.filter = "name <> 'n3' AND id < 4";
	assert_int_equal(dl_scan_open(&scan, snap, &o), 0);
	assert_null(scan->late_data);
	assert_int_equal(dl_scan_file_count(scan), 1); /* the other file pruned by its stats */
	const dl_add *a = dl_log_state_add(st, dl_scan_file_snapshot_index(scan, 0));
	assert_non_null(strstr(a->path, "part=1"));
	rows_seen r = {DL_BUF_INIT};
	dl_buf_puts(&r.text, "");
	int64_t live;
	assert_int_equal(dl_scan_read_add_rows(scan, a, &live, collect_rows, &r), 0);
	assert_string_equal(r.text.data, "0:0:n0:1:100;1:1:n1:1:101;");
	dl_scan_free(scan);
	o.filter = NULL;
	assert_int_equal(dl_scan_open(&scan, snap, &o), 0);
	dl_buf_clear(&r.text);
	dl_buf_puts(&r.text, "");
	assert_int_equal(dl_scan_read_add_rows(scan, a, &live, collect_rows, &r), 0);
	assert_string_equal(r.text.data, "0:0:n0:1:100;1:1:n1:1:101;3:3:n3:1:103;4:4:n4:1:104;6:6:n6:1:106;"
	                                 "7:7:n7:1:107;8:8:n8:1:108;9:9:n9:1:109;");
	assert_int_equal(live, 8);
	dl_buf_free(&r.text);
	dl_scan_free(scan);
	dl_snapshot_free(snap);
	fixture_close(&f);
}

static void row_tracking(void **state)
{
	(void)state;
	fixture f;
	make_basic(&f);
	const char *cols[] = {"id", DL_SCAN_ROW_ID, DL_SCAN_ROW_COMMIT_VERSION};
	dl_scan_options o = DL_SCAN_OPTIONS_INIT;
	o.columns = cols;
	o.ncolumns = 3;
	dl_batch *b;
	assert_int_equal(fixture_scan(&b, f.dir, &o, NULL), 0);
	assert_int_equal(b->num_rows, 18);
	for (int64_t i = 0; i < b->num_rows; i++) {
		int64_t id = col_i64(b, 0, i);
		/* baseRowId + physical row index, deleted rows keep their gaps */
		assert_int_equal(col_i64(b, 1, i), id < 10 ? 100 + id : 200 + id - 10);
		assert_int_equal(col_i64(b, 2, i), 0);
	}
	dl_batch_free(b);
	fixture_close(&f);
}

static void missing_file_and_corrupt_dv(void **state)
{
	(void)state;
	fixture f;
	make_basic(&f);
	/* corrupt the DV file: its checksum no longer matches */
	dl_object_list l = {0};
	assert_int_equal(dl_store_list_from(&l, f.store, "", NULL), 0);
	const char *dvpath = NULL;
	for (size_t i = 0; i < l.count; i++)
		if (strstr(l.items[i].path, "deletion_vector_")) dvpath = l.items[i].path;
	assert_non_null(dvpath);
	uint8_t *data;
	size_t len;
	assert_int_equal(dl_store_get(&data, &len, f.store, dvpath), 0);
	data[len - 6] ^= 0x55;
	assert_int_equal(dl_store_put(f.store, dvpath, data, len), 0);
	dl_free(data);
	dl_batch *b;
	int rc = fixture_scan(&b, f.dir, NULL, NULL);
	assert_true(rc < 0);
	assert_non_null(strstr(dl_error_last()->message, "deletion_vector_"));
	dl_object_list_free(&l);
	/* a missing data file is named */
	assert_int_equal(dl_store_delete(f.store, "part=2/b.parquet"), 0);
	const char *cols[] = {"id"};
	dl_scan_options o = DL_SCAN_OPTIONS_INIT;
	o.columns = cols;
	o.ncolumns = 1;
	o.filter = "part = 2";
	rc = fixture_scan(&b, f.dir, &o, NULL);
	assert_int_equal(rc, DL_ENOTFOUND);
	assert_non_null(strstr(dl_error_last()->message, "part=2/b.parquet"));
	fixture_close(&f);
}

/* Column mapping (name mode) and type widening: the file has physical
 * column "col-1" as int; the table calls it "value" and made it long. */
static void mapping_and_widening(void **state)
{
	(void)state;
	fixture f;
	assert_int_equal(fixture_open(&f), 0);
	int64_t v[5] = {-3, 0, 7, 2147483647, -2147483647};
	int64_t size;
	assert_int_equal(fixture_parquet(&f, "a.parquet", fixture_batch("col-1", v, 5, false, DL_TYPE_INTEGER), &size), 0);
	char add[512];
	snprintf(add, sizeof add, "{\"add\":{\"path\":\"a.parquet\",\"partitionValues\":{},\"size\":%lld,"
	         "\"modificationTime\":1,\"dataChange\":true}}", (long long)size);
	const char *lines[] = {
		"{\"protocol\":{\"minReaderVersion\":2,\"minWriterVersion\":5}}",
		"{\"metaData\":{\"id\":\"t2\",\"format\":{\"provider\":\"parquet\",\"options\":{}},\"schemaString\":"
		"\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"value\\\",\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true,"
		"\\\"metadata\\\":{\\\"delta.columnMapping.id\\\":1,\\\"delta.columnMapping.physicalName\\\":\\\"col-1\\\"}},"
		"{\\\"name\\\":\\\"added\\\",\\\"type\\\":\\\"string\\\",\\\"nullable\\\":true,\\\"metadata\\\":"
		"{\\\"delta.columnMapping.id\\\":2,\\\"delta.columnMapping.physicalName\\\":\\\"col-2\\\"}}]}\","
		"\"partitionColumns\":[],\"configuration\":{\"delta.columnMapping.mode\":\"name\","
		"\"delta.columnMapping.maxColumnId\":\"2\"},\"createdTime\":1}}",
		add};
	assert_int_equal(fixture_commit(&f, 0, lines, 3), 0);
	dl_batch *b;
	dl_scan_options o = DL_SCAN_OPTIONS_INIT;
	o.filter = "value > 0";
	assert_int_equal(fixture_scan(&b, f.dir, &o, NULL), 0);
	assert_int_equal(b->num_rows, 2);
	assert_string_equal(b->schema->children[0].name, "value");
	assert_int_equal(b->cols[0]->type->id, DL_TYPE_LONG);
	assert_int_equal(col_i64(b, 0, 0), 7);
	assert_int_equal(col_i64(b, 0, 1), 2147483647);
	/* a column the file predates reads as NULL */
	assert_false(dl_array_is_valid(b->cols[1], 0));
	dl_batch_free(b);
	fixture_close(&f);
}

/* Many small files decoded by two threads with a queue of one batch come
 * out in file order. */
static void parallel_order(void **state)
{
	(void)state;
	fixture f;
	assert_int_equal(fixture_open(&f), 0);
	enum { NFILES = 40 };
	const char *lines[NFILES + 2];
	char *adds[NFILES];
	lines[0] = "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}";
	lines[1] = "{\"metaData\":{\"id\":\"t3\",\"format\":{\"provider\":\"parquet\",\"options\":{}},\"schemaString\":"
	           "\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"id\\\",\\\"type\\\":\\\"long\\\","
	           "\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\",\"partitionColumns\":[],\"configuration\":{}}}";
	for (int k = 0; k < NFILES; k++) {
		int64_t v[9];
		for (int i = 0; i < 9; i++) v[i] = k * 9 + i;
		char path[32];
		snprintf(path, sizeof path, "f%02d.parquet", k);
		int64_t size;
		assert_int_equal(fixture_parquet(&f, path, fixture_batch("id", v, 9, false, DL_TYPE_LONG), &size), 0);
		adds[k] = malloc(256);
		snprintf(adds[k], 256, "{\"add\":{\"path\":\"%s\",\"partitionValues\":{},\"size\":%lld,"
		         "\"modificationTime\":1,\"dataChange\":true}}", path, (long long)size);
		lines[k + 2] = adds[k];
	}
	assert_int_equal(fixture_commit(&f, 0, lines, NFILES + 2), 0);
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, f.dir, NULL), 0);
	dl_scan_options o = DL_SCAN_OPTIONS_INIT;
	o.threads = 2;
	o.max_queued_batches = 1;
	o.batch_rows = 2;
	dl_scan *scan;
	assert_int_equal(dl_scan_open(&scan, snap, &o), 0);
	/* expected order: the snapshot's file order */
	int64_t want = 0, rows = 0;
	for (int pass = 0; pass < 2; pass++) {
		struct ArrowArrayStream st;
		assert_int_equal(dl_scan_to_arrow(&st, scan), 0);
		struct ArrowArray arr;
		size_t file = 0;
		int64_t in_file = 0;
		dl_file_info fi;
		rows = 0;
		while (st.get_next(&st, &arr) == 0 && arr.release) {
			const int64_t *ids = arr.children[0]->buffers[1];
			for (int64_t i = 0; i < arr.length; i++) {
				assert_int_equal(dl_scan_file_at(&fi, scan, file), 0);
				int k = atoi(fi.path + 1);
				want = k * 9 + in_file;
				assert_int_equal(ids[i + arr.children[0]->offset], want);
				if (++in_file == 9) in_file = 0, file++;
				rows++;
			}
			arr.release(&arr);
			if (pass == 1 && rows > 20) break; /* release mid-stream: workers stop */
		}
		st.release(&st);
		if (pass == 0) assert_int_equal(rows, NFILES * 9);
	}
	dl_scan_free(scan);
	dl_snapshot_free(snap);
	for (int k = 0; k < NFILES; k++) free(adds[k]);
	fixture_close(&f);
}

/* Row tracking with materialized columns: where the file holds a row id
 * or commit version, it wins over baseRowId + index / the default. */
static void materialized_row_tracking(void **state)
{
	(void)state;
	fixture f;
	assert_int_equal(fixture_open(&f), 0);
	dl_type *lt = dl_type_new(DL_TYPE_LONG);
	dl_field fs[3] = {{"id", lt, true, "{}"}, {"_rid", lt, true, "{}"}, {"_rcv", lt, true, "{}"}};
	dl_type *st = dl_type_struct(fs, 3);
	dl_batch *b = dl_batch_new(st, 4);
	for (int c = 0; c < 3; c++) {
		dl_builder *bl;
		dl_builder_new(&bl, lt);
		for (int i = 0; i < 4; i++) {
			if (c > 0 && i % 2 == 0) dl_builder_append_null(bl);
			else dl_builder_append_int(bl, c == 0 ? i : c == 1 ? 1000 + i : 7);
		}
		dl_builder_finish(&b->cols[c], bl);
		dl_builder_free(bl);
	}
	int64_t size;
	assert_int_equal(fixture_parquet(&f, "a.parquet", b, &size), 0);
	char add[512];
	snprintf(add, sizeof add, "{\"add\":{\"path\":\"a.parquet\",\"partitionValues\":{},\"size\":%lld,"
	         "\"modificationTime\":1,\"dataChange\":true,\"baseRowId\":50,\"defaultRowCommitVersion\":3}}",
	         (long long)size);
	const char *lines[] = {
		"{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":7,\"writerFeatures\":[\"rowTracking\","
		"\"domainMetadata\"]}}",
		"{\"metaData\":{\"id\":\"t5\",\"format\":{\"provider\":\"parquet\",\"options\":{}},\"schemaString\":"
		"\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"id\\\",\\\"type\\\":\\\"long\\\","
		"\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\",\"partitionColumns\":[],\"configuration\":{"
		"\"delta.enableRowTracking\":\"true\",\"delta.rowTracking.materializedRowIdColumnName\":\"_rid\","
		"\"delta.rowTracking.materializedRowCommitVersionColumnName\":\"_rcv\"}}}",
		add};
	assert_int_equal(fixture_commit(&f, 0, lines, 3), 0);
	const char *cols[] = {DL_SCAN_ROW_COMMIT_VERSION, "id", DL_SCAN_ROW_ID};
	dl_scan_options o = DL_SCAN_OPTIONS_INIT;
	o.columns = cols;
	o.ncolumns = 3;
	dl_batch *out;
	assert_int_equal(fixture_scan(&out, f.dir, &o, NULL), 0);
	assert_int_equal(out->num_rows, 4);
	assert_int_equal(out->ncols, 3);
	for (int64_t i = 0; i < 4; i++) {
		assert_int_equal(col_i64(out, 1, i), i);
		assert_int_equal(col_i64(out, 2, i), i % 2 ? 1000 + i : 50 + i);
		assert_int_equal(col_i64(out, 0, i), i % 2 ? 7 : 3);
	}
	dl_batch_free(out);
	/* the plain scan does not show the materialized columns */
	assert_int_equal(fixture_scan(&out, f.dir, NULL, NULL), 0);
	assert_int_equal(out->ncols, 1);
	dl_batch_free(out);
	dl_type_unref(st);
	dl_type_unref(lt);
	fixture_close(&f);
}

/* Statistics of columns outside delta.dataSkippingNumIndexedCols (or
 * dataSkippingStatsColumns) are not used: here they are deliberately
 * wrong, so using them would lose rows. */
static void indexed_columns(void **state)
{
	(void)state;
	const char *configs[] = {"\"delta.dataSkippingNumIndexedCols\":\"1\"",
	                         "\"delta.dataSkippingStatsColumns\":\"a\"", ""};
	for (int k = 0; k < 3; k++) {
		fixture f;
		assert_int_equal(fixture_open(&f), 0);
		int64_t v[10];
		for (int i = 0; i < 10; i++) v[i] = i;
		dl_batch *b = fixture_batch("a", v, 10, false, DL_TYPE_LONG);
		/* a second column b = a */
		dl_type *lt = dl_type_new(DL_TYPE_LONG);
		dl_field fs[2] = {{"a", lt, true, "{}"}, {"b", lt, true, "{}"}};
		dl_type *two = dl_type_struct(fs, 2);
		dl_batch *b2 = dl_batch_new(two, 10);
		b2->cols[0] = dl_array_slice(b->cols[0], 0, 10);
		b2->cols[1] = dl_array_slice(b->cols[0], 0, 10);
		dl_batch_free(b);
		int64_t size;
		assert_int_equal(fixture_parquet(&f, "a.parquet", b2, &size), 0);
		char meta[1024], add[1024];
		snprintf(meta, sizeof meta,
		         "{\"metaData\":{\"id\":\"t4\",\"format\":{\"provider\":\"parquet\",\"options\":{}},\"schemaString\":"
		         "\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"a\\\",\\\"type\\\":\\\"long\\\","
		         "\\\"nullable\\\":true,\\\"metadata\\\":{}},{\\\"name\\\":\\\"b\\\",\\\"type\\\":\\\"long\\\","
		         "\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\",\"partitionColumns\":[],\"configuration\":{%s}}}",
		         configs[k]);
		snprintf(add, sizeof add,
		         "{\"add\":{\"path\":\"a.parquet\",\"partitionValues\":{},\"size\":%lld,\"modificationTime\":1,"
		         "\"dataChange\":true,\"stats\":\"{\\\"numRecords\\\":10,\\\"minValues\\\":{\\\"a\\\":0,"
		         "\\\"b\\\":100},\\\"maxValues\\\":{\\\"a\\\":9,\\\"b\\\":100}}\"}}", (long long)size);
		const char *lines[] = {"{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}", meta, add};
		assert_int_equal(fixture_commit(&f, 0, lines, 3), 0);
		dl_scan_options o = DL_SCAN_OPTIONS_INIT;
		o.filter = "b < 50";
		dl_batch *out;
		dl_scan_metrics m;
		assert_int_equal(fixture_scan(&out, f.dir, &o, &m), 0);
		if (k < 2) {
			/* b is not indexed: its (wrong) stats must not prune */
			assert_non_null(out);
			assert_int_equal(out->num_rows, 10);
		} else {
			/* all columns indexed by default: the stats say b = 100 */
			assert_null(out);
			assert_int_equal(m.files_pruned_stats, 1);
		}
		dl_batch_free(out);
		dl_type_unref(two);
		dl_type_unref(lt);
		fixture_close(&f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(full_scan),
		cmocka_unit_test(projection_and_filters),
		cmocka_unit_test(read_rows_positions),
		cmocka_unit_test(row_tracking),
		cmocka_unit_test(missing_file_and_corrupt_dv),
		cmocka_unit_test(mapping_and_widening),
		cmocka_unit_test(parallel_order),
		cmocka_unit_test(indexed_columns),
		cmocka_unit_test(materialized_row_tracking),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
