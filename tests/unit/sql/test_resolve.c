/* The session's table resolver, relations opened directly as the planner
 * opens them: Delta tables (projection and filter pushed into the scan,
 * files pruned, row estimates, time travel), parquet/csv/json files and
 * table_changes, with Spark's error classes and the interrupt check. */
#include "session_test_util.h"
#include "columnar/batch_stream.h"
#include "deltalake/input.h"
#include "deltalake/write.h"
#include "sql/session_internal.h"
#include "util/buf.h"

static void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* Appends CSV rows (with a header) to the Delta table at uri: one commit,
 * one file. */
static void append_csv(session_fixture *f, const char *uri, const char *csv)
{
	char path[128];
	snprintf(path, sizeof path, "%s/in.csv", f->dir);
	write_file(path, csv);
	dl_csv_options co = DL_CSV_OPTIONS_INIT;
	struct ArrowArrayStream st;
	assert_int_equal(dl_read_csv(&st, path, &co), 0);
	dl_write_options wo = DL_WRITE_OPTIONS_INIT;
	wo.mode = DL_WRITE_APPEND;
	int64_t v;
	int rc = dl_write(&v, uri, &st, &wo);
	if (rc) fprintf(stderr, "%s\n", dl_error_last()->message);
	assert_int_equal(rc, 0);
}

typedef struct parsed_ref {
	dl_sql_script *script;
	const sql_table_ref *ref;
} parsed_ref;

static parsed_ref from_ref(const char *from)
{
	char sql[512];
	snprintf(sql, sizeof sql, "SELECT * FROM %s", from);
	parsed_ref p = {0};
	int rc = dl_sql_parse(&p.script, sql);
	if (rc) fprintf(stderr, "%s\n", dl_error_last()->message);
	assert_int_equal(rc, 0);
	p.ref = dl_sql_script_stmt(p.script, 0)->query->select->from;
	return p;
}

/* Resolves `from`, opens it with cols (ncols < 0: all) and filter (may be
 * NULL) and returns its rows as text; *explain gets explain()'s text. */
static char *read_rel(session_fixture *f, const char *from, const char *const *cols, int ncols, const char *filter,
                      char **explain, int64_t *est)
{
	parsed_ref p = from_ref(from);
	sql_env env;
	sql_session_env(&env, f->db);
	sql_relation *r = NULL;
	int rc = sql_resolve(&r, env.payload, p.ref, &env.ctx);
	if (rc) fprintf(stderr, "%s: %s\n", from, dl_error_last()->message);
	assert_int_equal(rc, 0);
	if (est) *est = r->est_rows;
	dl_expr *fe = NULL;
	if (filter) assert_int_equal(dl_expr_parse(&fe, filter), 0);
	if (explain) {
		dl_buf b = DL_BUF_INIT;
		assert_int_equal(r->explain(&b, r, cols, ncols, fe, &env.ctx), 0);
		dl_buf_putc(&b, 0);
		*explain = strdup((const char *)b.data);
		dl_buf_free(&b);
	}
	dl_batch_stream *s = NULL;
	rc = r->open(&s, r, cols, ncols, fe, &env.ctx);
	r->release(r);
	assert_int_equal(rc, 0);
	struct ArrowArrayStream a;
	assert_int_equal(dl_batch_stream_export(&a, s), 0);
	char *text;
	rc = read_all(&text, &a, true);
	if (rc) fprintf(stderr, "%s: reading: %s\n", from, dl_error_last()->message);
	assert_int_equal(rc, 0);
	dl_sql_script_free(p.script);
	return text;
}

static int resolve_error(session_fixture *f, const char *from)
{
	parsed_ref p = from_ref(from);
	sql_env env;
	sql_session_env(&env, f->db);
	sql_relation *r = NULL;
	int rc = sql_resolve(&r, env.payload, p.ref, &env.ctx);
	if (rc == 0) r->release(r);
	dl_sql_script_free(p.script);
	return rc;
}

