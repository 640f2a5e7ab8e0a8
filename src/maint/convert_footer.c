/* One Parquet file's footer for CONVERT TO DELTA: its schema, row count and
 * the add action's stats JSON built from the row groups' column statistics
 * (see convert_internal.h).
 *
 * The JSON follows the rules of the write path (rewrite/stats_write.c), so
 * a converted file's stats read like a written one's: numRecords; for the
 * first indexed leaves (each leaf counts toward the limit, leaves under
 * arrays and maps get nothing) nullCount, and min/max for orderable types
 * (numbers, dates, timestamps to the millisecond, strings cut to 32
 * characters with U+FFFD after a cut max); booleans and binaries only
 * nullCount. A leaf gets a min/max only when every row group has one (a
 * missing one means "unknown", so no bound is safe), a nullCount only when
 * every row group has one. */
#include <inttypes.h>
#include <string.h>
#include "columnar/format_value.h"
#include "json/json.h"
#include "maint/convert_internal.h"
#include "parquet/reader.h"
#include "rewrite/stats_write.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/time.h"


typedef struct leaf_stats {
	const dl_type *type;
	bool indexed;       /* gets statistics at all */
	bool bounds;        /* min/max known for every row group */
	bool nulls;         /* nullCount known for every row group */
	bool have;          /* min/max hold a row group's values */
	pq_stat_value min, max;
	int64_t null_count;
} leaf_stats;

static bool orderable(const dl_type *t)
{
	switch (t->id) {
	case DL_TYPE_BYTE: case DL_TYPE_SHORT: case DL_TYPE_INTEGER: case DL_TYPE_LONG:
	case DL_TYPE_FLOAT: case DL_TYPE_DOUBLE: case DL_TYPE_DECIMAL: case DL_TYPE_DATE:
	case DL_TYPE_TIMESTAMP: case DL_TYPE_TIMESTAMP_NTZ: case DL_TYPE_STRING:
		return true;
	default:
		return false;
	}
}

static int cmp(const dl_type *t, const pq_stat_value *a, const pq_stat_value *b)
{
	switch (t->id) {
	case DL_TYPE_FLOAT: case DL_TYPE_DOUBLE:
		return a->d < b->d ? -1 : a->d > b->d;
	case DL_TYPE_DECIMAL:
		return a->dec < b->dec ? -1 : a->dec > b->dec;
	case DL_TYPE_STRING: {
		uint32_t n = a->len < b->len ? a->len : b->len;
		int c = n ? memcmp(a->s, b->s, n) : 0;
		if (c) return c;
		return a->len < b->len ? -1 : a->len > b->len;
	}
	default:
		return a->i < b->i ? -1 : a->i > b->i;
	}
}

/* Marks which leaves (in the reader's leaf order: a depth-first walk of
 * the schema) are indexed. */
static void mark(leaf_stats *ls, int nleaves, int *leaf, int *counted, const dl_type *t, bool repeated,
                 int limit)
{
	if (t->id == DL_TYPE_STRUCT || t->id == DL_TYPE_ARRAY || t->id == DL_TYPE_MAP ||
	    t->id == DL_TYPE_VARIANT) {
		bool rep = repeated || t->id == DL_TYPE_ARRAY || t->id == DL_TYPE_MAP;
		for (int i = 0; i < t->nchildren; i++)
			mark(ls, nleaves, leaf, counted, t->children[i].type, rep || t->id == DL_TYPE_VARIANT, limit);
		return;
	}
	if (*leaf < nleaves) {
		ls[*leaf].type = t;
		ls[*leaf].indexed = !repeated && (limit < 0 || *counted < limit);
	}
	(*counted)++;
	(*leaf)++;
}

static int collect(leaf_stats *ls, const pq_reader *r, int nleaves)
{
	int nrg = pq_reader_num_row_groups(r);
	for (int l = 0; l < nleaves; l++) {
		leaf_stats *s = &ls[l];
		if (!s->indexed || !s->type) continue;
		s->bounds = orderable(s->type);
		s->nulls = true;
		for (int g = 0; g < nrg; g++) {
			pq_column_stats cs;
			DL_TRY(pq_reader_column_stats(r, g, l, &cs));
			if (!cs.has_null_count) s->nulls = false;
			else s->null_count += cs.null_count;
			/* a row group of nulls only has no bounds and needs none */
			bool all_null = cs.has_null_count && cs.null_count == cs.num_values;
			if (all_null) continue;
			if (!cs.has_min_max) {
				s->bounds = false;
				continue;
			}
			if ((s->type->id == DL_TYPE_FLOAT || s->type->id == DL_TYPE_DOUBLE) &&
			    (cs.min.d != cs.min.d || cs.max.d != cs.max.d))
				s->bounds = false;
			if (!s->bounds) continue;
			if (!s->have) {
				s->min = cs.min;
				s->max = cs.max;
				s->have = true;
				continue;
			}
			if (cmp(s->type, &cs.min, &s->min) < 0) s->min = cs.min;
			if (cmp(s->type, &cs.max, &s->max) > 0) s->max = cs.max;
		}
		/* no non-null value anywhere: no bounds to write */
		if (!s->have) s->bounds = false;
		if (s->bounds && (s->type->id == DL_TYPE_FLOAT || s->type->id == DL_TYPE_DOUBLE) &&
		    (s->min.d - s->min.d != 0 || s->max.d - s->max.d != 0))
			s->bounds = false; /* infinities have no JSON form */
	}
	return 0;
}

