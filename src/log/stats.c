/* Lazily parsed per-file statistics and the file-skipping adapter. */
#include "log/stats.h"
#include <string.h>
#include <strings.h>
#include "log/partition_values.h"
#include "log/schema.h"
#include "util/error.h"
#include "util/time.h"

int dl_file_stats_parse(dl_file_stats *out, dl_arena *arena, const char *json, size_t len)
{
	memset(out, 0, sizeof *out);
	out->num_records = -1;
	out->tight_bounds = true;
	if (!json || len == 0) return 0;
	dl_json *root;
	DL_TRY(dl_json_parse(arena, json, len, "file statistics", &root));
	if (root->kind != DL_JSON_OBJECT)
		return dl_error_set(DL_ECORRUPT, "file statistics must be a JSON object");
	const dl_json *v = dl_json_get(root, "numRecords");
	int64_t n;
	if (v && dl_json_int64(v, &n) == 0 && n >= 0) out->num_records = n;
	v = dl_json_get(root, "tightBounds");
	if (v && v->kind == DL_JSON_FALSE) out->tight_bounds = false;
	out->min_values = dl_json_get(root, "minValues");
	out->max_values = dl_json_get(root, "maxValues");
	out->null_count = dl_json_get(root, "nullCount");
	return 0;
}

static const dl_json *walk(const dl_json *v, const char *const *path, int depth)
{
	for (int i = 0; v && i < depth; i++) {
		if (v->kind != DL_JSON_OBJECT) return NULL;
		v = dl_json_get(v, path[i]);
	}
	return v;
}

static size_t utf8_chars(const char *s, size_t n)
{
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80) c++;
	return c;
}

/* Parses decimal text ("12.5", "1.25E1") at the type's scale; false when it
 * does not fit exactly. */
static bool decimal_from_text(const char *s, size_t n, const dl_type *t, dl_i128 *out)
{
	char buf[128];
	if (n >= sizeof buf) return false;
	memcpy(buf, s, n);
	buf[n] = 0;
	if (strpbrk(buf, "eE")) return false; /* exponent form: skip (rare in stats) */
	dl_scalar sc;
	if (dl_partition_value_parse(&sc, t, buf) < 0) {
		dl_error_clear();
		return false;
	}
	*out = sc.v.dec;
	return true;
}

/* A stats JSON value to a scalar of type t; false when it does not convert
 * (the statistic is then treated as absent). */
static bool to_scalar(const dl_json *v, const dl_type *t, bool is_max, dl_scalar *sc, bool *prefix)
{
	memset(sc, 0, sizeof *sc);
	sc->type = t->id;
	*prefix = false;
	if (!v || v->kind == DL_JSON_NULL) return false;
	double d;
	switch (t->id) {
	case DL_TYPE_BYTE:
	case DL_TYPE_SHORT:
	case DL_TYPE_INTEGER:
	case DL_TYPE_LONG: return v->kind == DL_JSON_NUMBER && dl_json_int64(v, &sc->v.i64) == 0;
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE:
		if (v->kind != DL_JSON_NUMBER || dl_json_double(v, &d) < 0) return false;
		sc->v.f64 = d;
		return true;
	case DL_TYPE_DECIMAL:
		if (v->kind != DL_JSON_NUMBER) return false;
		sc->precision = t->precision;
		sc->scale = t->scale;
		return decimal_from_text(v->u.num.ptr, v->u.num.len, t, &sc->v.dec);
	case DL_TYPE_BOOLEAN:
		if (v->kind != DL_JSON_TRUE && v->kind != DL_JSON_FALSE) return false;
		sc->v.b = v->kind == DL_JSON_TRUE;
		return true;
	case DL_TYPE_STRING:
		if (v->kind != DL_JSON_STRING) return false;
		sc->v.str.ptr = v->u.str.ptr;
		sc->v.str.len = v->u.str.len;
		*prefix = is_max && utf8_chars(v->u.str.ptr, v->u.str.len) >= DL_STATS_STRING_PREFIX;
		return true;
	case DL_TYPE_DATE: {
		int32_t days;
		if (v->kind != DL_JSON_STRING || dl_date_parse(&days, v->u.str.ptr, v->u.str.len) < 0)
			return false;
		sc->v.i64 = days;
		return true;
	}
	case DL_TYPE_TIMESTAMP:
	case DL_TYPE_TIMESTAMP_NTZ: {
		if (v->kind != DL_JSON_STRING) return false;
		int rc = t->id == DL_TYPE_TIMESTAMP
		             ? dl_timestamp_parse(&sc->v.i64, v->u.str.ptr, v->u.str.len, NULL)
		             : dl_timestamp_ntz_parse(&sc->v.i64, v->u.str.ptr, v->u.str.len);
		if (rc < 0) return false;
		if (is_max) sc->v.i64 += 999; /* truncated to milliseconds by writers */
		return true;
	}
	default: return false;
	}
}

