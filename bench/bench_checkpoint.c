/* Benchmark: writing the checkpoint of a big table (the 300k-file,
 * 100-column partitioned log of bench-data by default). The log's commit
 * files are copied to a scratch table; each run loads the snapshot (replay)
 * and writes a classic checkpoint of it, timed apart. Prints the best
 * times, the checkpoint size, the memory the writing adds on top of the
 * loaded snapshot (bounded: rows go out in small batches and 16 MiB row
 * groups), the time to load the snapshot back from the checkpoint, and the
 * ratio against DuckDB copying the same commit JSON to one Parquet file
 * (less work than a checkpoint: no reconciliation).
 *
 * usage: bench_checkpoint [table_dir] [--no-duckdb] [--runs N] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "deltalake/snapshot.h"
#include "log/log_segment.h"
#include "log/snapshot.h"
#include "txn/checkpoint_write.h"
#include "util/buf.h"
#include "util/error.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Current resident set size in MB (/proc/self/statm). */
static double rss_mb(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long pages = 0, res = 0;
	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &res) != 2) res = 0;
		fclose(f);
	}
	return (double)res * (double)sysconf(_SC_PAGESIZE) / 1e6;
}

static double peak_mb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_maxrss / 1e3;
}

static int sh(const char *fmt, const char *a, const char *b)
{
	dl_buf cmd = DL_BUF_INIT;
	dl_buf_printf(&cmd, fmt, a, b);
	int rc = system(cmd.data);
	dl_buf_free(&cmd);
	return rc;
}

static double duckdb(const char *log_dir, const char *scratch, int runs)
{
	dl_buf cmd = DL_BUF_INIT;
	const char *src = getenv("DL_SOURCE_DIR");
	if (src) {
		dl_buf_printf(&cmd, "node '%s/bench/bench_checkpoint_duckdb.mjs'", src);
	} else {
		const char *self = __FILE__, *slash = strrchr(self, '/');
		dl_buf_printf(&cmd, "node '%.*sbench_checkpoint_duckdb.mjs'",
		              slash ? (int)(slash - self + 1) : 0, self);
	}
	dl_buf_printf(&cmd, " '%s' '%s/duck.parquet' 1 %d", log_dir, scratch, runs);
	FILE *p = popen(cmd.data, "r");
	dl_buf_free(&cmd);
	double best = -1;
	char line[256];
	while (p && fgets(line, sizeof line, p)) {
		const char *b = strstr(line, "best_ms=");
		if (b) best = strtod(b + 8, NULL);
		fputs("  ", stdout);
		fputs(line, stdout);
	}
	if (p) pclose(p);
	return best;
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
	char scratch[] = "/tmp/dl-bench-ckpt-XXXXXX";
	if (!mkdtemp(scratch)) return 1;
	if (sh("mkdir -p '%s/_delta_log'%s", scratch, "") != 0 ||
	    sh("cp '%s'/_delta_log/*.json '%s/_delta_log/'", table, scratch) != 0)
		return 1;
	double best_load = 1e300, best_write = 1e300, grow = 0;
	dl_checkpoint_result r = {0};
	for (int run = 0; run < runs; run++) {
		sh("rm -f '%s'/_delta_log/*.checkpoint*.parquet '%s'/_delta_log/_last_checkpoint", scratch, scratch);
		double t0 = now_ms();
		dl_snapshot *s;
		if (dl_snapshot_open(&s, scratch, NULL) < 0) {
			fprintf(stderr, "bench_checkpoint: %s\n", dl_error_last()->message);
			return 1;
		}
		double t1 = now_ms(), before = rss_mb();
		if (dl_checkpoint_write(&r, dl_snapshot_store(s), s, NULL) < 0) {
			fprintf(stderr, "bench_checkpoint: %s\n", dl_error_last()->message);
			return 1;
		}
		double t2 = now_ms();
		/* resident memory still held right after the write, against before it
		 * (the process peak also counts the JSON replay's transient buffers) */
		if (rss_mb() - before > grow) grow = rss_mb() - before;
		if (t1 - t0 < best_load) best_load = t1 - t0;
		if (t2 - t1 < best_write) best_write = t2 - t1;
		dl_snapshot_free(s);
	}
	double t0 = now_ms();
	dl_snapshot *s;
	if (dl_snapshot_open(&s, scratch, NULL) < 0) return 1;
	double reload = now_ms() - t0;
	int from_ckpt = s->segment.checkpoint_version == r.version;
	dl_snapshot_free(s);
	printf("bench_checkpoint: %s: version %lld, %lld live files, %lld actions\n", table,
	       (long long)r.version, (long long)r.add_files, (long long)r.actions);
	printf("deltalake checkpoint: best of %d: write %.1f ms (+ %.1f ms to load the snapshot "
	       "from JSON = %.1f ms); %.1f MB of Parquet in %d part(s); peak RSS %.1f MB, at most "
	       "%.1f MB resident above the loaded snapshot after writing; reload from the checkpoint %.1f ms%s\n",
	       runs, best_write, best_load, best_write + best_load, (double)r.size_bytes / 1e6,
	       r.parts, peak_mb(), grow, reload, from_ckpt ? "" : " (NOT from the checkpoint!)");
	printf("target: write under 2000 ms: %s\n", best_write < 2000 ? "met" : "MISSED");
	if (duck) {
		dl_buf log = DL_BUF_INIT;
		dl_buf_printf(&log, "%s/_delta_log", table);
		double d = duckdb(log.data, scratch, runs);
		if (d > 0)
			printf("ratio duckdb(threads=1) json->parquet copy / deltalake load+checkpoint = %.2fx "
			       "(%.1f vs %.1f ms); >1 means we are faster\n", d / (best_write + best_load), d,
			       best_write + best_load);
		else
			printf("DuckDB: failed (is node with tools/oracle installed?)\n");
		dl_buf_free(&log);
	}
	sh("rm -rf '%s'%s", scratch, "");
	dl_buf_free(&dflt);
	return 0;
}
