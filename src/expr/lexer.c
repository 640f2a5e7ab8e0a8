#include "expr/lexer.h"
#include "util/error.h"
#include <ctype.h>
#include <string.h>
#include <strings.h>

bool ex_tok_is(const ex_token *t, const char *kw)
{
	size_t n = strlen(kw);
	return t->kind == TK_IDENT && t->len == n && strncasecmp(t->p, kw, n) == 0;
}

static bool ident_start(int c)
{
	return isalpha(c) || c == '_' || c >= 0x80;
}

static bool ident_char(int c)
{
	return isalnum(c) || c == '_' || c >= 0x80;
}

/* Skips whitespace and comments (-- to end of line, bracketed comments). */
static int skip_space(ex_lexer *lx)
{
	for (;;) {
		while (lx->i < lx->len && isspace((unsigned char)lx->src[lx->i])) lx->i++;
		if (lx->i + 1 < lx->len && lx->src[lx->i] == '-' && lx->src[lx->i + 1] == '-') {
			while (lx->i < lx->len && lx->src[lx->i] != '\n') lx->i++;
			continue;
		}
		if (lx->i + 1 < lx->len && lx->src[lx->i] == '/' && lx->src[lx->i + 1] == '*') {
			size_t start = lx->i;
			lx->i += 2;
			while (lx->i + 1 < lx->len && !(lx->src[lx->i] == '*' && lx->src[lx->i + 1] == '/')) lx->i++;
			if (lx->i + 1 >= lx->len)
				return dl_error_set(DL_EINVALID, "syntax error at position %zu: unterminated comment", start);
			lx->i += 2;
			continue;
		}
		return 0;
	}
}

/* A quoted run ending at the matching quote; backslash escapes the next
 * character in strings; doubled back quotes escape in identifiers. */
static int scan_quoted(ex_lexer *lx, char q, bool backslash)
{
	size_t start = lx->i++;
	while (lx->i < lx->len) {
		char c = lx->src[lx->i];
		if (backslash && c == '\\' && lx->i + 1 < lx->len) {
			lx->i += 2;
			continue;
		}
		if (c == q) {
			if (!backslash && lx->i + 1 < lx->len && lx->src[lx->i + 1] == q) {
				lx->i += 2;
				continue;
			}
			lx->i++;
			return 0;
		}
		lx->i++;
	}
	return dl_error_set(DL_EINVALID, "syntax error at position %zu: unterminated %s", start,
	                    q == '`' ? "quoted identifier" : "string literal");
}

static void scan_number(ex_lexer *lx)
{
	const char *s = lx->src;
	while (lx->i < lx->len && isdigit((unsigned char)s[lx->i])) lx->i++;
	if (lx->i < lx->len && s[lx->i] == '.') {
		lx->i++;
		while (lx->i < lx->len && isdigit((unsigned char)s[lx->i])) lx->i++;
	}
	if (lx->i < lx->len && (s[lx->i] == 'e' || s[lx->i] == 'E')) {
		size_t j = lx->i + 1;
		if (j < lx->len && (s[j] == '+' || s[j] == '-')) j++;
		if (j < lx->len && isdigit((unsigned char)s[j])) {
			while (j < lx->len && isdigit((unsigned char)s[j])) j++;
			lx->i = j;
		}
	}
	/* Suffix letters (L, S, Y, D, F, BD) are part of the token; other
	 * identifier characters right after a number are an error later. */
	while (lx->i < lx->len && isalpha((unsigned char)s[lx->i])) lx->i++;
}

static const char *const ops3[] = {"<=>", NULL};
static const char *const ops2[] = {"<=", ">=", "<>", "!=", "==", "||", "::", NULL};
static const char ops1[] = "+-*/%&|^~=<>!()[],.:@?"; /* @: time travel t@v5; ?: SQL parameters */

int ex_lex_next(ex_lexer *lx, ex_token *t)
{
	DL_TRY(skip_space(lx));
	memset(t, 0, sizeof *t);
	t->pos = (int)lx->i;
	t->p = lx->src + lx->i;
	if (lx->i >= lx->len) {
		t->kind = TK_EOF;
		return 0;
	}
	unsigned char c = (unsigned char)lx->src[lx->i];
	size_t start = lx->i;
	if ((c == 'x' || c == 'X') && lx->i + 1 < lx->len && lx->src[lx->i + 1] == '\'') {
		lx->i++;
		DL_TRY(scan_quoted(lx, '\'', false));
		t->kind = TK_HEXSTR;
	} else if (ident_start(c)) {
		while (lx->i < lx->len && ident_char((unsigned char)lx->src[lx->i])) lx->i++;
		t->kind = TK_IDENT;
	} else if (isdigit(c) || (c == '.' && lx->i + 1 < lx->len && isdigit((unsigned char)lx->src[lx->i + 1]))) {
		scan_number(lx);
		t->kind = TK_NUMBER;
	} else if (c == '\'' || c == '"') {
		DL_TRY(scan_quoted(lx, (char)c, true));
		t->kind = TK_STRING;
	} else if (c == '`') {
		DL_TRY(scan_quoted(lx, '`', false));
		t->kind = TK_QIDENT;
	} else {
		t->kind = TK_OP;
		const char *s = lx->src + lx->i;
		size_t left = lx->len - lx->i;
		for (int k = 0; ops3[k]; k++)
			if (left >= 3 && memcmp(s, ops3[k], 3) == 0) {
				memcpy(t->op, s, 3);
				lx->i += 3;
				goto done;
			}
		for (int k = 0; ops2[k]; k++)
			if (left >= 2 && memcmp(s, ops2[k], 2) == 0) {
				memcpy(t->op, s, 2);
				lx->i += 2;
				goto done;
			}
		if (!strchr(ops1, c) || c == 0)
			return dl_error_set(DL_EINVALID, "syntax error at position %zu: unexpected character '%c'",
			                    lx->i, isprint(c) ? c : '?');
		t->op[0] = (char)c;
		lx->i++;
	}
done:
	t->len = lx->i - start;
	return 0;
}
