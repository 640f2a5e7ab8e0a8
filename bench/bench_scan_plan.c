/* Benchmark: planning a selective scan over a big log, against DuckDB
 * filtering the same commit files with read_json in the same run
 * (bench/bench_scan_plan.mjs via node).
 *
 * usage: bench_scan_plan [table_dir] [--filter SQL] [--runs N] [--no-duckdb]
 * Defaults to $DL_SHARED_DIR/bench-data/300k-add-files-100-col-partitioned
 * and the filter "partition_col = 'part_14' AND col_5 > 100" (a partition
 * predicate and a stats predicate; that log carries no stats, so only the
 * partition part can prune). Prints the best of N: opening the snapshot,
 * planning (pruning every file), and the total, with the files kept; the
 * goal is a total under 1 s. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "deltalake.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double duckdb_ms(const char *dir, int runs)
{
	const char *src = getenv("DL_SOURCE_DIR");
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "node '%s/bench/bench_scan_plan.mjs' '%s' %d", src ? src : ".", dir, runs);
	FILE *p = popen(cmd, "r");
	if (!p) return -1;
	char line[512];
	double ms = -1;
	while (fgets(line, sizeof line, p)) {
		const char *b = strstr(line, "best_ms=");
		if (b) ms = strtod(b + 8, NULL);
		fputs("  ", stdout);
		fputs(line, stdout);
	}
	return pclose(p) == 0 ? ms : -1;
}

int main(int argc, char **argv)
{
	const char *dir = NULL, *filter = "partition_col = 'part_14' AND col_5 > 100";
	int runs = 3;
	bool duck = true;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--filter") && i + 1 < argc) filter = argv[++i];
		else if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--no-duckdb")) duck = false;
		else if (argv[i][0] != '-') dir = argv[i];
		else {
			fprintf(stderr, "usage: bench_scan_plan [table_dir] [--filter SQL] [--runs N] [--no-duckdb]\n");
			return 2;
		}
	}
	char def[1024];
	if (!dir) {
		const char *sh = getenv("DL_SHARED_DIR");
		snprintf(def, sizeof def, "%s/bench-data/300k-add-files-100-col-partitioned", sh && *sh ? sh : "../shared");
		dir = def;
	}
	double best_open = 1e30, best_plan = 1e30, best_total = 1e30;
	size_t kept = 0, total = 0;
	for (int r = 0; r < runs; r++) {
		double t0 = now_ms();
		dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
		so.skip_tombstones = true;
		dl_snapshot *snap;
		if (dl_snapshot_open(&snap, dir, &so) < 0) goto fail;
		double t1 = now_ms();
		dl_scan_options o = DL_SCAN_OPTIONS_INIT;
		o.filter = filter;
		dl_scan *scan;
		if (dl_scan_open(&scan, snap, &o) < 0) {
			dl_snapshot_free(snap);
			goto fail;
		}
		double t2 = now_ms();
		kept = dl_scan_file_count(scan);
		total = dl_snapshot_file_count(snap);
		dl_scan_free(scan);
		dl_snapshot_free(snap);
		if (t1 - t0 < best_open) best_open = t1 - t0;
		if (t2 - t1 < best_plan) best_plan = t2 - t1;
		if (t2 - t0 < best_total) best_total = t2 - t0;
	}
	printf("filter: %s\n", filter);
	printf("files kept %zu of %zu\n", kept, total);
	printf("snapshot %8.1f ms\nplanning %8.1f ms\ntotal    %8.1f ms (goal < 1000)\n", best_open, best_plan, best_total);
	if (duck) {
		double d = duckdb_ms(dir, runs);
		if (d > 0) printf("duckdb   %8.1f ms   ratio duckdb/total = %.2f (>1: we are faster)\n", d, d / best_total);
		else printf("duckdb: not available (run 'make oracle')\n");
	}
	return 0;
fail:
	fprintf(stderr, "bench_scan_plan: %s\n", dl_error_last()->message);
	return 1;
}
