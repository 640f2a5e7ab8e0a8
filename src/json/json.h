/* JSON: a fast DOM parser for the Delta log (newline-delimited actions, and
 * the nested `stats` strings) and a streaming writer.
 *
 * Parsed values live in a dl_arena owned by the caller: no per-value frees,
 * and a whole commit file's actions are released at once. Strings are
 * unescaped into the arena and NUL-terminated; object members keep their
 * order. Numbers keep their source text so large integers and decimals are
 * not rounded through double. */
#ifndef DL_JSON_JSON_H
#define DL_JSON_JSON_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/arena.h"
#include "util/buf.h"

typedef enum dl_json_kind {
	DL_JSON_NULL,
	DL_JSON_FALSE,
	DL_JSON_TRUE,
	DL_JSON_NUMBER,
	DL_JSON_STRING,
	DL_JSON_ARRAY,
	DL_JSON_OBJECT,
} dl_json_kind;

typedef struct dl_json dl_json;
typedef struct dl_json_member dl_json_member;

struct dl_json {
	dl_json_kind kind;
	union {
		struct { const char *ptr; size_t len; } str; /* STRING (unescaped) */
		struct { const char *ptr; size_t len; } num; /* NUMBER source text */
		struct { dl_json *items; size_t n; } arr;   /* ARRAY */
		struct { dl_json_member *items; size_t n; } obj; /* OBJECT */
	} u;
};

struct dl_json_member {
	const char *key; /* unescaped, NUL-terminated */
	size_t key_len;
	dl_json value;
};

/* Parses one JSON value spanning all of text[0..len) (surrounding whitespace
 * allowed; text need not be NUL-terminated). Strict RFC 8259: UTF-8 only, a
 * leading BOM is skipped. On error returns DL_ECORRUPT "<what>: line L col C
 * (byte N): ... expected ..."; `what` names the source (e.g. a file path).
 * Depth is limited to 512 (hostile input cannot exhaust the stack). All
 * values, strings and number texts are copied into the arena: `text` may be
 * freed afterwards. Duplicate member names are kept (dl_json_get: last). */
int dl_json_parse(dl_arena *arena, const char *text, size_t len, const char *what, dl_json **out);

/* Newline-delimited JSON: calls `fn` for each non-blank line's value with
 * its 1-based line number; stops at the first error (parse or callback: a
 * non-zero return is returned, negative ones with "<what>: line L: "
 * prefixed). The callback may dl_arena_reset the arena (values of earlier
 * lines die; the parser keeps no pointer into them). */
typedef int (*dl_json_line_fn)(const dl_json *value, int64_t line, void *payload);
int dl_json_parse_lines(dl_arena *arena, const char *text, size_t len, const char *what,
                        dl_json_line_fn fn, void *payload);

/* Lookups (NULL when absent or of another kind). */
const dl_json *dl_json_get(const dl_json *obj, const char *key);
const char *dl_json_get_str(const dl_json *obj, const char *key); /* NUL-terminated */
bool dl_json_is_null(const dl_json *v);
/* Number conversions: 0 on success, DL_EINVALID if not a number or out of
 * range. int64 is exact and accepts integer syntax only (no '.', no 'e');
 * double is correctly rounded (underflow gives 0, overflow is an error). */
int dl_json_int64(const dl_json *v, int64_t *out);
int dl_json_double(const dl_json *v, double *out);
/* Serializes a parsed value back to compact JSON (numbers from their text;
 * DL_EINVALID for strings that are not UTF-8). */
int dl_json_write(dl_buf *out, const dl_json *v);

/* Streaming writer: builds compact JSON into a dl_buf with commas handled.
 * Misuse (a value in an object without a key, a key in an array, unbalanced
 * ends, nesting deeper than 63, a non-finite double) records a sticky
 * DL_EINVALID that dl_jw_finish returns; later calls then do nothing. One
 * writer produces one top-level value; for newline-delimited output, append
 * '\n' to the buffer and dl_jw_init again. */
typedef struct dl_json_writer {
	dl_buf *out;
	int depth;
	uint64_t need_comma; /* bit per depth */
	int error;           /* first error (sticky) */
	uint64_t in_object;  /* bit per depth: that level is an object */
	bool after_key;      /* a key was written; its value comes next */
} dl_json_writer;

void dl_jw_init(dl_json_writer *w, dl_buf *out);
void dl_jw_object_begin(dl_json_writer *w);
void dl_jw_object_end(dl_json_writer *w);
void dl_jw_array_begin(dl_json_writer *w);
void dl_jw_array_end(dl_json_writer *w);
void dl_jw_key(dl_json_writer *w, const char *key);
void dl_jw_string(dl_json_writer *w, const char *s);
void dl_jw_string_n(dl_json_writer *w, const char *s, size_t n);
void dl_jw_int(dl_json_writer *w, int64_t v);
/* Shortest of %.15g/%.16g/%.17g that reads back as the same double, in the
 * C locale. NaN and infinities have no JSON form: they set DL_EINVALID (the
 * caller decides: omit the field or write null). */
void dl_jw_double(dl_json_writer *w, double v);
void dl_jw_bool(dl_json_writer *w, bool v);
void dl_jw_null(dl_json_writer *w);
void dl_jw_raw(dl_json_writer *w, const char *json); /* an already-encoded value */
/* 0 or the first error. */
int dl_jw_finish(dl_json_writer *w);

#endif
