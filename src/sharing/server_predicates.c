/* jsonPredicateHints (PROTOCOL.md "JSON predicates for Filtering") as a
 * Spark SQL predicate for the scan planner's file pruning: column ops
 * become back-quoted names, literals typed literals by their valueType
 * (bool, int, long, string, date; float/double too), the comparison,
 * isNull, not, and, or ops their SQL forms. Anything else (an unknown op
 * or type, a wrong number of children, a literal that is not of its type,
 * nesting past 64) is DL_EINVALID and the hint is skipped, as the protocol
 * allows. Strings are escaped, so a literal cannot break out into SQL. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "json/json.h"
#include "sharing/server.h"
#include "util/error.h"
#include "util/mem.h"

static int jp_sql(dl_buf *b, const dl_json *n, int depth)
{
	if (depth > 64 || !n || n->kind != DL_JSON_OBJECT) return DL_EINVALID;
	const char *op = dl_json_get_str(n, "op");
	if (!op) return DL_EINVALID;
	const dl_json *ch = dl_json_get(n, "children");
	size_t nch = ch && ch->kind == DL_JSON_ARRAY ? ch->u.arr.n : 0;
	if (!strcmp(op, "column")) {
		const char *name = dl_json_get_str(n, "name");
		if (!name || !*name) return DL_EINVALID;
		DL_TRY(dl_buf_putc(b, '`'));
		for (const char *p = name; *p; p++) {
			if (*p == '`') DL_TRY(dl_buf_putc(b, '`'));
			DL_TRY(dl_buf_putc(b, *p));
		}
		return dl_buf_putc(b, '`');
	}
	if (!strcmp(op, "literal")) {
		const char *v = dl_json_get_str(n, "value");
		const char *ty = dl_json_get_str(n, "valueType");
		if (!v || !ty) return DL_EINVALID;
		if (!strcmp(ty, "bool")) {
			if (strcmp(v, "true") && strcmp(v, "false")) return DL_EINVALID;
			return dl_buf_puts(b, v);
		}
		if (!strcmp(ty, "int") || !strcmp(ty, "long")) {
			char *e;
			errno = 0;
			long long x = strtoll(v, &e, 10);
			if (!*v || *e || errno) return DL_EINVALID;
			return dl_buf_printf(b, "%lld", x);
		}
		if (!strcmp(ty, "float") || !strcmp(ty, "double")) {
			char *e;
			double x = strtod(v, &e);
			if (!*v || *e || x != x) return DL_EINVALID;
			return dl_buf_printf(b, "CAST('%.17g' AS DOUBLE)", x);
		}
		if (!strcmp(ty, "string") || !strcmp(ty, "date")) {
			DL_TRY(dl_buf_puts(b, !strcmp(ty, "date") ? "DATE'" : "'"));
			for (const char *p = v; *p; p++) {
				if (*p == '\'' || *p == '\\') DL_TRY(dl_buf_putc(b, '\\'));
				DL_TRY(dl_buf_putc(b, *p));
			}
			return dl_buf_putc(b, '\'');
		}
		return DL_EINVALID;
	}
	static const struct { const char *op, *sql; } bin[] = {
		{"equal", " = "}, {"lessThan", " < "}, {"lessThanOrEqual", " <= "},
		{"greaterThan", " > "}, {"greaterThanOrEqual", " >= "},
	};
	for (size_t i = 0; i < sizeof bin / sizeof *bin; i++) {
		if (strcmp(op, bin[i].op)) continue;
		if (nch != 2) return DL_EINVALID;
		DL_TRY(dl_buf_putc(b, '('));
		DL_TRY(jp_sql(b, &ch->u.arr.items[0], depth + 1));
		DL_TRY(dl_buf_puts(b, bin[i].sql));
		DL_TRY(jp_sql(b, &ch->u.arr.items[1], depth + 1));
		return dl_buf_putc(b, ')');
	}
	if (!strcmp(op, "isNull") || !strcmp(op, "not")) {
		if (nch != 1) return DL_EINVALID;
		bool isnull = !strcmp(op, "isNull");
		DL_TRY(dl_buf_puts(b, isnull ? "(" : "(NOT "));
		DL_TRY(jp_sql(b, &ch->u.arr.items[0], depth + 1));
		return dl_buf_puts(b, isnull ? " IS NULL)" : ")");
	}
	if (!strcmp(op, "and") || !strcmp(op, "or")) {
		if (nch < 2) return DL_EINVALID;
		DL_TRY(dl_buf_putc(b, '('));
		for (size_t i = 0; i < nch; i++) {
			if (i) DL_TRY(dl_buf_puts(b, !strcmp(op, "and") ? " AND " : " OR "));
			DL_TRY(jp_sql(b, &ch->u.arr.items[i], depth + 1));
		}
		return dl_buf_putc(b, ')');
	}
	return DL_EINVALID;
}

int dl_shr_json_predicate_sql(char **out, const char *json)
{
	*out = NULL;
	dl_arena a = DL_ARENA_INIT;
	dl_json *root;
	dl_buf b = DL_BUF_INIT;
	int rc = dl_json_parse(&a, json, strlen(json), "jsonPredicateHints", &root);
	if (rc == 0) rc = jp_sql(&b, root, 0);
	dl_arena_free(&a);
	if (rc < 0) {
		dl_buf_free(&b);
		return DL_EINVALID;
	}
	*out = dl_buf_detach(&b, NULL);
	return 0;
}
