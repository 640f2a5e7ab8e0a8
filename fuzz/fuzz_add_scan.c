/* Differential fuzzing of the DOM-free add scanner (log/add_scan.c): any
 * line it takes must parse through the DOM path to the same add action.
 * Inputs that do not start like an add line are given that prefix. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../tests/unit/log/add_scan_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char prefix[] = "{\"add\":{\"path\":\"p\",\"size\":1,";
	int handled;
	if (add_scan_check((const char *)data, size, &handled)) abort();
	if (size < 4096) {
		char buf[4096 + sizeof prefix];
		memcpy(buf, prefix, sizeof prefix - 1);
		memcpy(buf + sizeof prefix - 1, data, size);
		if (add_scan_check(buf, sizeof prefix - 1 + size, &handled)) abort();
	}
	return 0;
}
