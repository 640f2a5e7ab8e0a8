/* Splitting a script into statements: a ';' ends a statement unless it is
 * inside a string ('...' or "..." with backslash escapes, as Spark reads
 * them), a back-quoted identifier (`` doubles), a -- comment or a
 * bracketed comment. An unterminated quote or comment runs to the end;
 * the statement parser then reports it with its place. */
#include "sql/sql.h"
#include "util/error.h"
#include "util/mem.h"

static int push(dl_sql_span **out, size_t *n, size_t *cap, size_t start, size_t end)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 8;
		dl_sql_span *g = dl_reallocarray(*out, c, sizeof *g);
		if (!g) return DL_ENOMEM;
		*out = g;
		*cap = c;
	}
	(*out)[(*n)++] = (dl_sql_span){start, end};
	return 0;
}

int dl_sql_split(dl_sql_span **out, size_t *n, const char *s, size_t len)
{
	*out = NULL;
	*n = 0;
	size_t cap = 0, start = 0, i = 0;
	while (i < len) {
		char c = s[i];
		if (c == '\'' || c == '"' || c == '`') {
			i++;
			while (i < len) {
				if (c != '`' && s[i] == '\\' && i + 1 < len) {
					i += 2;
					continue;
				}
				if (s[i] == c) {
					if (c == '`' && i + 1 < len && s[i + 1] == '`') {
						i += 2;
						continue;
					}
					break;
				}
				i++;
			}
			i++;
		} else if (c == '-' && i + 1 < len && s[i + 1] == '-') {
			while (i < len && s[i] != '\n') i++;
		} else if (c == '/' && i + 1 < len && s[i + 1] == '*') {
			i += 2;
			while (i + 1 < len && !(s[i] == '*' && s[i + 1] == '/')) i++;
			i += 2;
		} else if (c == ';') {
			if (push(out, n, &cap, start, i) < 0) goto oom;
			start = ++i;
		} else {
			i++;
		}
	}
	if (start < len && push(out, n, &cap, start, len) < 0) goto oom;
	return 0;
oom:
	dl_free(*out);
	*out = NULL;
	*n = 0;
	return DL_ENOMEM;
}
