/* Window functions and the newer aggregates compared with DuckDB
 * (tools/oracle, through node) on the same random rows written as Parquet
 * by the library's writer, as test_duckdb.c does for the other operators:
 * ranking with ties, lag/lead (with defaults and IGNORE NULLS),
 * first/last/nth_value, aggregates over ROWS frames, RANGE frames over
 * decimals, doubles (descending) and dates (intervals), whole partitions;
 * count_if, bool_and/bool_or, collect_set and collect_list (as sorted
 * lists), sum/avg/count(DISTINCT), approx_count_distinct over at most 7
 * distinct values (exact there: against count(DISTINCT)). DuckDB's ORDER BY puts NULLs last by default, so the SQL spells
 * Spark's NULLS FIRST out. Results compare as sorted row sets; numbers
 * within 1e-6 relative. Skipped when node or the oracle is missing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <unistd.h>
#include "exec_test_util.h"
#include "parquet/writer.h"

#define NT 2000
#define TSPEC "id int, g int, s string, x double, dec decimal(10,2), dt date, b boolean"

static unsigned seed = 777;
static unsigned rnd(unsigned n)
{
	seed = seed * 1103515245u + 12345u;
	return (seed >> 8) % n;
}
static const char *const words[] = {"a", "ab", "abc", "b", "ba", "c", "héllo", "zz", "", "Ab"};

static dl_batch *T[3];

static void make_data(void)
{
	static char tb[NT][128];
	static const char *tr[NT];
	for (int i = 0; i < NT; i++) {
		char g[8] = "NULL", x[24] = "NULL", d[24] = "NULL", dt[16] = "NULL";
		const char *s = rnd(12) ? words[rnd(10)] : "NULL";
		const char *b = rnd(8) ? (rnd(5) ? "true" : "false") : "NULL";
		if (rnd(12)) snprintf(g, sizeof g, "%u", rnd(7));
		if (rnd(10)) snprintf(x, sizeof x, "%d.%03d", (int)rnd(40) - 20, (int)rnd(8) * 125);
		if (rnd(10)) snprintf(d, sizeof d, "%s%u.%02u", rnd(3) ? "" : "-", rnd(100), rnd(4) * 25);
		if (rnd(10)) snprintf(dt, sizeof dt, "2024-%02u-%02u", 1 + rnd(3), 1 + rnd(28));
		snprintf(tb[i], sizeof tb[i], "%d|%s|%s|%s|%s|%s|%s", i, g, s, x, d, dt, b);
		tr[i] = tb[i];
	}
	dl_type *ts = tu_schema(TSPEC);
	T[0] = tu_batch(ts, tr, 700);
	T[1] = tu_batch(ts, tr + 700, 900);
	T[2] = tu_batch(ts, tr + 1600, NT - 1600);
	dl_type_unref(ts);
}

static void write_parquet(const char *path)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	pq_sink sink;
	pq_sink_init_file(&sink, f);
	pq_writer_options o = PQ_WRITER_OPTIONS_INIT;
	pq_writer *w;
	assert_int_equal(pq_writer_open(&w, T[0]->schema, &sink, &o), 0);
	for (int i = 0; i < 3; i++) assert_int_equal(pq_writer_write(w, T[i]), 0);
	assert_int_equal(pq_writer_close(w), 0);
	pq_writer_free(w);
	fclose(f);
}

static dl_batch_stream *t_(void)
{
	dl_batch *c[3];
	for (int i = 0; i < 3; i++) c[i] = dl_batch_slice(T[i], 0, T[i]->num_rows);
	dl_batch_stream *s;
	assert_int_equal(dl_batch_stream_from_batches(&s, T[0]->schema, c, 3), 0);
	return s;
}

static void check(int rc)
{
	if (rc < 0) fail_msg("plan: %s", dl_error_last()->message);
}

static dl_exec_window_fn F(dl_win_kind k, const char *arg, int64_t off)
{
	return (dl_exec_window_fn){.kind = k, .arg = arg ? tu_expr(arg) : NULL, .offset = off, .name = "w"};
}
static dl_exec_window_fn A(dl_agg_kind k, const char *arg)
{
	dl_exec_window_fn f = {.kind = DL_WIN_AGG, .name = "w"};
	f.agg = (dl_exec_agg){.kind = k, .arg = arg ? tu_expr(arg) : NULL, .name = "w"};
	return f;
}
static dl_exec_window_fn FR(dl_exec_window_fn f, dl_frame_kind kind, dl_frame_bound lo, const char *lo_off,
                            dl_frame_bound hi, const char *hi_off)
{
	f.frame = (dl_exec_frame){kind, lo, hi, lo_off ? tu_expr(lo_off) : NULL, hi_off ? tu_expr(hi_off) : NULL};
	return f;
}

/* t with functions over PARTITION BY part ORDER BY order ("expr" or
 * "expr DESC"; Spark's default nulls) */
