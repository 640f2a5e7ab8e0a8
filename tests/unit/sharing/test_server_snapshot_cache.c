/* The server's snapshot cache (server_snapshot_cache.c) on a table whose
 * log is written by hand: a second request for the latest is the same
 * snapshot (no replay); a new commit, or the table deleted and written
 * again at the same version, gives a fresh replay with the new files (the
 * latter drops the table's older versions too); an
 * explicit version stays cached after the table moved on; the entry bound
 * evicts the least recently used; a snapshot larger than the byte bound is
 * not kept; one dropped while lent stays readable until released (ASan
 * sees the rest); a timestamp is never cached; with no cache every
 * request replays. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#include "deltalake/snapshot.h"
#include "sharing/server.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/time.h"

static char root[256];

static void write_commit(const char *dir, int64_t v, int nadds, const char *prefix)
{
	char path[512];
	snprintf(path, sizeof path, "%s/_delta_log/%020lld.json", dir, (long long)v);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	if (v == 0) {
		fprintf(f, "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n");
		fprintf(f, "{\"metaData\":{\"id\":\"t\",\"format\":{\"provider\":\"parquet\",\"options\":{}},"
		           "\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":"
		           "\\\"id\\\",\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\","
		           "\"partitionColumns\":[],\"configuration\":{},\"createdTime\":1}}\n");
	}
	for (int i = 0; i < nadds; i++)
		fprintf(f, "{\"add\":{\"path\":\"%s-%lld-%d.parquet\",\"partitionValues\":{},\"size\":10,"
		           "\"modificationTime\":1,\"dataChange\":true}}\n", prefix, (long long)v, i);
	fclose(f);
}

static void make_table(char *dir, size_t cap, const char *name)
{
	snprintf(dir, cap, "%s/%s", root, name);
	char log[512];
	snprintf(log, sizeof log, "%s/_delta_log", dir);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(mkdir(log, 0755), 0);
}

static void rm_rf(const char *dir)
{
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static dl_snapshot *open_v(dl_shr_server *srv, const dl_shr_table *t, int64_t v)
{
	dl_snapshot *s = NULL;
	int rc = dl_shr_open_snapshot(&s, srv, t, v, DL_NO_TIMESTAMP, false);
	if (rc != 0) fail_msg("open: %s", dl_error_last()->message);
	return s;
}

static void counts(dl_shr_server *srv, uint64_t *hits, uint64_t *misses)
{
	size_t bytes;
	dl_shr_snapshot_cache_stats(srv->snapshots, hits, misses, &bytes);
}

static void test_latest_and_versions(void **state)
{
	(void)state;
	char dir[300];
	make_table(dir, sizeof dir, "a");
	write_commit(dir, 0, 3, "x");
	dl_shr_server srv = {0};
	assert_int_equal(dl_shr_snapshot_cache_new(&srv.snapshots, 10, 1 << 30), 0);
	dl_shr_table t = {.name = "a", .location = dir};
	uint64_t h, m;

	dl_snapshot *s1 = open_v(&srv, &t, -1);
	dl_snapshot *s2 = open_v(&srv, &t, -1);
	assert_ptr_equal(s1, s2); /* lent twice, replayed once */
	counts(&srv, &h, &m);
	assert_int_equal(h, 1);
	assert_int_equal(m, 1);
	assert_int_equal(dl_snapshot_file_count(s1), 3);
	/* metadata only: the cached latest serves it */
	dl_snapshot *md = NULL;
	assert_int_equal(dl_shr_open_snapshot(&md, &srv, &t, -1, DL_NO_TIMESTAMP, true), 0);
	assert_ptr_equal(md, s1);
	dl_shr_release_snapshot(&srv, md);

	/* a new commit: the latest is replayed again, version 1 with 5 files */
	write_commit(dir, 1, 2, "y");
	dl_snapshot *s3 = open_v(&srv, &t, -1);
	assert_ptr_not_equal(s3, s1);
	assert_int_equal(dl_snapshot_version(s3), 1);
	assert_int_equal(dl_snapshot_file_count(s3), 5);
	/* version 0 is still cached (it was the latest; it is still right) */
	dl_snapshot *s4 = open_v(&srv, &t, 0);
	assert_ptr_equal(s4, s1);
	assert_int_equal(dl_snapshot_file_count(s4), 3);
	counts(&srv, &h, &m);
	assert_int_equal(m, 2);
	dl_shr_release_snapshot(&srv, s1);
	dl_shr_release_snapshot(&srv, s2);
	dl_shr_release_snapshot(&srv, s3);
	dl_shr_release_snapshot(&srv, s4);

	/* the table deleted and written again up to the same version: the
	 * commit's size changed, so the latest is replayed */
	rm_rf(dir);
	make_table(dir, sizeof dir, "a");
	write_commit(dir, 0, 1, "z");
	write_commit(dir, 1, 7, "zz");
	dl_snapshot *s5 = open_v(&srv, &t, -1);
	assert_int_equal(dl_snapshot_version(s5), 1);
	assert_int_equal(dl_snapshot_file_count(s5), 8);
	dl_shr_release_snapshot(&srv, s5);
	/* and the old version 0 went with it */
	dl_snapshot *s6 = open_v(&srv, &t, 0);
	assert_int_equal(dl_snapshot_file_count(s6), 1);
	dl_shr_release_snapshot(&srv, s6);

	/* a timestamp is resolved by a replay, never cached */
	dl_snapshot *ts = NULL;
	counts(&srv, &h, &m);
	int64_t now = dl_now_millis();
	for (int64_t v = 0; v < 2; v++) { /* committed 2 h and 1 h ago */
		char path[512];
		snprintf(path, sizeof path, "%s/_delta_log/%020lld.json", dir, (long long)v);
		struct timeval tv[2] = {{(now / 1000) - (2 - v) * 3600, 0}, {(now / 1000) - (2 - v) * 3600, 0}};
		assert_int_equal(utimes(path, tv), 0);
	}
	int rc = dl_shr_open_snapshot(&ts, &srv, &t, -1, now - 90 * 60 * 1000, false);
	if (rc != 0) fail_msg("as of a time: %s", dl_error_last()->message);
	assert_int_equal(dl_snapshot_version(ts), 0);
	assert_int_equal(dl_snapshot_file_count(ts), 1);
	dl_shr_release_snapshot(&srv, ts);
	uint64_t h2, m2;
	counts(&srv, &h2, &m2);
	assert_int_equal(h2, h);
	assert_int_equal(m2, m);
	dl_shr_snapshot_cache_free(srv.snapshots);
}

