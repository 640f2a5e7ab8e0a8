/* Statistics coverage and range overlap of a snapshot's files
 * (deltalake/stats_summary.h), for `deltalake ui`'s health views. The
 * leaves of the logical schema are listed with their physical stats paths
 * (column mapping), then every live file's stats JSON is parsed once and
 * each leaf looked up in minValues, maxValues and nullCount. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "deltalake/stats_summary.h"
#include "json/json.h"
#include "log/schema.h"
#include "log/snapshot.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

typedef struct leaf {
	dl_stats_column c;
	const char **phys; /* physical path parts */
	int depth;
} leaf;

struct dl_stats_summary {
	dl_snapshot *snap;
	dl_arena arena;
	leaf *leaves;
	size_t nleaves, cap;
	int64_t files, with_stats;
};

static int add_leaf(dl_stats_summary *s, const char *logical, const char **phys, int depth, const dl_type *t)
{
	if (s->nleaves == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		leaf *n = dl_reallocarray(s->leaves, cap, sizeof *n);
		if (!n) return DL_ENOMEM;
		s->leaves = n;
		s->cap = cap;
	}
	leaf *l = &s->leaves[s->nleaves];
	memset(l, 0, sizeof *l);
	l->phys = dl_arena_alloc(&s->arena, sizeof(char *) * (size_t)depth);
	dl_buf b = {0};
	int rc = l->phys ? 0 : DL_ENOMEM;
	for (int i = 0; rc == 0 && i < depth; i++) {
		l->phys[i] = phys[i];
		if (i) rc = dl_buf_putc(&b, '.');
		if (rc == 0) rc = dl_buf_puts(&b, phys[i]);
	}
	char type[128];
	dl_type_name(t, type, sizeof type);
	l->c.column = dl_arena_strdup(&s->arena, logical);
	l->c.physical = rc == 0 ? dl_arena_strdup(&s->arena, b.data ? b.data : "") : NULL;
	l->c.type = dl_arena_strdup(&s->arena, type);
	dl_buf_free(&b);
	if (rc == 0 && (!l->c.column || !l->c.physical || !l->c.type)) rc = DL_ENOMEM;
	l->depth = depth;
	if (rc == 0) s->nleaves++;
	return rc;
}

/* The leaves under struct `st`: `prefix` is the logical path so far, phys
 * the physical parts (depth of them). */
static int walk(dl_stats_summary *s, const dl_type *st, dl_column_mapping_mode mode, const char *prefix,
                const char **phys, int depth)
{
	if (depth >= 64) return 0; /* deeper nesting has no stats worth showing */
	for (int i = 0; i < st->nchildren; i++) {
		const dl_field *f = &st->children[i];
		const char *p = NULL;
		DL_TRY(dl_field_physical_name(f, mode, &s->arena, &p));
		size_t n = strlen(prefix) + strlen(f->name) + 2;
		char *name = dl_arena_alloc(&s->arena, n);
		if (!name) return DL_ENOMEM;
		snprintf(name, n, "%s%s%s", prefix, *prefix ? "." : "", f->name);
		phys[depth] = p;
		dl_type_id id = f->type->id;
		if (id == DL_TYPE_STRUCT) DL_TRY(walk(s, f->type, mode, name, phys, depth + 1));
		else if (id != DL_TYPE_ARRAY && id != DL_TYPE_MAP && id != DL_TYPE_VARIANT)
			DL_TRY(add_leaf(s, name, phys, depth + 1, f->type));
	}
	return 0;
}

static const dl_json *at_path(const dl_json *obj, const char *const *path, int depth)
{
	for (int i = 0; i < depth && obj; i++) {
		if (obj->kind != DL_JSON_OBJECT) return NULL;
		obj = dl_json_get(obj, path[i]);
	}
	return obj;
}

/* Parses the stats of file i into `a` (reset by the caller); *out NULL
 * when the file has none. */
