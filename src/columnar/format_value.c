/* Cell rendering: text, JSON and CSV forms (see format_value.h). */
#include "columnar/format_value.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "columnar/variant_json.h"
#include "util/base64.h"
#include "util/dtoa.h"
#include "util/error.h"
#include "util/time.h"

__extension__ typedef unsigned __int128 u128;

size_t dl_format_decimal(char out[DL_NUMBER_TEXT_MAX], dl_i128 v, int scale)
{
	char digits[48];
	int n = 0;
	/* |v| as unsigned, valid for the minimum too. */
	u128 u = v < 0 ? (u128)0 - (u128)v : (u128)v;
	do {
		digits[n++] = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u);
	while (n <= scale) digits[n++] = '0'; /* at least one digit before the point */
	size_t len = 0;
	if (v < 0) out[len++] = '-';
	for (int i = n - 1; i >= 0; i--) {
		out[len++] = digits[i];
		if (i == scale && scale > 0) out[len++] = '.';
	}
	out[len] = 0;
	return len;
}

/* Shortest digits that read back as v (util/dtoa.h), laid out as Spark shows them. */
static size_t format_shortest(char out[DL_NUMBER_TEXT_MAX], double v, bool is_float)
{
	if (isnan(v)) return (size_t)snprintf(out, DL_NUMBER_TEXT_MAX, "NaN");
	if (isinf(v)) return (size_t)snprintf(out, DL_NUMBER_TEXT_MAX, v < 0 ? "-Infinity" : "Infinity");
	char digits[DL_DTOA_DIGITS_MAX];
	int exp;
	int nd = is_float ? dl_ftoa_shortest(digits, &exp, (float)v) : dl_dtoa_shortest(digits, &exp, v);
	bool neg = signbit(v);
	size_t len = 0;
	if (neg) out[len++] = '-';
	if (exp >= -5 && exp < 16) {
		/* positional, always with a fraction digit ("1.0"), as Spark and DuckDB show */
		if (exp < 0) {
			out[len++] = '0';
			out[len++] = '.';
			for (int i = 0; i < -exp - 1; i++) out[len++] = '0';
			for (int i = 0; i < nd; i++) out[len++] = digits[i];
		} else {
			for (int i = 0; i <= exp; i++) out[len++] = i < nd ? digits[i] : '0';
			out[len++] = '.';
			if (nd > exp + 1) {
				for (int i = exp + 1; i < nd; i++) out[len++] = digits[i];
			} else {
				out[len++] = '0';
			}
		}
		out[len] = 0;
		return len;
	}
	out[len++] = digits[0];
	if (nd > 1) {
		out[len++] = '.';
		for (int i = 1; i < nd; i++) out[len++] = digits[i];
	}
	/* "e+20", "e-07", "e+308": sign and at least two digits, as %e. */
	out[len++] = 'e';
	out[len++] = exp < 0 ? '-' : '+';
	int mag = abs(exp);
	if (mag >= 100) out[len++] = (char)('0' + mag / 100);
	out[len++] = (char)('0' + mag / 10 % 10);
	out[len++] = (char)('0' + mag % 10);
	out[len] = 0;
	return len;
}

size_t dl_format_double(char out[DL_NUMBER_TEXT_MAX], double v)
{
	return format_shortest(out, v, false);
}

size_t dl_format_float(char out[DL_NUMBER_TEXT_MAX], float v)
{
	return format_shortest(out, v, true);
}

typedef enum style { STYLE_TEXT, STYLE_JSON } style;

/* Integers without printf: the common cell, printed millions of times. */
static int put_int(dl_buf *out, int64_t v)
{
	char tmp[24];
	int n = 0;
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	do {
		tmp[sizeof tmp - 1 - n++] = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u);
	if (v < 0) tmp[sizeof tmp - 1 - n++] = '-';
	return dl_buf_append(out, tmp + sizeof tmp - n, (size_t)n);
}

static int put_value(dl_buf *out, const dl_array *a, int64_t row, style st, int depth);

static int put_hex(dl_buf *out, const uint8_t *p, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	DL_TRY(dl_buf_puts(out, "X'"));
	DL_TRY(dl_buf_reserve(out, 2 * n + 1));
	for (size_t i = 0; i < n; i++) {
		out->data[out->len++] = hex[p[i] >> 4];
		out->data[out->len++] = hex[p[i] & 15];
	}
	out->data[out->len] = 0;
	return dl_buf_putc(out, '\'');
}

