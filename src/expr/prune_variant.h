/* Variant path leaves of the file pruner (prune_variant.c). */
#ifndef DL_EXPR_PRUNE_VARIANT_H
#define DL_EXPR_PRUNE_VARIANT_H
#include "expr/eval.h"

/* n is variant_get / try_variant_get of a variant column with a constant path. */
bool ex_prune_is_variant_get(const ex_node *n);
/* The statistics key of n's path ($['a']['b']) into out: 1, or 0 when the
 * path has an array index (no statistics exist for it). */
int ex_prune_variant_jpath(const ex_node *n, dl_buf *out);
/* Whether bounds of the recorded type (min and/or max, either may be
 * NULL) may be converted to `to` for skipping. */
bool ex_prune_variant_cast_ok(const dl_scalar *min, const dl_scalar *max, const dl_type *to);

#endif
