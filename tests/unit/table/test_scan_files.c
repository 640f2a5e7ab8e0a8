/* The scan-file API (deltalake/scan.h "the files of a scan"): for Spark's
 * golden tables with deletion vectors (one with column mapping), each file's
 * fields against the log, and the rows an engine gets by reading the files
 * itself (our Parquet reader, physical column names, the DV's row indexes
 * dropped, partition values added) equal to the rows of dl_scan; for a
 * hand-made table, row tracking fields, null partition values, escaped and
 * absolute paths. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "parquet/reader.h"
#include "table/scan.h"
#include "table_fixture.h"
#include "util/error.h"

static const char *shared_dir(void)
{
	const char *d = getenv("DL_SHARED_DIR");
	return d && *d ? d : DL_SHARED_DIR;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* part * 1e6 + col1 for every row of a dl_scan of (part, col1). */
static size_t scan_keys(dl_snapshot *snap, int64_t *keys, size_t cap)
{
	dl_scan_options o = DL_SCAN_OPTIONS_INIT;
	const char *cols[] = {"part", "col1"};
	o.columns = cols;
	o.ncolumns = 2;
	dl_scan *scan;
	assert_int_equal(dl_scan_open(&scan, snap, &o), 0);
	dl_batch_stream *bs;
	assert_int_equal(dl_scan_batches(&bs, scan), 0);
	size_t n = 0;
	dl_batch *b;
	while (dl_batch_stream_next(bs, &b) == 0 && b) {
		for (int64_t r = 0; r < b->num_rows; r++) {
			assert_true(n < cap);
			keys[n++] = col_i64(b, 0, r) * 1000000 + col_i64(b, 1, r);
		}
		dl_batch_free(b);
	}
	dl_batch_stream_free(bs);
	dl_scan_free(scan);
	return n;
}

/* Reads file i as an engine would: the physical column of col1 from the
 * file at its location, without the DV's rows, plus the partition value. */
static size_t engine_read(dl_scan *scan, size_t i, dl_store *root, int64_t *keys, size_t n, size_t cap)
{
	dl_scan_file f;
	assert_int_equal(dl_scan_file_get(&f, scan, i), 0);
	const char *col1 = NULL;
	for (size_t c = 0; c < dl_scan_column_count(scan); c++) {
		dl_scan_column sc;
		assert_int_equal(dl_scan_column_at(&sc, scan, c), 0);
		if (strcmp(sc.name, "col1") == 0) {
			assert_int_equal(sc.kind, DL_SCAN_COLUMN_DATA);
			col1 = sc.physical_name;
		}
	}
	assert_non_null(col1);
	const char *k, *v;
	assert_int_equal(dl_scan_file_partition_value(&k, &v, scan, i, 0), 0);
	assert_string_equal(k, "part");
	int64_t part = atoll(v);
	uint64_t *del;
	size_t ndel;
	assert_int_equal(dl_scan_file_deleted_rows(&del, &ndel, scan, i), 0);
	assert_int_equal(ndel, f.has_deletion_vector ? (size_t)f.deletion_vector.cardinality : 0);
	for (size_t d = 1; d < ndel; d++) assert_true(del[d - 1] < del[d]);
	if (ndel) assert_true(del[ndel - 1] < (uint64_t)f.num_records);
	pq_reader *r;
	assert_true(f.location[0] == '/');
	assert_int_equal(pq_reader_open_store(&r, root, f.location + 1, f.size), 0);
	assert_int_equal(pq_reader_num_rows(r), f.num_records);
	assert_int_equal(pq_reader_select_columns(r, &col1, 1), 0);
	dl_batch *b;
	int64_t first;
	size_t di = 0;
	while (pq_reader_next(r, &b, &first) == 0 && b) {
		for (int64_t row = 0; row < b->num_rows; row++) {
			uint64_t idx = (uint64_t)(first + row);
			while (di < ndel && del[di] < idx) di++;
			if (di < ndel && del[di] == idx) continue;
			assert_true(n < cap);
			keys[n++] = part * 1000000 + col_i64(b, 0, row);
		}
		dl_batch_free(b);
	}
	pq_reader_free(r);
	dl_free(del);
	return n;
}

