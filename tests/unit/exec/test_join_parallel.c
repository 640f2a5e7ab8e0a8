/* The parallel join probe (join_par.c): at 2 and 3 threads inner, left,
 * right and full outer, semi and anti joins give the serial output row for
 * row (a right or full join's unmatched build rows last), in the
 * same order (keys with several build matches, NULL keys on both sides,
 * <=> keys, a batch size that splits a key's matches over chunks); an
 * interrupt mid-probe cancels with OPERATION_CANCELED and the next join
 * runs normally. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "exec_test_util.h"

enum { NL = 60000, NR = 3000, PER_BATCH = 5000 };

/* "k int, s string, v long": keys with duplicates and NULLs */
static char **rows_of(int n, int keys, int salt)
{
	char **r = malloc(sizeof *r * (size_t)n);
	for (int i = 0; i < n; i++) {
		char buf[96], k[16];
		int g = (int)(((unsigned)(i + salt) * 2654435761u) % (unsigned)keys);
		if ((i + salt) % 41 == 3) snprintf(k, sizeof k, "NULL");
		else snprintf(k, sizeof k, "%d", g);
		snprintf(buf, sizeof buf, "%s|t%d|%d", k, g % 7, i);
		r[i] = strdup(buf);
	}
	return r;
}

static void free_rows(char **r, int n)
{
	for (int i = 0; i < n; i++) free(r[i]);
	free(r);
}

static dl_batch_stream *join_of(dl_batch_stream *left, char **r, dl_join_kind kind, bool null_safe,
                                const dl_exec_ctx *ctx)
{
	dl_expr **lk = malloc(2 * sizeof *lk), **rk = malloc(2 * sizeof *rk);
	lk[0] = tu_expr("k");
	lk[1] = tu_expr("s");
	rk[0] = tu_expr("rk");
	rk[1] = tu_expr("rs");
	bool ns[2] = {null_safe, false};
	dl_exec_join spec = {kind, 2, lk, rk, ns, NULL};
	dl_batch_stream *s;
	int rc = dl_exec_hash_join(&s, left, tu_stream("rk int, rs string, rv long", (const char *const *)r, NR, 700),
	                           &spec, ctx);
	free(lk);
	free(rk);
	if (rc < 0) fail_msg("join: %s", dl_error_last()->message);
	return s;
}

static void assert_same(char **a, int na, char **b, int nb)
{
	assert_int_equal(na, nb);
	for (int i = 0; i < na; i++)
		if (strcmp(a[i], b[i])) fail_msg("row %d differs: %s vs %s", i, a[i], b[i]);
}

static void same_rows_as_serial(void **st)
{
	(void)st;
	char **l = rows_of(NL, 2000, 0), **r = rows_of(NR, 1500, 7);
	dl_join_kind kinds[] = {DL_JOIN_INNER, DL_JOIN_LEFT, DL_JOIN_SEMI, DL_JOIN_ANTI, DL_JOIN_RIGHT, DL_JOIN_FULL};
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
		for (int ns = 0; ns < 2; ns++) {
			dl_exec_ctx ctx = DL_EXEC_CTX_INIT;
			ctx.batch_rows = 1000; /* chunks end inside a key's matches */
			ctx.threads = 1;
			char **want;
			int nw = tu_collect(join_of(tu_stream("k int, s string, v long", (const char *const *)l, NL, PER_BATCH), r,
			                            kinds[k], ns, &ctx),
			                    &want);
			assert_true(nw > 0);
			for (int t = 2; t <= 3; t++) {
				ctx.threads = t;
				char **got;
				int ng = tu_collect(
				    join_of(tu_stream("k int, s string, v long", (const char *const *)l, NL, PER_BATCH), r, kinds[k],
				            ns, &ctx),
				    &got);
				assert_same(want, nw, got, ng);
				tu_free_lines(got, ng);
			}
			tu_free_lines(want, nw);
		}
	free_rows(l, NL);
	free_rows(r, NR);
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

static void cancel_mid_probe(void **st)
{
	(void)st;
	char **l = rows_of(NL, 2000, 0), **r = rows_of(NR, 1500, 7);
	dl_exec_ctx ctx = DL_EXEC_CTX_INIT;
	ctx.threads = 1;
	char **want;
	int nw = tu_collect(
	    join_of(tu_stream("k int, s string, v long", (const char *const *)l, NL, PER_BATCH), r, DL_JOIN_INNER, false, &ctx),
	    &want);
	_Atomic bool stop = false;
	ctx.threads = 2;
	ctx.interrupt = &stop;
	for (int at = 1; at <= 5; at += 2) {
		atomic_store(&stop, false);
		raiser *rs = calloc(1, sizeof *rs);
		rs->in = tu_stream("k int, s string, v long", (const char *const *)l, NL, PER_BATCH);
		rs->flag = &stop;
		rs->at = at;
		dl_batch_stream *s = join_of(dl_exec_stream_new(rs, r_schema, r_next, r_release), r, DL_JOIN_INNER, false, &ctx);
		int rc = 0;
		for (int i = 0; i < 10000 && rc == 0; i++) {
			dl_batch *b;
			rc = dl_batch_stream_next(s, &b);
			if (rc == 0 && !b) break;
			dl_batch_free(b);
		}
		assert_int_equal(rc, DL_ECANCELLED);
		assert_string_equal(dl_error_last()->klass, "OPERATION_CANCELED");
		dl_batch_stream_free(s);
		atomic_store(&stop, false);
		char **got;
		int ng = tu_collect(join_of(tu_stream("k int, s string, v long", (const char *const *)l, NL, PER_BATCH), r,
		                            DL_JOIN_INNER, false, &ctx),
		                    &got);
		assert_same(want, nw, got, ng);
		tu_free_lines(got, ng);
	}
	tu_free_lines(want, nw);
	free_rows(l, NL);
	free_rows(r, NR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(same_rows_as_serial),
		cmocka_unit_test(cancel_mid_probe),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
