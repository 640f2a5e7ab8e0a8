/* The vectorized % and div kernels (kernels.c) against the row-at-a-time
 * path (ops.c) on edge values: signs, zero divisors, MIN % -1, MIN div -1,
 * NaN and infinities, decimals. Two constants always take the row path, so
 * "CAST('x' AS T) % CAST('y' AS T)" is the reference for the same pair held
 * in columns (kernel column/column) or one column and one constant (kernel
 * column/constant, constant/column). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>
#include "expr/binder.h"
#include "expr/ops.h"
#include "expr_test_util.h"

typedef struct {
	const char *sql;   /* SQL type name */
	dl_type_id id;
	const char *const *vals; /* literal text of each edge value */
	int nvals;
} kcase;

static const char *const ints[] = {"0", "1", "-1", "2", "-2", "3", "-7", "7", "100", "2147483647", "-2147483648",
                                   "-2147483647"};
static const char *const longs[] = {"0",   "1",   "-1", "2", "-2", "7", "-7", "100", "9223372036854775807",
                                    "-9223372036854775808", "-9223372036854775807", "4294967296", "-4294967297"};
static const char *const dbls[] = {"0.0", "-0.0", "1.0", "-1.0", "5.5", "-5.5", "2.25", "NaN", "Infinity", "-Infinity",
                                   "1e308", "4.9e-324", "100.0"};
static const char *const decs[] = {"0.00", "1.00", "-1.00", "0.01", "-0.01", "5.50", "-5.50", "99999999.99",
                                   "-99999999.99", "7.25", "100.00"};

static dl_array *column_of(const dl_type *t, const char *lit)
{
	/* the value through the row path's own cast, so both sides hold the
	 * same bits */
	dl_builder *b;
	assert_int_equal(dl_builder_new(&b, (dl_type *)t), 0);
	dl_expr *e;
	dl_type *empty = dl_type_struct(NULL, 0);
	dl_batch one = {.schema = empty, .num_rows = 1};
	char cast[160];
	char tn[64];
	ex_tname(t, tn, sizeof tn);
	snprintf(cast, sizeof cast, "CAST('%s' AS %s)", lit, tn);
	assert_int_equal(dl_expr_parse(&e, cast), 0);
	assert_int_equal(dl_expr_bind(e, empty), 0);
	dl_array *a;
	assert_int_equal(dl_expr_eval(&a, e, &one, NULL), 0);
	ex_val v;
	ex_val_load(&v, a, 0);
	assert_false(v.null);
	assert_int_equal(ex_builder_put(b, &v), 0);
	dl_array *res;
	assert_int_equal(dl_builder_finish(&res, b), 0);
	dl_builder_free(b);
	dl_array_free(a);
	dl_expr_free(e);
	dl_type_unref(empty);
	return res;
}

static void eval_batch(char *out, size_t cap, const char *sql, dl_batch *bt, int64_t row)
{
	tu_eval_row(out, cap, sql, bt, row, NULL);
}

static void run_case(const kcase *k, const dl_type *t, const char *op)
{
	char tn[64];
	ex_tname(t, tn, sizeof tn);
	dl_field f[2] = {{"a", (dl_type *)t, true, NULL}, {"b", (dl_type *)t, true, NULL}};
	dl_type *sch = dl_type_struct(f, 2);
	int checked = 0;
	for (int i = 0; i < k->nvals; i++)
		for (int j = 0; j < k->nvals; j++) {
			char ref[256], got[256], sql[256];
			snprintf(sql, sizeof sql, "CAST('%s' AS %s) %s CAST('%s' AS %s)", k->vals[i], tn, op, k->vals[j], tn);
			tu_eval_row(ref, sizeof ref, sql, NULL, 0, NULL);
			dl_batch *bt = dl_batch_new(sch, 1);
			dl_array_free(bt->cols[0]);
			dl_array_free(bt->cols[1]);
			bt->cols[0] = column_of(t, k->vals[i]);
			bt->cols[1] = column_of(t, k->vals[j]);
			const char *forms[3];
			char f1[128], f2[160], f3[160];
			snprintf(f1, sizeof f1, "a %s b", op);
			snprintf(f2, sizeof f2, "a %s CAST('%s' AS %s)", op, k->vals[j], tn);
			snprintf(f3, sizeof f3, "CAST('%s' AS %s) %s b", k->vals[i], tn, op);
			forms[0] = f1, forms[1] = f2, forms[2] = f3;
			for (int fm = 0; fm < 3; fm++) {
				eval_batch(got, sizeof got, forms[fm], bt, 0);
				if (strcmp(ref, got) != 0)
					fail_msg("%s %s %s (%s) as \"%s\": kernel %s, row path %s", k->vals[i], op, k->vals[j], tn,
					         forms[fm], got, ref);
				checked++;
			}
			dl_batch_free(bt);
		}
	assert_int_equal(checked, 3 * k->nvals * k->nvals);
	dl_type_unref(sch);
}

