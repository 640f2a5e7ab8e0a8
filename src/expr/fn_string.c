/* String functions over UTF-8, counting characters (code points) as Spark
 * does. Results are written to the row's scratch buffer; no per-row
 * allocation. Case mapping covers ASCII, Latin-1, Latin Extended-A, Greek
 * and Cyrillic (see docs/EXPRESSIONS.md). */
#include "expr/fn.h"
#include "expr/like.h"
#include "expr/regex_java.h"
#include "expr/thread_cache.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/utf8.h"
#include <ctype.h>
#include <regex.h>
#include <string.h>

static int u8len(unsigned char c)
{
	return c < 0x80 ? 1 : c < 0xC0 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
}

static int64_t nchars(const char *s, int64_t n)
{
	int64_t c = 0;
	for (int64_t i = 0; i < n; c++) i += u8len((unsigned char)s[i]);
	return c;
}

/* Byte offset of character k (clamped to n). */
static int64_t char_off(const char *s, int64_t n, int64_t k)
{
	int64_t i = 0;
	while (k-- > 0 && i < n) i += u8len((unsigned char)s[i]);
	return i < n ? i : n;
}

static void set_str(ex_val *out, const char *p, int64_t n)
{
	out->v.s.p = p;
	out->v.s.n = n;
}

static void set_buf(ex_row *r, ex_val *out, size_t start)
{
	out->v.s.p = r->buf->data ? r->buf->data + start : "";
	out->v.s.n = (int64_t)(r->buf->len - start);
}

BINDFN(bind_concat)
{
	/* length() and concat() of binaries work on bytes; everything else is
	 * a string. */
	bool all_bin = n->nargs > 0;
	for (int i = 0; i < n->nargs; i++) all_bin &= n->args[i]->type->id == DL_TYPE_BINARY;
	if (all_bin && strcmp(n->fn->name, "concat") == 0) {
		n->type = ex_type(b, DL_TYPE_BINARY);
		return n->type ? 0 : DL_ENOMEM;
	}
	if (!all_bin)
		for (int i = 0; i < n->nargs; i++) DL_TRY(ex_coerce(b, &n->args[i], ex_type(b, DL_TYPE_STRING)));
	return 0;
}

ROWFN(fn_length)
{
	out->v.i = r->argt[0]->id == DL_TYPE_BINARY ? a[0].v.s.n : nchars(a[0].v.s.p, a[0].v.s.n);
	return 0;
}

static uint32_t dec8(const char *s, int64_t n, int *adv)
{
	unsigned char c = (unsigned char)s[0];
	int l = u8len(c);
	if (l > n) l = 1;
	uint32_t cp = l == 1 ? c : l == 2 ? (c & 0x1Fu) : l == 3 ? (c & 0x0Fu) : (c & 0x07u);
	for (int i = 1; i < l; i++) cp = cp << 6 | ((unsigned char)s[i] & 0x3Fu);
	*adv = l;
	return cp;
}

static uint32_t case_map(uint32_t c, bool upper)
{
	if (c < 0x80) return (uint32_t)(upper ? toupper((int)c) : tolower((int)c));
	if (upper) {
		if ((c >= 0xE0 && c <= 0xFE && c != 0xF7) || (c >= 0x3B1 && c <= 0x3C9 && c != 0x3C2) || (c >= 0x430 && c <= 0x44F))
			return c - 0x20;
		if (c >= 0x450 && c <= 0x45F) return c - 0x50;
		if (c >= 0x100 && c <= 0x17F && (c & 1) && c != 0x131 && c != 0x138 && c != 0x149) return c - 1;
	} else {
		if ((c >= 0xC0 && c <= 0xDE && c != 0xD7) || (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) || (c >= 0x410 && c <= 0x42F))
			return c + 0x20;
		if (c >= 0x400 && c <= 0x40F) return c + 0x50;
		if (c >= 0x100 && c <= 0x17F && !(c & 1) && c != 0x130 && c != 0x138) return c + 1;
	}
	return c;
}

/* Writes straight into the scratch buffer: a mapped character never takes
 * more than 3 bytes more than its source (ASCII stays one byte). */
