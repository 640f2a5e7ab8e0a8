/* How dl_store_open routes "PROFILE#share.schema.table": to the
 * delta-sharing backend only when PROFILE is an existing regular file, with
 * an error saying to register it when it is not registered; a directory
 * whose name holds '#' stays a local path. No server is involved: the open
 * against an unreachable endpoint fails, naming it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "deltalake/error.h"
#include "deltalake/sharing.h"
#include "deltalake/store.h"

static char dir[256];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/dl-share-path-XXXXXX");
	if (!mkdtemp(dir)) return -1;
	char p[512];
	snprintf(p, sizeof p, "%s/p.share", dir);
	FILE *f = fopen(p, "w");
	if (!f) return -1;
	/* port 1 on loopback: nothing listens, connections are refused at once */
	fputs("{\"shareCredentialsVersion\":1,\"endpoint\":\"http://127.0.0.1:1/ds\",\"bearerToken\":\"t\"}", f);
	fclose(f);
	snprintf(p, sizeof p, "%s/d#a.b.c", dir);
	return mkdir(p, 0700);
}

static int teardown(void **state)
{
	(void)state;
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void unregistered_then_registered(void **state)
{
	(void)state;
	char uri[512];
	dl_store *s = NULL;
	snprintf(uri, sizeof uri, "%s/p.share#share1.default.t", dir);
	int rc = dl_store_open(&s, uri, NULL);
	assert_true(rc < 0);
	assert_non_null(strstr(dl_error_last()->message, "dl_sharing_register"));
	assert_int_equal(dl_sharing_register(), 0);
	assert_int_equal(dl_sharing_register(), 0); /* idempotent */
	rc = dl_store_open(&s, uri, NULL);
	assert_int_equal(rc, DL_EIO);
	const char *m = dl_error_last()->message;
	assert_non_null(strstr(m, "share1.default.t"));
	assert_non_null(strstr(m, "127.0.0.1:1"));
	assert_null(strstr(m, "Bearer"));
}

static void directory_with_hash_is_a_path(void **state)
{
	(void)state;
	char uri[512];
	dl_store *s = NULL;
	snprintf(uri, sizeof uri, "%s/d#a.b.c", dir);
	assert_int_equal(dl_store_open(&s, uri, NULL), 0);
	assert_string_equal(dl_store_root(s), uri);
	dl_store_free(s);
	/* a profile that does not exist: a plain (missing) path, not a share */
	snprintf(uri, sizeof uri, "%s/missing.share#a.b.c", dir);
	if (dl_store_open(&s, uri, NULL) == 0) dl_store_free(s);
	else assert_null(strstr(dl_error_last()->message, "sharing"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(directory_with_hash_is_a_path),
		cmocka_unit_test(unregistered_then_registered),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
