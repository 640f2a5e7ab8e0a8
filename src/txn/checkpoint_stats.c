/* add.stats_parsed: see checkpoint_stats.h. The stats JSON of each add is
 * parsed and every value converted to its column's type with the
 * partition-value parser (which reads the same text forms: numbers,
 * "yyyy-MM-dd", ISO 8601 timestamps, strings); a value that does not fit
 * its type is left null rather than failing the checkpoint. */
#include "txn/checkpoint_stats.h"

#include <string.h>
#include <strings.h>

#include "json/json.h"
#include "log/protocol.h"
#include "log/partition_values.h"
#include "log/schema.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

static bool has_minmax(dl_type_id id)
{
	switch (id) {
	case DL_TYPE_BYTE: case DL_TYPE_SHORT: case DL_TYPE_INTEGER: case DL_TYPE_LONG:
	case DL_TYPE_FLOAT: case DL_TYPE_DOUBLE: case DL_TYPE_DECIMAL: case DL_TYPE_STRING:
	case DL_TYPE_DATE: case DL_TYPE_TIMESTAMP: case DL_TYPE_TIMESTAMP_NTZ:
		return true;
	default:
		return false;
	}
}

typedef struct builder_ctx {
	int64_t budget;              /* leaves still indexed (-1: all) */
	const char *stats_columns;   /* delta.dataSkippingStatsColumns, or NULL */
	const dl_metadata *meta;
} builder_ctx;

static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; *p;) {
		while (*p == ' ' || *p == ',') p++;
		const char *e = p;
		while (*e && *e != ',') e++;
		const char *end = e;
		while (end > p && end[-1] == ' ') end--;
		/* "a" or "a.b...": the top-level name decides */
		size_t len = (size_t)(end - p);
		const char *dot = memchr(p, '.', len);
		if (dot) len = (size_t)(dot - p);
		if (len == n && strncasecmp(p, name, n) == 0) return true;
		p = e;
	}
	return false;
}

/* The min/max and nullCount shapes of a struct's fields; NULL *mm / *nc
 * when nothing is collected. `top` skips partition columns. */
static int shape(dl_type **mm, dl_type **nc, const dl_type *st, builder_ctx *c, bool top,
                 const dl_type *logical)
{
	*mm = *nc = NULL;
	int n = st->nchildren;
	dl_field *mf = dl_calloc((size_t)(n ? n : 1), sizeof *mf);
	dl_field *nf = dl_calloc((size_t)(n ? n : 1), sizeof *nf);
	dl_type *lng = dl_type_new(DL_TYPE_LONG);
	int nm = 0, nn = 0, rc = (mf && nf && lng) ? 0 : DL_ENOMEM;
	for (int i = 0; i < n && rc == 0; i++) {
		const dl_field *f = &st->children[i];
		const char *lname = logical->children[i].name;
		if (top) {
			bool part = false;
			for (uint32_t k = 0; k < c->meta->npartition_columns; k++)
				if (strcasecmp(c->meta->partition_columns[k], lname) == 0) part = true;
			if (part) continue;
			if (c->stats_columns && !listed(c->stats_columns, lname)) continue;
		}
		if (f->type->id == DL_TYPE_STRUCT) {
			dl_type *cm, *cn;
			rc = shape(&cm, &cn, f->type, c, false, logical->children[i].type);
			if (rc == 0 && cm) mf[nm++] = (dl_field){f->name, cm, true, NULL};
			if (rc == 0 && cn) nf[nn++] = (dl_field){f->name, cn, true, NULL};
			continue;
		}
		if (c->budget == 0) break;
		if (c->budget > 0) c->budget--;
		if (has_minmax(f->type->id)) mf[nm++] = (dl_field){f->name, dl_type_ref(f->type), true, NULL};
		nf[nn++] = (dl_field){f->name, dl_type_ref(lng), true, NULL};
	}
	if (rc == 0 && nm) *mm = dl_type_struct(mf, nm);
	if (rc == 0 && nn) *nc = dl_type_struct(nf, nn);
	if (rc == 0 && ((nm && !*mm) || (nn && !*nc))) rc = DL_ENOMEM;
	for (int i = 0; i < nm; i++) dl_type_unref(mf[i].type);
	for (int i = 0; i < nn; i++) dl_type_unref(nf[i].type);
	dl_type_unref(lng);
	dl_free(mf);
	dl_free(nf);
	return rc;
}

static void write_field(dl_json_writer *w, const char *name, const dl_type *t)
{
	dl_jw_object_begin(w);
	dl_jw_key(w, "name");
	dl_jw_string(w, name);
	dl_jw_key(w, "type");
	dl_schema_write_type(w, t);
	dl_jw_key(w, "nullable");
	dl_jw_bool(w, true);
	dl_jw_key(w, "metadata");
	dl_jw_object_begin(w);
	dl_jw_object_end(w);
	dl_jw_object_end(w);
}

