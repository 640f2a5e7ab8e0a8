/* delta.autoOptimize.*: optimized writes (files roll at the bin size, one
 * file per partition for a write of many batches) and auto compaction
 * after dl_write's commit (an OPTIMIZE with auto=true once a partition has
 * 50 small files; the rows unchanged; a failing compaction never fails the
 * write that triggered it). DELETE / UPDATE / MERGE's hook is exercised by
 * tests/integration/clustering_sql.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "deltalake/history.h"
#include "deltalake/write.h"
#include "ops_fixture.h"

static char *table(const char *name)
{
	return fx_table(g_dir, name);
}

static void create(const char *uri, const char *ddl, const char *part, const char *k, const char *v)
{
	dl_create_options c = DL_CREATE_OPTIONS_INIT;
	c.schema_ddl = ddl;
	const char *parts[] = {part};
	if (part) {
		c.partition_columns = parts;
		c.npartition_columns = 1;
	}
	const char *keys[] = {k}, *vals[] = {v};
	if (k) {
		c.property_keys = keys;
		c.property_values = vals;
		c.nproperties = 1;
	}
	int64_t ver;
	if (dl_create_table(&ver, uri, &c) < 0) fail_msg("create: %s", dl_error_last()->message);
}

#define DDL "id BIGINT, p STRING, pad STRING"
#define NBATCH 40

/* One write of NBATCH batches, each with rows of both partitions. */
static void write_batches(const char *uri, const dl_write_options *o)
{
	dl_batch *bs[NBATCH];
	for (int i = 0; i < NBATCH; i++) {
		dl_buf rows = DL_BUF_INIT;
		for (int r = 0; r < 200; r++) {
			long long id = (long long)i * 200 + r;
			unsigned long long h = (unsigned long long)id * 0x9E3779B97F4A7C15ull;
			dl_buf_printf(&rows, "%s%lld,%s,pad-%016llx%016llx%016llx", r ? ";" : "", id, r % 2 ? "a" : "b", h,
			              h * 31, h ^ 0xabcdefull);
		}
		bs[i] = fx_batch(DDL, (const char *)rows.data);
		assert_non_null(bs[i]);
		dl_buf_free(&rows);
	}
	dl_type *t = dl_type_ref(bs[0]->schema);
	dl_batch_stream *s;
	assert_int_equal(dl_batch_stream_from_batches(&s, t, bs, NBATCH), 0);
	dl_type_unref(t);
	int64_t v;
	int rc = dl_ops_write(&v, uri, s, o, NULL, NULL);
	dl_batch_stream_free(s);
	if (rc < 0) fail_msg("write: %s", dl_error_last()->message);
}

/* Files the latest commit added in partition p=<val>. */
static int added_in(const char *uri, const char *val)
{
	char *log = fx_commit(uri, fx_version(uri));
	assert_non_null(log);
	char needle[64];
	snprintf(needle, sizeof needle, "\"partitionValues\":{\"p\":\"%s\"}", val);
	int n = 0;
	for (const char *s = log; (s = strstr(s, needle)); s++) n++;
	dl_free(log);
	return n;
}

static void test_optimize_write(void **state)
{
	(void)state;
	char *plain = table("ow_plain"), *opt = table("ow_on");
	create(plain, DDL, "p", NULL, NULL);
	create(opt, DDL, "p", "delta.autoOptimize.optimizeWrite", "true");
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	o.target_file_size = 8192;
	/* without: the files of each partition roll at the target size */
	write_batches(plain, &o);
	assert_true(added_in(plain, "a") > 1);
	assert_true(added_in(plain, "b") > 1);
	/* with: the bin size (512 MiB) holds the whole write, one file per
	 * partition */
	write_batches(opt, &o);
	assert_int_equal(added_in(opt, "a"), 1);
	assert_int_equal(added_in(opt, "b"), 1);
	char *want = fx_read(plain, -1, NULL), *got = fx_read(opt, -1, NULL);
	assert_string_equal(got, want);
	dl_free(want);
	dl_free(got);
	/* the session's switch wins over the table's property */
	o.optimize_write = 0;
	write_batches(opt, &o);
	assert_true(added_in(opt, "a") > 1);
	/* and a small bin size rolls files again */
	o.optimize_write = 1;
	o.optimize_write_bin_size = 8192;
	write_batches(plain, &o);
	assert_true(added_in(plain, "a") > 1);
	o.optimize_write_bin_size = 0;
	write_batches(plain, &o);
	assert_int_equal(added_in(plain, "a"), 1);
	dl_free(plain);
	dl_free(opt);
}

