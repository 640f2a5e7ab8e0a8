/* Iceberg manifests (manifest_entry rows) and manifest lists
 * (manifest_file rows), format v2, with the spec's Avro schemas
 * (iceberg_schema.c) and the file metadata Iceberg's writers put in the
 * header: a manifest carries "schema", "schema-id", "partition-spec",
 * "partition-spec-id", "format-version" = 2 and "content" = "data"; a
 * manifest list "snapshot-id", "parent-snapshot-id", "sequence-number"
 * and "format-version".
 *
 * Entries always carry explicit sequence numbers (allowed for added
 * entries, required for existing and deleted ones), so a manifest never
 * depends on inheritance from the list that first named it. */
#include "uniform/iceberg_manifest.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "expr/expr.h"
#include "log/partition_values.h"
#include "util/error.h"
#include "util/mem.h"

#define AV(call)                                                                                   \
	do {                                                                                           \
		if (call) return dl_ice_avro_error(DL_EINVALID, w->av.path);                               \
	} while (0)

static int meta_put(dl_kv *kv, uint32_t *n, dl_arena *a, const char *key, const char *value)
{
	kv[*n].key = key;
	kv[*n].value = dl_arena_strdup(a, value);
	if (!kv[*n].value) return DL_ENOMEM;
	(*n)++;
	return 0;
}

static int meta_long(dl_kv *kv, uint32_t *n, dl_arena *a, const char *key, int64_t v)
{
	char num[24];
	snprintf(num, sizeof num, "%lld", (long long)v);
	return meta_put(kv, n, a, key, num);
}

int dl_ice_manifest_open(dl_ice_manifest_writer *w, dl_store *store, const char *rel_path,
                         const char *abs_path, const dl_ice_table_schema *s, const char *schema_json,
                         int32_t schema_id, int64_t snapshot_id, int64_t sequence_number)
{
	memset(w, 0, sizeof *w);
	w->s = s;
	w->tmp = (dl_arena)DL_ARENA_INIT;
	w->info.content = 0;
	w->info.spec_id = 0;
	w->info.added_snapshot_id = snapshot_id;
	w->info.sequence_number = sequence_number;
	w->info.min_sequence_number = sequence_number;
	w->info.path = dl_strdup(abs_path);
	if (!w->info.path) return DL_ENOMEM;
	if (s->nparts > 0) {
		w->info.parts = dl_calloc((size_t)s->nparts, sizeof *w->info.parts);
		w->lo = dl_calloc((size_t)s->nparts, sizeof *w->lo);
		w->hi = dl_calloc((size_t)s->nparts, sizeof *w->hi);
		w->info.nparts = s->nparts;
		if (!w->info.parts || !w->lo || !w->hi) {
			dl_ice_manifest_abort(w);
			return DL_ENOMEM;
		}
	}
	dl_buf avsc = DL_BUF_INIT, spec = DL_BUF_INIT;
	int rc = dl_ice_manifest_avro_schema(&avsc, s);
	dl_json_writer jw;
	dl_jw_init(&jw, &spec);
	dl_ice_write_spec(&jw, s, true);
	if (rc == 0) rc = dl_jw_finish(&jw);
	dl_kv kv[6];
	uint32_t n = 0;
	if (rc == 0) rc = meta_put(kv, &n, &w->tmp, "schema", schema_json);
	if (rc == 0) rc = meta_long(kv, &n, &w->tmp, "schema-id", schema_id);
	if (rc == 0) rc = meta_put(kv, &n, &w->tmp, "partition-spec", spec.data);
	if (rc == 0) rc = meta_put(kv, &n, &w->tmp, "partition-spec-id", "0");
	if (rc == 0) rc = meta_put(kv, &n, &w->tmp, "format-version", "2");
	if (rc == 0) rc = meta_put(kv, &n, &w->tmp, "content", "data");
	dl_str_map meta = {kv, n};
	if (rc == 0) rc = dl_ice_avro_open(&w->av, store, rel_path, avsc.data, &meta);
	dl_buf_free(&avsc);
	dl_buf_free(&spec);
	if (rc < 0) dl_ice_manifest_abort(w);
	return rc;
}

static int set_opt_long(avro_value_t *rec, const char *field, int64_t v)
{
	avro_value_t u, b;
	if (avro_value_get_by_name(rec, field, &u, NULL)) return -1;
	if (avro_value_set_branch(&u, 1, &b)) return -1;
	return avro_value_set_long(&b, v);
}

