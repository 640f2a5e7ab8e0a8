/* libFuzzer harness for the CSV reader (src/io/csv_read.c): any bytes, with
 * options and a target schema chosen by the first byte, must either fail
 * with DL_EINVALID / DL_ENOMEM or give batches whose every column has the
 * batch's row count (never crash, hang or leak). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "io/input.h"
#include "log/schema.h"
#include "util/error.h"
#include "util/mem.h"

static const char *const schemas[] = {
    NULL,
    "{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}},"
    "{\"name\":\"b\",\"type\":\"decimal(10,3)\",\"nullable\":true,\"metadata\":{}},"
    "{\"name\":\"c\",\"type\":\"timestamp\",\"nullable\":true,\"metadata\":{}},"
    "{\"name\":\"d\",\"type\":\"date\",\"nullable\":true,\"metadata\":{}},"
    "{\"name\":\"_c0\",\"type\":\"boolean\",\"nullable\":true,\"metadata\":{}}]}",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1) return 0;
	uint8_t sel = data[0];
	dl_io_csv_format fmt = DL_IO_CSV_FORMAT_INIT;
	fmt.delimiter = (sel & 1) ? ';' : ',';
	fmt.quote = (sel & 2) ? '\'' : (sel & 4) ? 0 : '"';
	fmt.null_string = (sel & 8) ? "NA" : NULL;
	fmt.header = !(sel & 16);
	dl_type *schema = NULL;
	const char *json = schemas[(sel >> 5) & 1];
	if (json && dl_schema_parse(&schema, json, strlen(json)) < 0) abort();
	dl_io_input *in = dl_calloc(1, sizeof *in);
	if (!in) abort();
	in->data = (const char *)data + 1;
	in->len = size - 1;
	in->path = dl_strdup("fuzz.csv");
	dl_batch_stream *s;
	int rc = dl_io_csv_stream(&s, in, schema, &fmt, (sel & 64) ? 3 : 0, (sel & 128) != 0);
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
	if (rc < 0 && rc != DL_EINVALID && rc != DL_ENOMEM) abort();
	dl_type_unref(schema);
	dl_error_clear();
	return 0;
}
