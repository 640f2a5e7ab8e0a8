/* Thrift compact protocol decoding (see thrift's doc/specs/thrift-compact-
 * protocol.md): varints, zigzag integers, field headers with id deltas,
 * list headers with the size in the high nibble. */
#include "parquet/thrift_read.h"
#include <stdio.h>
#include <string.h>
#include "util/error.h"

void pq_thrift_init(pq_thrift *t, const uint8_t *p, size_t len, const char *what)
{
	memset(t, 0, sizeof *t);
	t->p = p;
	t->start = p;
	t->end = p + len;
	t->what = what ? what : "parquet";
}

size_t pq_thrift_pos(const pq_thrift *t)
{
	return (size_t)(t->p - t->start);
}

int pq_thrift_corrupt(pq_thrift *t, const char *msg)
{
	return dl_error_set(DL_ECORRUPT, "%s: corrupt thrift metadata: %s at byte %zu; the file is damaged or not Parquet",
	                    t->what, msg, pq_thrift_pos(t));
}

static int varint(pq_thrift *t, uint64_t *out)
{
	uint64_t v = 0;
	for (int shift = 0; shift < 70; shift += 7) {
		if (t->p >= t->end) return pq_thrift_corrupt(t, "truncated varint");
		uint8_t b = *t->p++;
		if (shift == 63 && (b & 0x7e)) return pq_thrift_corrupt(t, "varint overflows 64 bits");
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			return 0;
		}
	}
	return pq_thrift_corrupt(t, "varint longer than 10 bytes");
}

static int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

int pq_thrift_i64(pq_thrift *t, int64_t *out)
{
	uint64_t v;
	DL_TRY(varint(t, &v));
	*out = unzigzag(v);
	return 0;
}

int pq_thrift_i32(pq_thrift *t, int32_t *out)
{
	int64_t v;
	DL_TRY(pq_thrift_i64(t, &v));
	if (v < INT32_MIN || v > INT32_MAX) return pq_thrift_corrupt(t, "i32 out of range");
	*out = (int32_t)v;
	return 0;
}

int pq_thrift_byte(pq_thrift *t, int8_t *out)
{
	if (t->p >= t->end) return pq_thrift_corrupt(t, "truncated byte");
	*out = (int8_t)*t->p++;
	return 0;
}

int pq_thrift_double(pq_thrift *t, double *out)
{
	if (t->end - t->p < 8) return pq_thrift_corrupt(t, "truncated double");
	memcpy(out, t->p, 8); /* little-endian on the wire, as on our targets */
	t->p += 8;
	return 0;
}

int pq_thrift_bool_field(pq_thrift *t, int type, bool *out)
{
	if (type != TC_TRUE && type != TC_FALSE) return pq_thrift_corrupt(t, "expected a bool field");
	*out = type == TC_TRUE;
	return 0;
}

int pq_thrift_bool_elem(pq_thrift *t, bool *out)
{
	int8_t b = 0; /* gcc -O3 cannot see that pq_thrift_byte sets it on success */
	DL_TRY(pq_thrift_byte(t, &b));
	*out = b == TC_TRUE;
	return 0;
}

int pq_thrift_binary(pq_thrift *t, const uint8_t **p, uint32_t *len)
{
	uint64_t n;
	DL_TRY(varint(t, &n));
	if (n > (uint64_t)(t->end - t->p)) return pq_thrift_corrupt(t, "string longer than the bytes left");
	*p = t->p;
	*len = (uint32_t)n;
	t->p += n;
	return 0;
}

int pq_thrift_list(pq_thrift *t, int *elem_type, uint32_t *count)
{
	if (t->p >= t->end) return pq_thrift_corrupt(t, "truncated list header");
	uint8_t h = *t->p++;
	uint64_t n = h >> 4;
	if (n == 15) DL_TRY(varint(t, &n));
	*elem_type = h & 0x0f;
	/* Every element takes at least one byte, so a count larger than the
	 * bytes left is a lie; this bounds any allocation made from it. */
	if (n > PQ_THRIFT_MAX_LIST || n > (uint64_t)(t->end - t->p)) return pq_thrift_corrupt(t, "list size too large");
	*count = (uint32_t)n;
	return 0;
}

int pq_thrift_struct_begin(pq_thrift *t)
{
	if (t->depth >= PQ_THRIFT_MAX_DEPTH) return pq_thrift_corrupt(t, "structs nested too deeply");
	t->depth++;
	t->last_id[t->depth] = 0;
	return 0;
}

void pq_thrift_struct_end(pq_thrift *t)
{
	if (t->depth > 0) t->depth--;
}

