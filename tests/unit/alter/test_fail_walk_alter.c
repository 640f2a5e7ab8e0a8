/* Failure walk (unit/ops/fail_walk.h) over ALTER TABLE ADD COLUMNS. */
#include "unit/ops/fail_walk.h"
#include "deltalake/alter.h"
#include "deltalake/write.h"

static const char *ddl = "id BIGINT, s STRUCT<a: INT>";

static void base_table(const char *dir)
{
	dl_create_options co = DL_CREATE_OPTIONS_INIT;
	co.schema_ddl = ddl;
	int64_t v;
	assert_int_equal(dl_create_table(&v, dir, &co), 0);
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	assert_int_equal(fx_write(&v, dir, "id BIGINT", "1;2", &o), 0);
	assert_int_equal(v, 1);
}

static int add_run(const char *dir, dl_store *store, void *input)
{
	(void)dir, (void)input;
	dl_alter_options o = DL_ALTER_OPTIONS_INIT;
	o.store = store;
	dl_alter_column cols[2] = {DL_ALTER_COLUMN_INIT, DL_ALTER_COLUMN_INIT};
	cols[0].name = "c";
	cols[0].type = "STRING";
	cols[0].comment = "new";
	cols[1].name = "s.b";
	cols[1].type = "DOUBLE";
	cols[1].position = DL_COLUMN_POSITION_FIRST;
	int64_t v = -1;
	int rc = dl_alter_add_columns(&v, NULL, cols, 2, &o);
	if (rc == 0 && v != 2) fail_msg("ADD COLUMNS committed version %lld", (long long)v);
	return rc;
}

static void add_done(const char *dir, const char *what)
{
	char *rows = fx_read(dir, -1, "id,c");
	if (!rows || strcmp(rows, "1,NULL;2,NULL") != 0)
		fail_msg("%s: the table reads as \"%s\"", what, rows ? rows : dl_error_last()->message);
	dl_free(rows);
	char *commit = fx_commit(dir, 2);
	if (!commit || !strstr(commit, "ADD COLUMNS") || !strstr(commit, "\\\"name\\\":\\\"b\\\""))
		fail_msg("%s: commit 2 is %.1500s", what, commit ? commit : "missing");
	dl_free(commit);
}

static void add_columns_walk(void **state)
{
	(void)state;
	fw_cmd c = {"ALTER TABLE ADD COLUMNS", base_table, NULL, NULL, add_run, add_done, 2, NULL, false};
	fw_walk_both(&c);
}

int main(void)
{
	fw_init();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(add_columns_walk),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
