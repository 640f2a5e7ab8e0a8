/* Spilling: hash aggregate, hash join and sort forced to spill by a tiny
 * memory limit give exactly the rows they give without a limit; the spill
 * files exist while the operator runs (open, already unlinked) and are gone
 * after it, also after an error or an early free; the budget is back to 0
 * and its peak stayed near the limit; an interrupt cancels. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>
#include <cmocka.h>
#include "exec/spill.h"
#include "exec_test_util.h"

static char tmpdir[256];

static int setup(void **st)
{
	(void)st;
	snprintf(tmpdir, sizeof tmpdir, "/tmp/dl_test_spill_XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **st)
{
	(void)st;
	return rmdir(tmpdir); /* fails (and so the group) if a file was left */
}

/* Spill files this process has open under tmpdir (they show as deleted). */
static int open_spill_files(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	struct dirent *e;
	char p[300], target[512];
	while (d && (e = readdir(d))) {
		snprintf(p, sizeof p, "/proc/self/fd/%s", e->d_name);
		ssize_t k = readlink(p, target, sizeof target - 1);
		if (k <= 0) continue;
		target[k] = 0;
		if (!strncmp(target, tmpdir, strlen(tmpdir)) && strstr(target, "dl-spill-")) n++;
	}
	if (d) closedir(d);
	return n;
}

static int dir_entries(void)
{
	DIR *d = opendir(tmpdir);
	int n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
	if (d) closedir(d);
	return n;
}

/* rows of "k int, s string, v long, d double, m decimal(10,2)" */
#define SPEC "k int, s string, v long, d double, m decimal(10,2)"
static char **make_rows(int n, int groups)
{
	char **r = malloc(sizeof *r * (size_t)n);
	for (int i = 0; i < n; i++) {
		char buf[128], k[16], v[24];
		int g = (int)(((unsigned)i * 2654435761u) % (unsigned)groups);
		if (i % 97 == 5) snprintf(k, sizeof k, "NULL");
		else snprintf(k, sizeof k, "%d", g);
		if (i % 13 == 0) snprintf(v, sizeof v, "NULL");
		else snprintf(v, sizeof v, "%d", (i * 31) % 1000 - 300);
		snprintf(buf, sizeof buf, "%s|str%d|%s|%d.25|%d.%02d", k, g % 500, v, i % 77, i % 1000, i % 100);
		r[i] = strdup(buf);
	}
	return r;
}

static void free_rows(char **r, int n)
{
	for (int i = 0; i < n; i++) free(r[i]);
	free(r);
}

static dl_exec_ctx spill_ctx(dl_exec_memory *mem)
{
	dl_exec_ctx ctx = DL_EXEC_CTX_INIT;
	ctx.mem = mem;
	ctx.temp_dir = tmpdir;
	return ctx;
}

/* Collects a stream's rows sorted; checks spill files existed mid-way when
 * `expect_spill`. */
static int collect_sorted(dl_batch_stream *s, char ***out, bool expect_spill, bool sort)
{
	char **lines = NULL;
	int n = 0, cap = 0, rc = 0;
	bool saw = false;
	for (;;) {
		dl_batch *b;
		if ((rc = dl_batch_stream_next(s, &b)) < 0 || !b) break;
		if (open_spill_files() > 0) saw = true;
		for (int64_t r = 0; r < b->num_rows; r++) {
			dl_buf line = DL_BUF_INIT;
			for (int c = 0; c < b->ncols; c++) {
				if (c) dl_buf_putc(&line, '|');
				tu_cell(&line, b->cols[c], r);
			}
			if (n == cap) {
				cap = cap ? 2 * cap : 1024;
				lines = realloc(lines, (size_t)cap * sizeof *lines);
			}
			lines[n++] = line.data ? line.data : strdup("");
		}
		dl_batch_free(b);
	}
	dl_batch_stream_free(s);
	if (rc < 0) fail_msg("stream failed: %s", dl_error_last()->message);
	assert_int_equal(open_spill_files(), 0);
	assert_int_equal(dir_entries(), 0);
	if (expect_spill) assert_true(saw);
	if (sort && n > 1) qsort(lines, (size_t)n, sizeof *lines, tu_strcmp);
	*out = lines;
	return n;
}

