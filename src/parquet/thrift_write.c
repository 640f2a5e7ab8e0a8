/* Thrift compact protocol encoder (see thrift_write.h). Format reference:
 * Apache Thrift's compact protocol spec: field header = (id delta << 4) |
 * type when the delta is 1..15, else the type byte then the zigzag-varint
 * i16 id; booleans live in the field type nibble; lists carry (size << 4) |
 * type, or 0xF0 | type and a varint size from 15 on. */
#include "parquet/thrift_write.h"
#include <string.h>

int pq_put_uvarint(dl_buf *b, uint64_t v)
{
	uint8_t tmp[10];
	int n = 0;
	while (v >= 0x80) {
		tmp[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	tmp[n++] = (uint8_t)v;
	return dl_buf_append(b, tmp, (size_t)n);
}

void pq_tw_init(pq_tw *w, dl_buf *out)
{
	memset(w, 0, sizeof *w);
	w->out = out;
}

static void put_byte(pq_tw *w, uint8_t c)
{
	if (w->error) return;
	w->error = dl_buf_append(w->out, &c, 1);
}

static void put_varint(pq_tw *w, uint64_t v)
{
	if (w->error) return;
	w->error = pq_put_uvarint(w->out, v);
}

static void field_header(pq_tw *w, int16_t id, int type)
{
	int16_t last = w->last[w->depth];
	int delta = id - last;
	if (delta > 0 && delta <= 15) {
		put_byte(w, (uint8_t)((delta << 4) | type));
	} else {
		put_byte(w, (uint8_t)type);
		put_varint(w, pq_zigzag64(id));
	}
	w->last[w->depth] = id;
}

static void push(pq_tw *w)
{
	if (w->error) return;
	if (w->depth >= PQ_TW_MAX_DEPTH) {
		w->error = dl_error_set(DL_EINVALID, "thrift structs nested deeper than %d", PQ_TW_MAX_DEPTH);
		return;
	}
	w->last[++w->depth] = 0;
}

int pq_tw_finish(pq_tw *w)
{
	if (!w->error && w->depth != 0)
		w->error = dl_error_set(DL_ERROR, "internal: %d thrift structs left open", w->depth);
	put_byte(w, 0);
	return w->error;
}

void pq_tw_struct_begin(pq_tw *w, int16_t id)
{
	field_header(w, id, PQ_TT_STRUCT);
	push(w);
}

void pq_tw_elem_struct_begin(pq_tw *w)
{
	push(w);
}

void pq_tw_end(pq_tw *w)
{
	if (w->error) return;
	put_byte(w, 0);
	if (w->depth > 0) w->depth--;
}

void pq_tw_bool(pq_tw *w, int16_t id, bool v)
{
	field_header(w, id, v ? PQ_TT_BOOL_TRUE : PQ_TT_BOOL_FALSE);
}

void pq_tw_i8(pq_tw *w, int16_t id, int8_t v)
{
	field_header(w, id, PQ_TT_BYTE);
	put_byte(w, (uint8_t)v);
}

void pq_tw_i16(pq_tw *w, int16_t id, int16_t v)
{
	field_header(w, id, PQ_TT_I16);
	put_varint(w, pq_zigzag64(v));
}

void pq_tw_i32(pq_tw *w, int16_t id, int32_t v)
{
	field_header(w, id, PQ_TT_I32);
	put_varint(w, pq_zigzag64(v));
}

void pq_tw_i64(pq_tw *w, int16_t id, int64_t v)
{
	field_header(w, id, PQ_TT_I64);
	put_varint(w, pq_zigzag64(v));
}

void pq_tw_binary(pq_tw *w, int16_t id, const void *p, size_t n)
{
	field_header(w, id, PQ_TT_BINARY);
	pq_tw_elem_binary(w, p, n);
}

void pq_tw_string(pq_tw *w, int16_t id, const char *s)
{
	pq_tw_binary(w, id, s, strlen(s));
}

void pq_tw_list_begin(pq_tw *w, int16_t id, int elem_type, size_t n)
{
	field_header(w, id, PQ_TT_LIST);
	if (n < 15) {
		put_byte(w, (uint8_t)((n << 4) | (size_t)elem_type));
	} else {
		put_byte(w, (uint8_t)(0xF0 | elem_type));
		put_varint(w, n);
	}
}

void pq_tw_elem_i32(pq_tw *w, int32_t v)
{
	put_varint(w, pq_zigzag64(v));
}

void pq_tw_elem_i64(pq_tw *w, int64_t v)
{
	put_varint(w, pq_zigzag64(v));
}

void pq_tw_elem_binary(pq_tw *w, const void *p, size_t n)
{
	put_varint(w, n);
	if (w->error || !n) return;
	w->error = dl_buf_append(w->out, p, n);
}
