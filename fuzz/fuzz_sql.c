/* Fuzzes the SQL grammar: parse arbitrary text as a script; on success
 * every statement's canonical print must parse again, as one statement,
 * and print the same (the round-trip fixpoint the tests check on the
 * corpus). On failure the error must carry a place. Any crash, leak, a
 * broken fixpoint or an unplaced syntax error (trap) is a bug. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sql/sql.h"
#include "util/error.h"
#include "util/mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 1 << 16) return 0;
	char *text = malloc(size + 1);
	if (!text) return 0;
	memcpy(text, data, size);
	text[size] = 0;
	dl_sql_script *s;
	int rc = dl_sql_parse(&s, text);
	if (rc < 0) {
		const char *m = dl_error_last()->message;
		if (rc == DL_EINVALID && m[0] == '[' && !strstr(m, ": line ")) __builtin_trap();
		free(text);
		return 0;
	}
	for (size_t i = 0; i < dl_sql_script_count(s); i++) {
		dl_buf b = DL_BUF_INIT, b2 = DL_BUF_INIT;
		if (dl_sql_print(&b, dl_sql_script_stmt(s, i)) < 0) __builtin_trap();
		dl_sql_script *again;
		if (dl_sql_parse(&again, b.data) < 0) __builtin_trap();
		if (dl_sql_script_count(again) != 1) __builtin_trap();
		if (dl_sql_print(&b2, dl_sql_script_stmt(again, 0)) < 0) __builtin_trap();
		if (strcmp(b.data, b2.data) != 0) __builtin_trap();
		dl_sql_script_free(again);
		dl_buf_free(&b);
		dl_buf_free(&b2);
	}
	dl_sql_script_free(s);
	free(text);
	return 0;
}
