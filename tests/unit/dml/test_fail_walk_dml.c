/* Failure walks (unit/ops/fail_walk.h) over DELETE (with deletion vectors
 * and copy-on-write) and MERGE (an upsert with a delete clause; again
 * under a budget that spills what the merge holds). */
#include "unit/ops/fail_walk.h"
#include "deltalake/dml.h"
#include "deltalake/merge.h"
#include "deltalake/write.h"
#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

static const char *ddl = "id BIGINT, v BIGINT";

static void make_table(const char *dir, bool dvs)
{
	dl_create_options co = DL_CREATE_OPTIONS_INIT;
	co.schema_ddl = ddl;
	const char *keys[] = {"delta.enableDeletionVectors"}, *values[] = {"true"};
	if (dvs) {
		co.property_keys = keys;
		co.property_values = values;
		co.nproperties = 1;
	}
	int64_t v;
	assert_int_equal(dl_create_table(&v, dir, &co), 0);
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	assert_int_equal(fx_write(&v, dir, ddl, "1,10;2,20;3,30;4,40", &o), 0);
	assert_int_equal(fx_write(&v, dir, ddl, "5,50;6,60", &o), 0);
	assert_int_equal(v, 2);
}

static void dv_table(const char *dir)
{
	make_table(dir, true);
}

static void cow_table(const char *dir)
{
	make_table(dir, false);
}

static void check_rows(const char *dir, const char *want, const char *what)
{
	char *rows = fx_read(dir, -1, "id,v");
	if (!rows || strcmp(rows, want) != 0)
		fail_msg("%s: the table reads as \"%s\"%s, expected \"%s\"", what, rows ? rows : "(error: ",
		         rows ? "" : dl_error_last()->message, want);
	dl_free(rows);
}

/* ---- DELETE ---- */

static int delete_run(const char *dir, dl_store *store, void *input)
{
	(void)dir, (void)input;
	dl_delete_options o = DL_DELETE_OPTIONS_INIT;
	o.store = store;
	o.threads = 1;
	dl_delete_metrics m;
	int rc = dl_delete(&m, NULL, "id % 2 = 0", &o);
	if (rc == 0 && (m.version != 3 || m.num_affected_rows != 3))
		fail_msg("DELETE: version %lld, %lld rows", (long long)m.version, (long long)m.num_affected_rows);
	return rc;
}

static void delete_done(const char *dir, const char *what)
{
	check_rows(dir, "1,10;3,30;5,50", what);
}

static void delete_dv_walk(void **state)
{
	(void)state;
	fw_cmd c = {"DELETE (deletion vectors)", dv_table, NULL, NULL, delete_run, delete_done, 3, NULL, false};
	fw_walk_both(&c);
}

static void delete_cow_walk(void **state)
{
	(void)state;
	fw_cmd c = {"DELETE (copy-on-write)", cow_table, NULL, NULL, delete_run, delete_done, 3, NULL, false};
	fw_walk_both(&c);
}

/* DELETE on a file that has a DV already: the old DV's rows are read back
 * (as a row set) and merged into the new one. */
static void dv_table_with_dv(const char *dir)
{
	make_table(dir, true);
	dl_delete_options o = DL_DELETE_OPTIONS_INIT;
	dl_delete_metrics m;
	assert_int_equal(dl_delete(&m, dir, "id = 1", &o), 0);
	assert_int_equal(m.version, 3);
}

static int delete_more_run(const char *dir, dl_store *store, void *input)
{
	(void)dir, (void)input;
	dl_delete_options o = DL_DELETE_OPTIONS_INIT;
	o.store = store;
	o.threads = 1;
	dl_delete_metrics m;
	int rc = dl_delete(&m, NULL, "id % 2 = 0", &o);
	if (rc == 0 && (m.version != 4 || m.num_affected_rows != 3))
		fail_msg("DELETE: version %lld, %lld rows", (long long)m.version, (long long)m.num_affected_rows);
	return rc;
}

static void delete_more_done(const char *dir, const char *what)
{
	check_rows(dir, "3,30;5,50", what);
}