static void test_edges(void **state)
{
	(void)state;
	const kcase cases[] = {
	    {"INT", DL_TYPE_INTEGER, ints, (int)(sizeof ints / sizeof ints[0])},
	    {"BIGINT", DL_TYPE_LONG, longs, (int)(sizeof longs / sizeof longs[0])},
	    {"DOUBLE", DL_TYPE_DOUBLE, dbls, (int)(sizeof dbls / sizeof dbls[0])},
	    {"DECIMAL", DL_TYPE_DECIMAL, decs, (int)(sizeof decs / sizeof decs[0])},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		dl_type *t = cases[c].id == DL_TYPE_DECIMAL ? dl_type_decimal(10, 2) : dl_type_new(cases[c].id);
		run_case(&cases[c], t, "%");
		if (cases[c].id == DL_TYPE_LONG) run_case(&cases[c], t, "div");
		dl_type_unref(t);
	}
}

/* Many rows (crossing bitmap bytes), nulls among them: a zero divisor in a
 * null row is no error, every row equals the row path's result. */
static void test_many_rows(void **state)
{
	(void)state;
	int64_t n = 1037;
	dl_type *l = dl_type_new(DL_TYPE_LONG);
	dl_field f[2] = {{"a", l, true, NULL}, {"b", l, true, NULL}};
	dl_type *sch = dl_type_struct(f, 2);
	dl_batch *bt = dl_batch_new(sch, n);
	dl_builder *ba, *bb;
	dl_builder_new(&ba, l);
	dl_builder_new(&bb, l);
	for (int64_t k = 0; k < n; k++) {
		int64_t a = (k * 7919) % 2001 - 1000, b = k % 9 - 4; /* b is 0 when k % 9 == 4 */
		if (k % 13 == 0) a = INT64_MIN;
		if (k % 5 == 1) dl_builder_append_null(ba);
		else dl_builder_append_int(ba, a);
		if (b == 0 || k % 17 == 3) dl_builder_append_null(bb);
		else dl_builder_append_int(bb, b);
	}
	dl_array_free(bt->cols[0]);
	dl_array_free(bt->cols[1]);
	dl_builder_finish(&bt->cols[0], ba);
	dl_builder_finish(&bt->cols[1], bb);
	dl_builder_free(ba);
	dl_builder_free(bb);
	const char *forms[] = {"a % b", "a % 7", "a % -1", "-7 % b", "a % 0 IS NULL OR a IS NULL"};
	for (size_t fm = 0; fm < sizeof forms / sizeof forms[0]; fm++) {
		dl_expr *e;
		assert_int_equal(dl_expr_parse(&e, forms[fm]), 0);
		assert_int_equal(dl_expr_bind(e, sch), 0);
		dl_array *a = NULL;
		int rc = dl_expr_eval(&a, e, bt, NULL);
		if (fm == 4) {
			/* valid rows divide by zero: the error, as row by row */
			assert_true(rc < 0);
			assert_string_equal(dl_error_last()->klass, "DIVIDE_BY_ZERO");
			dl_expr_free(e);
			continue;
		}
		assert_int_equal(rc, 0);
		for (int64_t k = 0; k < n; k++) {
			ex_val v;
			ex_val_load(&v, a, k);
			ex_val x, y;
			ex_val_load(&x, bt->cols[0], k);
			ex_val_load(&y, bt->cols[1], k);
			int64_t xv = x.v.i, yv = y.v.i;
			bool xn = x.null, yn = y.null;
			if (fm == 1) yv = 7, yn = false;
			if (fm == 2) yv = -1, yn = false;
			if (fm == 3) xv = -7, xn = false;
			if (xn || yn) {
				assert_true(v.null);
				continue;
			}
			int64_t want;
			assert_int_equal(ex_int_arith(OP_MOD, DL_TYPE_LONG, xv, yv, &want, false), 0);
			assert_false(v.null);
			assert_int_equal(v.v.i, want);
		}
		dl_array_free(a);
		dl_expr_free(e);
	}
	/* div: the first failing valid row decides the error; null rows with a
	 * zero divisor or MIN div -1 do not fail */
	const char *ok = "a div b";
	dl_expr *e;
	assert_int_equal(dl_expr_parse(&e, ok), 0);
	assert_int_equal(dl_expr_bind(e, sch), 0);
	dl_array *a = NULL;
	int rc = dl_expr_eval(&a, e, bt, NULL);
	/* a = MIN with b = -1 exists in a valid row (k = 39: 39 % 13 == 0, 39 % 9 - 4 == -1) */
	assert_true(rc < 0);
	assert_string_equal(dl_error_last()->klass, "ARITHMETIC_OVERFLOW");
	dl_array_free(a);
	dl_expr_free(e);
	dl_batch_free(bt);
	dl_type_unref(sch);
	dl_type_unref(l);
}

