/* File skipping on variant paths: variant_get(v, '$.a', 'int') (or
 * try_variant_get) compared with a constant uses the bounds Delta records
 * for shredded paths (PROTOCOL.md "Statistics for Variant Columns").
 *
 * Soundness: every row's value at the path has the recorded type S and lies
 * between the bounds, or the path is missing (NULL, never TRUE). The
 * bounds are converted to the requested type T only when S -> T is exact
 * and order-preserving wherever it succeeds (a value that does not convert
 * is an error or NULL, never TRUE): integers to integers or decimals,
 * decimals to decimals of no smaller scale, integers to DOUBLE / FLOAT only
 * when both bounds are within 2^53 / 2^24 (every value between them is
 * then exact), FLOAT to DOUBLE, DATE to the timestamps, and each type to
 * itself. Anything else (strings to numbers, doubles to integers...) is
 * not pruned. Paths with an array index have no statistics. */
#include "expr/prune_variant.h"
#include <stdio.h>
#include <string.h>
#include "expr/fn_variant.h"

bool ex_prune_is_variant_get(const ex_node *n)
{
	return n->kind == EX_CALL && n->fn &&
	       (strcmp(n->fn->name, "variant_get") == 0 || strcmp(n->fn->name, "try_variant_get") == 0) && n->aux &&
	       n->args[0]->kind == EX_COL && n->args[0]->type->id == DL_TYPE_VARIANT;
}

/* Spark's VariantStatsUtils.escapeJsonField. */
static int put_key(dl_buf *b, const char *k, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)k[i];
		switch (c) {
		case '\\': DL_TRY(dl_buf_puts(b, "\\\\")); break;
		case '\'': DL_TRY(dl_buf_puts(b, "\\'")); break;
		case '\b': DL_TRY(dl_buf_puts(b, "\\b")); break;
		case '\f': DL_TRY(dl_buf_puts(b, "\\f")); break;
		case '\n': DL_TRY(dl_buf_puts(b, "\\n")); break;
		case '\r': DL_TRY(dl_buf_puts(b, "\\r")); break;
		case '\t': DL_TRY(dl_buf_puts(b, "\\t")); break;
		default:
			if (c < 0x20) DL_TRY(dl_buf_printf(b, "\\u%04x", c));
			else DL_TRY(dl_buf_putc(b, (char)c));
		}
	}
	return 0;
}

int ex_prune_variant_jpath(const ex_node *n, dl_buf *out)
{
	const ex_vpath *vp = n->aux;
	DL_TRY(dl_buf_putc(out, '$'));
	for (size_t i = 0; i < vp->nseg; i++) {
		if (vp->seg[i].is_index) return 0;
		DL_TRY(dl_buf_puts(out, "['"));
		DL_TRY(put_key(out, vp->seg[i].key, vp->seg[i].klen));
		DL_TRY(dl_buf_puts(out, "']"));
	}
	return 1;
}

static bool within(const dl_scalar *s, int64_t lim)
{
	return s && s->v.i64 >= -lim && s->v.i64 <= lim;
}

bool ex_prune_variant_cast_ok(const dl_scalar *min, const dl_scalar *max, const dl_type *to)
{
	const dl_scalar *s = min ? min : max;
	if (!s) return false;
	dl_type_id t = to->id;
	switch (s->type) {
	case DL_TYPE_LONG:
		if (t == DL_TYPE_BYTE || t == DL_TYPE_SHORT || t == DL_TYPE_INTEGER || t == DL_TYPE_LONG || t == DL_TYPE_DECIMAL)
			return true;
		if (t == DL_TYPE_DOUBLE) return within(min, 1LL << 53) && within(max, 1LL << 53);
		if (t == DL_TYPE_FLOAT) return within(min, 1LL << 24) && within(max, 1LL << 24);
		return false;
	case DL_TYPE_DECIMAL:
		if (t == DL_TYPE_DECIMAL) return to->scale >= s->scale;
		return s->scale == 0 && (t == DL_TYPE_BYTE || t == DL_TYPE_SHORT || t == DL_TYPE_INTEGER || t == DL_TYPE_LONG);
	case DL_TYPE_FLOAT: return t == DL_TYPE_FLOAT || t == DL_TYPE_DOUBLE;
	case DL_TYPE_DATE: return t == DL_TYPE_DATE || t == DL_TYPE_TIMESTAMP || t == DL_TYPE_TIMESTAMP_NTZ;
	case DL_TYPE_DOUBLE:
	case DL_TYPE_TIMESTAMP:
	case DL_TYPE_TIMESTAMP_NTZ:
	case DL_TYPE_STRING: return t == s->type;
	default: return false;
	}
}
