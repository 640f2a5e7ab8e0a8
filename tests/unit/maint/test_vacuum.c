/* dl_vacuum: Spark's VacuumCommand rules (DeltaVacuumSuite's cases):
 * exactly the unreferenced files older than the window go, hidden paths
 * stay except partition directories and _change_data, empty directories
 * go, a dry run lists exactly what a real run deletes, the retention
 * check, the safety window (tombstones and modification times), time
 * travel inside and outside the window, the START/END commits, LITE and
 * its DELTA_CANNOT_VACUUM_LITE, a failing store leaving the table
 * readable. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "maint_fixture.h"

#define DDL "id BIGINT, p STRING"

/* version 0 create, 1 append (a, b), 2 overwrite (c): the files of
 * version 1 are tombstones of version 2. */
static char *make(const char *name, const char *const *props, int nprops)
{
	char *uri = fx_table(g_dir, name);
	dx_create(uri, DDL, "p", props, nprops);
	dx_append(uri, DDL, "1,a;2,b");
	dl_write_options o = fx_opts(DL_WRITE_OVERWRITE);
	int64_t v;
	if (fx_write(&v, uri, DDL, "3,c", &o) < 0) fail_msg("overwrite: %s", dl_error_last()->message);
	return uri;
}

static dl_vacuum_options opts(double hours, bool no_check, bool dry, mx_names *names)
{
	dl_vacuum_options o = DL_VACUUM_OPTIONS_INIT;
	o.retain_hours = hours;
	o.no_retention_check = no_check;
	o.dry_run = dry;
	o.on_file = mx_collect;
	o.on_file_payload = names;
	return o;
}

/* Retention 0: the tombstoned files, the orphan, old _change_data files
 * and the empty partition directory go; hidden files, fresh files and the
 * live file stay; the dry run named exactly those. */
