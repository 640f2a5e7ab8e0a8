/* Conforming data to a wider type of the same column (see conform.c). */
#ifndef DL_REWRITE_CONFORM_H
#define DL_REWRITE_CONFORM_H
#include <stdbool.h>
#include "columnar/array.h"

/* Whether `from` data can be written as `to` without loss (same type, or a
 * widening Delta allows: byte < short < int < long, float < double,
 * integers to double/decimal wide enough, date to timestamp_ntz,
 * decimal to a decimal with enough integer and fraction digits). */
bool dl_type_widens_to(const dl_type *from, const dl_type *to);
/* 1..4 for byte, short, int, long; 0 for other types. */
int dl_type_integral_rank(dl_type_id id);

/* `a` converted to type `to` (a type dl_schema_merge accepted for it):
 * relabelled, struct fields matched by name with missing ones null,
 * values widened. New array. */
int dl_array_conform(dl_array **out, const dl_array *a, dl_type *to);

#endif