/* A map<int, long|bytes> field (Avro array of k/v records): branch 1 of
 * the union, one element per metric that has the value. */
static int set_metric_map(avro_value_t *df, const char *field, const dl_ice_metrics *m, int which)
{
	avro_value_t u, arr, el, k, v;
	if (avro_value_get_by_name(df, field, &u, NULL)) return -1;
	if (avro_value_set_branch(&u, 1, &arr)) return -1;
	for (int i = 0; i < m->n; i++) {
		const dl_ice_metric *x = &m->m[i];
		if ((which < 2 && !x->has_counts) || (which == 2 && !x->lower) || (which == 3 && !x->upper))
			continue;
		if (avro_value_append(&arr, &el, NULL)) return -1;
		if (avro_value_get_by_name(&el, "key", &k, NULL) || avro_value_set_int(&k, x->id)) return -1;
		if (avro_value_get_by_name(&el, "value", &v, NULL)) return -1;
		int bad = which == 0   ? avro_value_set_long(&v, x->value_count)
		          : which == 1 ? avro_value_set_long(&v, x->null_count)
		          : which == 2 ? avro_value_set_bytes(&v, x->lower, x->lower_len)
		                       : avro_value_set_bytes(&v, x->upper, x->upper_len);
		if (bad) return -1;
	}
	return 0;
}

static int set_null(avro_value_t *rec, const char *field)
{
	avro_value_t u, b;
	if (avro_value_get_by_name(rec, field, &u, NULL)) return -1;
	if (avro_value_set_branch(&u, 0, &b)) return -1;
	return avro_value_set_null(&b);
}

static int set_partition(dl_ice_manifest_writer *w, avro_value_t *df, const dl_ice_data_file *f)
{
	avro_value_t p, u, b;
	AV(avro_value_get_by_name(df, "partition", &p, NULL));
	for (int i = 0; i < w->s->nparts; i++) {
		const dl_ice_part_field *pf = &w->s->parts[i];
		AV(avro_value_get_by_index(&p, (size_t)i, &u, NULL));
		bool found = false;
		const char *text = f->partition ? dl_str_map_get(f->partition, pf->physical, &found) : NULL;
		if (!found && f->partition)
			for (uint32_t j = 0; j < f->partition->n && !found; j++)
				if (strcasecmp(f->partition->items[j].key, pf->physical) == 0) {
					found = true;
					text = f->partition->items[j].value;
				}
		dl_scalar sv;
		sv.is_null = true;
		if (text) DL_TRY(dl_partition_value_parse(&sv, pf->type, text));
		if (sv.is_null) {
			AV(avro_value_set_branch(&u, 0, &b));
			AV(avro_value_set_null(&b));
			continue;
		}
		AV(avro_value_set_branch(&u, 1, &b));
		switch (pf->type->id) {
		case DL_TYPE_BOOLEAN: AV(avro_value_set_boolean(&b, sv.v.b)); break;
		case DL_TYPE_BYTE:
		case DL_TYPE_SHORT:
		case DL_TYPE_INTEGER:
		case DL_TYPE_DATE: AV(avro_value_set_int(&b, (int32_t)sv.v.i64)); break;
		case DL_TYPE_FLOAT: AV(avro_value_set_float(&b, (float)sv.v.f64)); break;
		case DL_TYPE_DOUBLE: AV(avro_value_set_double(&b, sv.v.f64)); break;
		case DL_TYPE_STRING: {
			char *s = dl_arena_strndup(&w->tmp, sv.v.str.ptr, sv.v.str.len);
			if (!s) return DL_ENOMEM;
			AV(avro_value_set_string_len(&b, s, sv.v.str.len + 1));
			break;
		}
		default: AV(avro_value_set_long(&b, sv.v.i64)); break;
		}
	}
	return 0;
}

/* Iceberg's order of two non-null partition values of one type: strings
 * by their UTF-8 bytes, numbers, dates and timestamps by value. */
static int part_cmp(const dl_type *t, const dl_scalar *a, const dl_scalar *b)
{
	switch (t->id) {
	case DL_TYPE_STRING: {
		size_t n = a->v.str.len < b->v.str.len ? a->v.str.len : b->v.str.len;
		int c = memcmp(a->v.str.ptr, b->v.str.ptr, n);
		if (c) return c;
		return a->v.str.len < b->v.str.len ? -1 : a->v.str.len > b->v.str.len;
	}
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE: return a->v.f64 < b->v.f64 ? -1 : a->v.f64 > b->v.f64;
	case DL_TYPE_BOOLEAN: return (int)a->v.b - (int)b->v.b;
	default: return a->v.i64 < b->v.i64 ? -1 : a->v.i64 > b->v.i64;
	}
}

