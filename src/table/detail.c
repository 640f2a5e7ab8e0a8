/* DESCRIBE DETAIL: one row summarizing a snapshot. Clustering columns come
 * from the "delta.clustering" domain metadata ({"clusteringColumns":
 * [["a"], ["b", "c"]]}: physical name paths), shown by their logical
 * names as dotted paths. */
#include <string.h>
#include "deltalake/history.h"
#include "json/json.h"
#include "log/schema.h"
#include "log/snapshot.h"
#include "util/arena.h"
#include "util/error.h"
#include "util/mem.h"

struct dl_detail {
	dl_arena arena;
	dl_table_detail d;
};

static const char *finish(dl_detail *d, dl_json_writer *w, dl_buf *b, int *rc)
{
	if (*rc < 0) return NULL;
	*rc = dl_jw_finish(w);
	const char *s = *rc == 0 && b->data ? dl_arena_strdup(&d->arena, b->data) : NULL;
	if (*rc == 0 && !s) *rc = DL_ENOMEM;
	dl_buf_clear(b);
	return s;
}

/* A domain name part (physical under column mapping) as its field of
 * `st` (a struct), or -1. */
static int field_of(const dl_type *st, const dl_json *part, dl_column_mapping_mode mode, dl_arena *a)
{
	if (!st || st->id != DL_TYPE_STRUCT || part->kind != DL_JSON_STRING) return -1;
	for (int i = 0; i < st->nchildren; i++) {
		const char *phys = NULL;
		if (dl_field_physical_name(&st->children[i], mode, a, &phys) < 0) {
			dl_error_clear();
			continue;
		}
		if (phys && strlen(phys) == part->u.str.len && memcmp(phys, part->u.str.ptr, part->u.str.len) == 0)
			return i;
	}
	return -1;
}

/* Spark shows the logical names (ClusteringColumnInfo.extractLogicalNames:
 * parts joined by '.', a part holding a '.' in backquotes). */
static int clustering(dl_detail *d, dl_snapshot *snap, dl_json_writer *w)
{
	dl_jw_array_begin(w);
	const char *conf = dl_snapshot_domain(snap, "delta.clustering");
	if (conf) {
		dl_json *root;
		DL_TRY(dl_json_parse(&d->arena, conf, strlen(conf), "delta.clustering domain metadata", &root));
		const dl_json *cols = dl_json_get(root, "clusteringColumns");
		dl_column_mapping_mode mode = dl_snapshot_props(snap)->column_mapping_mode;
		for (size_t i = 0; cols && cols->kind == DL_JSON_ARRAY && i < cols->u.arr.n; i++) {
			const dl_json *path = &cols->u.arr.items[i];
			const dl_type *cur = dl_snapshot_schema(snap);
			dl_buf name = DL_BUF_INIT;
			for (size_t k = 0; path->kind == DL_JSON_ARRAY && k < path->u.arr.n; k++) {
				const dl_json *p = &path->u.arr.items[k];
				if (p->kind != DL_JSON_STRING) continue;
				int f = field_of(cur, p, mode, &d->arena);
				const char *s = f >= 0 ? cur->children[f].name : NULL;
				size_t len = s ? strlen(s) : p->u.str.len;
				if (!s) s = p->u.str.ptr;
				cur = f >= 0 ? cur->children[f].type : NULL;
				bool quote = memchr(s, '.', len) != NULL;
				if (k) dl_buf_putc(&name, '.');
				if (quote) dl_buf_putc(&name, '`');
				dl_buf_append(&name, s, len);
				if (quote) dl_buf_putc(&name, '`');
			}
			if (name.data) {
				dl_buf_putc(&name, 0);
				dl_jw_string(w, (const char *)name.data);
			}
			dl_buf_free(&name);
		}
	}
	dl_jw_array_end(w);
	return 0;
}

int dl_detail_open(dl_detail **out, const dl_table_detail **detail, dl_snapshot *snap)
{
	*out = NULL;
	*detail = NULL;
	dl_detail *d = dl_calloc(1, sizeof *d);
	if (!d) return DL_ENOMEM;
	dl_table_detail *t = &d->d;
	t->format = "delta";
	t->id = dl_snapshot_table_id(snap);
	t->name = dl_snapshot_table_name(snap);
	t->description = dl_snapshot_table_description(snap);
	t->location = dl_snapshot_table_root(snap);
	t->created_at_ms = dl_snapshot_created_time(snap);
	t->last_modified_ms = dl_snapshot_timestamp(snap);
	t->num_files = (int64_t)dl_snapshot_file_count(snap);
	t->size_in_bytes = dl_snapshot_total_size(snap);
	t->min_reader_version = dl_snapshot_min_reader_version(snap);
	t->min_writer_version = dl_snapshot_min_writer_version(snap);
	t->version = dl_snapshot_version(snap);
	dl_buf b = DL_BUF_INIT;
	dl_json_writer w;
	int rc = 0;
	dl_jw_init(&w, &b);
	dl_jw_array_begin(&w);
	for (size_t i = 0; i < dl_snapshot_partition_column_count(snap); i++)
		dl_jw_string(&w, dl_snapshot_partition_column(snap, i));
	dl_jw_array_end(&w);
	t->partition_columns = finish(d, &w, &b, &rc);
	dl_jw_init(&w, &b);
	if (rc == 0) rc = clustering(d, snap, &w);
	t->clustering_columns = finish(d, &w, &b, &rc);
	dl_jw_init(&w, &b);
	dl_jw_object_begin(&w);
	for (size_t i = 0; i < dl_snapshot_property_count(snap); i++) {
		const char *k, *v;
		dl_snapshot_property_at(&k, &v, snap, i);
		dl_jw_key(&w, k);
		if (v) dl_jw_string(&w, v);
		else dl_jw_null(&w);
	}
	dl_jw_object_end(&w);
	t->properties = finish(d, &w, &b, &rc);
	/* features: reader features, then writer features not already listed */
	dl_jw_init(&w, &b);
	dl_jw_array_begin(&w);
	size_t nr = dl_snapshot_reader_feature_count(snap);
	for (size_t i = 0; i < nr; i++) dl_jw_string(&w, dl_snapshot_reader_feature(snap, i));
	for (size_t i = 0; i < dl_snapshot_writer_feature_count(snap); i++) {
		const char *f = dl_snapshot_writer_feature(snap, i);
		bool dup = false;
		for (size_t j = 0; j < nr && !dup; j++) dup = strcmp(dl_snapshot_reader_feature(snap, j), f) == 0;
		if (!dup) dl_jw_string(&w, f);
	}
	dl_jw_array_end(&w);
	t->table_features = finish(d, &w, &b, &rc);
	dl_buf_free(&b);
	if (rc < 0) {
		dl_detail_free(d);
		return rc;
	}
	*out = d;
	*detail = t;
	return 0;
}

void dl_detail_free(dl_detail *d)
{
	if (!d) return;
	dl_arena_free(&d->arena);
	dl_free(d);
}
