/* Delta append throughput against writing the same Parquet alone: N rows
 * of (id BIGINT, s STRING with 100k distinct values, d DOUBLE) in batches
 * of 65536 built before the clock starts, written
 *   1. as one zstd Parquet file through the same writer and store the
 *      table uses (the floor: what any Delta append must pay), and
 *   2. with dl_ops_write (mode append) into a new table: schema checks,
 *      constraints, stats JSON, the commit.
 * Prints both times and their ratio (the target is <= 1.1), then the
 * p50/p99 latency of 100 small appends (one 10-row CSV-sized batch each)
 * to one table, and max RSS. Both use DL_THREADS threads (default: the
 * CPU count) to encode the columns.
 * The Parquet file alone is written with the batches handed over
 * (pq_writer_write_owned), as the write operation hands them over. With DIR
 * the files stay there (DIR/alone.zstd.parquet, DIR/table0...) for
 * bench_append.sh's DuckDB comparison.
 * Usage: [DL_THREADS=N] [BENCH_REPS=N] bench_write [ROWS] [DIR]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "columnar/batch_stream.h"
#include "columnar/builder.h"
#include "deltalake.h"
#include "ops/ddl.h"
#include "ops/write.h"
#include "parquet/writer.h"
#include "util/mem.h"
#include "util/pool.h"

#define BATCH 65536

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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
	dl_builder_finish(&b->cols[0], bi);
	dl_builder_finish(&b->cols[1], bs);
	dl_builder_finish(&b->cols[2], bd);
	dl_builder_free(bi);
	dl_builder_free(bs);
	dl_builder_free(bd);
	return b;
}

/* A stream lending the prebuilt batches: each batch handed out is a shell
 * whose arrays borrow the buffers (owner_release is a no-op), so the write
 * frees only the shells. */
typedef struct lend {
	dl_type *schema;
	dl_batch **batches;
	int n, next;
} lend;

static void no_release(void *owner)
{
	(void)owner;
}

static const dl_type *lend_schema(dl_batch_stream *s)
{
	return ((lend *)s->private_data)->schema;
}

static int lend_next(dl_batch_stream *s, dl_batch **out)
{
	lend *l = s->private_data;
	*out = NULL;
	if (l->next == l->n) return 0;
	const dl_batch *src = l->batches[l->next++];
	dl_batch *b = dl_batch_new(l->schema, src->num_rows);
	for (int c = 0; c < src->ncols; c++) {
		dl_array *a = dl_calloc(1, sizeof *a);
		*a = *src->cols[c];
		dl_type_ref(a->type);
		a->owner_release = no_release;
		b->cols[c] = a;
	}
	*out = b;
	return 0;
}

static void lend_release(dl_batch_stream *s)
{
	(void)s;
}

