/* Every JSON file in the _delta_log folders of the conformance tables
 * (commits, checkpoints in JSON, .crc, _last_checkpoint), written by Spark,
 * delta-rs and the Delta kernels, must parse; the JSON nested in strings
 * (stats, schemaString) must parse too; and every value must survive
 * write -> parse -> write byte for byte. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json/json.h"
#include "util/mem.h"

typedef struct tally {
	int files, lines, stats, schemas, malformed;
	char failure[1024];
} tally;

static tally g;

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

static void fail_once(const char *fmt, const char *a, const char *b)
{
	if (!g.failure[0]) snprintf(g.failure, sizeof g.failure, fmt, a, b);
}

/* write -> parse -> write must reproduce the first write exactly. */
static void check_round_trip(const dl_json *v, const char *where)
{
	dl_buf a = DL_BUF_INIT, b = DL_BUF_INIT;
	dl_arena arena = DL_ARENA_INIT;
	dl_json *again;
	if (dl_json_write(&a, v) != 0 || dl_json_parse(&arena, a.data, a.len, "rewritten", &again) != 0 ||
	    dl_json_write(&b, again) != 0 || a.len != b.len || memcmp(a.data, b.data, a.len) != 0)
		fail_once("%s: write/parse/write differs (%s)", where, dl_error_last()->message);
	dl_arena_free(&arena);
	dl_buf_free(&a);
	dl_buf_free(&b);
}

static void check_nested(const char *text, const char *what, const char *where, int *count)
{
	dl_arena arena = DL_ARENA_INIT;
	dl_json *v;
	if (dl_json_parse(&arena, text, strlen(text), what, &v) != 0) fail_once("%s: %s", where, dl_error_last()->message);
	else (*count)++;
	dl_arena_free(&arena);
}

static int on_line(const dl_json *v, int64_t line, void *payload)
{
	(void)line;
	const char *path = payload;
	g.lines++;
	check_round_trip(v, path);
	for (size_t i = 0; v->kind == DL_JSON_OBJECT && i < v->u.obj.n; i++) {
		const dl_json *body = &v->u.obj.items[i].value;
		const char *stats = dl_json_get_str(body, "stats");
		if (stats) check_nested(stats, "stats", path, &g.stats);
		const char *schema = dl_json_get_str(body, "schemaString");
		if (schema) check_nested(schema, "schemaString", path, &g.schemas);
	}
	return 0;
}

static bool is_log_json(const char *path)
{
	if (!strstr(path, "/_delta_log/")) return false;
	const char *base = strrchr(path, '/') + 1;
	if (base[0] == '.') return false; /* Hadoop's binary .<file>.crc checksums */
	size_t n = strlen(path);
	return (n > 5 && strcmp(path + n - 5, ".json") == 0) || (n > 4 && strcmp(path + n - 4, ".crc") == 0) ||
	       (n > 16 && strcmp(path + n - 16, "/_last_checkpoint") == 0);
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type != FTW_F || !is_log_json(path)) return 0;
	size_t len;
	char *text = slurp(path, &len);
	if (!text) {
		fail_once("%s: cannot read%s", path, "");
		return 0;
	}
	dl_arena arena = DL_ARENA_INIT;
	int rc = dl_json_parse_lines(&arena, text, len, path, on_line, (void *)path);
	if (strstr(path, "-malformed/")) {
		/* Tables made broken on purpose (kernel-data/crc-malformed). */
		if (rc != DL_ECORRUPT) fail_once("%s: expected DL_ECORRUPT%s", path, "");
		g.malformed++;
	} else if (rc != 0) {
		fail_once("%s: %s", path, dl_error_last()->message);
	}
	g.files++;
	dl_arena_free(&arena);
	dl_free(text);
	return 0;
}

static void all_conformance_logs_parse(void **state)
{
	(void)state;
	const char *root = DL_SHARED_DIR "/conformance";
	memset(&g, 0, sizeof g);
	if (nftw(root, visit, 16, FTW_PHYS) != 0) skip();
	if (g.failure[0]) fail_msg("%s", g.failure);
	print_message("parsed %d files, %d lines, %d stats strings, %d schemas; %d malformed on purpose\n",
	              g.files, g.lines, g.stats, g.schemas, g.malformed);
	assert_true(g.files >= 500);
	assert_true(g.stats > 0);
	assert_true(g.schemas > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(all_conformance_logs_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