int dl_ckpt_stats_init(dl_ckpt_stats *out, const dl_snapshot *snap)
{
	memset(out, 0, sizeof *out);
	if (!snap->schema) return 0;
	const dl_table_properties *p = &snap->props;
	builder_ctx c = {p->data_skipping_num_indexed_cols < 0 ? -1 : p->data_skipping_num_indexed_cols,
	                 p->data_skipping_stats_columns, snap->state.metadata};
	if (c.stats_columns) c.budget = -1;
	dl_type *phys = NULL;
	DL_TRY(dl_schema_to_physical(&phys, snap->schema, p->column_mapping_mode));
	int rc = shape(&out->minmax, &out->nulls, phys, &c, true, snap->schema);
	dl_type_unref(phys);
	out->tight_bounds = dl_protocol_has(snap->state.protocol, DL_FEATURE_DELETION_VECTORS);
	dl_buf b = DL_BUF_INIT;
	dl_json_writer w;
	dl_jw_init(&w, &b);
	dl_jw_object_begin(&w);
	dl_jw_key(&w, "type");
	dl_jw_string(&w, "struct");
	dl_jw_key(&w, "fields");
	dl_jw_array_begin(&w);
	dl_type *lng = dl_type_new(DL_TYPE_LONG), *bl = dl_type_new(DL_TYPE_BOOLEAN);
	if (!lng || !bl) rc = DL_ENOMEM;
	if (rc == 0) {
		write_field(&w, "numRecords", lng);
		if (out->minmax) {
			write_field(&w, "minValues", out->minmax);
			write_field(&w, "maxValues", out->minmax);
		}
		if (out->nulls) write_field(&w, "nullCount", out->nulls);
		if (out->tight_bounds) write_field(&w, "tightBounds", bl);
	}
	dl_type_unref(lng);
	dl_type_unref(bl);
	dl_jw_array_end(&w);
	dl_jw_object_end(&w);
	if (rc == 0) rc = dl_jw_finish(&w);
	if (rc == 0) out->type_json = dl_buf_detach(&b, NULL);
	dl_buf_free(&b);
	if (rc < 0) dl_ckpt_stats_free(out);
	return rc;
}

void dl_ckpt_stats_free(dl_ckpt_stats *s)
{
	dl_type_unref(s->minmax);
	dl_type_unref(s->nulls);
	dl_free(s->type_json);
	memset(s, 0, sizeof *s);
}

static int put_value(dl_builder *b, const dl_type *t, const dl_json *v)
{
	if (!v || v->kind == DL_JSON_NULL) return dl_builder_append_null(b);
	char num[128];
	const char *text = NULL;
	if (v->kind == DL_JSON_STRING) {
		text = v->u.str.ptr;
	} else if (v->kind == DL_JSON_NUMBER && v->u.num.len < sizeof num) {
		memcpy(num, v->u.num.ptr, v->u.num.len);
		num[v->u.num.len] = 0;
		text = num;
	}
	dl_scalar s;
	if (!text || dl_partition_value_parse(&s, t, text) < 0 || s.is_null) {
		dl_error_clear(); /* unusable: unknown */
		return dl_builder_append_null(b);
	}
	switch (t->id) {
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE: return dl_builder_append_double(b, s.v.f64);
	case DL_TYPE_DECIMAL: return dl_builder_append_decimal(b, s.v.dec);
	case DL_TYPE_STRING: return dl_builder_append_bytes(b, s.v.str.ptr, s.v.str.len);
	default:
		if (dl_builder_append_int(b, s.v.i64) < 0) {
			dl_error_clear();
			return dl_builder_append_null(b);
		}
		return 0;
	}
}

/* Fills one struct value of type st from the JSON object obj (same names). */
static int put_struct(dl_builder *b, const dl_type *st, const dl_json *obj)
{
	if (!obj || obj->kind != DL_JSON_OBJECT) return dl_builder_append_null(b);
	DL_TRY(dl_builder_begin_struct(b));
	for (int i = 0; i < st->nchildren; i++) {
		const dl_field *f = &st->children[i];
		const dl_json *v = dl_json_get(obj, f->name);
		dl_builder *cb = dl_builder_child(b, i);
		if (f->type->id == DL_TYPE_STRUCT) DL_TRY(put_struct(cb, f->type, v));
		else DL_TRY(put_value(cb, f->type, v));
	}
	return dl_builder_end_struct(b);
}

int dl_ckpt_stats_put(dl_builder *b, const dl_ckpt_stats *s, const dl_add *a)
{
	if (!a->stats) return dl_builder_append_null(b);
	dl_arena arena = DL_ARENA_INIT;
	dl_json *v;
	if (dl_json_parse(&arena, a->stats, a->stats_len, "add.stats", &v) < 0 ||
	    v->kind != DL_JSON_OBJECT) {
		dl_error_clear(); /* unreadable stats: none */
		dl_arena_free(&arena);
		return dl_builder_append_null(b);
	}
	int rc = dl_builder_begin_struct(b);
	int i = 0;
	int64_t n;
	const dl_json *nr = dl_json_get(v, "numRecords");
	if (rc == 0) rc = nr && dl_json_int64(nr, &n) == 0 ? dl_builder_append_int(dl_builder_child(b, i), n)
	                                                   : dl_builder_append_null(dl_builder_child(b, i));
	i++;
	if (rc == 0 && s->minmax) {
		rc = put_struct(dl_builder_child(b, i++), s->minmax, dl_json_get(v, "minValues"));
		if (rc == 0) rc = put_struct(dl_builder_child(b, i++), s->minmax, dl_json_get(v, "maxValues"));
	}
	if (rc == 0 && s->nulls) rc = put_struct(dl_builder_child(b, i++), s->nulls, dl_json_get(v, "nullCount"));
	if (rc == 0 && s->tight_bounds) {
		const dl_json *tb = dl_json_get(v, "tightBounds");
		dl_builder *cb = dl_builder_child(b, i++);
		rc = tb && (tb->kind == DL_JSON_TRUE || tb->kind == DL_JSON_FALSE)
		         ? dl_builder_append_bool(cb, tb->kind == DL_JSON_TRUE)
		         : dl_builder_append_null(cb);
	}
	if (rc == 0) rc = dl_builder_end_struct(b);
	dl_arena_free(&arena);
	return rc;
}
