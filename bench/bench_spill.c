/* Benchmark: spilling operators under a memory limit (issue 10's figure:
 * a GROUP BY over 20M distinct keys with memory_limit 256 MB completes
 * with peak RSS under 400 MB).
 *
 *   group   GROUP BY k (rows distinct keys, in a scrambled order):
 *           count(*), sum(v), min(v)
 *   join    t JOIN u ON t.k = u.k, both sides `rows` rows, count
 *   sort    ORDER BY k over all rows
 *
 * The input is generated batch by batch (never held whole), so the peak
 * RSS measured (getrusage ru_maxrss, the same figure /usr/bin/time -v
 * prints) is the operator's. Prints rows out, seconds, peak bytes charged
 * to the budget and the process's peak RSS.
 *
 * usage: bench_spill [group|join|sort] [rows=20000000] [limit_mb=256] [temp_dir] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include "exec/exec.h"
#include "exec/op.h"

#define BATCH 65536

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct gen {
	dl_type *schema;
	int64_t rows, at, salt;
} gen;

static const dl_type *g_schema(dl_batch_stream *s)
{
	return ((gen *)s->private_data)->schema;
}

/* k: a permutation of 0..rows-1, an affine map modulo rows whose
 * multiplier (2654435761, a prime) is coprime to any rows it does not
 * divide; v = row % 1000. */
static int g_next(dl_batch_stream *s, dl_batch **out)
{
	gen *g = s->private_data;
	*out = NULL;
	if (g->at >= g->rows) return 0;
	int64_t n = g->rows - g->at < BATCH ? g->rows - g->at : BATCH;
	dl_batch *b = dl_batch_new(g->schema, n);
	dl_array *k = dl_array_new(g->schema->children[0].type, n), *v = dl_array_new(g->schema->children[1].type, n);
	if (!b || !k || !v) return dl_error_set(DL_ENOMEM, "out of memory");
	for (int64_t i = 0; i < n; i++) {
		int64_t r = g->at + i;
		((int64_t *)k->values)[i] = (int64_t)(((uint64_t)r * 2654435761u + (uint64_t)g->salt) % (uint64_t)g->rows);
		((int64_t *)v->values)[i] = r % 1000;
	}
	b->cols[0] = k;
	b->cols[1] = v;
	g->at += n;
	*out = b;
	return 0;
}

static void g_release(dl_batch_stream *s)
{
	gen *g = s->private_data;
	dl_type_unref(g->schema);
	free(g);
	free(s);
}

static dl_batch_stream *source(int64_t rows, int64_t salt, const char *k, const char *v)
{
	gen *g = calloc(1, sizeof *g);
	dl_type *lt = dl_type_new(DL_TYPE_LONG);
	const char *names[] = {k, v};
	dl_type *types[] = {lt, lt};
	g->schema = dl_exec_struct(names, types, NULL, 2);
	dl_type_unref(lt);
	g->rows = rows;
	g->salt = salt;
	return dl_exec_stream_new(g, g_schema, g_next, g_release);
}

static dl_expr *ex(const char *sql)
{
	dl_expr *e;
	if (dl_expr_parse(&e, sql) < 0) exit(2);
	return e;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "group";
	int64_t rows = argc > 2 ? atoll(argv[2]) : 20000000;
	int64_t limit_mb = argc > 3 ? atoll(argv[3]) : 256;
	dl_exec_memory mem = DL_EXEC_MEMORY_INIT(limit_mb << 20);
	dl_exec_ctx ctx = DL_EXEC_CTX_INIT;
	ctx.mem = &mem;
	ctx.temp_dir = argc > 4 ? argv[4] : NULL;
	dl_batch_stream *s = NULL;
	int rc;
	double t0 = now_s();
	if (!strcmp(what, "group")) {
		dl_expr *keys[] = {ex("k")};
		dl_exec_agg aggs[] = {{.kind = DL_AGG_COUNT_STAR, .name = "n"},
		                      {.kind = DL_AGG_SUM, .arg = ex("v"), .name = "s"},
		                      {.kind = DL_AGG_MIN, .arg = ex("v"), .name = "m"}};
		rc = dl_exec_aggregate(&s, source(rows, 7, "k", "v"), keys, NULL, 1, aggs, 3, &ctx);
	} else if (!strcmp(what, "join")) {
		dl_expr *lk[] = {ex("k")}, *rk[] = {ex("k2")};
		dl_exec_join spec = {DL_JOIN_INNER, 1, lk, rk, NULL, NULL};
		rc = dl_exec_hash_join(&s, source(rows, 3, "k", "v"), source(rows, 5, "k2", "v2"), &spec, &ctx);
	} else if (!strcmp(what, "sort")) {
		dl_exec_sort_key keys[] = {{ex("k"), false, DL_NULLS_DEFAULT}};
		rc = dl_exec_sort(&s, source(rows, 7, "k", "v"), keys, 1, -1, 0, &ctx);
	} else {
		fprintf(stderr, "usage: bench_spill [group|join|sort] [rows] [limit_mb] [temp_dir]\n");
		return 2;
	}
	if (rc < 0) {
		fprintf(stderr, "bench_spill: %s\n", dl_error_last()->message);
		return 1;
	}
	int64_t out = 0, check = 0;
	for (;;) {
		dl_batch *b;
		if ((rc = dl_batch_stream_next(s, &b)) < 0 || !b) break;
		out += b->num_rows;
		/* group: every key once with count 1; sort: ascending keys */
		if (!strcmp(what, "group"))
			for (int64_t i = 0; i < b->num_rows; i++) check += ((const int64_t *)b->cols[1]->values)[i];
		dl_batch_free(b);
	}
	dl_batch_stream_free(s);
	double t = now_s() - t0;
	if (rc < 0) {
		fprintf(stderr, "bench_spill: %s\n", dl_error_last()->message);
		return 1;
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("%s rows=%lld limit=%lld MB: %lld rows out%s, %.2f s, peak charged %.1f MB, peak RSS %.1f MB\n", what,
	       (long long)rows, (long long)limit_mb, (long long)out,
	       !strcmp(what, "group") ? (check == rows ? " (each key once)" : " (WRONG COUNTS)") : "", t,
	       (double)atomic_load(&mem.peak) / (1 << 20), (double)ru.ru_maxrss / 1024);
	return !strcmp(what, "group") && (check != rows || out != rows);
}