static int put_bytes(dl_buf *out, const dl_array *a, int64_t row, style st)
{
	/* an array holding only empty strings may have no data buffer */
	const uint8_t *p = a->data ? a->data + a->offsets[row] : (const uint8_t *)"";
	size_t n = (size_t)(a->offsets[row + 1] - a->offsets[row]);
	if (a->type->id == DL_TYPE_STRING) {
		if (st == STYLE_JSON) return dl_buf_put_json_string(out, (const char *)p, n);
		return dl_buf_append(out, p, n);
	}
	if (st == STYLE_TEXT) return put_hex(out, p, n);
	DL_TRY(dl_buf_putc(out, '"'));
	DL_TRY(dl_base64_encode(out, p, n));
	return dl_buf_putc(out, '"');
}

/* Text that JSON must quote (dates, timestamps, non-finite numbers). */
static int put_text(dl_buf *out, const char *s, bool quote)
{
	if (!quote) return dl_buf_puts(out, s);
	return dl_buf_put_json_string(out, s, strlen(s));
}

static int put_list(dl_buf *out, const dl_array *a, int64_t row, style st, int depth)
{
	const dl_array *el = a->children[0];
	DL_TRY(dl_buf_putc(out, '['));
	for (int32_t i = a->offsets[row]; i < a->offsets[row + 1]; i++) {
		if (i > a->offsets[row]) DL_TRY(dl_buf_puts(out, st == STYLE_JSON ? "," : ", "));
		DL_TRY(put_value(out, el, i, st, depth + 1));
	}
	return dl_buf_putc(out, ']');
}

static int put_map(dl_buf *out, const dl_array *a, int64_t row, style st, int depth)
{
	const dl_array *keys = a->children[0]->children[0], *vals = a->children[0]->children[1];
	DL_TRY(dl_buf_putc(out, '{'));
	for (int32_t i = a->offsets[row]; i < a->offsets[row + 1]; i++) {
		if (i > a->offsets[row]) DL_TRY(dl_buf_puts(out, st == STYLE_JSON ? "," : ", "));
		if (st == STYLE_JSON && keys->type->id != DL_TYPE_STRING) {
			/* JSON keys are strings: the key's text form, quoted. */
			dl_buf k = DL_BUF_INIT;
			int rc = put_value(&k, keys, i, STYLE_TEXT, depth + 1);
			if (rc == 0) rc = dl_buf_put_json_string(out, k.data ? k.data : "", k.len);
			dl_buf_free(&k);
			DL_TRY(rc);
		} else {
			DL_TRY(put_value(out, keys, i, st, depth + 1));
		}
		DL_TRY(dl_buf_putc(out, st == STYLE_JSON ? ':' : '='));
		DL_TRY(put_value(out, vals, i, st, depth + 1));
	}
	return dl_buf_putc(out, '}');
}

static int put_struct(dl_buf *out, const dl_array *a, int64_t row, style st, int depth)
{
	DL_TRY(dl_buf_putc(out, '{'));
	for (int i = 0; i < a->nchildren; i++) {
		const char *name = a->type->children[i].name;
		if (st == STYLE_JSON) {
			if (i) DL_TRY(dl_buf_putc(out, ','));
			DL_TRY(dl_buf_put_json_string(out, name, strlen(name)));
			DL_TRY(dl_buf_putc(out, ':'));
		} else {
			DL_TRY(dl_buf_printf(out, "%s%s: ", i ? ", " : "", name));
		}
		DL_TRY(put_value(out, a->children[i], row, st, depth + 1));
	}
	return dl_buf_putc(out, '}');
}

static int put_variant(dl_buf *out, const dl_array *a, int64_t row)
{
	const dl_array *v = a->children[0], *m = a->children[1];
	if (!dl_array_is_valid(v, row) || !dl_array_is_valid(m, row)) return dl_buf_puts(out, "null");
	return dl_variant_to_json(out, v->data + v->offsets[row], (size_t)(v->offsets[row + 1] - v->offsets[row]),
	                          m->data + m->offsets[row], (size_t)(m->offsets[row + 1] - m->offsets[row]));
}