static dl_batch_stream *win(const char *part, const char *const *order, int no, dl_exec_window_fn *fns, int nf)
{
	dl_expr *p[1] = {part ? tu_expr(part) : NULL};
	dl_exec_sort_key k[4];
	for (int i = 0; i < no; i++) {
		char e[64];
		snprintf(e, sizeof e, "%s", order[i]);
		char *sp = strchr(e, ' ');
		k[i] = (dl_exec_sort_key){.descending = strstr(e, " DESC") != NULL,
		                          .nulls = strstr(e, "NULLS FIRST") ? DL_NULLS_FIRST : DL_NULLS_DEFAULT};
		if (sp) *sp = 0;
		k[i].expr = tu_expr(e);
	}
	dl_batch_stream *s;
	check(dl_exec_window(&s, t_(), p, part ? 1 : 0, k, no, fns, nf, NULL));
	return s;
}
#define ORD(...) (const char *const[]){__VA_ARGS__}, (int)(sizeof((const char *[]){__VA_ARGS__}) / sizeof(char *))
#define FNS(...) (dl_exec_window_fn[]){__VA_ARGS__}, (int)(sizeof((dl_exec_window_fn[]){__VA_ARGS__}) / sizeof(dl_exec_window_fn))

static dl_batch_stream *q_rank(void)
{
	return win("g", ORD("dt"), FNS(F(DL_WIN_RANK, NULL, 0), F(DL_WIN_DENSE_RANK, NULL, 0),
	                               F(DL_WIN_PERCENT_RANK, NULL, 0), F(DL_WIN_CUME_DIST, NULL, 0),
	                               A(DL_AGG_SUM, "dec"), A(DL_AGG_COUNT, "x"), A(DL_AGG_MAX, "s")));
}
static dl_batch_stream *q_offsets(void)
{
	dl_exec_window_fn lead = F(DL_WIN_LEAD, "s", 2), lag_nn = F(DL_WIN_LAG, "x", 1), lead_nn = F(DL_WIN_LEAD, "x", 3);
	lead.default_value = tu_expr("'zz'");
	lag_nn.ignore_nulls = lead_nn.ignore_nulls = true;
	dl_exec_window_fn fv = F(DL_WIN_FIRST_VALUE, "x", 0), lv = F(DL_WIN_LAST_VALUE, "x", 0);
	dl_exec_window_fn nth = FR(F(DL_WIN_NTH_VALUE, "x", 3), DL_FRAME_ROWS, DL_FRAME_PRECEDING, "4",
	                           DL_FRAME_FOLLOWING, "2");
	lv.ignore_nulls = true;
	return win("g", ORD("id"), FNS(F(DL_WIN_ROW_NUMBER, NULL, 0), F(DL_WIN_NTILE, NULL, 7), F(DL_WIN_LAG, "x", 1),
	                               lead, lag_nn, lead_nn, fv, lv, nth));
}
static dl_batch_stream *q_rows(void)
{
	return win("s", ORD("id DESC"),
	           FNS(FR(A(DL_AGG_SUM, "x"), DL_FRAME_ROWS, DL_FRAME_PRECEDING, "3", DL_FRAME_FOLLOWING, "2"),
	               FR(A(DL_AGG_MIN, "dt"), DL_FRAME_ROWS, DL_FRAME_PRECEDING, "10", DL_FRAME_CURRENT_ROW, NULL),
	               FR(A(DL_AGG_AVG, "dec"), DL_FRAME_ROWS, DL_FRAME_CURRENT_ROW, NULL, DL_FRAME_UNBOUNDED_FOLLOWING,
	                  NULL),
	               FR(A(DL_AGG_COUNT_STAR, NULL), DL_FRAME_ROWS, DL_FRAME_FOLLOWING, "1", DL_FRAME_FOLLOWING, "4"),
	               FR(A(DL_AGG_MAX, "x"), DL_FRAME_ROWS, DL_FRAME_UNBOUNDED_PRECEDING, NULL, DL_FRAME_PRECEDING, "2"),
	               FR(F(DL_WIN_FIRST_VALUE, "dec", 0), DL_FRAME_ROWS, DL_FRAME_PRECEDING, "2", DL_FRAME_PRECEDING,
	                  "1")));
}
static dl_batch_stream *q_range_dec(void)
{
	return win("g", ORD("dec"),
	           FNS(FR(A(DL_AGG_SUM, "id"), DL_FRAME_RANGE, DL_FRAME_PRECEDING, "10", DL_FRAME_FOLLOWING, "5"),
	               FR(A(DL_AGG_COUNT_STAR, NULL), DL_FRAME_RANGE, DL_FRAME_CURRENT_ROW, NULL,
	                  DL_FRAME_UNBOUNDED_FOLLOWING, NULL),
	               FR(A(DL_AGG_MIN, "s"), DL_FRAME_RANGE, DL_FRAME_FOLLOWING, "1.5", DL_FRAME_FOLLOWING, "20")));
}
static dl_batch_stream *q_range_desc(void)
{
	return win("b", ORD("x DESC"),
	           FNS(FR(A(DL_AGG_SUM, "id"), DL_FRAME_RANGE, DL_FRAME_PRECEDING, "2.5", DL_FRAME_FOLLOWING, "0.5"),
	               A(DL_AGG_COUNT, "s"), F(DL_WIN_RANK, NULL, 0)));
}
static dl_batch_stream *q_range_date(void)
{
	return win(NULL, ORD("dt"),
	           FNS(FR(A(DL_AGG_SUM, "dec"), DL_FRAME_RANGE, DL_FRAME_PRECEDING, "INTERVAL 3 DAY", DL_FRAME_CURRENT_ROW,
	                  NULL),
	               FR(A(DL_AGG_COUNT, "x"), DL_FRAME_RANGE, DL_FRAME_PRECEDING, "INTERVAL 1 DAY", DL_FRAME_FOLLOWING,
	                  "INTERVAL 1 DAY")));
}
static dl_batch_stream *q_desc_ints(void)
{
	return win("g", ORD("dt DESC NULLS FIRST"),
	           FNS(F(DL_WIN_RANK, NULL, 0), F(DL_WIN_DENSE_RANK, NULL, 0), A(DL_AGG_COUNT_STAR, NULL),
	               FR(A(DL_AGG_SUM, "id"), DL_FRAME_RANGE, DL_FRAME_PRECEDING, "INTERVAL 5 DAY", DL_FRAME_FOLLOWING,
	                  "INTERVAL 2 DAY")));
}
static dl_batch_stream *q_whole(void)
{
	return win("s", NULL, 0,
	           FNS(A(DL_AGG_SUM, "x"), A(DL_AGG_AVG, "dec"), A(DL_AGG_COUNT_STAR, NULL), A(DL_AGG_MIN, "dt"),
	               A(DL_AGG_VAR_SAMP, "x"), A(DL_AGG_COUNT_IF, "b"), A(DL_AGG_BOOL_AND, "b"),
	               A(DL_AGG_BOOL_OR, "b")));
}

