/* Predicates compared row by row with DuckDB (tools/oracle, through node):
 * random data with NULLs, random predicates in the part of the dialect both
 * engines share (comparisons, boolean logic, IN, BETWEEN, LIKE, IS NULL,
 * arithmetic, CASE, coalesce, string and date functions). Skipped when node
 * or the oracle is not available. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <unistd.h>
#include "expr/datetime.h"
#include "expr_test_util.h"

#define ROWS 600
#define PREDS 700

static unsigned seed = 99;
static unsigned rnd(unsigned n)
{
	seed = seed * 1103515245u + 12345u;
	return (seed >> 8) % n;
}

static const char *const words[] = {"", "a", "ab", "abc", "Abc", "b", "ba", "bz", "c", "ca", "zz", "x_y", "50%", "héllo", "mañana"};
#define NW (sizeof words / sizeof words[0])

typedef struct row {
	bool n[8];
	int64_t ts; /* microseconds */
	int i;
	long long l;
	double d;
	const char *s;
	bool b;
	int dt; /* days */
	long long dec; /* unscaled, scale 2 */
} row;

static row data[ROWS];

static void make_data(void)
{
	for (int r = 0; r < ROWS; r++) {
		row *x = &data[r];
		for (int k = 0; k < 8; k++) x->n[k] = rnd(8) == 0;
		x->ts = (int64_t)(18000 + (int)rnd(800)) * 86400000000LL + (int64_t)rnd(86400) * 1000000 + (int64_t)rnd(1000) * 1000;
		x->i = (int)rnd(41) - 20;
		x->l = (long long)rnd(2001) - 1000;
		x->d = ((int)rnd(4001) - 2000) / 8.0;
		x->s = words[rnd(NW)];
		x->b = rnd(2);
		x->dt = 18000 + (int)rnd(800);
		x->dec = (long long)rnd(20001) - 10000;
	}
}

static void literal(dl_buf *b, int col)
{
	switch (col) {
	case 0: dl_buf_printf(b, "%d", (int)rnd(41) - 20); break;
	case 1: dl_buf_printf(b, "%d", (int)rnd(2001) - 1000); break;
	case 2: dl_buf_printf(b, "%.3f", ((int)rnd(4001) - 2000) / 8.0); break;
	case 3: dl_buf_printf(b, "'%s'", words[rnd(NW)]); break;
	case 4: dl_buf_puts(b, rnd(2) ? "true" : "false"); break;
	case 5: {
		char t[32];
		ex_date_format(t, 18000 + (int)rnd(800));
		dl_buf_printf(b, rnd(2) ? "DATE '%s'" : "'%s'", t);
		break;
	}
	default: dl_buf_printf(b, "%d.%02d", (int)rnd(200) - 100, (int)rnd(100)); break;
	}
}

static const char *const cols[] = {"i", "l", "d", "s", "b", "dt", "dec"};

static void value(dl_buf *b, int col, int depth)
{
	if (depth <= 0 || rnd(3)) {
		dl_buf_puts(b, cols[col]);
		return;
	}
	switch (col) {
	case 0:
	case 1:
		switch (rnd(4)) {
		case 0: dl_buf_printf(b, "(%s + %d)", cols[col], (int)rnd(10)); break;
		case 1: dl_buf_printf(b, "(%s * %d)", cols[col], (int)rnd(5) - 2); break;
		case 2: dl_buf_printf(b, "abs(%s)", cols[col]); break;
		default: dl_buf_printf(b, "coalesce(%s, %d)", cols[col], (int)rnd(5)); break;
		}
		break;
	case 2: dl_buf_printf(b, rnd(2) ? "(d / 4)" : "(d - i)"); break;
	case 3:
		switch (rnd(4)) {
		case 0: dl_buf_puts(b, "upper(s)"); break;
		case 1: dl_buf_puts(b, "substring(s, 2, 2)"); break;
		case 2: dl_buf_puts(b, "(s || 'x')"); break;
		default: dl_buf_puts(b, "lower(s)"); break;
		}
		break;
	default: dl_buf_puts(b, cols[col]); break;
	}
}

