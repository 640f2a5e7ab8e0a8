/* Finding a struct's fields by name in constant time.
 *
 * Delta column names are case-insensitive, so every matching of one schema
 * against another (data against table, CSV header against table columns,
 * duplicate checks) looks names up case-insensitively. A scan per name is
 * quadratic: a 100k-column header took 50 s. An index built once per
 * matching makes it linear. Case folding is ASCII (strcasecmp's, in the C
 * locale), so the answers are those of the loops it replaces.
 *
 * The index borrows the type: the type must outlive it and its field names
 * must not change meanwhile. */
#ifndef DL_COLUMNAR_NAME_INDEX_H
#define DL_COLUMNAR_NAME_INDEX_H
#include <stdbool.h>
#include <stdint.h>
#include "columnar/types.h"

typedef struct dl_name_index {
	const dl_type *t;
	int32_t *slots;   /* field index + 1 per slot, 0 empty; NULL: few fields, scanned */
	uint32_t mask;
	int dup_first, dup_second; /* the first case-insensitive duplicate pair, -1: none */
} dl_name_index;

/* Builds the index of struct t's fields. DL_ENOMEM. */
int dl_name_index_init(dl_name_index *ix, const dl_type *t);
void dl_name_index_free(dl_name_index *ix);

/* The first field whose name equals `name` case-insensitively, or -1. */
int dl_name_index_find_ci(const dl_name_index *ix, const char *name);
/* An exact match first, else the first case-insensitive one (as
 * dl_schema_find), or -1. */
int dl_name_index_find(const dl_name_index *ix, const char *name);

/* Whether two fields' names differ only by case: the pair (first <
 * second) with the smallest `second`, as a loop over i of j < i finds it. */
bool dl_name_index_duplicate(const dl_name_index *ix, int *first, int *second);

#endif
