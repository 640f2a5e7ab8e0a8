/* File skipping: unit cases for tightness, and the soundness property:
 * random rows split into files, per-file statistics (string max sometimes
 * truncated), random predicates; a file holding a matching row must never
 * be skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include "expr_test_util.h"

enum { NCOL = 5 }; /* i INT, d DOUBLE, s STRING, dt DATE, ts TIMESTAMP */

typedef struct file_stats {
	int64_t rows;
	dl_col_stats col[NCOL];
	char smin[16], smax[16];
	bool known;
} file_stats;

static const char *const names[NCOL] = {"i", "d", "s", "dt", "ts"};

static int provide(void *payload, const char *const *path, int depth, dl_col_stats *out)
{
	file_stats *fs = payload;
	if (depth != 1) return 0;
	for (int k = 0; k < NCOL; k++)
		if (strcmp(path[0], names[k]) == 0) *out = fs->col[k];
	return 0;
}

static dl_type *schema;

static bool may(const char *sql, file_stats *fs, int64_t rows)
{
	dl_expr *e;
	assert_int_equal(dl_expr_parse(&e, sql), 0);
	if (dl_expr_bind(e, schema) < 0) fail_msg("bind %s: %s", sql, dl_error_last()->message);
	dl_stats_provider sp = {rows, provide, fs, NULL, NULL};
	bool m;
	assert_int_equal(dl_expr_may_match(&m, e, &sp), 0);
	dl_expr_free(e);
	return m;
}

static void set_int(dl_col_stats *c, dl_type_id t, int64_t min, int64_t max, int64_t nulls)
{
	memset(c, 0, sizeof *c);
	c->has_min = c->has_max = c->has_null_count = true;
	c->min.type = c->max.type = t;
	c->min.v.i64 = min;
	c->max.v.i64 = max;
	c->null_count = nulls;
}