static void pred(dl_buf *b, int depth)
{
	static const char *const ops[] = {"=", "<>", "<", "<=", ">", ">="};
	int col = (int)rnd(7);
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
	switch (rnd(10)) {
	case 9: {
		char t[32];
		ex_date_format(t, 18000 + (int)rnd(800));
		switch (rnd(12)) {
		case 0: dl_buf_printf(b, "ts %s TIMESTAMP '%s %02d:%02d:00'", ops[rnd(6)], t, (int)rnd(24), (int)rnd(60)); break;
		case 1: dl_buf_printf(b, "hour(ts) %s %d", ops[rnd(6)], (int)rnd(24)); break;
		case 2: dl_buf_printf(b, "year(ts) = %d AND minute(ts) < %d", 2019 + (int)rnd(3), (int)rnd(60)); break;
		case 3: dl_buf_printf(b, "date_trunc('month', ts) = TIMESTAMP '%.8s01 00:00:00'", t); break;
		case 4: dl_buf_puts(b, rnd(2) ? "CAST(ts AS DATE) = dt" : "CAST(ts AS DATE) > dt"); break;
		case 5: dl_buf_printf(b, "greatest(i, l) > %d", (int)rnd(40) - 20); break;
		case 6: dl_buf_puts(b, rnd(2) ? "nullif(i, 0) IS NULL" : "least(i, 3, l) < 0"); break;
		case 7: dl_buf_printf(b, "contains(s, '%s') AND instr(s, 'b') %s 1", words[rnd(NW)], ops[rnd(6)]); break;
		case 8: dl_buf_printf(b, "replace(s, 'a', '') = '%s' OR s ILIKE '%s%%'", words[rnd(NW)], words[rnd(NW)]); break;
		case 9: dl_buf_printf(b, "l %% 7 = %d", (int)rnd(13) - 6); break;
		case 10: dl_buf_printf(b, "quarter(dt) = %d", 1 + (int)rnd(4)); break;
		default: dl_buf_printf(b, "concat_ws('-', s, s) = '%s-%s'", words[rnd(3)], words[rnd(3)]); break;
		}
		break;
	}
	case 0: dl_buf_printf(b, "%s IS %sNULL", cols[col], rnd(2) ? "NOT " : ""); break;
	case 1:
		if (col == 4) col = 0;
		value(b, col, 1);
		dl_buf_puts(b, rnd(3) ? " IN (" : " NOT IN (");
		literal(b, col);
		dl_buf_puts(b, ", ");
		literal(b, col);
		if (rnd(4) == 0) dl_buf_puts(b, ", NULL");
		dl_buf_putc(b, ')');
		break;
	case 2:
		if (col == 4) col = 1;
		value(b, col, 1);
		dl_buf_puts(b, rnd(3) ? " BETWEEN " : " NOT BETWEEN ");
		literal(b, col);
		dl_buf_puts(b, " AND ");
		literal(b, col);
		break;
	case 3: {
		static const char *const pats[] = {"a%", "%b", "%a%", "_b%", "a_c", "", "%", "x!_y", "50!%", "h_llo", "ma%"};
		/* Spark's default escape is a backslash, DuckDB has none: name one */
		dl_buf_printf(b, "%s %sLIKE '%s' ESCAPE '!'", rnd(2) ? "s" : "upper(s)", rnd(3) ? "" : "NOT ", pats[rnd(11)]);
		break;
	}
	case 4: dl_buf_printf(b, "CASE WHEN i > %d THEN l ELSE -l END > %d", (int)rnd(20) - 10, (int)rnd(400) - 200); break;
	case 5: dl_buf_printf(b, "%s(dt) = %d", rnd(2) ? "month" : "day", 1 + (int)rnd(12)); break;
	case 6: dl_buf_printf(b, "length(s) %s %d", ops[rnd(6)], (int)rnd(5)); break;
	case 7: dl_buf_puts(b, rnd(2) ? "b" : "NOT b"); break;
	default:
		value(b, col, 1);
		dl_buf_printf(b, " %s ", ops[rnd(6)]);
		if (rnd(2)) literal(b, col);
		else value(b, col, 1);
	}
}

