/* FlatBuffers builder (see flatbuf.h): the wire rules are those of the
 * FlatBuffers binary format - little-endian scalars aligned to their size,
 * uoffsets pointing forward from where they are stored, tables starting with
 * an soffset to their vtable (vtable = table - soffset), vtables of u16:
 * vtable size, table size, then one field offset per slot (0 = absent). */
#include "columnar/flatbuf.h"
#include <string.h>
#include "util/error.h"
#include "util/mem.h"

void dl_fb_init(dl_fb *b)
{
	memset(b, 0, sizeof(*b));
	b->minalign = 1;
}

void dl_fb_free(dl_fb *b)
{
	dl_free(b->buf);
	dl_fb_init(b);
}

void dl_fb_reset(dl_fb *b)
{
	b->size = 0;
	b->minalign = 1;
	b->err = 0;
	b->nslots = 0;
}

/* Room for n more bytes; the content moves to the end of the new buffer. */
static bool reserve(dl_fb *b, size_t n)
{
	if (b->err) return false;
	if (b->cap - b->size >= n) return true;
	size_t ncap = b->cap ? b->cap : 256;
	while (ncap - b->size < n) ncap *= 2;
	uint8_t *nb = dl_malloc(ncap);
	if (!nb) {
		b->err = DL_ENOMEM;
		return false;
	}
	if (b->size) memcpy(nb + ncap - b->size, b->buf + b->cap - b->size, b->size);
	dl_free(b->buf);
	b->buf = nb;
	b->cap = ncap;
	return true;
}

static void place(dl_fb *b, const void *p, size_t n)
{
	if (n == 0 || !reserve(b, n)) return;
	b->size += n;
	if (p) memcpy(b->buf + b->cap - b->size, p, n);
	else memset(b->buf + b->cap - b->size, 0, n);
}

/* Pads so that after `additional` more bytes the size is a multiple of align. */
static void prep(dl_fb *b, size_t align, size_t additional)
{
	if (align > b->minalign) b->minalign = align;
	size_t pad = (~(b->size + additional) + 1) & (align - 1);
	place(b, NULL, pad);
}

static void push(dl_fb *b, const void *p, size_t n)
{
	prep(b, n, 0);
	place(b, p, n);
}

static void push_ref(dl_fb *b, dl_fb_ref ref)
{
	prep(b, 4, 0);
	uint32_t v = (uint32_t)(b->size + 4 - ref);
	place(b, &v, 4);
}

dl_fb_ref dl_fb_string(dl_fb *b, const char *s, size_t n)
{
	prep(b, 4, n + 1);
	place(b, NULL, 1); /* NUL terminator, as FlatBuffers strings have */
	place(b, s, n);
	uint32_t len = (uint32_t)n;
	push(b, &len, 4);
	return (dl_fb_ref)b->size;
}

dl_fb_ref dl_fb_vector_refs(dl_fb *b, const dl_fb_ref *refs, size_t n)
{
	prep(b, 4, 4 * n);
	for (size_t i = n; i-- > 0;) push_ref(b, refs[i]);
	uint32_t len = (uint32_t)n;
	push(b, &len, 4);
	return (dl_fb_ref)b->size;
}

dl_fb_ref dl_fb_vector_structs(dl_fb *b, const void *data, size_t elem_size, size_t n, size_t align)
{
	prep(b, 4, elem_size * n);
	prep(b, align, elem_size * n);
	place(b, data, elem_size * n);
	uint32_t len = (uint32_t)n;
	push(b, &len, 4);
	return (dl_fb_ref)b->size;
}

void dl_fb_table_start(dl_fb *b)
{
	b->table_start = b->size;
	b->nslots = 0;
	memset(b->slot, 0, sizeof(b->slot));
}

static void field_at(dl_fb *b, int field)
{
	if (field < 0 || field >= DL_FB_MAX_FIELDS) {
		b->err = dl_error_set(DL_EINVALID, "flatbuffer field id %d out of range", field);
		return;
	}
	b->slot[field] = (uint32_t)b->size;
	if (field + 1 > b->nslots) b->nslots = field + 1;
}

void dl_fb_add_u8(dl_fb *b, int field, uint8_t v)
{
	push(b, &v, 1);
	field_at(b, field);
}

void dl_fb_add_i16(dl_fb *b, int field, int16_t v)
{
	push(b, &v, 2);
	field_at(b, field);
}

void dl_fb_add_i32(dl_fb *b, int field, int32_t v)
{
	push(b, &v, 4);
	field_at(b, field);
}

void dl_fb_add_i64(dl_fb *b, int field, int64_t v)
{
	push(b, &v, 8);
	field_at(b, field);
}

void dl_fb_add_ref(dl_fb *b, int field, dl_fb_ref ref)
{
	push_ref(b, ref);
	field_at(b, field);
}