static int map_case(ex_row *r, ex_val *out, const ex_val *a, bool upper)
{
	const char *s = a[0].v.s.p;
	int64_t n = a[0].v.s.n;
	DL_TRY(dl_buf_reserve(r->buf, (size_t)n * 3 + 4));
	char *o = r->buf->data + r->buf->len;
	size_t k = 0;
	for (int64_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x80) {
			o[k++] = (char)(upper ? (c >= 'a' && c <= 'z' ? c - 32 : c) : (c >= 'A' && c <= 'Z' ? c + 32 : c));
			i++;
			continue;
		}
		int adv;
		uint32_t cp = case_map(dec8(s + i, n - i, &adv), upper);
		k += dl_utf8_encode(cp, o + k);
		i += adv;
	}
	r->buf->len += k;
	r->buf->data[r->buf->len] = 0;
	set_buf(r, out, 0);
	return 0;
}

ROWFN(fn_lower) { return map_case(r, out, a, false); }
ROWFN(fn_upper) { return map_case(r, out, a, true); }

ROWFN(fn_initcap)
{
	const char *s = a[0].v.s.p;
	int64_t n = a[0].v.s.n;
	bool start = true;
	for (int64_t i = 0; i < n;) {
		int adv;
		uint32_t cp = dec8(s + i, n - i, &adv);
		DL_TRY(dl_utf8_append(r->buf, case_map(cp, start)));
		start = cp == ' ';
		i += adv;
	}
	set_buf(r, out, 0);
	return 0;
}

static bool in_set(const ex_val *set, const char *s, int64_t n, int64_t i, int *adv)
{
	*adv = u8len((unsigned char)s[i]);
	if (*adv > n - i) *adv = 1;
	if (!set) return s[i] == ' ';
	const char *p = set->v.s.p;
	for (int64_t k = 0; k < set->v.s.n;) {
		int l = u8len((unsigned char)p[k]);
		if (l == *adv && memcmp(p + k, s + i, (size_t)l) == 0) return true;
		k += l;
	}
	return false;
}

/* trim(str) or, as Spark's two-argument form, trim(trimStr, str). */
static int do_trim(ex_row *r, ex_val *out, const ex_val *a, bool left, bool right)
{
	const ex_val *str = r->nargs == 2 ? &a[1] : &a[0];
	const char *s = str->v.s.p;
	int64_t n = str->v.s.n, st = 0, en = n;
	const ex_val *set = r->nargs == 2 ? &a[0] : NULL;
	int adv;
	if (left)
		while (st < en && in_set(set, s, n, st, &adv)) st += adv;
	if (right) {
		while (en > st) {
			int64_t k = en - 1;
			while (k > st && ((unsigned char)s[k] & 0xC0) == 0x80) k--;
			if (!in_set(set, s, n, k, &adv)) break;
			en = k;
		}
	}
	set_str(out, s + st, en - st);
	return 0;
}

ROWFN(fn_trim) { return do_trim(r, out, a, true, true); }
ROWFN(fn_ltrim) { return do_trim(r, out, a, true, false); }
ROWFN(fn_rtrim) { return do_trim(r, out, a, false, true); }

/* Spark's substring: 1-based pos, 0 acts as 1, negative counts from the
 * end; a negative length gives "". */
static void substr_range(const char *s, int64_t n, int64_t pos, int64_t len, bool has_len, int64_t *b0, int64_t *b1)
{
	int64_t total = nchars(s, n);
	int64_t start = pos > 0 ? pos - 1 : pos < 0 ? total + pos : 0;
	int64_t end = has_len ? (len < 0 ? start : (start > INT64_MAX - len ? INT64_MAX : start + len)) : total;
	if (start < 0) start = 0;
	if (end > total) end = total;
	if (end < start) end = start;
	*b0 = char_off(s, n, start);
	*b1 = char_off(s, n, end);
}

ROWFN(fn_substring)
{
	int64_t b0, b1;
	substr_range(a[0].v.s.p, a[0].v.s.n, a[1].v.i, r->nargs == 3 ? a[2].v.i : 0, r->nargs == 3, &b0, &b1);
	set_str(out, a[0].v.s.p + b0, b1 - b0);
	return 0;
}

