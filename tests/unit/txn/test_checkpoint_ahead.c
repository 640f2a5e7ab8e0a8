/* Checkpoint files decoded ahead on the pool (log/checkpoint_ahead.c): a
 * multi-part checkpoint and a v2 checkpoint's sidecars give the same
 * snapshot, files in the same order, at one thread and at three; a pool
 * whose every thread is busy still loads (the files are read on the
 * caller); a corrupt part fails the load naming it; and every allocation
 * failed in turn during a parallel load gives DL_ENOMEM or a whole
 * snapshot, never a crash or (under ASan) a leak. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "deltalake/snapshot.h"
#include "log/snapshot.h"
#include "txn/checkpoint_write.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/mem_fault.h"
#include "util/pool.h"

#define NFILES 3000

static const char *SCHEMA =
	"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"x\\\",\\\"type\\\":\\\"long\\\","
	"\\\"nullable\\\":true,\\\"metadata\\\":{}}]}";

/* A table of NFILES files in two commits (protocol and metaData, then the
 * adds), checkpointed at version 1 in parts (or sidecars) of 400 actions. */
static dl_store *make_table(const char *uri, bool v2)
{
	dl_store *s = NULL;
	assert_int_equal(dl_store_open(&s, uri, NULL), 0);
	dl_buf b = DL_BUF_INIT;
	if (v2)
		assert_int_equal(dl_buf_printf(&b, "{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,"
		                               "\"readerFeatures\":[\"v2Checkpoint\"],\"writerFeatures\":[\"v2Checkpoint\"]}}\n"),
		                 0);
	else
		assert_int_equal(dl_buf_printf(&b, "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n"), 0);
	assert_int_equal(dl_buf_printf(&b, "{\"metaData\":{\"id\":\"9d1c0000-0000-4000-8000-000000000001\","
	                               "\"format\":{\"provider\":\"parquet\",\"options\":{}},\"schemaString\":\"%s\","
	                               "\"partitionColumns\":[],\"configuration\":{%s},\"createdTime\":1}}\n",
	                               SCHEMA, v2 ? "\"delta.checkpointPolicy\":\"v2\"" : ""),
	                 0);
	assert_int_equal(dl_store_put(s, "_delta_log/00000000000000000000.json", b.data, b.len), 0);
	dl_buf_clear(&b);
	for (int i = 0; i < NFILES; i++)
		assert_int_equal(dl_buf_printf(&b, "{\"add\":{\"path\":\"part-%05d.parquet\",\"partitionValues\":{},"
		                               "\"size\":%d,\"modificationTime\":%d,\"dataChange\":true,"
		                               "\"stats\":\"{\\\"numRecords\\\":%d}\"}}\n", i, 100 + i, i, i % 97),
		                 0);
	assert_int_equal(dl_store_put(s, "_delta_log/00000000000000000001.json", b.data, b.len), 0);
	dl_buf_free(&b);
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	so.store = s;
	dl_snapshot *json = NULL;
	assert_int_equal(dl_snapshot_open(&json, NULL, &so), 0);
	dl_ckpt_write_options o = DL_CKPT_WRITE_OPTIONS_INIT;
	o.part_actions = 400;
	dl_checkpoint_result r;
	int rc = dl_checkpoint_write(&r, s, json, &o);
	if (rc < 0) fprintf(stderr, "%s\n", dl_error_last()->message);
	assert_int_equal(rc, 0);
	if (v2) assert_true(r.sidecars >= 7);
	else assert_true(r.parts >= 7);
	dl_snapshot_free(json);
	return s;
}

static int open_snap(dl_snapshot **out, dl_store *s)
{
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	so.store = s;
	*out = NULL;
	return dl_snapshot_open(out, NULL, &so);
}

/* The files in the snapshot's order, one line each. */
static char *listing(const dl_snapshot *snap)
{
	dl_buf b = DL_BUF_INIT;
	for (size_t i = 0; i < dl_snapshot_file_count(snap); i++) {
		dl_file_info f;
		assert_int_equal(dl_snapshot_file_at(&f, snap, i), 0);
		assert_int_equal(dl_buf_printf(&b, "%s %lld %lld %s\n", f.path, (long long)f.size,
		                               (long long)f.modification_time, f.stats ? f.stats : "-"),
		                 0);
	}
	assert_int_equal(dl_buf_putc(&b, 0), 0);
	return b.data;
}

static char *load_listing(dl_store *s, const char *threads)
{
	setenv("DL_THREADS", threads, 1);
	dl_snapshot *snap;
	int rc = open_snap(&snap, s);
	if (rc < 0) fprintf(stderr, "%s\n", dl_error_last()->message);
	assert_int_equal(rc, 0);
	assert_int_equal(snap->segment.checkpoint_version, 1);
	assert_int_equal(dl_snapshot_file_count(snap), NFILES);
	char *l = listing(snap);
	dl_snapshot_free(snap);
	setenv("DL_THREADS", "3", 1);
	return l;
}