dl_fb_ref dl_fb_table_end(dl_fb *b)
{
	int32_t placeholder = 0;
	push(b, &placeholder, 4);
	size_t table = b->size;
	/* The vtable, written last slot first since the buffer grows down. */
	for (int i = b->nslots; i-- > 0;) {
		uint16_t off = b->slot[i] ? (uint16_t)(table - b->slot[i]) : 0;
		push(b, &off, 2);
	}
	uint16_t tsize = (uint16_t)(table - b->table_start), vsize = (uint16_t)(4 + 2 * b->nslots);
	push(b, &tsize, 2);
	push(b, &vsize, 2);
	if (b->err) return 0;
	int32_t soff = (int32_t)(b->size - table);
	memcpy(b->buf + b->cap - table, &soff, 4);
	return (dl_fb_ref)table;
}

int dl_fb_finish(dl_fb *b, dl_fb_ref root, const uint8_t **data, size_t *len)
{
	prep(b, b->minalign > 8 ? b->minalign : 8, 4);
	push_ref(b, root);
	if (b->err) return b->err;
	*data = b->buf + b->cap - b->size;
	*len = b->size;
	return 0;
}

/* ---- reading ---- */

static bool in_range(const dl_fbr *r, size_t pos, size_t n)
{
	return pos <= r->len && n <= r->len - pos;
}

static uint32_t rd_u32(const dl_fbr *r, size_t pos)
{
	uint32_t v;
	memcpy(&v, r->buf + pos, 4);
	return v;
}

size_t dl_fbr_root(const dl_fbr *r)
{
	if (!in_range(r, 0, 4)) return 0;
	size_t pos = rd_u32(r, 0);
	return pos && in_range(r, pos, 4) ? pos : 0;
}

size_t dl_fbr_field(const dl_fbr *r, size_t table, int field, size_t size, bool *bad)
{
	if (!table || !in_range(r, table, 4)) {
		*bad = true;
		return 0;
	}
	int32_t soff;
	memcpy(&soff, r->buf + table, 4);
	int64_t vt = (int64_t)table - soff;
	uint16_t vsize, tsize, off;
	if (vt < 0 || !in_range(r, (size_t)vt, 4)) {
		*bad = true;
		return 0;
	}
	memcpy(&vsize, r->buf + vt, 2);
	memcpy(&tsize, r->buf + vt + 2, 2);
	if (vsize < 4 || !in_range(r, (size_t)vt, vsize) || !in_range(r, table, tsize)) {
		*bad = true;
		return 0;
	}
	if (4 + 2 * (size_t)field + 2 > vsize) return 0; /* field newer than the writer */
	memcpy(&off, r->buf + vt + 4 + 2 * field, 2);
	if (!off) return 0;
	if ((size_t)off + size > tsize) {
		*bad = true;
		return 0;
	}
	return table + off;
}

uint8_t dl_fbr_u8(const dl_fbr *r, size_t table, int field, uint8_t dflt, bool *bad)
{
	size_t p = dl_fbr_field(r, table, field, 1, bad);
	return p ? r->buf[p] : dflt;
}

int16_t dl_fbr_i16(const dl_fbr *r, size_t table, int field, int16_t dflt, bool *bad)
{
	size_t p = dl_fbr_field(r, table, field, 2, bad);
	int16_t v = dflt;
	if (p) memcpy(&v, r->buf + p, 2);
	return v;
}

int32_t dl_fbr_i32(const dl_fbr *r, size_t table, int field, int32_t dflt, bool *bad)
{
	size_t p = dl_fbr_field(r, table, field, 4, bad);
	int32_t v = dflt;
	if (p) memcpy(&v, r->buf + p, 4);
	return v;
}

int64_t dl_fbr_i64(const dl_fbr *r, size_t table, int field, int64_t dflt, bool *bad)
{
	size_t p = dl_fbr_field(r, table, field, 8, bad);
	int64_t v = dflt;
	if (p) memcpy(&v, r->buf + p, 8);
	return v;
}

/* Follows the uoffset stored at pos. */
static size_t follow(const dl_fbr *r, size_t pos, bool *bad)
{
	size_t target = pos + rd_u32(r, pos);
	if (target < pos || !in_range(r, target, 4)) {
		*bad = true;
		return 0;
	}
	return target;
}

size_t dl_fbr_ref(const dl_fbr *r, size_t table, int field, bool *bad)
{
	size_t p = dl_fbr_field(r, table, field, 4, bad);
	return p ? follow(r, p, bad) : 0;
}

size_t dl_fbr_vector_len(const dl_fbr *r, size_t pos, size_t elem_size, bool *bad)
{
	if (!pos) return 0;
	uint32_t n = rd_u32(r, pos); /* pos + 4 was checked by follow() */
	if (elem_size && n > (r->len - pos - 4) / elem_size) {
		*bad = true;
		return 0;
	}
	return n;
}

size_t dl_fbr_vector_ref(const dl_fbr *r, size_t vec, size_t i, bool *bad)
{
	return follow(r, vec + 4 + 4 * i, bad);
}

const char *dl_fbr_string(const dl_fbr *r, size_t table, int field, size_t *len, bool *bad)
{
	size_t p = dl_fbr_ref(r, table, field, bad);
	*len = 0;
	if (!p) return NULL;
	*len = dl_fbr_vector_len(r, p, 1, bad);
	return *bad ? NULL : (const char *)r->buf + p + 4;
}