static void put_bound(dl_json_writer *w, const leaf_stats *s, bool is_max, dl_buf *tmp)
{
	const pq_stat_value *v = is_max ? &s->max : &s->min;
	dl_stats_put_bound(w, s->type, v->i, v->d, v->dec, (const char *)v->s, v->len, is_max, tmp);
}

typedef enum pass { PASS_MIN, PASS_MAX, PASS_NULLS } pass;

static bool leaf_has(const leaf_stats *s, pass p)
{
	if (!s->indexed || !s->type) return false;
	return p == PASS_NULLS ? s->nulls : s->bounds;
}

/* Whether the subtree rooted at type t (starting at leaf *leaf) has a
 * value in pass p; advances *leaf past it. */
static bool subtree_has(const leaf_stats *ls, int nleaves, int *leaf, const dl_type *t, pass p)
{
	if (t->nchildren == 0 || t->id != DL_TYPE_STRUCT) {
		if (t->id == DL_TYPE_ARRAY || t->id == DL_TYPE_MAP || t->id == DL_TYPE_VARIANT) {
			for (int i = 0; i < t->nchildren; i++) subtree_has(ls, nleaves, leaf, t->children[i].type, p);
			return false;
		}
		bool has = *leaf < nleaves && leaf_has(&ls[*leaf], p);
		(*leaf)++;
		return has;
	}
	bool any = false;
	for (int i = 0; i < t->nchildren; i++) any |= subtree_has(ls, nleaves, leaf, t->children[i].type, p);
	return any;
}

static void write_struct(dl_json_writer *w, const leaf_stats *ls, int nleaves, int *leaf, const dl_type *st,
                         pass p, dl_buf *tmp)
{
	dl_jw_object_begin(w);
	for (int i = 0; i < st->nchildren; i++) {
		const dl_field *f = &st->children[i];
		if (f->type->id == DL_TYPE_STRUCT && f->type->nchildren > 0) {
			int probe = *leaf;
			if (subtree_has(ls, nleaves, &probe, f->type, p)) {
				dl_jw_key(w, f->name);
				write_struct(w, ls, nleaves, leaf, f->type, p, tmp);
			} else {
				*leaf = probe;
			}
			continue;
		}
		int probe = *leaf;
		bool has = subtree_has(ls, nleaves, &probe, f->type, p);
		if (has) {
			dl_jw_key(w, f->name);
			if (p == PASS_NULLS) dl_jw_int(w, ls[*leaf].null_count);
			else put_bound(w, &ls[*leaf], p == PASS_MAX, tmp);
		}
		*leaf = probe;
	}
	dl_jw_object_end(w);
}

static int stats_json(char **out, const pq_reader *r, int indexed_cols)
{
	*out = NULL;
	const dl_type *schema = pq_reader_schema(r);
	int nleaves = pq_reader_num_leaves(r);
	leaf_stats *ls = dl_calloc((size_t)(nleaves ? nleaves : 1), sizeof *ls);
	if (!ls) return DL_ENOMEM;
	int leaf = 0, counted = 0;
	mark(ls, nleaves, &leaf, &counted, schema, false, indexed_cols);
	int rc = leaf == nleaves ? collect(ls, r, nleaves)
	                         : dl_error_set(DL_ECORRUPT, "the file's schema has %d leaves, its columns %d",
	                                        leaf, nleaves);
	dl_buf b = DL_BUF_INIT, tmp = DL_BUF_INIT;
	if (rc == 0) {
		dl_json_writer w;
		dl_jw_init(&w, &b);
		dl_jw_object_begin(&w);
		dl_jw_key(&w, "numRecords");
		dl_jw_int(&w, pq_reader_num_rows(r));
		static const char *const keys[] = {"minValues", "maxValues", "nullCount"};
		for (int p = PASS_MIN; p <= PASS_NULLS; p++) {
			dl_jw_key(&w, keys[p]);
			int l = 0;
			write_struct(&w, ls, nleaves, &l, schema, (pass)p, &tmp);
		}
		dl_jw_object_end(&w);
		rc = dl_jw_finish(&w);
	}
	if (rc == 0) rc = dl_buf_putc(&b, 0);
	if (rc == 0) *out = (char *)b.data;
	else dl_buf_free(&b);
	dl_buf_free(&tmp);
	dl_free(ls);
	return rc;
}

int dl_convert_read_footer(dl_convert_footer *out, dl_store *store, const char *path, int64_t size,
                           bool stats, int indexed_cols)
{
	memset(out, 0, sizeof *out);
	pq_reader *r;
	int rc = pq_reader_open_store(&r, store, path, size);
	if (rc < 0) return dl_error_prefix("CONVERT TO DELTA: reading the Parquet footer of %s", path);
	out->num_rows = pq_reader_num_rows(r);
	out->schema = dl_type_ref((dl_type *)pq_reader_schema(r));
	if (!out->schema) rc = DL_ENOMEM;
	if (rc == 0 && stats) {
		rc = stats_json(&out->stats, r, indexed_cols);
		if (rc < 0) dl_error_prefix("CONVERT TO DELTA: statistics of %s", path);
	}
	pq_reader_free(r);
	if (rc < 0) dl_convert_footer_free(out);
	return rc;
}

void dl_convert_footer_free(dl_convert_footer *f)
{
	if (f->schema) dl_type_unref(f->schema);
	dl_free(f->stats);
	memset(f, 0, sizeof *f);
}
