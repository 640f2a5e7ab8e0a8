/* The Iceberg metadata JSON reader (uniform/iceberg_read.c) on hostile
 * input: it must fail cleanly or return fields that hold together (a
 * current snapshot with a manifest list, a current schema with fields). */
#include <stdint.h>
#include <stdlib.h>
#include "uniform/iceberg_read.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	dl_arena a = DL_ARENA_INIT;
	dl_ice_metadata m;
	if (dl_ice_metadata_parse(&m, &a, (const char *)data, size, "fuzz.metadata.json") == 0) {
		if (!m.current_schema || !m.location) abort();
		if (m.current_snapshot_id != -1 && !m.current_manifest_list) abort();
	}
	dl_error_clear();
	dl_arena_free(&a);
	return 0;
}
