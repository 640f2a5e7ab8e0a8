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

static int scan(dl_store *store, const char *name, sums *s)
{
	pq_reader *r;
	DL_TRY(pq_reader_open_store(&r, store, name, -1));
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
	char cmd[4096];
	char odir[1100];
	snprintf(odir, sizeof odir, "%s/tools/oracle", src);
	snprintf(cmd, sizeof cmd, "DL_ORACLE_DIR='%s' node '%s/bench/bench_parquet_read.mjs' '%s' %lld 1",
	         oracle ? oracle : odir, src, file, rows);
	FILE *p = popen(cmd, "r");
	if (!p) return perror("node"), 1;
	double duck = 0, duck_cpu = 0;
	long long duck_id = 0, duck_len = 0;
	char line[256];
	while (fgets(line, sizeof line, p)) {
		sscanf(line, "duckdb_read_seconds=%lf", &duck);
		sscanf(line, "duckdb_cpu_seconds=%lf", &duck_cpu);
		sscanf(line, "duckdb_sum_id=%lld", &duck_id);
		sscanf(line, "duckdb_sum_len=%lld", &duck_len);
	}
	if (pclose(p) != 0 || duck <= 0) return fprintf(stderr, "bench_parquet_read: DuckDB side failed\n"), 1;

	char dir[1024];
	snprintf(dir, sizeof dir, "%s", file);
	char *slash = strrchr(dir, '/');
	const char *name = slash ? slash + 1 : file;
	if (slash) *slash = 0;
	dl_store *store;
	char uri[1100];
	snprintf(uri, sizeof uri, "file://%s", slash ? dir : ".");
	if (dl_store_open(&store, uri)) return fprintf(stderr, "%s\n", dl_error_last()->message), 1;
	double best = 1e9, best_cpu = 1e9;
	sums s;
	for (int k = 0; k < 3; k++) {
		double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
		if (scan(store, name, &s)) return fprintf(stderr, "%s\n", dl_error_last()->message), 1;
		double t = clock_s(CLOCK_MONOTONIC) - t0, c = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
		if (t < best) best = t;
		if (c < best_cpu) best_cpu = c;
	}
	dl_store_free(store);
	if (s.id != duck_id || s.len != duck_len)
		return fprintf(stderr, "bench_parquet_read: sums differ from DuckDB (id %lld vs %lld, len %lld vs %lld)\n",
		               (long long)s.id, duck_id, (long long)s.len, duck_len), 1;
	printf("parquet_read rows=%lld ours_seconds=%.4f duckdb_seconds=%.4f ours_cpu=%.4f duckdb_cpu=%.4f threads=1\n",
	       (long long)s.rows, best, duck, best_cpu, duck_cpu);
	printf("parquet_read ratio duckdb/ours wall=%.2f cpu=%.2f (above 1: we are faster than DuckDB)\n", duck / best,
	       best_cpu > 0 ? duck_cpu / best_cpu : 0.0);
	return 0;
}
