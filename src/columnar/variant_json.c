/* Variant binary -> JSON text (see variant_json.h). */
#include "columnar/variant_json.h"
#include <stdio.h>
#include <string.h>
#include "columnar/format_value.h"
#include "util/base64.h"
#include "util/error.h"
#include "util/time.h"
#include "util/uuid.h"

#define VARIANT_MAX_DEPTH 128

__extension__ typedef unsigned __int128 dl_u128;

typedef struct vmeta {
	const uint8_t *offsets; /* dict_size + 1 entries of offset_size bytes */
	const uint8_t *bytes;
	uint64_t bytes_len;
	uint64_t dict_size;
	int offset_size;
} vmeta;

static uint64_t read_le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = n; i-- > 0;) v = (v << 8) | p[i];
	return v;
}

static int corrupt(const char *what)
{
	return dl_error_set(DL_ECORRUPT, "malformed variant value: %s", what);
}

static int parse_metadata(vmeta *m, const uint8_t *p, size_t n)
{
	if (n < 1) return corrupt("empty metadata");
	if ((p[0] & 0x0F) != 1) return dl_error_set(DL_EUNSUPPORTED, "variant metadata version %d is not supported", p[0] & 0x0F);
	m->offset_size = ((p[0] >> 6) & 3) + 1;
	if (n < 1 + (size_t)m->offset_size) return corrupt("metadata shorter than its header");
	m->dict_size = read_le(p + 1, m->offset_size);
	uint64_t head = 1 + (uint64_t)m->offset_size * (m->dict_size + 2);
	if (head > n) return corrupt("metadata dictionary offsets past the end");
	m->offsets = p + 1 + m->offset_size;
	m->bytes = p + head;
	m->bytes_len = n - head;
	return 0;
}

static int dict_string(const vmeta *m, uint64_t id, const char **s, size_t *len)
{
	if (id >= m->dict_size) return corrupt("field id outside the metadata dictionary");
	uint64_t a = read_le(m->offsets + id * (uint64_t)m->offset_size, m->offset_size);
	uint64_t b = read_le(m->offsets + (id + 1) * (uint64_t)m->offset_size, m->offset_size);
	if (a > b || b > m->bytes_len) return corrupt("metadata string out of range");
	*s = (const char *)m->bytes + a;
	*len = (size_t)(b - a);
	return 0;
}

static int put_quoted(dl_buf *out, const char *s)
{
	DL_TRY(dl_buf_putc(out, '"'));
	DL_TRY(dl_buf_puts(out, s));
	return dl_buf_putc(out, '"');
}

static int put_time_ntz(dl_buf *out, int64_t micros)
{
	int64_t us = dl_floor_mod(micros, DL_MICROS_PER_DAY), s = us / 1000000, frac = us % 1000000;
	DL_TRY(dl_buf_printf(out, "\"%02d:%02d:%02d", (int)(s / 3600), (int)(s / 60 % 60), (int)(s % 60)));
	if (frac) {
		char f[8];
		snprintf(f, sizeof f, "%06d", (int)frac);
		for (int i = 5; i > 0 && f[i] == '0'; i--) f[i] = 0;
		DL_TRY(dl_buf_printf(out, ".%s", f));
	}
	return dl_buf_putc(out, '"');
}