/* Each file against the log, and the engine's rows against dl_scan. */
static void check_golden(const char *table, bool column_mapping)
{
	char dir[1024], root[1024];
	snprintf(dir, sizeof dir, "%s/conformance/golden/%s/delta", shared_dir(), table);
	assert_non_null(realpath(dir, root));
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, root, NULL), 0);
	dl_scan *scan;
	assert_int_equal(dl_scan_open(&scan, snap, NULL), 0);
	assert_true(dl_scan_file_count(scan) > 0);
	dl_store *rs;
	assert_int_equal(dl_store_open(&rs, "/", NULL), 0);

	/* the partition column: logical name, and the key the log uses */
	const char *part_key = NULL;
	for (size_t c = 0; c < dl_scan_column_count(scan); c++) {
		dl_scan_column sc;
		assert_int_equal(dl_scan_column_at(&sc, scan, c), 0);
		if (sc.kind == DL_SCAN_COLUMN_PARTITION) {
			assert_string_equal(sc.name, "part");
			part_key = sc.physical_name;
		} else {
			assert_int_equal(sc.kind, DL_SCAN_COLUMN_DATA);
			if (column_mapping) assert_true(strncmp(sc.physical_name, "col-", 4) == 0);
			else assert_string_equal(sc.physical_name, sc.name);
		}
		assert_int_equal(sc.field_id, -1); /* mode name / none: matched by name */
	}
	assert_non_null(part_key);
	if (column_mapping) assert_true(strncmp(part_key, "col-", 4) == 0);

	static int64_t mine[100000], theirs[100000];
	size_t n = 0, dvs = 0;
	int64_t live = 0;
	for (size_t i = 0; i < dl_scan_file_count(scan); i++) {
		dl_scan_file f;
		assert_int_equal(dl_scan_file_get(&f, scan, i), 0);
		/* the log's add, as the snapshot holds it */
		dl_file_info fi;
		assert_int_equal(dl_snapshot_file_at(&fi, snap, f.snapshot_index), 0);
		assert_string_equal(f.path, fi.path);
		assert_string_equal(f.log_path, f.path); /* Spark's names need no escapes */
		assert_int_equal(f.size, fi.size);
		assert_int_equal(f.modification_time, fi.modification_time);
		assert_ptr_equal(f.stats, fi.stats);
		assert_int_equal(f.base_row_id, INT64_MIN);
		assert_int_equal(f.default_row_commit_version, INT64_MIN);
		const char *lk, *lv;
		assert_int_equal(dl_snapshot_file_partition_value(&lk, &lv, snap, f.snapshot_index, 0), 0);
		assert_string_equal(lk, part_key);
		/* Spark names the directory after the partition value */
		char dirname[256];
		snprintf(dirname, sizeof dirname, "%s=%s/", part_key, lv);
		assert_true(strncmp(f.path, dirname, strlen(dirname)) == 0);
		assert_int_equal(f.npartition_values, 1);
		/* the location is the file, root joined */
		char want[2048];
		snprintf(want, sizeof want, "%s/%s", root, f.path);
		assert_string_equal(f.location, want);
		struct stat st;
		assert_int_equal(stat(f.location, &st), 0);
		assert_int_equal((int64_t)st.st_size, f.size);
		assert_true(f.num_records > 0);
		assert_non_null(strstr(f.stats, "numRecords"));
		assert_int_equal(f.has_deletion_vector, fi.has_deletion_vector);
		if (f.has_deletion_vector) {
			const dl_deletion_vector_info *d = &f.deletion_vector;
			dvs++;
			assert_int_equal(d->storage_type, 'u');
			assert_int_equal(strlen(d->path_or_inline_dv), 20); /* z85 of a UUID */
			assert_true(d->offset >= 1);
			assert_true(d->size_in_bytes > 0);
			assert_int_equal(d->cardinality, fi.deleted_rows);
			snprintf(want, sizeof want, "%s/deletion_vector_", root);
			assert_true(strncmp(d->location, want, strlen(want)) == 0);
			assert_int_equal(stat(d->location, &st), 0);
			assert_true(st.st_size >= d->offset + d->size_in_bytes);
		} else {
			assert_null(f.deletion_vector.location);
		}
		live += f.num_records - (f.has_deletion_vector ? f.deletion_vector.cardinality : 0);
		n = engine_read(scan, i, rs, mine, n, 100000);
	}
	assert_true(dvs > 0);
	assert_int_equal((int64_t)n, live);
	size_t m = scan_keys(snap, theirs, 100000);
	assert_int_equal(n, m);
	qsort(mine, n, sizeof *mine, cmp_i64);
	qsort(theirs, m, sizeof *theirs, cmp_i64);
	assert_memory_equal(mine, theirs, n * sizeof *mine);

	dl_scan_file f;
	assert_int_equal(dl_scan_file_get(&f, scan, dl_scan_file_count(scan)), DL_EINVALID);
	const char *k, *v;
	assert_int_equal(dl_scan_file_partition_value(&k, &v, scan, 0, 1), DL_EINVALID);
	dl_store_free(rs);
	dl_scan_free(scan);
	dl_snapshot_free(snap);
}

