/* Helpers of the SQL session tests: a connection on a temporary warehouse
 * and results as text ("a|b\n" per row, NULL cells as "NULL"). Through the
 * public API only (deltalake/sql.h), as a program uses it. */
#ifndef SESSION_TEST_UTIL_H
#define SESSION_TEST_UTIL_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "deltalake/error.h"
#include "deltalake/sql.h"

typedef struct session_fixture {
	char dir[64];
	char warehouse[96];
	dl_sql_conn *db;
} session_fixture;

static inline int fixture_setup(void **state)
{
	session_fixture *f = calloc(1, sizeof *f);
	snprintf(f->dir, sizeof f->dir, "/tmp/dl_session_XXXXXX");
	if (!mkdtemp(f->dir)) return -1;
	snprintf(f->warehouse, sizeof f->warehouse, "%s/wh", f->dir);
	dl_sql_options o = DL_SQL_OPTIONS_INIT;
	o.warehouse = f->warehouse;
	if (dl_sql_open(&f->db, &o) != 0) return -1;
	*state = f;
	return 0;
}

static inline int fixture_teardown(void **state)
{
	session_fixture *f = *state;
	dl_sql_close(f->db);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
	if (system(cmd) != 0) return -1;
	free(f);
	return 0;
}

/* Reads a whole result into text; returns the rc of the first failure
 * (execute or get_next). Column names go first as a header line when
 * header is true. */
static inline int read_all(char **text, struct ArrowArrayStream *st, bool header)
{
	size_t cap = 256, len = 0;
	char *out = malloc(cap);
	out[0] = 0;
	struct ArrowSchema sc;
	int rc = st->get_schema(st, &sc);
	dl_arrow_formatter *fm = NULL;
	if (rc == 0) rc = dl_arrow_formatter_new(&fm, &sc);
#define APPEND(s)                                           \
	do {                                                    \
		size_t n_ = strlen(s);                              \
		while (len + n_ + 2 > cap) out = realloc(out, cap *= 2); \
		memcpy(out + len, s, n_ + 1);                       \
		len += n_;                                          \
	} while (0)
	if (rc == 0 && header) {
		for (int64_t i = 0; i < sc.n_children; i++) {
			if (i) APPEND("|");
			APPEND(sc.children[i]->name);
		}
		APPEND("\n");
	}
	while (rc == 0) {
		struct ArrowArray b;
		memset(&b, 0, sizeof b);
		rc = st->get_next(st, &b);
		if (rc != 0 || !b.release) break;
		int64_t rows;
		int ncols = (int)sc.n_children;
		rc = dl_arrow_formatter_set_batch(&rows, fm, &b);
		for (int64_t r = 0; rc == 0 && r < rows; r++) {
			for (int c = 0; c < ncols; c++) {
				const char *t;
				size_t n;
				dl_arrow_formatter_cell(&t, &n, fm, c, r, DL_FORMAT_TEXT);
				if (c) APPEND("|");
				APPEND(t ? t : "NULL");
			}
			APPEND("\n");
		}
	}
#undef APPEND
	if (fm) dl_arrow_formatter_free(fm);
	if (sc.release) sc.release(&sc);
	st->release(st);
	*text = out;
	return rc;
}

/* Runs sql; the result as text (caller frees), NULL on error (printed). */
static inline char *run(dl_sql_conn *db, const char *sql)
{
	struct ArrowArrayStream st;
	int rc = dl_sql_execute(&st, db, sql);
	if (rc < 0) {
		fprintf(stderr, "  %s\n  -> %s [%s]\n", sql, dl_error_last()->message, dl_error_last()->klass);
		return NULL;
	}
	char *text;
	rc = read_all(&text, &st, false);
	if (rc != 0) {
		fprintf(stderr, "  %s\n  -> reading: %s\n", sql, dl_error_last()->message);
		free(text);
		return NULL;
	}
	return text;
}

/* Asserts that sql succeeds with exactly `expect` as its rows. */
#define expect_rows(db, sql, expect)                \
	do {                                            \
		char *got_ = run((db), (sql));              \
		assert_non_null(got_);                      \
		assert_string_equal(got_, (expect));        \
		free(got_);                                 \
	} while (0)

#define expect_ok(db, sql) expect_rows(db, sql, "")

/* Asserts that sql fails with code and error class klass. */
#define expect_error(db_, sql_, code_, klass_)                                    \
	do {                                                                      \
		struct ArrowArrayStream st_;                                          \
		int rc_ = dl_sql_execute(&st_, (db_), (sql_));                          \
		if (rc_ == 0) {                                                       \
			char *t_;                                                         \
			rc_ = read_all(&t_, &st_, false);                                 \
			free(t_);                                                         \
			if (rc_ > 0) rc_ = dl_error_last()->code;                         \
		}                                                                     \
		if (rc_ != (code_) || strcmp(dl_error_last()->klass, (klass_)) != 0)    \
			fprintf(stderr, "  %s\n  -> %d %s [%s]\n", (sql_), rc_,            \
			        dl_error_last()->message, dl_error_last()->klass);        \
		assert_int_equal(rc_, (code_));                                        \
		assert_string_equal(dl_error_last()->klass, (klass_));                 \
	} while (0)

#endif
