/* Every operator compared with DuckDB (tools/oracle, through node) on the
 * same rows: random data with NULLs, strings, decimals, dates and
 * timestamps is written as Parquet by the library's writer; DuckDB runs a
 * SQL query over the files while the same plan runs here over the same
 * batches, and the results are compared as sorted row sets (in order
 * where the query has ORDER BY). Cells compare exactly, except numbers,
 * which may differ by 1e-6 relative (DuckDB's avg is a double where
 * Spark's avg of a decimal is a decimal rounded at scale s+4). Skipped
 * when node or the oracle is missing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <unistd.h>
#include "exec_test_util.h"
#include "parquet/writer.h"

#define NT 3000
#define NU 40
#define TSPEC "id int, g int, s string, x double, dec decimal(10,2), dt date, ts timestamp_ntz"
#define USPEC "k int, name string, w int"

static unsigned seed = 4242;
static unsigned rnd(unsigned n)
{
	seed = seed * 1103515245u + 12345u;
	return (seed >> 8) % n;
}
static const char *const words[] = {"a", "ab", "abc", "b", "ba", "c", "héllo", "zz", "", "Ab"};
#define NW 10

static dl_batch *T[3], *U; /* t in three batches, u in one */
/* The operators' context: NULL, then one with a tiny memory limit that
 * makes aggregate, join and sort spill (the same answers either way). */
static const dl_exec_ctx *CTX;

static void make_data(void)
{
	static char tb[NT][128], ub[NU][64];
	static const char *tr[NT], *ur[NU];
	for (int i = 0; i < NT; i++) {
		char g[8] = "NULL", x[24] = "NULL", d[24] = "NULL", dt[16] = "NULL", ts[40] = "NULL";
		const char *s = rnd(12) ? words[rnd(NW)] : "NULL";
		if (rnd(10)) snprintf(g, sizeof g, "%u", rnd(15));
		if (rnd(10)) snprintf(x, sizeof x, "%d.%03d", (int)rnd(200) - 100, (int)rnd(8) * 125);
		if (rnd(10)) snprintf(d, sizeof d, "%s%u.%02u", rnd(3) ? "" : "-", rnd(1000), rnd(100));
		if (rnd(10)) snprintf(dt, sizeof dt, "202%u-%02u-%02u", rnd(4), 1 + rnd(12), 1 + rnd(28));
		if (rnd(10))
			snprintf(ts, sizeof ts, "2024-%02u-%02u %02u:%02u:%02u.%03u", 1 + rnd(12), 1 + rnd(28), rnd(24), rnd(60),
			         rnd(60), rnd(1000));
		snprintf(tb[i], sizeof tb[i], "%d|%s|%s|%s|%s|%s|%s", i, g, s, x, d, dt, ts);
		tr[i] = tb[i];
	}
	for (int i = 0; i < NU; i++) {
		char k[8] = "NULL";
		if (rnd(8)) snprintf(k, sizeof k, "%u", rnd(20)); /* keys 15..19 match nothing */
		snprintf(ub[i], sizeof ub[i], "%s|%s|%u", k, rnd(8) ? words[rnd(NW)] : "NULL", rnd(60));
		ur[i] = ub[i];
	}
	dl_type *ts = tu_schema(TSPEC), *us = tu_schema(USPEC);
	T[0] = tu_batch(ts, tr, 1000);
	T[1] = tu_batch(ts, tr + 1000, 1500);
	T[2] = tu_batch(ts, tr + 2500, NT - 2500);
	U = tu_batch(us, ur, NU);
	dl_type_unref(ts);
	dl_type_unref(us);
}

static void write_parquet(const char *path, dl_batch *const *b, int n)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	pq_sink sink;
	pq_sink_init_file(&sink, f);
	pq_writer_options o = PQ_WRITER_OPTIONS_INIT;
	pq_writer *w;
	assert_int_equal(pq_writer_open(&w, b[0]->schema, &sink, &o), 0);
	for (int i = 0; i < n; i++) assert_int_equal(pq_writer_write(w, b[i]), 0);
	assert_int_equal(pq_writer_close(w), 0);
	pq_writer_free(w);
	fclose(f);
}

