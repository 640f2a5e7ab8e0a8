/* Benchmark: the SQL suite of issue 10 against DuckDB in one run, on the
 * same Delta table's Parquet files (DuckDB reads them with read_parquet):
 *   fact  10M rows in 20 files, sorted by id: id BIGINT, g INT (1000
 *         values), h INT (~2M values), k INT (a key of dim), x DOUBLE,
 *         d DATE (365 days), s STRING (26 values)
 *   dim   100k rows: k INT, region INT (50 values), name STRING
 * Ten queries (QUERIES below): filter + aggregate, GROUP BY of low and high
 * cardinality, a string GROUP BY, join + aggregate, top-N, count distinct,
 * window ranking, a date-range aggregate, and a point lookup that prunes
 * files. Each runs at 1 and 2 threads on both sides (the library's
 * DL_THREADS, DuckDB's threads setting); we time the best of --runs, wall
 * and CPU, in this process; DuckDB's side is bench_sql_duckdb.mjs, which
 * does the same. Prints each ratio DuckDB time / our time (above 1: we are
 * faster, as docs/BENCHMARKS.md reads ratios) and the geometric means.
 * Every result is checked against DuckDB's (first row, numbers to 1e-6).
 *
 * The table is generated once into $DL_BINARY_DIR/bench-cache/sql/ (or
 * --dir) and reused while its marker file is there.
 *
 * usage: bench_sql [--rows N] [--runs N] [--dir D] [--threads T] [--query NAME] [--no-duckdb]
 *
 * --threads T runs only our side at DL_THREADS=T, in this process, and
 * prints one line per query (what the parent parses); with --query NAME
 * only that query. `--runs 0` runs each query once (no warm-up) and is
 * what callgrind wants:
 *   valgrind --tool=callgrind build/bench/bench_sql --rows 1000000 \
 *     --threads 1 --runs 0 --query group_string
 * (a child never generates the table: run the bench once with the same
 * --rows first, or pass the generated --dir). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "columnar/batch_stream.h"
#include "columnar/builder.h"
#include "deltalake.h"
#include "deltalake/sql.h"
#include "exec/op.h"

typedef struct query {
	const char *name;
	const char *sql;
} query;

/* Both sides run exactly this text; `fact` and `dim` are views (DuckDB) or
 * delta.`path` references substituted for the names (ours). */
