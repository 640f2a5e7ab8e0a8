/* LIKE / ILIKE / RLIKE. LIKE patterns are analyzed once when constant:
 * 'abc' (equality), 'abc%' (prefix), '%abc' (suffix), '%abc%' (contains)
 * take fast paths; others run a backtracking matcher over UTF-8 code points
 * ('_' is one character). ILIKE folds ASCII and Latin/Greek/Cyrillic
 * letters only through towlower of each code point. RLIKE uses POSIX
 * extended regular expressions (regcomp), with find semantics as Java's
 * Matcher.find (see docs/EXPRESSIONS.md for the dialect differences). */
#include "expr/like.h"
#include "expr/regex_java.h"
#include "util/error.h"
#include "util/mem.h"
#include <ctype.h>
#include <regex.h>
#include <string.h>
#include <wctype.h>

typedef enum lk_kind { LK_GENERAL, LK_EQ, LK_PREFIX, LK_SUFFIX, LK_CONTAINS, LK_ANY } lk_kind;

typedef struct like_pat {
	lk_kind kind;
	char *lit; /* unescaped literal for the fast paths */
	size_t lit_len;
	char *pat; /* the raw pattern for the general matcher */
	size_t pat_len;
	int escape;
	bool fold;
	bool is_regex;
	regex_t re;
	bool re_ok;
} like_pat;

static void like_free(void *p)
{
	like_pat *lp = p;
	if (!lp) return;
	if (lp->re_ok) regfree(&lp->re);
	dl_free(lp->lit);
	dl_free(lp->pat);
	dl_free(lp);
}

static int utf8_len(unsigned char c)
{
	return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
}

static uint32_t utf8_decode(const char *s, size_t n, size_t *adv)
{
	unsigned char c = (unsigned char)s[0];
	int l = utf8_len(c);
	if ((size_t)l > n) l = 1;
	uint32_t cp = l == 1 ? c : l == 2 ? (c & 0x1F) : l == 3 ? (c & 0x0F) : (c & 0x07);
	for (int i = 1; i < l; i++) cp = cp << 6 | ((unsigned char)s[i] & 0x3F);
	*adv = (size_t)l;
	return cp;
}

static uint32_t fold_cp(uint32_t c, bool fold)
{
	if (!fold) return c;
	if (c < 0x80) return (uint32_t)tolower((int)c);
	return (uint32_t)towlower((wint_t)c);
}

/* Iterative wildcard matcher with single-star backtracking (linear in
 * practice, worst case O(n*m)). */
static bool match_general(const like_pat *p, const char *s, size_t n)
{
	size_t si = 0, pi = 0, star_p = SIZE_MAX, star_s = 0;
	const char *pat = p->pat;
	size_t pn = p->pat_len;
	while (si < n) {
		if (pi < pn) {
			char c = pat[pi];
			if (c == '%') {
				star_p = ++pi;
				star_s = si;
				continue;
			}
			size_t padv, sadv;
			uint32_t sc = utf8_decode(s + si, n - si, &sadv);
			if (c == '_') {
				pi++;
				si += sadv;
				continue;
			}
			if ((unsigned char)c == p->escape && pi + 1 < pn) pi++;
			uint32_t pc = utf8_decode(pat + pi, pn - pi, &padv);
			if (fold_cp(pc, p->fold) == fold_cp(sc, p->fold)) {
				pi += padv;
				si += sadv;
				continue;
			}
		}
		if (star_p == SIZE_MAX) return false;
		size_t adv;
		utf8_decode(s + star_s, n - star_s, &adv);
		star_s += adv;
		si = star_s;
		pi = star_p;
	}
	while (pi < pn && pat[pi] == '%') pi++;
	return pi == pn;
}

static int validate_escapes(const char *pat, size_t n, int esc)
{
	for (size_t i = 0; i < n; i++) {
		if ((unsigned char)pat[i] != esc) continue;
		if (i + 1 >= n || (pat[i + 1] != '%' && pat[i + 1] != '_' && (unsigned char)pat[i + 1] != esc))
			return dl_error_set(DL_EINVALID,
			                    "[INVALID_FORMAT.ESC_IN_THE_MIDDLE] the LIKE pattern '%.*s' has the escape character "
			                    "not followed by %%, _ or itself",
			                    (int)(n > 80 ? 80 : n), pat);
		i++;
	}
	return 0;
}