static dl_batch_stream *src(dl_batch *const *b, int n)
{
	dl_batch *c[3];
	for (int i = 0; i < n; i++) c[i] = dl_batch_slice(b[i], 0, b[i]->num_rows);
	dl_batch_stream *s;
	assert_int_equal(dl_batch_stream_from_batches(&s, b[0]->schema, c, n), 0);
	return s;
}
static dl_batch_stream *t_(void)
{
	return src(T, 3);
}
static dl_batch_stream *u_(void)
{
	return src(&U, 1);
}

static void check(int rc)
{
	if (rc < 0) fail_msg("plan: %s", dl_error_last()->message);
}

/* in -> project(exprs "e AS name"-less: names are positional c0, c1...) */
static dl_batch_stream *proj(dl_batch_stream *in, const char *const *e, int n)
{
	dl_expr *ex[16];
	const char *nm[16];
	char names[16][8];
	for (int i = 0; i < n; i++) {
		ex[i] = tu_expr(e[i]);
		snprintf(names[i], sizeof names[i], "c%d", i);
		nm[i] = names[i];
	}
	dl_batch_stream *s;
	check(dl_exec_project(&s, in, ex, nm, n, NULL));
	return s;
}
#define PROJ(in, ...) proj(in, (const char *const[]){__VA_ARGS__}, (int)(sizeof((const char *[]){__VA_ARGS__}) / sizeof(char *)))

static dl_batch_stream *filt(dl_batch_stream *in, const char *pred)
{
	dl_batch_stream *s;
	check(dl_exec_filter(&s, in, tu_expr(pred), NULL));
	return s;
}

/* aggregates written "kind:arg": count(*), count, cd (distinct), sum, avg, min, max */
static dl_batch_stream *agg(dl_batch_stream *in, const char *const *keys, int nk, const char *const *aggs, int na)
{
	dl_expr *k[8];
	dl_exec_agg a[16];
	for (int i = 0; i < nk; i++) k[i] = tu_expr(keys[i]);
	static const char *const kinds[] = {"count(*)", "count", "cd", "sum", "avg", "min", "max", "first", "last",
	                                    "var_samp", "var_pop", "stddev_samp", "stddev_pop"};
	for (int i = 0; i < na; i++) {
		const char *colon = strchr(aggs[i], ':');
		size_t kl = colon ? (size_t)(colon - aggs[i]) : strlen(aggs[i]);
		int kind = -1;
		for (int j = 0; j < 13; j++)
			if (strlen(kinds[j]) == kl && !strncmp(kinds[j], aggs[i], kl)) kind = j;
		assert_true(kind >= 0);
		a[i] = (dl_exec_agg){.kind = (dl_agg_kind)kind, .arg = colon ? tu_expr(colon + 1) : NULL, .name = "a"};
	}
	dl_batch_stream *s;
	check(dl_exec_aggregate(&s, in, k, NULL, nk, a, na, CTX));
	return s;
}
#define LIST(...) (const char *const[]){__VA_ARGS__}, (int)(sizeof((const char *[]){__VA_ARGS__}) / sizeof(char *))

static dl_batch_stream *join(dl_join_kind kind, bool null_safe, const char *residual)
{
	dl_expr *lk[] = {tu_expr("g")}, *rk[] = {tu_expr("k")};
	bool ns[] = {null_safe};
	dl_exec_join spec = {kind, 1, lk, rk, ns, residual ? tu_expr(residual) : NULL};
	dl_batch_stream *s;
	check(dl_exec_hash_join(&s, t_(), u_(), &spec, CTX));
	return s;
}

static dl_batch_stream *sort(dl_batch_stream *in, const char *const *keys, int nk, int64_t limit, int64_t offset)
{
	/* keys written "expr [DESC] [NULLS FIRST|LAST]" */
	dl_exec_sort_key k[8];
	for (int i = 0; i < nk; i++) {
		char e[64];
		snprintf(e, sizeof e, "%s", keys[i]);
		k[i].descending = strstr(e, " DESC") != NULL;
		k[i].nulls = strstr(e, "NULLS FIRST") ? DL_NULLS_FIRST : strstr(e, "NULLS LAST") ? DL_NULLS_LAST : DL_NULLS_DEFAULT;
		char *sp = strchr(e, ' ');
		if (sp) *sp = 0;
		k[i].expr = tu_expr(e);
	}
	dl_batch_stream *s;
	check(dl_exec_sort(&s, in, k, nk, limit, offset, CTX));
	return s;
}

static dl_batch_stream *setop(dl_setop_kind k, bool all)
{
	dl_batch_stream *s;
	check(dl_exec_setop(&s, PROJ(t_(), "g", "s"), PROJ(u_(), "k", "name"), k, all, CTX));
	return s;
}