static void test_unit(void **state)
{
	(void)state;
	file_stats fs = {0};
	set_int(&fs.col[0], DL_TYPE_INTEGER, 10, 20, 0);
	fs.col[1].has_min = fs.col[1].has_max = true;
	fs.col[1].min.type = fs.col[1].max.type = DL_TYPE_DOUBLE;
	fs.col[1].min.v.f64 = 1.0;
	fs.col[1].max.v.f64 = 2.0;
	memset(&fs.col[2], 0, sizeof fs.col[2]);
	fs.col[2].has_min = fs.col[2].has_max = true;
	fs.col[2].min.type = fs.col[2].max.type = DL_TYPE_STRING;
	fs.col[2].min.v.str.ptr = "apple";
	fs.col[2].min.v.str.len = 5;
	fs.col[2].max.v.str.ptr = "mango";
	fs.col[2].max.v.str.len = 5;
	fs.col[2].has_null_count = true;
	fs.col[2].null_count = 3;
	set_int(&fs.col[3], DL_TYPE_DATE, 18262, 18300, 100); /* all null with 100 rows */
	static const struct {
		const char *sql;
		bool want;
	} c[] = {
	    {"i = 15", true},        {"i = 9", false},        {"i = 21", false},       {"i < 10", false},
	    {"i <= 10", true},       {"i > 20", false},       {"i >= 20", true},       {"i <> 15", true},
	    {"i > 5L", true},        {"i > 25L", false},      {"i < 9.5", false},      {"10 > i", false},
	    {"21 <= i", false},      {"i IN (1, 2, 30)", false}, {"i IN (1, 12)", true}, {"i NOT IN (1, 12)", true},
	    {"i NOT IN (1, NULL)", false}, {"NOT (i IN (1, 12))", true},
	    {"i BETWEEN 21 AND 30", false}, {"i BETWEEN 5 AND 10", true}, {"i NOT BETWEEN 5 AND 30", false},
	    {"i IS NULL", false},    {"i IS NOT NULL", true}, {"NOT (i > 5)", false}, {"NOT (i < 5)", true},
	    {"i = 15 AND i = 30", false}, {"i = 30 OR i = 15", true}, {"i = 30 OR i = 40", false},
	    {"NOT (i = 30 OR i = 15)", true}, {"NOT (i < 30 AND i > 5)", false}, {"i <=> 15", true},
	    {"i <=> 50", false},     {"i <=> NULL", false},   {"i = NULL", false},     {"i + 1 > 100", true},
	    {"d > 5", true /* NaN may hide above max */},      {"d < 0.5", false},     {"d = 3", false},
	    {"d <= 1.0", true},
	    {"s = 'banana'", true},  {"s = 'zebra'", false},  {"s < 'apple'", false},  {"s LIKE 'b%'", true},
	    {"s LIKE 'z%'", false},  {"s LIKE 'a%'", true},   {"s LIKE 'aa%'", false}, {"s LIKE 'mango%'", true},
	    {"s LIKE 'mangoes%'", false}, {"s LIKE 'x'", false}, {"s NOT LIKE 'z%'", true}, {"s IS NULL", true},
	    {"dt = DATE '2020-01-05'", false}, {"dt IS NULL", true}, {"dt IS NOT NULL", false},
	    {"dt > '2000-01-01'", false}, {"false", false}, {"NULL", false}, {"true", true},
	    {"i = 15 AND dt IS NULL", true},
	};
	for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
		bool got = may(c[k].sql, &fs, 100);
		if (got != c[k].want) print_message("%s: want %d got %d\n", c[k].sql, c[k].want, got);
		assert_int_equal(got, c[k].want);
	}
	/* a truncated string max bounds only a prefix */
	fs.col[2].max_is_prefix = true;
	fs.col[2].max.v.str.ptr = "man";
	fs.col[2].max.v.str.len = 3;
	assert_true(may("s = 'mango'", &fs, 100));
	assert_true(may("s > 'manz'", &fs, 100));
	assert_false(may("s > 'mao'", &fs, 100));
	assert_true(may("s >= 'man'", &fs, 100));
	assert_true(may("s LIKE 'mans%'", &fs, 100));
	assert_false(may("s = 'mao'", &fs, 100));
	/* NOT IN on a single-valued file */
	set_int(&fs.col[0], DL_TYPE_INTEGER, 7, 7, 0);
	assert_false(may("i NOT IN (3, 7)", &fs, 100));
	assert_true(may("i NOT IN (3, 8)", &fs, 100));
	assert_false(may("NOT (i IN (3, 7))", &fs, 100));
	/* DATE statistics compared with a TIMESTAMP in the bind time zone */
	{
		dl_expr *e;
		dl_eval_ctx ctx = {"-05:00", 0};
		set_int(&fs.col[3], DL_TYPE_DATE, 18263, 18263, 0); /* 2020-01-02 */
		assert_int_equal(dl_expr_parse(&e, "dt > TIMESTAMP '2020-01-02 03:00:00Z'"), 0);
		assert_int_equal(dl_expr_bind_ctx(e, schema, &ctx), 0);
		dl_stats_provider sp = {100, provide, &fs, NULL, NULL};
		bool m;
		assert_int_equal(dl_expr_may_match(&m, e, &sp), 0);
		assert_true(m); /* midnight at -05:00 is 05:00Z, after 03:00Z */
		dl_expr_free(e);
	}
	/* CAST(ts AS DATE) bounded by timestamp statistics (UTC) */
	{
		dl_type *tt = dl_type_new(DL_TYPE_TIMESTAMP);
		dl_field ff[1] = {{"i", tt, true, NULL}};
		dl_type *ts_schema = dl_type_struct(ff, 1);
		file_stats ts = {0};
		set_int(&ts.col[0], DL_TYPE_TIMESTAMP, 1577872800000000LL, 1577959200000000LL, 0); /* 01-01 10:00 .. 01-02 10:00 */
		const char *q[] = {"CAST(i AS DATE) = DATE '2020-01-02'", "CAST(i AS DATE) = DATE '2020-01-03'",
		                   "CAST(i AS DATE) < '2020-01-01'"};
		bool want[] = {true, false, false};
		for (int k = 0; k < 3; k++) {
			dl_expr *e;
			assert_int_equal(dl_expr_parse(&e, q[k]), 0);
			assert_int_equal(dl_expr_bind(e, ts_schema), 0);
			dl_stats_provider sp = {100, provide, &ts, NULL, NULL};
			bool m;
			assert_int_equal(dl_expr_may_match(&m, e, &sp), 0);
			assert_int_equal(m, want[k]);
			dl_expr_free(e);
		}
		dl_type_unref(ts_schema);
		dl_type_unref(tt);
	}
	/* nothing known: keep */
	file_stats none = {0};
	assert_true(may("i = 15 AND s LIKE 'q%'", &none, -1));
}

