/* Arrays and batches in the Arrow memory layout.
 *
 * Layout per type (exactly the Arrow C Data Interface's, so export is a
 * pointer hand-over):
 *   validity   bit i set = row i valid (LSB first); NULL means all valid
 *   BOOLEAN    values: bit-packed
 *   BYTE..LONG, FLOAT, DOUBLE, DATE, TIMESTAMP(_NTZ): values, fixed width
 *   DECIMAL    values: 16 bytes per row, little-endian two's complement
 *   STRING, BINARY  offsets: int32[length+1], data: bytes
 *   STRUCT     children[i] per field, each of the same length
 *   ARRAY      offsets: int32[length+1], children[0] = elements
 *   MAP        offsets: int32[length+1], children[0] = struct<key, value>
 *              (Arrow's "entries")
 *   VARIANT    like STRUCT: children[0] = value, children[1] = metadata
 *   NULL       no buffers; every row is null
 * Arrays have no offset: row 0 is the first row of every buffer.
 *
 * Ownership: an array owns its buffers and children and frees them in
 * dl_array_free, unless `owner_release` is set, in which case the buffers
 * belong to someone else (an imported ArrowArray, a memory-mapped page...)
 * and owner_release(owner) is called instead of freeing them. Children are
 * always freed with dl_array_free. */
#ifndef DL_COLUMNAR_ARRAY_H
#define DL_COLUMNAR_ARRAY_H
#include "columnar/types.h"

typedef struct dl_array dl_array;
struct dl_array {
	dl_type *type;      /* a reference held by the array */
	int64_t length;
	int64_t null_count; /* -1 when not yet counted */
	uint8_t *validity;
	void *values;       /* fixed-width values or bit-packed booleans */
	int32_t *offsets;   /* string, binary, array, map */
	uint8_t *data;      /* string and binary bytes */
	int64_t data_len;
	int nchildren;
	dl_array **children;
	void (*owner_release)(void *owner);
	void *owner;
};

/* A batch of rows: one array per column of a struct schema. */
typedef struct dl_batch {
	dl_type *schema; /* DL_TYPE_STRUCT; a reference held by the batch */
	int64_t num_rows;
	int ncols;
	dl_array **cols;
} dl_batch;

/* A selection vector: the indexes of the selected rows, ascending. */
typedef struct dl_selection {
	uint32_t *idx;
	int64_t count;
	int64_t cap;
} dl_selection;

static inline bool dl_bit_get(const uint8_t *bits, int64_t i)
{
	return (bits[i >> 3] >> (i & 7)) & 1;
}
static inline void dl_bit_set(uint8_t *bits, int64_t i)
{
	bits[i >> 3] |= (uint8_t)(1u << (i & 7));
}
static inline void dl_bit_clear(uint8_t *bits, int64_t i)
{
	bits[i >> 3] &= (uint8_t)~(1u << (i & 7));
}
static inline bool dl_array_is_valid(const dl_array *a, int64_t i)
{
	if (a->type->id == DL_TYPE_NULL) return false;
	return !a->validity || dl_bit_get(a->validity, i);
}

/* Functions returning an array or batch return NULL on failure, with the
 * error set (dl_error_last(): DL_ENOMEM, DL_EINVALID for bad rows or
 * types...). */

/* An array of `type` with zeroed buffers sized for `length` rows and no
 * validity bitmap (all valid; the caller allocates one to add nulls). Struct
 * and variant children have `length` rows too; array and map children have
 * 0 rows (all offsets 0). The caller fills it. */
dl_array *dl_array_new(dl_type *type, int64_t length);
/* An all-null array of the given type and length. */
dl_array *dl_array_new_null(dl_type *type, int64_t length);
void dl_array_free(dl_array *a);
/* Counts (and caches) the nulls. */
int64_t dl_array_null_count(dl_array *a);
/* A new array holding rows sel[0..n) of a (deep copy). */
dl_array *dl_array_take(const dl_array *a, const uint32_t *sel, int64_t n);
/* A new array holding rows [start, start+n) of a (deep copy). */
dl_array *dl_array_slice(const dl_array *a, int64_t start, int64_t n);
/* Concatenation of arrays of the same type. */
dl_array *dl_array_concat(dl_array *const *arrays, int n);
/* A new array of n copies of row `row` of a (e.g. a partition value as a
 * column); all-null when that row is null. */
dl_array *dl_array_repeat(const dl_array *a, int64_t row, int64_t n);
/* The bytes the values of a (children included) take, as a memory
 * estimate: validity bits, fixed-width values, offsets, data, the struct
 * itself; not the allocator's slack nor buffers shared with a parent. */
int64_t dl_array_bytes(const dl_array *a);
/* The same for the columns of a batch (0 for NULL). */
int64_t dl_batch_bytes(const dl_batch *b);

/* Deep value equality of row i of a and row j of b (null equals null, NaN
 * equals NaN; map entries compared in order). */
bool dl_array_row_equals(const dl_array *a, int64_t i, const dl_array *b, int64_t j);

/* A batch whose columns are all NULL: the caller stores one array per field
 * in cols[i], and the batch owns them from then on (dl_batch_free frees the
 * non-NULL ones). */
dl_batch *dl_batch_new(dl_type *schema, int64_t num_rows);
/* Checks that every column is set, has num_rows rows and the field's type. */
int dl_batch_validate(const dl_batch *b);
void dl_batch_free(dl_batch *b);
dl_batch *dl_batch_take(const dl_batch *b, const uint32_t *sel, int64_t n);
/* Relabel an array (or a batch) with a type of the same physical layout -
 * same ids, decimal parameters and child counts at every level - but other
 * field names, nullability or metadata (column mapping: physical to logical
 * names). No data is copied. DL_ESCHEMA when the layouts differ (nothing is
 * changed then). */
int dl_array_set_type(dl_array *a, dl_type *type);
int dl_batch_set_schema(dl_batch *b, dl_type *schema);
/* Rows [start, start+n) of b (deep copy). */
dl_batch *dl_batch_slice(const dl_batch *b, int64_t start, int64_t n);
/* The rows of n batches of one schema, in order (deep copy). */
dl_batch *dl_batch_concat(dl_batch *const *batches, int n);

int dl_selection_reserve(dl_selection *s, int64_t n);
void dl_selection_free(dl_selection *s);

#endif