/* Classifies a LIKE pattern for the fast paths. */
static int analyze(like_pat *p)
{
	const char *s = p->pat;
	size_t n = p->pat_len;
	DL_TRY(validate_escapes(s, n, p->escape));
	p->lit = dl_malloc(n + 1);
	if (!p->lit) return DL_ENOMEM;
	size_t start = 0, end = n;
	bool lead = n > 0 && s[0] == '%', trail = n > 1 && s[n - 1] == '%' && (n < 2 || (unsigned char)s[n - 2] != p->escape);
	if (n == 1 && s[0] == '%') {
		p->kind = LK_ANY;
		return 0;
	}
	if (lead) start = 1;
	if (trail) end = n - 1;
	size_t k = 0;
	for (size_t i = start; i < end; i++) {
		char c = s[i];
		if ((unsigned char)c == p->escape && i + 1 < end) {
			p->lit[k++] = s[++i];
			continue;
		}
		if (c == '%' || c == '_') {
			p->kind = LK_GENERAL;
			return 0;
		}
		p->lit[k++] = c;
	}
	p->lit_len = k;
	p->kind = lead && trail ? LK_CONTAINS : lead ? LK_SUFFIX : trail ? LK_PREFIX : LK_EQ;
	if (p->fold) p->kind = LK_GENERAL;
	return 0;
}