static dl_batch *one_column(dl_type *t, const int64_t *v, int64_t n)
{
	dl_field f[1] = {{"a", t, true, NULL}};
	dl_type *sch = dl_type_struct(f, 1);
	dl_batch *bt = dl_batch_new(sch, n);
	dl_type_unref(sch);
	dl_builder *b;
	dl_builder_new(&b, t);
	for (int64_t k = 0; k < n; k++) dl_builder_append_int(b, v[k]);
	dl_array_free(bt->cols[0]);
	dl_builder_finish(&bt->cols[0], b);
	dl_builder_free(b);
	return bt;
}

static void check_const(dl_batch *bt, dl_type_id t, const char *tn, int64_t c, bool mod)
{
	char sql[160];
	snprintf(sql, sizeof sql, "a %s CAST('%lld' AS %s)", mod ? "%" : "div", (long long)c, tn);
	dl_expr *e;
	assert_int_equal(dl_expr_parse(&e, sql), 0);
	assert_int_equal(dl_expr_bind(e, bt->schema), 0);
	dl_array *a = NULL;
	assert_int_equal(dl_expr_eval(&a, e, bt, NULL), 0);
	for (int64_t k = 0; k < bt->num_rows; k++) {
		ex_val x, v;
		ex_val_load(&x, bt->cols[0], k);
		ex_val_load(&v, a, k);
		int64_t want;
		assert_int_equal(ex_int_arith(mod ? OP_MOD : OP_IDIV, t, x.v.i, c, &want, false), 0);
		if (v.v.i != want) fail_msg("%s at %lld: kernel %lld, row path %lld", sql, (long long)x.v.i, (long long)v.v.i, (long long)want);
	}
	dl_array_free(a);
	dl_expr_free(e);
}

/* Constant divisors, the kernel's column/constant loop: large and small
 * magnitudes, values around 2^52 (where a double quotient estimate would
 * stop being exact), multiples of the divisor and their neighbours. */
