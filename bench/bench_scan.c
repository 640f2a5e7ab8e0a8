/* Benchmark: scanning a Delta table of 20 columns against DuckDB's
 * read_parquet over the same files, in the same run (bench/bench_scan.mjs
 * via node), with the same work on both sides: every value of every output
 * column is consumed (integers and doubles summed, strings' byte lengths
 * summed, which needs each string materialized), and both sides' results
 * are checked equal.
 *
 * usage: bench_scan [--rows N] [--files N] [--runs N] [--no-duckdb] [--case a|b|c] [--threads 1|2]
 * The table (20 columns: long, int, double and string, partitioned by a
 * string `day`; our Parquet writer, zstd) is made once under
 * $DL_BINARY_DIR/bench-data/scan20-<rows> and reused. Cases, each at 1 and
 * 2 threads, best of N wall and CPU (of the whole process):
 *   a: every column (the 20 data columns and `day`)
 *   b: 2 of the 20 columns (l1 long, s2 string)
 *   c: every column of the rows where k = 7 (0.1% of the rows, spread over
 *      every page: no statistics can prune)
 * plus, for case a, the files read with pq_reader alone (1 thread): the
 * cost of the table layer. */
#include <inttypes.h>
#include <math.h>
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

#define NCOLS 20

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* CPU time of the whole process (every thread). */
static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The columns: name, Delta type name, kind (l long, i int, d double, s string). */
static const struct {
	const char *name;
	char kind;
} cols[NCOLS] = {
	{"id", 'l'}, {"k", 'l'},  {"l1", 'l'}, {"l2", 'l'}, {"l3", 'l'}, {"l4", 'l'}, {"l5", 'l'},
	{"i1", 'i'}, {"i2", 'i'}, {"i3", 'i'}, {"d1", 'd'}, {"d2", 'd'}, {"d3", 'd'}, {"d4", 'd'},
	{"d5", 'd'}, {"s1", 's'}, {"s2", 's'}, {"s3", 's'}, {"s4", 's'}, {"s5", 's'},
};

/* Row `id`'s value in column c: a mix of sequential, low- and
 * high-cardinality values, so the writer picks dictionary, plain and
 * (for id) delta-friendly encodings as real tables do. */
static int64_t ival(int c, int64_t id)
{
	switch (c) {
	case 0: return id;
	case 1: return (id * 7919) % 1000;
	case 2: return id % 100000;
	case 3: return (id * 2654435761LL) % 1000000007LL;
	case 4: return id / 7;
	case 5: return id % 13;
	case 6: return (id * 31) % 4096 - 2048;
	case 7: return (int64_t)(id % 1000);
	case 8: return (int64_t)((id * 40503) % 65536);
	default: return (int64_t)(id % 3);
	}
}

static double dval(int c, int64_t id)
{
	switch (c) {
	case 10: return (double)(id % 1000) * 0.5;
	case 11: return (double)id / 3.0;
	case 12: return (double)((id * 7) % 100) + 0.25;
	case 13: return (double)((id * 2654435761LL) % 1000003) * 1e-3;
	default: return (double)(id % 10);
	}
}

static int sval(int c, int64_t id, char *buf, size_t cap)
{
	switch (c) {
	case 15: return snprintf(buf, cap, "t%03d", (int)(id % 97));
	case 16: return snprintf(buf, cap, "name-%d", (int)(id % 5000));
	case 17: return snprintf(buf, cap, "x%" PRId64 "-%" PRId64, id, (int64_t)((id * 2654435761LL) % 1000));
	case 18: return snprintf(buf, cap, "%s", id % 3 == 0 ? "red" : id % 3 == 1 ? "green" : "blue");
	default: return snprintf(buf, cap, "user%07" PRId64 "@example.com", (id * 48271) % 2000000);
	}
}

static dl_type *col_type(char kind)
{
	return dl_type_new(kind == 'l' ? DL_TYPE_LONG : kind == 'i' ? DL_TYPE_INTEGER : kind == 'd' ? DL_TYPE_DOUBLE : DL_TYPE_STRING);
}

