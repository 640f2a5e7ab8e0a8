/* dl_generate_manifest and the post-commit manifest hook: one manifest per
 * partition listing the absolute paths of exactly the snapshot's files,
 * stale partitions' manifests deleted, rewritten after every commit with
 * delta.compatibility.symlinkFormatManifest.enabled=true, column mapping
 * refused as Spark. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "maint_fixture.h"

#define DDL "id BIGINT, p STRING"

static char *slurp(const char *dir, const char *rel)
{
	char path[2048];
	snprintf(path, sizeof path, "%s/%s", dir, rel);
	FILE *f = fopen(path, "rb");
	if (!f) return NULL;
	dl_buf b = DL_BUF_INIT;
	dl_buf_puts(&b, "");
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) dl_buf_append(&b, chunk, n);
	fclose(f);
	return b.data;
}

/* The manifests must list exactly the snapshot's files, per partition. */
static void check_manifests(const char *uri, int want_files)
{
	char abs[4096];
	assert_non_null(realpath(uri, abs));
	char **live = NULL;
	int n = mx_live_files(uri, &live);
	assert_int_equal(n, want_files);
	int listed = 0;
	for (int i = 0; i < n; i++) {
		const char *slash = strrchr(live[i], '/');
		char rel[1200];
		snprintf(rel, sizeof rel, "_symlink_format_manifest/%.*smanifest",
		         slash ? (int)(slash - live[i] + 1) : 0, live[i]);
		char *m = slurp(uri, rel);
		if (!m) fail_msg("no %s", rel);
		char line[5200];
		snprintf(line, sizeof line, "file:%s/%s\n", abs, live[i]);
		if (!strstr(m, line)) fail_msg("%s lacks %s: %s", rel, line, m);
		dl_free(m);
	}
	/* and nothing else: count the lines of all manifests */
	char cmd[4400];
	snprintf(cmd, sizeof cmd, "cat $(find '%s/_symlink_format_manifest' -name manifest) | wc -l", uri);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%d", &listed), 1);
	pclose(p);
	assert_int_equal(listed, n);
	mx_strv_free(live);
}

static void test_generate(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "gen");
	dx_create(uri, DDL, "p", NULL, 0);
	dx_append(uri, DDL, "1,a;2,b");
	dx_append(uri, DDL, "3,a;4,NULL");
	int64_t files = 0;
	assert_int_equal(dl_generate_manifest(&files, uri, NULL), 0);
	assert_int_equal(files, 4);
	check_manifests(uri, 4);
	assert_true(mx_exists(uri, "_symlink_format_manifest/p=__HIVE_DEFAULT_PARTITION__/manifest"));
	/* an overwrite leaves one partition: the others' manifests go */
	dl_write_options o = fx_opts(DL_WRITE_OVERWRITE);
	int64_t v;
	assert_int_equal(fx_write(&v, uri, DDL, "5,c", &o), 0);
	assert_int_equal(dl_generate_manifest(&files, uri, NULL), 0);
	assert_int_equal(files, 1);
	check_manifests(uri, 1);
	assert_false(mx_exists(uri, "_symlink_format_manifest/p=a/manifest"));
	dl_generate_options go = DL_GENERATE_OPTIONS_INIT;
	go.mode = "other";
	assert_int_equal(dl_generate_manifest(&files, uri, &go), DL_EINVALID);
	assert_string_equal(dl_error_last()->klass, "DELTA_MODE_NOT_SUPPORTED");
	dl_free(uri);
}

/* With the property on, every commit rewrites the manifests. */
static void test_after_every_commit(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "auto");
	const char *props[] = {"delta.compatibility.symlinkFormatManifest.enabled", "true"};
	dx_create(uri, DDL, NULL, props, 1);
	dx_append(uri, DDL, "1,a");
	check_manifests(uri, 1);
	dx_append(uri, DDL, "2,b");
	check_manifests(uri, 2);
	dl_write_options o = fx_opts(DL_WRITE_OVERWRITE);
	int64_t v;
	assert_int_equal(fx_write(&v, uri, DDL, "3,c", &o), 0);
	check_manifests(uri, 1);
	char *m = slurp(uri, "_symlink_format_manifest/manifest");
	assert_non_null(m);
	assert_non_null(strstr(m, "file:/"));
	dl_free(m);
	/* without the property nothing is written */
	char *plain = fx_table(g_dir, "plain");
	dx_create(plain, DDL, NULL, NULL, 0);
	dx_append(plain, DDL, "1,a");
	assert_false(mx_exists(plain, "_symlink_format_manifest"));
	dl_free(plain);
	dl_free(uri);
}

static void test_column_mapping_refused(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "cm");
	const char *props[] = {"delta.columnMapping.mode", "name"};
	dx_create(uri, DDL, NULL, props, 1);
	dx_append(uri, DDL, "1,a");
	int64_t files;
	assert_int_equal(dl_generate_manifest(&files, uri, NULL), DL_EUNSUPPORTED);
	assert_string_equal(dl_error_last()->klass,
	                    "DELTA_UNSUPPORTED_MANIFEST_GENERATION_WITH_COLUMN_MAPPING");
	assert_false(mx_exists(uri, "_symlink_format_manifest"));
	dl_free(uri);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generate),
		cmocka_unit_test(test_after_every_commit),
		cmocka_unit_test(test_column_mapping_refused),
	};
	return cmocka_run_group_tests(tests, fx_setup_tmpdir, fx_teardown_tmpdir);
}
