/* Failure walk (unit/ops/fail_walk.h) over OPTIMIZE: three small files of
 * one partition and two of another are compacted into one file each. */
#include "fail_walk.h"
#include "deltalake/maintenance.h"
#include "deltalake/write.h"

static const char *ddl = "id BIGINT, p STRING";

static void base_table(const char *dir)
{
	dl_create_options co = DL_CREATE_OPTIONS_INIT;
	co.schema_ddl = ddl;
	const char *parts[] = {"p"};
	co.partition_columns = parts;
	co.npartition_columns = 1;
	int64_t v;
	assert_int_equal(dl_create_table(&v, dir, &co), 0);
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	assert_int_equal(fx_write(&v, dir, ddl, "1,a;2,b", &o), 0);
	assert_int_equal(fx_write(&v, dir, ddl, "3,a;4,b", &o), 0);
	assert_int_equal(fx_write(&v, dir, ddl, "5,a", &o), 0);
	assert_int_equal(v, 3);
}

static int optimize_run(const char *dir, dl_store *store, void *input)
{
	(void)dir, (void)input;
	dl_optimize_options o = DL_OPTIMIZE_OPTIONS_INIT;
	o.store = store;
	o.threads = 1;
	dl_optimize_metrics m;
	int rc = dl_optimize(&m, NULL, &o);
	if (rc == 0 && (m.version != 4 || m.numRemovedFiles != 5 || m.numAddedFiles != 2))
		fail_msg("OPTIMIZE: version %lld, %lld files removed, %lld added", (long long)m.version,
		         (long long)m.numRemovedFiles, (long long)m.numAddedFiles);
	return rc;
}

static void optimize_done(const char *dir, const char *what)
{
	char *rows = fx_read(dir, -1, "id,p");
	if (!rows || strcmp(rows, "1,a;2,b;3,a;4,b;5,a") != 0)
		fail_msg("%s: the table reads as \"%s\"", what, rows ? rows : dl_error_last()->message);
	dl_free(rows);
}

static void optimize_walk(void **state)
{
	(void)state;
	fw_cmd c = {"OPTIMIZE", base_table, NULL, NULL, optimize_run, optimize_done, 4, NULL, false};
	fw_walk_both(&c);
}

int main(void)
{
	fw_init();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(optimize_walk),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
