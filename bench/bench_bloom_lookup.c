/* A point lookup on a Delta table, with what skipping inside its files
 * saved: row groups skipped by footer statistics and by Parquet Bloom
 * filters, pages skipped by the page index, rows returned, wall time.
 *   bench_bloom_lookup <table dir> "<filter>" [repeats]
 * docs/BENCHMARKS.md gives the tables and filters measured. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "deltalake.h"
#include "table/scan.h"
#include "util/error.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: bench_bloom_lookup <table dir> <filter> [repeats]\n");
		return 2;
	}
	int reps = argc > 3 ? atoi(argv[3]) : 5;
	double best = 1e300;
	dl_scan_metrics m = {0};
	int64_t rows = 0;
	for (int k = 0; k < (reps > 0 ? reps : 1); k++) {
		double t0 = now_ms();
		dl_snapshot *snap;
		if (dl_snapshot_open(&snap, argv[1], NULL) < 0) {
			fprintf(stderr, "%s\n", dl_error_last()->message);
			return 1;
		}
		dl_scan_options o = DL_SCAN_OPTIONS_INIT;
		o.filter = argv[2];
		dl_scan *scan = NULL;
		dl_batch_stream *bs = NULL;
		int rc = dl_scan_open(&scan, snap, &o);
		if (rc == 0) rc = dl_scan_batches(&bs, scan);
		dl_batch *b;
		rows = 0;
		while (rc == 0 && (rc = dl_batch_stream_next(bs, &b)) == 0 && b) {
			rows += b->num_rows;
			dl_batch_free(b);
		}
		if (rc < 0) {
			fprintf(stderr, "%s\n", dl_error_last()->message);
			return 1;
		}
		dl_scan_get_metrics(&m, scan);
		dl_batch_stream_free(bs);
		dl_scan_free(scan);
		dl_snapshot_free(snap);
		double t = now_ms() - t0;
		if (t < best) best = t;
	}
	printf("rows %lld, files %zu (pruned by stats %zu), row groups skipped: stats %lld, bloom %lld; "
	       "pages skipped %lld (%lld bytes); best of %d: %.1f ms\n",
	       (long long)rows, m.files_total, m.files_pruned_stats, (long long)m.row_groups_pruned_stats,
	       (long long)m.row_groups_pruned_bloom, (long long)m.pages_skipped, (long long)m.page_bytes_skipped, reps,
	       best);
	return 0;
}