int dl_file_stats_column(const dl_file_stats *s, const char *const *path, int depth,
                         const dl_type *type, dl_col_stats *out)
{
	memset(out, 0, sizeof *out);
	bool prefix;
	out->has_min = to_scalar(walk(s->min_values, path, depth), type, false, &out->min, &prefix);
	out->has_max = to_scalar(walk(s->max_values, path, depth), type, true, &out->max, &prefix);
	out->max_is_prefix = out->has_max && prefix;
	const dl_json *nc = walk(s->null_count, path, depth);
	int64_t n;
	if (nc && nc->kind == DL_JSON_NUMBER && dl_json_int64(nc, &n) == 0 && n >= 0) {
		if (s->tight_bounds || n == 0 || n == s->num_records) {
			out->has_null_count = true;
			out->null_count = n;
		}
	}
	dl_error_clear();
	return 0;
}

/* ---- the adapter ---- */

static int is_partition(const dl_file_skipping *fs, const char *name)
{
	for (int i = 0; i < fs->npartition_columns; i++)
		if (strcasecmp(fs->partition_columns[i], name) == 0) return 1;
	return 0;
}

static int column_stats(void *payload, const char *const *path, int depth, dl_col_stats *out)
{
	dl_file_skipping *fs = payload;
	memset(out, 0, sizeof *out);
	if (depth < 1 || depth > 64) return 0;
	const char *phys[64];
	const dl_type *t = fs->schema;
	const dl_field *top = NULL;
	for (int i = 0; i < depth; i++) {
		if (!t || t->id != DL_TYPE_STRUCT) return 0;
		int k = dl_type_field_index(t, path[i]);
		if (k < 0) return 0;
		const dl_field *f = &t->children[k];
		if (i == 0) top = f;
		DL_TRY(dl_field_physical_name(f, fs->mode, &fs->arena, &phys[i]));
		t = f->type;
	}
	if (depth == 1 && is_partition(fs, top->name)) {
		bool found;
		const char *raw = dl_str_map_get(&fs->add->partition_values, phys[0], &found);
		if (!found) return 0;
		dl_scalar v;
		if (dl_partition_value_parse(&v, t, raw) < 0) {
			dl_error_clear();
			return 0; /* unknown is always safe */
		}
		if (v.is_null) {
			out->all_null = true;
			out->has_null_count = fs->stats.num_records >= 0;
			out->null_count = fs->stats.num_records;
			return 0;
		}
		out->has_min = out->has_max = true;
		out->min = out->max = v;
		out->has_null_count = true;
		out->null_count = 0;
		return 0;
	}
	return dl_file_stats_column(&fs->stats, phys, depth, t, out);
}

static int variant_stats(void *payload, const char *const *path, int depth, const char *jpath, dl_col_stats *out)
{
	dl_file_skipping *fs = payload;
	memset(out, 0, sizeof *out);
	if (depth < 1 || depth > 64) return 0;
	const char *phys[64];
	const dl_type *t = fs->schema;
	for (int i = 0; i < depth; i++) {
		if (!t || t->id != DL_TYPE_STRUCT) return 0;
		int k = dl_type_field_index(t, path[i]);
		if (k < 0) return 0;
		DL_TRY(dl_field_physical_name(&t->children[k], fs->mode, &fs->arena, &phys[i]));
		t = t->children[k].type;
	}
	if (!t || t->id != DL_TYPE_VARIANT) return 0;
	return dl_file_stats_variant_path(&fs->stats, &fs->arena, phys, depth, jpath, out);
}

int dl_file_skipping_init(dl_file_skipping *fs, dl_stats_provider *out, const dl_type *schema,
                          dl_column_mapping_mode mode, const char *const *partition_columns,
                          int npartition_columns, const dl_add *add)
{
	dl_arena_reset(&fs->arena);
	fs->schema = schema;
	fs->mode = mode;
	fs->partition_columns = partition_columns;
	fs->npartition_columns = npartition_columns;
	fs->add = add;
	int rc = dl_file_stats_parse(&fs->stats, &fs->arena, add->stats, add->stats_len);
	if (rc < 0) {
		/* unreadable stats must not hide a file: treat them as absent */
		dl_error_clear();
		dl_file_stats_parse(&fs->stats, &fs->arena, NULL, 0);
	}
	out->num_records = fs->stats.num_records;
	out->column = column_stats;
	out->payload = fs;
	out->variant_path = variant_stats;
	out->may_contain = NULL;
	return 0;
}

void dl_file_skipping_free(dl_file_skipping *fs)
{
	dl_arena_free(&fs->arena);
}