ROWFN(fn_left)
{
	int64_t k = a[1].v.i < 0 ? 0 : a[1].v.i;
	set_str(out, a[0].v.s.p, char_off(a[0].v.s.p, a[0].v.s.n, k));
	(void)r;
	return 0;
}

ROWFN(fn_right)
{
	(void)r;
	int64_t total = nchars(a[0].v.s.p, a[0].v.s.n), k = a[1].v.i;
	if (k <= 0) {
		set_str(out, a[0].v.s.p, 0);
		return 0;
	}
	int64_t st = k >= total ? 0 : char_off(a[0].v.s.p, a[0].v.s.n, total - k);
	set_str(out, a[0].v.s.p + st, a[0].v.s.n - st);
	return 0;
}

ROWFN(fn_concat)
{
	for (int i = 0; i < r->nargs; i++) DL_TRY(dl_buf_append(r->buf, a[i].v.s.p, (size_t)a[i].v.s.n));
	set_buf(r, out, 0);
	return 0;
}

ROWFN(fn_concat_ws)
{
	if (a[0].null) {
		out->null = true;
		return 0;
	}
	bool first = true;
	for (int i = 1; i < r->nargs; i++) {
		if (a[i].null) continue;
		if (!first) DL_TRY(dl_buf_append(r->buf, a[0].v.s.p, (size_t)a[0].v.s.n));
		DL_TRY(dl_buf_append(r->buf, a[i].v.s.p, (size_t)a[i].v.s.n));
		first = false;
	}
	set_buf(r, out, 0);
	return 0;
}

ROWFN(fn_replace)
{
	const char *s = a[0].v.s.p, *f = a[1].v.s.p;
	int64_t n = a[0].v.s.n, fn = a[1].v.s.n;
	const char *rep = r->nargs == 3 ? a[2].v.s.p : "";
	int64_t rn = r->nargs == 3 ? a[2].v.s.n : 0;
	if (fn == 0) {
		set_str(out, s, n);
		return 0;
	}
	int64_t i = 0;
	while (i < n) {
		const char *hit = memmem(s + i, (size_t)(n - i), f, (size_t)fn);
		if (!hit) break;
		DL_TRY(dl_buf_append(r->buf, s + i, (size_t)(hit - (s + i))));
		DL_TRY(dl_buf_append(r->buf, rep, (size_t)rn));
		i = hit - s + fn;
	}
	DL_TRY(dl_buf_append(r->buf, s + i, (size_t)(n - i)));
	set_buf(r, out, 0);
	return 0;
}

/* ---- regular expressions (POSIX ERE) ------------------------------------ */

typedef struct re_cache {
	regex_t re;
	char *text;
} re_cache;

static void re_free(void *p)
{
	re_cache *c = p;
	regfree(&c->re);
	dl_free(c->text);
	dl_free(c);
}

