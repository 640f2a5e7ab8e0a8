/* Shredded variants (VariantShredding.md of apache/parquet-format): a
 * variant column's Parquet group may hold, beside `metadata` and `value`, a
 * `typed_value` field with parts of the value as ordinary Parquet columns
 * (a primitive, a LIST of {value, typed_value} elements, or a group of
 * object fields, each a {value, typed_value} group, recursively). Readers
 * must rebuild the unshredded value; the rest of the library then sees an
 * ordinary variant (value, metadata).
 *
 * The plan side (pq_variant_plan) checks the typed_value shape and keeps
 * the file's plan of the whole group; the assembly side
 * (pq_variant_unshred) turns the assembled group into the variant array. */
#ifndef DL_PARQUET_VARIANT_SHRED_H
#define DL_PARQUET_VARIANT_SHRED_H
#include <stdbool.h>
#include "columnar/array.h"
#include "parquet/column_read.h"
#include "parquet/schema_read.h"

/* When `file` (a STRUCT plan node read as the variant `req`) has a
 * typed_value field, builds a PQ_OUT_VARIANT node in *out with children
 * (value, metadata, typed_value) and sets *handled; otherwise leaves *out
 * untouched and *handled false. A typed_value that is not a shredded type,
 * or a shredded group without `metadata`, is DL_ECORRUPT naming the file
 * (`what`) and the column. */
int pq_variant_plan(pq_out *out, const pq_out *file, const dl_type *req, const char *what,
                    const char *column, bool *handled);

/* Marks in raw[] the leaves under the typed_value of every PQ_OUT_VARIANT
 * node of plan `p` (call with under false): their TIMESTAMP(NANOS) values
 * are read in nanoseconds, so the rebuilt timestamp_nanos loses nothing. */
void pq_variant_typed_leaves(const pq_out *p, bool *raw, bool under);

/* `a` is the assembled group of PQ_OUT_VARIANT node `o` (children value,
 * metadata, typed_value): replaces its children by the rebuilt value and
 * the metadata, so it is a variant array. Conflicting value and
 * typed_value are DL_ECORRUPT naming `file` and the column. */
int pq_variant_unshred(dl_array *a, const pq_out *o, const pq_leaf_reader *readers, const char *file);

#endif
