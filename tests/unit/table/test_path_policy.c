/* The path policy of snapshots and scans (allowed roots), absolute data and
 * DV paths resolved through the store registry, and DV files opened once
 * per scan. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "storage/resolve.h"
#include "storage/store_fault.h"
#include "table/scan.h"
#include "table_fixture.h"
#include "util/error.h"
#include <sys/stat.h>

static const char *protocol_dv = "{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,"
                                 "\"readerFeatures\":[\"deletionVectors\"],\"writerFeatures\":[\"deletionVectors\"]}}";
static const char *metadata =
	"{\"metaData\":{\"id\":\"t1\",\"format\":{\"provider\":\"parquet\",\"options\":{}},\"schemaString\":"
	"\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"id\\\",\\\"type\\\":\\\"long\\\","
	"\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\",\"partitionColumns\":[],"
	"\"configuration\":{\"delta.enableDeletionVectors\":\"true\"},\"createdTime\":1}}";

/* Writes ids first..first+9 as Parquet at `path` of store st. */
static int64_t put_data(dl_store *st, const char *path, int64_t first)
{
	fixture tmp = {.store = st};
	int64_t v[10], size = 0;
	for (int i = 0; i < 10; i++) v[i] = first + i;
	assert_int_equal(fixture_parquet(&tmp, path, fixture_batch("id", v, 10, false, DL_TYPE_LONG), &size), 0);
	return size;
}

static void add_line(char *out, size_t n, const char *path, int64_t size, const char *dv)
{
	snprintf(out, n, "{\"add\":{\"path\":\"%s\",\"partitionValues\":{},\"size\":%lld,\"modificationTime\":1,"
	         "\"dataChange\":true%s%s}}", path, (long long)size, dv ? ",\"deletionVector\":" : "", dv ? dv : "");
}

/* A table in f whose one add names `path` (with an optional DV). */
static void make_table(fixture *f, const char *path, int64_t size, const char *dv)
{
	char add[2048];
	add_line(add, sizeof add, path, size, dv);
	const char *lines[] = {protocol_dv, metadata, add};
	assert_int_equal(fixture_commit(f, 0, lines, 3), 0);
}

/* Rows of a scan with the given allowed roots (NULL: none), or the error. */
static int scan_rows(int64_t *rows, const char *table, const char *const *roots, int nroots)
{
	*rows = 0;
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	so.allowed_roots = roots;
	so.nallowed_roots = nroots;
	dl_snapshot *snap;
	int rc = dl_snapshot_open(&snap, table, &so);
	if (rc < 0) return rc;
	dl_scan *scan = NULL;
	rc = dl_scan_open(&scan, snap, NULL);
	dl_batch_stream *bs = NULL;
	if (rc == 0) rc = dl_scan_batches(&bs, scan);
	dl_batch *b;
	while (rc == 0 && (rc = dl_batch_stream_next(bs, &b)) == 0 && b) {
		*rows += b->num_rows;
		dl_batch_free(b);
	}
	dl_batch_stream_free(bs);
	dl_scan_free(scan);
	dl_snapshot_free(snap);
	return rc;
}

static void relative_escape_refused(void **state)
{
	(void)state;
	fixture t, other;
	assert_int_equal(fixture_open(&t), 0);
	assert_int_equal(fixture_open(&other), 0);
	int64_t size = put_data(other.store, "x.parquet", 0);
	char rel[512];
	snprintf(rel, sizeof rel, "../%s/x.parquet", strrchr(other.dir, '/') + 1);
	make_table(&t, rel, size, NULL);
	const char *roots[] = {other.dir};
	int64_t rows;
	/* Even with the file's directory allowed: a relative path is relative
	 * to the table root and may not climb out of it. */
	assert_int_equal(scan_rows(&rows, t.dir, roots, 1), DL_EPERM);
	assert_non_null(strstr(dl_error_last()->message, rel));
	assert_non_null(strstr(dl_error_last()->message, t.dir));
	assert_non_null(strstr(dl_error_last()->message, "path policy"));
	/* Without a policy it stays what it was: an invalid object path. */
	assert_int_equal(scan_rows(&rows, t.dir, NULL, 0), DL_EINVALID);
	fixture_close(&t);
	fixture_close(&other);
}

