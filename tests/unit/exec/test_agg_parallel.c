/* The parallel hash aggregate (aggregate_par.c): at 2 and 3 threads the
 * output is byte for byte the serial operator's (DOUBLE sums, averages and
 * variances to the last bit, first/last, groups in order of first
 * appearance), also when a tiny memory limit makes the shards spill (then
 * compared as sorted rows: which groups stay in memory differs); an
 * interrupt mid-aggregate cancels with OPERATION_CANCELED and the next
 * aggregate runs normally. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>
#include <cmocka.h>
#include "exec_test_util.h"

static char tmpdir[256];

static int setup(void **st)
{
	(void)st;
	snprintf(tmpdir, sizeof tmpdir, "/tmp/dl_test_aggpar_XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **st)
{
	(void)st;
	return rmdir(tmpdir);
}

static int open_spill_files(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	struct dirent *e;
	char p[300], target[512];
	while (d && (e = readdir(d))) {
		snprintf(p, sizeof p, "/proc/self/fd/%s", e->d_name);
		ssize_t k = readlink(p, target, sizeof target - 1);
		if (k <= 0) continue;
		target[k] = 0;
		if (!strncmp(target, tmpdir, strlen(tmpdir)) && strstr(target, "dl-spill-")) n++;
	}
	if (d) closedir(d);
	return n;
}

#define SPEC "k int, s string, v long, x double"
enum { N = 200000, PER_BATCH = 8192 };

/* x spans 12 orders of magnitude, so a sum in another order differs in
 * its last bits */
static char **make_rows(int n, int groups)
{
	char **r = malloc(sizeof *r * (size_t)n);
	for (int i = 0; i < n; i++) {
		char buf[160], k[16], v[24];
		unsigned hsh = (unsigned)i * 2654435761u;
		int g = (int)(hsh % (unsigned)groups);
		if (i % 97 == 5) snprintf(k, sizeof k, "NULL");
		else snprintf(k, sizeof k, "%d", g);
		if (i % 13 == 0) snprintf(v, sizeof v, "NULL");
		else snprintf(v, sizeof v, "%d", (i * 31) % 1000 - 300);
		double x = (double)((hsh >> 7) % 1000003u) / 7.0 * (i % 5 == 0 ? 1e12 : 1.0);
		snprintf(buf, sizeof buf, "%s|s%d|%s|%.17g", k, g % 700, v, x);
		r[i] = strdup(buf);
	}
	return r;
}

#define A(k, x, nm) {.kind = (k), .arg = (x) ? tu_expr(x) : NULL, .name = (nm)}

/* count(DISTINCT v) or, where the spill test cannot hold its pairs (the
 * groups kept in memory grow them past the limit's reserve, serially too),
 * count(v) */
static bool with_distinct = true;

static dl_batch_stream *agg_over(dl_batch_stream *in, const dl_exec_ctx *ctx)
{
	dl_expr *keys[2] = {tu_expr("k"), tu_expr("s")};
	dl_exec_agg aggs[] = {
		A(DL_AGG_COUNT_STAR, NULL, "n"), A(DL_AGG_SUM, "x", "sx"),        A(DL_AGG_AVG, "x", "ax"),
		A(DL_AGG_VAR_SAMP, "x", "vx"),   A(DL_AGG_FIRST, "x", "fx"),      A(DL_AGG_LAST, "v", "lv"),
		A(DL_AGG_MIN, "s", "mins"),      A(DL_AGG_MAX, "x", "maxx"),      A(DL_AGG_SUM, "v", "sv"),
		A(DL_AGG_COUNT_DISTINCT, "v", "dv"), A(DL_AGG_SUM, "x * 3", "sx3"),
	};
	aggs[4].ignore_nulls = false;
	if (!with_distinct) aggs[9].kind = DL_AGG_COUNT;
	const char *names[] = {"k", "s"};
	dl_batch_stream *s;
	int rc = dl_exec_aggregate(&s, in, keys, names, 2, aggs, (int)(sizeof aggs / sizeof aggs[0]), ctx);
	if (rc < 0) fail_msg("aggregate: %s", dl_error_last()->message);
	return s;
}

/* Rows as text with every DOUBLE as its exact bits (%a). */
static int collect(dl_batch_stream *s, char ***out, bool sort, bool *saw_spill)
{
	char **lines = NULL;
	int n = 0, cap = 0, rc = 0;
	for (;;) {
		dl_batch *b;
		if ((rc = dl_batch_stream_next(s, &b)) < 0 || !b) break;
		if (saw_spill && open_spill_files() > 0) *saw_spill = true;
		for (int64_t r = 0; r < b->num_rows; r++) {
			dl_buf line = DL_BUF_INIT;
			for (int c = 0; c < b->ncols; c++) {
				const dl_array *a = b->cols[c];
				if (c) dl_buf_putc(&line, '|');
				if (a->type->id == DL_TYPE_DOUBLE && dl_array_is_valid(a, r))
					dl_buf_printf(&line, "%a", ((const double *)a->values)[r]);
				else
					tu_cell(&line, a, r);
			}
			if (n == cap) {
				cap = cap ? 2 * cap : 1024;
				lines = realloc(lines, (size_t)cap * sizeof *lines);
			}
			lines[n++] = line.data ? line.data : strdup("");
		}
		dl_batch_free(b);
	}
	dl_batch_stream_free(s);
	if (rc < 0) fail_msg("stream failed: %s", dl_error_last()->message);
	if (sort && n > 1) qsort(lines, (size_t)n, sizeof *lines, tu_strcmp);
	*out = lines;
	return n;
}