static int write_file(dl_store *st, const char *path, int64_t first, int64_t n, int64_t *size)
{
	dl_field fs[NCOLS];
	for (int c = 0; c < NCOLS; c++) fs[c] = (dl_field){(char *)cols[c].name, col_type(cols[c].kind), true, "{}"};
	dl_type *schema = dl_type_struct(fs, NCOLS);
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
		for (int c = 0; c < NCOLS; c++) {
			dl_builder *bl;
			dl_builder_new(&bl, fs[c].type);
			for (int64_t i = 0; i < m; i++) {
				int64_t id = first + off + i;
				char buf[64];
				switch (cols[c].kind) {
				case 'd': dl_builder_append_double(bl, dval(c, id)); break;
				case 's': {
					int len = sval(c, id, buf, sizeof buf);
					dl_builder_append_bytes(bl, buf, (size_t)len);
					break;
				}
				default: dl_builder_append_int(bl, ival(c, id)); break;
				}
			}
			dl_builder_finish(&b->cols[c], bl);
			dl_builder_free(bl);
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
	for (int c = 0; c < NCOLS; c++) dl_type_unref(fs[c].type);
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
	                  "{\"metaData\":{\"id\":\"bench-scan20\",\"format\":{\"provider\":\"parquet\",\"options\":{}},"
	                  "\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[");
	for (int c = 0; c < NCOLS; c++) {
		char k = cols[c].kind;
		dl_buf_printf(&log, "{\\\"name\\\":\\\"%s\\\",\\\"type\\\":\\\"%s\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}},",
		              cols[c].name, k == 'l' ? "long" : k == 'i' ? "integer" : k == 'd' ? "double" : "string");
	}
	dl_buf_puts(&log, "{\\\"name\\\":\\\"day\\\",\\\"type\\\":\\\"string\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\","
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
		              ",\\\"minValues\\\":{\\\"id\\\":%" PRId64 ",\\\"k\\\":0},\\\"maxValues\\\":{\\\"id\\\":%" PRId64
		              ",\\\"k\\\":999}}\"}}\n",
		              path, f % 28 + 1, size, n, per * f, per * f + n - 1);
	}
	if (rc == 0) rc = dl_store_put(st, "_delta_log/00000000000000000000.json", log.data, log.len);
	dl_buf_free(&log);
	dl_store_free(st);
	return rc;
}

/* ---- the cases ---- */

typedef struct bench_case {
	const char *name;
	const char *const *columns; /* NULL: all */
	int ncolumns;
	const char *filter;
} bench_case;

static const char *const two_cols[] = {"l1", "s2"};
static const bench_case cases[3] = {
	{"a", NULL, 0, NULL},
	{"b", two_cols, 2, NULL},
	{"c", NULL, 0, "k = 7"},
};

/* What the consumer computes: rows, then per output column an integer sum
 * (longs, ints, string byte lengths) or a double sum. */
typedef struct result {
	int64_t rows;
	int n;
	int64_t isum[NCOLS + 1];
	double dsum[NCOLS + 1];
	bool is_double[NCOLS + 1];
} result;

static void consume(result *res, const dl_batch *b)
{
	res->rows += b->num_rows;
	res->n = b->ncols;
	for (int c = 0; c < b->ncols && c <= NCOLS; c++) {
		const dl_array *a = b->cols[c];
		int64_t n = a->length, s = 0;
		switch (a->type->id) {
		case DL_TYPE_LONG: {
			const int64_t *v = a->values;
			for (int64_t i = 0; i < n; i++) s += v[i];
			break;
		}
		case DL_TYPE_INTEGER: {
			const int32_t *v = a->values;
			for (int64_t i = 0; i < n; i++) s += v[i];
			break;
		}
		case DL_TYPE_DOUBLE: {
			const double *v = a->values;
			double d = 0;
			for (int64_t i = 0; i < n; i++) d += v[i];
			res->dsum[c] += d;
			res->is_double[c] = true;
			break;
		}
		default: {
			/* the byte length of every string: DuckDB's strlen() */
			const int32_t *o = a->offsets;
			for (int64_t i = 0; i < n; i++) s += o[i + 1] - o[i];
			break;
		}
		}
		res->isum[c] += s;
	}
}