/* Relative paths that stay inside the table pass the policy, '%' and all. */
static void relative_inside_accepted(void **state)
{
	(void)state;
	fixture t;
	assert_int_equal(fixture_open(&t), 0);
	int64_t size = put_data(t.store, "p=50%/x.parquet", 0);
	make_table(&t, "p=50%25/x.parquet", size, NULL); /* the log's URI form */
	const char *roots[] = {"/nonexistent"};
	int64_t rows;
	assert_int_equal(scan_rows(&rows, t.dir, roots, 1), 0);
	assert_int_equal(rows, 10);
	fixture_close(&t);
}

static void absolute_outside_refused_inside_accepted(void **state)
{
	(void)state;
	fixture t, other;
	assert_int_equal(fixture_open(&t), 0);
	assert_int_equal(fixture_open(&other), 0);
	int64_t size = put_data(other.store, "sub/x.parquet", 0);
	char abs[512];
	snprintf(abs, sizeof abs, "file://%s/sub/x.parquet", other.dir);
	make_table(&t, abs, size, NULL);
	int64_t rows;
	/* default: absolute paths are legal (shallow clones) */
	assert_int_equal(scan_rows(&rows, t.dir, NULL, 0), 0);
	assert_int_equal(rows, 10);
	/* a root elsewhere: refused, naming the path and the table */
	const char *tmp_root[] = {"/nonexistent/root"};
	assert_int_equal(scan_rows(&rows, t.dir, tmp_root, 1), DL_EPERM);
	assert_non_null(strstr(dl_error_last()->message, "sub/x.parquet"));
	assert_non_null(strstr(dl_error_last()->message, t.dir));
	/* a prefix of the directory name is not the directory: /tmp/x_ABC is
	 * not inside /tmp/x_AB */
	char prefix[512];
	snprintf(prefix, sizeof prefix, "%.*s", (int)strlen(other.dir) - 1, other.dir);
	const char *prefix_root[] = {prefix};
	assert_int_equal(scan_rows(&rows, t.dir, prefix_root, 1), DL_EPERM);
	/* ".." in the root is normalized; a file: URI root equals the path */
	char dotted[600], uri_root[600];
	snprintf(dotted, sizeof dotted, "%s/sub/../sub", other.dir);
	snprintf(uri_root, sizeof uri_root, "file://%s", other.dir);
	const char *roots_ok[] = {"/nonexistent", dotted};
	assert_int_equal(scan_rows(&rows, t.dir, roots_ok, 2), 0);
	assert_int_equal(rows, 10);
	const char *roots_uri[] = {uri_root};
	assert_int_equal(scan_rows(&rows, t.dir, roots_uri, 1), 0);
	assert_int_equal(rows, 10);
	fixture_close(&t);
	fixture_close(&other);
}

static void absolute_inside_table_and_scan_roots(void **state)
{
	(void)state;
	fixture t, other;
	assert_int_equal(fixture_open(&t), 0);
	assert_int_equal(fixture_open(&other), 0);
	int64_t size = put_data(t.store, "in.parquet", 0);
	char abs[512];
	snprintf(abs, sizeof abs, "%s/in.parquet", t.dir);
	make_table(&t, abs, size, NULL);
	int64_t rows;
	const char *roots[] = {"/nonexistent"};
	/* inside the table root: always allowed (a literal '%' is a character) */
	assert_int_equal(scan_rows(&rows, t.dir, roots, 1), 0);
	assert_int_equal(rows, 10);

	/* dl_scan_options roots replace the snapshot's, refused at dl_scan_open */
	int64_t s2 = put_data(other.store, "o.parquet", 0);
	char abs2[512];
	snprintf(abs2, sizeof abs2, "%s/o.parquet", other.dir);
	char add[2048];
	add_line(add, sizeof add, abs2, s2, NULL);
	const char *lines[] = {add};
	assert_int_equal(fixture_commit(&t, 1, lines, 1), 0);
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	const char *snap_roots[] = {other.dir};
	so.allowed_roots = snap_roots;
	so.nallowed_roots = 1;
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, t.dir, &so), 0);
	dl_scan *scan;
	assert_int_equal(dl_scan_open(&scan, snap, NULL), 0);
	dl_scan_free(scan);
	dl_scan_options sco = DL_SCAN_OPTIONS_INIT;
	sco.allowed_roots = roots;
	sco.nallowed_roots = 1;
	assert_int_equal(dl_scan_open(&scan, snap, &sco), DL_EPERM);
	assert_non_null(strstr(dl_error_last()->message, "o.parquet"));
	/* a version-1 scan options struct still works (fields up to v1 read) */
	sco.version = 1;
	assert_int_equal(dl_scan_open(&scan, snap, &sco), 0);
	dl_scan_free(scan);
	sco.version = DL_SCAN_OPTIONS_VERSION + 1;
	assert_int_equal(dl_scan_open(&scan, snap, &sco), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "dl_scan_options"));
	dl_snapshot_free(snap);
	fixture_close(&t);
	fixture_close(&other);
}

