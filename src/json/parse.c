/* The JSON value parser (RFC 8259): a single pass over the text driven by a
 * small state machine (value -> after a value -> member name), with open
 * containers on an explicit stack. See parser.h for the memory layout. */
#include "json/parser.h"
#include "json/swar.h"
#include "util/mem.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void dl_json_parser_init(dl_json_parser *ps, dl_arena *arena, const char *doc, const char *what)
{
	ps->arena = arena;
	ps->doc = doc;
	ps->what = what ? what : "JSON";
	ps->line = 1;
	ps->line_start = doc;
	ps->text_cur = ps->text_end = NULL;
	ps->vals = ps->inline_vals;
	ps->nvals = 0;
	ps->capvals = DL_JSON_INLINE_VALUES;
	ps->keys = ps->inline_keys;
	ps->nkeys = 0;
	ps->capkeys = DL_JSON_INLINE_KEYS;
	ps->depth = 0;
	ps->frames = ps->inline_frames;
	ps->capframes = DL_JSON_INLINE_FRAMES;
}

void dl_json_parser_release(dl_json_parser *ps)
{
	if (ps->vals != ps->inline_vals) dl_free(ps->vals);
	if (ps->keys != ps->inline_keys) dl_free(ps->keys);
	if (ps->frames != ps->inline_frames) dl_free(ps->frames);
	ps->vals = ps->inline_vals;
	ps->keys = ps->inline_keys;
	ps->frames = ps->inline_frames;
}

int dl_json_fail(const dl_json_parser *ps, const char *at, const char *fmt, ...)
{
	/* Positions are only computed on failure, so the hot path never
	 * counts lines. */
	int64_t line = ps->line;
	const char *ls = ps->line_start;
	for (const char *p = ls; p < at; p++) {
		p = memchr(p, '\n', (size_t)(at - p));
		if (!p) break;
		line++;
		ls = p + 1;
	}
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return dl_error_set(DL_ECORRUPT, "%s: line %lld col %lld (byte %zu): %s", ps->what, (long long)line,
	                    (long long)(at - ls + 1), (size_t)(at - ps->doc), msg);
}

int dl_json_text_reserve(dl_json_parser *ps, size_t len)
{
	size_t n;
	if (!dl_size_add(len, 1 + DL_JSON_TEXT_PAD, &n)) return DL_ENOMEM;
	ps->text_cur = dl_json_alloc(ps->arena, n);
	if (!ps->text_cur) return DL_ENOMEM;
	ps->text_end = ps->text_cur + n;
	return 0;
}

/* Doubles a scratch stack, moving it off the inline array the first time. */
static int grow(void **items, size_t *cap, void *inline_items, size_t elem)
{
	size_t ncap;
	if (!dl_size_mul(*cap, 2, &ncap)) return DL_ENOMEM;
	void *p;
	if (*items == inline_items) {
		p = dl_reallocarray(NULL, ncap, elem);
		if (p) memcpy(p, inline_items, *cap * elem);
	} else {
		p = dl_reallocarray(*items, ncap, elem);
	}
	if (!p) return DL_ENOMEM;
	*items = p;
	*cap = ncap;
	return 0;
}

/* The slot the next value is parsed into: the root, or the top of the
 * value stack (committed by done_value). Values are written in place field
 * by field; building them elsewhere and copying the struct costs a
 * store-forwarding stall per value. */
static inline dl_json *value_slot(dl_json_parser *ps, dl_json *root)
{
	if (ps->depth == 0) return root;
	if (ps->nvals == ps->capvals &&
	    grow((void **)&ps->vals, &ps->capvals, ps->inline_vals, sizeof(dl_json)) < 0)
		return NULL;
	return &ps->vals[ps->nvals];
}

static inline int push_key(dl_json_parser *ps, const char *key, size_t len)
{
	if (ps->nkeys == ps->capkeys)
		DL_TRY(grow((void **)&ps->keys, &ps->capkeys, ps->inline_keys, sizeof(dl_json_key)));
	ps->keys[ps->nkeys].ptr = key;
	ps->keys[ps->nkeys].len = len;
	ps->nkeys++;
	return 0;
}