static double cpu_of(int who)
{
	struct rusage ru;
	getrusage(who, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       (double)ru.ru_stime.tv_usec / 1e6;
}

static double cpu_now(void)
{
	return cpu_of(RUSAGE_SELF);
}

static double parquet_alone(const char *dir, dl_type *schema, dl_batch **batches, int n, int64_t *bytes)
{
	dl_store *st;
	dl_store_writer *w;
	if (dl_store_open(&st, dir, NULL) || dl_store_writer_open(&w, st, "alone.zstd.parquet")) {
		fprintf(stderr, "bench_write: %s\n", dl_error_last()->message);
		return -1;
	}
	pq_sink sink;
	pq_sink_init_store(&sink, w);
	pq_writer_options o = PQ_WRITER_OPTIONS_INIT;
	o.root_name = "spark_schema";
	o.threads = dl_default_threads(); /* as the write operation: DL_THREADS or the CPUs */
	pq_writer *pw;
	lend l = {schema, batches, n, 0};
	dl_batch_stream s = {lend_schema, lend_next, lend_release, &l};
	double t0 = now();
	if (pq_writer_open(&pw, schema, &sink, &o)) return -1;
	/* handed over, as the write operation does */
	for (dl_batch *b; lend_next(&s, &b) == 0 && b;)
		if (pq_writer_write_owned(pw, b)) return -1;
	if (pq_writer_close(pw) || dl_store_writer_commit(w, 0)) return -1;
	double secs = now() - t0;
	*bytes = pq_writer_file_size(pw);
	pq_writer_free(pw);
	dl_store_free(st);
	return secs;
}

static double delta_append(const char *uri, dl_type *schema, dl_batch **batches, int n)
{
	lend l = {schema, batches, n, 0};
	dl_batch_stream s = {lend_schema, lend_next, lend_release, &l};
	dl_write_options o = DL_WRITE_OPTIONS_INIT;
	o.mode = DL_WRITE_APPEND;
	int64_t v;
	double t0 = now();
	if (dl_ops_write(&v, uri, &s, &o, NULL, NULL) < 0) {
		fprintf(stderr, "bench_write: %s\n", dl_error_last()->message);
		return -1;
	}
	return now() - t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int small_appends(const char *uri, dl_type *schema, double *p50, double *p99)
{
	enum { COMMITS = 100 };
	double lat[COMMITS];
	dl_batch *one = make_batch(schema, 0, 10);
	for (int i = 0; i < COMMITS; i++) {
		lend l = {schema, &one, 1, 0};
		dl_batch_stream s = {lend_schema, lend_next, lend_release, &l};
		dl_write_options o = DL_WRITE_OPTIONS_INIT;
		o.mode = DL_WRITE_APPEND;
		int64_t v;
		double t0 = now();
		if (dl_ops_write(&v, uri, &s, &o, NULL, NULL) < 0) {
			fprintf(stderr, "bench_write: %s\n", dl_error_last()->message);
			return -1;
		}
		lat[i] = (now() - t0) * 1000;
	}
	dl_batch_free(one);
	qsort(lat, COMMITS, sizeof lat[0], cmp_double);
	*p50 = lat[COMMITS / 2];
	*p99 = lat[COMMITS * 99 / 100];
	return 0;
}

int main(int argc, char **argv)
{
	int64_t rows = argc > 1 ? atoll(argv[1]) : 10000000;
	char tmpl[] = "/tmp/bench_write_XXXXXX";
	const char *dir = argc > 2 ? argv[2] : mkdtemp(tmpl);
	if (!dir) return 1;
	dl_type *schema;
	if (dl_ddl_parse_schema(&schema, "id BIGINT, s STRING, d DOUBLE")) return 1;
	int n = (int)((rows + BATCH - 1) / BATCH);
	dl_batch **batches = dl_calloc((size_t)n + 1, sizeof *batches);
	for (int i = 0; i < n; i++) {
		int64_t first = (int64_t)i * BATCH;
		batches[i] = make_batch(schema, first, rows - first < BATCH ? rows - first : BATCH);
		if (!batches[i]) return 1;
	}
	char table[1024], small[1024];
	snprintf(table, sizeof table, "%s/table", dir);
	snprintf(small, sizeof small, "%s/small", dir);
	int64_t bytes = 0;
	/* Best of REPS runs each (BENCH_REPS, default 2), alternating, to damp
	 * the noise of a shared machine; the CPU (user + system, all threads)
	 * is that of the best run. */
	int reps = getenv("BENCH_REPS") ? atoi(getenv("BENCH_REPS")) : 2;
	if (reps < 1) reps = 1;
	double alone = 1e30, delta = 1e30, alone_cpu = 0, delta_cpu = 0, delta_main_cpu = 0;
	for (int run = 0; run < reps; run++) {
		double c0 = cpu_now();
		double a = parquet_alone(dir, schema, batches, n, &bytes);
		double c1 = cpu_now(), m1 = cpu_of(RUSAGE_THREAD);
		char t[1100];
		snprintf(t, sizeof t, "%s%d", table, run);
		double d = delta_append(t, schema, batches, n);
		double c2 = cpu_now(), m2 = cpu_of(RUSAGE_THREAD);
		if (a < 0 || d < 0) return 1;
		if (a < alone) alone = a, alone_cpu = c1 - c0;
		if (d < delta) delta = d, delta_cpu = c2 - c1, delta_main_cpu = m2 - m1;
	}
	double p50 = -1, p99 = -1; /* BENCH_SMALL=0: no small appends */
	if ((!getenv("BENCH_SMALL") || atoi(getenv("BENCH_SMALL"))) && small_appends(small, schema, &p50, &p99) < 0)
		return 1;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("rows=%lld parquet_bytes=%lld\n", (long long)rows, (long long)bytes);
	printf("threads=%d best of %d\n", dl_default_threads(), reps);
	printf("parquet_alone_seconds=%.3f parquet_alone_cpu=%.3f\n", alone, alone_cpu);
	printf("delta_append_seconds=%.3f delta_append_cpu=%.3f\n", delta, delta_cpu);
	/* the calling thread's share: with the rest on other threads, the
	 * wall time cannot drop below the larger part (whatever the load) */
	double other = delta_cpu - delta_main_cpu;
	printf("delta_append_caller_cpu=%.3f delta_append_other_cpu=%.3f cpu_bound_gain=%.2f\n", delta_main_cpu, other,
	       delta_cpu / (delta_main_cpu > other ? delta_main_cpu : other));
	printf("delta_over_parquet_ratio=%.3f\n", delta / alone);
	printf("small_append_p50_ms=%.2f small_append_p99_ms=%.2f (100 commits)\n", p50, p99);
	printf("max_rss_mb=%.1f\n", (double)ru.ru_maxrss / 1024.0);
	for (int i = 0; i < n; i++) dl_batch_free(batches[i]);
	dl_free(batches);
	dl_type_unref(schema);
	if (argc <= 2) {
		char cmd[1100];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (system(cmd) != 0) return 1;
	}
	return 0;
}