/* ---- soundness property --------------------------------------------------- */

static unsigned seed = 7;
static unsigned rnd(unsigned n)
{
	seed = seed * 1103515245u + 12345u;
	return (seed >> 8) % n;
}

static const char *const words[] = {"", "a", "ab", "abc", "b", "ba", "bz", "c", "ca", "zz", "héllo", "m"};
#define NWORDS (sizeof words / sizeof words[0])

static void literal(dl_buf *b, int col)
{
	switch (col) {
	case 0:
		if (rnd(4) == 0) dl_buf_printf(b, "%dL", (int)rnd(30) - 5);
		else if (rnd(4) == 0) dl_buf_printf(b, "%d.5", (int)rnd(30) - 5);
		else dl_buf_printf(b, "%d", (int)rnd(30) - 5);
		break;
	case 1: dl_buf_printf(b, rnd(2) ? "%d.25D" : "%d", (int)rnd(20) - 5); break;
	case 2: dl_buf_printf(b, "'%s'", words[rnd(NWORDS)]); break;
	default:
		if (rnd(3) == 0) dl_buf_printf(b, "TIMESTAMP '2020-01-%02d %02d:00:00'", 1 + (int)rnd(28), (int)rnd(24));
		else dl_buf_printf(b, "DATE '2020-01-%02d'", 1 + (int)rnd(28));
		break;
	}
}

/* A value expression over column col: the column, or for ts sometimes
 * CAST(ts AS DATE). */
static void colref(dl_buf *b, int col)
{
	if (col == 4 && rnd(3) == 0) dl_buf_puts(b, "CAST(ts AS DATE)");
	else dl_buf_puts(b, names[col]);
}

static void pred(dl_buf *b, int depth)
{
	static const char *const ops[] = {"=", "<>", "<", "<=", ">", ">=", "<=>"};
	int col = (int)rnd(NCOL);
	if (depth > 0 && rnd(3) == 0) {
		int k = (int)rnd(3);
		dl_buf_puts(b, k == 2 ? "NOT (" : "(");
		pred(b, depth - 1);
		if (k < 2) {
			dl_buf_puts(b, k ? ") AND (" : ") OR (");
			pred(b, depth - 1);
		}
		dl_buf_putc(b, ')');
		return;
	}
	switch (rnd(7)) {
	case 0:
		colref(b, col);
		dl_buf_printf(b, " IS %sNULL", rnd(2) ? "NOT " : "");
		break;
	case 1:
		colref(b, col);
		dl_buf_printf(b, " %sIN (", rnd(3) ? "" : "NOT ");
		literal(b, col);
		dl_buf_puts(b, ", ");
		literal(b, col);
		if (rnd(5) == 0) dl_buf_puts(b, ", NULL");
		for (int k = (int)rnd(6); k > 0; k--) { /* long lists take the sorted path */
			dl_buf_puts(b, ", ");
			literal(b, col);
		}
		dl_buf_putc(b, ')');
		break;
	case 2:
		colref(b, col);
		dl_buf_puts(b, " BETWEEN ");
		literal(b, col);
		dl_buf_puts(b, " AND ");
		literal(b, col);
		break;
	case 3: dl_buf_printf(b, "s LIKE '%s%%'", words[rnd(NWORDS)]); break;
	case 4:
		literal(b, col);
		dl_buf_printf(b, " %s ", ops[rnd(7)]);
		colref(b, col);
		break;
	default:
		colref(b, col);
		dl_buf_printf(b, " %s ", ops[rnd(7)]);
		if (rnd(10) == 0) dl_buf_puts(b, "NULL");
		else literal(b, col);
	}
}

