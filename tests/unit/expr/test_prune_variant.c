/* Soundness of file skipping on variant paths: random files of variant
 * rows (the path `a` holding integers, decimals, doubles or strings, some
 * rows without it, some SQL NULL), the statistics Delta would record for
 * `$['a']` (only when every present value has one type and none is a
 * variant null; long strings cut to 32 characters, the max then ending in
 * U+10FFFF), and random predicates over variant_get / try_variant_get read
 * as many types: a file holding a row that matches (per the evaluator) must
 * never be skipped, and enough are skipped for the test to mean something. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include "expr_test_util.h"

static unsigned seed = 12345;
static int rnd(int n)
{
	seed = seed * 1103515245u + 12345u;
	return (int)((seed >> 8) % (unsigned)n);
}

typedef struct vfile {
	int64_t rows;
	dl_col_stats col;  /* the variant column: null count only */
	dl_col_stats path; /* $['a'] */
	char smin[64], smax[64];
} vfile;

static int provide(void *payload, const char *const *path, int depth, dl_col_stats *out)
{
	vfile *f = payload;
	if (depth == 1 && strcmp(path[0], "v") == 0) *out = f->col;
	return 0;
}

static int provide_path(void *payload, const char *const *path, int depth, const char *jpath, dl_col_stats *out)
{
	vfile *f = payload;
	if (depth == 1 && strcmp(path[0], "v") == 0 && strcmp(jpath, "$['a']") == 0) *out = f->path;
	return 0;
}

enum { K_LONG, K_DEC, K_DOUBLE, K_STRING, NKINDS };

static void rand_string(char *out, bool long_ok)
{
	int n = long_ok && rnd(4) == 0 ? 33 + rnd(5) : rnd(4);
	for (int i = 0; i < n; i++) out[i] = "abcz"[rnd(4)];
	out[n] = 0;
}

static void literal(dl_buf *b, const char *type)
{
	if (strcmp(type, "string") == 0) {
		char s[64];
		rand_string(s, true);
		dl_buf_printf(b, "'%s'", s);
	} else if (rnd(3) == 0) {
		dl_buf_printf(b, "%d.%d", rnd(50) - 25, rnd(10));
	} else {
		dl_buf_printf(b, "%d", rnd(50) - 25);
	}
}

static const char *const types[] = {"int", "bigint", "smallint", "tinyint", "decimal(6,2)", "decimal(4,0)",
                                    "double", "float", "string"};

/* The types that suit the file's kind come up half the time. */
static int file_kind;
static const char *pick_type(void)
{
	static const char *const suits[][3] = {{"int", "bigint", "decimal(6,2)"}, {"decimal(6,2)", "decimal(4,1)", "decimal(9,3)"},
	                                       {"double", "double", "double"}, {"string", "string", "string"}};
	return rnd(2) ? suits[file_kind][rnd(3)] : types[rnd(9)];
}

static void pred(dl_buf *b, int depth)
{
	int k = rnd(depth > 0 ? 8 : 5);
	const char *t = pick_type();
	const char *fn = rnd(4) ? "try_variant_get" : "variant_get";
	static const char *const ops[] = {"=", "<", "<=", ">", ">=", "<>", "<=>"};
	switch (k) {
	case 0:
	case 1:
	case 2:
		dl_buf_printf(b, "%s(v, '$.a', '%s') %s ", fn, t, ops[rnd(7)]);
		literal(b, t);
		return;
	case 3:
		dl_buf_printf(b, "%s(v, '$.a', '%s') IN (", fn, t);
		literal(b, t);
		dl_buf_puts(b, ", ");
		literal(b, t);
		dl_buf_puts(b, ")");
		return;
	case 4: dl_buf_printf(b, "%s(v, '$.a', '%s') IS %sNULL", fn, t, rnd(2) ? "NOT " : ""); return;
	case 5:
		dl_buf_puts(b, "NOT (");
		pred(b, depth - 1);
		dl_buf_puts(b, ")");
		return;
	default:
		dl_buf_puts(b, "(");
		pred(b, depth - 1);
		dl_buf_puts(b, k == 6 ? ") AND (" : ") OR (");
		pred(b, depth - 1);
		dl_buf_puts(b, ")");
	}
}