static void same_as_serial(bool v2, const char *uri)
{
	dl_store *s = make_table(uri, v2);
	char *one = load_listing(s, "1"), *three = load_listing(s, "3");
	assert_string_equal(one, three);
	dl_free(one);
	dl_free(three);
	dl_store_free(s);
}

static void test_parts_same_as_serial(void **state)
{
	(void)state;
	same_as_serial(false, "mem://ahead-parts");
}

static void test_sidecars_same_as_serial(void **state)
{
	(void)state;
	same_as_serial(true, "mem://ahead-sidecars");
}

/* ---- every pool thread busy ---- */

typedef struct blocker {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int started;
	bool release;
} blocker;

static int block_task(void *arg)
{
	blocker *b = arg;
	pthread_mutex_lock(&b->mu);
	b->started++;
	pthread_cond_broadcast(&b->cv);
	while (!b->release) pthread_cond_wait(&b->cv, &b->mu);
	pthread_mutex_unlock(&b->mu);
	return 0;
}

static void test_busy_pool(void **state)
{
	(void)state;
	dl_store *s = make_table("mem://ahead-busy", false);
	char *want = load_listing(s, "1");
	dl_pool *pool;
	assert_int_equal(dl_pool_shared(&pool), 0);
	blocker b = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, false};
	dl_waitgroup wg;
	dl_waitgroup_init(&wg);
	int n = dl_pool_size(pool);
	for (int i = 0; i < n; i++) assert_int_equal(dl_pool_submit(pool, &wg, block_task, &b), 0);
	pthread_mutex_lock(&b.mu);
	while (b.started < n) pthread_cond_wait(&b.cv, &b.mu);
	pthread_mutex_unlock(&b.mu);
	/* no thread can take the decoding: the load reads every part itself */
	dl_snapshot *snap;
	assert_int_equal(open_snap(&snap, s), 0);
	char *got = listing(snap);
	dl_snapshot_free(snap);
	pthread_mutex_lock(&b.mu);
	b.release = true;
	pthread_cond_broadcast(&b.cv);
	pthread_mutex_unlock(&b.mu);
	assert_int_equal(dl_waitgroup_wait(&wg), 0);
	dl_waitgroup_destroy(&wg);
	assert_string_equal(want, got);
	dl_free(want);
	dl_free(got);
	dl_store_free(s);
}

/* ---- a corrupt part ---- */

static void test_corrupt_part(void **state)
{
	(void)state;
	dl_store *s = make_table("mem://ahead-corrupt", false);
	dl_object_list l;
	assert_int_equal(dl_store_list_from(&l, s, "_delta_log", "00000000000000000001.checkpoint.0000000004"), 0);
	assert_true(l.count > 0);
	char *victim = dl_strdup(l.items[0].path);
	dl_object_list_free(&l);
	assert_int_equal(dl_store_put(s, victim, "PAR1 this is not a parquet file PAR1", 36), 0);
	dl_snapshot *snap;
	int rc = open_snap(&snap, s);
	assert_true(rc < 0);
	assert_null(snap);
	const char *base = strrchr(victim, '/');
	assert_non_null(strstr(dl_error_last()->message, base ? base + 1 : victim));
	dl_free(victim);
	dl_store_free(s);
}

/* ---- every allocation failing in turn, on three threads ---- */

static void test_alloc_walk(void **state)
{
	(void)state;
	dl_store *s = make_table("mem://ahead-walk", false);
	char *want = load_listing(s, "1");
	int64_t calls;
	dl_mem_fault_arm(0, 0);
	dl_snapshot *snap;
	assert_int_equal(open_snap(&snap, s), 0);
	dl_mem_fault_disarm(&calls, NULL);
	dl_snapshot_free(snap);
	assert_true(calls > 100);
	/* the count moves a little between parallel runs: walk a sample spread
	 * over all of it, and past its end */
	int64_t step = calls / 150 > 0 ? calls / 150 : 1;
	int failed = 0;
	for (int64_t nth = 1; nth <= calls + step; nth += step) {
		dl_mem_fault_arm(nth, 1);
		int rc = open_snap(&snap, s);
		int64_t injected;
		dl_mem_fault_disarm(NULL, &injected);
		if (rc < 0) {
			assert_int_equal(rc, DL_ENOMEM);
			assert_null(snap);
			failed++;
			continue;
		}
		char *got = listing(snap);
		assert_string_equal(want, got);
		dl_free(got);
		dl_snapshot_free(snap);
	}
	assert_true(failed > 0);
	dl_free(want);
	dl_store_free(s);
}

int main(void)
{
	/* more pool threads than this machine may have cores, so that parts
	 * decode side by side wherever the test runs */
	setenv("DL_THREADS", "3", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parts_same_as_serial),
		cmocka_unit_test(test_sidecars_same_as_serial),
		cmocka_unit_test(test_busy_pool),
		cmocka_unit_test(test_corrupt_part),
		cmocka_unit_test(test_alloc_walk),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