static void test_soundness(void **state)
{
	(void)state;
	int files = 300, checked = 0, skipped = 0;
	for (int f = 0; f < files; f++) {
		int64_t n = 1 + rnd(8);
		dl_builder *bl[NCOL];
		for (int k = 0; k < NCOL; k++) dl_builder_new(&bl[k], schema->children[k].type);
		file_stats fs = {0};
		fs.rows = n;
		int64_t imin = INT64_MAX, imax = INT64_MIN, nulls[NCOL] = {0};
		double dmin = 1e300, dmax = -1e300;
		const char *smin = NULL, *smax = NULL;
		int64_t tmin = INT64_MAX, tmax = INT64_MIN, smin_ts = INT64_MAX, smax_ts = INT64_MIN;
		for (int64_t r = 0; r < n; r++) {
			bool nul[NCOL];
			for (int k = 0; k < NCOL; k++) nul[k] = rnd(5) == 0;
			if (nul[0]) dl_builder_append_null(bl[0]), nulls[0]++;
			else {
				int64_t v = (int64_t)rnd(25);
				dl_builder_append_int(bl[0], v);
				imin = v < imin ? v : imin;
				imax = v > imax ? v : imax;
			}
			if (nul[1]) dl_builder_append_null(bl[1]), nulls[1]++;
			else {
				double v = rnd(10) == 0 ? 0.0 / 0.0 : (double)rnd(15) - 2.5;
				dl_builder_append_double(bl[1], v);
				if (v == v) {
					dmin = v < dmin ? v : dmin;
					dmax = v > dmax ? v : dmax;
				}
			}
			if (nul[2]) dl_builder_append_null(bl[2]), nulls[2]++;
			else {
				const char *w = words[rnd(NWORDS)];
				dl_builder_append_str(bl[2], w);
				if (!smin || strcmp(w, smin) < 0) smin = w;
				if (!smax || strcmp(w, smax) > 0) smax = w;
			}
			if (nul[3]) dl_builder_append_null(bl[3]), nulls[3]++;
			else {
				int64_t v = 18262 + (int64_t)rnd(28);
				dl_builder_append_int(bl[3], v);
				tmin = v < tmin ? v : tmin;
				tmax = v > tmax ? v : tmax;
			}
			if (nul[4]) dl_builder_append_null(bl[4]), nulls[4]++;
			else {
				int64_t v = (18262 + (int64_t)rnd(28)) * 86400000000LL + (int64_t)rnd(24) * 3600000000LL;
				dl_builder_append_int(bl[4], v);
				smin_ts = v < smin_ts ? v : smin_ts;
				smax_ts = v > smax_ts ? v : smax_ts;
			}
		}
		dl_batch *bt = dl_batch_new(schema, n);
		for (int k = 0; k < NCOL; k++) {
			dl_array_free(bt->cols[k]);
			dl_builder_finish(&bt->cols[k], bl[k]);
			dl_builder_free(bl[k]);
		}
		/* statistics, sometimes partly missing (like real writers) */
		for (int k = 0; k < NCOL; k++) {
			dl_col_stats *c = &fs.col[k];
			c->has_null_count = rnd(6) != 0;
			c->null_count = nulls[k];
		}
		if (imin <= imax && rnd(6)) set_int(&fs.col[0], DL_TYPE_INTEGER, imin, imax, nulls[0]), fs.col[0].has_null_count = rnd(2);
		if (dmin <= dmax && rnd(6)) {
			fs.col[1].has_min = fs.col[1].has_max = true;
			fs.col[1].min.type = fs.col[1].max.type = DL_TYPE_DOUBLE;
			fs.col[1].min.v.f64 = dmin;
			fs.col[1].max.v.f64 = dmax;
		}
		if (smin && rnd(6)) {
			dl_col_stats *c = &fs.col[2];
			c->has_min = c->has_max = true;
			c->min.type = c->max.type = DL_TYPE_STRING;
			size_t ml = strlen(smin), xl = strlen(smax);
			/* Delta truncates: min to a prefix (still a lower bound), max to
			 * a prefix flagged as such */
			if (ml > 1 && rnd(3) == 0) ml = 1;
			if (xl > 1 && rnd(2) == 0) {
				xl = 1;
				c->max_is_prefix = true;
			}
			memcpy(fs.smin, smin, ml);
			memcpy(fs.smax, smax, xl);
			c->min.v.str.ptr = fs.smin;
			c->min.v.str.len = ml;
			c->max.v.str.ptr = fs.smax;
			c->max.v.str.len = xl;
		}
		if (tmin <= tmax && rnd(6)) set_int(&fs.col[3], DL_TYPE_DATE, tmin, tmax, nulls[3]);
		if (nulls[3] == n && rnd(2)) fs.col[3].all_null = true;
		if (smin_ts <= smax_ts && rnd(6)) set_int(&fs.col[4], DL_TYPE_TIMESTAMP, smin_ts, smax_ts, nulls[4]);
		for (int p = 0; p < 40; p++) {
			dl_buf b = DL_BUF_INIT;
			pred(&b, 3);
			dl_expr *e;
			static const char *const zones[] = {NULL, "-05:00", "+09:00", "America/Los_Angeles"};
			dl_eval_ctx ctx = {zones[rnd(4)], 0};
			assert_int_equal(dl_expr_parse(&e, b.data), 0);
			if (dl_expr_bind_ctx(e, schema, &ctx) < 0) {
				dl_expr_free(e);
				dl_buf_free(&b);
				continue;
			}
			dl_selection sel = {0};
			int rc = dl_expr_filter(&sel, e, bt, &ctx);
			dl_stats_provider sp = {rnd(5) ? n : -1, provide, &fs, NULL, NULL};
			bool m;
			assert_int_equal(dl_expr_may_match(&m, e, &sp), 0);
			if (rc == 0) {
				checked++;
				if (sel.count > 0 && !m) fail_msg("unsound skip: %s (file %d matches %lld rows)", b.data, f, (long long)sel.count);
				if (!m) skipped++;
			}
			dl_selection_free(&sel);
			dl_expr_free(e);
			dl_buf_free(&b);
		}
		dl_batch_free(bt);
	}
	print_message("checked %d (file, predicate) pairs, skipped %d\n", checked, skipped);
	assert_true(checked > 5000);
	assert_true(skipped > checked / 10); /* and it is not vacuous */
}