static void test_bounds(void **state)
{
	(void)state;
	char a[300], b[300];
	make_table(a, sizeof a, "ba");
	make_table(b, sizeof b, "bb");
	write_commit(a, 0, 2, "a");
	write_commit(b, 0, 2, "b");
	dl_shr_table ta = {.name = "ba", .location = a}, tb = {.name = "bb", .location = b};
	/* one entry: b evicts a */
	dl_shr_server srv = {0};
	assert_int_equal(dl_shr_snapshot_cache_new(&srv.snapshots, 1, 1 << 30), 0);
	dl_snapshot *sa = open_v(&srv, &ta, -1);
	dl_snapshot *sb = open_v(&srv, &tb, -1);
	/* a was dropped while lent: still readable */
	assert_int_equal(dl_snapshot_file_count(sa), 2);
	dl_shr_release_snapshot(&srv, sa); /* freed now */
	dl_snapshot *sb2 = open_v(&srv, &tb, -1);
	assert_ptr_equal(sb2, sb);
	dl_snapshot *sa2 = open_v(&srv, &ta, -1); /* a again: replayed, b out */
	uint64_t h, m;
	counts(&srv, &h, &m);
	assert_int_equal(h, 1);
	assert_int_equal(m, 3);
	dl_shr_release_snapshot(&srv, sb);
	dl_shr_release_snapshot(&srv, sb2);
	dl_shr_release_snapshot(&srv, sa2);
	dl_shr_snapshot_cache_free(srv.snapshots);

	/* a byte bound below one snapshot: nothing kept */
	assert_int_equal(dl_shr_snapshot_cache_new(&srv.snapshots, 10, 100), 0);
	sa = open_v(&srv, &ta, -1);
	sa2 = open_v(&srv, &ta, -1);
	assert_ptr_not_equal(sa, sa2);
	size_t bytes;
	dl_shr_snapshot_cache_stats(srv.snapshots, &h, &m, &bytes);
	assert_int_equal(bytes, 0);
	dl_shr_release_snapshot(&srv, sa);
	dl_shr_release_snapshot(&srv, sa2);
	dl_shr_snapshot_cache_free(srv.snapshots);

	/* no cache: each request replays */
	assert_int_equal(dl_shr_snapshot_cache_new(&srv.snapshots, 10, 0), 0);
	assert_null(srv.snapshots);
	sa = open_v(&srv, &ta, -1);
	sa2 = open_v(&srv, &ta, -1);
	assert_ptr_not_equal(sa, sa2);
	dl_shr_release_snapshot(&srv, sa);
	dl_shr_release_snapshot(&srv, sa2);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof root, "/tmp/dl_snapcache_XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(root);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_latest_and_versions),
		cmocka_unit_test(test_bounds),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