static void assert_same(char **a, int na, char **b, int nb)
{
	assert_int_equal(na, nb);
	for (int i = 0; i < na; i++) {
		if (strcmp(a[i], b[i])) fail_msg("row %d differs: %s vs %s", i, a[i], b[i]);
	}
}

/* ---- hash aggregate -------------------------------------------------- */

#define A(k, x, nm) {.kind = (k), .arg = (x) ? tu_expr(x) : NULL, .name = (nm)}

static dl_batch_stream *agg(char **rows, int n, int per_batch, const char *key, const dl_exec_ctx *ctx,
                            bool distinct)
{
	dl_expr *keys[2] = {tu_expr(key), tu_expr("k % 3")};
	dl_exec_agg aggs[] = {
		A(DL_AGG_COUNT_STAR, NULL, "n"),   A(DL_AGG_COUNT, "v", "cv"),     A(DL_AGG_COUNT_DISTINCT, "v", "dv"),
		A(DL_AGG_SUM, "v", "sv"),          A(DL_AGG_AVG, "d", "ad"),       A(DL_AGG_MIN, "s", "mins"),
		A(DL_AGG_MAX, "v", "maxv"),        A(DL_AGG_FIRST, "v", "fv"),     A(DL_AGG_LAST, "s", "ls"),
		A(DL_AGG_VAR_SAMP, "d", "vs"),     A(DL_AGG_STDDEV_POP, "v", "sp"), A(DL_AGG_SUM, "m", "sm"),
		A(DL_AGG_AVG, "m", "am"),          A(DL_AGG_VAR_POP, "m", "vpm"),   A(DL_AGG_STDDEV_SAMP, "d", "ssd"),
	};
	aggs[7].ignore_nulls = false;
	if (!distinct) { /* count(*) instead of count(DISTINCT v) */
		dl_expr_free(aggs[2].arg);
		aggs[2].arg = NULL;
		aggs[2].kind = DL_AGG_COUNT_STAR;
	}
	const char *names[] = {"key", "k3"};
	dl_batch_stream *s;
	int rc = dl_exec_aggregate(&s, tu_stream(SPEC, (const char *const *)rows, n, per_batch), keys, names, 2, aggs,
	                           (int)(sizeof aggs / sizeof aggs[0]), ctx);
	if (rc < 0) fail_msg("aggregate: %s", dl_error_last()->message);
	return s;
}

static void aggregate_spills_all_kinds(void **st)
{
	(void)st;
	enum { N = 60000, G = 20000 };
	char **rows = make_rows(N, G);
	const char *keys[] = {"k", "s"};
	for (int t = 0; t < 2; t++) {
		char **want, **got;
		int nw = collect_sorted(agg(rows, N, 4096, keys[t], NULL, false), &want, false, true);
		dl_exec_memory mem = DL_EXEC_MEMORY_INIT(256 * 1024);
		dl_exec_ctx ctx = spill_ctx(&mem);
		int ng = collect_sorted(agg(rows, N, 4096, keys[t], &ctx, false), &got, t == 0, true);
		assert_same(want, nw, got, ng);
		assert_int_equal(atomic_load(&mem.used), 0);
		assert_true(atomic_load(&mem.peak) <= mem.limit);
		tu_free_lines(want, nw);
		tu_free_lines(got, ng);
	}
	free_rows(rows, N);
}

/* count(DISTINCT) spills the same way; its pairs of the groups held in
 * memory grow after spilling starts (the reserve of half the limit). */
static void aggregate_count_distinct_spills(void **st)
{
	(void)st;
	enum { N = 60000, G = 20000 };
	char **rows = make_rows(N, G);
	char **want, **got;
	int nw = collect_sorted(agg(rows, N, 4096, "k", NULL, true), &want, false, true);
	dl_exec_memory mem = DL_EXEC_MEMORY_INIT(2 << 20);
	dl_exec_ctx ctx = spill_ctx(&mem);
	int ng = collect_sorted(agg(rows, N, 4096, "k", &ctx, true), &got, true, true);
	assert_same(want, nw, got, ng);
	assert_int_equal(atomic_load(&mem.used), 0);
	assert_true(atomic_load(&mem.peak) <= mem.limit);
	tu_free_lines(want, nw);
	tu_free_lines(got, ng);
	free_rows(rows, N);
}

/* The kinds of agg_ext.h (lists, sets, sketches, DISTINCT filters) spill
 * alike: raw rows, no state serialized. */