/* GROUP BY s with the newer aggregates; lists sorted for comparing */
static dl_batch_stream *q_agg(void)
{
	dl_expr *keys[] = {tu_expr("s")};
	const char *kn[] = {"s"};
	dl_exec_agg a[] = {
		{.kind = DL_AGG_COUNT_IF, .arg = tu_expr("b"), .name = "a1"},
		{.kind = DL_AGG_BOOL_AND, .arg = tu_expr("b"), .name = "a2"},
		{.kind = DL_AGG_BOOL_OR, .arg = tu_expr("b"), .name = "a3"},
		{.kind = DL_AGG_COLLECT_SET, .arg = tu_expr("g"), .name = "a4"},
		{.kind = DL_AGG_COLLECT_LIST, .arg = tu_expr("g"), .name = "a5"},
		{.kind = DL_AGG_APPROX_COUNT_DISTINCT, .arg = tu_expr("g"), .name = "a6"},
		{.kind = DL_AGG_SUM, .arg = tu_expr("g"), .name = "a7", .distinct = true},
		{.kind = DL_AGG_AVG, .arg = tu_expr("x"), .name = "a8", .distinct = true},
		{.kind = DL_AGG_COUNT, .arg = tu_expr("dt"), .name = "a9", .distinct = true},
		{.kind = DL_AGG_COLLECT_SET, .arg = tu_expr("dt"), .name = "a10"},
		{.kind = DL_AGG_APPROX_COUNT_DISTINCT, .arg = tu_expr("b"), .name = "a11"},
		{.kind = DL_AGG_COUNT_IF, .arg = tu_expr("x > 0"), .name = "a12"},
	};
	dl_batch_stream *s;
	check(dl_exec_aggregate(&s, t_(), keys, kn, 1, a, 12, NULL));
	static const char *const pe[] = {"s",  "a1", "a2", "a3", "sort_array(a4)", "sort_array(a5)", "a6",
	                                 "a7", "a8", "a9", "size(a10)", "a11", "a12"};
	dl_expr *ex[13];
	for (int i = 0; i < 13; i++) ex[i] = tu_expr(pe[i]);
	dl_batch_stream *p;
	check(dl_exec_project(&p, s, ex, NULL, 13, NULL));
	return p;
}