static void test_const_divisors(void **state)
{
	(void)state;
	const int64_t T52 = 4503599627370496LL;
	const int64_t divs[] = {1, 2, 3, 7, 10, 49, -49, 100, -3, -100, 1000000007, T52 - 1, T52, -T52, T52 + 1, INT64_MAX, INT64_MIN,
	                        -INT64_MAX};
	int64_t v[4096];
	int64_t n = 0;
	/* 3320276000454252 * (1/49.0) rounds just below the true quotient
	 * 67760734703148 */
	const int64_t edges[] = {0, 1, -1, T52, -T52, T52 - 1, 1 - T52, T52 - 2, 2 - T52, 3320276000454252LL,
	                         -3424114425844427LL};
	for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) v[n++] = edges[i];
	for (size_t d = 0; d < sizeof divs / sizeof divs[0]; d++)
		for (int64_t m = -2; m <= 2; m++)
			for (int64_t e = -1; e <= 1; e++) {
				/* multiples of the divisor (and one off) near 0 and near 2^52 */
				int64_t c = divs[d] < 0 ? -(divs[d] / 2) : divs[d] / 2 + 1;
				if (c > T52 / 4) c = 3;
				v[n++] = m * c + e;
				int64_t big = (T52 / c) * c * (m < 0 ? -1 : 1) + e;
				if (big <= T52 && big >= -T52) v[n++] = big;
			}
	uint64_t seed = 12345;
	while (n < 3000) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		v[n++] = (int64_t)(seed >> 11) - T52; /* within +-2^52 */
	}
	dl_type *l = dl_type_new(DL_TYPE_LONG);
	dl_batch *small = one_column(l, v, n);
	v[n++] = INT64_MIN;
	v[n++] = T52 + 1;
	v[n++] = INT64_MAX;
	v[n++] = INT64_MIN + 1;
	/* the whole range: the kernel divides magnitudes up to 2^63 by a
	 * multiply-high (kernels.c udiv_q) */
	for (int k = 0; k < 600; k++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		v[n++] = (int64_t)(seed ^ (seed >> 29));
	}
	dl_batch *large = one_column(l, v, n);
	for (size_t d = 0; d < sizeof divs / sizeof divs[0]; d++)
		for (int mod = 0; mod < 2; mod++) {
			check_const(small, DL_TYPE_LONG, "BIGINT", divs[d], mod);
			if (!(divs[d] == -1 && !mod)) check_const(large, DL_TYPE_LONG, "BIGINT", divs[d], mod);
		}
	dl_batch_free(small);
	dl_batch_free(large);
	dl_type_unref(l);
	/* integers: every value is exact in a double */
	int64_t w[213] = {0, 1, -1, 7, -7, 99, -101, INT32_MAX, INT32_MIN, INT32_MAX - 1, INT32_MIN + 1, 2147483600, -2147483600};
	for (int k = 13; k < 213; k++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		w[k] = (int32_t)(seed >> 32);
	}
	dl_type *i = dl_type_new(DL_TYPE_INTEGER);
	dl_batch *bi = one_column(i, w, (int64_t)(sizeof w / sizeof w[0]));
	const int64_t idivs[] = {1, 2, 3, 7, 100, -3, -100, INT32_MAX, INT32_MIN, 65536, 10, 1000, -7, 641, INT32_MIN + 1};
	for (size_t d = 0; d < sizeof idivs / sizeof idivs[0]; d++) check_const(bi, DL_TYPE_INTEGER, "INT", idivs[d], true);
	dl_batch_free(bi);
	dl_type_unref(i);
}

/* Dividends in [0, 2^32) in whole groups of 8 rows, the kernel's 32-bit
 * paths (kernels.c udiv32_q, and udiv32_group8 two rows at a time): the
 * range's ends, multiples of the divisor and their neighbours up to 2^32,
 * random values; some groups hold one value outside the range (negative,
 * 2^32, larger), which sends that group to the other paths. */
static void test_const_divisors_32bit(void **state)
{
	(void)state;
	const int64_t T32 = 4294967296LL;
	const int64_t divs[] = {3, 7, 10, 100, -100, 641, 1000000007, (1 << 30) - 1, (1 << 30) + 1, INT32_MAX, 3000000019LL};
	static int64_t v[8 * 700];
	uint64_t seed = 99;
	for (size_t d = 0; d < sizeof divs / sizeof divs[0]; d++) {
		int64_t c = divs[d] < 0 ? -divs[d] : divs[d], n = 0;
		const int64_t edges[] = {0, 1, c - 1, c, c + 1, 2 * c - 1, T32 - 1, T32 - 2, T32 - c, (T32 / c) * c,
		                         (T32 / c) * c - 1, (T32 - 1) / c * c, 2147483647, 2147483648LL, 1073741823, 1073741824};
		for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
			if (edges[i] >= 0 && edges[i] < T32) v[n++] = edges[i];
		while (n < 8 * 700) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			v[n++] = (int64_t)(seed >> 32); /* [0, 2^32) */
		}
		/* one group in 50 with a value the 32-bit paths do not take */
		const int64_t out[] = {-1, T32, -(T32 - 1), INT64_MIN, INT64_MAX, 3 * T32 + 7};
		for (int g = 0; g < 700; g += 50) v[8 * g + g % 8] = out[(g / 50) % 6];
		dl_type *l = dl_type_new(DL_TYPE_LONG);
		dl_batch *b = one_column(l, v, n);
		for (int mod = 0; mod < 2; mod++) check_const(b, DL_TYPE_LONG, "BIGINT", divs[d], mod);
		dl_batch_free(b);
		dl_type_unref(l);
	}
	/* INT: every magnitude fits 32 bits; div as well as % */
	static int64_t w[8 * 200];
	const int64_t wedges[] = {0, 1, -1, INT32_MAX, INT32_MIN, INT32_MIN + 1, 99, -99, 100, -100, 107, -107};
	int64_t n = 0;
	for (size_t i = 0; i < sizeof wedges / sizeof wedges[0]; i++) w[n++] = wedges[i];
	while (n < 8 * 200) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		w[n++] = (int32_t)(seed >> 32);
	}
	dl_type *i = dl_type_new(DL_TYPE_INTEGER);
	dl_batch *bi = one_column(i, w, n);
	const int64_t idivs[] = {3, 7, 100, -100, 641, (1 << 30) - 1, (1 << 30) + 1, INT32_MAX, -INT32_MAX};
	for (size_t d = 0; d < sizeof idivs / sizeof idivs[0]; d++)
		for (int mod = 0; mod < 2; mod++) check_const(bi, DL_TYPE_INTEGER, "INT", idivs[d], mod);
	dl_batch_free(bi);
	dl_type_unref(i);
}