static void aggregate_ext_kinds_spill(void **st)
{
	(void)st;
	enum { N = 40000, G = 12000 };
	char **rows = make_rows(N, G);
	char **want = NULL, **got = NULL;
	int nw = 0, ng = 0;
	for (int pass = 0; pass < 2; pass++) {
		dl_exec_memory mem = DL_EXEC_MEMORY_INIT(4 << 20);
		dl_exec_ctx ctx = spill_ctx(&mem);
		dl_expr *keys[] = {tu_expr("k")};
		dl_exec_agg aggs[] = {
		    {.kind = DL_AGG_COLLECT_LIST, .arg = tu_expr("v"), .name = "cl"},
		    {.kind = DL_AGG_COLLECT_SET, .arg = tu_expr("s"), .name = "cs"},
		    {.kind = DL_AGG_APPROX_COUNT_DISTINCT, .arg = tu_expr("v"), .name = "acd"},
		    {.kind = DL_AGG_PERCENTILE_APPROX, .arg = tu_expr("v"), .param = tu_expr("0.5"), .name = "p50"},
		    {.kind = DL_AGG_COUNT_IF, .arg = tu_expr("v > 0"), .name = "ci"},
		    {.kind = DL_AGG_BOOL_AND, .arg = tu_expr("v > 0"), .name = "ba"},
		    {.kind = DL_AGG_BOOL_OR, .arg = tu_expr("v > 100"), .name = "bo"},
		    {.kind = DL_AGG_SUM, .arg = tu_expr("v % 7"), .distinct = true, .name = "sd"},
		    {.kind = DL_AGG_FIRST, .arg = tu_expr("s"), .ignore_nulls = true, .name = "f"},
		};
		dl_batch_stream *s;
		int rc = dl_exec_aggregate(&s, tu_stream(SPEC, (const char *const *)rows, N, 4096), keys, NULL, 1, aggs,
		                           (int)(sizeof aggs / sizeof aggs[0]), pass ? &ctx : NULL);
		if (rc < 0) fail_msg("aggregate: %s", dl_error_last()->message);
		if (pass) ng = collect_sorted(s, &got, true, true);
		else nw = collect_sorted(s, &want, false, true);
		if (pass) {
			assert_int_equal(atomic_load(&mem.used), 0);
			assert_true(atomic_load(&mem.peak) <= mem.limit);
		}
	}
	assert_same(want, nw, got, ng);
	tu_free_lines(want, nw);
	tu_free_lines(got, ng);
	free_rows(rows, N);
}

/* A limit so small the partitions split again (several levels). */
static void aggregate_recursive_partitions(void **st)
{
	(void)st;
	enum { N = 40000, G = 40000 };
	char **rows = make_rows(N, G);
	char **want, **got;
	int nw = collect_sorted(agg(rows, N, 8192, "k", NULL, false), &want, false, true);
	dl_exec_memory mem = DL_EXEC_MEMORY_INIT(64 * 1024);
	dl_exec_ctx ctx = spill_ctx(&mem);
	ctx.batch_rows = 1000;
	int ng = collect_sorted(agg(rows, N, 8192, "k", &ctx, false), &got, true, true);
	assert_same(want, nw, got, ng);
	assert_int_equal(atomic_load(&mem.used), 0);
	tu_free_lines(want, nw);
	tu_free_lines(got, ng);
	free_rows(rows, N);
}

/* Freed half-way (spill files open): nothing stays behind. */
static void aggregate_early_free_and_interrupt(void **st)
{
	(void)st;
	enum { N = 40000, G = 40000 };
	char **rows = make_rows(N, G);
	dl_exec_memory mem = DL_EXEC_MEMORY_INIT(128 * 1024);
	dl_exec_ctx ctx = spill_ctx(&mem);
	ctx.batch_rows = 100;
	dl_batch_stream *s = agg(rows, N, 4096, "k", &ctx, false);
	dl_batch *b;
	assert_int_equal(dl_batch_stream_next(s, &b), 0);
	assert_non_null(b);
	dl_batch_free(b);
	assert_true(open_spill_files() > 0);
	assert_int_equal(dir_entries(), 0);
	dl_batch_stream_free(s);
	assert_int_equal(open_spill_files(), 0);
	assert_int_equal(atomic_load(&mem.used), 0);

	_Atomic bool stop = false;
	ctx.interrupt = &stop;
	s = agg(rows, N, 4096, "k", &ctx, false);
	assert_int_equal(dl_batch_stream_next(s, &b), 0);
	dl_batch_free(b);
	atomic_store(&stop, true);
	int rc = 0;
	for (int i = 0; i < 1000 && rc == 0; i++) {
		rc = dl_batch_stream_next(s, &b);
		if (rc == 0 && !b) break;
		dl_batch_free(b);
	}
	assert_int_equal(rc, DL_ECANCELLED);
	dl_batch_stream_free(s);
	assert_int_equal(open_spill_files(), 0);
	assert_int_equal(atomic_load(&mem.used), 0);
	free_rows(rows, N);
}

