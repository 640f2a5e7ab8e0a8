/* Lexical helpers of the parser: literal values from token text. */
#ifndef DL_EXPR_PARSE_UTIL_H
#define DL_EXPR_PARSE_UTIL_H
#include "expr/expr.h"
#include "util/arena.h"
#include "util/buf.h"

/* Numeric literal with Spark's typing: 12 INT (BIGINT or DECIMAL when it
 * does not fit), 12L BIGINT, 12S SMALLINT, 12Y TINYINT, 1.5 DECIMAL(2,1),
 * 1.5E2 / 1.5D DOUBLE, 1.5F FLOAT, 1.5BD DECIMAL. */
int ex_parse_number_literal(const char *text, dl_scalar *out);
/* Negates a numeric literal in place; DL_EINVALID when it would overflow. */
int ex_negate_literal(dl_scalar *s);
/* Spark string escapes: \n \t \r \b \0 \Z \\ \' \" \uXXXX \ooo; \% and \_
 * keep their backslash (LIKE patterns). */
int ex_unescape_string(dl_buf *out, const char *s, size_t n);
int ex_hex_value(char c);
/* `a``b` -> a`b, in the arena. */
char *ex_unquote_ident(dl_arena *a, const char *p, size_t len);
/* Adds "<num> <unit>" to an interval. */
int ex_interval_add(const char *unit, const char *num, size_t nlen, bool neg, int32_t *months, int32_t *days,
                    int64_t *micros);
/* A data type from SQL text ("DECIMAL(10,2)", "ARRAY<INT>"). */
int ex_parse_type_text(dl_type **out, const char *text);
/* Decimal text ([+-]digits[.digits][E[+-]exp], surrounding spaces allowed)
 * -> unscaled value at `scale`; digits beyond the scale are dropped, or
 * rounded HALF_UP when round_half_up. DL_EINVALID if malformed or over
 * `precision` digits. */
int ex_decimal_from_text(const char *s, size_t n, int precision, int scale, dl_i128 *out, bool round_half_up);

#endif
