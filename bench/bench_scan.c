/* Benchmark: scanning a 10M-row Delta table against reading its Parquet
 * files alone, and against DuckDB's read_parquet over the same files in the
 * same run (bench/bench_scan.mjs via node).
 *
 * usage: bench_scan [--rows N] [--files N] [--runs N] [--no-duckdb]
 * The table (long id, double value, string tag, partitioned by a string
 * `day`; our Parquet writer, zstd) is made once under
 * $DL_BINARY_DIR/bench-data/scan-<rows> and reused. Prints the best of N:
 *   parquet: every file read with pq_reader, one after the other (1 thread)
 *   scan-1:  dl_scan with threads=1 (log replay, planning, partition values)
 *   scan:    dl_scan on the whole pool
 *   duckdb:  SELECT sum(id), sum(value), count(tag) FROM read_parquet(files)
 * and the ratios scan-1/parquet (the overhead of the table layer; the goal
 * is <= 1.2) and scan/duckdb. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "columnar/builder.h"
#include "deltalake.h"
#include "parquet/reader.h"
#include "parquet/writer.h"
#include "table/scan.h"
#include "util/buf.h"
#include "util/error.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* CPU time of the whole process (every thread): steadier than wall time on
 * a loaded machine, and for threads=1 the same work as the plain reader. */
static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int write_file(dl_store *st, const char *path, int64_t first, int64_t n, int64_t *size)
{
	dl_type *lt = dl_type_new(DL_TYPE_LONG), *dt = dl_type_new(DL_TYPE_DOUBLE), *s = dl_type_new(DL_TYPE_STRING);
	dl_field fs[3] = {{"id", lt, true, "{}"}, {"value", dt, true, "{}"}, {"tag", s, true, "{}"}};
	dl_type *schema = dl_type_struct(fs, 3);
	dl_store_writer *w;
	int rc = dl_store_writer_open(&w, st, path);
	if (rc < 0) return rc;
	pq_sink sink;
	pq_sink_init_store(&sink, w);
	pq_writer_options o = PQ_WRITER_OPTIONS_INIT;
	pq_writer *pw;
	rc = pq_writer_open(&pw, schema, &sink, &o);
	const int64_t chunk = 65536;
	for (int64_t off = 0; rc == 0 && off < n; off += chunk) {
		int64_t m = n - off < chunk ? n - off : chunk;
		dl_batch *b = dl_batch_new(schema, m);
		dl_builder *bl[3];
		for (int c = 0; c < 3; c++) dl_builder_new(&bl[c], fs[c].type);
		for (int64_t i = 0; i < m; i++) {
			int64_t id = first + off + i;
			dl_builder_append_int(bl[0], id);
			dl_builder_append_double(bl[1], (double)(id % 1000) * 0.5);
			char tag[16];
			int len = snprintf(tag, sizeof tag, "t%03d", (int)(id % 97));
			dl_builder_append_bytes(bl[2], tag, (size_t)len);
		}
		for (int c = 0; c < 3; c++) {
			dl_builder_finish(&b->cols[c], bl[c]);
			dl_builder_free(bl[c]);
		}
		rc = pq_writer_write(pw, b);
		dl_batch_free(b);
	}
	if (rc == 0) rc = pq_writer_close(pw);
	*size = pq_writer_file_size(pw);
	pq_writer_free(pw);
	if (rc == 0) rc = dl_store_writer_commit(w, 0);
	else dl_store_writer_abort(w);
	dl_type_unref(schema);
	dl_type_unref(lt);
	dl_type_unref(dt);
	dl_type_unref(s);
	return rc;
}

