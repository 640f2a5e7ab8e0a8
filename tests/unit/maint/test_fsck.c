/* dl_fsck_repair: entries whose data file is missing are removed in one
 * FSCK commit (operationParameters numRemovedFiles), a dry run reports
 * them and commits nothing, a table with nothing missing commits nothing,
 * and the table reads again afterwards. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "maint_fixture.h"

#define DDL "id BIGINT, p STRING"

static void test_fsck(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "fsck");
	dx_create(uri, DDL, "p", NULL, 0);
	dx_append(uri, DDL, "1,a;2,b;3,c");
	dl_fsck_result r;
	/* nothing missing: nothing to do */
	assert_int_equal(dl_fsck_repair(&r, uri, NULL), 0);
	assert_int_equal(r.version, -1);
	assert_int_equal(r.numFilesRemoved, 0);
	char **live = NULL;
	assert_int_equal(mx_live_files(uri, &live), 3);
	char path[2048];
	snprintf(path, sizeof path, "%s/%s", uri, live[1]); /* p=b */
	assert_int_equal(unlink(path), 0);
	char *before = dx_tree(uri);
	mx_names n = {DL_BUF_INIT, 0, 0};
	dl_fsck_options o = DL_FSCK_OPTIONS_INIT;
	o.dry_run = true;
	o.on_file = mx_collect;
	o.on_file_payload = &n;
	assert_int_equal(dl_fsck_repair(&r, uri, &o), 0);
	assert_int_equal(r.version, -1);
	assert_int_equal(r.numFilesRemoved, 1);
	assert_string_equal(mx_names_text(&n), live[1]);
	assert_true(n.bytes > 0); /* the data file's size: the data file is missing */
	char *after = dx_tree(uri);
	assert_string_equal(before, after);
	free(after);
	o.dry_run = false;
	o.user_metadata = "repair";
	assert_int_equal(dl_fsck_repair(&r, uri, &o), 0);
	assert_int_equal(r.version, 2);
	assert_int_equal(r.numFilesRemoved, 1);
	dx_commit_has(uri, 2, "\"operation\":\"FSCK\"");
	dx_commit_has(uri, 2, "\"operationParameters\":{\"numRemovedFiles\":1}");
	dx_commit_has(uri, 2, "\"userMetadata\":\"repair\"");
	dx_commit_has(uri, 2, "\"remove\"");
	dx_rows(uri, "id,p", "1,a;3,c");
	assert_int_equal(dl_fsck_repair(&r, uri, NULL), 0);
	assert_int_equal(r.version, -1);
	char *none = fx_table(g_dir, "none");
	assert_int_equal(dl_fsck_repair(&r, none, NULL), DL_ENOTFOUND);
	dl_free(none);
	free(before);
	dl_buf_free(&n.b);
	mx_strv_free(live);
	dl_free(uri);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fsck),
	};
	return cmocka_run_group_tests(tests, fx_setup_tmpdir, fx_teardown_tmpdir);
}
