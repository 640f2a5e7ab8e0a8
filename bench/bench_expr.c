/* Benchmark: vectorized expression evaluation against DuckDB in one run.
 *   filter:      a > 5 AND b < 10.0     (count of selected rows)
 *   projection:  a * 2 + b              (sum of the results)
 * over 10M rows (a INT, b DOUBLE, ~1/16 NULLs in b) in batches of 64K rows,
 * single thread. DuckDB runs the same queries over the same data (generated
 * by the same formulas) in an in-memory table with threads=1
 * (bench/bench_expr_duckdb.mjs); results are checked equal.
 *
 * usage: bench_expr [rows] [--no-duckdb] [--runs N] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "columnar/builder.h"
#include "expr/expr.h"
#include "util/error.h"

#define BATCH 65536

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The data, as bench_expr_duckdb.mjs computes it in SQL. */
static int32_t gen_a(int64_t i) { return (int32_t)(((i * 2654435761LL) % 1000003) % 20); }
static bool b_null(int64_t i) { return i % 16 == 7; }
static double gen_b(int64_t i) { return (double)((i * 40503) % 10007) / 500.0; }

static dl_batch *make_batch(dl_type *schema, int64_t start, int64_t n)
{
	dl_batch *b = dl_batch_new(schema, n);
	dl_builder *ba, *bb;
	if (!b || dl_builder_new(&ba, schema->children[0].type) || dl_builder_new(&bb, schema->children[1].type)) return NULL;
	for (int64_t i = start; i < start + n; i++) {
		dl_builder_append_int(ba, gen_a(i));
		if (b_null(i)) dl_builder_append_null(bb);
		else dl_builder_append_double(bb, gen_b(i));
	}
	dl_array_free(b->cols[0]);
	dl_array_free(b->cols[1]);
	dl_builder_finish(&b->cols[0], ba);
	dl_builder_finish(&b->cols[1], bb);
	dl_builder_free(ba);
	dl_builder_free(bb);
	return b;
}

static int prepare(dl_expr **e, const char *sql, dl_type *schema)
{
	DL_TRY(dl_expr_parse(e, sql));
	return dl_expr_bind(*e, schema);
}

int main(int argc, char **argv)
{
	int64_t rows = 10000000;
	int runs = 5;
	bool duck = true;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--no-duckdb")) duck = false;
		else if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
		else rows = atoll(argv[i]);
	}
	dl_type *ti = dl_type_new(DL_TYPE_INTEGER), *td = dl_type_new(DL_TYPE_DOUBLE);
	dl_field f[2] = {{"a", ti, true, NULL}, {"b", td, true, NULL}};
	dl_type *schema = dl_type_struct(f, 2);
	int64_t nb = (rows + BATCH - 1) / BATCH;
	dl_batch **batches = calloc((size_t)nb, sizeof *batches);
	for (int64_t k = 0; k < nb; k++) {
		int64_t n = rows - k * BATCH < BATCH ? rows - k * BATCH : BATCH;
		batches[k] = make_batch(schema, k * BATCH, n);
		if (!batches[k]) {
			fprintf(stderr, "out of memory\n");
			return 1;
		}
	}
	dl_expr *filter, *proj;
	if (prepare(&filter, "a > 5 AND b < 10.0", schema) < 0 || prepare(&proj, "a * 2 + b", schema) < 0) {
		fprintf(stderr, "%s\n", dl_error_last()->message);
		return 1;
	}
	double best_f = 1e30, best_p = 1e30;
	int64_t count = 0;
	double sum = 0;
	int status = 0;
	dl_selection sel = {0};
	for (int r = 0; r < runs; r++) {
		double t = now_ms();
		count = 0;
		for (int64_t k = 0; k < nb; k++) {
			if (dl_expr_filter(&sel, filter, batches[k], NULL) < 0) {
				fprintf(stderr, "%s\n", dl_error_last()->message);
				return 1;
			}
			count += sel.count;
		}
		double tf = now_ms() - t;
		best_f = tf < best_f ? tf : best_f;
		t = now_ms();
		sum = 0;
		for (int64_t k = 0; k < nb; k++) {
			dl_array *out;
			if (dl_expr_eval(&out, proj, batches[k], NULL) < 0) {
				fprintf(stderr, "%s\n", dl_error_last()->message);
				return 1;
			}
			const double *v = out->values;
			const uint8_t *valid = out->validity;
			double s = 0;
			for (int64_t i = 0; i < out->length; i++)
				if (!valid || (valid[i >> 3] >> (i & 7) & 1)) s += v[i];
			sum += s;
			dl_array_free(out);
		}
		double tp = now_ms() - t;
		best_p = tp < best_p ? tp : best_p;
	}
	dl_selection_free(&sel);
	printf("deltalake rows=%lld filter_ms=%.2f (%.2f ns/row) count=%lld projection_ms=%.2f (%.2f ns/row) sum=%.6e\n",
	       (long long)rows, best_f, best_f * 1e6 / (double)rows, (long long)count, best_p, best_p * 1e6 / (double)rows,
	       sum);
	if (duck) {
		/* the sources: $DL_SOURCE_DIR, else two levels above this file */
		char here[1024];
		snprintf(here, sizeof here, "%s", __FILE__);
		for (int up = 0; up < 2; up++) {
			char *sl = strrchr(here, '/');
			if (sl) *sl = 0;
		}
		const char *src = getenv("DL_SOURCE_DIR") ? getenv("DL_SOURCE_DIR") : here;
		char cmd[2300];
		snprintf(cmd, sizeof cmd, "node '%s/bench/bench_expr_duckdb.mjs' %lld %d", src, (long long)rows, runs);
		FILE *p = popen(cmd, "r");
		char line[512] = "";
		double df = 0, dp = 0, dsum = 0;
		long long dcount = 0;
		if (p && fgets(line, sizeof line, p) &&
		    sscanf(line, "duckdb filter_ms=%lf count=%lld projection_ms=%lf sum=%lf", &df, &dcount, &dp, &dsum) == 4) {
			printf("duckdb    rows=%lld filter_ms=%.2f (%.2f ns/row) count=%lld projection_ms=%.2f (%.2f ns/row) sum=%.6e\n",
			       (long long)rows, df, df * 1e6 / (double)rows, dcount, dp, dp * 1e6 / (double)rows, dsum);
			printf("ratio duckdb/deltalake: filter %.2fx, projection %.2fx (above 1: we are faster)\n", df / best_f,
			       dp / best_p);
			if (dcount != count || fabs(dsum - sum) > 1e-6 * fabs(sum)) {
				printf("MISMATCH: results differ from DuckDB's\n");
				status = 1;
			}
		} else {
			printf("duckdb: not run (%s)\n", line[0] ? line : "node or @duckdb/node-api unavailable");
		}
		if (p) pclose(p);
	}
	for (int64_t k = 0; k < nb; k++) dl_batch_free(batches[k]);
	free(batches);
	dl_expr_free(filter);
	dl_expr_free(proj);
	dl_type_unref(schema);
	dl_type_unref(ti);
	dl_type_unref(td);
	return status;
}