/* The table: `files` files of rows/files rows, partitioned by day. */
static int make_table(const char *dir, int64_t rows, int files)
{
	struct stat sb;
	char probe[1200];
	snprintf(probe, sizeof probe, "%s/_delta_log/00000000000000000000.json", dir);
	if (stat(probe, &sb) == 0) return 0;
	printf("making %s (%" PRId64 " rows, %d files)...\n", dir, rows, files);
	fflush(stdout);
	dl_store *st;
	DL_TRY(dl_store_open(&st, dir, NULL));
	dl_buf log = DL_BUF_INIT;
	dl_buf_puts(&log, "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n"
	                  "{\"metaData\":{\"id\":\"bench-scan\",\"format\":{\"provider\":\"parquet\",\"options\":{}},"
	                  "\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":["
	                  "{\\\"name\\\":\\\"id\\\",\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}},"
	                  "{\\\"name\\\":\\\"value\\\",\\\"type\\\":\\\"double\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}},"
	                  "{\\\"name\\\":\\\"tag\\\",\\\"type\\\":\\\"string\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}},"
	                  "{\\\"name\\\":\\\"day\\\",\\\"type\\\":\\\"string\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\","
	                  "\"partitionColumns\":[\"day\"],\"configuration\":{},\"createdTime\":1}}\n");
	int rc = 0;
	int64_t per = rows / files;
	for (int f = 0; rc == 0 && f < files; f++) {
		char path[128];
		int64_t n = f == files - 1 ? rows - per * f : per, size = 0;
		snprintf(path, sizeof path, "day=2024-01-%02d/part-%05d.parquet", f % 28 + 1, f);
		rc = write_file(st, path, per * f, n, &size);
		dl_buf_printf(&log, "{\"add\":{\"path\":\"%s\",\"partitionValues\":{\"day\":\"2024-01-%02d\"},\"size\":%" PRId64
		              ",\"modificationTime\":1,\"dataChange\":true,\"stats\":\"{\\\"numRecords\\\":%" PRId64
		              ",\\\"minValues\\\":{\\\"id\\\":%" PRId64 "},\\\"maxValues\\\":{\\\"id\\\":%" PRId64 "}}\"}}\n",
		              path, f % 28 + 1, size, n, per * f, per * f + n - 1);
	}
	if (rc == 0) rc = dl_store_put(st, "_delta_log/00000000000000000000.json", log.data, log.len);
	dl_buf_free(&log);
	dl_store_free(st);
	return rc;
}

static int64_t checksum_batch(const dl_batch *b, int id_col)
{
	const int64_t *v = b->cols[id_col]->values;
	int64_t s = 0;
	for (int64_t i = 0; i < b->num_rows; i++) s += v[i];
	return s;
}

static int run_parquet(dl_snapshot *snap, int64_t *rows, int64_t *sum)
{
	*rows = *sum = 0;
	dl_store *st = dl_snapshot_store(snap);
	for (size_t i = 0; i < dl_snapshot_file_count(snap); i++) {
		dl_file_info fi;
		DL_TRY(dl_snapshot_file_at(&fi, snap, i));
		pq_reader *r;
		DL_TRY(pq_reader_open_store(&r, st, fi.path, fi.size));
		dl_batch *b;
		int64_t first;
		int rc;
		while ((rc = pq_reader_next(r, &b, &first)) == 0 && b) {
			*rows += b->num_rows;
			*sum += checksum_batch(b, 0);
			dl_batch_free(b);
		}
		pq_reader_free(r);
		DL_TRY(rc);
	}
	return 0;
}

/* The whole scan including opening the snapshot (what a reader pays). */
static int run_scan(const char *dir, int threads, bool data_only, int64_t *rows, int64_t *sum)
{
	static const char *const data_cols[] = {"id", "value", "tag"};
	*rows = *sum = 0;
	dl_snapshot *snap;
	DL_TRY(dl_snapshot_open(&snap, dir, NULL));
	dl_scan_options o = DL_SCAN_OPTIONS_INIT;
	o.threads = threads;
	if (data_only) {
		o.columns = data_cols;
		o.ncolumns = 3;
	}
	dl_scan *scan = NULL;
	dl_batch_stream *bs = NULL;
	int rc = dl_scan_open(&scan, snap, &o);
	if (rc == 0) rc = dl_scan_batches(&bs, scan);
	dl_batch *b;
	while (rc == 0 && (rc = dl_batch_stream_next(bs, &b)) == 0 && b) {
		*rows += b->num_rows;
		*sum += checksum_batch(b, 0);
		dl_batch_free(b);
	}
	dl_batch_stream_free(bs);
	dl_scan_free(scan);
	dl_snapshot_free(snap);
	return rc;
}

static double duckdb_ms(const char *dir, int runs, double *cpu)
{
	const char *src = getenv("DL_SOURCE_DIR");
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "node '%s/bench/bench_scan.mjs' '%s' %d", src ? src : ".", dir, runs);
	FILE *p = popen(cmd, "r");
	if (!p) return -1;
	char line[512];
	double ms = -1;
	while (fgets(line, sizeof line, p)) {
		const char *b = strstr(line, "best_ms="), *c = strstr(line, "cpu_ms=");
		if (b) ms = strtod(b + 8, NULL);
		if (c) *cpu = strtod(c + 7, NULL);
		fputs("  ", stdout);
		fputs(line, stdout);
	}
	return pclose(p) == 0 ? ms : -1;
}

