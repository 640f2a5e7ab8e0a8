/* Schema enforcement and evolution of writes (the seeds' "Schema
 * validation", "Update table schema", "NullType columns"): the data's
 * schema is checked against the table's, merged into it when mergeSchema
 * allows, and each batch is then conformed to the table schema.
 *
 * Rules: columns match by name case-insensitively; the data may lack
 * table columns; a data column unknown to the table, at any nesting
 * level, is an error unless merging (then appended to its struct, keeping
 * the data's spelling); names differing only by case within the data are
 * an error; types must be equal, except that NullType data columns fit any
 * type (and are written as nulls), a NullType table column takes the data's
 * type when merging, narrower integral / float data fits a wider table
 * type when merging, and the table type is widened to the data's when
 * merging a table with delta.enableTypeWidening, as `widen` allows
 * (UniForm, allowAutomaticWidening: type_change_meta.h). */
#ifndef DL_OPS_SCHEMA_ALIGN_H
#define DL_OPS_SCHEMA_ALIGN_H
#include <stdbool.h>
#include "columnar/array.h"
#include "ops/type_change_meta.h" /* dl_widening */
#include "rewrite/conform.h" /* dl_type_widens_to, dl_array_conform */

/* The table schema after writing data of schema `data` (new reference;
 * *changed when it differs from `table`). DL_ESCHEMA says what mismatched
 * and how to allow it. */
int dl_schema_merge(dl_type **out, bool *changed, const dl_type *table, const dl_type *data,
                    bool merge_schema, const dl_widening *widen);

/* The type a value of type `from` is stored as in a column of type `to`
 * when INSERT evolves the schema of a table with type widening `w`: the
 * same walk as dl_schema_merge (arrays, maps, structs; Spark's
 * TypeWideningMode in DeltaAnalysis.addCastToColumn) with `from` kept
 * where `w` widens `to` to it and `to` elsewhere (the store-assignment
 * cast converts those), structs paired by position when their field
 * names agree in order (else `to`). The write then widens the table's
 * column and records its delta.typeChanges. *out is a new reference. */
int dl_type_store_widened(dl_type **out, const dl_type *to, const dl_type *from, const dl_widening *w);


/* Column `i` of the table schema in a data batch: the index of the data
 * column of the same name (case-insensitive), or -1. */
int dl_data_column(const dl_type *data, const char *name);


#endif