/* A DV file with one DV per data file (as Spark packs them). */
static void put_packed_dvs(dl_store *st, const char *path, int n, int64_t *offs, int32_t *sizes)
{
	dl_buf file = DL_BUF_INIT;
	for (int i = 0; i < n; i++) {
		uint64_t del[] = {(uint64_t)i, 9};
		dl_dv_rows r;
		assert_int_equal(dl_dv_rows_from_array(&r, del, 2), 0);
		assert_int_equal(dl_dv_write_file(&r, &file, &offs[i], &sizes[i]), 0);
		dl_dv_rows_free(&r);
	}
	assert_int_equal(dl_store_put(st, path, file.data, file.len), 0);
	dl_buf_free(&file);
}

static void absolute_dv_outside_refused(void **state)
{
	(void)state;
	fixture t, other;
	assert_int_equal(fixture_open(&t), 0);
	assert_int_equal(fixture_open(&other), 0);
	int64_t size = put_data(t.store, "a.parquet", 0);
	int64_t off;
	int32_t dsz;
	put_packed_dvs(other.store, "dv.bin", 1, &off, &dsz);
	char dv[1024];
	snprintf(dv, sizeof dv, "{\"storageType\":\"p\",\"pathOrInlineDv\":\"file://%s/dv.bin\",\"offset\":%lld,"
	         "\"sizeInBytes\":%d,\"cardinality\":2}", other.dir, (long long)off, (int)dsz);
	make_table(&t, "a.parquet", size, dv);
	int64_t rows;
	assert_int_equal(scan_rows(&rows, t.dir, NULL, 0), 0);
	assert_int_equal(rows, 8);
	const char *roots[] = {"/nonexistent"};
	assert_int_equal(scan_rows(&rows, t.dir, roots, 1), DL_EPERM);
	assert_non_null(strstr(dl_error_last()->message, "deletion vector file"));
	assert_non_null(strstr(dl_error_last()->message, "dv.bin"));
	const char *roots_ok[] = {other.dir};
	assert_int_equal(scan_rows(&rows, t.dir, roots_ok, 1), 0);
	assert_int_equal(rows, 8);
	fixture_close(&t);
	fixture_close(&other);
}

/* Four data files whose DVs share one file: the scan opens it once (the
 * fault store counts the calls; data files are read by ranges). */
