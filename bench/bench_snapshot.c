/* Benchmark: loading the snapshot of a big Delta log (list _delta_log,
 * replay every commit newest first, keep the live files), against DuckDB's
 * read_json over the same commit files in the same run (bench/json_duckdb.mjs
 * via node: DuckDB parses every line into typed columns, which is less than
 * a snapshot needs, so the ratio is conservative).
 *
 * usage: bench_snapshot [table_dir] [--no-duckdb] [--runs N]
 * Defaults to $DL_SHARED_DIR/bench-data/300k-add-files-100-col-partitioned.
 * Prints the best of N loads (wall and CPU time: the replay parses commit
 * blocks on the shared thread pool, DL_THREADS), the peak resident memory
 * of the process against the size of the log, and the ratios against
 * DuckDB with schema detection (auto) and with the columns given. */
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

typedef struct duck_result {
	double ms[2], cpu[2]; /* [0] schema=auto, [1] schema=columns */
} duck_result;

static int duckdb_run(const char *script, const char *dir, int threads, int runs, duck_result *r)
{
	dl_buf cmd = DL_BUF_INIT;
	dl_buf_printf(&cmd, "node '%s' '%s' %d %d", script, dir, threads, runs);
	FILE *p = popen(cmd.data, "r");
	dl_buf_free(&cmd);
	if (!p) return -1;
	char line[512];
	r->ms[0] = r->ms[1] = r->cpu[0] = r->cpu[1] = -1;
	while (fgets(line, sizeof line, p)) {
		const char *b = strstr(line, "best_ms="), *c = strstr(line, "cpu_ms=");
		int k = strstr(line, "schema=columns") ? 1 : 0;
		if (b) r->ms[k] = strtod(b + 8, NULL);
		if (c) r->cpu[k] = strtod(c + 7, NULL);
		fputs("  ", stdout);
		fputs(line, stdout);
	}
	if (pclose(p) != 0) return -1;
	return r->ms[0] < 0 && r->ms[1] < 0 ? -1 : 0;
}

static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
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
	double best = 1e300, best_cpu = 1e300;
	size_t files = 0;
	long long version = -1;
	long rss_before = peak_rss_kb();
	for (int r = 0; r < runs; r++) {
		double t0 = now_ms(), c0 = cpu_ms();
		dl_snapshot *s;
		if (dl_snapshot_open(&s, table, NULL) < 0) {
			fprintf(stderr, "bench_snapshot: %s\n", dl_error_last()->message);
			return 1;
		}
		double ms = now_ms() - t0, cms = cpu_ms() - c0;
		if (ms < best) best = ms;
		if (cms < best_cpu) best_cpu = cms;
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
	if (dl_store_open(&st, table, NULL) == 0 && dl_log_list_commits(st, &commits, &nc) == 0) {
		for (size_t i = 0; i < nc; i++) log_mb += (double)commits[i].size / 1e6;
		dl_log_files_free(commits, nc);
		dl_store_free(st);
	}
	printf("bench_snapshot: %s: version %lld, %zu live files, %.1f MB of commit JSON\n", table,
	       version, files, log_mb);
	const char *th = getenv("DL_THREADS");
	printf("deltalake dl_snapshot_open (DL_THREADS=%s): best of %d = %.2f ms wall, %.2f ms CPU; "
	       "peak RSS %.1f MB (%.2fx the log; %.1f MB before the first load)\n",
	       th ? th : "default", runs, best, best_cpu, rss / 1e3,
	       rss / 1e3 / (log_mb > 0 ? log_mb : 1), rss_before / 1e3);
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
		duck_result d;
		if (duckdb_run(script.data, dir.data, threads, runs, &d) < 0) {
			printf("DuckDB threads=%d: failed (is node with tools/oracle installed? run `make oracle`)\n",
			       threads);
			continue;
		}
		static const char *const mode[] = {"auto", "columns"};
		for (int k = 0; k < 2; k++) {
			if (d.ms[k] < 0) continue;
			printf("ratio duckdb(threads=%d, schema=%s) read_json / deltalake snapshot = %.2fx wall "
			       "(%.2f vs %.2f ms), %.2fx CPU (%.2f vs %.2f ms); >1 means we are faster\n",
			       threads, mode[k], d.ms[k] / best, d.ms[k], best, d.cpu[k] / best_cpu, d.cpu[k],
			       best_cpu);
		}
	}
	dl_buf_free(&script);
	dl_buf_free(&dir);
	dl_buf_free(&dflt);
	return 0;
}
