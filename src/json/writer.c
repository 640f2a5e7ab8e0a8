/* The streaming JSON writer (dl_jw_*): compact output, commas and nesting
 * tracked with one bit per level, errors sticky so callers check once at
 * dl_jw_finish. */
#include "json/json.h"
#include "json/escape.h"
#include "json/number_format.h"
#include <string.h>

#define MAX_DEPTH 63

void dl_jw_init(dl_json_writer *w, dl_buf *out)
{
	memset(w, 0, sizeof *w);
	w->out = out;
}

static void fail(dl_json_writer *w, int code, const char *msg)
{
	if (!w->error) w->error = dl_error_set(code, "JSON writer: %s", msg);
}

static void check(dl_json_writer *w, int rc)
{
	if (rc < 0 && !w->error) w->error = rc;
}

static inline uint64_t bit(int depth)
{
	return UINT64_C(1) << depth;
}

/* Everything before a value: the comma, or consuming the pending key.
 * Returns false when the value must not be written. */
static bool before_value(dl_json_writer *w)
{
	if (w->error) return false;
	if (w->after_key) {
		w->after_key = false;
		return true;
	}
	if (w->in_object & bit(w->depth)) {
		fail(w, DL_EINVALID, "a value inside an object needs a key first (dl_jw_key)");
		return false;
	}
	if (w->need_comma & bit(w->depth)) {
		if (w->depth == 0) {
			fail(w, DL_EINVALID, "a second top-level value: one writer writes one value");
			return false;
		}
		check(w, dl_json_putc(w->out, ','));
	}
	w->need_comma |= bit(w->depth);
	return !w->error;
}

static void begin(dl_json_writer *w, char c, bool is_object)
{
	if (!before_value(w)) return;
	if (w->depth == MAX_DEPTH) {
		fail(w, DL_EINVALID, "nesting deeper than 63 levels");
		return;
	}
	w->depth++;
	w->need_comma &= ~bit(w->depth);
	if (is_object) w->in_object |= bit(w->depth);
	else w->in_object &= ~bit(w->depth);
	check(w, dl_json_putc(w->out, c));
}

static void end(dl_json_writer *w, char c, bool is_object)
{
	if (w->error) return;
	if (w->depth == 0 || !(w->in_object & bit(w->depth)) != !is_object) {
		fail(w, DL_EINVALID, is_object ? "object end without a matching object begin"
		                                : "array end without a matching array begin");
		return;
	}
	if (w->after_key) {
		fail(w, DL_EINVALID, "object ended after a key without its value");
		return;
	}
	w->depth--;
	check(w, dl_json_putc(w->out, c));
}

void dl_jw_object_begin(dl_json_writer *w) { begin(w, '{', true); }
void dl_jw_object_end(dl_json_writer *w) { end(w, '}', true); }
void dl_jw_array_begin(dl_json_writer *w) { begin(w, '[', false); }
void dl_jw_array_end(dl_json_writer *w) { end(w, ']', false); }

void dl_jw_key(dl_json_writer *w, const char *key)
{
	if (w->error) return;
	if (!key) {
		fail(w, DL_EINVALID, "NULL key");
		return;
	}
	if (!(w->in_object & bit(w->depth)) || w->after_key) {
		fail(w, DL_EINVALID, w->after_key ? "two keys in a row: expected a value"
		                                  : "a key outside an object");
		return;
	}
	if (w->need_comma & bit(w->depth)) check(w, dl_json_putc(w->out, ','));
	w->need_comma |= bit(w->depth);
	check(w, dl_json_put_string(w->out, key, strlen(key)));
	check(w, dl_json_putc(w->out, ':'));
	w->after_key = true;
}

void dl_jw_string_n(dl_json_writer *w, const char *s, size_t n)
{
	if (!s && n) {
		fail(w, DL_EINVALID, "NULL string");
		return;
	}
	if (before_value(w)) check(w, dl_json_put_string(w->out, s ? s : "", n));
}

void dl_jw_string(dl_json_writer *w, const char *s)
{
	if (!s) {
		fail(w, DL_EINVALID, "NULL string (use dl_jw_null for null)");
		return;
	}
	dl_jw_string_n(w, s, strlen(s));
}

void dl_jw_int(dl_json_writer *w, int64_t v)
{
	char tmp[24];
	size_t n = dl_json_format_int64(tmp, v);
	if (before_value(w)) check(w, dl_json_put(w->out, tmp, n));
}

void dl_jw_double(dl_json_writer *w, double v)
{
	char tmp[40];
	int n = dl_json_format_double(tmp, v);
	if (n < 0) {
		fail(w, DL_EINVALID, "NaN or infinity has no JSON representation: omit the field or write null");
		return;
	}
	if (before_value(w)) check(w, dl_json_put(w->out, tmp, (size_t)n));
}

void dl_jw_bool(dl_json_writer *w, bool v)
{
	if (before_value(w)) check(w, v ? dl_json_put(w->out, "true", 4) : dl_json_put(w->out, "false", 5));
}

void dl_jw_null(dl_json_writer *w)
{
	if (before_value(w)) check(w, dl_json_put(w->out, "null", 4));
}

void dl_jw_raw(dl_json_writer *w, const char *json)
{
	if (!json) {
		fail(w, DL_EINVALID, "NULL raw JSON");
		return;
	}
	if (before_value(w)) check(w, dl_buf_puts(w->out, json));
}

int dl_jw_finish(dl_json_writer *w)
{
	if (w->error) return w->error;
	if (w->depth != 0 || w->after_key) {
		fail(w, DL_EINVALID, "unfinished document: an object or array is still open");
		return w->error;
	}
	if (!(w->need_comma & 1)) {
		fail(w, DL_EINVALID, "nothing was written");
		return w->error;
	}
	return 0;
}
