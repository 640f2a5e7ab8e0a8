/* Helpers shared by the expression tests: evaluate SQL to text. */
#ifndef EXPR_TEST_UTIL_H
#define EXPR_TEST_UTIL_H
#include <stdio.h>
#include <string.h>
#include "columnar/builder.h"
#include "expr/eval.h"
#include "util/mem.h"

/* Row `row` of an array as Spark would print it ("NULL" for null). */
static inline void tu_format(char *out, size_t cap, const dl_array *a, int64_t row, const char *tz)
{
	ex_val v, s;
	ex_val_load(&v, a, row);
	if (v.null) {
		snprintf(out, cap, "NULL");
		return;
	}
	dl_type *st = dl_type_new(DL_TYPE_STRING);
	dl_buf b = DL_BUF_INIT;
	const dl_tz *zone = dl_tz_utc();
	if (tz) dl_tz_get(&zone, tz, strlen(tz));
	if (ex_cast_val(&s, &v, a->type, st, false, zone, &b) == 0)
		snprintf(out, cap, "%.*s", (int)s.v.s.n, s.v.s.p);
	else
		snprintf(out, cap, "ERR:%s", dl_error_last()->message);
	dl_buf_free(&b);
	dl_type_unref(st);
}

/* Evaluates sql over batch (or a one-row empty batch) and formats row 0..
 * into out. Errors come back as "ERR:<message>". */
static inline void tu_eval_row(char *out, size_t cap, const char *sql, const dl_batch *batch, int64_t row,
                               const char *tz)
{
	dl_expr *e = NULL;
	dl_type *empty = NULL;
	dl_batch one = {0};
	if (!batch) {
		empty = dl_type_struct(NULL, 0);
		one.schema = empty;
		one.num_rows = 1;
		batch = &one;
	}
	int rc = dl_expr_parse(&e, sql);
	dl_eval_ctx ctx = {tz, 1700000000000000LL};
	if (rc == 0) rc = dl_expr_bind_ctx(e, batch->schema, &ctx);
	dl_array *a = NULL;
	if (rc == 0) rc = dl_expr_eval(&a, e, batch, &ctx);
	if (rc < 0) snprintf(out, cap, "ERR:%s", dl_error_last()->message);
	else tu_format(out, cap, a, row, tz);
	dl_array_free(a);
	dl_expr_free(e);
	if (empty) dl_type_unref(empty);
}

#endif