static inline int open_container(dl_json_parser *ps, const char *at, bool is_object)
{
	if (ps->depth == ps->capframes) {
		if (ps->depth == DL_JSON_MAX_DEPTH)
			return dl_json_fail(ps, at, "nesting deeper than %d arrays/objects: expected at most %d levels",
			                    DL_JSON_MAX_DEPTH, DL_JSON_MAX_DEPTH);
		size_t cap = (size_t)ps->capframes;
		DL_TRY(grow((void **)&ps->frames, &cap, ps->inline_frames, sizeof(dl_json_frame)));
		ps->capframes = cap > DL_JSON_MAX_DEPTH ? DL_JSON_MAX_DEPTH : (int)cap;
	}
	dl_json_frame *f = &ps->frames[ps->depth++];
	f->vstart = ps->nvals;
	f->kstart = ps->nkeys;
	f->is_object = is_object;
	return 0;
}

/* Moves the innermost container's children from the scratch stacks into
 * one arena block and writes the container into its own slot: the root or
 * the stack slot where its first child was. */
static int close_container(dl_json_parser *ps, dl_json *root)
{
	dl_json_frame *f = &ps->frames[--ps->depth];
	size_t n = ps->nvals - f->vstart;
	const dl_json *src = ps->vals + f->vstart;
	dl_json *dst = ps->depth == 0 ? root : ps->vals + f->vstart;
	if (f->is_object) {
		dl_json_member *m = NULL;
		if (n) {
			m = dl_json_alloc(ps->arena, n * sizeof *m);
			if (!m) return DL_ENOMEM;
			const dl_json_key *k = ps->keys + f->kstart;
			for (size_t i = 0; i < n; i++) {
				m[i].key = k[i].ptr;
				m[i].key_len = k[i].len;
				m[i].value = src[i];
			}
		}
		dst->kind = DL_JSON_OBJECT;
		dst->u.obj.items = m;
		dst->u.obj.n = n;
		ps->nkeys = f->kstart;
	} else {
		dl_json *a = NULL;
		if (n) {
			a = dl_json_alloc(ps->arena, n * sizeof *a);
			if (!a) return DL_ENOMEM;
			memcpy(a, src, n * sizeof *a);
		}
		dst->kind = DL_JSON_ARRAY;
		dst->u.arr.items = a;
		dst->u.arr.n = n;
	}
	ps->nvals = f->vstart;
	return 0;
}

/* The common string, inlined: plain ASCII ending in a quote found by the
 * word scan. Anything else (escapes, UTF-8, short tails, little room) goes
 * to dl_json_parse_string from the start. Saves a call with six arguments
 * per string. */
static inline int string_value(dl_json_parser *ps, const char *p, const char *end, const char **out,
                               size_t *out_len, const char **next)
{
#if DL_JSON_SWAR_LE
	if ((size_t)(ps->text_end - ps->text_cur) >= (size_t)(end - p) + DL_JSON_TEXT_PAD) {
		char *d0 = ps->text_cur, *d = d0;
		const char *s = p;
		while (end - s >= 8) {
			uint64_t v;
			memcpy(&v, s, 8);
			memcpy(d, &v, 8);
			uint64_t mask = dl_json_special_bytes(v);
			if (mask) {
				size_t i = dl_json_first_special(mask, s);
				if (s[i] != '"') break;
				d[i] = 0;
				*out = d0;
				*out_len = (size_t)(d + i - d0);
				*next = s + i + 1;
				ps->text_cur = d + i + 1;
				return 0;
			}
			s += 8;
			d += 8;
		}
	}
#endif
	return dl_json_parse_string(ps, p, end, out, out_len, next);
}

/* Checks that the literal `lit` (true/false/null) is at p. */
static inline int literal(dl_json_parser *ps, const char *p, const char *end, const char *lit, size_t n)
{
	if ((size_t)(end - p) >= n) {
		size_t i = 1; /* p[0] matched already */
		while (i < n && p[i] == lit[i]) i++;
		if (i == n) return 0;
	}
	return dl_json_fail(ps, p, "invalid literal: expected '%s'", lit);
}

static int bad_value(dl_json_parser *ps, const char *p, const char *end)
{
	if (p == end) return dl_json_fail(ps, p, "unexpected end of input: expected a value");
	unsigned char c = (unsigned char)*p;
	if (c >= 0x20 && c < 0x7F)
		return dl_json_fail(ps, p, "unexpected '%c': expected a value (object, array, string, number, true, false or null)", c);
	return dl_json_fail(ps, p, "unexpected byte 0x%02X: expected a value (object, array, string, number, true, false or null)", c);
}

static int bad_after(dl_json_parser *ps, const char *p, const char *end, bool is_object)
{
	const char *want = is_object ? "',' or '}' after an object member" : "',' or ']' after an array element";
	if (p == end) return dl_json_fail(ps, p, "unexpected end of input: expected %s", want);
	unsigned char c = (unsigned char)*p;
	if (c >= 0x20 && c < 0x7F) return dl_json_fail(ps, p, "unexpected '%c': expected %s", c, want);
	return dl_json_fail(ps, p, "unexpected byte 0x%02X: expected %s", c, want);
}