static void test_exact_files(void **state)
{
	(void)state;
	char *uri = make("exact", NULL, 0);
	char **v1 = NULL;
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	(void)so;
	mx_file(uri, "orphan.parquet", 10, 2 * DAY_S);
	mx_file(uri, "p=a/leftover.parquet", 7, 2 * DAY_S);
	mx_file(uri, "_change_data/cdc-old.parquet", 5, 2 * DAY_S);
	mx_file(uri, "_hidden/x.parquet", 3, 2 * DAY_S);
	mx_file(uri, ".tmp/y.parquet", 3, 2 * DAY_S);
	mx_file(uri, "p=a/.part-0.crc", 3, 2 * DAY_S);
	mx_file(uri, "p=a/_SUCCESS", 3, 2 * DAY_S);
	mx_file(uri, "fresh.parquet", 4, -60); /* a concurrent writer's file */
	mx_dir(uri, "p=z");
	mx_dir(uri, "p=y/deeper");
	mx_age_files(uri, 2 * DAY_S);
	mx_file(uri, "fresh.parquet", 4, -60);
	char **live = NULL;
	int nlive = mx_live_files(uri, &live);
	assert_int_equal(nlive, 1);
	/* the tombstoned files of version 1 */
	char *c1 = fx_commit(uri, 1);
	assert_non_null(c1);

	mx_names dry = {DL_BUF_INIT, 0, 0};
	dl_vacuum_options o = opts(0, true, true, &dry);
	dl_vacuum_result r;
	assert_int_equal(dl_vacuum(&r, uri, &o), 0);
	assert_int_equal(r.start_version, -1);
	assert_int_equal(r.end_version, -1);
	assert_int_equal(fx_version(uri), 2);
	/* 2 tombstoned + orphan + leftover + cdc + 3 empty dirs */
	assert_int_equal(r.numFilesToDelete, 8);
	assert_int_equal(dry.n, 8);
	const char *listed = mx_names_text(&dry);
	assert_non_null(strstr(listed, "orphan.parquet"));
	assert_non_null(strstr(listed, "p=a/leftover.parquet"));
	assert_non_null(strstr(listed, "_change_data/cdc-old.parquet"));
	assert_non_null(strstr(listed, "p=z"));
	assert_non_null(strstr(listed, "p=y/deeper"));
	assert_null(strstr(listed, "_hidden"));
	assert_null(strstr(listed, ".tmp"));
	assert_null(strstr(listed, "fresh"));
	assert_null(strstr(listed, live[0]));
	char *before = mx_tree(uri);

	mx_names real = {DL_BUF_INIT, 0, 0};
	o = opts(0, true, false, &real);
	o.threads = 4;
	o.user_metadata = "gc";
	assert_int_equal(dl_vacuum(&r, uri, &o), 0);
	assert_string_equal(mx_names_text(&real), listed);
	assert_int_equal(r.start_version, 3);
	assert_int_equal(r.end_version, 4);
	assert_int_equal(r.numFilesToDelete, 8);
	assert_int_equal(r.numDeletedFiles, 8);
	assert_int_equal(r.sizeOfDataToDelete, dry.bytes);
	/* every directory listed (p=a, p=b, p=c, p=y, p=y/deeper, p=z,
	 * _change_data) + 1 for the base, as Spark's dirCounts */
	assert_int_equal(r.numVacuumedDirectories, 8);
	char *after = mx_tree(uri);
	for (char *tok = strtok(dry.b.data, ";"); tok; tok = strtok(NULL, ";"))
		if (mx_exists(uri, tok)) fail_msg("%s survived VACUUM", tok);
	assert_true(mx_exists(uri, live[0]));
	assert_true(mx_exists(uri, "_hidden/x.parquet"));
	assert_true(mx_exists(uri, ".tmp/y.parquet"));
	assert_true(mx_exists(uri, "p=a/.part-0.crc"));
	assert_true(mx_exists(uri, "p=a/_SUCCESS"));
	assert_true(mx_exists(uri, "fresh.parquet"));
	assert_true(mx_exists(uri, "_delta_log/00000000000000000000.json"));
	assert_string_not_equal(before, after);
	dx_rows(uri, "id,p", "3,c");
	dx_commit_has(uri, 3, "\"operation\":\"VACUUM START\"");
	dx_commit_has(uri, 3, "\"retentionCheckEnabled\":false");
	dx_commit_has(uri, 3, "\"specifiedRetentionMillis\":0");
	dx_commit_has(uri, 3, "\"defaultRetentionMillis\":604800000");
	dx_commit_has(uri, 3, "\"numFilesToDelete\":\"8\"");
	dx_commit_has(uri, 3, "\"userMetadata\":\"gc\"");
	dx_commit_lacks(uri, 3, "\"add\"");
	dx_commit_has(uri, 4, "\"operation\":\"VACUUM END\"");
	dx_commit_has(uri, 4, "\"status\":\"COMPLETED\"");
	dx_commit_has(uri, 4, "\"numDeletedFiles\":\"8\"");
	dx_commit_has(uri, 4, "\"numVacuumedDirectories\":\"8\"");
	/* a second run finds the directories the first one emptied (as Spark,
	 * a directory goes once nothing is listed under it); p=a keeps its
	 * hidden files, so its rmdir fails and it stays */
	mx_names again = {DL_BUF_INIT, 0, 0};
	o = opts(0, true, true, &again);
	assert_int_equal(dl_vacuum(&r, uri, &o), 0);
	assert_string_equal(mx_names_text(&again), "_change_data;p=a;p=b");
	o.dry_run = false;
	o.on_file = NULL;
	assert_int_equal(dl_vacuum(&r, uri, &o), 0);
	assert_int_equal(r.numDeletedFiles, 2);
	assert_true(mx_exists(uri, "p=a/_SUCCESS"));
	assert_false(mx_exists(uri, "p=b"));
	free(before);
	free(after);
	free(c1);
	mx_strv_free(live);
	mx_strv_free(v1);
	dl_buf_free(&dry.b);
	dl_buf_free(&real.b);
	dl_buf_free(&again.b);
	dl_free(uri);
}

/* The default window (7 days): tombstones newer than the cut-off keep
 * their files, so time travel to version 1 still reads; an orphan older
 * than the window goes, a younger one stays. Outside the window (retention
 * 0) version 1's files are gone and reading it fails. */