static int keep_bound(char **slot, const dl_type *t, const char *text, const dl_scalar *v, int sign)
{
	if (*slot) {
		dl_scalar cur;
		DL_TRY(dl_partition_value_parse(&cur, t, *slot));
		if (part_cmp(t, v, &cur) * sign <= 0) return 0;
	}
	char *c = dl_strdup(text);
	if (!c) return DL_ENOMEM;
	dl_free(*slot);
	*slot = c;
	return 0;
}

/* The manifest list's field_summary: nulls, NaNs (kept out of the
 * bounds, as the spec says) and the lower and upper bound of each
 * partition field. */
static int summarize(dl_ice_manifest_writer *w, const dl_ice_data_file *f)
{
	for (int i = 0; i < w->s->nparts; i++) {
		const dl_ice_part_field *pf = &w->s->parts[i];
		dl_ice_part_summary *ps = &w->info.parts[i];
		bool found = false;
		const char *text = f->partition ? dl_str_map_get(f->partition, pf->physical, &found) : NULL;
		if (!found && f->partition)
			for (uint32_t j = 0; j < f->partition->n; j++)
				if (strcasecmp(f->partition->items[j].key, pf->physical) == 0) text = f->partition->items[j].value;
		dl_scalar sv;
		sv.is_null = true;
		if (text) DL_TRY(dl_partition_value_parse(&sv, pf->type, text));
		if (sv.is_null) {
			ps->contains_null = true;
			continue;
		}
		if ((pf->type->id == DL_TYPE_FLOAT || pf->type->id == DL_TYPE_DOUBLE) && sv.v.f64 != sv.v.f64) {
			ps->contains_nan = true;
			continue;
		}
		DL_TRY(keep_bound(&w->lo[i], pf->type, text, &sv, -1));
		DL_TRY(keep_bound(&w->hi[i], pf->type, text, &sv, 1));
	}
	return 0;
}

static int encode_bound(uint8_t **out, size_t *len, dl_arena *a, const dl_type *t, const char *text)
{
	uint8_t *b;
	DL_TRY(dl_ice_partition_bound(&b, len, a, t, text));
	if (!b) return 0;
	*out = dl_malloc(*len ? *len : 1);
	if (!*out) return DL_ENOMEM;
	memcpy(*out, b, *len);
	return 0;
}

int dl_ice_manifest_add(dl_ice_manifest_writer *w, int status, int64_t snapshot_id,
                        int64_t sequence_number, int64_t file_sequence_number,
                        const dl_ice_data_file *f)
{
	dl_arena_reset(&w->tmp);
	dl_ice_metrics m;
	DL_TRY(dl_ice_metrics_from_stats(&m, &w->tmp, w->s, f->stats, f->stats_len, f->path));
	if (m.num_records < 0)
		return dl_error_set(DL_EUNSUPPORTED,
		                    "Iceberg needs the record count of every data file: %s has no "
		                    "numRecords statistic (IcebergCompat requires stats on every file)",
		                    f->path);
	avro_value_t e, x, df;
	DL_TRY(dl_ice_avro_new_value(&w->av, &e));
	int rc = 0;
#define CK(c)                                                                                      \
	do {                                                                                           \
		if ((c) && rc == 0) rc = dl_ice_avro_error(DL_EINVALID, w->av.path);                       \
	} while (0)
	CK(avro_value_get_by_name(&e, "status", &x, NULL) || avro_value_set_int(&x, status));
	CK(set_opt_long(&e, "snapshot_id", snapshot_id));
	CK(set_opt_long(&e, "sequence_number", sequence_number));
	CK(set_opt_long(&e, "file_sequence_number", file_sequence_number));
	CK(avro_value_get_by_name(&e, "data_file", &df, NULL));
	if (rc == 0) {
		CK(avro_value_get_by_name(&df, "content", &x, NULL) || avro_value_set_int(&x, 0));
		CK(avro_value_get_by_name(&df, "file_path", &x, NULL) || avro_value_set_string(&x, f->path));
		CK(avro_value_get_by_name(&df, "file_format", &x, NULL) ||
		   avro_value_set_string(&x, "PARQUET"));
		if (rc == 0) rc = set_partition(w, &df, f);
		if (rc == 0) rc = summarize(w, f);
		CK(avro_value_get_by_name(&df, "record_count", &x, NULL) ||
		   avro_value_set_long(&x, m.num_records));
		CK(avro_value_get_by_name(&df, "file_size_in_bytes", &x, NULL) ||
		   avro_value_set_long(&x, f->size));
		CK(set_null(&df, "column_sizes"));
		CK(set_metric_map(&df, "value_counts", &m, 0));
		CK(set_metric_map(&df, "null_value_counts", &m, 1));
		CK(set_null(&df, "nan_value_counts"));
		CK(set_metric_map(&df, "lower_bounds", &m, 2));
		CK(set_metric_map(&df, "upper_bounds", &m, 3));
		CK(set_null(&df, "key_metadata"));
		CK(set_null(&df, "split_offsets"));
		CK(set_null(&df, "equality_ids"));
		CK(set_null(&df, "sort_order_id"));
	}
#undef CK
	if (rc == 0) rc = dl_ice_avro_append(&w->av, &e);
	avro_value_decref(&e);
	DL_TRY(rc);
	dl_ice_manifest_info *i = &w->info;
	if (!w->any_seq || sequence_number < i->min_sequence_number)
		i->min_sequence_number = sequence_number;
	w->any_seq = true;
	if (status == DL_ICE_ADDED) i->added_files++, i->added_rows += m.num_records;
	else if (status == DL_ICE_EXISTING) i->existing_files++, i->existing_rows += m.num_records;
	else i->deleted_files++, i->deleted_rows += m.num_records;
	return 0;
}

