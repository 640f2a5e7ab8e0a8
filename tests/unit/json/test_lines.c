/* Newline-delimited JSON (dl_json_parse_lines), including a real Delta log. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json/json.h"
#include "util/mem.h"

typedef struct seen {
	int count;
	int64_t lines[16];
	int64_t ints[16];
	int stop_at; /* callback returns an error on this call (1-based) */
} seen;

static int record(const dl_json *v, int64_t line, void *payload)
{
	seen *s = payload;
	int64_t x = -1;
	if (s->count < 16) {
		s->lines[s->count] = line;
		if (dl_json_int64(dl_json_get(v, "n"), &x) != 0) x = -1;
		s->ints[s->count] = x;
	}
	s->count++;
	if (s->count == s->stop_at) return dl_error_set(DL_ECANCELLED, "stopped by the callback");
	return 0;
}

static void lines_with_blanks_and_crlf(void **state)
{
	(void)state;
	const char *text = "{\"n\":1}\n\n{\"n\":2}\r\n   \n\t{\"n\":3} \n{\"n\":4}";
	dl_arena a = DL_ARENA_INIT;
	seen s = {0};
	assert_int_equal(dl_json_parse_lines(&a, text, strlen(text), "log", record, &s), 0);
	assert_int_equal(s.count, 4);
	int64_t want_lines[] = {1, 3, 5, 6};
	for (int i = 0; i < 4; i++) {
		assert_int_equal(s.lines[i], want_lines[i]);
		assert_int_equal(s.ints[i], i + 1);
	}
	/* Trailing newline, empty input, BOM. */
	memset(&s, 0, sizeof s);
	assert_int_equal(dl_json_parse_lines(&a, "{\"n\":7}\n", 8, "log", record, &s), 0);
	assert_int_equal(s.count, 1);
	memset(&s, 0, sizeof s);
	assert_int_equal(dl_json_parse_lines(&a, "", 0, "log", record, &s), 0);
	assert_int_equal(dl_json_parse_lines(&a, NULL, 0, "log", record, &s), 0);
	assert_int_equal(s.count, 0);
	const char *bom = "\xEF\xBB\xBF{\"n\":9}";
	assert_int_equal(dl_json_parse_lines(&a, bom, strlen(bom), "log", record, &s), 0);
	assert_int_equal(s.ints[0], 9);
	dl_arena_free(&a);
}

static void errors_name_the_line(void **state)
{
	(void)state;
	const char *text = "{\"n\":1}\n{\"n\":2}\n\n{\"n\":3,}\n{\"n\":4}\n";
	dl_arena a = DL_ARENA_INIT;
	seen s = {0};
	assert_int_equal(dl_json_parse_lines(&a, text, strlen(text), "00000000000000000007.json", record, &s),
	                 DL_ECORRUPT);
	assert_int_equal(s.count, 2); /* stopped at the bad line */
	assert_string_equal(dl_error_last()->message,
	                    "00000000000000000007.json: line 4 col 8 (byte 24): expected a member name (a string in double quotes)");
	/* A value spanning lines is not newline-delimited JSON. */
	memset(&s, 0, sizeof s);
	const char *split = "{\"n\":1}\n{\"n\":\n2}\n";
	assert_int_equal(dl_json_parse_lines(&a, split, strlen(split), "x.json", record, &s), DL_ECORRUPT);
	assert_non_null(strstr(dl_error_last()->message, "x.json: line 2 col 6 (byte 13): unexpected end of input"));
	/* Two values on one line. */
	const char *two = "{\"n\":1} {\"n\":2}\n";
	assert_int_equal(dl_json_parse_lines(&a, two, strlen(two), "y.json", record, &s), DL_ECORRUPT);
	assert_non_null(strstr(dl_error_last()->message, "line 1 col 9 (byte 8): unexpected data after the value"));
	dl_arena_free(&a);
}

static void callback_error_stops(void **state)
{
	(void)state;
	const char *text = "{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n";
	dl_arena a = DL_ARENA_INIT;
	seen s = {.stop_at = 2};
	assert_int_equal(dl_json_parse_lines(&a, text, strlen(text), "z.json", record, &s), DL_ECANCELLED);
	assert_int_equal(s.count, 2);
	assert_string_equal(dl_error_last()->message, "z.json: line 2: stopped by the callback");
	dl_arena_free(&a);
}

