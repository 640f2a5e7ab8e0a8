/* libFuzzer harness for the JSON-lines reader (src/io/jsonl_read.c): any
 * bytes, typed by a nested target schema or inferred (the first byte
 * chooses), must either fail with DL_EINVALID / DL_ECORRUPT / DL_ENOMEM or
 * give batches whose every column has the batch's row count (never crash,
 * hang or leak). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "io/input.h"
#include "log/schema.h"
#include "util/error.h"
#include "util/mem.h"

static const char schema_json[] =
    "{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}},"
    "{\"name\":\"s\",\"type\":{\"type\":\"struct\",\"fields\":[{\"name\":\"x\",\"type\":\"decimal(5,2)\","
    "\"nullable\":true,\"metadata\":{}}]},\"nullable\":true,\"metadata\":{}},"
    "{\"name\":\"l\",\"type\":{\"type\":\"array\",\"elementType\":\"date\",\"containsNull\":true},"
    "\"nullable\":true,\"metadata\":{}},"
    "{\"name\":\"m\",\"type\":{\"type\":\"map\",\"keyType\":\"integer\",\"valueType\":\"timestamp\","
    "\"valueContainsNull\":true},\"nullable\":true,\"metadata\":{}}]}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1) return 0;
	uint8_t sel = data[0];
	dl_type *schema = NULL;
	if ((sel & 1) && dl_schema_parse(&schema, schema_json, strlen(schema_json)) < 0) abort();
	dl_io_input *in = dl_calloc(1, sizeof *in);
	if (!in) abort();
	in->data = (const char *)data + 1;
	in->len = size - 1;
	in->path = dl_strdup("fuzz.jsonl");
	dl_batch_stream *s;
	int rc = dl_io_jsonl_stream(&s, in, schema, (sel & 2) ? 2 : 0, (sel & 4) != 0);
	if (rc == 0) {
		for (;;) {
			dl_batch *b;
			rc = dl_batch_stream_next(s, &b);
			if (rc < 0 || !b) break;
			for (int c = 0; c < b->ncols; c++)
				if (b->cols[c]->length != b->num_rows) abort();
			dl_batch_free(b);
		}
		dl_batch_stream_free(s);
	}
	if (rc < 0 && rc != DL_EINVALID && rc != DL_ECORRUPT && rc != DL_ENOMEM) abort();
	dl_type_unref(schema);
	dl_error_clear();
	return 0;
}