int dl_ice_manifest_close(dl_ice_manifest_writer *w, dl_ice_manifest_info *out)
{
	dl_arena_reset(&w->tmp);
	int rc = 0;
	for (int i = 0; rc == 0 && i < w->info.nparts; i++) {
		dl_ice_part_summary *ps = &w->info.parts[i];
		const dl_type *t = w->s->parts[i].type;
		rc = encode_bound(&ps->lower, &ps->lower_len, &w->tmp, t, w->lo[i]);
		if (rc == 0) rc = encode_bound(&ps->upper, &ps->upper_len, &w->tmp, t, w->hi[i]);
	}
	if (rc == 0) rc = dl_ice_avro_close(&w->av, &w->info.length);
	if (rc == 0) {
		*out = w->info;
		w->info.path = NULL;
		w->info.parts = NULL;
		w->info.nparts = 0;
	}
	dl_ice_manifest_abort(w);
	return rc;
}

void dl_ice_manifest_abort(dl_ice_manifest_writer *w)
{
	dl_ice_avro_abort(&w->av);
	dl_ice_manifest_info_free(&w->info);
	for (int i = 0; i < w->s->nparts; i++) {
		if (w->lo) dl_free(w->lo[i]);
		if (w->hi) dl_free(w->hi[i]);
	}
	dl_free(w->lo);
	dl_free(w->hi);
	w->lo = w->hi = NULL;
	dl_arena_free(&w->tmp);
}

void dl_ice_manifest_info_free(dl_ice_manifest_info *m)
{
	if (!m) return;
	dl_free(m->path);
	m->path = NULL;
	for (int i = 0; m->parts && i < m->nparts; i++) {
		dl_free(m->parts[i].lower);
		dl_free(m->parts[i].upper);
	}
	dl_free(m->parts);
	m->parts = NULL;
	m->nparts = 0;
}

/* manifest_file.partitions: one field_summary per partition field, null
 * for an unpartitioned table (as Iceberg writes it). */
static int set_summaries(avro_value_t *r, const dl_ice_manifest_info *f)
{
	if (f->nparts == 0) return set_null(r, "partitions");
	avro_value_t u, arr, el, x, b;
	if (avro_value_get_by_name(r, "partitions", &u, NULL) || avro_value_set_branch(&u, 1, &arr)) return -1;
	for (int i = 0; i < f->nparts; i++) {
		const dl_ice_part_summary *ps = &f->parts[i];
		if (avro_value_append(&arr, &el, NULL)) return -1;
		if (avro_value_get_by_name(&el, "contains_null", &x, NULL) || avro_value_set_boolean(&x, ps->contains_null))
			return -1;
		if (avro_value_get_by_name(&el, "contains_nan", &x, NULL) || avro_value_set_branch(&x, 1, &b) ||
		    avro_value_set_boolean(&b, ps->contains_nan))
			return -1;
		if (avro_value_get_by_name(&el, "lower_bound", &x, NULL)) return -1;
		if (ps->lower ? avro_value_set_branch(&x, 1, &b) || avro_value_set_bytes(&b, ps->lower, ps->lower_len)
		              : avro_value_set_branch(&x, 0, &b) || avro_value_set_null(&b))
			return -1;
		if (avro_value_get_by_name(&el, "upper_bound", &x, NULL)) return -1;
		if (ps->upper ? avro_value_set_branch(&x, 1, &b) || avro_value_set_bytes(&b, ps->upper, ps->upper_len)
		              : avro_value_set_branch(&x, 0, &b) || avro_value_set_null(&b))
			return -1;
	}
	return 0;
}

