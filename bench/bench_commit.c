/* Benchmark: the latency of committing a small append, 100 times in a row
 * on a local table (each commit: begin on the latest snapshot, one add
 * action with stats, put-if-absent of N.json, then the post-commit .crc and
 * every 10th version a checkpoint). Prints p50/p99/max of the commit alone
 * and of open-snapshot + commit, and DuckDB's latency for committing a
 * one-row INSERT into a persistent database in the same run.
 *
 * usage: bench_commit [--commits N] [--no-duckdb] [--dir DIR] */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "deltalake/snapshot.h"
#include "txn/txn.h"
#include "util/buf.h"
#include "util/error.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double pct(const double *sorted, int n, double p)
{
	int i = (int)(p * n);
	return sorted[i < n ? i : n - 1];
}

static int create(dl_store *s)
{
	static const char *schema = "{\"type\":\"struct\",\"fields\":[{\"name\":\"x\",\"type\":\"long\","
	                            "\"nullable\":true,\"metadata\":{}},{\"name\":\"s\",\"type\":"
	                            "\"string\",\"nullable\":true,\"metadata\":{}}]}";
	dl_transaction *t;
	dl_txn_options o = DL_TXN_OPTIONS_INIT;
	o.operation = "CREATE TABLE";
	DL_TRY(dl_txn_begin(&t, s, NULL, &o));
	dl_protocol p = {1, 2, NULL, 0, NULL, 0};
	dl_metadata m = {.id = "be7c4000-0000-4000-8000-000000000001", .schema_string = schema,
	                 .created_time = 1700000000000};
	int64_t v;
	int rc = dl_txn_set_protocol(t, &p);
	if (rc == 0) rc = dl_txn_set_metadata(t, &m);
	if (rc == 0) rc = dl_txn_commit(t, &v);
	dl_txn_free(t);
	return rc;
}

static int one_commit(dl_store *s, const char *dir, int i, bool hooks, double *commit_ms)
{
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	so.store = s;
	so.metadata_only = true;
	dl_snapshot *snap;
	DL_TRY(dl_snapshot_open(&snap, dir, &so));
	double t0 = now_ms();
	dl_transaction *t;
	dl_txn_options o = DL_TXN_OPTIONS_INIT;
	o.no_post_commit = !hooks;
	int rc = dl_txn_begin(&t, s, snap, &o);
	if (rc < 0) {
		dl_snapshot_free(snap);
		return rc;
	}
	char path[96], stats[160];
	snprintf(path, sizeof path, "part-00000-%08d-0000-4000-8000-000000000000-c000.zstd.parquet", i);
	snprintf(stats, sizeof stats, "{\"numRecords\":1,\"minValues\":{\"x\":%d,\"s\":\"row %d\"},"
	         "\"maxValues\":{\"x\":%d,\"s\":\"row %d\"},\"nullCount\":{\"x\":0,\"s\":0}}", i, i, i, i);
	dl_add a = {.path = path, .size = 700, .modification_time = 1700000000000 + i,
	            .data_change = true, .stats = stats, .stats_len = (uint32_t)strlen(stats),
	            .base_row_id = DL_NONE, .default_row_commit_version = DL_NONE};
	int64_t v;
	rc = dl_txn_add_file(t, &a);
	if (rc == 0) rc = dl_txn_set_parameter(t, "mode", "Append");
	if (rc == 0) rc = dl_txn_set_metric(t, "numFiles", 1);
	if (rc == 0) rc = dl_txn_commit(t, &v);
	*commit_ms = now_ms() - t0;
	dl_txn_free(t);
	dl_snapshot_free(snap);
	return rc;
}

int main(int argc, char **argv)
{
	int n = 100, duck = 1;
	const char *base = "/tmp";
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--commits") == 0 && i + 1 < argc) n = atoi(argv[++i]);
		else if (strcmp(argv[i], "--no-duckdb") == 0) duck = 0;
		else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc) base = argv[++i];
	}
	if (n < 1) n = 1;
	dl_buf dir = DL_BUF_INIT;
	double p50s[2] = {0, 0};
	for (int hooks = 1; hooks >= 0; hooks--) {
		dl_buf_clear(&dir);
		dl_buf_printf(&dir, "%s/dl-bench-commit-XXXXXX", base);
		if (!mkdtemp(dir.data)) return 1;
		dl_store *s;
		if (dl_store_open(&s, dir.data, NULL) < 0 || create(s) < 0) {
			fprintf(stderr, "bench_commit: %s\n", dl_error_last()->message);
			return 1;
		}
		double *commit = calloc((size_t)n, sizeof *commit), *total = calloc((size_t)n, sizeof *total);
		for (int i = 0; i < n; i++) {
			double t0 = now_ms();
			if (one_commit(s, dir.data, i, hooks, &commit[i]) < 0) {
				fprintf(stderr, "bench_commit: %s\n", dl_error_last()->message);
				return 1;
			}
			total[i] = now_ms() - t0;
		}
		qsort(commit, (size_t)n, sizeof *commit, cmp_double);
		qsort(total, (size_t)n, sizeof *total, cmp_double);
		const char *what = hooks ? "with post-commit hooks (.crc each, checkpoint every 10th)"
		                         : "N.json only (no hooks)";
		printf("deltalake commit, %s: p50 %.3f ms, p99 %.3f ms, max %.3f ms; with the snapshot "
		       "open: p50 %.3f ms, p99 %.3f ms\n", what, pct(commit, n, 0.5), pct(commit, n, 0.99),
		       commit[n - 1], pct(total, n, 0.5), pct(total, n, 0.99));
		p50s[hooks] = pct(commit, n, 0.5);
		dl_store_free(s);
		free(commit);
		free(total);
	}
	printf("bench_commit: %d small appends (one add with stats each); every put is made durable "
	       "(file and directory fsync)\n", n);
	if (duck) {
		dl_buf cmd = DL_BUF_INIT;
		const char *src = getenv("DL_SOURCE_DIR");
		if (src) {
			dl_buf_printf(&cmd, "node '%s/bench/bench_commit_duckdb.mjs'", src);
		} else {
			const char *self = __FILE__, *slash = strrchr(self, '/');
			dl_buf_printf(&cmd, "node '%.*sbench_commit_duckdb.mjs'",
			              slash ? (int)(slash - self + 1) : 0, self);
		}
		dl_buf_printf(&cmd, " '%s/dl-bench-commit-duck%d.db' %d", base, (int)getpid(), n);
		FILE *p = popen(cmd.data, "r");
		char line[256];
		double d50 = -1;
		while (p && fgets(line, sizeof line, p)) {
			const char *q = strstr(line, "p50_ms=");
			if (q) d50 = strtod(q + 7, NULL);
			fputs("  ", stdout);
			fputs(line, stdout);
		}
		if (p) pclose(p);
		if (d50 > 0)
			printf("ratio duckdb insert-commit p50 / deltalake commit p50 = %.2fx with hooks, "
			       "%.2fx for N.json alone; >1 means we are faster\n", d50 / p50s[1], d50 / p50s[0]);
		else
			printf("DuckDB: failed (is node with tools/oracle installed?)\n");
		dl_buf_free(&cmd);
	}
	dl_buf cmd = DL_BUF_INIT;
	dl_buf_printf(&cmd, "rm -rf %s/dl-bench-commit-?????? %s/dl-bench-commit-duck%d.db*", base, base,
	              (int)getpid());
	if (system(cmd.data) != 0) fprintf(stderr, "could not clean %s\n", base);
	dl_buf_free(&cmd);
	dl_buf_free(&dir);
	return 0;
}
