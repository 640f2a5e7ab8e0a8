/* Thrift compact protocol encoder: the writer side of Parquet's metadata
 * (page headers and the footer's FileMetaData).
 *
 * The encoder appends to a dl_buf. Errors are sticky: calls after the first
 * failure do nothing and pq_tw_finish() reports it, so serializers can be a
 * straight list of field writes. Field ids must ascend within a struct only
 * for compactness (the delta encoding); any order is valid Thrift. */
#ifndef DL_PARQUET_THRIFT_WRITE_H
#define DL_PARQUET_THRIFT_WRITE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/buf.h"

/* Compact protocol element types (as they appear in field and list headers). */
enum {
	PQ_TT_BOOL_TRUE = 1, PQ_TT_BOOL_FALSE = 2, PQ_TT_BYTE = 3, PQ_TT_I16 = 4,
	PQ_TT_I32 = 5, PQ_TT_I64 = 6, PQ_TT_DOUBLE = 7, PQ_TT_BINARY = 8,
	PQ_TT_LIST = 9, PQ_TT_SET = 10, PQ_TT_MAP = 11, PQ_TT_STRUCT = 12,
};

#define PQ_TW_MAX_DEPTH 32

typedef struct pq_tw {
	dl_buf *out;
	int depth;                        /* open structs (0 = the message) */
	int16_t last[PQ_TW_MAX_DEPTH + 1]; /* last field id per open struct */
	int error;
} pq_tw;

/* Starts a message (the outermost struct) appended to out. */
void pq_tw_init(pq_tw *w, dl_buf *out);
/* Ends the message and returns 0 or the first error. */
int pq_tw_finish(pq_tw *w);

/* Struct-valued field `id`; close it with pq_tw_end. */
void pq_tw_struct_begin(pq_tw *w, int16_t id);
/* A struct element of a list (no field header); close with pq_tw_end. */
void pq_tw_elem_struct_begin(pq_tw *w);
/* Ends the innermost open struct (writes the stop byte). */
void pq_tw_end(pq_tw *w);

void pq_tw_bool(pq_tw *w, int16_t id, bool v);
void pq_tw_i8(pq_tw *w, int16_t id, int8_t v);
void pq_tw_i16(pq_tw *w, int16_t id, int16_t v);
void pq_tw_i32(pq_tw *w, int16_t id, int32_t v);
void pq_tw_i64(pq_tw *w, int16_t id, int64_t v);
void pq_tw_binary(pq_tw *w, int16_t id, const void *p, size_t n);
void pq_tw_string(pq_tw *w, int16_t id, const char *s);

/* List-valued field `id` of n elements of compact type elem_type; then write
 * the n elements with the pq_tw_elem_* calls (or elem_struct_begin/end). */
void pq_tw_list_begin(pq_tw *w, int16_t id, int elem_type, size_t n);
void pq_tw_elem_i32(pq_tw *w, int32_t v);
void pq_tw_elem_i64(pq_tw *w, int64_t v);
void pq_tw_elem_binary(pq_tw *w, const void *p, size_t n);

/* Primitive encoders, also used by the Parquet encoders. */
int pq_put_uvarint(dl_buf *b, uint64_t v);
static inline uint64_t pq_zigzag64(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

#endif