int dl_ice_manifest_list_write(dl_store *store, const char *rel_path, const dl_ice_manifest_info *m,
                               size_t n, int64_t snapshot_id, int64_t parent_id,
                               int64_t sequence_number)
{
	dl_arena a = DL_ARENA_INIT;
	dl_kv kv[4];
	uint32_t nk = 0;
	int rc = meta_long(kv, &nk, &a, "snapshot-id", snapshot_id);
	if (rc == 0) rc = parent_id >= 0 ? meta_long(kv, &nk, &a, "parent-snapshot-id", parent_id)
	                                 : meta_put(kv, &nk, &a, "parent-snapshot-id", "null");
	if (rc == 0) rc = meta_long(kv, &nk, &a, "sequence-number", sequence_number);
	if (rc == 0) rc = meta_put(kv, &nk, &a, "format-version", "2");
	dl_str_map meta = {kv, nk};
	struct { dl_ice_avro_writer av; } ww, *w = &ww;
	memset(&ww, 0, sizeof ww);
	if (rc == 0) rc = dl_ice_avro_open(&w->av, store, rel_path, dl_ice_manifest_list_avro_schema(), &meta);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		avro_value_t r, x;
		rc = dl_ice_avro_new_value(&w->av, &r);
		if (rc < 0) break;
		const dl_ice_manifest_info *f = &m[i];
		bool bad = avro_value_get_by_name(&r, "manifest_path", &x, NULL) ||
		           avro_value_set_string(&x, f->path) ||
		           avro_value_get_by_name(&r, "manifest_length", &x, NULL) ||
		           avro_value_set_long(&x, f->length) ||
		           avro_value_get_by_name(&r, "partition_spec_id", &x, NULL) ||
		           avro_value_set_int(&x, f->spec_id) ||
		           avro_value_get_by_name(&r, "content", &x, NULL) || avro_value_set_int(&x, f->content) ||
		           avro_value_get_by_name(&r, "sequence_number", &x, NULL) ||
		           avro_value_set_long(&x, f->sequence_number) ||
		           avro_value_get_by_name(&r, "min_sequence_number", &x, NULL) ||
		           avro_value_set_long(&x, f->min_sequence_number) ||
		           avro_value_get_by_name(&r, "added_snapshot_id", &x, NULL) ||
		           avro_value_set_long(&x, f->added_snapshot_id) ||
		           avro_value_get_by_name(&r, "added_files_count", &x, NULL) ||
		           avro_value_set_int(&x, f->added_files) ||
		           avro_value_get_by_name(&r, "existing_files_count", &x, NULL) ||
		           avro_value_set_int(&x, f->existing_files) ||
		           avro_value_get_by_name(&r, "deleted_files_count", &x, NULL) ||
		           avro_value_set_int(&x, f->deleted_files) ||
		           avro_value_get_by_name(&r, "added_rows_count", &x, NULL) ||
		           avro_value_set_long(&x, f->added_rows) ||
		           avro_value_get_by_name(&r, "existing_rows_count", &x, NULL) ||
		           avro_value_set_long(&x, f->existing_rows) ||
		           avro_value_get_by_name(&r, "deleted_rows_count", &x, NULL) ||
		           avro_value_set_long(&x, f->deleted_rows) || set_summaries(&r, f) ||
		           set_null(&r, "key_metadata");
		if (bad) rc = dl_ice_avro_error(DL_EINVALID, rel_path);
		if (rc == 0) rc = dl_ice_avro_append(&w->av, &r);
		avro_value_decref(&r);
	}
	int64_t size;
	if (rc == 0) rc = dl_ice_avro_close(&w->av, &size);
	else dl_ice_avro_abort(&w->av);
	dl_arena_free(&a);
	return rc;
}
