/* Hash join: every kind with NULL keys on both sides, null-safe keys,
 * residual conditions, cross joins, duplicate keys across chunk and batch
 * boundaries, an empty build side, key type mismatch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "exec_test_util.h"

#define LS "lk int, lv string"
#define RS "rk int, rv string"
static const char *const L[] = {"1|a", "2|b", "NULL|c", "3|d", "1|e"};
static const char *const R[] = {"1|x", "NULL|y", "3|z", "4|w", "1|v"};

static dl_batch_stream *join(dl_join_kind kind, bool null_safe, const char *residual, int lb, int rb,
                             const dl_exec_ctx *ctx)
{
	dl_expr **lk = malloc(sizeof *lk), **rk = malloc(sizeof *rk);
	lk[0] = tu_expr("lk");
	rk[0] = tu_expr("rk");
	bool ns[] = {null_safe};
	dl_exec_join spec = {kind, kind == DL_JOIN_CROSS ? 0 : 1, lk, rk, ns, residual ? tu_expr(residual) : NULL};
	if (kind == DL_JOIN_CROSS) {
		dl_expr_free(lk[0]);
		dl_expr_free(rk[0]);
	}
	dl_batch_stream *s;
	int rc = dl_exec_hash_join(&s, tu_stream(LS, L, 5, lb), tu_stream(RS, R, 5, rb), &spec, ctx);
	free(lk);
	free(rk);
	if (rc < 0) fail_msg("join: %s", dl_error_last()->message);
	return s;
}

static void inner_left_right_full(void **st)
{
	(void)st;
	tu_expect(join(DL_JOIN_INNER, false, NULL, 2, 2, NULL), false, "1|a|1|x", "1|a|1|v", "1|e|1|x", "1|e|1|v",
	          "3|d|3|z");
	tu_expect(join(DL_JOIN_LEFT, false, NULL, 2, 3, NULL), false, "1|a|1|x", "1|a|1|v", "1|e|1|x", "1|e|1|v",
	          "3|d|3|z", "2|b|NULL|NULL", "NULL|c|NULL|NULL");
	tu_expect(join(DL_JOIN_RIGHT, false, NULL, 5, 1, NULL), false, "1|a|1|x", "1|a|1|v", "1|e|1|x", "1|e|1|v",
	          "3|d|3|z", "NULL|NULL|NULL|y", "NULL|NULL|4|w");
	tu_expect(join(DL_JOIN_FULL, false, NULL, 1, 2, NULL), false, "1|a|1|x", "1|a|1|v", "1|e|1|x", "1|e|1|v",
	          "3|d|3|z", "2|b|NULL|NULL", "NULL|c|NULL|NULL", "NULL|NULL|NULL|y", "NULL|NULL|4|w");
	/* <=>: NULL matches NULL */
	tu_expect(join(DL_JOIN_INNER, true, NULL, 2, 2, NULL), false, "1|a|1|x", "1|a|1|v", "1|e|1|x", "1|e|1|v",
	          "3|d|3|z", "NULL|c|NULL|y");
	dl_batch_stream *s = join(DL_JOIN_FULL, false, NULL, 1, 2, NULL);
	const dl_type *t = dl_batch_stream_schema(s);
	assert_int_equal(t->nchildren, 4);
	assert_true(t->children[0].nullable && t->children[3].nullable);
	dl_batch_stream_free(s);
}

static void semi_anti(void **st)
{
	(void)st;
	tu_expect(join(DL_JOIN_SEMI, false, NULL, 2, 2, NULL), true, "1|a", "3|d", "1|e");
	/* anti keeps the NULL-key row: NULL = anything is not true */
	tu_expect(join(DL_JOIN_ANTI, false, NULL, 2, 2, NULL), true, "2|b", "NULL|c");
	tu_expect(join(DL_JOIN_ANTI, true, NULL, 2, 2, NULL), true, "2|b");
	tu_expect(join(DL_JOIN_SEMI, false, "rv > 'w'", 3, 2, NULL), true, "1|a", "3|d", "1|e");
	tu_expect(join(DL_JOIN_SEMI, false, "rv = 'v' AND lv <> 'a'", 3, 2, NULL), true, "1|e");
	tu_expect(join(DL_JOIN_ANTI, false, "rv = 'v'", 3, 2, NULL), true, "2|b", "NULL|c", "3|d");
	dl_batch_stream *s = join(DL_JOIN_SEMI, false, NULL, 2, 2, NULL);
	assert_int_equal(dl_batch_stream_schema(s)->nchildren, 2);
	dl_batch_stream_free(s);
}

static void residual_conditions(void **st)
{
	(void)st;
	/* a residual failing on a matched pair turns it into an unmatched row */
	tu_expect(join(DL_JOIN_LEFT, false, "rv <> 'x'", 2, 2, NULL), false, "1|a|1|v", "1|e|1|v", "3|d|3|z",
	          "2|b|NULL|NULL", "NULL|c|NULL|NULL");
	tu_expect(join(DL_JOIN_FULL, false, "lv = 'a'", 2, 2, NULL), false, "1|a|1|x", "1|a|1|v", "1|e|NULL|NULL",
	          "3|d|NULL|NULL", "2|b|NULL|NULL", "NULL|c|NULL|NULL", "NULL|NULL|NULL|y", "NULL|NULL|3|z",
	          "NULL|NULL|4|w");
	/* a NULL residual is not a match */
	tu_expect(join(DL_JOIN_INNER, false, "CAST(NULL AS BOOLEAN)", 2, 2, NULL), false, "<none>");
}

