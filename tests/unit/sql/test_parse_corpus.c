/* The seeds' SQL examples (seed_statements.sql) all parse, and printing is
 * a fixpoint: parse(print(t)) prints as print(t), statement by statement. */
#include "sql_test_util.h"

static char *read_corpus(void)
{
	FILE *f = fopen(DL_SOURCE_DIR "/tests/unit/sql/seed_statements.sql", "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc((size_t)n + 1);
	assert_non_null(s);
	assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
	s[n] = 0;
	fclose(f);
	return s;
}

static void test_corpus_parses_and_round_trips(void **state)
{
	(void)state;
	char *text = read_corpus();
	dl_sql_script *s = NULL;
	int rc = dl_sql_parse(&s, text);
	if (rc < 0) fprintf(stderr, "%s\n", dl_error_last()->message);
	assert_int_equal(rc, 0);
	size_t n = dl_sql_script_count(s);
	assert_true(n >= 150);
	bool kinds[64] = {0};
	for (size_t i = 0; i < n; i++) {
		const sql_stmt *st = dl_sql_script_stmt(s, i);
		kinds[st->kind] = true;
		dl_buf b = DL_BUF_INIT;
		assert_int_equal(dl_sql_print(&b, st), 0);
		char *again = canon(b.data);
		if (!again || strcmp(again, b.data) != 0)
			fprintf(stderr, "statement %zu: %.*s\n  printed: %s\n  reprinted: %s\n  %s\n", i,
			        (int)(st->end - st->start), text + st->start, b.data, again ? again : "(error)",
			        again ? "" : dl_error_last()->message);
		assert_non_null(again);
		assert_string_equal(again, b.data);
		free(again);
		dl_buf_free(&b);
	}
	/* the seeds exercise these statement kinds */
	sql_stmt_kind seen[] = {ST_QUERY, ST_CREATE_TABLE, ST_CLONE, ST_INSERT, ST_DELETE, ST_UPDATE, ST_MERGE,
	                        ST_OPTIMIZE, ST_REORG, ST_VACUUM, ST_RESTORE, ST_CONVERT, ST_GENERATE,
	                        ST_ALTER_TABLE, ST_DESCRIBE_HISTORY, ST_DESCRIBE_DETAIL, ST_SET};
	for (size_t i = 0; i < sizeof seen / sizeof seen[0]; i++) {
		if (!kinds[seen[i]]) fprintf(stderr, "no %s in the corpus\n", dl_sql_stmt_kind_name(seen[i]));
		assert_true(kinds[seen[i]]);
	}
	dl_sql_script_free(s);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_corpus_parses_and_round_trips),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