static void write_setup(FILE *f)
{
	fprintf(f, "CREATE TABLE t (id INTEGER, i INTEGER, l BIGINT, d DOUBLE, s VARCHAR, b BOOLEAN, dt DATE, dec DECIMAL(10,2), "
	           "ts TIMESTAMP);\n");
	fprintf(f, "INSERT INTO t VALUES\n");
	for (int r = 0; r < ROWS; r++) {
		row *x = &data[r];
		char dt[32];
		ex_date_format(dt, x->dt);
		fprintf(f, "%s(%d, ", r ? ",\n" : "", r);
		if (x->n[0]) fprintf(f, "NULL, "); else fprintf(f, "%d, ", x->i);
		if (x->n[1]) fprintf(f, "NULL, "); else fprintf(f, "%lld, ", x->l);
		if (x->n[2]) fprintf(f, "NULL, "); else fprintf(f, "%.3f, ", x->d);
		if (x->n[3]) fprintf(f, "NULL, "); else fprintf(f, "'%s', ", x->s);
		if (x->n[4]) fprintf(f, "NULL, "); else fprintf(f, "%s, ", x->b ? "true" : "false");
		if (x->n[5]) fprintf(f, "NULL, "); else fprintf(f, "DATE '%s', ", dt);
		if (x->n[6]) fprintf(f, "NULL, ");
		else fprintf(f, "%s%lld.%02lld, ", x->dec < 0 ? "-" : "", llabs(x->dec) / 100, llabs(x->dec) % 100);
		if (x->n[7]) {
			fprintf(f, "NULL)");
		} else {
			char tsb[64];
			ex_ts_format(tsb, x->ts, NULL);
			fprintf(f, "TIMESTAMP '%s')", tsb);
		}
	}
	fprintf(f, ";\n");
}

static dl_batch *make_batch(void)
{
	dl_type *t[9] = {dl_type_new(DL_TYPE_INTEGER), dl_type_new(DL_TYPE_INTEGER), dl_type_new(DL_TYPE_LONG),
	                 dl_type_new(DL_TYPE_DOUBLE),  dl_type_new(DL_TYPE_STRING),  dl_type_new(DL_TYPE_BOOLEAN),
	                 dl_type_new(DL_TYPE_DATE),    dl_type_decimal(10, 2),       dl_type_new(DL_TYPE_TIMESTAMP)};
	const char *names[9] = {"id", "i", "l", "d", "s", "b", "dt", "dec", "ts"};
	dl_field f[9];
	for (int k = 0; k < 9; k++) f[k] = (dl_field){(char *)names[k], t[k], true, NULL};
	dl_type *sch = dl_type_struct(f, 9);
	dl_batch *bt = dl_batch_new(sch, ROWS);
	dl_builder *bl[9];
	for (int k = 0; k < 9; k++) dl_builder_new(&bl[k], t[k]);
	for (int r = 0; r < ROWS; r++) {
		row *x = &data[r];
		dl_builder_append_int(bl[0], r);
		x->n[0] ? dl_builder_append_null(bl[1]) : dl_builder_append_int(bl[1], x->i);
		x->n[1] ? dl_builder_append_null(bl[2]) : dl_builder_append_int(bl[2], x->l);
		x->n[2] ? dl_builder_append_null(bl[3]) : dl_builder_append_double(bl[3], x->d);
		x->n[3] ? dl_builder_append_null(bl[4]) : dl_builder_append_str(bl[4], x->s);
		x->n[4] ? dl_builder_append_null(bl[5]) : dl_builder_append_bool(bl[5], x->b);
		x->n[5] ? dl_builder_append_null(bl[6]) : dl_builder_append_int(bl[6], x->dt);
		x->n[6] ? dl_builder_append_null(bl[7]) : dl_builder_append_decimal(bl[7], x->dec);
		x->n[7] ? dl_builder_append_null(bl[8]) : dl_builder_append_int(bl[8], x->ts);
	}
	for (int k = 0; k < 9; k++) {
		dl_array_free(bt->cols[k]);
		dl_builder_finish(&bt->cols[k], bl[k]);
		dl_builder_free(bl[k]);
		dl_type_unref(t[k]);
	}
	dl_type_unref(sch);
	return bt;
}