/* ---- hash join -------------------------------------------------------- */

/* left "lk int, ls string, lv long", right "rk int, rs string, rv long":
 * keys with duplicates on both sides and NULLs in both key columns */
static char **join_rows(int n, int keys, int salt)
{
	char **r = malloc(sizeof *r * (size_t)n);
	for (int i = 0; i < n; i++) {
		char buf[96], k[16], sv[16];
		int g = (int)(((unsigned)(i + salt) * 2654435761u) % (unsigned)keys);
		if ((i + salt) % 41 == 3) snprintf(k, sizeof k, "NULL");
		else snprintf(k, sizeof k, "%d", g);
		if ((i + salt) % 53 == 7) snprintf(sv, sizeof sv, "NULL");
		else snprintf(sv, sizeof sv, "t%d", g % 7);
		snprintf(buf, sizeof buf, "%s|%s|%d", k, sv, i);
		r[i] = strdup(buf);
	}
	return r;
}

static dl_batch_stream *join2(char **l, int nl, char **r, int nr, dl_join_kind kind, const bool *ns,
                              const char *residual, const dl_exec_ctx *ctx)
{
	dl_expr **lk = malloc(2 * sizeof *lk), **rk = malloc(2 * sizeof *rk);
	lk[0] = tu_expr("lk");
	lk[1] = tu_expr("ls");
	rk[0] = tu_expr("rk");
	rk[1] = tu_expr("rs");
	dl_exec_join spec = {kind, 2, lk, rk, ns, residual ? tu_expr(residual) : NULL};
	dl_batch_stream *s;
	int rc = dl_exec_hash_join(&s, tu_stream("lk int, ls string, lv long", (const char *const *)l, nl, 1000),
	                           tu_stream("rk int, rs string, rv long", (const char *const *)r, nr, 1000), &spec, ctx);
	free(lk);
	free(rk);
	if (rc < 0) fail_msg("join: %s", dl_error_last()->message);
	return s;
}

static void join_spills_every_kind(void **st)
{
	(void)st;
	enum { NL = 6000, NR = 8000 };
	char **l = join_rows(NL, 3000, 0), **r = join_rows(NR, 4000, 11);
	static const bool nsv[][2] = {{false, false}, {true, false}, {true, true}};
	const dl_join_kind kinds[] = {DL_JOIN_INNER, DL_JOIN_LEFT, DL_JOIN_RIGHT, DL_JOIN_FULL, DL_JOIN_SEMI, DL_JOIN_ANTI};
	for (int ni = 0; ni < 3; ni++)
		for (size_t ki = 0; ki < sizeof kinds / sizeof kinds[0]; ki++)
			for (int res = 0; res < 2; res++) {
				const char *resid = res ? "lv % 3 <> rv % 4" : NULL;
				char **want, **got;
				int nw = collect_sorted(join2(l, NL, r, NR, kinds[ki], nsv[ni], resid, NULL), &want, false, true);
				dl_exec_memory mem = DL_EXEC_MEMORY_INIT(64 * 1024);
				dl_exec_ctx ctx = spill_ctx(&mem);
				ctx.batch_rows = 1000;
				int ng = collect_sorted(join2(l, NL, r, NR, kinds[ki], nsv[ni], resid, &ctx), &got, false, true);
				if (nw != ng) fail_msg("kind %d null-safe %d residual %d: %d rows, want %d", (int)kinds[ki], ni, res, ng, nw);
				assert_same(want, nw, got, ng);
				assert_true(nw > 0);
				assert_int_equal(atomic_load(&mem.used), 0);
				assert_true(atomic_load(&mem.peak) <= mem.limit);
				tu_free_lines(want, nw);
				tu_free_lines(got, ng);
			}
	/* spill files exist while the partitions are joined */
	dl_exec_memory mem = DL_EXEC_MEMORY_INIT(64 * 1024);
	dl_exec_ctx ctx = spill_ctx(&mem);
	char **got;
	int ng = collect_sorted(join2(l, NL, r, NR, DL_JOIN_FULL, nsv[0], NULL, &ctx), &got, true, true);
	tu_free_lines(got, ng);
	/* an early free after the first batch leaves nothing */
	dl_batch_stream *s = join2(l, NL, r, NR, DL_JOIN_INNER, nsv[0], NULL, &ctx);
	dl_batch *b;
	assert_int_equal(dl_batch_stream_next(s, &b), 0);
	dl_batch_free(b);
	dl_batch_stream_free(s);
	assert_int_equal(open_spill_files(), 0);
	assert_int_equal(atomic_load(&mem.used), 0);
	free_rows(l, NL);
	free_rows(r, NR);
}

