/* The planner against DuckDB (tools/oracle, through node) on the corpus
 * tests/unit/sql/corpus/queries.sql: random rows with NULLs, strings,
 * decimals, dates and timestamps are written as Parquet for DuckDB and
 * served to the planner from memory; each query's results must agree as
 * sorted row sets, or in order when the query ends in ORDER BY. Cells
 * compare exactly except numbers, which may differ by 1e-6 relative
 * (DuckDB's avg of a decimal is a double; Spark's is a decimal rounded at
 * scale s+4). Skipped when node or the oracle is missing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <unistd.h>
#include "plan_test_util.h"
#include "parquet/writer.h"

#define NT 3000
#define NU 40
#define TSPEC "id int, g int, s string, x double, dec decimal(10,2), dt date, ts timestamp_ntz"
#define USPEC "k int, name string, w int"

static unsigned seed = 977;
static unsigned rnd(unsigned n)
{
	seed = seed * 1103515245u + 12345u;
	return (seed >> 8) % n;
}
static const char *const words[] = {"a", "ab", "abc", "b", "ba", "c", "héllo", "zz", "", "Ab"};
#define NW 10

static char tb[NT][128], ub[NU][64];
static const char *tr[NT], *ur[NU];

static void make_rows(void)
{
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
		if (rnd(8)) snprintf(k, sizeof k, "%u", rnd(20));
		snprintf(ub[i], sizeof ub[i], "%s|%s|%u", k, rnd(8) ? words[rnd(NW)] : "NULL", rnd(60));
		ur[i] = ub[i];
	}
}

static void write_parquet(const char *path, const pt_table *t)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	pq_sink sink;
	pq_sink_init_file(&sink, f);
	pq_writer_options o = PQ_WRITER_OPTIONS_INIT;
	pq_writer *w;
	assert_int_equal(pq_writer_open(&w, t->schema, &sink, &o), 0);
	for (int i = 0; i < t->nbatches; i++) assert_int_equal(pq_writer_write(w, t->batches[i]), 0);
	assert_int_equal(pq_writer_close(w), 0);
	pq_writer_free(w);
	fclose(f);
}

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
	/* empty cells: split by hand, strtok would merge separators */
	char *ca = x, *cb = y;
	while (ok && ca && cb) {
		sx = strchr(ca, '|');
		sy = strchr(cb, '|');
		if (sx) *sx = 0;
		if (sy) *sy = 0;
		double da, db;
		if (strcmp(ca, cb) && !(numeric(ca, &da) && numeric(cb, &db) && fabs(da - db) <= 1e-6 * fmax(1, fabs(da))))
			ok = false;
		ca = sx ? sx + 1 : NULL;
		cb = sy ? sy + 1 : NULL;
	}
	if (ca || cb) ok = false;
	free(x);
	free(y);
	return ok;
}

/* The corpus entries, flattened to one line each. */
static int read_corpus(char ***out)
{
	char path[600];
	snprintf(path, sizeof path, "%s/tests/unit/sql/corpus/queries.sql", DL_SOURCE_DIR);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char **q = NULL, line[4096];
	int n = 0;
	dl_buf cur = DL_BUF_INIT;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "--", 2) || !line[0]) continue;
		if (cur.len) dl_buf_putc(&cur, ' ');
		dl_buf_puts(&cur, line);
		size_t len = strlen(line);
		if (len && line[len - 1] == ';') {
			cur.data[--cur.len] = 0;
			q = realloc(q, sizeof *q * (size_t)(n + 1));
			q[n++] = strdup(cur.data);
			dl_buf_clear(&cur);
		}
	}
	dl_buf_free(&cur);
	fclose(f);
	*out = q;
	return n;
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
	make_rows();
	pt_env E;
	pt_init(&E);
	pt_add(&E, "t", TSPEC, tr, NT, 1000);
	pt_add(&E, "u", USPEC, ur, NU, 40);
	pt_add(&E, "e", USPEC, NULL, 0, 1);
	char **queries;
	int nq = read_corpus(&queries);
	assert_true(nq >= 60);

	char dir[] = "/tmp/dl_plan_duckdb_XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[600], cmd[2048];
	snprintf(path, sizeof path, "%s/t.parquet", dir);
	write_parquet(path, &E.t[0]);
	snprintf(path, sizeof path, "%s/u.parquet", dir);
	write_parquet(path, &E.t[1]);
	snprintf(path, sizeof path, "%s/setup.sql", dir);
	FILE *f = fopen(path, "w");
	fprintf(f, "CREATE VIEW t AS SELECT * FROM read_parquet('%s/t.parquet');\n"
	           "CREATE VIEW u AS SELECT * FROM read_parquet('%s/u.parquet');\n"
	           "CREATE VIEW e AS SELECT * FROM u WHERE false;\n", dir, dir);
	fclose(f);
	snprintf(path, sizeof path, "%s/queries.txt", dir);
	f = fopen(path, "w");
	for (int i = 0; i < nq; i++) fprintf(f, "%s\n", queries[i]);
	fclose(f);
	snprintf(cmd, sizeof cmd, "DL_ORACLE_DIR='%s' node '%s/tests/unit/exec/duckdb_query.mjs' %s/setup.sql %s/queries.txt %s",
	         oracle, DL_SOURCE_DIR, dir, dir, dir);
	assert_int_equal(system(cmd), 0);
	int failures = 0;
	for (int i = 0; i < nq; i++) {
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
		if (nw > 0 && !strncmp(want[0], "ERR:", 4)) {
			fprintf(stderr, "DuckDB failed on %s: %s\n", queries[i], want[0]);
			failures++;
			tu_free_lines(want, nw);
			continue;
		}
		dl_sql_script *s;
		assert_int_equal(dl_sql_parse(&s, queries[i]), 0);
		bool ordered = dl_sql_script_stmt(s, 0)->query->norder > 0;
		dl_sql_script_free(s);
		dl_batch_stream *stream = pt_query(&E, queries[i]);
		char **got = NULL;
		int ng = stream ? tu_collect(stream, &got) : -1;
		if (ng < 0) {
			fprintf(stderr, "FAILED %s\n  %s\n", queries[i], dl_error_last()->message);
			failures++;
			tu_free_lines(want, nw);
			continue;
		}
		if (!ordered && ng > 1) qsort(got, (size_t)ng, sizeof *got, tu_strcmp);
		if (!ordered && nw > 1) qsort(want, (size_t)nw, sizeof *want, tu_strcmp);
		bool ok = ng == nw;
		int bad = -1;
		for (int r = 0; r < ng && r < nw && bad < 0; r++)
			if (!line_eq(got[r], want[r])) ok = false, bad = r;
		if (!ok) {
			failures++;
			fprintf(stderr, "MISMATCH %s\n  %d rows here, %d in DuckDB\n", queries[i], ng, nw);
			if (bad >= 0) fprintf(stderr, "  row %d: here %s\n          duckdb %s\n", bad, got[bad], want[bad]);
		}
		tu_free_lines(got, ng);
		tu_free_lines(want, nw);
	}
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
	for (int i = 0; i < nq; i++) free(queries[i]);
	free(queries);
	pt_free(&E);
	if (failures) fprintf(stderr, "%d of %d queries disagree\n", failures, nq);
	assert_int_equal(failures, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(against_duckdb),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
