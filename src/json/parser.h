/* Internal state of the JSON parser, shared by parse.c (values and
 * containers), string.c (strings) and number.c (numbers).
 *
 * The parser is iterative: an explicit stack of open containers replaces
 * recursion, so hostile nesting can never exhaust the C stack, and finished
 * children wait on two scratch stacks (values, keys) until their container
 * closes and they are copied into the arena in one block. Nothing is
 * allocated per value except the arena bumps. */
#ifndef DL_JSON_PARSER_H
#define DL_JSON_PARSER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "json/json.h"
#include "util/error.h"

/* Deepest nesting of arrays/objects accepted. Delta's deepest documents are
 * schemas (about three JSON levels per nested struct), far below this. */
#define DL_JSON_MAX_DEPTH 512

typedef struct dl_json_key {
	const char *ptr;
	size_t len;
} dl_json_key;

/* is_object sits between the two starts on purpose: adjacent they get
 * merged into one vector store fed by a vector load of nvals/nkeys, which
 * stalls on the scalar stores just made to those. */
typedef struct dl_json_frame {
	size_t vstart; /* first child on the value stack */
	bool is_object;
	size_t kstart; /* first key on the key stack (objects) */
} dl_json_frame;

/* Inline capacity of the scratch stacks: typical Delta actions never spill
 * to the heap. */
#define DL_JSON_INLINE_VALUES 64
#define DL_JSON_INLINE_KEYS 32
/* Open containers kept inline; deeper documents (rare) move the stack to
 * the heap. Keeps the parser at ~3 KiB of C stack, so a parse can nest
 * inside another's callback on a small-stack thread. */
#define DL_JSON_INLINE_FRAMES 32

typedef struct dl_json_parser {
	dl_arena *arena;
	const char *doc;        /* start of the whole input (byte offsets count from here) */
	const char *what;       /* names the source in messages */
	int64_t line;           /* line number of line_start (1-based) */
	const char *line_start; /* errors count lines/columns from here */

	/* Strings and number texts are bumped byte-wise from one block per
	 * document (or line) sized from the input: the unescaped text plus a
	 * NUL per token never exceeds the input length + 1. */
	char *text_cur, *text_end;

	dl_json *vals;
	size_t nvals, capvals;
	dl_json_key *keys;
	size_t nkeys, capkeys;
	int depth, capframes;
	dl_json_frame *frames; /* inline_frames, or heap past that depth */
	dl_json_frame inline_frames[DL_JSON_INLINE_FRAMES];
	dl_json inline_vals[DL_JSON_INLINE_VALUES];
	dl_json_key inline_keys[DL_JSON_INLINE_KEYS];
} dl_json_parser;

void dl_json_parser_init(dl_json_parser *ps, dl_arena *arena, const char *doc, const char *what);
void dl_json_parser_release(dl_json_parser *ps);
/* Parses one value starting at p (leading whitespace allowed); *next gets
 * the position after it. */
int dl_json_parse_value(dl_json_parser *ps, const char *p, const char *end, dl_json *out,
                        const char **next);

/* Raises DL_ECORRUPT "what: line L col C (byte N): <message>" for position
 * `at`. */
int dl_json_fail(const dl_json_parser *ps, const char *at, const char *fmt, ...) DL_PRINTF(3, 4);

/* p is just after the opening quote. On success *out and *out_len hold the
 * unescaped, NUL-terminated string in the arena and *next is just after the
 * closing quote. */
int dl_json_parse_string(dl_json_parser *ps, const char *p, const char *end, const char **out,
                         size_t *out_len, const char **next);
/* p is at '-' or a digit. Validates the RFC 8259 number grammar and keeps
 * a NUL-terminated copy of the text. */
int dl_json_parse_number(dl_json_parser *ps, const char *p, const char *end, dl_json *out,
                         const char **next);

/* Arena allocation with the arena's own fast path inlined (same semantics
 * as dl_arena_alloc: 16-byte aligned), since the parser allocates for every
 * string and container. */
static inline void *dl_json_alloc(dl_arena *a, size_t n)
{
	size_t need = (n + 15) & ~(size_t)15;
	if (a->cur && need >= n && (size_t)(a->end - a->cur) >= need) {
		void *p = a->cur;
		a->cur += need;
		return p;
	}
	return dl_arena_alloc(a, n);
}

/* Spare bytes at the end of a text block: the string scanner stores whole
 * 8-byte words and short numbers are copied as 16 bytes. */
#define DL_JSON_TEXT_PAD 16

/* Reserves the text block for parsing `len` bytes of input. */
int dl_json_text_reserve(dl_json_parser *ps, size_t len);

/* n bytes of string/number text, unaligned. */
static inline char *dl_json_text_alloc(dl_json_parser *ps, size_t n)
{
	if ((size_t)(ps->text_end - ps->text_cur) >= n) {
		char *p = ps->text_cur;
		ps->text_cur += n;
		return p;
	}
	return dl_json_alloc(ps->arena, n); /* not reached when the bound holds */
}

/* JSON whitespace is all <= ' ', so most calls (compact JSON) cost one
 * comparison. */
static inline const char *dl_json_skip_ws(const char *p, const char *end)
{
	while (p < end && (unsigned char)*p <= ' ') {
		if (*p != ' ' && *p != '\n' && *p != '\r' && *p != '\t') break;
		p++;
	}
	return p;
}

/* A UTF-8 byte order mark is not JSON, but RFC 8259 section 8.1 lets a
 * parser ignore one at the start of the text. */
static inline size_t dl_json_bom_len(const char *text, size_t len)
{
	return len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

#endif
