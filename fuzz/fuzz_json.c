/* libFuzzer harness for the JSON layer: any input must parse or fail with
 * DL_ECORRUPT (never crash, hang or leak); a parsed value written back must
 * reparse, and writing that again must give the same bytes. The input is
 * also fed to the newline-delimited parser and the number conversions. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "json/json.h"
#include "util/arena.h"
#include "util/buf.h"

static void convert_numbers(const dl_json *v, int depth)
{
	if (depth > 600) abort(); /* deeper than the parser allows */
	int64_t i;
	double d;
	switch (v->kind) {
	case DL_JSON_NUMBER:
		if (dl_json_int64(v, &i) == 0 && strchr(v->u.num.ptr, '.')) abort();
		(void)dl_json_double(v, &d);
		break;
	case DL_JSON_ARRAY:
		for (size_t k = 0; k < v->u.arr.n; k++) convert_numbers(&v->u.arr.items[k], depth + 1);
		break;
	case DL_JSON_OBJECT:
		for (size_t k = 0; k < v->u.obj.n; k++) {
			const dl_json_member *m = &v->u.obj.items[k];
			if (m->key[m->key_len] != 0) abort(); /* keys are NUL-terminated */
			if (strlen(m->key) == m->key_len && dl_json_get(v, m->key) == NULL) abort();
			convert_numbers(&m->value, depth + 1);
		}
		break;
	case DL_JSON_STRING:
		if (v->u.str.ptr[v->u.str.len] != 0) abort();
		break;
	default:
		break;
	}
}

static int count_line(const dl_json *v, int64_t line, void *payload)
{
	(void)v;
	int64_t *last = payload;
	if (line <= *last) abort(); /* line numbers only grow */
	*last = line;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	dl_arena arena = DL_ARENA_INIT;
	const char *text = (const char *)data;
	dl_json *v = NULL;
	int rc = dl_json_parse(&arena, text, size, "fuzz", &v);
	if (rc == 0) {
		convert_numbers(v, 0);
		dl_buf a = DL_BUF_INIT, b = DL_BUF_INIT;
		if (dl_json_write(&a, v) != 0) abort();
		dl_json *v2 = NULL;
		if (dl_json_parse(&arena, a.data, a.len, "rewritten", &v2) != 0) abort();
		if (dl_json_write(&b, v2) != 0) abort();
		if (a.len != b.len || memcmp(a.data, b.data, a.len) != 0) abort();
		dl_buf_free(&a);
		dl_buf_free(&b);
	} else if (rc != DL_ECORRUPT && rc != DL_ENOMEM) {
		abort();
	}
	int64_t last = 0;
	rc = dl_json_parse_lines(&arena, text, size, "fuzz-lines", count_line, &last);
	if (rc != 0 && rc != DL_ECORRUPT && rc != DL_ENOMEM) abort();
	dl_arena_free(&arena);
	return 0;
}
