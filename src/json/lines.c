/* Newline-delimited JSON (one value per line), the shape of Delta commit
 * files: dl_json_parse_lines. */
#include "json/parser.h"
#include <string.h>

static bool is_blank(const char *p, const char *end)
{
	return dl_json_skip_ws(p, end) == end;
}

int dl_json_parse_lines(dl_arena *arena, const char *text, size_t len, const char *what,
                        dl_json_line_fn fn, void *payload)
{
	if ((!text && len) || !arena || !fn)
		return dl_error_set(DL_EINVALID, "dl_json_parse_lines: text, arena and fn must not be NULL");
	if (!text) text = "";
	dl_json_parser ps;
	dl_json_parser_init(&ps, arena, text, what);
	const char *end = text + len, *ls = text + dl_json_bom_len(text, len);
	int rc = 0;
	for (int64_t line = 1; ls < end; line++) {
		/* JSON strings cannot hold a raw newline, so every '\n' ends a
		 * value. */
		const char *le = memchr(ls, '\n', (size_t)(end - ls));
		if (!le) le = end;
		if (!is_blank(ls, le)) {
			ps.line = line;
			ps.line_start = ls;
			dl_json v;
			const char *next;
			rc = dl_json_text_reserve(&ps, (size_t)(le - ls));
			if (rc < 0) break;
			rc = dl_json_parse_value(&ps, ls, le, &v, &next);
			if (rc < 0) break;
			next = dl_json_skip_ws(next, le);
			if (next != le) {
				rc = dl_json_fail(&ps, next, "unexpected data after the value: expected one value per line");
				break;
			}
			rc = fn(&v, line, payload);
			if (rc != 0) {
				if (rc < 0) dl_error_prefix("%s: line %lld", ps.what, (long long)line);
				break;
			}
		}
		ls = le + 1;
	}
	dl_json_parser_release(&ps);
	return rc;
}