typedef struct qcase {
	const char *sql;
	bool ordered;
	dl_batch_stream *(*plan)(void);
} qcase;

#define JCOLS "t.id, t.g, t.s, u.k, u.name, u.w"
static dl_batch_stream *q_group(void)
{
	return agg(t_(), LIST("g"), LIST("count(*)", "count:x", "sum:x", "avg:x", "min:s", "max:s", "sum:dec", "avg:dec",
	                                 "min:dt", "max:ts", "cd:s", "sum:id", "avg:id"));
}
static dl_batch_stream *q_group2(void)
{
	return filt(agg(t_(), LIST("s", "dt"), LIST("count(*)", "sum:dec", "min:id")), "a > 1");
}
static dl_batch_stream *q_group_expr(void)
{
	return agg(t_(), LIST("g % 4", "year(dt)", "dec IS NULL"), LIST("count(*)", "min:x", "max:x", "cd:g"));
}
static dl_batch_stream *q_group_ts(void)
{
	return agg(t_(), LIST("ts", "dec"), LIST("count(*)"));
}
static dl_batch_stream *q_variance(void)
{
	return agg(t_(), LIST("g"), LIST("var_samp:x", "var_pop:x", "stddev_samp:dec", "stddev_pop:id", "var_samp:g"));
}
static dl_batch_stream *q_variance_small(void)
{
	/* mostly one-row groups: the sample forms are NULL there */
	return agg(t_(), LIST("s", "dt"), LIST("var_samp:x", "stddev_pop:x", "count:x"));
}
static dl_batch_stream *q_global(void)
{
	return agg(filt(t_(), "x > 50"), NULL, 0, LIST("count(*)", "sum:g", "avg:dec", "cd:g", "min:s", "max:dt"));
}
static dl_batch_stream *q_global_empty(void)
{
	return agg(filt(t_(), "x > 1000"), NULL, 0, LIST("count(*)", "sum:g", "avg:dec", "cd:g", "min:s"));
}
static dl_batch_stream *q_inner(void)
{
	return PROJ(join(DL_JOIN_INNER, false, NULL), "id", "g", "s", "k", "name", "w");
}
static dl_batch_stream *q_left(void)
{
	return PROJ(join(DL_JOIN_LEFT, false, NULL), "id", "g", "s", "k", "name", "w");
}
static dl_batch_stream *q_right(void)
{
	return PROJ(join(DL_JOIN_RIGHT, false, NULL), "id", "g", "s", "k", "name", "w");
}
static dl_batch_stream *q_full(void)
{
	return PROJ(join(DL_JOIN_FULL, false, NULL), "id", "g", "s", "k", "name", "w");
}
static dl_batch_stream *q_full_res(void)
{
	return PROJ(join(DL_JOIN_FULL, false, "w < id % 50 AND name <> s"), "id", "g", "s", "k", "name", "w");
}
static dl_batch_stream *q_nullsafe(void)
{
	return PROJ(join(DL_JOIN_INNER, true, NULL), "id", "g", "s", "k", "name", "w");
}
static dl_batch_stream *q_semi(void)
{
	return PROJ(join(DL_JOIN_SEMI, false, "w > 30"), "id", "g");
}
static dl_batch_stream *q_anti(void)
{
	return PROJ(join(DL_JOIN_ANTI, false, NULL), "id", "g");
}
static dl_batch_stream *q_anti_ns(void)
{
	return PROJ(join(DL_JOIN_ANTI, true, NULL), "id", "g");
}
static dl_batch_stream *q_join_agg(void)
{
	return agg(join(DL_JOIN_LEFT, false, NULL), LIST("name"), LIST("count(*)", "count:k", "sum:dec", "max:w"));
}
static dl_batch_stream *q_sort(void)
{
	return sort(t_(), LIST("g NULLS FIRST", "s DESC NULLS LAST", "id"), -1, 0);
}
static dl_batch_stream *q_sort2(void)
{
	return PROJ(sort(t_(), LIST("dec NULLS LAST", "ts DESC NULLS FIRST", "id DESC"), -1, 0), "id", "dec", "ts");
}
static dl_batch_stream *q_topn(void)
{
	return sort(t_(), LIST("x DESC NULLS LAST", "id"), 25, 10);
}
static dl_batch_stream *q_topn_default(void)
{
	/* Spark's defaults: ASC NULLS FIRST, DESC NULLS LAST */
	return PROJ(sort(t_(), LIST("dt", "s DESC", "id DESC"), 40, 0), "id", "dt", "s");
}
static dl_batch_stream *q_union_all(void)
{
	return setop(DL_SETOP_UNION, true);
}
static dl_batch_stream *q_union(void)
{
	return setop(DL_SETOP_UNION, false);
}
static dl_batch_stream *q_intersect(void)
{
	return setop(DL_SETOP_INTERSECT, false);
}
static dl_batch_stream *q_intersect_all(void)
{
	return setop(DL_SETOP_INTERSECT, true);
}
static dl_batch_stream *q_except(void)
{
	return setop(DL_SETOP_EXCEPT, false);
}
static dl_batch_stream *q_except_all(void)
{
	return setop(DL_SETOP_EXCEPT, true);
}
static dl_batch_stream *q_distinct(void)
{
	dl_batch_stream *s;
	check(dl_exec_distinct(&s, PROJ(t_(), "g", "dt IS NULL", "substring(s, 1, 1)"), CTX));
	return s;
}
static dl_batch_stream *q_filter(void)
{
	return PROJ(filt(t_(), "dec > 10 AND (s LIKE 'a%' OR g IS NULL) AND NOT (x < 0)"), "id", "x * 2", "upper(s)",
	            "dec + 1");
}