/* The callback may reset the arena to keep memory flat over big files. */
static int reset_each(const dl_json *v, int64_t line, void *payload)
{
	(void)line;
	dl_arena *a = payload;
	if (!dl_json_get(v, "add")) return dl_error_set(DL_EINVALID, "no add");
	dl_arena_reset(a);
	return 0;
}

static void callback_may_reset_arena(void **state)
{
	(void)state;
	dl_buf b = DL_BUF_INIT;
	for (int i = 0; i < 3000; i++)
		dl_buf_printf(&b, "{\"add\":{\"path\":\"part-%05d.parquet\",\"stats\":\"{\\\"numRecords\\\":%d}\"}}\n", i, i);
	dl_arena a = DL_ARENA_INIT;
	assert_int_equal(dl_json_parse_lines(&a, b.data, b.len, "big", reset_each, &a), 0);
	assert_true(a.total <= 64 * 1024);
	dl_arena_free(&a);
	dl_buf_free(&b);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) return NULL;
	dl_buf b = DL_BUF_INIT;
	char tmp[65536];
	size_t n;
	while ((n = fread(tmp, 1, sizeof tmp, f)) > 0) dl_buf_append(&b, tmp, n);
	fclose(f);
	return dl_buf_detach(&b, len);
}

typedef struct delta_seen {
	int protocol, metadata, adds;
	int64_t size_sum;
	char schema_type[32];
} delta_seen;

static int delta_action(const dl_json *v, int64_t line, void *payload)
{
	(void)line;
	delta_seen *d = payload;
	const dl_json *x;
	if ((x = dl_json_get(v, "protocol"))) {
		int64_t r;
		if (dl_json_int64(dl_json_get(x, "minReaderVersion"), &r) < 0) return -1;
		d->protocol++;
	} else if ((x = dl_json_get(v, "metaData"))) {
		/* schemaString is JSON inside a JSON string. */
		const char *schema = dl_json_get_str(x, "schemaString");
		if (!schema) return dl_error_set(DL_ECORRUPT, "no schemaString");
		dl_arena a = DL_ARENA_INIT;
		dl_json *sv;
		int rc = dl_json_parse(&a, schema, strlen(schema), "schemaString", &sv);
		if (rc == 0) snprintf(d->schema_type, sizeof d->schema_type, "%s", dl_json_get_str(sv, "type"));
		dl_arena_free(&a);
		if (rc < 0) return rc;
		d->metadata++;
	} else if ((x = dl_json_get(v, "add"))) {
		int64_t size;
		if (dl_json_int64(dl_json_get(x, "size"), &size) < 0) return -1;
		if (!dl_json_get_str(x, "path")) return dl_error_set(DL_ECORRUPT, "add without path");
		d->size_sum += size;
		d->adds++;
	}
	return 0;
}

static void real_delta_log(void **state)
{
	(void)state;
	const char *dir = DL_SHARED_DIR "/bench-data/300k-add-files-100-col-partitioned/_delta_log";
	char path[1024];
	delta_seen d = {0};
	for (int version = 0; version <= 1; version++) {
		snprintf(path, sizeof path, "%s/%020d.json", dir, version);
		size_t len;
		char *text = slurp(path, &len);
		if (!text) skip();
		dl_arena a = DL_ARENA_INIT;
		int rc = dl_json_parse_lines(&a, text, len, path, delta_action, &d);
		if (rc != 0) fail_msg("%s", dl_error_last()->message);
		dl_arena_free(&a);
		dl_free(text);
	}
	assert_int_equal(d.protocol, 1);
	assert_int_equal(d.metadata, 1);
	assert_string_equal(d.schema_type, "struct");
	assert_int_equal(d.adds, 10);
	assert_int_equal(d.size_sum, 1024 * 55); /* sizes 1024, 2048, ..., 10240 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lines_with_blanks_and_crlf),
		cmocka_unit_test(errors_name_the_line),
		cmocka_unit_test(callback_error_stops),
		cmocka_unit_test(callback_may_reset_arena),
		cmocka_unit_test(real_delta_log),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
