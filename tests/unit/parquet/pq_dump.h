/* Test helper: batches as JSON lines that the DuckDB oracle
 * (tests/integration/parquet_read_oracle.mjs) canonicalizes like its own
 * rows: numbers by value (dates in days, timestamps in micros, decimals
 * unscaled), binary as "hex:...", maps as [[k, v], ...]. */
#ifndef PQ_TEST_DUMP_H
#define PQ_TEST_DUMP_H
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "columnar/array.h"
#include "util/buf.h"

static void pq_dump_i128(dl_buf *b, dl_i128 v)
{
	char tmp[48];
	int k = 0;
	bool neg = v < 0;
	__extension__ unsigned __int128 u = neg ? -(unsigned __int128)v : (unsigned __int128)v;
	do {
		tmp[k++] = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u);
	dl_buf_putc(b, '"');
	if (neg) dl_buf_putc(b, '-');
	while (k) dl_buf_putc(b, tmp[--k]);
	dl_buf_putc(b, '"');
}

static void pq_dump_value(dl_buf *b, const dl_array *a, int64_t i)
{
	if (!dl_array_is_valid(a, i)) {
		dl_buf_puts(b, "null");
		return;
	}
	const uint8_t *v = a->values;
	switch (a->type->id) {
	case DL_TYPE_BOOLEAN: dl_buf_puts(b, dl_bit_get(v, i) ? "true" : "false"); break;
	case DL_TYPE_BYTE: dl_buf_printf(b, "%d", ((const int8_t *)v)[i]); break;
	case DL_TYPE_SHORT: dl_buf_printf(b, "%d", ((const int16_t *)(const void *)v)[i]); break;
	case DL_TYPE_INTEGER:
	case DL_TYPE_DATE: dl_buf_printf(b, "%d", ((const int32_t *)(const void *)v)[i]); break;
	case DL_TYPE_LONG:
	case DL_TYPE_TIMESTAMP:
	case DL_TYPE_TIMESTAMP_NTZ: dl_buf_printf(b, "\"%lld\"", (long long)((const int64_t *)(const void *)v)[i]); break;
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE: {
		double d = a->type->id == DL_TYPE_FLOAT ? ((const float *)(const void *)v)[i] : ((const double *)(const void *)v)[i];
		if (isnan(d)) dl_buf_puts(b, "\"NaN\"");
		else if (isinf(d)) dl_buf_puts(b, d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
		else dl_buf_printf(b, "%.17g", d);
		break;
	}
	case DL_TYPE_DECIMAL: {
		dl_i128 x;
		memcpy(&x, v + 16 * i, 16);
		pq_dump_i128(b, x);
		break;
	}
	case DL_TYPE_STRING:
		dl_buf_put_json_string(b, (const char *)a->data + a->offsets[i], (size_t)(a->offsets[i + 1] - a->offsets[i]));
		break;
	case DL_TYPE_BINARY:
		dl_buf_puts(b, "\"hex:");
		for (int32_t k = a->offsets[i]; k < a->offsets[i + 1]; k++) dl_buf_printf(b, "%02x", a->data[k]);
		dl_buf_putc(b, '"');
		break;
	case DL_TYPE_STRUCT:
		dl_buf_putc(b, '{');
		for (int c = 0; c < a->nchildren; c++) {
			if (c) dl_buf_putc(b, ',');
			dl_buf_put_json_string(b, a->type->children[c].name, strlen(a->type->children[c].name));
			dl_buf_putc(b, ':');
			pq_dump_value(b, a->children[c], i);
		}
		dl_buf_putc(b, '}');
		break;
	case DL_TYPE_ARRAY:
		dl_buf_putc(b, '[');
		for (int32_t k = a->offsets[i]; k < a->offsets[i + 1]; k++) {
			if (k > a->offsets[i]) dl_buf_putc(b, ',');
			pq_dump_value(b, a->children[0], k);
		}
		dl_buf_putc(b, ']');
		break;
	case DL_TYPE_MAP:
		dl_buf_putc(b, '[');
		for (int32_t k = a->offsets[i]; k < a->offsets[i + 1]; k++) {
			if (k > a->offsets[i]) dl_buf_putc(b, ',');
			dl_buf_putc(b, '[');
			pq_dump_value(b, a->children[0]->children[0], k);
			dl_buf_putc(b, ',');
			pq_dump_value(b, a->children[0]->children[1], k);
			dl_buf_putc(b, ']');
		}
		dl_buf_putc(b, ']');
		break;
	default: dl_buf_puts(b, "null"); break;
	}
}

/* Appends one JSON array line per row of the batch. */
static void pq_dump_batch(dl_buf *b, const dl_batch *batch)
{
	for (int64_t r = 0; r < batch->num_rows; r++) {
		dl_buf_putc(b, '[');
		for (int c = 0; c < batch->ncols; c++) {
			if (c) dl_buf_putc(b, ',');
			pq_dump_value(b, batch->cols[c], r);
		}
		dl_buf_puts(b, "]\n");
	}
}

#endif