typedef struct qcase {
	const char *sql;
	dl_batch_stream *(*plan)(void);
} qcase;

#define W_G_DT "(PARTITION BY g ORDER BY dt ASC NULLS FIRST)"
#define W_G_ID "(PARTITION BY g ORDER BY id)"
#define W_S_ID "(PARTITION BY s ORDER BY id DESC ROWS BETWEEN "
#define W_G_DEC "(PARTITION BY g ORDER BY dec ASC NULLS FIRST RANGE BETWEEN "
#define W_B_X "(PARTITION BY b ORDER BY x DESC NULLS LAST"
#define W_DT "(ORDER BY dt ASC NULLS FIRST RANGE BETWEEN "
static const qcase cases[] = {
	{"SELECT *, rank() OVER " W_G_DT ", dense_rank() OVER " W_G_DT ", percent_rank() OVER " W_G_DT
	 ", cume_dist() OVER " W_G_DT ", sum(dec) OVER " W_G_DT ", count(x) OVER " W_G_DT ", max(s) OVER " W_G_DT
	 " FROM t",
	 q_rank},
	{"SELECT *, row_number() OVER " W_G_ID ", ntile(7) OVER " W_G_ID ", lag(x) OVER " W_G_ID
	 ", lead(s, 2, 'zz') OVER " W_G_ID ", lag(x IGNORE NULLS) OVER " W_G_ID ", lead(x, 3 IGNORE NULLS) OVER " W_G_ID
	 ", first_value(x) OVER " W_G_ID ", last_value(x IGNORE NULLS) OVER " W_G_ID
	 ", nth_value(x, 3) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 4 PRECEDING AND 2 FOLLOWING) FROM t",
	 q_offsets},
	{"SELECT *, sum(x) OVER " W_S_ID "3 PRECEDING AND 2 FOLLOWING), min(dt) OVER " W_S_ID
	 "10 PRECEDING AND CURRENT ROW), avg(dec) OVER " W_S_ID "CURRENT ROW AND UNBOUNDED FOLLOWING), count(*) OVER " W_S_ID
	 "1 FOLLOWING AND 4 FOLLOWING), max(x) OVER " W_S_ID "UNBOUNDED PRECEDING AND 2 PRECEDING), first_value(dec) OVER " W_S_ID
	 "2 PRECEDING AND 1 PRECEDING) FROM t",
	 q_rows},
	{"SELECT *, sum(id) OVER " W_G_DEC "10 PRECEDING AND 5 FOLLOWING), count(*) OVER " W_G_DEC
	 "CURRENT ROW AND UNBOUNDED FOLLOWING), min(s) OVER " W_G_DEC "1.5 FOLLOWING AND 20 FOLLOWING) FROM t",
	 q_range_dec},
	{"SELECT *, sum(id) OVER " W_B_X " RANGE BETWEEN 2.5 PRECEDING AND 0.5 FOLLOWING), count(s) OVER " W_B_X
	 "), rank() OVER " W_B_X ") FROM t",
	 q_range_desc},
	{"SELECT *, sum(dec) OVER " W_DT "INTERVAL 3 DAY PRECEDING AND CURRENT ROW), count(x) OVER " W_DT
	 "INTERVAL 1 DAY PRECEDING AND INTERVAL 1 DAY FOLLOWING) FROM t",
	 q_range_date},
	{"SELECT *, rank() OVER (PARTITION BY g ORDER BY dt DESC NULLS FIRST), dense_rank() OVER (PARTITION BY g ORDER BY "
	 "dt DESC NULLS FIRST), count(*) OVER (PARTITION BY g ORDER BY dt DESC NULLS FIRST), sum(id) OVER (PARTITION BY g "
	 "ORDER BY dt DESC NULLS FIRST RANGE BETWEEN INTERVAL 5 DAY PRECEDING AND INTERVAL 2 DAY FOLLOWING) FROM t",
	 q_desc_ints},
	{"SELECT *, sum(x) OVER (PARTITION BY s), avg(dec) OVER (PARTITION BY s), count(*) OVER (PARTITION BY s), "
	 "min(dt) OVER (PARTITION BY s), var_samp(x) OVER (PARTITION BY s), count_if(b) OVER (PARTITION BY s), "
	 "bool_and(b) OVER (PARTITION BY s), bool_or(b) OVER (PARTITION BY s) FROM t",
	 q_whole},
	{"SELECT s, count_if(b), bool_and(b), bool_or(b), coalesce(list_sort(list(DISTINCT g) FILTER (WHERE g IS NOT NULL)), []), "
	 "coalesce(list_sort(list(g) FILTER (WHERE g IS NOT NULL)), []), count(DISTINCT g), sum(DISTINCT g), avg(DISTINCT x), "
	 "count(DISTINCT dt), count(DISTINCT dt), count(DISTINCT b), count_if(x > 0) FROM t GROUP BY s",
	 q_agg},
};
#define NCASES (int)(sizeof cases / sizeof cases[0])