static void dv_partitioned_with_checkpoint(void **state)
{
	(void)state;
	check_golden("dv-partitioned-with-checkpoint", false);
}

static void dv_with_column_mapping(void **state)
{
	(void)state;
	check_golden("dv-with-columnmapping", true);
}

/* Column mapping mode id: data columns are matched by field id, which the
 * columns and the physical schema give. */
static void column_mapping_id(void **state)
{
	(void)state;
	char dir[1024];
	snprintf(dir, sizeof dir, "%s/conformance/golden/table-with-columnmapping-mode-id/delta", shared_dir());
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, dir, NULL), 0);
	dl_scan *scan;
	assert_int_equal(dl_scan_open(&scan, snap, NULL), 0);
	struct ArrowSchema phys;
	assert_int_equal(dl_scan_physical_schema(&phys, scan), 0);
	int data = 0;
	for (size_t c = 0; c < dl_scan_column_count(scan); c++) {
		dl_scan_column sc;
		assert_int_equal(dl_scan_column_at(&sc, scan, c), 0);
		if (sc.kind != DL_SCAN_COLUMN_DATA) continue;
		assert_true(sc.field_id > 0);
		assert_true(strncmp(sc.physical_name, "col-", 4) == 0);
		assert_string_not_equal(sc.physical_name, sc.name);
		/* the physical schema's field of the same name carries the id */
		bool found = false;
		for (int64_t k = 0; k < phys.n_children; k++) {
			if (strcmp(phys.children[k]->name, sc.physical_name) != 0) continue;
			char want[64];
			snprintf(want, sizeof want, "\"parquet.field.id\":%d", (int)sc.field_id);
			const char *m = phys.children[k]->metadata;
			assert_non_null(m);
			/* Arrow metadata: int32 count, then length-prefixed key/values */
			int32_t nkv, klen, vlen;
			memcpy(&nkv, m, 4);
			assert_int_equal(nkv, 1);
			memcpy(&klen, m + 4, 4);
			assert_memory_equal(m + 8, DL_ARROW_DELTA_METADATA_KEY, (size_t)klen);
			memcpy(&vlen, m + 8 + klen, 4);
			char val[256];
			snprintf(val, sizeof val, "%.*s", (int)vlen, m + 12 + klen);
			assert_non_null(strstr(val, want));
			found = true;
		}
		assert_true(found);
		data++;
	}
	assert_true(data > 0);
	assert_int_equal(phys.n_children, data);
	phys.release(&phys);
	dl_scan_free(scan);
	dl_snapshot_free(snap);
}

/* Row tracking fields, a null partition value, a path the log escapes and
 * an absolute path, in a log written by hand. */
