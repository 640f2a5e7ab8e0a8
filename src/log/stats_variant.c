/* Statistics of paths inside variant columns (see stats.h). Delta writes
 * them for shredded fields (VariantStats.scala: from the Parquet footer's
 * typed_value statistics, only where no row fell back to `value`), JSON
 * text as z85 of metadata || value (DeltaStatsJsonUtils), the z85 input
 * padded with zeros to a multiple of 4 bytes, so the value is found by its
 * own sizes. Anything unexpected leaves the path without bounds: unknown
 * is always safe for skipping. */
#include <string.h>
#include "columnar/variant_access.h"
#include "log/stats.h"
#include "util/z85.h"

static const dl_json *walk(const dl_json *v, const char *const *path, int depth)
{
	for (int i = 0; v && i < depth; i++) {
		if (v->kind != DL_JSON_OBJECT) return NULL;
		v = dl_json_get(v, path[i]);
	}
	return v;
}

static size_t utf8_chars(const uint8_t *s, size_t n)
{
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		if ((s[i] & 0xC0) != 0x80) c++;
	return c;
}

/* The bound at jpath of one side; false when there is none usable. */
static bool bound(const dl_json *side, dl_arena *arena, const char *const *path, int depth, const char *jpath,
                  bool is_max, dl_scalar *sc, bool *prefix)
{
	memset(sc, 0, sizeof *sc);
	*prefix = false;
	const dl_json *j = walk(side, path, depth);
	if (!j || j->kind != DL_JSON_STRING || j->u.str.len == 0 || j->u.str.len % 5) return false;
	size_t n = j->u.str.len / 5 * 4;
	uint8_t *b = dl_arena_alloc(arena, n);
	if (!b || dl_z85_decode(b, n, j->u.str.ptr, j->u.str.len) < 0) return false;
	dl_vmeta m;
	if (dl_vmeta_parse(&m, b, n) < 0) return false;
	const uint8_t *v = b + m.size, *fv;
	size_t vn = n - m.size, fn;
	if (dl_variant_field(&m, v, vn, jpath, strlen(jpath), &fv, &fn) != 1) return false;
	dl_vprim p;
	if (dl_variant_decode(&p, fv, fn) < 0) return false;
	switch (p.kind) {
	case DL_V_INT: sc->type = DL_TYPE_LONG, sc->v.i64 = p.i; return true;
	case DL_V_DOUBLE: sc->type = DL_TYPE_DOUBLE, sc->v.f64 = p.d; return p.d == p.d;
	case DL_V_FLOAT: sc->type = DL_TYPE_FLOAT, sc->v.f64 = p.d; return p.d == p.d;
	case DL_V_DECIMAL:
		sc->type = DL_TYPE_DECIMAL, sc->precision = 38, sc->scale = p.scale, sc->v.dec = p.dec;
		return true;
	case DL_V_DATE: sc->type = DL_TYPE_DATE, sc->v.i64 = p.i; return true;
	case DL_V_TIMESTAMP:
	case DL_V_TIMESTAMP_NTZ:
		sc->type = p.kind == DL_V_TIMESTAMP ? DL_TYPE_TIMESTAMP : DL_TYPE_TIMESTAMP_NTZ;
		sc->v.i64 = p.i;
		/* as for top-level columns: a writer may have cut to milliseconds */
		if (is_max && sc->v.i64 <= INT64_MAX - 999) sc->v.i64 += 999;
		return true;
	case DL_V_STRING:
		sc->type = DL_TYPE_STRING, sc->v.str.ptr = (const char *)p.s, sc->v.str.len = p.slen;
		/* Delta cuts bounds to 32 characters (the max then ends in U+10FFFF) */
		*prefix = is_max && utf8_chars(p.s, p.slen) >= DL_STATS_STRING_PREFIX;
		return true;
	default: return false; /* booleans, binary, nested, nanoseconds: no bounds */
	}
}

int dl_file_stats_variant_path(const dl_file_stats *s, dl_arena *arena, const char *const *path, int depth,
                               const char *jpath, dl_col_stats *out)
{
	memset(out, 0, sizeof *out);
	bool prefix;
	out->has_min = bound(s->min_values, arena, path, depth, jpath, false, &out->min, &prefix);
	out->has_max = bound(s->max_values, arena, path, depth, jpath, true, &out->max, &prefix);
	out->max_is_prefix = out->has_max && prefix;
	/* the protocol makes both sides one type; distrust a file that breaks it */
	if (out->has_min && out->has_max &&
	    (out->min.type != out->max.type ||
	     (out->min.type == DL_TYPE_DECIMAL && out->min.scale != out->max.scale))) {
		out->has_min = out->has_max = false;
		out->max_is_prefix = false;
	}
	dl_error_clear();
	return 0;
}