static int file_stats(const dl_json **out, dl_arena *a, const dl_snapshot *snap, size_t i)
{
	dl_file_info fi;
	DL_TRY(dl_snapshot_file_at(&fi, snap, i));
	*out = NULL;
	if (!fi.stats || !*fi.stats) return 0;
	dl_json *v = NULL;
	int rc = dl_json_parse(a, fi.stats, strlen(fi.stats), "stats", &v);
	if (rc < 0) {
		char why[512];
		snprintf(why, sizeof why, "%s", dl_error_last()->message);
		return dl_error_set(rc, "the stats of data file %s: %s", fi.path, why);
	}
	if (v->kind != DL_JSON_OBJECT)
		return dl_error_set(DL_ECORRUPT, "the stats of data file %s are not a JSON object", fi.path);
	*out = v;
	return 0;
}

int dl_stats_summary_open(dl_stats_summary **out, dl_snapshot *snap)
{
	*out = NULL;
	dl_stats_summary *s = dl_calloc(1, sizeof *s);
	if (!s) return DL_ENOMEM;
	s->snap = snap;
	const char *phys[64];
	int rc = 0;
	const dl_type *schema = dl_snapshot_schema(snap);
	if (schema) rc = walk(s, schema, dl_snapshot_props(snap)->column_mapping_mode, "", phys, 0);
	size_t n = dl_snapshot_file_count(snap);
	s->files = (int64_t)n;
	dl_arena a = DL_ARENA_INIT;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const dl_json *st = NULL;
		dl_arena_reset(&a);
		rc = file_stats(&st, &a, snap, i);
		if (rc < 0 || !st) continue;
		if (dl_json_get(st, "numRecords")) s->with_stats++;
		const dl_json *mins = dl_json_get(st, "minValues"), *maxs = dl_json_get(st, "maxValues"),
		              *nulls = dl_json_get(st, "nullCount");
		for (size_t j = 0; j < s->nleaves; j++) {
			leaf *l = &s->leaves[j];
			const dl_json *v;
			if (mins && (v = at_path(mins, l->phys, l->depth)) && v->kind != DL_JSON_OBJECT) l->c.files_with_min++;
			if (maxs && (v = at_path(maxs, l->phys, l->depth)) && v->kind != DL_JSON_OBJECT) l->c.files_with_max++;
			if (nulls && (v = at_path(nulls, l->phys, l->depth)) && v->kind == DL_JSON_NUMBER)
				l->c.files_with_null_count++;
		}
	}
	dl_arena_free(&a);
	if (rc < 0) {
		dl_stats_summary_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

void dl_stats_summary_free(dl_stats_summary *s)
{
	if (!s) return;
	free(s->leaves);
	dl_arena_free(&s->arena);
	free(s);
}

int64_t dl_stats_summary_file_count(const dl_stats_summary *s) { return s->files; }
int64_t dl_stats_summary_files_with_stats(const dl_stats_summary *s) { return s->with_stats; }
size_t dl_stats_summary_column_count(const dl_stats_summary *s) { return s->nleaves; }

int dl_stats_summary_column_at(dl_stats_column *out, const dl_stats_summary *s, size_t i)
{
	if (i >= s->nleaves) return dl_error_set(DL_EINVALID, "stats column %zu out of range (%zu)", i, s->nleaves);
	*out = s->leaves[i].c;
	return 0;
}

int dl_stats_summary_find(size_t *out, const dl_stats_summary *s, const char *column)
{
	for (size_t i = 0; i < s->nleaves; i++)
		if (strcasecmp(s->leaves[i].c.column, column) == 0) {
			*out = i;
			return 0;
		}
	return dl_error_set(DL_ENOTFOUND, "no column '%s' with statistics", column);
}

/* A bound: numbers by value, other values by their text. */
typedef struct bound {
	bool is_num;
	double num;
	const char *text;
	size_t len;
} bound;

static int bound_cmp(const bound *a, const bound *b)
{
	if (a->is_num && b->is_num) return (a->num > b->num) - (a->num < b->num);
	if (a->is_num != b->is_num) return a->is_num ? -1 : 1;
	size_t n = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->text, b->text, n);
	return c ? c : (a->len > b->len) - (a->len < b->len);
}