static void assert_same(char **a, int na, char **b, int nb)
{
	assert_int_equal(na, nb);
	for (int i = 0; i < na; i++)
		if (strcmp(a[i], b[i])) fail_msg("row %d differs: %s vs %s", i, a[i], b[i]);
}

static void free_lines(char **l, int n)
{
	for (int i = 0; i < n; i++) free(l[i]);
	free(l);
}

static int run(char **rows, const dl_exec_ctx *ctx, char ***out, bool sort, bool *saw_spill)
{
	return collect(agg_over(tu_stream(SPEC, (const char *const *)rows, N, PER_BATCH), ctx), out, sort, saw_spill);
}

static void same_bits_as_serial(void **st)
{
	(void)st;
	int groups[] = {7, 5000, 150000};
	for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
		char **rows = make_rows(N, groups[g]);
		dl_exec_ctx ctx = DL_EXEC_CTX_INIT;
		ctx.threads = 1;
		char **want;
		int nw = run(rows, &ctx, &want, false, NULL);
		assert_true(nw > 1);
		for (int t = 2; t <= 3; t++) {
			ctx.threads = t;
			char **got;
			int ng = run(rows, &ctx, &got, false, NULL); /* ordered: first appearance */
			assert_same(want, nw, got, ng);
			free_lines(got, ng);
		}
		free_lines(want, nw);
		free_lines(rows, N);
	}
}

static void spilling_same_bits(void **st)
{
	(void)st;
	char **rows = make_rows(N, 8000); /* 25 rows a group: their order shows in the sums */
	with_distinct = false;
	dl_exec_ctx ctx = DL_EXEC_CTX_INIT;
	ctx.threads = 1;
	char **want;
	int nw = run(rows, &ctx, &want, true, NULL);
	for (int t = 1; t <= 2; t++) {
		dl_exec_memory mem = DL_EXEC_MEMORY_INIT(512 * 1024);
		ctx.mem = &mem;
		ctx.temp_dir = tmpdir;
		ctx.threads = t;
		bool saw = false;
		char **got;
		int ng = run(rows, &ctx, &got, true, &saw);
		assert_true(saw);
		assert_true(atomic_load(&mem.peak) <= mem.limit);
		assert_int_equal(atomic_load(&mem.used), 0);
		assert_int_equal(open_spill_files(), 0);
		assert_same(want, nw, got, ng);
		free_lines(got, ng);
	}
	free_lines(want, nw);
	free_lines(rows, N);
	with_distinct = true;
}

/* A stream that raises the interrupt as it hands out batch `at`. */
typedef struct raiser {
	dl_batch_stream *in;
	_Atomic bool *flag;
	int seen, at;
} raiser;

static const dl_type *r_schema(dl_batch_stream *s)
{
	return dl_batch_stream_schema(((raiser *)s->private_data)->in);
}

static int r_next(dl_batch_stream *s, dl_batch **out)
{
	raiser *r = s->private_data;
	int rc = dl_batch_stream_next(r->in, out);
	if (rc == 0 && *out && ++r->seen == r->at) atomic_store(r->flag, true);
	return rc;
}

static void r_release(dl_batch_stream *s)
{
	raiser *r = s->private_data;
	dl_batch_stream_free(r->in);
	free(r);
	dl_free(s);
}

static void cancel_mid_aggregate(void **st)
{
	(void)st;
	char **rows = make_rows(N, 5000);
	dl_exec_ctx ctx = DL_EXEC_CTX_INIT;
	ctx.threads = 1;
	char **want;
	int nw = run(rows, &ctx, &want, false, NULL);
	_Atomic bool stop = false;
	for (int round = 0; round < 3; round++) {
		atomic_store(&stop, false);
		ctx.threads = 2;
		ctx.interrupt = &stop;
		raiser *r = calloc(1, sizeof *r);
		r->in = tu_stream(SPEC, (const char *const *)rows, N, PER_BATCH);
		r->flag = &stop;
		r->at = 3 + round * 5; /* after some batches went through the shards */
		dl_batch_stream *in = dl_exec_stream_new(r, r_schema, r_next, r_release);
		dl_batch_stream *s = agg_over(in, &ctx);
		dl_batch *b = NULL;
		int rc = dl_batch_stream_next(s, &b);
		assert_int_equal(rc, DL_ECANCELLED);
		assert_null(b);
		assert_string_equal(dl_error_last()->klass, "OPERATION_CANCELED");
		dl_batch_stream_free(s);
		/* the statement is gone; the next one runs on fresh shards */
		atomic_store(&stop, false);
		char **got;
		int ng = run(rows, &ctx, &got, false, NULL);
		assert_same(want, nw, got, ng);
		free_lines(got, ng);
	}
	free_lines(want, nw);
	free_lines(rows, N);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(same_bits_as_serial),
		cmocka_unit_test(spilling_same_bits),
		cmocka_unit_test(cancel_mid_aggregate),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
