/* Variant paths shared by fn_variant.c and the pruner (prune_variant.c). */
#ifndef DL_EXPR_FN_VARIANT_H
#define DL_EXPR_FN_VARIANT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ex_vseg {
	bool is_index;
	uint64_t index;
	const char *key; /* into the path text */
	size_t klen;
} ex_vseg;

typedef struct ex_vpath {
	const char *text;
	ex_vseg *seg;
	size_t nseg;
} ex_vpath;

/* Parses a variant_get path (Spark's VariantPathParser); s must outlive
 * the result. INVALID_VARIANT_GET_PATH naming `fn` when malformed. */
int ex_vpath_parse(ex_vpath **out, const char *s, size_t n, const char *fn);
void ex_vpath_free(void *p);

#endif
