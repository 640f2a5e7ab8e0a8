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
 * --load times loading instead: the same state opened from the commit JSON
 * alone and from the checkpoint (a copy of the log with the checkpoint
 * written beside the commits), best of N each, wall and CPU; the ratio
 * JSON / checkpoint says whether the checkpoint is the fast path it should
 * be. --prepare DIR leaves the two tables in DIR/json and DIR/checkpoint
 * and --open TABLE opens one once, for callgrind
 * (bench/bench_checkpoint_callgrind.sh).
 *
 * usage: bench_checkpoint [table_dir] [--no-duckdb] [--runs N]
 *                         [--load | --prepare DIR | --open TABLE] */
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

static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
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

/* Opens `table` once: wall and CPU ms, and whether it came from a checkpoint. */
static int open_once(const char *table, double *wall, double *cpu, int64_t *files, bool *from_ckpt)
{
	double t0 = now_ms(), c0 = cpu_ms();
	dl_snapshot *s;
	if (dl_snapshot_open(&s, table, NULL) < 0) {
		fprintf(stderr, "bench_checkpoint: %s\n", dl_error_last()->message);
		return -1;
	}
	*wall = now_ms() - t0;
	*cpu = cpu_ms() - c0;
	*files = (int64_t)s->state.nadds;
	*from_ckpt = s->segment.ncheckpoint > 0;
	dl_snapshot_free(s);
	return 0;
}

/* DIR/json: the commits alone; DIR/checkpoint: the commits and a classic
 * checkpoint of the last version (so both open the same state). */
static int prepare(const char *table, const char *dir)
{
	dl_buf j = DL_BUF_INIT, c = DL_BUF_INIT;
	dl_buf_printf(&j, "%s/json", dir);
	dl_buf_printf(&c, "%s/checkpoint", dir);
	int rc = sh("rm -rf '%s' '%s'", j.data, c.data);
	if (rc == 0) rc = sh("mkdir -p '%s/_delta_log' '%s/_delta_log'", j.data, c.data);
	if (rc == 0) rc = sh("cp '%s'/_delta_log/*.json '%s/_delta_log/'", table, j.data);
	if (rc == 0) rc = sh("cp '%s'/_delta_log/*.json '%s/_delta_log/'", table, c.data);
	dl_snapshot *s = NULL;
	dl_checkpoint_result r = {0};
	if (rc == 0 && (dl_snapshot_open(&s, c.data, NULL) < 0 ||
	                dl_checkpoint_write(&r, dl_snapshot_store(s), s, NULL) < 0)) {
		fprintf(stderr, "bench_checkpoint: %s\n", dl_error_last()->message);
		rc = -1;
	}
	dl_snapshot_free(s);
	dl_buf_free(&j);
	dl_buf_free(&c);
	return rc;
}

static int load_bench(const char *table, int runs)
{
	char dir[] = "/tmp/dl-bench-ckpt-load-XXXXXX";
	if (!mkdtemp(dir) || prepare(table, dir) != 0) return 1;
	dl_buf j = DL_BUF_INIT, c = DL_BUF_INIT;
	dl_buf_printf(&j, "%s/json", dir);
	dl_buf_printf(&c, "%s/checkpoint", dir);
	double bj = 1e300, bjc = 1e300, bc = 1e300, bcc = 1e300;
	int64_t nj = 0, nc = 0;
	bool fj = false, fc = false;
	int rc = 0;
	for (int run = 0; run < runs && rc == 0; run++) {
		double w, cpu;
		/* alternated, so that both see the same machine load */
		rc = open_once(j.data, &w, &cpu, &nj, &fj);
		if (rc == 0 && w < bj) bj = w;
		if (rc == 0 && cpu < bjc) bjc = cpu;
		if (rc == 0) rc = open_once(c.data, &w, &cpu, &nc, &fc);
		if (rc == 0 && w < bc) bc = w;
		if (rc == 0 && cpu < bcc) bcc = cpu;
	}
	if (rc == 0) {
		printf("bench_checkpoint --load: %s: %lld live files (JSON) / %lld (checkpoint%s)\n",
		       table, (long long)nj, (long long)nc, fc && !fj ? "" : ": NOT as intended!");
		printf("snapshot load, best of %d: from JSON %.1f ms (CPU %.1f ms), from the checkpoint "
		       "%.1f ms (CPU %.1f ms)\n", runs, bj, bjc, bc, bcc);
		printf("ratio JSON load / checkpoint load = %.2fx wall, %.2fx CPU; >1 means the "
		       "checkpoint is faster\n", bj / bc, bjc / bcc);
		if (nj != nc) rc = 1;
	}
	sh("rm -rf '%s'%s", dir, "");
	dl_buf_free(&j);
	dl_buf_free(&c);
	return rc;
}

int main(int argc, char **argv)
{
	const char *shared = getenv("DL_SHARED_DIR") ? getenv("DL_SHARED_DIR") : "/work/shared";
	dl_buf dflt = DL_BUF_INIT;
	dl_buf_printf(&dflt, "%s/bench-data/300k-add-files-100-col-partitioned", shared);
	const char *table = dflt.data;
	int duck = 1, runs = 3, load = 0;
	const char *prep = NULL, *open_table = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--no-duckdb") == 0) duck = 0;
		else if (strcmp(argv[i], "--load") == 0) load = 1;
		else if (strcmp(argv[i], "--prepare") == 0 && i + 1 < argc) prep = argv[++i];
		else if (strcmp(argv[i], "--open") == 0 && i + 1 < argc) open_table = argv[++i];
		else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) runs = atoi(argv[++i]);
		else table = argv[i];
	}
	if (runs < 1) runs = 1;
	if (prep) return prepare(table, prep) == 0 ? 0 : 1;
	if (open_table) {
		double w, cpu;
		int64_t n;
		bool fc;
		if (open_once(open_table, &w, &cpu, &n, &fc) != 0) return 1;
		printf("opened %s: %lld live files%s in %.1f ms\n", open_table, (long long)n,
		       fc ? " from a checkpoint" : " from JSON", w);
		return 0;
	}
	if (load) return load_bench(table, runs);
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
	int rc = load_bench(table, runs);
	dl_buf_free(&dflt);
	return rc;
}