static void append_one(const char *uri, int i, int auto_compact, int64_t *version)
{
	char row[64];
	snprintf(row, sizeof row, "%d,x", i);
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	o.auto_compact = auto_compact;
	if (fx_write(version, uri, "id INT, s STRING", row, &o) < 0)
		fail_msg("append %d: %s", i, dl_error_last()->message);
}

static const dl_history_entry *latest(dl_history **h, dl_snapshot **s, const char *uri)
{
	assert_int_equal(dl_snapshot_open(s, uri, NULL), 0);
	assert_int_equal(dl_history_open(h, *s, 1), 0);
	assert_int_equal(dl_history_count(*h), 1);
	return dl_history_at(*h, 0);
}

static void test_auto_compact(void **state)
{
	(void)state;
	char *uri = table("ac");
	create(uri, "id INT, s STRING", NULL, "delta.autoOptimize.autoCompact", "true");
	int64_t v;
	/* 49 small files: below minNumFiles (50), nothing compacts */
	for (int i = 1; i <= 49; i++) {
		append_one(uri, i, -1, &v);
		assert_int_equal(v, i);
	}
	assert_int_equal(fx_version(uri), 49);
	/* the 50th: the write's commit, then the OPTIMIZE */
	append_one(uri, 50, -1, &v);
	assert_int_equal(v, 50);
	assert_int_equal(fx_version(uri), 51);
	dl_history *h;
	dl_snapshot *s;
	const dl_history_entry *e = latest(&h, &s, uri);
	assert_string_equal(e->operation, "OPTIMIZE");
	assert_non_null(strstr(e->operation_parameters, "\"auto\":true"));
	assert_non_null(strstr(e->operation_metrics, "\"numRemovedFiles\":\"50\""));
	assert_int_equal(dl_snapshot_file_count(s), 1);
	dl_history_free(h);
	dl_snapshot_free(s);
	/* rows identical to those of the write's version */
	char *before = fx_read(uri, 50, NULL), *after = fx_read(uri, -1, NULL);
	assert_non_null(strstr(before, ";50,x;"));
	assert_string_equal(after, before);
	dl_free(before);
	dl_free(after);
	dl_free(uri);
}

static void test_auto_compact_off_and_failures(void **state)
{
	(void)state;
	char *uri = table("ac_off");
	create(uri, "id INT, s STRING", NULL, NULL, NULL);
	int64_t v;
	for (int i = 1; i <= 50; i++) append_one(uri, i, -1, &v);
	assert_int_equal(fx_version(uri), 50); /* the table does not ask for it */
	/* the session's switch turns it on */
	append_one(uri, 51, 1, &v);
	assert_int_equal(v, 51);
	assert_int_equal(fx_version(uri), 52);
	/* a compaction that fails (a data file gone from storage) commits
	 * nothing and the write still succeeds */
	char *u2 = table("ac_fail");
	create(u2, "id INT, s STRING", NULL, "delta.autoOptimize.autoCompact", "true");
	for (int i = 1; i <= 49; i++) append_one(u2, i, 0, &v);
	char *log = fx_commit(u2, 1);
	char *p = strstr(log, "\"path\":\"");
	assert_non_null(p);
	p += 8;
	*strchr(p, '"') = 0;
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", u2, p);
	assert_int_equal(unlink(path), 0);
	dl_free(log);
	dl_error_clear();
	append_one(u2, 50, -1, &v);
	assert_int_equal(v, 50);
	assert_int_equal(fx_version(u2), 50);
	assert_int_equal(dl_error_last()->code, 0);
	dl_free(u2);
	dl_free(uri);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_optimize_write),
		cmocka_unit_test(test_auto_compact),
		cmocka_unit_test(test_auto_compact_off_and_failures),
	};
	return cmocka_run_group_tests(tests, fx_setup_tmpdir, fx_teardown_tmpdir);
}