int dl_json_parse_value(dl_json_parser *ps, const char *p, const char *end, dl_json *out,
                        const char **next)
{
	dl_json *v;
	const char *s;
	size_t n;
	ps->depth = 0;
	ps->nvals = ps->nkeys = 0;

value:
	p = dl_json_skip_ws(p, end);
	if (p == end) return bad_value(ps, p, end);
	if (!(v = value_slot(ps, out))) return DL_ENOMEM;
	switch (*p) {
	case '{':
		DL_TRY(open_container(ps, p, true));
		p = dl_json_skip_ws(p + 1, end);
		if (p < end && *p == '}') {
			p++;
			DL_TRY(close_container(ps, out));
			goto done_value;
		}
		goto member;
	case '[':
		DL_TRY(open_container(ps, p, false));
		p = dl_json_skip_ws(p + 1, end);
		if (p < end && *p == ']') {
			p++;
			DL_TRY(close_container(ps, out));
			goto done_value;
		}
		goto value;
	case '"':
		v->kind = DL_JSON_STRING;
		DL_TRY(string_value(ps, p + 1, end, &v->u.str.ptr, &v->u.str.len, &p));
		goto done_value;
	case 't':
		DL_TRY(literal(ps, p, end, "true", 4));
		p += 4;
		v->kind = DL_JSON_TRUE;
		goto done_value;
	case 'f':
		DL_TRY(literal(ps, p, end, "false", 5));
		p += 5;
		v->kind = DL_JSON_FALSE;
		goto done_value;
	case 'n':
		DL_TRY(literal(ps, p, end, "null", 4));
		p += 4;
		v->kind = DL_JSON_NULL;
		goto done_value;
	case '-': case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		DL_TRY(dl_json_parse_number(ps, p, end, v, &p));
		goto done_value;
	default:
		return bad_value(ps, p, end);
	}

done_value:
	if (ps->depth == 0) {
		*next = p;
		return 0;
	}
	ps->nvals++; /* commit the slot value_slot handed out */
	p = dl_json_skip_ws(p, end);
	if (ps->frames[ps->depth - 1].is_object) {
		if (p < end && *p == ',') {
			p = dl_json_skip_ws(p + 1, end);
			goto member;
		}
		if (p < end && *p == '}') {
			p++;
			DL_TRY(close_container(ps, out));
			goto done_value;
		}
		return bad_after(ps, p, end, true);
	}
	if (p < end && *p == ',') {
		p++;
		goto value;
	}
	if (p < end && *p == ']') {
		p++;
		DL_TRY(close_container(ps, out));
		goto done_value;
	}
	return bad_after(ps, p, end, false);

member:
	if (p == end || *p != '"') {
		if (p == end) return dl_json_fail(ps, p, "unexpected end of input: expected a member name (a string)");
		return dl_json_fail(ps, p, "expected a member name (a string in double quotes)");
	}
	DL_TRY(string_value(ps, p + 1, end, &s, &n, &p));
	DL_TRY(push_key(ps, s, n));
	p = dl_json_skip_ws(p, end);
	if (p == end || *p != ':') return dl_json_fail(ps, p, "expected ':' after the member name");
	p++;
	goto value;
}

int dl_json_parse(dl_arena *arena, const char *text, size_t len, const char *what, dl_json **out)
{
	if ((!text && len) || !arena || !out)
		return dl_error_set(DL_EINVALID, "dl_json_parse: text, arena and out must not be NULL");
	if (!text) text = "";
	dl_json_parser ps;
	dl_json_parser_init(&ps, arena, text, what);
	const char *end = text + len, *next;
	dl_json v;
	size_t bom = dl_json_bom_len(text, len);
	int rc = dl_json_text_reserve(&ps, len - bom);
	if (rc == 0) rc = dl_json_parse_value(&ps, text + bom, end, &v, &next);
	if (rc == 0) {
		next = dl_json_skip_ws(next, end);
		if (next != end)
			rc = dl_json_fail(&ps, next, "unexpected data after the value: expected the end of the input");
	}
	if (rc == 0) {
		dl_json *node = dl_json_alloc(arena, sizeof *node);
		if (!node) rc = DL_ENOMEM;
		else {
			*node = v;
			*out = node;
		}
	}
	dl_json_parser_release(&ps);
	return rc;
}
