/* A minimal FlatBuffers builder, enough to write Arrow IPC metadata
 * (Schema.fbs, Message.fbs): tables of scalars and offsets, strings, vectors
 * of offsets and of structs.
 *
 * Like the reference builder it fills the buffer back to front, so every
 * object is complete before anything referring to it is written; offsets
 * (dl_fb_ref) count bytes from the end of the buffer. Tables cannot nest:
 * build children first, then start the parent. Errors (out of memory) are
 * sticky and reported by dl_fb_finish. */
#ifndef DL_COLUMNAR_FLATBUF_H
#define DL_COLUMNAR_FLATBUF_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DL_FB_MAX_FIELDS 16

typedef uint32_t dl_fb_ref;

typedef struct dl_fb {
	uint8_t *buf;
	size_t cap;
	size_t size; /* bytes used, at buf + cap - size */
	size_t minalign;
	int err;
	/* the open table */
	size_t table_start;
	int nslots;
	uint32_t slot[DL_FB_MAX_FIELDS]; /* field position (from the end) or 0 */
} dl_fb;

void dl_fb_init(dl_fb *b);
void dl_fb_free(dl_fb *b);
/* Empties the builder for the next message, keeping its memory. */
void dl_fb_reset(dl_fb *b);

dl_fb_ref dl_fb_string(dl_fb *b, const char *s, size_t n);
dl_fb_ref dl_fb_vector_refs(dl_fb *b, const dl_fb_ref *refs, size_t n);
/* n structs of elem_size bytes each (already little-endian), aligned to align. */
dl_fb_ref dl_fb_vector_structs(dl_fb *b, const void *data, size_t elem_size, size_t n, size_t align);

void dl_fb_table_start(dl_fb *b);
void dl_fb_add_u8(dl_fb *b, int field, uint8_t v);
void dl_fb_add_i16(dl_fb *b, int field, int16_t v);
void dl_fb_add_i32(dl_fb *b, int field, int32_t v);
void dl_fb_add_i64(dl_fb *b, int field, int64_t v);
void dl_fb_add_ref(dl_fb *b, int field, dl_fb_ref ref);
dl_fb_ref dl_fb_table_end(dl_fb *b);

/* Writes the root offset; *data and *len then hold the finished buffer (owned by
 * the builder). 0 or the first error. */
int dl_fb_finish(dl_fb *b, dl_fb_ref root, const uint8_t **data, size_t *len);

/* ---- reading ----
 * A bounds-checked view of a finished buffer from outside (an IPC message):
 * every offset is checked before it is followed. Positions are byte offsets
 * from the start of the buffer; 0 means "absent". */
typedef struct dl_fbr {
	const uint8_t *buf;
	size_t len;
} dl_fbr;

/* The root table's position, or 0 when the buffer is malformed. */
size_t dl_fbr_root(const dl_fbr *r);
/* Position of a table field's inline data (`size` bytes checked), 0 if the
 * field is absent or the table malformed (*bad set in that case). */
size_t dl_fbr_field(const dl_fbr *r, size_t table, int field, size_t size, bool *bad);
uint8_t dl_fbr_u8(const dl_fbr *r, size_t table, int field, uint8_t dflt, bool *bad);
int16_t dl_fbr_i16(const dl_fbr *r, size_t table, int field, int16_t dflt, bool *bad);
int32_t dl_fbr_i32(const dl_fbr *r, size_t table, int field, int32_t dflt, bool *bad);
int64_t dl_fbr_i64(const dl_fbr *r, size_t table, int field, int64_t dflt, bool *bad);
/* The object (table, vector or string) a reference field points to, 0 if
 * absent. */
size_t dl_fbr_ref(const dl_fbr *r, size_t table, int field, bool *bad);
/* Vector at pos: element count, with count*elem_size bytes checked;
 * elements start at pos + 4. */
size_t dl_fbr_vector_len(const dl_fbr *r, size_t pos, size_t elem_size, bool *bad);
/* Element i of a vector of references: the referenced object. */
size_t dl_fbr_vector_ref(const dl_fbr *r, size_t vec, size_t i, bool *bad);
/* A string field: pointer and length (NULL when absent). */
const char *dl_fbr_string(const dl_fbr *r, size_t table, int field, size_t *len, bool *bad);

#endif