static void delta_tables(void **state)
{
	session_fixture *f = *state;
	char uri[128], from[256];
	snprintf(uri, sizeof uri, "%s/t", f->dir);
	append_csv(f, uri, "id,name\n1,a\n2,b\n3,c\n");
	append_csv(f, uri, "id,name\n10,x\n11,y\n");
	snprintf(from, sizeof from, "delta.`%s`", uri);
	int64_t est = 0;
	char *text = read_rel(f, from, NULL, -1, NULL, NULL, &est);
	assert_int_equal(est, 5);
	assert_non_null(strstr(text, "id|name\n"));
	assert_non_null(strstr(text, "1|a\n"));
	assert_non_null(strstr(text, "11|y\n"));
	free(text);
	/* the projection in the planner's order, the filter prunes the first file */
	const char *cols[] = {"name", "id"};
	char *explain = NULL;
	text = read_rel(f, from, cols, 2, "id > 5", &explain, NULL);
	assert_string_equal(text, "name|id\nx|10\ny|11\n");
	assert_non_null(strstr(explain, "files 1 of 2 after pruning"));
	free(text);
	free(explain);
	/* time travel: VERSION AS OF, the @v suffix */
	snprintf(from, sizeof from, "delta.`%s` VERSION AS OF 0", uri);
	text = read_rel(f, from, NULL, -1, NULL, NULL, &est);
	assert_int_equal(est, 3);
	assert_null(strstr(text, "10|x"));
	free(text);
	snprintf(from, sizeof from, "delta.`%s@v0`", uri);
	text = read_rel(f, from, cols, 1, NULL, NULL, NULL);
	assert_string_equal(text, "name\na\nb\nc\n");
	free(text);
	snprintf(from, sizeof from, "delta.`%s` TIMESTAMP AS OF '2000-01-01'", uri);
	assert_int_equal(resolve_error(f, from), DL_ENOTFOUND);
	assert_string_equal(dl_error_last()->klass, "DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION");
	snprintf(from, sizeof from, "delta.`%s@20990101000000000`", uri);
	assert_int_equal(resolve_error(f, from), DL_ENOTFOUND);
	assert_string_equal(dl_error_last()->klass, "DELTA_TIMESTAMP_GREATER_THAN_COMMIT");
	snprintf(from, sizeof from, "delta.`%s` TIMESTAMP AS OF current_timestamp() - INTERVAL 1 DAY", uri);
	assert_int_equal(resolve_error(f, from), DL_ENOTFOUND);
	/* catalog names in the current schema */
	char sql[256];
	snprintf(sql, sizeof sql, "CREATE TABLE t LOCATION '%s'", uri);
	expect_ok(f->db, sql);
	text = read_rel(f, "default.t", cols + 1, 1, "name = 'b'", NULL, NULL);
	assert_string_equal(text, "id\n2\n");
	free(text);
	assert_int_equal(resolve_error(f, "nope"), DL_ENOTFOUND);
	assert_string_equal(dl_error_last()->klass, "TABLE_OR_VIEW_NOT_FOUND");
	snprintf(from, sizeof from, "delta.`%s`", f->dir);
	assert_int_equal(resolve_error(f, from), DL_ENOTFOUND);
	assert_string_equal(dl_error_last()->klass, "DELTA_MISSING_DELTA_TABLE");
}

static void file_sources(void **state)
{
	session_fixture *f = *state;
	char path[128], from[256];
	snprintf(path, sizeof path, "%s/a.csv", f->dir);
	write_file(path, "k,v\n1,x\n2,\n");
	snprintf(path, sizeof path, "%s/b.csv", f->dir);
	write_file(path, "3,z\n");
	/* Spark's csv defaults: no header, _c0.. STRING columns, files in order */
	snprintf(from, sizeof from, "csv.`%s/*.csv`", f->dir);
	char *text = read_rel(f, from, NULL, -1, NULL, NULL, NULL);
	assert_string_equal(text, "_c0|_c1\nk|v\n1|x\n2|NULL\n3|z\n");
	free(text);
	const char *c1[] = {"_c1"};
	text = read_rel(f, from, c1, 1, NULL, NULL, NULL);
	assert_string_equal(text, "_c1\nv\nx\nNULL\nz\n");
	free(text);
	/* json: inferred types, columns in alphabetical order */
	snprintf(path, sizeof path, "%s/j.json", f->dir);
	write_file(path, "{\"z\": 1, \"a\": \"p\"}\n{\"z\": 2, \"a\": \"q\"}\n");
	snprintf(from, sizeof from, "json.`%s`", path);
	text = read_rel(f, from, NULL, -1, NULL, NULL, NULL);
	assert_string_equal(text, "a|z\np|1\nq|2\n");
	free(text);
	/* parquet: a Delta table's data files, a directory or a glob */
	char uri[128];
	snprintf(uri, sizeof uri, "%s/t", f->dir);
	append_csv(f, uri, "id\n1\n2\n");
	append_csv(f, uri, "id\n3\n");
	snprintf(from, sizeof from, "parquet.`%s/*.parquet`", uri);
	int64_t est = 0;
	text = read_rel(f, from, NULL, -1, NULL, NULL, &est);
	assert_int_equal(est, 3); /* from the footers */
	assert_int_equal(strlen(text), strlen("id\n1\n2\n3\n"));
	assert_non_null(strstr(text, "3\n"));
	free(text);
	snprintf(from, sizeof from, "parquet.`%s`", uri); /* the directory: _delta_log skipped */
	text = read_rel(f, from, NULL, -1, NULL, NULL, NULL);
	assert_int_equal(strlen(text), strlen("id\n1\n2\n3\n"));
	free(text);
	snprintf(from, sizeof from, "csv.`%s/none*.csv`", f->dir);
	assert_int_equal(resolve_error(f, from), DL_ENOTFOUND);
	assert_string_equal(dl_error_last()->klass, "PATH_NOT_FOUND");
	snprintf(from, sizeof from, "csv.`%s/a.csv` VERSION AS OF 1", f->dir);
	assert_int_equal(resolve_error(f, from), DL_EUNSUPPORTED);
}