static int compile_re(re_cache **out, const char *p, size_t n)
{
	re_cache *c = dl_calloc(1, sizeof *c);
	if (!c) return DL_ENOMEM;
	c->text = dl_strndup(p, n);
	if (!c->text) {
		dl_free(c);
		return DL_ENOMEM;
	}
	dl_buf posix = DL_BUF_INIT;
	int rc = ex_regex_from_java(&posix, p, n);
	if (rc < 0) {
		dl_buf_free(&posix);
		dl_free(c->text);
		dl_free(c);
		return rc;
	}
	int e = regcomp(&c->re, posix.data, REG_EXTENDED);
	dl_buf_free(&posix);
	if (e) {
		char msg[160];
		regerror(e, &c->re, msg, sizeof msg);
		rc = dl_error_set(DL_EINVALID, "[INVALID_PARAMETER_VALUE.PATTERN] invalid regular expression '%s': %s",
		                  c->text, msg);
		dl_free(c->text);
		dl_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

static bool same_text(const re_cache *c, const ex_val *pat)
{
	return c && strlen(c->text) == (size_t)pat->v.s.n && memcmp(c->text, pat->v.s.p, (size_t)pat->v.s.n) == 0;
}

/* Constant patterns are compiled when binding (read-only afterwards, so a
 * bound expression can be evaluated by several threads at once); patterns
 * that vary by row use a one-entry per-thread cache. */
int ex_regex_prepare(dl_expr *e, ex_node *n)
{
	if (n->nargs < 2 || n->args[1]->kind != EX_LIT || n->args[1]->lit.is_null ||
	    n->args[1]->lit.type != DL_TYPE_STRING)
		return 0;
	re_cache *c;
	DL_TRY(compile_re(&c, n->args[1]->lit.v.str.ptr, n->args[1]->lit.v.str.len));
	DL_TRY(ex_keep_aux(e, c, re_free));
	n->aux = c;
	return 0;
}

static int get_regex(ex_row *r, const ex_val *pat, regex_t **out, int flags)
{
	(void)flags;
	re_cache *c = r->node->aux;
	if (same_text(c, pat)) {
		*out = &c->re;
		return 0;
	}
	ex_thread_cache *tc = ex_thread_cache_get();
	if (!tc) return DL_ENOMEM;
	if (!same_text(tc->regex, pat)) {
		re_cache *nc;
		DL_TRY(compile_re(&nc, pat->v.s.p, (size_t)pat->v.s.n));
		if (tc->regex) re_free(tc->regex);
		tc->regex = nc;
		tc->regex_free = re_free;
	}
	*out = &((re_cache *)tc->regex)->re;
	return 0;
}

/* regexec needs NUL-terminated text: copy into a per-call scratch. */
static char *cstr(const ex_val *v, dl_buf *tmp)
{
	dl_buf_clear(tmp);
	if (dl_buf_append(tmp, v->v.s.p, (size_t)v->v.s.n) < 0) return NULL;
	if (dl_buf_reserve(tmp, 1) < 0) return NULL;
	tmp->data[tmp->len] = 0;
	return tmp->data;
}

ROWFN(fn_rlike_fn)
{
	regex_t *re;
	DL_TRY(get_regex(r, &a[1], &re, REG_NOSUB));
	dl_buf tmp = DL_BUF_INIT;
	char *s = cstr(&a[0], &tmp);
	if (!s) return DL_ENOMEM;
	out->v.b = regexec(re, s, 0, NULL, 0) == 0;
	dl_buf_free(&tmp);
	return 0;
}

/* Java-style replacement: $n and ${n} refer to groups, \x escapes x. */
static int append_replacement(dl_buf *b, const char *s, const char *rep, int64_t rn, const regmatch_t *m, int nm)
{
	for (int64_t i = 0; i < rn; i++) {
		char c = rep[i];
		if (c == '\\' && i + 1 < rn) {
			DL_TRY(dl_buf_putc(b, rep[++i]));
		} else if (c == '$' && i + 1 < rn && rep[i + 1] >= '0' && rep[i + 1] <= '9') {
			int g = rep[++i] - '0';
			if (g >= nm || m[g].rm_so < 0) {
				if (g >= nm) return dl_error_set(DL_EINVALID, "regexp_replace: no group %d in the pattern", g);
				continue;
			}
			DL_TRY(dl_buf_append(b, s + m[g].rm_so, (size_t)(m[g].rm_eo - m[g].rm_so)));
		} else {
			DL_TRY(dl_buf_putc(b, c));
		}
	}
	return 0;
}

ROWFN(fn_regexp_replace)
{
	regex_t *re;
	DL_TRY(get_regex(r, &a[1], &re, 0));
	dl_buf tmp = DL_BUF_INIT;
	char *s = cstr(&a[0], &tmp);
	if (!s) return DL_ENOMEM;
	int64_t n = a[0].v.s.n, pos = r->nargs == 4 ? a[3].v.i : 1;
	if (pos < 1) {
		dl_buf_free(&tmp);
		return dl_error_set(DL_EINVALID, "regexp_replace: the position must be >= 1, got %lld", (long long)pos);
	}
	int64_t i = char_off(s, n, pos - 1);
	int rc = dl_buf_append(r->buf, s, (size_t)i);
	regmatch_t m[10];
	int nm = (int)(re->re_nsub + 1 < 10 ? re->re_nsub + 1 : 10);
	while (rc == 0 && i <= n) {
		if (regexec(re, s + i, 10, m, i > 0 ? REG_NOTBOL : 0) != 0) break;
		rc = dl_buf_append(r->buf, s + i, (size_t)m[0].rm_so);
		if (rc == 0) rc = append_replacement(r->buf, s + i, a[2].v.s.p, a[2].v.s.n, m, nm);
		if (m[0].rm_eo == m[0].rm_so) {
			/* empty match: copy one character and move on */
			if (i + m[0].rm_eo >= n) {
				i = n + 1;
				break;
			}
			int l = u8len((unsigned char)s[i + m[0].rm_eo]);
			if (rc == 0) rc = dl_buf_append(r->buf, s + i + m[0].rm_eo, (size_t)l);
			i += m[0].rm_eo + l;
		} else {
			i += m[0].rm_eo;
		}
	}
	if (rc == 0 && i < n) rc = dl_buf_append(r->buf, s + i, (size_t)(n - i));
	dl_buf_free(&tmp);
	if (rc < 0) return rc;
	set_buf(r, out, 0);
	return 0;
}

ROWFN(fn_regexp_extract)
{
	regex_t *re;
	DL_TRY(get_regex(r, &a[1], &re, 0));
	int64_t g = r->nargs == 3 ? a[2].v.i : 1;
	if (g < 0 || (size_t)g > re->re_nsub)
		return dl_error_set(DL_EINVALID,
		                    "[INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX] regexp_extract: the pattern has %zu groups, "
		                    "index %lld is invalid",
		                    re->re_nsub, (long long)g);
	dl_buf tmp = DL_BUF_INIT;
	char *s = cstr(&a[0], &tmp);
	if (!s) return DL_ENOMEM;
	regmatch_t m[10];
	if (g >= 10 || regexec(re, s, 10, m, 0) != 0 || m[g].rm_so < 0) {
		set_str(out, "", 0);
	} else {
		int rc = dl_buf_append(r->buf, s + m[g].rm_so, (size_t)(m[g].rm_eo - m[g].rm_so));
		if (rc < 0) {
			dl_buf_free(&tmp);
			return rc;
		}
		set_buf(r, out, 0);
	}
	dl_buf_free(&tmp);
	return 0;
}

BINDFN(bind_split)
{
	dl_type *s = ex_type(b, DL_TYPE_STRING);
	n->type = s ? ex_keep_type(b->e, dl_type_array(s, true)) : NULL;
	return n->type ? 0 : DL_ENOMEM;
}

/* split(str, regex[, limit]) -> ARRAY<STRING>; limit > 0 caps the number
 * of pieces, otherwise all pieces (Spark drops nothing for limit -1; Java's
 * trailing-empty removal applies only to limit 0, which Spark maps to -1). */
VECFN(vec_split)
{
	dl_builder *b;
	DL_TRY(dl_builder_new(&b, n->type));
	dl_builder *el = dl_builder_child(b, 0);
	bool cst = true;
	for (int i = 0; i < n->nargs; i++) cst &= args[i].is_const;
	int64_t len = cst ? 1 : r->n;
	dl_buf tmp = DL_BUF_INIT;
	int rc = 0;
	ex_row row = {r, n, &tmp, n->nargs, NULL};
	for (int64_t i = 0; rc == 0 && i < len; i++) {
		ex_val s, p, l = {.v.i = -1};
		ex_val_load(&s, args[0].a, ex_row_of(&args[0], i));
		ex_val_load(&p, args[1].a, ex_row_of(&args[1], i));
		if (n->nargs == 3) ex_val_load(&l, args[2].a, ex_row_of(&args[2], i));
		if (s.null || p.null || l.null) {
			rc = dl_builder_append_null(b);
			continue;
		}
		regex_t *re;
		if ((rc = get_regex(&row, &p, &re, 0)) < 0) break;
		char *str = cstr(&s, &tmp);
		if (!str) {
			rc = DL_ENOMEM;
			break;
		}
		rc = dl_builder_begin_list(b);
		int64_t pos = 0, pieces = 0, n_ = s.v.s.n;
		regmatch_t m[1];
		while (rc == 0) {
			if (l.v.i > 0 && pieces == l.v.i - 1) break;
			if (pos >= n_ || regexec(re, str + pos, 1, m, pos ? REG_NOTBOL : 0) != 0) break;
			if (m[0].rm_eo == 0) {
				/* an empty match at the start splits off one character */
				if (pos >= n_) break;
				int cl = u8len((unsigned char)str[pos]);
				rc = dl_builder_append_bytes(el, str + pos, (size_t)cl);
				pos += cl;
			} else {
				rc = dl_builder_append_bytes(el, str + pos, (size_t)m[0].rm_so);
				pos += m[0].rm_eo;
			}
			pieces++;
		}
		if (rc == 0) rc = dl_builder_append_bytes(el, str + (pos < n_ ? pos : n_), (size_t)(pos < n_ ? n_ - pos : 0));
		if (rc == 0) rc = dl_builder_end_list(b);
	}
	dl_array *res = NULL;
	if (rc == 0) rc = dl_builder_finish(&res, b);
	dl_builder_free(b);
	dl_buf_free(&tmp);
	if (rc < 0) return rc;
	out->a = out->owned = res;
	out->is_const = cst;
	return 0;
}

ROWFN(fn_instr)
{
	(void)r;
	const char *hit = a[1].v.s.n == 0 ? a[0].v.s.p
	                                 : memmem(a[0].v.s.p, (size_t)a[0].v.s.n, a[1].v.s.p, (size_t)a[1].v.s.n);
	out->v.i = hit ? nchars(a[0].v.s.p, hit - a[0].v.s.p) + 1 : 0;
	return 0;
}

/* locate(substr, str[, pos]) */
ROWFN(fn_locate)
{
	int64_t pos = r->nargs == 3 ? a[2].v.i : 1;
	if (pos < 1) {
		out->v.i = 0;
		return 0;
	}
	int64_t st = char_off(a[1].v.s.p, a[1].v.s.n, pos - 1);
	const char *hay = a[1].v.s.p + st;
	const char *hit = a[0].v.s.n == 0 ? hay : memmem(hay, (size_t)(a[1].v.s.n - st), a[0].v.s.p, (size_t)a[0].v.s.n);
	out->v.i = hit ? nchars(a[1].v.s.p, hit - a[1].v.s.p) + 1 : 0;
	return 0;
}

static int pad(ex_row *r, ex_val *out, const ex_val *a, bool left)
{
	int64_t want = a[1].v.i, have = nchars(a[0].v.s.p, a[0].v.s.n);
	const char *p = r->nargs == 3 ? a[2].v.s.p : " ";
	int64_t pn = r->nargs == 3 ? a[2].v.s.n : 1;
	if (want <= 0) {
		set_str(out, "", 0);
		return 0;
	}
	if (want > (1 << 28)) return dl_error_set(DL_EINVALID, "lpad/rpad length %lld is too large", (long long)want);
	if (have >= want) {
		set_str(out, a[0].v.s.p, char_off(a[0].v.s.p, a[0].v.s.n, want));
		return 0;
	}
	if (!left) DL_TRY(dl_buf_append(r->buf, a[0].v.s.p, (size_t)a[0].v.s.n));
	int64_t need = want - have, pc = nchars(p, pn);
	if (pc > 0) {
		while (need >= pc) {
			DL_TRY(dl_buf_append(r->buf, p, (size_t)pn));
			need -= pc;
		}
		DL_TRY(dl_buf_append(r->buf, p, (size_t)char_off(p, pn, need)));
	}
	if (left) DL_TRY(dl_buf_append(r->buf, a[0].v.s.p, (size_t)a[0].v.s.n));
	set_buf(r, out, 0);
	return 0;
}

ROWFN(fn_lpad) { return pad(r, out, a, true); }
ROWFN(fn_rpad) { return pad(r, out, a, false); }

ROWFN(fn_startswith)
{
	(void)r;
	out->v.b = a[0].v.s.n >= a[1].v.s.n && memcmp(a[0].v.s.p, a[1].v.s.p, (size_t)a[1].v.s.n) == 0;
	return 0;
}

ROWFN(fn_endswith)
{
	(void)r;
	out->v.b = a[0].v.s.n >= a[1].v.s.n &&
	           memcmp(a[0].v.s.p + a[0].v.s.n - a[1].v.s.n, a[1].v.s.p, (size_t)a[1].v.s.n) == 0;
	return 0;
}

ROWFN(fn_contains)
{
	(void)r;
	out->v.b = a[1].v.s.n == 0 || memmem(a[0].v.s.p, (size_t)a[0].v.s.n, a[1].v.s.p, (size_t)a[1].v.s.n) != NULL;
	return 0;
}

ROWFN(fn_reverse)
{
	const char *s = a[0].v.s.p;
	int64_t n = a[0].v.s.n;
	DL_TRY(dl_buf_reserve(r->buf, (size_t)n));
	char *o = r->buf->data;
	int64_t k = n;
	for (int64_t i = 0; i < n;) {
		int l = u8len((unsigned char)s[i]);
		if (l > n - i) l = (int)(n - i);
		k -= l;
		memcpy(o + k, s + i, (size_t)l);
		i += l;
	}
	r->buf->len = (size_t)n;
	set_buf(r, out, 0);
	return 0;
}

ROWFN(fn_repeat)
{
	int64_t k = a[1].v.i;
	if (k > 0 && a[0].v.s.n * k > (1 << 28))
		return dl_error_set(DL_EINVALID, "repeat() result of %lld bytes is too large", (long long)(a[0].v.s.n * k));
	for (int64_t i = 0; i < k; i++) DL_TRY(dl_buf_append(r->buf, a[0].v.s.p, (size_t)a[0].v.s.n));
	set_buf(r, out, 0);
	return 0;
}

ROWFN(fn_ascii)
{
	(void)r;
	int adv;
	out->v.i = a[0].v.s.n ? (int64_t)dec8(a[0].v.s.p, a[0].v.s.n, &adv) : 0;
	return 0;
}

/* chr(n) / char(n): the character of code point n % 256 (Spark); empty
 * for negative n. */
ROWFN(fn_chr)
{
	int64_t n = a[0].v.i;
	if (n < 0) {
		set_str(out, "", 0);
		return 0;
	}
	DL_TRY(dl_utf8_append(r->buf, (uint32_t)(n % 256)));
	set_buf(r, out, 0);
	return 0;
}

/* levenshtein(a, b) over characters, two rows of the DP table. */
ROWFN(fn_levenshtein)
{
	(void)r;
	const char *s = a[0].v.s.p, *t = a[1].v.s.p;
	int64_t sn = a[0].v.s.n, tn = a[1].v.s.n;
	int64_t m = nchars(t, tn);
	if (m > 100000 || nchars(s, sn) > 100000)
		return dl_error_set(DL_EINVALID, "levenshtein() on strings longer than 100000 characters is not supported");
	int64_t *prev = dl_malloc((size_t)(m + 1) * 2 * sizeof *prev);
	if (!prev) return DL_ENOMEM;
	int64_t *cur = prev + m + 1;
	for (int64_t j = 0; j <= m; j++) prev[j] = j;
	int64_t i = 0;
	for (int64_t si = 0; si < sn; i++) {
		int la;
		uint32_t ca = dec8(s + si, sn - si, &la);
		cur[0] = i + 1;
		int64_t j = 0;
		for (int64_t ti = 0; ti < tn; j++) {
			int lb;
			uint32_t cb = dec8(t + ti, tn - ti, &lb);
			int64_t c = prev[j] + (ca != cb);
			if (prev[j + 1] + 1 < c) c = prev[j + 1] + 1;
			if (cur[j] + 1 < c) c = cur[j] + 1;
			cur[j + 1] = c;
			ti += lb;
		}
		int64_t *tmp = prev;
		prev = cur;
		cur = tmp;
		si += la;
	}
	out->v.i = prev[m];
	dl_free(prev < cur ? prev : cur);
	return 0;
}
