/* dl_json_write: a parsed (or hand-built) value back to compact JSON.
 * Numbers are written from their source text, so nothing is rounded. */
#include "json/parser.h"
#include "json/escape.h"
#include "util/buf.h"

static int write_value(dl_buf *out, const dl_json *v, int depth)
{
	/* Parsed values are at most DL_JSON_MAX_DEPTH deep; hand-built ones
	 * are held to the same limit so the recursion stays bounded. */
	if (depth > DL_JSON_MAX_DEPTH)
		return dl_error_set(DL_EINVALID, "JSON value nested deeper than %d levels", DL_JSON_MAX_DEPTH);
	switch (v->kind) {
	case DL_JSON_NULL: return dl_json_put(out, "null", 4);
	case DL_JSON_FALSE: return dl_json_put(out, "false", 5);
	case DL_JSON_TRUE: return dl_json_put(out, "true", 4);
	case DL_JSON_NUMBER:
		if (!v->u.num.len) return dl_error_set(DL_EINVALID, "JSON number without text");
		return dl_json_put(out, v->u.num.ptr, v->u.num.len);
	case DL_JSON_STRING: return dl_json_put_string(out, v->u.str.ptr, v->u.str.len);
	case DL_JSON_ARRAY:
		DL_TRY(dl_json_putc(out, '['));
		for (size_t i = 0; i < v->u.arr.n; i++) {
			if (i) DL_TRY(dl_json_putc(out, ','));
			DL_TRY(write_value(out, &v->u.arr.items[i], depth + 1));
		}
		return dl_json_putc(out, ']');
	case DL_JSON_OBJECT:
		DL_TRY(dl_json_putc(out, '{'));
		for (size_t i = 0; i < v->u.obj.n; i++) {
			const dl_json_member *m = &v->u.obj.items[i];
			if (i) DL_TRY(dl_json_putc(out, ','));
			DL_TRY(dl_json_put_string(out, m->key, m->key_len));
			DL_TRY(dl_json_putc(out, ':'));
			DL_TRY(write_value(out, &m->value, depth + 1));
		}
		return dl_json_putc(out, '}');
	}
	return dl_error_set(DL_EINVALID, "JSON value of unknown kind %d", (int)v->kind);
}

int dl_json_write(dl_buf *out, const dl_json *v)
{
	if (!v) return dl_error_set(DL_EINVALID, "dl_json_write: value is NULL");
	return write_value(out, v, 0);
}