static int primitive(dl_buf *out, int type, const uint8_t *p, size_t n)
{
	static const int8_t sizes[] = {0, 0, 0, 1, 2, 4, 8, 8, 5, 9, 17, 4, 8, 8, 4, 4, 4, 8, 8, 8, 16};
	if (type >= (int)sizeof sizes) return dl_error_set(DL_EUNSUPPORTED, "variant primitive type %d is not supported", type);
	if ((size_t)sizes[type] > n) return corrupt("primitive value truncated");
	char txt[DL_TIME_TEXT_MAX > DL_NUMBER_TEXT_MAX ? DL_TIME_TEXT_MAX : DL_NUMBER_TEXT_MAX];
	switch (type) {
	case 0: return dl_buf_puts(out, "null");
	case 1: return dl_buf_puts(out, "true");
	case 2: return dl_buf_puts(out, "false");
	case 3: return dl_buf_printf(out, "%d", (int8_t)p[0]);
	case 4: return dl_buf_printf(out, "%d", (int16_t)read_le(p, 2));
	case 5: return dl_buf_printf(out, "%d", (int32_t)read_le(p, 4));
	case 6: return dl_buf_printf(out, "%lld", (long long)(int64_t)read_le(p, 8));
	case 7:
	case 14: {
		double d;
		if (type == 7) {
			memcpy(&d, p, 8);
			dl_format_double(txt, d);
		} else {
			float f;
			memcpy(&f, p, 4);
			d = f;
			dl_format_float(txt, f);
		}
		if (d != d || d - d != 0) return put_quoted(out, txt); /* JSON has no NaN/Infinity */
		return dl_buf_puts(out, txt);
	}
	case 8:
	case 9:
	case 10: {
		if (p[0] > 38) return corrupt("decimal scale above 38");
		int w = type == 8 ? 4 : type == 9 ? 8 : 16;
		dl_u128 u = 0;
		memcpy(&u, p + 1, (size_t)w);
		/* sign-extend the w-byte little-endian value */
		int shift = 128 - 8 * w;
		dl_i128 v = (dl_i128)(u << shift) >> shift;
		dl_format_decimal(txt, v, p[0]);
		return dl_buf_puts(out, txt);
	}
	case 11:
		dl_date_format(txt, (int32_t)read_le(p, 4));
		return put_quoted(out, txt);
	case 12:
	case 13:
	case 18:
	case 19: {
		int64_t t = (int64_t)read_le(p, 8);
		if (type >= 18) {
			/* nanoseconds: whole seconds as Spark prints them, then up to
			 * nine fraction digits without trailing zeros */
			int64_t sec = dl_floor_div(t, 1000000000), ns = t - sec * 1000000000;
			dl_timestamp_format_spark(txt, sec * 1000000, NULL);
			DL_TRY(dl_buf_printf(out, "\"%s", txt));
			if (ns) {
				char f[16];
				snprintf(f, sizeof f, "%09lld", (long long)ns);
				int k = 9;
				while (f[k - 1] == '0') k--;
				DL_TRY(dl_buf_printf(out, ".%.*s", k, f));
			}
			return dl_buf_puts(out, type == 18 ? "+00:00\"" : "\"");
		}
		dl_timestamp_format_spark(txt, t, NULL);
		DL_TRY(dl_buf_printf(out, "\"%s", txt));
		return dl_buf_puts(out, type == 12 || type == 18 ? "+00:00\"" : "\"");
	}
	case 15:
	case 16: {
		uint64_t len = read_le(p, 4);
		if (len > n - 4) return corrupt("binary or string longer than the value");
		if (type == 16) return dl_buf_put_json_string(out, (const char *)p + 4, (size_t)len);
		DL_TRY(dl_buf_putc(out, '"'));
		DL_TRY(dl_base64_encode(out, p + 4, (size_t)len));
		return dl_buf_putc(out, '"');
	}
	case 17:
		return put_time_ntz(out, (int64_t)read_le(p, 8));
	default: { /* 20: UUID */
		char u[DL_UUID_TEXT_LEN + 1];
		dl_uuid_format(u, p);
		return put_quoted(out, u);
	}
	}
}

static int value_json(dl_buf *out, const vmeta *m, const uint8_t *v, size_t n, int depth);

/* The shared layout of objects and arrays: count, [ids], offsets, values. */
static int container(dl_buf *out, const vmeta *m, const uint8_t *v, size_t n, int depth, bool object)
{
	int hdr = v[0] >> 2;
	int large = object ? (hdr >> 4) & 1 : (hdr >> 2) & 1;
	int id_size = object ? ((hdr >> 2) & 3) + 1 : 0, off_size = (hdr & 3) + 1;
	size_t count_size = large ? 4 : 1;
	if (n < 1 + count_size) return corrupt("container header truncated");
	uint64_t count = read_le(v + 1, (int)count_size);
	uint64_t ids = 1 + count_size, offs = ids + count * (uint64_t)id_size;
	uint64_t vals = offs + (count + 1) * (uint64_t)off_size;
	if (count > n || vals > n) return corrupt("container offsets past the end");
	uint64_t end = read_le(v + offs + count * (uint64_t)off_size, off_size);
	if (end > n - vals) return corrupt("container values past the end");
	DL_TRY(dl_buf_putc(out, object ? '{' : '['));
	for (uint64_t i = 0; i < count; i++) {
		if (i) DL_TRY(dl_buf_putc(out, ','));
		if (object) {
			const char *key = NULL;
			size_t klen = 0;
			DL_TRY(dict_string(m, read_le(v + ids + i * (uint64_t)id_size, id_size), &key, &klen));
			DL_TRY(dl_buf_put_json_string(out, key, klen));
			DL_TRY(dl_buf_putc(out, ':'));
		}
		uint64_t at = read_le(v + offs + i * (uint64_t)off_size, off_size);
		if (at >= end) return corrupt("field offset past the values");
		DL_TRY(value_json(out, m, v + vals + at, (size_t)(end - at), depth + 1));
	}
	return dl_buf_putc(out, object ? '}' : ']');
}

static int value_json(dl_buf *out, const vmeta *m, const uint8_t *v, size_t n, int depth)
{
	if (depth > VARIANT_MAX_DEPTH) return corrupt("nested too deeply");
	if (n < 1) return corrupt("empty value");
	int basic = v[0] & 3, hdr = v[0] >> 2;
	switch (basic) {
	case 0: return primitive(out, hdr, v + 1, n - 1);
	case 1:
		if ((size_t)hdr > n - 1) return corrupt("short string longer than the value");
		return dl_buf_put_json_string(out, (const char *)v + 1, (size_t)hdr);
	default: return container(out, m, v, n, depth, basic == 2);
	}
}

int dl_variant_to_json(dl_buf *out, const uint8_t *value, size_t value_len, const uint8_t *metadata,
                       size_t metadata_len)
{
	vmeta m;
	DL_TRY(parse_metadata(&m, metadata, metadata_len));
	return value_json(out, &m, value, value_len, 0);
}
