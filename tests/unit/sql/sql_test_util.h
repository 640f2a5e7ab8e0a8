/* Helpers of the SQL parser tests. */
#ifndef SQL_TEST_UTIL_H
#define SQL_TEST_UTIL_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sql/sql.h"
#include "util/error.h"

/* The canonical text of a one-statement script, NULL (error set) if it
 * does not parse; the caller frees. */
static inline char *canon(const char *text)
{
	dl_sql_script *s;
	if (dl_sql_parse(&s, text) < 0) return NULL;
	dl_buf b = DL_BUF_INIT;
	int rc = dl_sql_script_count(s) == 1 ? dl_sql_print(&b, dl_sql_script_stmt(s, 0)) : -1;
	dl_sql_script_free(s);
	if (rc < 0) {
		dl_buf_free(&b);
		return NULL;
	}
	return dl_buf_detach(&b, NULL);
}

/* Parses text that must hold exactly one statement. */
static inline dl_sql_script *parse1(const char *text)
{
	dl_sql_script *s = NULL;
	int rc = dl_sql_parse(&s, text);
	if (rc < 0) fprintf(stderr, "parse failed: %s\n  %s\n", text, dl_error_last()->message);
	assert_int_equal(rc, 0);
	assert_int_equal(dl_sql_script_count(s), 1);
	return s;
}

#define STMT(s) dl_sql_script_stmt((s), 0)

static inline void assert_canon(const char *text, const char *want)
{
	char *got = canon(text);
	if (!got) fprintf(stderr, "parse failed: %s\n  %s\n", text, dl_error_last()->message);
	else if (strcmp(got, want) != 0) fprintf(stderr, "input: %s\n  want: %s\n  got:  %s\n", text, want, got);
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

#endif
