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