static void test_window_and_time_travel(void **state)
{
	(void)state;
	char *uri = make("window", NULL, 0);
	mx_age_files(uri, 2 * DAY_S); /* tombstones are recent, files old */
	mx_file(uri, "old-orphan.parquet", 10, 8 * DAY_S);
	mx_file(uri, "young-orphan.parquet", 10, 6 * DAY_S);
	mx_names n = {DL_BUF_INIT, 0, 0};
	dl_vacuum_options o = opts(-1, false, false, &n);
	dl_vacuum_result r;
	assert_int_equal(dl_vacuum(&r, uri, &o), 0);
	assert_string_equal(mx_names_text(&n), "old-orphan.parquet");
	assert_true(mx_exists(uri, "young-orphan.parquet"));
	dx_commit_lacks(uri, 3, "specifiedRetentionMillis");
	dx_commit_has(uri, 3, "\"retentionCheckEnabled\":true");
	char *v1 = fx_read(uri, 1, "id,p");
	assert_non_null(v1);
	assert_string_equal(v1, "1,a;2,b");
	dl_free(v1);

	dl_buf_free(&n.b);
	memset(&n, 0, sizeof n);
	o = opts(0, true, false, &n);
	assert_int_equal(dl_vacuum(&r, uri, &o), 0);
	assert_int_equal(r.numDeletedFiles, 3); /* 2 tombstoned + young orphan */
	dx_rows(uri, "id,p", "3,c");
	/* version 1 is outside the window now: its files are gone */
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	so.as_of_version = 1;
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, uri, &so), 0);
	dl_scan *scan;
	assert_int_equal(dl_scan_open(&scan, snap, NULL), 0);
	dl_batch_stream *st;
	int rc = dl_scan_batches(&st, scan);
	dl_batch *b = NULL;
	while (rc == 0 && (rc = dl_batch_stream_next(st, &b)) == 0 && b) dl_batch_free(b);
	assert_true(rc < 0);
	assert_non_null(strstr(dl_error_last()->message, "part-"));
	if (st) dl_batch_stream_free(st);
	dl_scan_free(scan);
	dl_snapshot_free(snap);
	dl_buf_free(&n.b);
	dl_free(uri);
}

static void test_retention_check(void **state)
{
	(void)state;
	char *uri = make("check", NULL, 0);
	char *before = dx_tree(uri);
	dl_vacuum_options o = opts(1, false, false, NULL);
	o.on_file = NULL;
	dl_vacuum_result r;
	assert_int_equal(dl_vacuum(&r, uri, &o), DL_EINVALID);
	assert_string_equal(dl_error_last()->klass, "DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT");
	assert_non_null(strstr(dl_error_last()->message, "168 hours"));
	o.dry_run = true;
	assert_int_equal(dl_vacuum(&r, uri, &o), DL_EINVALID);
	char *after = dx_tree(uri);
	assert_string_equal(before, after);
	free(after);
	/* a table whose own retention is 1 hour accepts RETAIN 1 HOURS, and
	 * rounds RETAIN 0.6 HOURS up to 1 hour as Spark's math.round */
	const char *props[] = {"delta.deletedFileRetentionDuration", "interval 1 hours"};
	char *short_uri = make("short", props, 1);
	o = opts(1, false, true, NULL);
	o.on_file = NULL;
	assert_int_equal(dl_vacuum(&r, short_uri, &o), 0);
	o.retain_hours = 0.6;
	assert_int_equal(dl_vacuum(&r, short_uri, &o), 0);
	o.retain_hours = 0.4;
	assert_int_equal(dl_vacuum(&r, short_uri, &o), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "\"1 hours\""));
	/* not a table */
	char *none = fx_table(g_dir, "none");
	assert_int_equal(dl_vacuum(&r, none, NULL), DL_ENOTFOUND);
	free(before);
	dl_free(none);
	dl_free(short_uri);
	dl_free(uri);
}

/* LITE: only what the log removed goes (the orphan stays); the watermark
 * makes the next LITE run start after it; with commits before the window
 * cleaned up and no watermark, DELTA_CANNOT_VACUUM_LITE. */