static int run_parquet(dl_snapshot *snap, result *res)
{
	memset(res, 0, sizeof *res);
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
			consume(res, b);
			dl_batch_free(b);
		}
		pq_reader_free(r);
		DL_TRY(rc);
	}
	return 0;
}

/* The whole scan including opening the snapshot (what a reader pays). */
static int run_scan(const char *dir, const bench_case *bc, int threads, result *res)
{
	memset(res, 0, sizeof *res);
	dl_snapshot *snap;
	DL_TRY(dl_snapshot_open(&snap, dir, NULL));
	dl_scan_options o = DL_SCAN_OPTIONS_INIT;
	o.threads = threads;
	o.columns = bc->columns;
	o.ncolumns = bc->ncolumns;
	o.filter = bc->filter;
	dl_scan *scan = NULL;
	dl_batch_stream *bs = NULL;
	int rc = dl_scan_open(&scan, snap, &o);
	if (rc == 0) rc = dl_scan_batches(&bs, scan);
	dl_batch *b;
	while (rc == 0 && (rc = dl_batch_stream_next(bs, &b)) == 0 && b) {
		consume(res, b);
		dl_batch_free(b);
	}
	dl_batch_stream_free(bs);
	dl_scan_free(scan);
	dl_snapshot_free(snap);
	return rc;
}

static void format_result(const result *r, char *buf, size_t cap)
{
	size_t k = (size_t)snprintf(buf, cap, "%" PRId64, r->rows);
	for (int c = 0; c < r->n && k < cap; c++)
		k += r->is_double[c] ? (size_t)snprintf(buf + k, cap - k, " %.17g", r->dsum[c])
		                     : (size_t)snprintf(buf + k, cap - k, " %" PRId64, r->isum[c]);
}

/* DuckDB's result line against ours: integers exactly, doubles to 1e-9
 * (the summation order differs). */
static bool same_result(const result *r, const char *duck)
{
	char *p = (char *)duck;
	if (strtoll(p, &p, 10) != r->rows) return false;
	for (int c = 0; c < r->n; c++) {
		if (r->is_double[c]) {
			double d = strtod(p, &p);
			if (fabs(d - r->dsum[c]) > 1e-9 * fmax(1.0, fabs(d))) return false;
		} else if (strtoll(p, &p, 10) != r->isum[c]) {
			return false;
		}
	}
	return true;
}

typedef struct timing {
	double wall, cpu;
} timing;

/* DuckDB: each case at 1 and 2 threads; fills duck[case][threads-1]. */
static int duckdb_run(const char *dir, int runs, timing duck[3][2], result ours[3][2])
{
	const char *src = getenv("DL_SOURCE_DIR");
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "node '%s/bench/bench_scan.mjs' '%s' %d", src ? src : ".", dir, runs);
	FILE *p = popen(cmd, "r");
	if (!p) return -1;
	char line[4096];
	int got = 0, bad = 0;
	while (fgets(line, sizeof line, p)) {
		char cs[8];
		int th;
		double w, c;
		int off = 0;
		if (sscanf(line, "case=%7s threads=%d best_ms=%lf cpu_ms=%lf result=%n", cs, &th, &w, &c, &off) == 4 && off > 0 &&
		    th >= 1 && th <= 2) {
			int k = cs[0] - 'a';
			if (k < 0 || k > 2) continue;
			duck[k][th - 1] = (timing){w, c};
			got++;
			if (!same_result(&ours[k][0], line + off)) {
				char mine[4096];
				format_result(&ours[k][0], mine, sizeof mine);
				fprintf(stderr, "bench_scan: case %s: DuckDB's result differs from ours\n  duckdb: %s  ours:   %s\n",
				        cs, line + off, mine);
				bad = 1;
			}
		} else {
			fputs("  ", stdout);
			fputs(line, stdout);
		}
	}
	if (pclose(p) != 0 || got != 6) return -1;
	return bad ? -2 : 0;
}