/* One key's rows alone exceed the limit: partitioning cannot split them;
 * the join gives up with DL_ENOMEM and leaves nothing behind. */
static void join_skewed_key_fails_cleanly(void **st)
{
	(void)st;
	enum { N = 5000 };
	char **r = malloc(sizeof *r * N), **l = malloc(sizeof *l * N);
	for (int i = 0; i < N; i++) {
		char buf[64];
		snprintf(buf, sizeof buf, "1|same|%d", i);
		r[i] = strdup(buf);
		l[i] = strdup(buf);
	}
	dl_exec_memory mem = DL_EXEC_MEMORY_INIT(16 * 1024);
	dl_exec_ctx ctx = spill_ctx(&mem);
	static const bool ns[2] = {false, false};
	char **got;
	dl_batch_stream *s = join2(l, 10, r, N, DL_JOIN_INNER, ns, NULL, &ctx);
	assert_int_equal(tu_collect(s, &got), DL_ENOMEM);
	assert_non_null(strstr(dl_error_last()->message, "memory limit"));
	assert_int_equal(open_spill_files(), 0);
	assert_int_equal(dir_entries(), 0);
	assert_int_equal(atomic_load(&mem.used), 0);
	free_rows(l, N);
	free_rows(r, N);
}

/* ---- sort ------------------------------------------------------------ */

static dl_batch_stream *sort2(char **rows, int n, bool desc, dl_nulls_order nulls, int64_t limit, int64_t offset,
                              const dl_exec_ctx *ctx)
{
	/* few distinct keys: ties everywhere, so stability shows in v */
	dl_exec_sort_key keys[] = {{tu_expr("k % 50"), desc, nulls}, {tu_expr("s"), !desc, DL_NULLS_DEFAULT}};
	dl_batch_stream *st;
	int rc = dl_exec_sort(&st, tu_stream(SPEC, (const char *const *)rows, n, 1000), keys, 2, limit, offset, ctx);
	if (rc < 0) fail_msg("sort: %s", dl_error_last()->message);
	return st;
}

