/* The pieces of CONVERT TO DELTA (convert.c drives them): the footer of
 * one Parquet file turned into its schema and its add action's stats JSON
 * (convert_footer.c), and Spark's schema merge of the files' schemas
 * (convert_schema.c). */
#ifndef DL_MAINT_CONVERT_INTERNAL_H
#define DL_MAINT_CONVERT_INTERNAL_H
#include <stdbool.h>
#include "columnar/types.h"
#include "deltalake/store.h"
#include "util/buf.h"
#include "util/pool.h"

/* What one file's footer says. */
typedef struct dl_convert_footer {
	dl_type *schema;   /* the file's schema (a struct, own reference) */
	int64_t num_rows;
	char *stats;       /* the stats JSON (malloc'd) or NULL without statistics */
} dl_convert_footer;

/* Reads the footer of `path` (size from the listing) and, when `stats`,
 * the stats JSON as our writer writes it (numRecords; minValues,
 * maxValues, nullCount of the first `indexed_cols` leaves, -1: all, from
 * the row groups' column statistics; a column some row group has no
 * min/max for gets none). Errors name the file. */
int dl_convert_read_footer(dl_convert_footer *out, dl_store *store, const char *path, int64_t size,
                           bool stats, int indexed_cols);
void dl_convert_footer_free(dl_convert_footer *f);

/* Spark's StructType.merge of *acc and `next` (new fields appended, nested
 * structs merged, arrays/maps merged element-wise, other types must be
 * equal: CANNOT_MERGE_INCOMPATIBLE_DATA_TYPE naming the column and the
 * files). *acc NULL takes next. Every field of the result is nullable, as
 * Spark's file-source schemas are. */
int dl_convert_merge_schema(dl_type **acc, const dl_type *next, const char *acc_file, const char *next_file);

/* Every object under the store's root, sorted by path, listed in parallel
 * on `pool` (NULL: the shared pool) directory by directory where the root
 * is local, never entering a directory `skip` refuses (its path relative
 * to the root); one recursive store listing elsewhere (convert_list.c).
 * DL_ENOTFOUND (no message) when a local root does not exist. */
int dl_convert_list(dl_object_list *out, dl_store *store, dl_pool *pool, bool (*skip)(const char *rel_dir));

/* The same type with every field nullable (a new reference). */
dl_type *dl_convert_as_nullable(const dl_type *t);

#endif