static int bound_qcmp(const void *x, const void *y) { return bound_cmp(x, y); }

static int to_bound(bound *out, const dl_json *v, dl_arena *keep)
{
	memset(out, 0, sizeof *out);
	if (v->kind == DL_JSON_NUMBER) {
		char tmp[64];
		size_t n = v->u.num.len < sizeof tmp - 1 ? v->u.num.len : sizeof tmp - 1;
		memcpy(tmp, v->u.num.ptr, n);
		tmp[n] = 0;
		out->is_num = true;
		out->num = strtod(tmp, NULL);
		return 0;
	}
	if (v->kind != DL_JSON_STRING) return 1;
	out->text = dl_arena_strndup(keep, v->u.str.ptr, v->u.str.len);
	out->len = v->u.str.len;
	return out->text ? 0 : DL_ENOMEM;
}

int dl_stats_summary_overlap(dl_overlap_depth *out, const dl_stats_summary *s, size_t column)
{
	memset(out, 0, sizeof *out);
	if (column >= s->nleaves)
		return dl_error_set(DL_EINVALID, "stats column %zu out of range (%zu)", column, s->nleaves);
	const leaf *l = &s->leaves[column];
	size_t n = dl_snapshot_file_count(s->snap), nb = 0;
	bound *mins = dl_calloc(n ? n : 1, sizeof *mins), *maxs = dl_calloc(n ? n : 1, sizeof *maxs);
	dl_arena a = DL_ARENA_INIT, keep = DL_ARENA_INIT;
	int rc = mins && maxs ? 0 : DL_ENOMEM;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const dl_json *st = NULL;
		dl_arena_reset(&a);
		rc = file_stats(&st, &a, s->snap, i);
		if (rc < 0 || !st) continue;
		const dl_json *lo = at_path(dl_json_get(st, "minValues"), l->phys, l->depth);
		const dl_json *hi = at_path(dl_json_get(st, "maxValues"), l->phys, l->depth);
		if (!lo || !hi) continue;
		int r1 = to_bound(&mins[nb], lo, &keep), r2 = r1 == 0 ? to_bound(&maxs[nb], hi, &keep) : 1;
		if (r1 < 0 || r2 < 0) rc = DL_ENOMEM;
		else if (r1 == 0 && r2 == 0 && bound_cmp(&mins[nb], &maxs[nb]) <= 0) nb++;
	}
	dl_arena_free(&a);
	if (rc == 0 && nb > 0) {
		qsort(mins, nb, sizeof *mins, bound_qcmp);
		qsort(maxs, nb, sizeof *maxs, bound_qcmp);
		/* Sweep the distinct bounds in order: at bound v the point piece
		 * is covered by the files open before it plus those starting at v;
		 * the gap after v by those still open after the ones ending at v. */
		size_t i = 0, j = 0;
		int64_t open = 0, pieces = 0, sum = 0, maxd = 0;
		while (i < nb || j < nb) {
			const bound *v = i < nb && bound_cmp(&mins[i], &maxs[j]) <= 0 ? &mins[i] : &maxs[j];
			while (i < nb && bound_cmp(&mins[i], v) == 0) open++, i++;
			int64_t depths[2] = {open, 0};
			while (j < nb && bound_cmp(&maxs[j], v) == 0) open--, j++;
			depths[1] = (i < nb || j < nb) ? open : 0;
			for (int k = 0; k < 2; k++) {
				if (depths[k] <= 0) continue;
				pieces++;
				sum += depths[k];
				if (depths[k] > maxd) maxd = depths[k];
				out->histogram[depths[k] > 16 ? 16 : depths[k] - 1]++;
			}
		}
		out->files = (int64_t)nb;
		out->pieces = pieces;
		out->average_depth = pieces ? (double)sum / (double)pieces : 0;
		out->max_depth = maxd;
	}
	dl_arena_free(&keep);
	free(mins);
	free(maxs);
	return rc;
}