static void row_tracking_and_paths(void **state)
{
	(void)state;
	fixture f;
	assert_int_equal(fixture_open(&f), 0);
	int64_t a[5] = {1, 2, 3, 4, 5}, b[3] = {7, 8, 9};
	int64_t s1, s2;
	assert_int_equal(fixture_parquet(&f, "p=a b/x.parquet", fixture_batch("id", a, 5, false, DL_TYPE_LONG), &s1), 0);
	assert_int_equal(fixture_parquet(&f, "elsewhere/y.parquet", fixture_batch("id", b, 3, false, DL_TYPE_LONG), &s2), 0);
	uint64_t del[] = {0, 3};
	dl_buf dv = DL_BUF_INIT;
	assert_int_equal(fixture_dv(&f, del, 2, &dv, 0x33), 0);
	char add1[1024], add2[1024];
	snprintf(add1, sizeof add1,
	         "{\"add\":{\"path\":\"p=a%%20b/x.parquet\",\"partitionValues\":{\"P\":\"a b\"},\"size\":%lld,"
	         "\"modificationTime\":1234,\"dataChange\":true,\"baseRowId\":100,\"defaultRowCommitVersion\":3,"
	         "\"stats\":\"{\\\"numRecords\\\":5}\",\"deletionVector\":%s}}", (long long)s1, dv.data);
	snprintf(add2, sizeof add2,
	         "{\"add\":{\"path\":\"file://%s/elsewhere/y.parquet\",\"partitionValues\":{\"P\":null},"
	         "\"size\":%lld,\"modificationTime\":5678,\"dataChange\":true,\"baseRowId\":105,"
	         "\"defaultRowCommitVersion\":4}}", f.dir, (long long)s2);
	const char *lines[] = {
		"{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":[\"deletionVectors\"],"
		"\"writerFeatures\":[\"deletionVectors\",\"rowTracking\",\"domainMetadata\"]}}",
		"{\"metaData\":{\"id\":\"t\",\"format\":{\"provider\":\"parquet\",\"options\":{}},\"schemaString\":"
		"\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"id\\\",\\\"type\\\":\\\"long\\\","
		"\\\"nullable\\\":true,\\\"metadata\\\":{}},{\\\"name\\\":\\\"P\\\",\\\"type\\\":\\\"string\\\","
		"\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\",\"partitionColumns\":[\"P\"],"
		"\"configuration\":{\"delta.enableRowTracking\":\"true\"}}}",
		add1, add2};
	assert_int_equal(fixture_commit(&f, 0, lines, 4), 0);
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, f.dir, NULL), 0);
	dl_scan_options o = DL_SCAN_OPTIONS_INIT;
	const char *cols[] = {"id", DL_SCAN_ROW_ID, DL_SCAN_ROW_COMMIT_VERSION};
	o.columns = cols;
	o.ncolumns = 3;
	dl_scan *scan;
	assert_int_equal(dl_scan_open(&scan, snap, &o), 0);
	assert_int_equal(dl_scan_file_count(scan), 2);
	dl_scan_file sf[2];
	for (size_t i = 0; i < 2; i++) assert_int_equal(dl_scan_file_get(&sf[i], scan, i), 0);
	if (sf[0].base_row_id != 100) { /* order of the scan is the snapshot's */
		dl_scan_file t = sf[0];
		sf[0] = sf[1];
		sf[1] = t;
	}
	char want[512];
	assert_string_equal(sf[0].path, "p=a b/x.parquet"); /* decoded */
	assert_string_equal(sf[0].log_path, "p=a%20b/x.parquet"); /* as in the log */
	snprintf(want, sizeof want, "%s/p=a b/x.parquet", f.dir);
	assert_string_equal(sf[0].location, want);
	assert_int_equal(sf[0].base_row_id, 100);
	assert_int_equal(sf[0].default_row_commit_version, 3);
	assert_int_equal(sf[0].modification_time, 1234);
	assert_int_equal(sf[0].num_records, 5);
	assert_true(sf[0].has_deletion_vector);
	assert_int_equal(sf[0].deletion_vector.cardinality, 2);
	snprintf(want, sizeof want, "%s/elsewhere/y.parquet", f.dir);
	assert_string_equal(sf[1].path, want); /* file:// URI made a local path */
	char uri[600];
	snprintf(uri, sizeof uri, "file://%s", want);
	assert_string_equal(sf[1].log_path, uri);
	assert_string_equal(sf[1].location, want);
	assert_int_equal(sf[1].base_row_id, 105);
	assert_int_equal(sf[1].default_row_commit_version, 4);
	assert_int_equal(sf[1].num_records, -1); /* no stats */
	assert_false(sf[1].has_deletion_vector);
	for (size_t i = 0; i < 2; i++) {
		const char *k, *v;
		assert_int_equal(dl_scan_file_partition_value(&k, &v, scan, i, 0), 0);
		assert_string_equal(k, "P");
		dl_scan_file one;
		assert_int_equal(dl_scan_file_get(&one, scan, i), 0);
		if (one.base_row_id == 100) assert_string_equal(v, "a b");
		else assert_null(v);
		uint64_t *rows;
		size_t n;
		assert_int_equal(dl_scan_file_deleted_rows(&rows, &n, scan, i), 0);
		if (one.base_row_id == 100) {
			assert_int_equal(n, 2);
			assert_int_equal(rows[0], 0);
			assert_int_equal(rows[1], 3);
		} else {
			assert_int_equal(n, 0);
			assert_null(rows);
		}
		dl_free(rows);
	}
	/* the columns: data, then the row tracking ones (not materialized) */
	assert_int_equal(dl_scan_column_count(scan), 3);
	dl_scan_column c;
	assert_int_equal(dl_scan_column_at(&c, scan, 0), 0);
	assert_string_equal(c.name, "id");
	assert_string_equal(c.physical_name, "id");
	assert_int_equal(dl_scan_column_at(&c, scan, 1), 0);
	assert_int_equal(c.kind, DL_SCAN_COLUMN_ROW_ID);
	assert_null(c.physical_name);
	assert_int_equal(dl_scan_column_at(&c, scan, 2), 0);
	assert_int_equal(c.kind, DL_SCAN_COLUMN_ROW_COMMIT_VERSION);
	assert_int_equal(dl_scan_column_at(&c, scan, 3), DL_EINVALID);
	struct ArrowSchema phys;
	assert_int_equal(dl_scan_physical_schema(&phys, scan), 0);
	assert_int_equal(phys.n_children, 1);
	assert_string_equal(phys.children[0]->name, "id");
	phys.release(&phys);
	/* the row ids an engine computes (base + index, DV rows dropped) are
	 * those of the scan */
	dl_batch_stream *bs;
	assert_int_equal(dl_scan_batches(&bs, scan), 0);
	int64_t ids[16], rid[16], rcv[16];
	size_t n = 0;
	dl_batch *bt;
	while (dl_batch_stream_next(bs, &bt) == 0 && bt) {
		for (int64_t r = 0; r < bt->num_rows; r++, n++) {
			ids[n] = col_i64(bt, 0, r);
			rid[n] = col_i64(bt, 1, r);
			rcv[n] = col_i64(bt, 2, r);
		}
		dl_batch_free(bt);
	}
	dl_batch_stream_free(bs);
	assert_int_equal(n, 6); /* 5 - 2 deleted + 3 */
	for (size_t i = 0; i < n; i++) {
		if (ids[i] <= 5) {
			assert_int_equal(rid[i], 100 + (ids[i] - 1));
			assert_int_equal(rcv[i], 3);
		} else {
			assert_int_equal(rid[i], 105 + (ids[i] - 7));
			assert_int_equal(rcv[i], 4);
		}
	}
	dl_buf_free(&dv);
	dl_scan_free(scan);
	dl_snapshot_free(snap);
	fixture_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dv_partitioned_with_checkpoint),
		cmocka_unit_test(dv_with_column_mapping),
		cmocka_unit_test(column_mapping_id),
		cmocka_unit_test(row_tracking_and_paths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