static void cross(void **st)
{
	(void)st;
	dl_exec_ctx ctx = DL_EXEC_CTX_INIT;
	ctx.batch_rows = 3; /* pairs come in chunks of 3 */
	char **l;
	assert_int_equal(tu_collect(join(DL_JOIN_CROSS, false, NULL, 2, 2, &ctx), &l), 25);
	tu_free_lines(l, 25);
	tu_expect(join(DL_JOIN_CROSS, false, "lk > rk", 2, 2, &ctx), false, "2|b|1|x", "2|b|1|v", "3|d|1|x", "3|d|1|v");
}

static void many_matches_across_chunks(void **st)
{
	(void)st;
	enum { NL = 300, NR = 200 };
	static char lb[NL][16], rb[NR][16];
	static const char *lr[NL], *rr[NR];
	for (int i = 0; i < NL; i++) snprintf(lb[i], 16, "%d|l%d", i % 7, i), lr[i] = lb[i];
	for (int i = 0; i < NR; i++) snprintf(rb[i], 16, "%d|r%d", i % 5, i), rr[i] = rb[i];
	dl_exec_ctx ctx = DL_EXEC_CTX_INIT;
	ctx.batch_rows = 64;
	dl_expr *lk[] = {tu_expr("lk")}, *rk[] = {tu_expr("rk")};
	dl_exec_join spec = {DL_JOIN_FULL, 1, lk, rk, NULL, NULL};
	dl_batch_stream *s;
	assert_int_equal(dl_exec_hash_join(&s, tu_stream(LS, lr, NL, 50), tu_stream(RS, rr, NR, 30), &spec, &ctx), 0);
	char **l;
	int n = tu_collect(s, &l);
	/* keys 0..4 match: (#left with key k) * 40; keys 5, 6 unmatched on the left */
	int want = 0, lcount[7] = {0};
	for (int i = 0; i < NL; i++) lcount[i % 7]++;
	for (int k = 0; k < 5; k++) want += lcount[k] * (NR / 5);
	want += lcount[5] + lcount[6];
	assert_int_equal(n, want);
	for (int i = 0; i < n; i++) {
		int a = -1, b = -1;
		if (sscanf(l[i], "%d|%*[^|]|%d", &a, &b) == 2) assert_int_equal(a, b);
		else assert_true(a == 5 || a == 6);
	}
	tu_free_lines(l, n);
}

static void empty_sides_and_errors(void **st)
{
	(void)st;
	dl_expr *lk[] = {tu_expr("lk")}, *rk[] = {tu_expr("rk")};
	dl_exec_join spec = {DL_JOIN_LEFT, 1, lk, rk, NULL, NULL};
	dl_batch_stream *s;
	assert_int_equal(dl_exec_hash_join(&s, tu_stream(LS, L, 5, 2), tu_stream(RS, R, 0, 2), &spec, NULL), 0);
	tu_expect(s, false, "1|a|NULL|NULL", "2|b|NULL|NULL", "NULL|c|NULL|NULL", "3|d|NULL|NULL", "1|e|NULL|NULL");
	dl_expr *lk2[] = {tu_expr("lk")}, *rk2[] = {tu_expr("rk")};
	dl_exec_join spec2 = {DL_JOIN_RIGHT, 1, lk2, rk2, NULL, NULL};
	assert_int_equal(dl_exec_hash_join(&s, tu_stream(LS, L, 0, 2), tu_stream(RS, R, 5, 2), &spec2, NULL), 0);
	tu_expect(s, false, "NULL|NULL|1|x", "NULL|NULL|NULL|y", "NULL|NULL|3|z", "NULL|NULL|4|w", "NULL|NULL|1|v");
	dl_expr *lk3[] = {tu_expr("lk")}, *rk3[] = {tu_expr("rv")};
	dl_exec_join spec3 = {DL_JOIN_INNER, 1, lk3, rk3, NULL, NULL};
	assert_int_equal(dl_exec_hash_join(&s, tu_stream(LS, L, 5, 2), tu_stream(RS, R, 5, 2), &spec3, NULL), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "cast"));
	dl_expr *lk4[] = {tu_expr("lk")}, *rk4[] = {tu_expr("rk")};
	dl_exec_join spec4 = {DL_JOIN_CROSS, 1, lk4, rk4, NULL, NULL};
	assert_int_equal(dl_exec_hash_join(&s, tu_stream(LS, L, 5, 2), tu_stream(RS, R, 5, 2), &spec4, NULL), DL_EINVALID);
	/* the build side over the memory limit */
	dl_exec_memory mem = DL_EXEC_MEMORY_INIT(100);
	dl_exec_ctx ctx = DL_EXEC_CTX_INIT;
	ctx.mem = &mem;
	dl_expr *lk5[] = {tu_expr("lk")}, *rk5[] = {tu_expr("rk")};
	dl_exec_join spec5 = {DL_JOIN_INNER, 1, lk5, rk5, NULL, NULL};
	assert_int_equal(dl_exec_hash_join(&s, tu_stream(LS, L, 5, 2), tu_stream(RS, R, 5, 2), &spec5, &ctx), 0);
	char **l;
	assert_int_equal(tu_collect(s, &l), DL_ENOMEM);
	assert_non_null(strstr(dl_error_last()->message, "hash join"));
	assert_int_equal(atomic_load(&mem.used), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(inner_left_right_full),
		cmocka_unit_test(semi_anti),
		cmocka_unit_test(residual_conditions),
		cmocka_unit_test(cross),
		cmocka_unit_test(many_matches_across_chunks),
		cmocka_unit_test(empty_sides_and_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