static void test_against_duckdb(void **state)
{
	(void)state;
	const char *oracle = getenv("DL_ORACLE_DIR");
	char dir[1024];
	if (!oracle) {
		snprintf(dir, sizeof dir, "%s/tools/oracle", DL_SOURCE_DIR);
		oracle = dir;
	}
	char probe[1200];
	snprintf(probe, sizeof probe, "%s/node_modules/@duckdb/node-api", oracle);
	if (access(probe, F_OK) != 0 || system("node --version > /dev/null 2>&1") != 0) {
		print_message("node or %s missing: skipped\n", probe);
		skip();
	}
	make_data();
	char setup[] = "/tmp/dl_expr_duck_XXXXXX";
	int fd = mkstemp(setup);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	write_setup(f);
	fclose(f);
	char predf[] = "/tmp/dl_expr_pred_XXXXXX";
	fd = mkstemp(predf);
	f = fdopen(fd, "w");
	static char *preds[PREDS];
	for (int p = 0; p < PREDS; p++) {
		dl_buf b = DL_BUF_INIT;
		pred(&b, 3);
		preds[p] = dl_buf_detach(&b, NULL);
		fprintf(f, "%s\n", preds[p]);
	}
	fclose(f);
	char cmd[4096];
	snprintf(cmd, sizeof cmd, "DL_ORACLE_DIR='%s' node '%s/tests/unit/expr/duckdb_filter.mjs' %s %s", oracle,
	         DL_SOURCE_DIR, setup, predf);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	dl_batch *bt = make_batch();
	static char line[1 << 16];
	int compared = 0, mismatches = 0, duck_err = 0;
	for (int k = 0; k < PREDS; k++) {
		if (!fgets(line, sizeof line, p)) fail_msg("DuckDB output ended at predicate %d", k);
		line[strcspn(line, "\n")] = 0;
		dl_expr *e;
		assert_int_equal(dl_expr_parse(&e, preds[k]), 0);
		dl_selection sel = {0};
		int rc = dl_expr_bind(e, bt->schema);
		if (rc == 0) rc = dl_expr_filter(&sel, e, bt, NULL);
		if (strcmp(line, "ERR") == 0) {
			duck_err++;
		} else if (rc < 0) {
			print_message("we failed where DuckDB did not: %s: %s\n", preds[k], dl_error_last()->message);
			mismatches++;
		} else {
			dl_buf ours = DL_BUF_INIT;
			for (int64_t i = 0; i < sel.count; i++) dl_buf_printf(&ours, "%s%u", i ? "," : "", sel.idx[i]);
			if (strcmp(ours.data ? ours.data : "", line) != 0) {
				print_message("mismatch: %s\n  ours:   %.300s\n  duckdb: %.300s\n", preds[k], ours.data ? ours.data : "",
				              line);
				mismatches++;
			}
			compared++;
			dl_buf_free(&ours);
		}
		dl_selection_free(&sel);
		dl_expr_free(e);
	}
	pclose(p);
	print_message("compared %d predicates row by row (%d rejected by DuckDB)\n", compared, duck_err);
	unlink(setup);
	unlink(predf);
	for (int k = 0; k < PREDS; k++) free(preds[k]);
	dl_batch_free(bt);
	assert_int_equal(mismatches, 0);
	assert_true(compared > PREDS * 3 / 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_against_duckdb)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
