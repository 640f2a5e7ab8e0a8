/* Fuzzes the CREATE TABLE column-list parser (src/ops/ddl.c): arbitrary
 * text must parse or fail cleanly; a parsed schema must serialize to Delta
 * schema JSON that parses back to an equal type, and the protocol chooser
 * must accept or refuse it without crashing. Any crash, leak or broken
 * round trip (trap) is a bug. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "log/schema.h"
#include "ops/ddl.h"
#include "ops/protocol_choose.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096) return 0;
	char *text = dl_strndup((const char *)data, size);
	if (!text) return 0;
	dl_type *t = NULL;
	if (dl_ddl_parse_schema(&t, text) == 0) {
		dl_buf j = DL_BUF_INIT;
		if (dl_schema_to_json(&j, t) != 0) __builtin_trap();
		dl_type *back = NULL;
		if (dl_schema_parse(&back, j.data, j.len) != 0 || !dl_type_equals(t, back)) __builtin_trap();
		dl_arena a = DL_ARENA_INIT;
		dl_protocol p;
		dl_str_map none = {NULL, 0};
		(void)dl_ops_choose_protocol(&p, &a, t, &none, NULL);
		dl_arena_free(&a);
		dl_type_unref(back);
		dl_buf_free(&j);
		dl_type_unref(t);
	}
	dl_type *one = NULL;
	if (dl_ddl_parse_type(&one, text) == 0) dl_type_unref(one);
	dl_error_clear();
	dl_free(text);
	return 0;
}
