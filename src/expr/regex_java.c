#include "expr/regex_java.h"
#include <stdbool.h>
#include <string.h>

/* The POSIX spelling of a Java class escape, inside or outside brackets. */
static const char *class_body(char c)
{
	switch (c) {
	case 'd': return "0-9";
	case 'w': return "[:alnum:]_";
	case 's': return "[:space:]";
	default: return NULL;
	}
}

static int unsupported(const char *p, size_t n, const char *what)
{
	return dl_error_set(DL_EUNSUPPORTED,
	                    "[INVALID_PARAMETER_VALUE.PATTERN] the regular expression '%.*s' uses %s, which "
	                    "this engine (POSIX extended regular expressions) does not support; rewrite the "
	                    "pattern without it", (int)(n > 80 ? 80 : n), p, what);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

/* A literal byte, escaped when it is special to POSIX ERE. */
static int put_literal(dl_buf *out, char c, int in_bracket)
{
	if (in_bracket) {
		/* Inside brackets only ] ^ - \ are special; a bracket holding them
		 * as literals needs them placed specially, so use an equivalence
		 * that regcomp accepts anywhere in the list. */
		if (c == ']') return dl_buf_puts(out, "[.].]");
		if (c == '^') return dl_buf_puts(out, "[.^.]");
		if (c == '-') return dl_buf_puts(out, "[.-.]");
		return dl_buf_putc(out, c);
	}
	if (strchr(".[]()*+?{}|^$\\", c)) DL_TRY(dl_buf_putc(out, '\\'));
	return dl_buf_putc(out, c);
}

/* Translates the escape at p[*i] (just past the backslash). */
static int escape(dl_buf *out, const char *p, size_t n, size_t *i, int in_bracket)
{
	char c = p[*i];
	if (c == 0) return unsupported(p, n, "a NUL character");
	const char *body = class_body((char)(c | 0x20));
	if (body) {
		int neg = c >= 'A' && c <= 'Z';
		(*i)++;
		if (in_bracket) {
			if (neg) return unsupported(p, n, "a negated class escape inside [...]");
			return dl_buf_puts(out, body);
		}
		return dl_buf_printf(out, "[%s%s]", neg ? "^" : "", body);
	}
	(*i)++;
	switch (c) {
	case 't': return put_literal(out, '\t', in_bracket);
	case 'n': return put_literal(out, '\n', in_bracket);
	case 'r': return put_literal(out, '\r', in_bracket);
	case 'f': return put_literal(out, '\f', in_bracket);
	case 'a': return put_literal(out, '\a', in_bracket);
	case 'e': return put_literal(out, 27, in_bracket);
	case 'x': {
		if (*i + 2 > n || hexval(p[*i]) < 0 || hexval(p[*i + 1]) < 0) return unsupported(p, n, "a malformed \\x escape");
		char v = (char)(hexval(p[*i]) * 16 + hexval(p[*i + 1]));
		*i += 2;
		if (!v) return unsupported(p, n, "a NUL character");
		return put_literal(out, v, in_bracket);
	}
	case '0': {
		int v = 0, k = 0;
		while (k < 3 && *i < n && p[*i] >= '0' && p[*i] <= '7') v = v * 8 + (p[(*i)++] - '0'), k++;
		if (!k || !v || v > 255) return unsupported(p, n, "a malformed octal escape");
		return put_literal(out, (char)v, in_bracket);
	}
	case 'b': case 'B': case 'A': case 'z': case 'Z': case 'G':
		return unsupported(p, n, "a boundary anchor (\\b \\B \\A \\z \\Z \\G)");
	case 'p': case 'P':
		return unsupported(p, n, "a Unicode property class (\\p{..})");
	case 'k':
		return unsupported(p, n, "a named back-reference");
	default:
		if (c >= '1' && c <= '9') return unsupported(p, n, "a back-reference");
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
			return unsupported(p, n, "an unknown escape");
		return put_literal(out, c, in_bracket);
	}
}

/* \Q...\E: everything up to \E (or the end) is literal. */
static int quoted(dl_buf *out, const char *p, size_t n, size_t *i, int in_bracket)
{
	while (*i < n) {
		if (p[*i] == '\\' && *i + 1 < n && p[*i + 1] == 'E') {
			*i += 2;
			return 0;
		}
		if (p[*i] == 0) return unsupported(p, n, "a NUL character");
		DL_TRY(put_literal(out, p[(*i)++], in_bracket));
	}
	return 0;
}

int ex_regex_from_java(dl_buf *out, const char *p, size_t n)
{
	DL_TRY(dl_buf_reserve(out, n + 16));
	DL_TRY(dl_buf_append(out, "", 0)); /* terminated even when empty */
	int in_bracket = 0;
	bool after_quantifier = false; /* the last thing written was *, + or ? */
	for (size_t i = 0; i < n;) {
		char c = p[i];
		if (c == 0) return unsupported(p, n, "a NUL character");
		bool quantifier = !in_bracket && (c == '*' || c == '+' || c == '?');
		/* Java refuses a quantifier on a quantifier (a**: "Dangling meta
		 * character"); POSIX takes it, and glibc's regcomp grows
		 * exponentially with each stacked one. */
		if (quantifier && after_quantifier)
			return dl_error_set(DL_EINVALID, "[INVALID_PARAMETER_VALUE.PATTERN] the regular expression '%.*s' has "
			                    "a dangling meta character '%c' at position %zu (a quantifier after a quantifier)",
			                    (int)(n > 80 ? 80 : n), p, c, i);
		after_quantifier = quantifier;
		if (c == '\\') {
			if (i + 1 >= n) return dl_error_set(DL_EINVALID, "[INVALID_PARAMETER_VALUE.PATTERN] the regular "
			                                    "expression '%.*s' ends with a lone backslash",
			                                    (int)(n > 80 ? 80 : n), p);
			i++;
			if (p[i] == 'Q') {
				i++;
				DL_TRY(quoted(out, p, n, &i, in_bracket));
				continue;
			}
			DL_TRY(escape(out, p, n, &i, in_bracket));
			continue;
		}
		if (in_bracket) {
			if (c == ']') in_bracket = 0;
			if (c == '[' && i + 1 < n && p[i + 1] != ':' && p[i + 1] != '.' && p[i + 1] != '=')
				return unsupported(p, n, "a nested character class ([a[b]] or [a&&b])");
			if (c == '&' && i + 1 < n && p[i + 1] == '&') return unsupported(p, n, "a class intersection (&&)");
			DL_TRY(dl_buf_putc(out, c));
			i++;
			continue;
		}
		if (c == '[') {
			in_bracket = 1;
			DL_TRY(dl_buf_putc(out, c));
			i++;
			if (i < n && p[i] == '^') DL_TRY(dl_buf_putc(out, p[i++]));
			/* A ] right after [ or [^ is a literal in both dialects. */
			if (i < n && p[i] == ']') DL_TRY(dl_buf_putc(out, p[i++]));
			continue;
		}
		if (c == '(' && i + 1 < n && p[i + 1] == '?') return unsupported(p, n, "a (?...) group or look-around");
		if ((c == '*' || c == '+' || c == '?' || c == '}') && i + 1 < n && (p[i + 1] == '?' || p[i + 1] == '+'))
			return unsupported(p, n, "a lazy or possessive quantifier");
		DL_TRY(dl_buf_putc(out, c));
		i++;
	}
	return 0;
}