static const query QUERIES[] = {
	{"filter_agg", "SELECT count(*), sum(x) FROM fact WHERE g < 100 AND x > 500"},
	{"group_low", "SELECT max(n), sum(sx) FROM (SELECT g, count(*) AS n, sum(x) AS sx FROM fact GROUP BY g)"},
	{"group_high", "SELECT max(n), sum(sx) FROM (SELECT h, count(*) AS n, sum(x) AS sx FROM fact GROUP BY h)"},
	{"group_string", "SELECT min(n), max(n) FROM (SELECT s, count(*) AS n, avg(x) AS ax FROM fact GROUP BY s)"},
	{"join_agg", "SELECT count(*), sum(sx) FROM (SELECT dim.region, sum(fact.x) AS sx FROM fact JOIN dim ON fact.k = dim.k GROUP BY dim.region)"},
	{"top_n", "SELECT sum(id), min(x) FROM (SELECT id, x FROM fact ORDER BY x DESC, id LIMIT 100)"},
	{"count_distinct", "SELECT count(DISTINCT h) FROM fact"},
	{"window_rank", "SELECT count(*), sum(id) FROM (SELECT id, rank() OVER (PARTITION BY g ORDER BY x DESC, id) AS r FROM fact WHERE g < 50) WHERE r <= 3"},
	{"date_range", "SELECT count(*), sum(sx) FROM (SELECT d, sum(x) AS sx FROM fact WHERE d BETWEEN DATE'2024-03-01' AND DATE'2024-03-31' GROUP BY d)"},
	{"point_lookup", "SELECT id, g, h, k, x FROM fact WHERE id = 7777777"},
};
#define NQ ((int)(sizeof QUERIES / sizeof QUERIES[0]))

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double cpu_ms(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 +
	       (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

static void die(const char *what)
{
	const dl_error *e = dl_error_last();
	fprintf(stderr, "bench_sql: %s: %s\n", what, e && e->message[0] ? e->message : "failed");
	exit(1);
}

/* ---- data: formulas shared with nothing else, written by our writer ---- */

#define DAY0 19723 /* 2024-01-01 */
static int32_t gen_g(int64_t i) { return (int32_t)(((i * 2654435761LL) % 1000003) % 1000); }
static int32_t gen_h(int64_t i) { return (int32_t)((i * 7919) % 2000003); }
static int32_t gen_k(int64_t i) { return (int32_t)(((i * 40503) % 1000003) % 100000); }
static double gen_x(int64_t i) { return (double)((i * 40503) % 10007) / 8.0; }
static int32_t gen_d(int64_t i) { return DAY0 + (int32_t)((i / 7) % 365); }

typedef struct gen {
	dl_type *schema;
	int64_t next, end, batch;
	bool dim;
} gen;

static int gen_next(dl_batch_stream *s, dl_batch **out)
{
	gen *g = s->private_data;
	*out = NULL;
	if (g->next >= g->end) return 0;
	int64_t n = g->end - g->next < g->batch ? g->end - g->next : g->batch;
	dl_batch *b = dl_batch_new(g->schema, n);
	if (!b) return DL_ENOMEM;
	char str[16];
	for (int c = 0; c < g->schema->nchildren; c++) {
		dl_builder *bl;
		if (dl_builder_new(&bl, g->schema->children[c].type) < 0) return DL_ENOMEM;
		for (int64_t i = g->next; i < g->next + n; i++) {
			if (g->dim) {
				if (c == 0) dl_builder_append_int(bl, i);
				else if (c == 1) dl_builder_append_int(bl, i % 50);
				else {
					int len = snprintf(str, sizeof str, "name%05lld", (long long)(i % 99991));
					dl_builder_append_bytes(bl, str, (size_t)len);
				}
				continue;
			}
			switch (c) {
			case 0: dl_builder_append_int(bl, i); break;
			case 1: dl_builder_append_int(bl, gen_g(i)); break;
			case 2: dl_builder_append_int(bl, gen_h(i)); break;
			case 3: dl_builder_append_int(bl, gen_k(i)); break;
			case 4: dl_builder_append_double(bl, gen_x(i)); break;
			case 5: dl_builder_append_int(bl, gen_d(i)); break;
			default:
				str[0] = (char)('a' + (i * 31) % 26);
				dl_builder_append_bytes(bl, str, 1);
			}
		}
		dl_builder_finish(&b->cols[c], bl);
		dl_builder_free(bl);
	}
	g->next += n;
	*out = b;
	return 0;
}

static const dl_type *gen_schema(dl_batch_stream *s) { return ((gen *)s->private_data)->schema; }
static void gen_release(dl_batch_stream *s)
{
	gen *g = s->private_data;
	dl_type_unref(g->schema);
	free(g);
	free(s);
}

static void write_table(const char *uri, const char *const *names, const dl_type_id *ids, int n, int64_t rows,
                        bool dim, int64_t per_file)
{
	dl_type *types[8];
	for (int i = 0; i < n; i++) types[i] = dl_type_new(ids[i]);
	dl_type *schema = dl_exec_struct(names, types, NULL, n);
	for (int i = 0; i < n; i++) dl_type_unref(types[i]);
	if (!schema) die("schema");
	gen *g = calloc(1, sizeof *g);
	dl_batch_stream *s = calloc(1, sizeof *s);
	*g = (gen){schema, 0, rows, 65536, dim};
	*s = (dl_batch_stream){gen_schema, gen_next, gen_release, g};
	struct ArrowArrayStream a;
	if (dl_batch_stream_export(&a, s) < 0) die("export");
	dl_write_options o = DL_WRITE_OPTIONS_INIT;
	o.max_records_per_file = per_file;
	int64_t v;
	if (dl_write(&v, uri, &a, &o) < 0) die(uri);
}

static void make_data(const char *dir, int64_t rows)
{
	char marker[1200], fact[1100], dim[1100];
	snprintf(marker, sizeof marker, "%s/READY-%lld", dir, (long long)rows);
	struct stat st;
	if (stat(marker, &st) == 0) return;
	char cmd[2200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
	if (system(cmd) != 0) die("mkdir");
	snprintf(fact, sizeof fact, "%s/fact", dir);
	snprintf(dim, sizeof dim, "%s/dim", dir);
	fprintf(stderr, "bench_sql: generating %lld rows into %s\n", (long long)rows, dir);
	static const char *const fn[] = {"id", "g", "h", "k", "x", "d", "s"};
	static const dl_type_id ft[] = {DL_TYPE_LONG, DL_TYPE_INTEGER, DL_TYPE_INTEGER, DL_TYPE_INTEGER,
	                                DL_TYPE_DOUBLE, DL_TYPE_DATE, DL_TYPE_STRING};
	static const char *const dn[] = {"k", "region", "name"};
	static const dl_type_id dt[] = {DL_TYPE_INTEGER, DL_TYPE_INTEGER, DL_TYPE_STRING};
	write_table(fact, fn, ft, 7, rows, false, (rows + 19) / 20);
	write_table(dim, dn, dt, 3, 100000, true, 0);
	FILE *f = fopen(marker, "w");
	if (!f) die("marker");
	fclose(f);
}

/* ---- our side ---------------------------------------------------------- */

/* The query with fact/dim replaced by delta.`dir/fact` etc. (whole words). */
static char *ours(const char *sql, const char *dir)
{
	size_t cap = strlen(sql) * 4 + 4096, n = 0;
	char *out = malloc(cap);
	for (const char *p = sql; *p;) {
		bool word_start = p == sql || !(p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z'));
		const char *name = NULL;
		if (word_start && strncmp(p, "fact", 4) == 0) name = "fact";
		if (word_start && strncmp(p, "dim", 3) == 0) name = "dim";
		size_t l = name ? strlen(name) : 0;
		if (name && !(p[l] == '_' || (p[l] >= 'a' && p[l] <= 'z')) && p[l] != '.') {
			n += (size_t)snprintf(out + n, cap - n, "delta.`%s/%s` AS %s", dir, name, name);
			p += l;
		} else if (name && p[l] == '.') { /* fact.x: the alias */
			memcpy(out + n, p, l);
			n += l;
			p += l;
		} else
			out[n++] = *p++;
	}
	out[n] = 0;
	return out;
}

/* Runs sql, returns the first row's cells as text ("a|b|c"). */
static void run_ours(dl_sql_conn *c, const char *sql, char *first, size_t cap)
{
	struct ArrowArrayStream st;
	if (dl_sql_execute(&st, c, sql) < 0) die(sql);
	struct ArrowSchema schema;
	if (st.get_schema(&st, &schema) != 0) die("schema");
	dl_arrow_formatter *f;
	if (dl_arrow_formatter_new(&f, &schema) < 0) die("formatter");
	first[0] = 0;
	bool got = false;
	for (;;) {
		struct ArrowArray b;
		if (st.get_next(&st, &b) != 0) {
			fprintf(stderr, "bench_sql: %s\n", st.get_last_error(&st));
			exit(1);
		}
		if (!b.release) break;
		int64_t rows;
		if (dl_arrow_formatter_set_batch(&rows, f, &b) < 0) die("format");
		if (!got && rows > 0) {
			size_t n = 0;
			for (int col = 0; col < (int)schema.n_children; col++) {
				const char *t;
				size_t len;
				if (dl_arrow_formatter_cell(&t, &len, f, col, 0, DL_FORMAT_TEXT) < 0) die("cell");
				if (!t) t = "NULL", len = 4;
				n += (size_t)snprintf(first + n, cap - n, "%s%.*s", col ? "|" : "", (int)len, t);
				if (n >= cap) n = cap - 1;
			}
			got = true;
		}
	}
	dl_arrow_formatter_free(f);
	schema.release(&schema);
	st.release(&st);
}

/* Two first rows agree: the same cells, numbers within 1e-6 relative. */
static bool same_row(const char *a, const char *b)
{
	while (*a || *b) {
		char *ea, *eb;
		double x = strtod(a, &ea), y = strtod(b, &eb);
		if (ea != a && eb != b) {
			if (fabs(x - y) > 1e-6 * fmax(1, fmax(fabs(x), fabs(y)))) return false;
			a = ea;
			b = eb;
		} else {
			if (*a != *b) return false;
			a++;
			b++;
		}
	}
	return true;
}

typedef struct figures {
	double wall, cpu;
	char row[512];
} figures;

static void child(const char *dir, int runs, int threads, const char *only)
{
	dl_sql_conn *c;
	if (dl_sql_open(&c, NULL) < 0) die("dl_sql_open");
	for (int q = 0; q < NQ; q++) {
		if (only && strcmp(only, QUERIES[q].name) != 0) continue;
		char *sql = ours(QUERIES[q].sql, dir);
		figures f = {INFINITY, INFINITY, ""};
		for (int r = 0; r < runs + 1; r++) { /* one warm-up */
			double w0 = now_ms(), c0 = cpu_ms();
			run_ours(c, sql, f.row, sizeof f.row);
			double w = now_ms() - w0, cu = cpu_ms() - c0;
			if (r == 0 && runs > 0) continue;
			if (w < f.wall) f.wall = w;
			if (cu < f.cpu) f.cpu = cu;
		}
		printf("%s threads=%d ms=%.2f cpu=%.2f result=%s\n", QUERIES[q].name, threads, f.wall, f.cpu, f.row);
		fflush(stdout);
		free(sql);
	}
	dl_sql_close(c);
}

/* Runs `argv` with DL_THREADS=threads; its stdout into buf. */
static void run_capture(char *buf, size_t cap, char *const argv[], int threads)
{
	int fd[2];
	if (pipe(fd) != 0) die("pipe");
	pid_t pid = fork();
	if (pid == 0) {
		char t[16];
		snprintf(t, sizeof t, "%d", threads);
		setenv("DL_THREADS", t, 1);
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	size_t n = 0;
	ssize_t r;
	while ((r = read(fd[0], buf + n, cap - 1 - n)) > 0) n += (size_t)r;
	buf[n] = 0;
	close(fd[0]);
	int status;
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "bench_sql: %s failed\n", argv[0]);
		exit(1);
	}
}

static bool parse_line(figures *f, const char *out, const char *name, int threads)
{
	char key[96];
	snprintf(key, sizeof key, "%s threads=%d ", name, threads);
	const char *p = strstr(out, key);
	if (!p) return false;
	p += strlen(key);
	if (sscanf(p, "ms=%lf cpu=%lf", &f->wall, &f->cpu) != 2) return false;
	const char *r = strstr(p, "result=");
	if (!r) return false;
	r += 7;
	size_t n = strcspn(r, "\n");
	if (n >= sizeof f->row) n = sizeof f->row - 1;
	memcpy(f->row, r, n);
	f->row[n] = 0;
	return true;
}

int main(int argc, char **argv)
{
	int64_t rows = 10000000;
	int runs = 3, threads = 0;
	bool duck = true;
	const char *dir = NULL, *only = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rows") && i + 1 < argc) rows = atoll(argv[++i]);
		else if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--dir") && i + 1 < argc) dir = argv[++i];
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--query") && i + 1 < argc) only = argv[++i];
		else if (!strcmp(argv[i], "--no-duckdb")) duck = false;
		else {
			fprintf(stderr, "usage: bench_sql [--rows N] [--runs N] [--dir D] [--threads T] [--query NAME] [--no-duckdb]\n");
			return 2;
		}
	}
	char dbuf[1024];
	if (!dir) {
		const char *b = getenv("DL_BINARY_DIR");
		if (rows == 10000000) snprintf(dbuf, sizeof dbuf, "%s/bench-cache/sql", b ? b : ".");
		else snprintf(dbuf, sizeof dbuf, "%s/bench-cache/sql-%lld", b ? b : ".", (long long)rows);
		dir = dbuf;
	}
	if (threads > 0) { /* the child: our side at DL_THREADS=threads */
		char t[16];
		snprintf(t, sizeof t, "%d", threads);
		setenv("DL_THREADS", t, 0);
		child(dir, runs, threads, only);
		return 0;
	}
	make_data(dir, rows);
	char rs[32], ns[32], ts[8];
	snprintf(rs, sizeof rs, "%lld", (long long)rows);
	snprintf(ns, sizeof ns, "%d", runs);
	static char out_ours[2][65536], out_duck[2][65536];
	for (int t = 1; t <= 2; t++) {
		snprintf(ts, sizeof ts, "%d", t);
		char *a[] = {argv[0], "--dir", (char *)dir, "--runs", ns, "--threads", ts, NULL};
		run_capture(out_ours[t - 1], sizeof out_ours[0], a, t);
		if (duck) {
			const char *src = getenv("DL_SOURCE_DIR");
			char script[1100];
			snprintf(script, sizeof script, "%s/bench/bench_sql_duckdb.mjs", src ? src : ".");
			char *d[] = {"node", script, (char *)dir, ns, ts, NULL};
			run_capture(out_duck[t - 1], sizeof out_duck[0], d, t);
		}
	}
	printf("bench_sql: %lld-row fact (20 files), 100k-row dim; best of %d; ratio = DuckDB / ours (>1: we are faster)\n",
	       (long long)rows, runs);
	printf("%-15s %7s %10s %10s %10s %10s %8s %8s\n", "query", "threads", "ours ms", "ours cpu", "duck ms", "duck cpu",
	       "wall x", "cpu x");
	int bad = 0;
	for (int t = 1; t <= 2; t++) {
		double lw = 0, lc = 0;
		int n = 0;
		for (int q = 0; q < NQ; q++) {
			figures o, d;
			if (!parse_line(&o, out_ours[t - 1], QUERIES[q].name, t)) die("our output");
			if (!duck) {
				printf("%-15s %7d %10.1f %10.1f\n", QUERIES[q].name, t, o.wall, o.cpu);
				continue;
			}
			if (!parse_line(&d, out_duck[t - 1], QUERIES[q].name, t)) die("DuckDB output");
			bool ok = same_row(o.row, d.row);
			if (!ok) {
				bad++;
				fprintf(stderr, "bench_sql: %s: ours %s, DuckDB %s\n", QUERIES[q].name, o.row, d.row);
			}
			double rw = d.wall / o.wall, rc = d.cpu / o.cpu;
			lw += log(rw);
			lc += log(rc);
			n++;
			printf("%-15s %7d %10.1f %10.1f %10.1f %10.1f %8.2f %8.2f%s\n", QUERIES[q].name, t, o.wall, o.cpu,
			       d.wall, d.cpu, rw, rc, ok ? "" : "  RESULT DIFFERS");
		}
		if (n) printf("%-15s %7d %54s %8.2f %8.2f\n", "geomean", t, "", exp(lw / n), exp(lc / n));
	}
	return bad ? 1 : 0;
}