int main(int argc, char **argv)
{
	int64_t rows = 10000000;
	int files = 20, runs = 3;
	bool duck = true;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rows") && i + 1 < argc) rows = strtoll(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--files") && i + 1 < argc) files = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--no-duckdb")) duck = false;
		else {
			fprintf(stderr, "usage: bench_scan [--rows N] [--files N] [--runs N] [--no-duckdb]\n");
			return 2;
		}
	}
	const char *bin = getenv("DL_BINARY_DIR");
	char dir[1024];
	snprintf(dir, sizeof dir, "%s/bench-data/scan-%" PRId64, bin && *bin ? bin : ".", rows);
	if (make_table(dir, rows, files) < 0) {
		fprintf(stderr, "bench_scan: making the table failed: %s\n", dl_error_last()->message);
		return 1;
	}
	dl_snapshot *snap;
	if (dl_snapshot_open(&snap, dir, NULL) < 0) {
		fprintf(stderr, "bench_scan: %s\n", dl_error_last()->message);
		return 1;
	}
	/* best wall and CPU time of: parquet, scan-1, scan (pool), scan-1 without day */
	double wall[4] = {1e30, 1e30, 1e30, 1e30}, cpu[4] = {1e30, 1e30, 1e30, 1e30};
	int64_t n[4], s[4];
	for (int r = 0; r < runs; r++) {
		for (int k = 0; k < 4; k++) {
			double t = now_ms(), c = cpu_ms();
			int rc = k == 0 ? run_parquet(snap, &n[k], &s[k])
			                : run_scan(dir, k == 2 ? 0 : 1, k == 3, &n[k], &s[k]);
			if (rc < 0) goto fail;
			double dt = now_ms() - t, dc = cpu_ms() - c;
			if (dt < wall[k]) wall[k] = dt;
			if (dc < cpu[k]) cpu[k] = dc;
		}
	}
	dl_snapshot_free(snap);
	for (int k = 1; k < 4; k++)
		if (n[k] != n[0] || s[k] != s[0]) {
			fprintf(stderr, "bench_scan: results differ (%" PRId64 " vs %" PRId64 " rows)\n", n[k], n[0]);
			return 1;
		}
	printf("rows=%" PRId64 " files=%d runs=%d (best of; wall and CPU of the process)\n", n[0], files, runs);
	printf("parquet  (pq_reader, 1 thread)    wall %8.1f ms  cpu %8.1f ms\n", wall[0], cpu[0]);
	printf("scan-1   (dl_scan, threads=1)     wall %8.1f ms  cpu %8.1f ms   cpu ratio scan-1/parquet = %.2f (goal <= 1.2)\n",
	       wall[1], cpu[1], cpu[1] / cpu[0]);
	printf("scan-1d  (threads=1, no `day`)    wall %8.1f ms  cpu %8.1f ms   cpu ratio scan-1d/parquet = %.2f\n", wall[3],
	       cpu[3], cpu[3] / cpu[0]);
	printf("scan     (dl_scan, pool)          wall %8.1f ms  cpu %8.1f ms\n", wall[2], cpu[2]);
	double *best = wall;
	if (duck) {
		double dcpu = -1, d = duckdb_ms(dir, runs, &dcpu);
		if (d > 0)
			printf("duckdb   (read_parquet, same files) wall %8.1f ms  cpu %8.1f ms   ratios duckdb/scan: wall %.2f, "
			       "cpu %.2f (>1: we are faster)\n", d, dcpu, d / best[2], dcpu / cpu[2]);
		else printf("duckdb: not available (run 'make oracle')\n");
	}
	return 0;
fail:
	fprintf(stderr, "bench_scan: %s\n", dl_error_last()->message);
	return 1;
}
