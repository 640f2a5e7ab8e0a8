/* libFuzzer harness: Java regex -> POSIX translation on hostile patterns.
 * The translation must never read or write out of bounds, and whatever it
 * accepts must be a terminated string that regcomp can be handed. */
#include <regex.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "expr/regex_java.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	dl_buf out = DL_BUF_INIT;
	if (ex_regex_from_java(&out, (const char *)data, size) == 0) {
		if (strlen(out.data) != out.len) __builtin_trap();
		regex_t re;
		if (regcomp(&re, out.data, REG_EXTENDED | REG_NOSUB) == 0) regfree(&re);
	}
	dl_buf_free(&out);
	return 0;
}