static void dv_file_opened_once(void **state)
{
	(void)state;
	fixture t;
	assert_int_equal(fixture_open(&t), 0);
	int64_t offs[4];
	int32_t sizes[4];
	put_packed_dvs(t.store, "deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin", 4, offs, sizes);
	dl_buf id = DL_BUF_INIT;
	uint8_t uuid[16] = {0xd2, 0xc6, 0x39, 0xaa, 0x88, 0x16, 0x43, 0x1a, 0xaa, 0xf6, 0xd3, 0xfe, 0x25, 0x12, 0xff, 0x61};
	assert_int_equal(dl_z85_encode(&id, uuid, 16), 0);
	const char *lines[6] = {protocol_dv, metadata};
	char adds[4][2048];
	for (int i = 0; i < 4; i++) {
		char path[32], dv[512];
		snprintf(path, sizeof path, "f%d.parquet", i);
		int64_t size = put_data(t.store, path, 10 * i);
		snprintf(dv, sizeof dv, "{\"storageType\":\"u\",\"pathOrInlineDv\":\"%s\",\"offset\":%lld,"
		         "\"sizeInBytes\":%d,\"cardinality\":2}", id.data, (long long)offs[i], (int)sizes[i]);
		add_line(adds[i], sizeof adds[i], path, size, dv);
		lines[2 + i] = adds[i];
	}
	assert_int_equal(fixture_commit(&t, 0, lines, 6), 0);
	char uri[512];
	snprintf(uri, sizeof uri, "fault://file://%s", t.dir);
	dl_store *fs;
	assert_int_equal(dl_store_open(&fs, uri, NULL), 0);
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	so.store = fs;
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, NULL, &so), 0);
	dl_scan *scan;
	dl_scan_options sco = DL_SCAN_OPTIONS_INIT;
	sco.threads = 2;
	assert_int_equal(dl_scan_open(&scan, snap, &sco), 0);
	assert_int_equal(dl_store_fault_counts_reset(fs), 0);
	dl_batch_stream *bs;
	assert_int_equal(dl_scan_batches(&bs, scan), 0);
	int64_t rows = 0, sum = 0;
	dl_batch *b;
	while (dl_batch_stream_next(bs, &b) == 0 && b) {
		for (int64_t r = 0; r < b->num_rows; r++) sum += col_i64(b, 0, r);
		rows += b->num_rows;
		dl_batch_free(b);
	}
	dl_batch_stream_free(bs);
	assert_int_equal(rows, 32); /* each file loses row i and row 9 */
	int64_t want = 0;
	for (int i = 0; i < 4; i++)
		for (int k = 0; k < 10; k++)
			if (k != i && k != 9) want += 10 * i + k;
	assert_int_equal(sum, want);
	dl_store_fault_counts c;
	assert_int_equal(dl_store_fault_counts_get(&c, fs), 0);
	assert_int_equal(c.calls[DL_FAULT_READER_OPEN], 1); /* the DV file, once */
	assert_int_equal(c.calls[DL_FAULT_GET], 0);         /* no whole-file DV reads */
	assert_true(c.calls[DL_FAULT_GET_RANGE] >= 4);      /* the data files */
	assert_int_equal(dl_dv_files_count(scan->dvs), 1);
	dl_scan_free(scan);
	dl_snapshot_free(snap);
	dl_store_free(fs);
	dl_buf_free(&id);
	fixture_close(&t);
}

/* The library side of the FIFO defect: a scan of a table whose add names a
 * FIFO fails at once with "not a regular file" (it used to block in open). */
static void fifo_data_file_refused(void **state)
{
	(void)state;
	fixture t;
	assert_int_equal(fixture_open(&t), 0);
	char fifo[512];
	snprintf(fifo, sizeof fifo, "%s/pipe.parquet", t.dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	make_table(&t, "pipe.parquet", 100, NULL);
	alarm(10); /* a regression blocks: SIGALRM fails the test instead */
	int64_t rows;
	assert_int_equal(scan_rows(&rows, t.dir, NULL, 0), DL_EINVALID);
	alarm(0);
	assert_non_null(strstr(dl_error_last()->message, "not a regular file"));
	assert_non_null(strstr(dl_error_last()->message, "pipe.parquet"));
	fixture_close(&t);
}

static void canonical_forms(void **state)
{
	(void)state;
	char *c;
	assert_int_equal(dl_path_canonical(&c, "/data//t/./x/../y"), 0);
	assert_string_equal(c, "file:///data/t/y");
	dl_free(c);
	assert_int_equal(dl_path_canonical(&c, "file:/data/a%20b/"), 0);
	assert_string_equal(c, "file:///data/a b");
	dl_free(c);
	assert_int_equal(dl_path_canonical(&c, "S3://Bucket/t/../u"), 0);
	assert_string_equal(c, "s3://Bucket/u");
	dl_free(c);
	assert_int_equal(dl_path_canonical(&c, "fault://mem://x/t"), 0);
	assert_string_equal(c, "mem://x/t");
	dl_free(c);
	assert_int_equal(dl_path_canonical(&c, "/a/../../b"), DL_EPERM);
	dl_path_roots r;
	const char *bad[] = {""};
	assert_int_equal(dl_path_roots_copy(&r, bad, 1, "dl_snapshot_options"), DL_EINVALID);
	assert_int_equal(dl_path_roots_copy(&r, NULL, 1, "dl_snapshot_options"), DL_EINVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(relative_escape_refused),
		cmocka_unit_test(relative_inside_accepted),
		cmocka_unit_test(absolute_outside_refused_inside_accepted),
		cmocka_unit_test(absolute_inside_table_and_scan_roots),
		cmocka_unit_test(absolute_dv_outside_refused),
		cmocka_unit_test(dv_file_opened_once),
		cmocka_unit_test(fifo_data_file_refused),
		cmocka_unit_test(canonical_forms),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