static int compile(like_pat **out, const char *pat, size_t n, int kind, int escape)
{
	like_pat *p = dl_calloc(1, sizeof *p);
	if (!p) return DL_ENOMEM;
	p->escape = escape < 0 ? '\\' : escape;
	p->fold = kind == LIKE_ILIKE;
	p->pat = dl_strndup(pat, n);
	p->pat_len = n;
	int rc = p->pat ? 0 : DL_ENOMEM;
	if (rc == 0 && kind == LIKE_RLIKE) {
		p->is_regex = true;
		dl_buf posix = DL_BUF_INIT;
		rc = ex_regex_from_java(&posix, pat, n);
		if (rc == 0) {
			int e = regcomp(&p->re, posix.data, REG_EXTENDED | REG_NOSUB);
			if (e) {
				char msg[160];
				regerror(e, &p->re, msg, sizeof msg);
				rc = dl_error_set(DL_EINVALID, "[INVALID_PARAMETER_VALUE.PATTERN] invalid regular expression '%.*s': %s",
				                  (int)(n > 80 ? 80 : n), pat, msg);
			} else {
				p->re_ok = true;
			}
		}
		dl_buf_free(&posix);
	} else if (rc == 0) {
		rc = analyze(p);
	}
	if (rc < 0) {
		like_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

bool ex_like_match(const void *pat, const char *s, size_t n, dl_buf *scratch)
{
	const like_pat *p = pat;
	if (p->is_regex) {
		dl_buf_clear(scratch);
		if (dl_buf_append(scratch, s, n) < 0) return false;
		if (memchr(s, 0, n)) return false;
		return regexec(&p->re, scratch->data ? scratch->data : "", 0, NULL, 0) == 0;
	}
	switch (p->kind) {
	case LK_ANY: return true;
	case LK_EQ: return n == p->lit_len && memcmp(s, p->lit, n) == 0;
	case LK_PREFIX: return n >= p->lit_len && memcmp(s, p->lit, p->lit_len) == 0;
	case LK_SUFFIX: return n >= p->lit_len && memcmp(s + n - p->lit_len, p->lit, p->lit_len) == 0;
	case LK_CONTAINS: return p->lit_len == 0 || memmem(s, n, p->lit, p->lit_len) != NULL;
	default: return match_general(p, s, n);
	}
}

int ex_like_compile(void **out, const char *pat, size_t n, int kind, int escape)
{
	return compile((like_pat **)out, pat, n, kind, escape);
}

void ex_like_free(void *p)
{
	like_free(p);
}

int ex_like_prepare(dl_expr *e, ex_node *n)
{
	ex_node *pn = n->args[1];
	if (pn->kind != EX_LIT || pn->lit.is_null) return 0;
	like_pat *p;
	DL_TRY(compile(&p, pn->lit.v.str.ptr, pn->lit.v.str.len, n->op, n->escape));
	DL_TRY(ex_keep_aux(e, p, like_free));
	n->aux = p;
	return 0;
}

/* The constant prefix of a LIKE pattern (for pruning): the literal text
 * before the first wildcard; *exact when there is no wildcard at all. */
int ex_like_prefix(const ex_node *n, const char **prefix, size_t *len, bool *exact)
{
	const like_pat *p = n->aux;
	if (!p || p->is_regex || p->fold) return 0;
	if (p->kind == LK_PREFIX || p->kind == LK_EQ) {
		*prefix = p->lit;
		*len = p->lit_len;
		*exact = p->kind == LK_EQ;
		return 1;
	}
	return 0;
}

/* Column LIKE constant pattern: straight over the offsets, the validity
 * copied from the column. */
static int like_column(ex_vec *out, const ex_node *n, const ex_vec *col, ex_run *r)
{
	const like_pat *lp = n->aux;
	const dl_array *a = col->a;
	int64_t len = r->n;
	dl_type *bt = dl_type_new(DL_TYPE_BOOLEAN);
	dl_array *res = bt ? dl_array_new(bt, len) : NULL;
	if (bt) dl_type_unref(bt);
	if (!res) return DL_ENOMEM;
	size_t bytes = (size_t)(len + 7) / 8;
	if (a->validity) {
		res->validity = dl_malloc(bytes ? bytes : 1);
		if (!res->validity) {
			dl_array_free(res);
			return DL_ENOMEM;
		}
		memcpy(res->validity, a->validity, bytes);
		res->null_count = -1;
	} else {
		res->null_count = 0;
	}
	static const char empty[1] = {0};
	const char *data = a->data ? (const char *)a->data : empty;
	const int32_t *off = a->offsets;
	uint8_t *bits = res->values;
	dl_buf scratch = DL_BUF_INIT;
	for (int64_t i = 0; i < len; i++) {
		if (a->validity && !dl_bit_get(a->validity, i)) continue;
		if (ex_like_match(lp, data + off[i], (size_t)(off[i + 1] - off[i]), &scratch) != n->negated) dl_bit_set(bits, i);
	}
	dl_buf_free(&scratch);
	out->a = out->owned = res;
	out->is_const = false;
	return 0;
}

int ex_like_eval(ex_vec *out, const ex_node *n, ex_vec *args, ex_run *r)
{
	if (n->aux && args[1].is_const && !args[0].is_const && args[0].a->type->id == DL_TYPE_STRING)
		return like_column(out, n, &args[0], r);
	bool cst = args[0].is_const && args[1].is_const;
	int64_t len = cst ? 1 : r->n;
	dl_type *bt = dl_type_new(DL_TYPE_BOOLEAN);
	dl_array *res = bt ? dl_array_new(bt, len) : NULL;
	if (bt) dl_type_unref(bt);
	if (!res) return DL_ENOMEM;
	res->validity = dl_calloc((size_t)(len + 7) / 8 + 1, 1);
	int rc = res->validity ? 0 : DL_ENOMEM;
	like_pat *dyn = NULL;
	const char *dyn_text = NULL;
	int64_t dyn_len = -1;
	dl_buf scratch = DL_BUF_INIT;
	for (int64_t i = 0; rc == 0 && i < len; i++) {
		ex_val s, p;
		ex_val_load(&s, args[0].a, ex_row_of(&args[0], i));
		ex_val_load(&p, args[1].a, ex_row_of(&args[1], i));
		if (s.null || p.null) continue;
		const like_pat *lp = n->aux;
		if (!lp) {
			if (!dyn || dyn_len != p.v.s.n || memcmp(dyn_text, p.v.s.p, (size_t)p.v.s.n) != 0) {
				like_free(dyn);
				dyn = NULL;
				if ((rc = compile(&dyn, p.v.s.p, (size_t)p.v.s.n, n->op, n->escape)) < 0) break;
				dyn_text = p.v.s.p;
				dyn_len = p.v.s.n;
			}
			lp = dyn;
		}
		dl_bit_set(res->validity, i);
		if (ex_like_match(lp, s.v.s.p, (size_t)s.v.s.n, &scratch) != n->negated) dl_bit_set(res->values, i);
	}
	like_free(dyn);
	dl_buf_free(&scratch);
	if (rc < 0) {
		dl_array_free(res);
		return rc;
	}
	res->null_count = -1;
	out->a = out->owned = res;
	out->is_const = cst;
	return 0;
}