static void test_lite(void **state)
{
	(void)state;
	char *uri = make("lite", NULL, 0);
	mx_age_files(uri, 2 * DAY_S);
	mx_file(uri, "orphan.parquet", 10, 2 * DAY_S);
	sleep(1); /* the commits must be older than the cut-off (now) */
	mx_names n = {DL_BUF_INIT, 0, 0};
	dl_vacuum_options o = opts(0, true, true, &n);
	o.lite = true;
	dl_vacuum_result r;
	assert_int_equal(dl_vacuum(&r, uri, &o), 0);
	assert_int_equal(r.numFilesToDelete, 2);
	assert_null(strstr(mx_names_text(&n), "orphan"));
	o.dry_run = false;
	dl_buf_free(&n.b);
	memset(&n, 0, sizeof n);
	assert_int_equal(dl_vacuum(&r, uri, &o), 0);
	assert_int_equal(r.numDeletedFiles, 2);
	assert_int_equal(r.numVacuumedDirectories, 1);
	assert_true(mx_exists(uri, "orphan.parquet"));
	dx_rows(uri, "id,p", "3,c");
	char buf[2048];
	snprintf(buf, sizeof buf, "%s/_delta_log/_last_vacuum_info", uri);
	FILE *f = fopen(buf, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof buf, f));
	fclose(f);
	assert_non_null(strstr(buf, "{\"latestCommitVersionOutsideOfRetentionWindow\":"));
	/* FULL then deletes the orphan and clears the watermark */
	o.lite = false;
	assert_int_equal(dl_vacuum(&r, uri, &o), 0);
	assert_false(mx_exists(uri, "orphan.parquet"));
	/* the log no longer starts at 0 and no watermark: LITE refuses */
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, uri, NULL), 0);
	dl_checkpoint_result cr;
	assert_int_equal(dl_checkpoint(&cr, snap, NULL), 0);
	dl_snapshot_free(snap);
	snprintf(buf, sizeof buf, "%s/_delta_log/00000000000000000000.json", uri);
	assert_int_equal(unlink(buf), 0);
	o.lite = true;
	o.dry_run = true;
	assert_int_equal(dl_vacuum(&r, uri, &o), DL_EUNSUPPORTED);
	assert_string_equal(dl_error_last()->klass, "DELTA_CANNOT_VACUUM_LITE");
	o.inventory = NULL;
	dl_buf_free(&n.b);
	dl_free(uri);
}

/* A store failing at any call: VACUUM fails or completes, and the table
 * always reads the same rows (only unreferenced files were at stake). */
static void test_failing_store(void **state)
{
	(void)state;
	char *base = make("fault_base", NULL, 0);
	mx_age_files(base, 2 * DAY_S);
	mx_file(base, "orphan.parquet", 10, 2 * DAY_S);
	char work[1024], uri[1100], cmd[2400];
	snprintf(work, sizeof work, "%s/fault_work", g_dir);
	int ok = 0, failed = 0;
	for (int n = 1; n <= 200; n++) {
		snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -a '%s' '%s'", work, base, work);
		assert_int_equal(system(cmd), 0);
		snprintf(uri, sizeof uri, "fault://file://%s", work);
		char nth[16];
		snprintf(nth, sizeof nth, "%d", n);
		const char *keys[] = {"fault.fail_nth", "fault.error"};
		const char *vals[] = {nth, "eio"};
		dl_store_options so = DL_STORE_OPTIONS_INIT;
		so.keys = keys, so.values = vals, so.noptions = 2;
		dl_vacuum_options o = opts(0, true, false, NULL);
		o.on_file = NULL;
		o.store_options = &so;
		dl_vacuum_result r;
		int rc = dl_vacuum(&r, uri, &o);
		dx_rows(work, "id,p", "3,c");
		if (rc == 0) ok++;
		else failed++;
		if (rc == 0 && n > 40) break;
	}
	assert_true(ok > 0);
	assert_true(failed > 0);
	dl_free(base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_files),
		cmocka_unit_test(test_window_and_time_travel),
		cmocka_unit_test(test_retention_check),
		cmocka_unit_test(test_lite),
		cmocka_unit_test(test_failing_store),
	};
	return cmocka_run_group_tests(tests, fx_setup_tmpdir, fx_teardown_tmpdir);
}