static int put_value(dl_buf *out, const dl_array *a, int64_t row, style st, int depth)
{
	if (depth > 256) return dl_error_set(DL_EINVALID, "value nested too deeply to print");
	if (!dl_array_is_valid(a, row)) return dl_buf_puts(out, st == STYLE_JSON ? "null" : "NULL");
	const void *vals = a->values;
	char txt[DL_TIME_TEXT_MAX > DL_NUMBER_TEXT_MAX ? DL_TIME_TEXT_MAX : DL_NUMBER_TEXT_MAX];
	bool json = st == STYLE_JSON;
	switch (a->type->id) {
	case DL_TYPE_NULL: return dl_buf_puts(out, json ? "null" : "NULL");
	case DL_TYPE_BOOLEAN: return dl_buf_puts(out, dl_bit_get(vals, row) ? "true" : "false");
	case DL_TYPE_BYTE: return put_int(out, ((const int8_t *)vals)[row]);
	case DL_TYPE_SHORT: return put_int(out, ((const int16_t *)vals)[row]);
	case DL_TYPE_INTEGER: return put_int(out, ((const int32_t *)vals)[row]);
	case DL_TYPE_LONG: return put_int(out, ((const int64_t *)vals)[row]);
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE: {
		double d = a->type->id == DL_TYPE_FLOAT ? ((const float *)vals)[row] : ((const double *)vals)[row];
		if (a->type->id == DL_TYPE_FLOAT) dl_format_float(txt, (float)d);
		else dl_format_double(txt, d);
		return put_text(out, txt, json && !isfinite(d));
	}
	case DL_TYPE_DECIMAL: {
		dl_i128 v;
		memcpy(&v, (const uint8_t *)vals + row * 16, 16);
		dl_format_decimal(txt, v, a->type->scale);
		return dl_buf_puts(out, txt);
	}
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY: return put_bytes(out, a, row, st);
	case DL_TYPE_DATE:
		dl_date_format(txt, ((const int32_t *)vals)[row]);
		return put_text(out, txt, json);
	case DL_TYPE_TIMESTAMP:
	case DL_TYPE_TIMESTAMP_NTZ:
		dl_timestamp_format_spark(txt, ((const int64_t *)vals)[row], NULL);
		return put_text(out, txt, json);
	case DL_TYPE_STRUCT: return put_struct(out, a, row, st, depth);
	case DL_TYPE_ARRAY: return put_list(out, a, row, st, depth);
	case DL_TYPE_MAP: return put_map(out, a, row, st, depth);
	case DL_TYPE_VARIANT: return put_variant(out, a, row);
	}
	return dl_error_set(DL_EINVALID, "unknown type id %d", (int)a->type->id);
}

static int check_row(const dl_array *a, int64_t row)
{
	if (row < 0 || row >= a->length)
		return dl_error_set(DL_EINVALID, "row %lld is out of range of an array of %lld rows", (long long)row,
		                    (long long)a->length);
	return 0;
}

int dl_format_value(dl_buf *out, const dl_array *a, int64_t row)
{
	DL_TRY(check_row(a, row));
	return put_value(out, a, row, STYLE_TEXT, 0);
}

int dl_format_value_json(dl_buf *out, const dl_array *a, int64_t row)
{
	DL_TRY(check_row(a, row));
	return put_value(out, a, row, STYLE_JSON, 0);
}

int dl_format_csv_field(dl_buf *out, const char *s, size_t n, char delim)
{
	bool quote = n == 0;
	for (size_t i = 0; i < n && !quote; i++)
		quote = s[i] == delim || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
	if (!quote) return dl_buf_append(out, s, n);
	DL_TRY(dl_buf_putc(out, '"'));
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"') DL_TRY(dl_buf_putc(out, '"'));
		DL_TRY(dl_buf_putc(out, s[i]));
	}
	return dl_buf_putc(out, '"');
}

int dl_format_value_csv(dl_buf *out, const dl_array *a, int64_t row, char delim)
{
	DL_TRY(check_row(a, row));
	if (!dl_array_is_valid(a, row)) return 0;
	dl_buf t = DL_BUF_INIT;
	int rc = put_value(&t, a, row, STYLE_TEXT, 0);
	if (rc == 0) rc = dl_format_csv_field(out, t.data ? t.data : "", t.len, delim);
	dl_buf_free(&t);
	return rc;
}