static void test_soundness(void **state)
{
	(void)state;
	dl_type *st = dl_type_new(DL_TYPE_STRING), *vt = dl_type_variant();
	dl_field jf = {"j", st, true, NULL}, vf = {"v", vt, true, NULL};
	dl_type *jschema = dl_type_struct(&jf, 1), *vschema = dl_type_struct(&vf, 1);
	dl_expr *pj;
	assert_int_equal(dl_expr_parse(&pj, "parse_json(j)"), 0);
	assert_int_equal(dl_expr_bind(pj, jschema), 0);
	int checked = 0, skipped = 0;
	for (int f = 0; f < 300; f++) {
		vfile vf0;
		memset(&vf0, 0, sizeof vf0);
		int n = 1 + rnd(8), kind = rnd(NKINDS), nulls = 0;
		file_kind = kind;
		bool vnull = false, any = false, mixed = false;
		int64_t imin = INT64_MAX, imax = INT64_MIN;
		double dmin = 1e300, dmax = -1e300;
		char smin[64] = "", smax[64] = "";
		dl_builder *bl;
		assert_int_equal(dl_builder_new(&bl, st), 0);
		for (int r = 0; r < n; r++) {
			int w = rnd(10);
			char doc[128];
			if (w == 0) {
				dl_builder_append_null(bl);
				nulls++;
				continue;
			}
			if (w == 1) {
				dl_builder_append_str(bl, "{\"b\": 1}");
				continue;
			}
			if (w == 2 && rnd(4) == 0) {
				dl_builder_append_str(bl, "{\"a\": null}");
				vnull = true;
				continue;
			}
			int k = rnd(40) == 0 ? rnd(NKINDS) : kind; /* now and then a row of another type */
			mixed |= k != kind;
			if (k == K_LONG) {
				int64_t x = rnd(20) == 0 ? (rnd(2) ? 3000000000LL : -(1LL << 60)) : rnd(50) - 25;
				snprintf(doc, sizeof doc, "{\"a\": %lld}", (long long)x);
				if (k == kind) imin = x < imin ? x : imin, imax = x > imax ? x : imax;
			} else if (k == K_DEC) {
				int x = rnd(500) - 250; /* tenths */
				snprintf(doc, sizeof doc, "{\"a\": %s%d.%d}", x < 0 ? "-" : "", abs(x) / 10, abs(x) % 10);
				if (k == kind) imin = x < imin ? x : imin, imax = x > imax ? x : imax;
			} else if (k == K_DOUBLE) {
				double x = (rnd(500) - 250) / 4.0;
				snprintf(doc, sizeof doc, "{\"a\": %.2fe0}", x);
				if (k == kind) dmin = x < dmin ? x : dmin, dmax = x > dmax ? x : dmax;
			} else {
				char s[64];
				rand_string(s, true);
				snprintf(doc, sizeof doc, "{\"a\": \"%s\"}", s);
				if (k == kind) {
					if (!any || strcmp(s, smin) < 0) strcpy(smin, s);
					if (!any || strcmp(s, smax) > 0) strcpy(smax, s);
				}
			}
			if (k == kind) any = true;
			dl_builder_append_str(bl, doc);
		}
		dl_batch *jb = dl_batch_new(jschema, n);
		dl_array_free(jb->cols[0]);
		assert_int_equal(dl_builder_finish(&jb->cols[0], bl), 0);
		dl_builder_free(bl);
		dl_batch *vb = dl_batch_new(vschema, n);
		dl_array_free(vb->cols[0]);
		assert_int_equal(dl_expr_eval(&vb->cols[0], pj, jb, NULL), 0);
		dl_batch_free(jb);
		/* the statistics Delta would write (and sometimes none) */
		vf0.rows = n;
		vf0.col.has_null_count = rnd(4) != 0;
		vf0.col.null_count = nulls;
		dl_col_stats *p = &vf0.path;
		if (any && !vnull && !mixed && rnd(8)) {
			p->has_min = p->has_max = true;
			if (kind == K_LONG || kind == K_DEC) {
				p->min.type = p->max.type = kind == K_LONG ? DL_TYPE_LONG : DL_TYPE_DECIMAL;
				if (kind == K_LONG) {
					p->min.v.i64 = imin;
					p->max.v.i64 = imax;
				} else {
					p->min.precision = p->max.precision = 38;
					p->min.scale = p->max.scale = 1;
					p->min.v.dec = imin;
					p->max.v.dec = imax;
				}
			} else if (kind == K_DOUBLE) {
				p->min.type = p->max.type = DL_TYPE_DOUBLE;
				p->min.v.f64 = dmin;
				p->max.v.f64 = dmax;
			} else {
				p->min.type = p->max.type = DL_TYPE_STRING;
				size_t ml = strlen(smin), xl = strlen(smax);
				memcpy(vf0.smin, smin, ml > 32 ? 32 : ml);
				memcpy(vf0.smax, smax, xl > 32 ? 32 : xl);
				if (xl > 32) {
					memcpy(vf0.smax + 32, "\xF4\x8F\xBF\xBF", 4);
					xl = 36;
					p->max_is_prefix = true;
				}
				p->min.v.str.ptr = vf0.smin;
				p->min.v.str.len = ml > 32 ? 32 : ml;
				p->max.v.str.ptr = vf0.smax;
				p->max.v.str.len = xl;
			}
			if (rnd(6) == 0) p->has_min = false;
			if (rnd(6) == 0) p->has_max = false, p->max_is_prefix = false;
		}
		for (int q = 0; q < 40; q++) {
			dl_buf b = DL_BUF_INIT;
			pred(&b, 2);
			dl_expr *e;
			assert_int_equal(dl_expr_parse(&e, b.data), 0);
			if (dl_expr_bind(e, vschema) < 0) {
				dl_error_clear();
				dl_expr_free(e);
				dl_buf_free(&b);
				continue;
			}
			dl_selection sel = {0};
			int rc = dl_expr_filter(&sel, e, vb, NULL);
			if (rc < 0) dl_error_clear();
			dl_stats_provider sp = {rnd(5) ? n : -1, provide, &vf0, provide_path, NULL};
			bool m;
			assert_int_equal(dl_expr_may_match(&m, e, &sp), 0);
			if (rc == 0) {
				checked++;
				if (sel.count > 0 && !m)
					fail_msg("unsound skip: %s (file %d, %lld matching rows)", b.data, f, (long long)sel.count);
				if (!m) skipped++;
			}
			dl_selection_free(&sel);
			dl_expr_free(e);
			dl_buf_free(&b);
		}
		dl_batch_free(vb);
	}
	print_message("checked %d (file, predicate) pairs, skipped %d\n", checked, skipped);
	assert_true(checked > 5000);
	assert_true(skipped > checked / 20); /* about 8% with the default seed */
	dl_expr_free(pj);
	dl_type_unref(jschema);
	dl_type_unref(vschema);
	dl_type_unref(st);
	dl_type_unref(vt);
}

int main(void)
{
	const char *sd = getenv("DL_TEST_SEED"); /* other seeds, by hand */
	if (sd) seed = (unsigned)strtoul(sd, NULL, 10);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_soundness),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