static void sort_spills_stable_nulls(void **st)
{
	(void)st;
	enum { N = 30000 };
	char **rows = make_rows(N, 5000);
	const dl_nulls_order no[] = {DL_NULLS_DEFAULT, DL_NULLS_FIRST, DL_NULLS_LAST};
	for (int d = 0; d < 2; d++)
		for (int o = 0; o < 3; o++) {
			char **want, **got;
			int nw = collect_sorted(sort2(rows, N, d, no[o], -1, 0, NULL), &want, false, false);
			dl_exec_memory mem = DL_EXEC_MEMORY_INIT(128 * 1024);
			dl_exec_ctx ctx = spill_ctx(&mem);
			ctx.batch_rows = 4096; /* several output batches: the runs are open between them */
			int ng = collect_sorted(sort2(rows, N, d, no[o], -1, 0, &ctx), &got, true, false);
			assert_same(want, nw, got, ng);
			assert_int_equal(atomic_load(&mem.used), 0);
			/* the limit plus about one batch */
			assert_true(atomic_load(&mem.peak) <= mem.limit + 64 * 1024);
			tu_free_lines(want, nw);
			tu_free_lines(got, ng);
		}
	/* OFFSET without LIMIT through the merge; many runs (multi-pass) */
	char **want, **got;
	int nw = collect_sorted(sort2(rows, N, false, DL_NULLS_LAST, -1, 777, NULL), &want, false, false);
	dl_exec_memory mem = DL_EXEC_MEMORY_INIT(32 * 1024);
	dl_exec_ctx ctx = spill_ctx(&mem);
	ctx.batch_rows = 500;
	int ng = collect_sorted(sort2(rows, N, false, DL_NULLS_LAST, -1, 777, &ctx), &got, true, false);
	assert_int_equal(nw, N - 777);
	assert_same(want, nw, got, ng);
	tu_free_lines(want, nw);
	tu_free_lines(got, ng);
	/* top-N needs no disk, even under a tiny limit */
	nw = collect_sorted(sort2(rows, N, true, DL_NULLS_FIRST, 10, 5, NULL), &want, false, false);
	dl_exec_memory mem2 = DL_EXEC_MEMORY_INIT(1 << 20);
	ctx.mem = &mem2;
	ng = collect_sorted(sort2(rows, N, true, DL_NULLS_FIRST, 10, 5, &ctx), &got, false, false);
	assert_int_equal(nw, 10);
	assert_same(want, nw, got, ng);
	tu_free_lines(want, nw);
	tu_free_lines(got, ng);
	/* freed in the middle of the merge, and interrupted */
	dl_exec_memory mem3 = DL_EXEC_MEMORY_INIT(64 * 1024);
	ctx.mem = &mem3;
	dl_batch_stream *s = sort2(rows, N, false, DL_NULLS_DEFAULT, -1, 0, &ctx);
	dl_batch *b;
	assert_int_equal(dl_batch_stream_next(s, &b), 0);
	dl_batch_free(b);
	assert_true(open_spill_files() > 0);
	dl_batch_stream_free(s);
	assert_int_equal(open_spill_files(), 0);
	assert_int_equal(atomic_load(&mem3.used), 0);
	_Atomic bool stop = true;
	ctx.interrupt = &stop;
	s = sort2(rows, N, false, DL_NULLS_DEFAULT, -1, 0, &ctx);
	assert_int_equal(dl_batch_stream_next(s, &b), DL_ECANCELLED);
	dl_batch_stream_free(s);
	assert_int_equal(open_spill_files(), 0);
	assert_int_equal(atomic_load(&mem3.used), 0);
	free_rows(rows, N);
}

/* ---- distinct, union ------------------------------------------------ */

static void distinct_and_union_spill(void **st)
{
	(void)st;
	enum { N = 30000 };
	char **rows = make_rows(N, 8000);
	for (int t = 0; t < 2; t++) {
		char **want, **got;
		int nw = 0, ng = 0;
		for (int pass = 0; pass < 2; pass++) {
			dl_exec_memory mem = DL_EXEC_MEMORY_INIT(64 * 1024);
			dl_exec_ctx ctx = spill_ctx(&mem);
			ctx.batch_rows = 1000;
			const dl_exec_ctx *c = pass ? &ctx : NULL;
			dl_expr *ex[] = {tu_expr("k"), tu_expr("s")};
			const char *nm[] = {"k", "s"};
			dl_batch_stream *p, *s;
			assert_int_equal(dl_exec_project(&p, tu_stream(SPEC, (const char *const *)rows, N, 1000), ex, nm, 2, NULL), 0);
			if (t == 0) {
				assert_int_equal(dl_exec_distinct(&s, p, c), 0);
			} else {
				dl_expr *ex2[] = {tu_expr("k + 1"), tu_expr("s")};
				dl_batch_stream *p2;
				assert_int_equal(
				    dl_exec_project(&p2, tu_stream(SPEC, (const char *const *)rows, N, 1000), ex2, nm, 2, NULL), 0);
				assert_int_equal(dl_exec_setop(&s, p, p2, DL_SETOP_UNION, false, c), 0);
			}
			if (pass) ng = collect_sorted(s, &got, true, true);
			else nw = collect_sorted(s, &want, false, true);
			if (pass) {
				assert_int_equal(atomic_load(&mem.used), 0);
				assert_true(atomic_load(&mem.peak) <= mem.limit);
			}
		}
		assert_same(want, nw, got, ng);
		for (int i = 1; i < ng; i++) assert_true(strcmp(got[i - 1], got[i]) != 0); /* distinct */
		tu_free_lines(want, nw);
		tu_free_lines(got, ng);
	}
	free_rows(rows, N);
}