static void delete_dv_merge_walk(void **state)
{
	(void)state;
	fw_cmd c = {"DELETE (merged with an existing DV)", dv_table_with_dv, NULL, NULL, delete_more_run,
	            delete_more_done, 4, NULL, false};
	fw_walk_both(&c);
}

/* ---- MERGE ---- */

static void *merge_input(void)
{
	dl_batch_stream *s = fx_stream(ddl, "2,200;3,0;7,700");
	assert_non_null(s);
	struct ArrowArrayStream *st = calloc(1, sizeof *st);
	assert_int_equal(dl_batch_stream_export(st, s), 0);
	return st;
}

static void merge_release(void *input)
{
	struct ArrowArrayStream *st = input;
	if (st->release) st->release(st);
	free(st);
}

/* The spilling walk's temp_dir (NULL: the plain walks) and budget: 2000
 * bytes is below the first charge for the touched rows' records, so they
 * spill (as do the source and the updated rows' source columns). */
static char *g_spill_dir;

/* No spill file outlives the merge, whichever point failed. */
static void spill_dir_empty(void)
{
	DIR *d = opendir(g_spill_dir);
	assert_non_null(d);
	struct dirent *e;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			fail_msg("MERGE (spilled) left %s/%s", g_spill_dir, e->d_name);
	closedir(d);
}

static int merge_run(const char *dir, dl_store *store, void *input)
{
	(void)dir;
	dl_merge_options o = DL_MERGE_OPTIONS_INIT;
	o.store = store;
	if (g_spill_dir) {
		o.memory_limit = 2000;
		o.temp_dir = g_spill_dir;
	}
	dl_merge *m;
	DL_TRY(dl_merge_new(&m, NULL, &o));
	int rc = dl_merge_source_stream(m, input);
	if (rc == 0) rc = dl_merge_alias(m, "t", "s");
	if (rc == 0) rc = dl_merge_on(m, "t.id = s.id");
	if (rc == 0) rc = dl_merge_when_matched_delete(m, "s.v = 0");
	if (rc == 0) rc = dl_merge_when_matched_update_all(m, NULL);
	if (rc == 0) rc = dl_merge_when_not_matched_insert_all(m, NULL);
	dl_merge_metrics r;
	if (rc == 0) rc = dl_merge_execute(&r, m);
	if (rc == 0 && r.version != 3) fail_msg("MERGE committed version %lld", (long long)r.version);
	dl_merge_free(m);
	if (g_spill_dir) spill_dir_empty();
	return rc;
}

static void merge_done(const char *dir, const char *what)
{
	check_rows(dir, "1,10;2,200;4,40;5,50;6,60;7,700", what);
}

static void merge_walk(void **state)
{
	(void)state;
	fw_cmd c = {"MERGE", cow_table, merge_input, merge_release, merge_run, merge_done, 3, NULL, false};
	fw_walk_both(&c);
}

static void merge_dv_walk(void **state)
{
	(void)state;
	fw_cmd c = {"MERGE (deletion vectors)", dv_table, merge_input, merge_release, merge_run, merge_done, 3,
	            NULL, false};
	fw_walk_both(&c);
}

static void merge_spill_walk(void **state)
{
	(void)state;
	char tmpl[] = "/tmp/dl-fw-spill-XXXXXX";
	assert_non_null(g_spill_dir = mkdtemp(tmpl));
	fw_cmd c = {"MERGE (touched rows spilled)", cow_table, merge_input, merge_release, merge_run, merge_done,
	            3, NULL, false};
	fw_walk_both(&c);
	assert_int_equal(rmdir(g_spill_dir), 0);
	g_spill_dir = NULL;
}

int main(void)
{
	fw_init();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(delete_dv_walk),
		cmocka_unit_test(delete_cow_walk),
		cmocka_unit_test(delete_dv_merge_walk),
		cmocka_unit_test(merge_walk),
		cmocka_unit_test(merge_dv_walk),
		cmocka_unit_test(merge_spill_walk),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
