/* Failure walk (unit/ops/fail_walk.h) over VACUUM RETAIN 0 HOURS (retention
 * check off): an overwrite's removed files and an orphan data file go. */
#include "unit/ops/fail_walk.h"
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
	o = fx_opts(DL_WRITE_OVERWRITE);
	assert_int_equal(fx_write(&v, dir, ddl, "3,a;4,c", &o), 0);
	assert_int_equal(v, 2);
	/* a data file no commit references (a failed writer's) */
	char p[2048];
	snprintf(p, sizeof p, "%s/p=a/part-00000-orphan.c000.snappy.parquet", dir);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs("not parquet", f);
	fclose(f);
	/* old enough for any retention: a day ago */
	fw_sh("touch -d '1 day ago' '%s'%s", p, "");
}

static int vacuum_run(const char *dir, dl_store *store, void *input)
{
	(void)dir, (void)input;
	dl_vacuum_options o = DL_VACUUM_OPTIONS_INIT;
	o.store = store;
	o.retain_hours = 0;
	o.no_retention_check = true;
	o.threads = 1;
	dl_vacuum_result r;
	int rc = dl_vacuum(&r, NULL, &o);
	/* the two files of version 1 and the orphan */
	if (rc == 0 && (r.numDeletedFiles != 3 || r.start_version != 3 || r.end_version != 4))
		fail_msg("VACUUM: %lld deleted, versions %lld and %lld", (long long)r.numDeletedFiles,
		         (long long)r.start_version, (long long)r.end_version);
	return rc;
}

static bool reads_as_before(const char *dir)
{
	char *rows = fx_read(dir, -1, "id,p");
	bool ok = rows && strcmp(rows, "3,a;4,c") == 0;
	dl_free(rows);
	return ok;
}

static void vacuum_done(const char *dir, const char *what)
{
	if (!reads_as_before(dir)) fail_msg("%s: the table no longer reads as before", what);
	if (fx_count_parquet(dir) != 2) fail_msg("%s: %d data files left", what, fx_count_parquet(dir));
}

/* VACUUM is not one commit: VACUUM START, the deletes, VACUUM END (status
 * FAILED after a failed delete, as Spark's logVacuumEnd). A failure may
 * leave START (and END) committed and some of the files VACUUM deletes
 * deleted; nothing else may change, and the table reads as before. */
static const char *vacuum_partial(const fw_tree *before, const fw_tree *done, const fw_tree *after,
                                  const char *dir)
{
	static char why[1200];
	for (size_t i = 0; i < before->n; i++) {
		const fw_file *b = &before->files[i], *a = fw_tree_find(after, b->path);
		if (a && !fw_file_same(a, b)) {
			snprintf(why, sizeof why, "%s changed", b->path);
			return why;
		}
		if (!a && fw_tree_find(done, b->path)) {
			snprintf(why, sizeof why, "%s is gone but VACUUM keeps it", b->path);
			return why;
		}
	}
	for (size_t i = 0; i < after->n; i++) {
		const char *p = after->files[i].path;
		if (fw_tree_find(before, p)) continue;
		/* _delta_log/<20 digits>.json or .crc: VACUUM START / END */
		size_t n = strlen(p);
		bool marker = strncmp(p, "_delta_log/", 11) == 0 && (n == 11 + 25 || n == 11 + 24) &&
		              (strcmp(p + 31, ".json") == 0 || strcmp(p + 31, ".crc") == 0);
		if (!marker) {
			snprintf(why, sizeof why, "stray file %s", p);
			return why;
		}
	}
	return reads_as_before(dir) ? NULL : "the table no longer reads as before";
}

static void vacuum_walk(void **state)
{
	(void)state;
	fw_cmd c = {"VACUUM", base_table, NULL, NULL, vacuum_run, vacuum_done, 4, vacuum_partial, false};
	fw_walk_both(&c);
}

int main(void)
{
	fw_init();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(vacuum_walk),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