static const qcase cases[] = {
	{"SELECT g, count(*), count(x), sum(x), avg(x), min(s), max(s), sum(dec), avg(dec), min(dt), max(ts), "
	 "count(DISTINCT s), sum(id), avg(id) FROM t GROUP BY g", false, q_group},
	{"SELECT s, dt, count(*), sum(dec), min(id) FROM t GROUP BY s, dt HAVING count(*) > 1", false, q_group2},
	{"SELECT g % 4, year(dt), dec IS NULL, count(*), min(x), max(x), count(DISTINCT g) FROM t GROUP BY 1, 2, 3", false,
	 q_group_expr},
	{"SELECT ts, dec, count(*) FROM t GROUP BY ts, dec", false, q_group_ts},
	{"SELECT g, var_samp(x), var_pop(x), stddev_samp(dec), stddev_pop(id), var_samp(g) FROM t GROUP BY g", false,
	 q_variance},
	{"SELECT s, dt, var_samp(x), stddev_pop(x), count(x) FROM t GROUP BY s, dt", false, q_variance_small},
	{"SELECT count(*), sum(g), avg(dec), count(DISTINCT g), min(s), max(dt) FROM t WHERE x > 50", false, q_global},
	{"SELECT count(*), sum(g), avg(dec), count(DISTINCT g), min(s) FROM t WHERE x > 1000", false, q_global_empty},
	{"SELECT " JCOLS " FROM t JOIN u ON t.g = u.k", false, q_inner},
	{"SELECT " JCOLS " FROM t LEFT JOIN u ON t.g = u.k", false, q_left},
	{"SELECT " JCOLS " FROM t RIGHT JOIN u ON t.g = u.k", false, q_right},
	{"SELECT " JCOLS " FROM t FULL JOIN u ON t.g = u.k", false, q_full},
	{"SELECT " JCOLS " FROM t FULL JOIN u ON t.g = u.k AND u.w < t.id % 50 AND u.name <> t.s", false, q_full_res},
	{"SELECT " JCOLS " FROM t JOIN u ON t.g IS NOT DISTINCT FROM u.k", false, q_nullsafe},
	{"SELECT id, g FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.g AND u.w > 30)", false, q_semi},
	{"SELECT id, g FROM t WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k = t.g)", false, q_anti},
	{"SELECT id, g FROM t WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k IS NOT DISTINCT FROM t.g)", false, q_anti_ns},
	{"SELECT name, count(*), count(k), sum(dec), max(w) FROM t LEFT JOIN u ON t.g = u.k GROUP BY name", false,
	 q_join_agg},
	{"SELECT * FROM t ORDER BY g NULLS FIRST, s DESC NULLS LAST, id", true, q_sort},
	{"SELECT id, dec, ts FROM t ORDER BY dec NULLS LAST, ts DESC NULLS FIRST, id DESC", true, q_sort2},
	{"SELECT * FROM t ORDER BY x DESC NULLS LAST, id LIMIT 25 OFFSET 10", true, q_topn},
	{"SELECT id, dt, s FROM t ORDER BY dt ASC NULLS FIRST, s DESC NULLS LAST, id DESC LIMIT 40", true, q_topn_default},
	{"SELECT g, s FROM t UNION ALL SELECT k, name FROM u", false, q_union_all},
	{"SELECT g, s FROM t UNION SELECT k, name FROM u", false, q_union},
	{"SELECT g, s FROM t INTERSECT SELECT k, name FROM u", false, q_intersect},
	{"SELECT g, s FROM t INTERSECT ALL SELECT k, name FROM u", false, q_intersect_all},
	{"SELECT g, s FROM t EXCEPT SELECT k, name FROM u", false, q_except},
	{"SELECT g, s FROM t EXCEPT ALL SELECT k, name FROM u", false, q_except_all},
	{"SELECT DISTINCT g, dt IS NULL, substring(s, 1, 1) FROM t", false, q_distinct},
	{"SELECT id, x * 2, upper(s), dec + 1 FROM t WHERE dec > 10 AND (s LIKE 'a%' OR g IS NULL) AND NOT (x < 0)", false,
	 q_filter},
};
#define NCASES (int)(sizeof cases / sizeof cases[0])

