/* Parquet writer throughput: N rows of (id BIGINT, s VARCHAR with 100k
 * distinct values, d DOUBLE) written with zstd to a file; batches are built
 * before the clock starts. Prints rows/s, seconds, bytes and max RSS.
 * Usage: bench_parquet_write [ROWS] [OUT.parquet]. The comparison against
 * DuckDB (same data, same thread count) is bench/bench_parquet_write.sh. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "columnar/builder.h"
#include "parquet/writer.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* DuckDB's COPY of a table of the same shape to zstd Parquet, 1 thread
 * (bench/bench_parquet_write.mjs); < 0 when the oracle is unavailable. */
static double duckdb_copy_seconds(int64_t rows)
{
	const char *oracle = getenv("DL_ORACLE_DIR"), *src = getenv("DL_SOURCE_DIR");
	if (!oracle || !src) return -1;
	char dir[] = "/tmp/bench_pqw_XXXXXX";
	if (!mkdtemp(dir)) return -1;
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "cd '%s' && node '%s/bench/bench_parquet_write.mjs' '%s' %lld 1", oracle, src, dir,
	         (long long)rows);
	FILE *p = popen(cmd, "r");
	double secs = -1;
	char line[256];
	while (p && fgets(line, sizeof line, p))
		if (!strncmp(line, "duckdb_copy_table_seconds=", 26)) secs = atof(line + 26);
	if (p) pclose(p);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0) {
		/* best effort: a leftover temp directory is harmless */
	}
	return secs;
}

static dl_batch *make_batch(dl_type *schema, int64_t first, int64_t n)
{
	dl_builder *bi, *bs, *bd;
	if (dl_builder_new(&bi, schema->children[0].type) || dl_builder_new(&bs, schema->children[1].type) ||
	    dl_builder_new(&bd, schema->children[2].type))
		return NULL;
	uint64_t r = (uint64_t)first * 0x9E3779B97F4A7C15ULL + 1;
	for (int64_t i = first; i < first + n; i++) {
		char s[32];
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		int len = snprintf(s, sizeof s, "value_%llu", (unsigned long long)(r % 100000));
		if (dl_builder_append_int(bi, i) || dl_builder_append_bytes(bs, s, (size_t)len) ||
		    dl_builder_append_double(bd, (double)(r >> 11) / 9007199254740992.0))
			return NULL;
	}
	dl_batch *b = dl_batch_new(schema, n);
	if (!b || dl_builder_finish(&b->cols[0], bi) || dl_builder_finish(&b->cols[1], bs) ||
	    dl_builder_finish(&b->cols[2], bd))
		return NULL;
	dl_builder_free(bi);
	dl_builder_free(bs);
	dl_builder_free(bd);
	return b;
}

int main(int argc, char **argv)
{
	int64_t rows = argc > 1 ? atoll(argv[1]) : 10000000;
	const char *path = argc > 2 ? argv[2] : "/tmp/bench_parquet_write.parquet";
	dl_type *tl = dl_type_new(DL_TYPE_LONG), *ts = dl_type_new(DL_TYPE_STRING), *td = dl_type_new(DL_TYPE_DOUBLE);
	dl_field f[] = {{(char *)"id", tl, true, (char *)"{}"}, {(char *)"s", ts, true, (char *)"{}"},
	                {(char *)"d", td, true, (char *)"{}"}};
	dl_type *schema = dl_type_struct(f, 3);
	/* A pool of distinct batches reused round-robin keeps memory flat. */
	const int64_t bsz = 65536;
	enum { POOL = 16 };
	dl_batch *pool[POOL];
	for (int i = 0; i < POOL; i++) {
		pool[i] = make_batch(schema, i * bsz, bsz);
		if (!pool[i]) return fprintf(stderr, "batch: %s\n", dl_error_last()->message), 1;
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) return perror(path), 1;
	pq_sink sink;
	pq_sink_init_fd(&sink, fd);
	pq_writer *w;
	double t0 = now();
	if (pq_writer_open(&w, schema, &sink, NULL)) return fprintf(stderr, "%s\n", dl_error_last()->message), 1;
	for (int64_t done = 0, k = 0; done < rows; k++) {
		dl_batch *b = pool[k % POOL];
		int64_t n = rows - done < bsz ? rows - done : bsz;
		int64_t keep = b->num_rows;
		b->num_rows = n;
		int rc = pq_writer_write(w, b);
		b->num_rows = keep;
		if (rc) return fprintf(stderr, "%s\n", dl_error_last()->message), 1;
		done += n;
	}
	if (pq_writer_close(w)) return fprintf(stderr, "%s\n", dl_error_last()->message), 1;
	double t = now() - t0;
	close(fd);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("parquet_write rows=%lld seconds=%.3f rows_per_s=%.0f bytes=%lld max_rss_mb=%.1f\n", (long long)rows, t,
	       (double)rows / t, (long long)pq_writer_file_size(w), (double)ru.ru_maxrss / 1024.0);
	double duck = duckdb_copy_seconds(rows);
	if (duck > 0)
		printf("duckdb COPY table -> zstd parquet (1 thread): %.3f s; ratio duckdb/deltalake writer = %.2fx\n", duck,
		       duck / t);
	pq_writer_free(w);
	for (int i = 0; i < POOL; i++) dl_batch_free(pool[i]);
	dl_type_unref(schema);
	dl_type_unref(tl);
	dl_type_unref(ts);
	dl_type_unref(td);
	return 0;
}