/* ---- generated partition columns ---------------------------------------- */

typedef struct part_values {
	const char *names[6];
	dl_scalar vals[6];
	int n;
} part_values;

static int provide_parts(void *payload, const char *const *path, int depth, dl_col_stats *out)
{
	part_values *pv = payload;
	for (int i = 0; i < pv->n && depth == 1; i++)
		if (strcmp(path[0], pv->names[i]) == 0) {
			out->has_min = out->has_max = out->has_null_count = true;
			out->min = out->max = pv->vals[i];
			out->null_count = 0;
		}
	return 0;
}

static void test_generated(void **state)
{
	(void)state;
	dl_type *ts = dl_type_new(DL_TYPE_TIMESTAMP), *dt = dl_type_new(DL_TYPE_DATE), *i = dl_type_new(DL_TYPE_INTEGER),
	        *s = dl_type_new(DL_TYPE_STRING);
	dl_field f[] = {
	    {"eventTime", ts, true, "{}"},
	    {"eventDate", dt, true, "{\"delta.generationExpression\":\"CAST(eventTime AS DATE)\"}"},
	    {"year", i, true, "{\"delta.generationExpression\":\"YEAR(eventTime)\"}"},
	    {"month", i, true, "{\"delta.generationExpression\":\"MONTH(eventTime)\"}"},
	    {"day", i, true, "{\"delta.generationExpression\":\"DAY(eventTime)\"}"},
	    {"code", s, true, "{}"},
	    {"prefix", s, true, "{\"delta.generationExpression\":\"SUBSTRING(code, 1, 2)\"}"},
	    {"ym", s, true, "{\"delta.generationExpression\":\"DATE_FORMAT(eventTime, 'yyyy-MM')\"}"},
	    {"ty", dt, true, "{\"delta.generationExpression\":\"TRUNC(eventTime, 'YEAR')\"}"},
	};
	dl_type *sch = dl_type_struct(f, sizeof f / sizeof f[0]);
	const char *parts[] = {"eventDate", "year", "month", "day", "prefix", "ym", "ty"};
	dl_expr *filter, *derived;
	assert_int_equal(dl_expr_parse(&filter, "eventTime >= '2020-10-01 00:00:00' AND eventTime <= '2020-10-01 12:00:00' "
	                                        "AND code = 'abcd'"),
	                 0);
	assert_int_equal(dl_expr_bind(filter, sch), 0);
	assert_int_equal(dl_expr_derive_partition_filter(&derived, filter, sch, parts, 7), 0);
	assert_non_null(derived);
	dl_buf b = DL_BUF_INIT;
	dl_expr_sql(derived, &b);
	print_message("derived: %s\n", b.data);
	assert_non_null(strstr(b.data, "eventDate >= DATE '2020-10-01'"));
	assert_non_null(strstr(b.data, "eventDate <= DATE '2020-10-01'"));
	assert_non_null(strstr(b.data, "prefix = 'ab'"));
	assert_non_null(strstr(b.data, "ym >= '2020-10'"));
	assert_non_null(strstr(b.data, "ty <= DATE '2020-01-01'"));
	dl_buf_free(&b);
	/* the partition year=2020/month=10/day=01 is kept, day=02 skipped */
	part_values pv = {{"eventDate", "year", "month", "day", "prefix", "ym"}, {{0}}, 6};
	for (int k = 0; k < 6; k++) pv.vals[k].type = k == 0 ? DL_TYPE_DATE : k >= 4 ? DL_TYPE_STRING : DL_TYPE_INTEGER;
	pv.vals[0].v.i64 = 18536; /* 2020-10-01 */
	pv.vals[1].v.i64 = 2020;
	pv.vals[2].v.i64 = 10;
	pv.vals[3].v.i64 = 1;
	pv.vals[4].v.str.ptr = "ab";
	pv.vals[4].v.str.len = 2;
	pv.vals[5].v.str.ptr = "2020-10";
	pv.vals[5].v.str.len = 7;
	dl_stats_provider sp = {-1, provide_parts, &pv, NULL, NULL};
	bool m;
	assert_int_equal(dl_expr_may_match(&m, derived, &sp), 0);
	assert_true(m);
	pv.vals[0].v.i64 = 18537;
	assert_int_equal(dl_expr_may_match(&m, derived, &sp), 0);
	assert_false(m);
	pv.vals[0].v.i64 = 18536;
	pv.vals[3].v.i64 = 2; /* day 2 */
	assert_int_equal(dl_expr_may_match(&m, derived, &sp), 0);
	assert_false(m);
	pv.vals[3].v.i64 = 1;
	pv.vals[4].v.str.ptr = "ac";
	assert_int_equal(dl_expr_may_match(&m, derived, &sp), 0);
	assert_false(m);
	dl_expr_free(derived);
	dl_expr_free(filter);

	/* year/month tuples: eventTime < '2021-03-15' keeps (2021, 2), skips (2021, 4) */
	const char *ym[] = {"year", "month"};
	assert_int_equal(dl_expr_parse(&filter, "eventTime < '2021-03-15'"), 0);
	assert_int_equal(dl_expr_bind(filter, sch), 0);
	assert_int_equal(dl_expr_derive_partition_filter(&derived, filter, sch, ym, 2), 0);
	assert_non_null(derived);
	part_values p2 = {{"year", "month"}, {{0}}, 2};
	p2.vals[0].type = p2.vals[1].type = DL_TYPE_INTEGER;
	p2.vals[0].v.i64 = 2021;
	p2.vals[1].v.i64 = 2;
	dl_stats_provider sp2 = {-1, provide_parts, &p2, NULL, NULL};
	assert_int_equal(dl_expr_may_match(&m, derived, &sp2), 0);
	assert_true(m);
	p2.vals[1].v.i64 = 4;
	assert_int_equal(dl_expr_may_match(&m, derived, &sp2), 0);
	assert_false(m);
	p2.vals[0].v.i64 = 2020;
	assert_int_equal(dl_expr_may_match(&m, derived, &sp2), 0);
	assert_true(m);
	dl_expr_free(derived);
	dl_expr_free(filter);

	/* nothing derivable: a filter on another column, or an OR */
	assert_int_equal(dl_expr_parse(&filter, "code = 'x' OR eventTime > '2020-01-01'"), 0);
	assert_int_equal(dl_expr_bind(filter, sch), 0);
	assert_int_equal(dl_expr_derive_partition_filter(&derived, filter, sch, parts, 6), 0);
	assert_null(derived);
	dl_expr_free(filter);
	dl_type_unref(sch);
	dl_type_unref(ts);
	dl_type_unref(dt);
	dl_type_unref(i);
	dl_type_unref(s);
}

static int setup(void **state)
{
	(void)state;
	dl_type *t[NCOL] = {dl_type_new(DL_TYPE_INTEGER), dl_type_new(DL_TYPE_DOUBLE), dl_type_new(DL_TYPE_STRING),
	                    dl_type_new(DL_TYPE_DATE), dl_type_new(DL_TYPE_TIMESTAMP)};
	dl_field f[NCOL];
	for (int k = 0; k < NCOL; k++) f[k] = (dl_field){(char *)names[k], t[k], true, NULL};
	schema = dl_type_struct(f, NCOL);
	for (int k = 0; k < NCOL; k++) dl_type_unref(t[k]);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	dl_type_unref(schema);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_unit),
	    cmocka_unit_test(test_soundness),
	    cmocka_unit_test(test_generated),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