static dl_batch_stream *proj2(char **rows, int n, const char *e1, const char *e2)
{
	dl_expr *ex[] = {tu_expr(e1), tu_expr(e2)};
	const char *nm[] = {"a", "b"};
	dl_batch_stream *p;
	assert_int_equal(dl_exec_project(&p, tu_stream(SPEC, (const char *const *)rows, n, 1000), ex, nm, 2, NULL), 0);
	return p;
}

/* INTERSECT / EXCEPT [ALL] partition both sides (copies counted exactly) */
static void intersect_except_spill(void **st)
{
	(void)st;
	enum { N = 20000 };
	char **rows = make_rows(N, 6000);
	const dl_setop_kind kinds[] = {DL_SETOP_INTERSECT, DL_SETOP_EXCEPT};
	for (int ki = 0; ki < 2; ki++)
		for (int all = 0; all < 2; all++) {
			char **want = NULL, **got = NULL;
			int nw = 0, ng = 0;
			for (int pass = 0; pass < 2; pass++) {
				dl_exec_memory mem = DL_EXEC_MEMORY_INIT(64 * 1024);
				dl_exec_ctx ctx = spill_ctx(&mem);
				ctx.batch_rows = 1000;
				dl_batch_stream *s;
				/* a: (k % 3000, v % 5) with many copies; b: half of the values */
				assert_int_equal(dl_exec_setop(&s, proj2(rows, N, "k % 3000", "v % 5"),
				                               proj2(rows, N / 2, "k % 3000", "v % 5"), kinds[ki], all,
				                               pass ? &ctx : NULL),
				                 0);
				if (pass) ng = collect_sorted(s, &got, true, true);
				else nw = collect_sorted(s, &want, false, true);
				if (pass) assert_int_equal(atomic_load(&mem.used), 0);
			}
			assert_true(nw > 0);
			assert_same(want, nw, got, ng);
			tu_free_lines(want, nw);
			tu_free_lines(got, ng);
		}
	free_rows(rows, N);
}

/* ---- spill files ----------------------------------------------------- */

static void spill_file_round_trip(void **st)
{
	(void)st;
	static const char *const r[] = {"1|a|NULL|1.5|3.25", "NULL|NULL|7|NULL|NULL", "3||-2|0|-0.01"};
	dl_batch_stream *in = tu_stream(SPEC, r, 3, 3);
	dl_batch *b;
	assert_int_equal(dl_batch_stream_next(in, &b), 0);
	dl_exec_ctx ctx = spill_ctx(NULL);
	dl_spill_file *f;
	assert_int_equal(dl_spill_open(&f, &ctx, b->schema, "test"), 0);
	assert_int_equal(dl_spill_write(f, b), 0);
	assert_int_equal(dl_spill_write(f, b), 0);
	assert_int_equal(dl_spill_rows(f), 6);
	dl_batch_free(b);
	dl_batch_stream_free(in);
	dl_batch_stream *s;
	assert_int_equal(dl_spill_stream(&s, f, &ctx), 0);
	tu_expect(s, true, "1|a|NULL|1.5|3.25", "NULL|NULL|7|NULL|NULL", "3||-2|0|-0.01", "1|a|NULL|1.5|3.25",
	          "NULL|NULL|7|NULL|NULL", "3||-2|0|-0.01");
	assert_int_equal(dir_entries(), 0);
	/* an unusable directory is a clear I/O error */
	ctx.temp_dir = "/nonexistent/dir";
	assert_int_equal(dl_spill_open(&f, &ctx, NULL, "test"), DL_EIO);
	assert_non_null(strstr(dl_error_last()->message, "/nonexistent/dir"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(spill_file_round_trip),
		cmocka_unit_test(aggregate_spills_all_kinds),
		cmocka_unit_test(aggregate_count_distinct_spills),
		cmocka_unit_test(aggregate_ext_kinds_spill),
		cmocka_unit_test(aggregate_recursive_partitions),
		cmocka_unit_test(aggregate_early_free_and_interrupt),
		cmocka_unit_test(join_spills_every_kind),
		cmocka_unit_test(join_skewed_key_fails_cleanly),
		cmocka_unit_test(sort_spills_stable_nulls),
		cmocka_unit_test(distinct_and_union_spill),
		cmocka_unit_test(intersect_except_spill),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