/* = and <> of a BIGINT or INT column with a constant (kernels.c eq_bits,
 * eight rows a byte): values equal to it in one 32-bit half only, negative
 * ones, and a row count that leaves a tail of fewer than 8. */
static void check_eq(dl_type_id t, const char *tn, const int64_t *v, int64_t n, int64_t c, bool ne)
{
	dl_type *ty = dl_type_new(t);
	dl_batch *b = one_column(ty, v, n);
	char sql[128];
	snprintf(sql, sizeof sql, "a %s CAST('%lld' AS %s)", ne ? "<>" : "=", (long long)c, tn);
	dl_expr *e;
	assert_int_equal(dl_expr_parse(&e, sql), 0);
	assert_int_equal(dl_expr_bind(e, b->schema), 0);
	dl_selection sel = {NULL, 0, 0};
	assert_int_equal(dl_expr_filter(&sel, e, b, NULL), 0);
	int64_t j = 0;
	for (int64_t k = 0; k < n; k++) {
		bool want = (v[k] == c) != ne, got = j < sel.count && sel.idx[j] == (uint32_t)k;
		if (got) j++;
		if (want != got) fail_msg("%s at row %lld (%lld): %d", sql, (long long)k, (long long)v[k], got);
	}
	assert_int_equal(j, sel.count);
	dl_selection_free(&sel);
	dl_expr_free(e);
	dl_batch_free(b);
	dl_type_unref(ty);
}

static void test_eq_const(void **state)
{
	(void)state;
	const int64_t T32 = 4294967296LL, c = 7 + 5 * T32;
	static int64_t v[8 * 40 + 5];
	int64_t n = (int64_t)(sizeof v / sizeof v[0]);
	for (int64_t k = 0; k < n; k++) {
		switch (k % 5) {
		case 0: v[k] = c; break;
		case 1: v[k] = 7; break;           /* low half equal */
		case 2: v[k] = 8 + 5 * T32; break; /* high half equal */
		case 3: v[k] = -c; break;
		default: v[k] = k % 3 ? c : 0;
		}
	}
	for (int ne = 0; ne < 2; ne++) {
		check_eq(DL_TYPE_LONG, "BIGINT", v, n, c, ne);
		check_eq(DL_TYPE_LONG, "BIGINT", v, n, 7, ne);
		check_eq(DL_TYPE_LONG, "BIGINT", v, n, -c, ne);
	}
	static int64_t w[8 * 40 + 3];
	int64_t m = (int64_t)(sizeof w / sizeof w[0]);
	for (int64_t k = 0; k < m; k++) w[k] = k % 4 == 0 ? -7 : k % 4 == 1 ? 7 : k % 4 == 2 ? INT32_MIN : (int32_t)k;
	for (int ne = 0; ne < 2; ne++) {
		check_eq(DL_TYPE_INTEGER, "INT", w, m, -7, ne);
		check_eq(DL_TYPE_INTEGER, "INT", w, m, INT32_MIN, ne);
		check_eq(DL_TYPE_INTEGER, "INT", w, m, m - 1, ne); /* the tail's last row */
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_edges),
	    cmocka_unit_test(test_many_rows),
	    cmocka_unit_test(test_const_divisors),
	    cmocka_unit_test(test_const_divisors_32bit),
	    cmocka_unit_test(test_eq_const),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