static void changes(void **state)
{
	session_fixture *f = *state;
	char uri[128], sql[512], from[256];
	snprintf(uri, sizeof uri, "%s/cdf", f->dir);
	snprintf(sql, sizeof sql,
	         "CREATE TABLE delta.`%s` (id BIGINT, name STRING) TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')",
	         uri);
	expect_ok(f->db, sql);
	append_csv(f, uri, "id,name\n1,a\n");
	append_csv(f, uri, "id,name\n2,b\n");
	snprintf(from, sizeof from, "table_changes('%s', 2)", uri);
	const char *cols[] = {"id", "_change_type", "_commit_version"};
	char *text = read_rel(f, from, cols, 3, NULL, NULL, NULL);
	assert_string_equal(text, "id|_change_type|_commit_version\n2|insert|2\n");
	free(text);
	snprintf(from, sizeof from, "table_changes('%s', 1, 1)", uri);
	text = read_rel(f, from, NULL, -1, NULL, NULL, NULL);
	assert_true(strncmp(text, "id|name|_change_type|_commit_version|_commit_timestamp\n1|a|insert|1|", 67) == 0);
	free(text);
	snprintf(sql, sizeof sql, "CREATE TABLE c LOCATION '%s'", uri);
	expect_ok(f->db, sql);
	text = read_rel(f, "table_changes('c', 1)", cols, 1, NULL, NULL, NULL);
	assert_string_equal(text, "id\n1\n2\n");
	free(text);
	assert_int_equal(resolve_error(f, "table_changes('c')"), DL_EINVALID);
	assert_string_equal(dl_error_last()->klass, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION");
	assert_int_equal(resolve_error(f, "table_changes('nope', 0)"), DL_ENOTFOUND);
	assert_int_equal(resolve_error(f, "other_fn('c', 0)"), DL_ENOTFOUND);
	assert_string_equal(dl_error_last()->klass, "UNRESOLVABLE_TABLE_VALUED_FUNCTION");
}

static void interrupted_streams(void **state)
{
	session_fixture *f = *state;
	char uri[128], from[256];
	snprintf(uri, sizeof uri, "%s/t", f->dir);
	append_csv(f, uri, "id\n1\n");
	snprintf(from, sizeof from, "delta.`%s`", uri);
	parsed_ref p = from_ref(from);
	sql_env env;
	sql_session_env(&env, f->db);
	sql_relation *r = NULL;
	assert_int_equal(sql_resolve(&r, env.payload, p.ref, &env.ctx), 0);
	dl_batch_stream *s = NULL;
	assert_int_equal(r->open(&s, r, NULL, -1, NULL, &env.ctx), 0);
	r->release(r);
	dl_sql_interrupt(f->db);
	dl_batch *b = NULL;
	assert_int_equal(dl_batch_stream_next(s, &b), DL_ECANCELLED);
	assert_null(b);
	dl_batch_stream_free(s);
	/* resolving under a set flag fails too */
	assert_int_equal(sql_resolve(&r, env.payload, p.ref, &env.ctx), DL_ECANCELLED);
	sql_session_begin(f->db);
	assert_int_equal(sql_resolve(&r, env.payload, p.ref, &env.ctx), 0);
	r->release(r);
	dl_sql_script_free(p.script);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(delta_tables, fixture_setup, fixture_teardown),
	    cmocka_unit_test_setup_teardown(file_sources, fixture_setup, fixture_teardown),
	    cmocka_unit_test_setup_teardown(changes, fixture_setup, fixture_teardown),
	    cmocka_unit_test_setup_teardown(interrupted_streams, fixture_setup, fixture_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
