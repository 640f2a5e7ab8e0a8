/* Benchmark: loading the snapshot of a big Delta log (list _delta_log,
 * replay every commit newest first, keep the live files), against DuckDB's
 * read_json over the same commit files in the same run (bench/json_duckdb.mjs
 * via node: DuckDB parses every line into typed columns, which is less than
 * a snapshot needs, so the ratio is conservative).
 *
 * usage: bench_snapshot [table_dir] [--no-duckdb] [--runs N]
 * Defaults to $DL_SHARED_DIR/bench-data/300k-add-files-100-col-partitioned.
 * Prints the best of N loads (single thread), the peak resident memory of
 * the process against the size of the log, and the ratio. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include "deltalake/snapshot.h"
#include "log/log_segment.h"
#include "util/buf.h"
#include "util/error.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double duckdb_ms(const char *script, const char *dir, int threads, int runs)
{
	dl_buf cmd = DL_BUF_INIT;
	dl_buf_printf(&cmd, "node '%s' '%s' %d %d", script, dir, threads, runs);
	FILE *p = popen(cmd.data, "r");
	dl_buf_free(&cmd);
	if (!p) return -1;
	char line[512];
	double ms = -1;
	while (fgets(line, sizeof line, p)) {
		const char *b = strstr(line, "best_ms=");
		if (b) ms = strtod(b + 8, NULL);
		fputs("  ", stdout);
		fputs(line, stdout);
	}
	if (pclose(p) != 0) return -1;
	return ms;
}

static long peak_rss_kb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

int main(int argc, char **argv)
{
	const char *shared = getenv("DL_SHARED_DIR") ? getenv("DL_SHARED_DIR") : "/work/shared";
	dl_buf dflt = DL_BUF_INIT;
	dl_buf_printf(&dflt, "%s/bench-data/300k-add-files-100-col-partitioned", shared);
	const char *table = dflt.data;
	int duck = 1, runs = 3;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--no-duckdb") == 0) duck = 0;
		else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) runs = atoi(argv[++i]);
		else table = argv[i];
	}
	if (runs < 1) runs = 1;
	double best = 1e300;
	size_t files = 0;
	long long version = -1;
	long rss_before = peak_rss_kb();
	for (int r = 0; r < runs; r++) {
		double t0 = now_ms();
		dl_snapshot *s;
		if (dl_snapshot_open(&s, table, NULL) < 0) {
			fprintf(stderr, "bench_snapshot: %s\n", dl_error_last()->message);
			return 1;
		}
		double ms = now_ms() - t0;
		if (ms < best) best = ms;
		files = dl_snapshot_file_count(s);
		version = (long long)dl_snapshot_version(s);
		dl_snapshot_free(s);
	}
	long rss = peak_rss_kb();
	/* the size of the JSON the replay read */
	dl_store *st;
	double log_mb = 0;
	dl_log_file *commits;
	size_t nc;
	if (dl_store_open(&st, table) == 0 && dl_log_list_commits(st, &commits, &nc) == 0) {
		for (size_t i = 0; i < nc; i++) log_mb += (double)commits[i].size / 1e6;
		dl_log_files_free(commits, nc);
		dl_store_free(st);
	}
	printf("bench_snapshot: %s: version %lld, %zu live files, %.1f MB of commit JSON\n", table,
	       version, files, log_mb);
	printf("deltalake dl_snapshot_open, 1 thread: best of %d = %.2f ms; peak RSS %.1f MB "
	       "(%.2fx the log; %.1f MB before the first load)\n",
	       runs, best, rss / 1e3, rss / 1e3 / (log_mb > 0 ? log_mb : 1), rss_before / 1e3);
	if (!duck) return 0;
	dl_buf script = DL_BUF_INIT, dir = DL_BUF_INIT;
	if (getenv("DL_SOURCE_DIR")) {
		dl_buf_printf(&script, "%s/bench/json_duckdb.mjs", getenv("DL_SOURCE_DIR"));
	} else {
		const char *self = __FILE__, *slash = strrchr(self, '/');
		dl_buf_printf(&script, "%.*sjson_duckdb.mjs", slash ? (int)(slash - self + 1) : 0, self);
	}
	dl_buf_printf(&dir, "%s/_delta_log", table);
	for (int threads = 1; threads <= 2; threads++) {
		double ms = duckdb_ms(script.data, dir.data, threads, runs);
		if (ms < 0) {
			printf("DuckDB threads=%d: failed (is node with tools/oracle installed? run `make oracle`)\n",
			       threads);
			continue;
		}
		printf("ratio duckdb(threads=%d) read_json / deltalake snapshot = %.2fx (%.2f ms vs %.2f ms; "
		       ">1 means we are faster)\n", threads, ms / best, ms, best);
	}
	dl_buf_free(&script);
	dl_buf_free(&dir);
	dl_buf_free(&dflt);
	return 0;
}