int main(int argc, char **argv)
{
	int64_t rows = 5000000;
	int files = 20, runs = 3;
	bool duck = true;
	const char *only = NULL;
	int only_threads = 0; /* --threads: just that count (for callgrind and perf) */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rows") && i + 1 < argc) rows = strtoll(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--files") && i + 1 < argc) files = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--case") && i + 1 < argc) only = argv[++i];
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc) only_threads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--no-duckdb")) duck = false;
		else {
			fprintf(stderr, "usage: bench_scan [--rows N] [--files N] [--runs N] [--no-duckdb] [--case a|b|c] [--threads 1|2]\n");
			return 2;
		}
	}
	if (only || only_threads) duck = false;
	const char *bin = getenv("DL_BINARY_DIR");
	char dir[1024];
	snprintf(dir, sizeof dir, "%s/bench-data/scan20-%" PRId64 "-%d", bin && *bin ? bin : ".", rows, files);
	if (make_table(dir, rows, files) < 0) {
		fprintf(stderr, "bench_scan: making the table failed: %s\n", dl_error_last()->message);
		return 1;
	}
	dl_snapshot *snap;
	if (dl_snapshot_open(&snap, dir, NULL) < 0) {
		fprintf(stderr, "bench_scan: %s\n", dl_error_last()->message);
		return 1;
	}
	timing ours[3][2], pq = {1e30, 1e30};
	result res[3][2], pres;
	for (int k = 0; k < 3; k++)
		for (int t = 0; t < 2; t++) ours[k][t] = (timing){1e30, 1e30};
	for (int r = 0; r < runs; r++) {
		if (!only || *only == 'a') {
			double t0 = now_ms(), c0 = cpu_ms();
			if (run_parquet(snap, &pres) < 0) goto fail;
			pq.wall = fmin(pq.wall, now_ms() - t0);
			pq.cpu = fmin(pq.cpu, cpu_ms() - c0);
		}
		for (int k = 0; k < 3; k++) {
			if (only && *only != cases[k].name[0]) continue;
			for (int t = 0; t < 2; t++) {
				if (only_threads && t + 1 != only_threads) continue;
				double t0 = now_ms(), c0 = cpu_ms();
				if (run_scan(dir, &cases[k], t + 1, &res[k][t]) < 0) goto fail;
				ours[k][t].wall = fmin(ours[k][t].wall, now_ms() - t0);
				ours[k][t].cpu = fmin(ours[k][t].cpu, cpu_ms() - c0);
			}
		}
	}
	dl_snapshot_free(snap);
	for (int k = 0; k < 3; k++) {
		if ((only && *only != cases[k].name[0]) || only_threads) continue;
		char a[4096], b[4096];
		format_result(&res[k][0], a, sizeof a);
		format_result(&res[k][1], b, sizeof b);
		if (strcmp(a, b) && !same_result(&res[k][0], b)) {
			fprintf(stderr, "bench_scan: case %s: 1 and 2 threads differ\n", cases[k].name);
			return 1;
		}
	}
	timing dk[3][2];
	memset(dk, 0, sizeof dk);
	int drc = duck ? duckdb_run(dir, runs, dk, res) : 1;
	if (drc == -2) return 1;
	printf("rows=%" PRId64 " files=%d runs=%d (best of; wall and CPU of the process, ms)\n", rows, files, runs);
	if (!only || *only == 'a')
		printf("parquet alone (pq_reader, 1 thread, case a): wall %7.1f cpu %7.1f\n", pq.wall, pq.cpu);
	printf("case threads |   dl_scan wall    cpu |    duckdb wall    cpu | duckdb/ours wall  cpu (>=1: we are as fast)\n");
	for (int k = 0; k < 3; k++) {
		if (only && *only != cases[k].name[0]) continue;
		for (int t = 0; t < 2; t++) {
			if (only_threads && t + 1 != only_threads) continue;
			printf("%-4s %7d | %12.1f %7.1f |", cases[k].name, t + 1, ours[k][t].wall, ours[k][t].cpu);
			if (drc == 0)
				printf(" %12.1f %7.1f | %15.2f %5.2f\n", dk[k][t].wall, dk[k][t].cpu, dk[k][t].wall / ours[k][t].wall,
				       dk[k][t].cpu / ours[k][t].cpu);
			else printf("            -       - |               -     -\n");
		}
	}
	if (duck && drc != 0) printf("duckdb: not available (run 'make oracle')\n");
	return 0;
fail:
	fprintf(stderr, "bench_scan: %s\n", dl_error_last()->message);
	return 1;
}