static bool numeric(const char *s, double *out)
{
	char *end;
	*out = strtod(s, &end);
	return *s && *end == 0;
}

static bool line_eq(const char *a, const char *b)
{
	if (!strcmp(a, b)) return true;
	char *x = strdup(a), *y = strdup(b), *sx, *sy;
	bool ok = true;
	char *ca = strtok_r(x, "|", &sx), *cb = strtok_r(y, "|", &sy);
	while (ok && (ca || cb)) {
		double da, db;
		if (!ca || !cb) ok = false;
		else if (strcmp(ca, cb) && !(numeric(ca, &da) && numeric(cb, &db) && fabs(da - db) <= 1e-6 * fmax(1, fabs(da))))
			ok = false;
		ca = strtok_r(NULL, "|", &sx);
		cb = strtok_r(NULL, "|", &sy);
	}
	free(x);
	free(y);
	return ok;
}

static void against_duckdb(void **st)
{
	(void)st;
	const char *oracle = getenv("DL_ORACLE_DIR");
	char probe[512];
	snprintf(probe, sizeof probe, "%s/node_modules/@duckdb/node-api", oracle ? oracle : "");
	if (!oracle || access(probe, F_OK) != 0 || system("node --version > /dev/null 2>&1") != 0) {
		print_message("node or the DuckDB oracle missing: skipped\n");
		skip();
	}
	make_data();
	char dir[] = "/tmp/dl_window_duckdb_XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[600], cmd[2048];
	snprintf(path, sizeof path, "%s/t.parquet", dir);
	write_parquet(path);
	snprintf(path, sizeof path, "%s/setup.sql", dir);
	FILE *f = fopen(path, "w");
	fprintf(f, "CREATE VIEW t AS SELECT * FROM read_parquet('%s/t.parquet');\n", dir);
	fclose(f);
	snprintf(path, sizeof path, "%s/queries.txt", dir);
	f = fopen(path, "w");
	for (int i = 0; i < NCASES; i++) fprintf(f, "%s\n", cases[i].sql);
	fclose(f);
	snprintf(cmd, sizeof cmd, "DL_ORACLE_DIR='%s' node '%s/tests/unit/exec/duckdb_query.mjs' %s/setup.sql %s/queries.txt %s",
	         oracle, DL_SOURCE_DIR, dir, dir, dir);
	assert_int_equal(system(cmd), 0);
	int failures = 0;
	for (int i = 0; i < NCASES; i++) {
		snprintf(path, sizeof path, "%s/%d.txt", dir, i);
		f = fopen(path, "r");
		assert_non_null(f);
		char **want = NULL, line[8192];
		int nw = 0;
		while (fgets(line, sizeof line, f)) {
			line[strcspn(line, "\n")] = 0;
			want = realloc(want, (size_t)(nw + 1) * sizeof *want);
			want[nw++] = strdup(line);
		}
		fclose(f);
		if (nw > 0 && !strncmp(want[0], "ERR:", 4)) fail_msg("DuckDB failed on %s: %s", cases[i].sql, want[0]);
		char **got;
		int ng = tu_collect(cases[i].plan(), &got);
		if (ng < 0) fail_msg("%s: %s", cases[i].sql, dl_error_last()->message);
		if (ng > 1) qsort(got, (size_t)ng, sizeof *got, tu_strcmp);
		if (nw > 1) qsort(want, (size_t)nw, sizeof *want, tu_strcmp);
		bool ok = ng == nw;
		int bad = -1;
		for (int r = 0; ok && r < ng; r++)
			if (!line_eq(got[r], want[r])) ok = false, bad = r;
		if (!ok) {
			failures++;
			fprintf(stderr, "MISMATCH %s\n  %d rows here, %d in DuckDB\n", cases[i].sql, ng, nw);
			if (bad >= 0) fprintf(stderr, "  row %d: here %s\n          duckdb %s\n", bad, got[bad], want[bad]);
		}
		tu_free_lines(got, ng);
		tu_free_lines(want, nw);
	}
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
	for (int i = 0; i < 3; i++) dl_batch_free(T[i]);
	assert_int_equal(failures, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(against_duckdb),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
