/* Shared pieces of the conformance runner (tests/conformance). */
#ifndef DL_CONFORMANCE_H
#define DL_CONFORMANCE_H
#include <stdbool.h>
#include <stddef.h>
#include "columnar/array.h"

/* Canonical rows of a table or of expected files (rows.c). */
typedef struct rowset {
	char **cols; /* reference column names */
	int ncols;
	char **rows;
	size_t n, cap;
} rowset;

int rowset_set_columns(rowset *r, const dl_type *schema);
int rowset_add_batch(rowset *r, const dl_batch *b, const char *skip);
int rowset_read_parquet_dir(rowset *r, const char *dir, const char *skip);
void rowset_sort(rowset *r);
bool rowset_equal(const rowset *want, const rowset *got, char *why, size_t cap);
void rowset_free(rowset *r);

/* The outcome of one table's checks. */
typedef struct verdict {
	bool pass;
	char reason[768];
} verdict;

void fail(verdict *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Fails with the library's last error prefixed by what. */
void fail_error(verdict *v, const char *what);

/* Feature checks of kernel-data and golden tables without expected rows
 * (features.c). `features` is the inventory's feature column. */
void check_features(verdict *v, const char *name, const char *table_dir, const char *features);

#endif
