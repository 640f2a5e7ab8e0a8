/* Append-oriented builders: fill a dl_array of any type, nested arbitrarily,
 * one value (or one run of values) at a time. Buffers grow geometrically, so
 * appending n values costs O(n) amortized with no per-value allocation.
 *
 * A builder is a tree mirroring its type:
 *   STRUCT / VARIANT  child(i) = field i; a row is begin_struct, one value
 *                     appended to every child, end_struct.
 *   ARRAY             child(0) = elements; a row is begin_list, any number of
 *                     elements appended to child(0), end_list.
 *   MAP               child(0) = keys, child(1) = values; a row is begin_list,
 *                     pairs appended to both children, end_list.
 * append_null on a struct appends a null to each child (so lengths stay in
 * step); on an array or map it appends an empty null list.
 *
 * Finish hands the buffers over to a new dl_array and resets the builder
 * (same type) for the next batch. */
#ifndef DL_COLUMNAR_BUILDER_H
#define DL_COLUMNAR_BUILDER_H
#include "columnar/array.h"

typedef struct dl_builder dl_builder;

/* A builder for `type` (a reference is taken). */
int dl_builder_new(dl_builder **out, dl_type *type);
void dl_builder_free(dl_builder *b);
const dl_type *dl_builder_type(const dl_builder *b);
int64_t dl_builder_length(const dl_builder *b);
/* The builder of a child (see above); NULL if out of range. Borrowed. */
dl_builder *dl_builder_child(dl_builder *b, int i);
/* Makes room for n more rows (and `data_bytes` more string bytes). */
int dl_builder_reserve(dl_builder *b, int64_t n, int64_t data_bytes);

int dl_builder_append_null(dl_builder *b);
int dl_builder_append_nulls(dl_builder *b, int64_t n);
int dl_builder_append_bool(dl_builder *b, bool v);
/* BYTE, SHORT, INTEGER, LONG, DATE, TIMESTAMP(_NTZ): DL_EINVALID when v does
 * not fit the type. */
int dl_builder_append_int(dl_builder *b, int64_t v);
/* FLOAT or DOUBLE. */
int dl_builder_append_double(dl_builder *b, double v);
/* DECIMAL: the unscaled value; DL_EINVALID if it exceeds the precision. */
int dl_builder_append_decimal(dl_builder *b, dl_i128 unscaled);
/* STRING or BINARY (the caller guarantees UTF-8 for strings). */
int dl_builder_append_bytes(dl_builder *b, const void *p, size_t n);
static inline int dl_builder_append_str(dl_builder *b, const char *s);

/* Fast path for fixed-width types (and BOOLEAN, given as one byte per value):
 * n values laid out as the type's Arrow width. `validity` (bit-packed,
 * starting at bit `validity_offset`) may be NULL for all valid. */
int dl_builder_append_fixed(dl_builder *b, const void *values, int64_t n, const uint8_t *validity,
                            int64_t validity_offset);

int dl_builder_begin_list(dl_builder *b);
int dl_builder_end_list(dl_builder *b);
int dl_builder_begin_struct(dl_builder *b);
int dl_builder_end_struct(dl_builder *b);

/* Appends rows [start, start+n) of `src` (same type), deep, with bulk copies:
 * the basis of slice, take and concat. */
int dl_builder_append_range(dl_builder *b, const dl_array *src, int64_t start, int64_t n);

/* The built array through *out (owned by the caller); the builder is reset. */
int dl_builder_finish(dl_array **out, dl_builder *b);

#include <string.h>
static inline int dl_builder_append_str(dl_builder *b, const char *s)
{
	return dl_builder_append_bytes(b, s, strlen(s));
}

#endif
