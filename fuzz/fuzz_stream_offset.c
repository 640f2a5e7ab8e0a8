/* Streaming offsets from outside (consumers' stored offsets, checkpoint
 * files): dl_stream_offset_from_json on any bytes, and the offsets/N file
 * reader of a checkpoint on a mem:// store. An offset that parses must
 * serialize and parse back to itself. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "deltalake/store.h"
#include "deltalake/stream.h"
#include "stream/stream_internal.h"

static void roundtrip(const uint8_t *data, size_t size)
{
	dl_stream_offset o, p;
	if (dl_stream_offset_from_json(&o, (const char *)data, size) != 0) return;
	char *j;
	if (dl_stream_offset_to_json(&j, &o) != 0) abort();
	if (dl_stream_offset_from_json(&p, j, strlen(j)) != 0 || !dl_stream_offset_equal(&o, &p)) abort();
	dl_free(j);
}

static void checkpoint_file(const uint8_t *data, size_t size)
{
	static unsigned n;
	char uri[64];
	snprintf(uri, sizeof uri, "mem://fuzz-stream-%u", n++);
	dl_store *st;
	if (dl_store_open(&st, uri, NULL) != 0) return;
	if (dl_store_put(st, "offsets/0", data, size) == 0) {
		dl_stream_checkpoint *cp;
		if (dl_stream_checkpoint_open(&cp, uri, NULL) == 0) {
			int64_t last;
			char *text;
			bool committed;
			if (dl_stream_checkpoint_last(&last, &text, &committed, cp) == 0 && text) {
				roundtrip((const uint8_t *)text, strlen(text));
				dl_free(text);
			}
			dl_stream_checkpoint_free(cp);
		}
		dl_store_delete(st, "offsets/0");
		dl_store_delete(st, "metadata");
	}
	dl_store_free(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	roundtrip(data, size);
	checkpoint_file(data, size);
	return 0;
}
