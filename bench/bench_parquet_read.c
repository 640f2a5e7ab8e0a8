/* Parquet read throughput against DuckDB: a DuckDB-written zstd file of
 * (id BIGINT, s VARCHAR with 100k distinct values, d DOUBLE) is decoded into
 * Arrow batches and all 3 columns are summed (id, length(s), d), as DuckDB
 * does in the same run with the same thread count (bench_parquet_read.mjs).
 * Best of 3, wall and CPU time (CPU time is steadier on a loaded machine).
 * Usage: bench_parquet_read [ROWS] [FILE]. Prints the ratios DuckDB/ours
 * (above 1 means faster than DuckDB). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "deltalake/store.h"
#include "parquet/reader.h"
#include "util/error.h"
#include "util/pool.h"

static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct sums {
	int64_t id, len;
	double d;
	int64_t rows;
} sums;

static int scan(dl_store *store, const char *name, dl_pool *pool, sums *s)
{
	pq_reader *r;
	DL_TRY(pq_reader_open_store(&r, store, name, -1));
	pq_reader_set_pool(r, pool);
	memset(s, 0, sizeof *s);
	int rc;
	for (;;) {
		dl_batch *b;
		int64_t first;
		rc = pq_reader_next(r, &b, &first);
		if (rc < 0 || !b) break;
		const dl_array *id = b->cols[0], *str = b->cols[1], *d = b->cols[2];
		const int64_t *iv = id->values;
		const double *dv = d->values;
		for (int64_t i = 0; i < b->num_rows; i++) {
			if (dl_array_is_valid(id, i)) s->id += iv[i];
			if (dl_array_is_valid(d, i)) s->d += dv[i];
		}
		/* lengths of non-null strings: the last offset minus the first */
		s->len += str->offsets[b->num_rows] - str->offsets[0];
		s->rows += b->num_rows;
		dl_batch_free(b);
	}
	pq_reader_free(r);
	return rc;
}

/* DuckDB's side with `threads` threads: wall and CPU seconds, and its sums. */
static int duckdb(const char *src, const char *oracle, const char *file, long long rows, int threads, double *wall,
                  double *cpu, long long *sum_id, long long *sum_len)
{
	char odir[1100], cmd[4096];
	snprintf(odir, sizeof odir, "%s/tools/oracle", src);
	snprintf(cmd, sizeof cmd, "DL_ORACLE_DIR='%s' node '%s/bench/bench_parquet_read.mjs' '%s' %lld %d",
	         oracle ? oracle : odir, src, file, rows, threads);
	FILE *p = popen(cmd, "r");
	if (!p) return -1;
	char line[256];
	*wall = *cpu = 0;
	while (fgets(line, sizeof line, p)) {
		sscanf(line, "duckdb_read_seconds=%lf", wall);
		sscanf(line, "duckdb_cpu_seconds=%lf", cpu);
		sscanf(line, "duckdb_sum_id=%lld", sum_id);
		sscanf(line, "duckdb_sum_len=%lld", sum_len);
	}
	return pclose(p) == 0 && *wall > 0 ? 0 : -1;
}

/* Ours, best of 3, with columns decoded on `pool` (NULL: 1 thread). */
static int ours(dl_store *store, const char *name, dl_pool *pool, double *wall, double *cpu, sums *s)
{
	*wall = *cpu = 1e9;
	for (int k = 0; k < 3; k++) {
		double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
		if (scan(store, name, pool, s)) return -1;
		double t = clock_s(CLOCK_MONOTONIC) - t0, c = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
		if (t < *wall) *wall = t;
		if (c < *cpu) *cpu = c;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long long rows = argc > 1 ? atoll(argv[1]) : 10000000;
	const char *file = argc > 2 ? argv[2] : "/tmp/bench_parquet_read.parquet";
	/* The sources: $DL_SOURCE_DIR, else two levels above this file. */
	char here[1024];
	snprintf(here, sizeof here, "%s", __FILE__);
	for (int up = 0; up < 2; up++) {
		char *sl = strrchr(here, '/');
		if (sl) *sl = 0;
	}
	const char *src = getenv("DL_SOURCE_DIR") ? getenv("DL_SOURCE_DIR") : here;
	const char *oracle = getenv("DL_ORACLE_DIR");
	char dir[1024];
	snprintf(dir, sizeof dir, "%s", file);
	char *slash = strrchr(dir, '/');
	const char *name = slash ? slash + 1 : file;
	if (slash) *slash = 0;
	char uri[1100];
	snprintf(uri, sizeof uri, "file://%s", slash ? dir : ".");
	dl_store *store = NULL;
	for (int threads = 1; threads <= 2; threads++) {
		double dw, dc, ow, oc;
		long long did = 0, dlen = 0;
		if (duckdb(src, oracle, file, rows, threads, &dw, &dc, &did, &dlen) < 0)
			return fprintf(stderr, "bench_parquet_read: DuckDB side failed\n"), 1;
		if (!store && dl_store_open(&store, uri, NULL)) return fprintf(stderr, "%s\n", dl_error_last()->message), 1;
		dl_pool *pool = NULL;
		if (threads > 1 && dl_pool_create(&pool, threads)) return fprintf(stderr, "%s\n", dl_error_last()->message), 1;
		sums s;
		if (ours(store, name, pool, &ow, &oc, &s)) return fprintf(stderr, "%s\n", dl_error_last()->message), 1;
		dl_pool_free(pool);
		if (s.id != did || s.len != dlen)
			return fprintf(stderr, "bench_parquet_read: sums differ from DuckDB (id %lld vs %lld, len %lld vs %lld)\n",
			               (long long)s.id, did, (long long)s.len, dlen), 1;
		printf("parquet_read threads=%d rows=%lld ours_seconds=%.4f duckdb_seconds=%.4f ours_cpu=%.4f duckdb_cpu=%.4f\n",
		       threads, (long long)s.rows, ow, dw, oc, dc);
		printf("parquet_read threads=%d ratio duckdb/ours wall=%.2f cpu=%.2f (above 1: we are faster than DuckDB)\n",
		       threads, dw / ow, oc > 0 ? dc / oc : 0.0);
	}
	dl_store_free(store);
	return 0;
}
