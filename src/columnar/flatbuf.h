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

#endif