static bool numeric(const char *s, double *out)
{
	char *end;
	*out = strtod(s, &end);
	return *s && *end == 0;
}

/* Cells equal, or numbers within 1e-6 relative. */
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
	char dir[] = "/tmp/dl_exec_duckdb_XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[600], cmd[2048];
	snprintf(path, sizeof path, "%s/t.parquet", dir);
	write_parquet(path, T, 3);
	snprintf(path, sizeof path, "%s/u.parquet", dir);
	write_parquet(path, &U, 1);
	snprintf(path, sizeof path, "%s/setup.sql", dir);
	FILE *f = fopen(path, "w");
	fprintf(f, "CREATE VIEW t AS SELECT * FROM read_parquet('%s/t.parquet');\n"
	           "CREATE VIEW u AS SELECT * FROM read_parquet('%s/u.parquet');\n", dir, dir);
	fclose(f);
	snprintf(path, sizeof path, "%s/queries.txt", dir);
	f = fopen(path, "w");
	for (int i = 0; i < NCASES; i++) fprintf(f, "%s\n", cases[i].sql);
	fclose(f);
	snprintf(cmd, sizeof cmd, "DL_ORACLE_DIR='%s' node '%s/tests/unit/exec/duckdb_query.mjs' %s/setup.sql %s/queries.txt %s",
	         oracle, DL_SOURCE_DIR, dir, dir, dir);
	assert_int_equal(system(cmd), 0);
	int failures = 0;
	dl_exec_memory mem = DL_EXEC_MEMORY_INIT(8192);
	dl_exec_ctx spill = DL_EXEC_CTX_INIT;
	spill.mem = &mem;
	spill.temp_dir = dir;
	spill.batch_rows = 256;
	for (int pass = 0; pass < 2; pass++) {
	CTX = pass ? &spill : NULL;
	for (int i = 0; i < NCASES; i++) {
		snprintf(path, sizeof path, "%s/%d.txt", dir, i);
		f = fopen(path, "r");
		assert_non_null(f);
		char **want = NULL, line[4096];
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
		if (!cases[i].ordered && ng > 1) qsort(got, (size_t)ng, sizeof *got, tu_strcmp);
		if (!cases[i].ordered && nw > 1) qsort(want, (size_t)nw, sizeof *want, tu_strcmp);
		bool ok = ng == nw;
		int bad = -1;
		for (int r = 0; ok && r < ng; r++)
			if (!line_eq(got[r], want[r])) ok = false, bad = r;
		if (!ok) {
			failures++;
			fprintf(stderr, "MISMATCH%s %s\n  %d rows here, %d in DuckDB\n", pass ? " (spilling)" : "", cases[i].sql,
			        ng, nw);
			if (bad >= 0) fprintf(stderr, "  row %d: here %s\n          duckdb %s\n", bad, got[bad], want[bad]);
		}
		tu_free_lines(got, ng);
		tu_free_lines(want, nw);
	}
	}
	assert_int_equal(atomic_load(&mem.used), 0);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
	for (int i = 0; i < 3; i++) dl_batch_free(T[i]);
	dl_batch_free(U);
	assert_int_equal(failures, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(against_duckdb),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