int pq_thrift_field(pq_thrift *t, int *type, int16_t *id)
{
	if (t->p >= t->end) return pq_thrift_corrupt(t, "truncated struct (no stop field)");
	uint8_t h = *t->p++;
	*type = h & 0x0f;
	if (*type == TC_STOP) {
		*id = 0;
		return 0;
	}
	int delta = h >> 4;
	if (delta) {
		*id = (int16_t)(t->last_id[t->depth] + delta);
	} else {
		int64_t v;
		DL_TRY(pq_thrift_i64(t, &v));
		if (v < INT16_MIN || v > INT16_MAX) return pq_thrift_corrupt(t, "field id out of range");
		*id = (int16_t)v;
	}
	t->last_id[t->depth] = *id;
	if (*type > TC_STRUCT) return pq_thrift_corrupt(t, "unknown field type");
	return 0;
}

int pq_thrift_skip(pq_thrift *t, int type)
{
	int64_t i;
	const uint8_t *p;
	uint32_t n;
	switch (type) {
	case TC_TRUE:
	case TC_FALSE:
		return 0;
	case TC_BYTE:
		if (t->p >= t->end) return pq_thrift_corrupt(t, "truncated byte");
		t->p++;
		return 0;
	case TC_I16:
	case TC_I32:
	case TC_I64:
		return pq_thrift_i64(t, &i);
	case TC_DOUBLE:
		if (t->end - t->p < 8) return pq_thrift_corrupt(t, "truncated double");
		t->p += 8;
		return 0;
	case TC_BINARY:
		return pq_thrift_binary(t, &p, &n);
	case TC_LIST:
	case TC_SET: {
		int et;
		DL_TRY(pq_thrift_list(t, &et, &n));
		/* Bool list elements are one byte each, not header-carried. */
		if (et == TC_TRUE || et == TC_FALSE) et = TC_BYTE;
		if (et == TC_STOP) return n ? pq_thrift_corrupt(t, "list of invalid type") : 0;
		DL_TRY(pq_thrift_struct_begin(t)); /* counts as nesting */
		for (uint32_t k = 0; k < n; k++) {
			int rc = pq_thrift_skip(t, et);
			if (rc < 0) return rc;
		}
		pq_thrift_struct_end(t);
		return 0;
	}
	case TC_MAP: {
		uint64_t cnt = 0;
		int sh = 0;
		for (;;) {
			if (t->p >= t->end || sh > 28) return pq_thrift_corrupt(t, "bad map header");
			uint8_t b = *t->p++;
			cnt |= (uint64_t)(b & 0x7f) << sh;
			sh += 7;
			if (!(b & 0x80)) break;
		}
		if (cnt == 0) return 0;
		if (t->p >= t->end) return pq_thrift_corrupt(t, "truncated map");
		if (cnt > (uint64_t)(t->end - t->p)) return pq_thrift_corrupt(t, "map size too large");
		uint8_t kv = *t->p++;
		int kt = kv >> 4, vt = kv & 0x0f;
		if (kt == TC_TRUE || kt == TC_FALSE) kt = TC_BYTE;
		if (vt == TC_TRUE || vt == TC_FALSE) vt = TC_BYTE;
		if (kt == TC_STOP || vt == TC_STOP || kt > TC_STRUCT || vt > TC_STRUCT)
			return pq_thrift_corrupt(t, "map of invalid type");
		DL_TRY(pq_thrift_struct_begin(t));
		for (uint64_t k = 0; k < cnt; k++) {
			DL_TRY(pq_thrift_skip(t, kt));
			DL_TRY(pq_thrift_skip(t, vt));
		}
		pq_thrift_struct_end(t);
		return 0;
	}
	case TC_STRUCT: {
		DL_TRY(pq_thrift_struct_begin(t));
		for (;;) {
			int ft;
			int16_t id;
			DL_TRY(pq_thrift_field(t, &ft, &id));
			if (ft == TC_STOP) break;
			DL_TRY(pq_thrift_skip(t, ft));
		}
		pq_thrift_struct_end(t);
		return 0;
	}
	default:
		return pq_thrift_corrupt(t, "unknown type to skip");
	}
}

int pq_thrift_expect(pq_thrift *t, int type, int want, const char *field)
{
	bool ok = type == want;
	if (want == TC_I32 || want == TC_I64 || want == TC_I16)
		ok = type == TC_I16 || type == TC_I32 || type == TC_I64;
	if (want == TC_TRUE) ok = type == TC_TRUE || type == TC_FALSE;
	if (want == TC_LIST) ok = type == TC_LIST || type == TC_SET;
	if (ok) return 0;
	char msg[96];
	snprintf(msg, sizeof msg, "field %s has wire type %d", field, type);
	return pq_thrift_corrupt(t, msg);
}
