/* A scan consumed from inside a task of a one-thread pool: its decoding
 * tasks queue behind the consumer, so the stream must read the files
 * itself rather than wait forever. (alarm() turns a deadlock into a
 * failure.) */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <unistd.h>
#include "table/scan.h"
#include "table_fixture.h"
#include "util/pool.h"

typedef struct job {
	const char *dir;
	int64_t rows;
	int rc;
	volatile int done;
} job;

static int scan_task(void *arg)
{
	job *j = arg;
	dl_batch *b = NULL;
	j->rc = fixture_scan(&b, j->dir, NULL, NULL);
	j->rows = b ? b->num_rows : 0;
	dl_batch_free(b);
	__atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
	return 0;
}

static void scan_inside_pool(void **state)
{
	(void)state;
	fixture f;
	assert_int_equal(fixture_open(&f), 0);
	int64_t v[5] = {1, 2, 3, 4, 5};
	int64_t s1, s2;
	assert_int_equal(fixture_parquet(&f, "a.parquet", fixture_batch("id", v, 5, false, DL_TYPE_LONG), &s1), 0);
	assert_int_equal(fixture_parquet(&f, "b.parquet", fixture_batch("id", v, 5, false, DL_TYPE_LONG), &s2), 0);
	char a1[256], a2[256];
	snprintf(a1, sizeof a1, "{\"add\":{\"path\":\"a.parquet\",\"partitionValues\":{},\"size\":%lld,"
	         "\"modificationTime\":1,\"dataChange\":true}}", (long long)s1);
	snprintf(a2, sizeof a2, "{\"add\":{\"path\":\"b.parquet\",\"partitionValues\":{},\"size\":%lld,"
	         "\"modificationTime\":1,\"dataChange\":true}}", (long long)s2);
	const char *lines[] = {
		"{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}",
		"{\"metaData\":{\"id\":\"n\",\"format\":{\"provider\":\"parquet\",\"options\":{}},\"schemaString\":"
		"\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"id\\\",\\\"type\\\":\\\"long\\\","
		"\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\",\"partitionColumns\":[],\"configuration\":{}}}",
		a1, a2};
	assert_int_equal(fixture_commit(&f, 0, lines, 4), 0);
	dl_pool *pool;
	assert_int_equal(dl_pool_shared(&pool), 0);
	assert_int_equal(dl_pool_size(pool), 1);
	job j = {f.dir, 0, -1, 0};
	alarm(60);
	assert_int_equal(dl_pool_submit(pool, NULL, scan_task, &j), 0);
	/* wait without helping the pool */
	while (!__atomic_load_n(&j.done, __ATOMIC_ACQUIRE)) usleep(1000);
	alarm(0);
	assert_int_equal(j.rc, 0);
	assert_int_equal(j.rows, 10);
	fixture_close(&f);
}

int main(void)
{
	setenv("DL_THREADS", "1", 1); /* before the shared pool exists */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(scan_inside_pool),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
