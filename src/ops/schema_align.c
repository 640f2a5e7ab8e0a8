/* Checking and merging the schema of written data, and conforming batches
 * to the table schema (see schema_align.h). */
#include "ops/schema_align.h"
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "columnar/builder.h"
#include "columnar/name_index.h"
#include "ops/type_change_meta.h"
#include "util/error.h"
#include "util/mem.h"

int dl_data_column(const dl_type *data, const char *name)
{
	for (int i = 0; i < data->nchildren; i++)
		if (strcasecmp(data->children[i].name, name) == 0) return i;
	return -1;
}

static int mismatch(const char *path, const dl_type *table, const dl_type *data)
{
	char a[128], b[128];
	if (table->id == DL_TYPE_NULL) {
		dl_type_sql(data, b, sizeof b);
		return dl_error_set(DL_ESCHEMA,
		                    "column %s has no type yet (NullType) in the table and %s in the data; "
		                    "merge the schema to give it the data's type",
		                    path, b);
	}
	dl_type_sql(table, a, sizeof a);
	dl_type_sql(data, b, sizeof b);
	return dl_error_set(DL_ESCHEMA,
	                    "a schema mismatch was detected when writing to the Delta table: column "
	                    "%s has type %s in the table but %s in the data; cast the data to %s%s",
	                    path, a, b, a,
	                    dl_type_widens_to(table, data)
	                        ? ", or enable type widening (delta.enableTypeWidening = true) and "
	                          "merge the schema"
	                        : "");
}

/* How one walk pairs the table's type with the data's. */
typedef struct walk {
	bool merge;            /* mergeSchema: new columns, narrower data, widening */
	const dl_widening *w;  /* the widenings allowed (NULL: none) */
	/* INSERT's store assignment (dl_type_store_widened): structs pair by
	 * position when their names agree in order, and a pair that neither
	 * fits nor widens keeps the table's type (the cast decides) */
	bool store;
} walk;

static int merge_type(dl_type **out, bool *changed, const dl_type *t, const dl_type *d, const walk *k,
                      const char *path, int depth);

/* Structs by position (the store walk): fields of the same names in the
 * same order, else NULL (the table's struct is kept). */
static bool same_names(const dl_type *t, const dl_type *d)
{
	if (t->nchildren != d->nchildren) return false;
	for (int i = 0; i < t->nchildren; i++)
		if (strcasecmp(t->children[i].name, d->children[i].name) != 0) return false;
	return true;
}

static int merge_struct(dl_type **out, bool *changed, const dl_type *t, const dl_type *d, const walk *wk,
                        const char *path, int depth)
{
	if (wk->store && !same_names(t, d)) {
		*out = dl_type_ref((dl_type *)t);
		return 0;
	}
	bool merge = wk->merge;
	/* name lookups through indexes: a wide schema is matched in linear time */
	dl_name_index di, ti;
	DL_TRY(dl_name_index_init(&di, d));
	int dj, dk;
	if (dl_name_index_duplicate(&di, &dj, &dk)) {
		dl_name_index_free(&di);
		return dl_error_set(DL_ESCHEMA,
		                    "the data has columns differing only by case: '%s' and '%s'%s%s; "
		                    "Delta column names are case-insensitive, rename one",
		                    d->children[dj].name, d->children[dk].name, *path ? " in " : "", path);
	}
	int rc = dl_name_index_init(&ti, t);
	if (rc < 0) {
		dl_name_index_free(&di);
		return rc;
	}
	int n = t->nchildren, extra = 0;
	dl_field *fs = dl_calloc((size_t)(n + d->nchildren) + 1, sizeof *fs);
	char sub[512];
	if (!fs) {
		dl_name_index_free(&di);
		dl_name_index_free(&ti);
		return DL_ENOMEM;
	}
	for (int i = 0; i < n && rc == 0; i++) {
		const dl_field *tf = &t->children[i];
		fs[i] = *tf;
		fs[i].type = NULL;
		int k = dl_name_index_find_ci(&di, tf->name);
		snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "." : "", tf->name);
		if (k < 0) fs[i].type = dl_type_ref(tf->type);
		else rc = merge_type(&fs[i].type, changed, tf->type, d->children[wk->store ? i : k].type, wk, sub,
		                     depth + 1);
	}
	for (int k = 0; k < d->nchildren && rc == 0; k++) {
		if (dl_name_index_find_ci(&ti, d->children[k].name) >= 0) continue;
		if (!merge) {
			rc = dl_error_set(DL_ESCHEMA,
			                  "a schema mismatch was detected when writing to the Delta table: "
			                  "the data has column %s%s%s, which the table does not have; to add "
			                  "it, enable schema evolution (merge schema)",
			                  path, *path ? "." : "", d->children[k].name);
			break;
		}
		fs[n + extra] = d->children[k];
		fs[n + extra].nullable = true; /* existing rows have no value */
		fs[n + extra].metadata = (char *)"{}";
		fs[n + extra].type = dl_type_ref(d->children[k].type);
		extra++;
		*changed = true;
	}
	if (rc == 0) {
		*out = dl_type_struct(fs, n + extra);
		if (!*out) rc = DL_ENOMEM;
	}
	for (int i = 0; i < n + extra; i++) dl_type_unref(fs[i].type);
	dl_free(fs);
	dl_name_index_free(&di);
	dl_name_index_free(&ti);
	return rc;
}

static int merge_type(dl_type **out, bool *changed, const dl_type *t, const dl_type *d, const walk *wk,
                      const char *path, int depth)
{
	bool merge = wk->merge;
	if (depth > 256) return dl_error_set(DL_ESCHEMA, "the data is nested too deeply");
	if (d->id == DL_TYPE_NULL) { /* NullType data fits anything */
		*out = dl_type_ref((dl_type *)t);
		return 0;
	}
	if (t->id == DL_TYPE_NULL) {
		if (wk->store) {
			*out = dl_type_ref((dl_type *)t);
			return 0;
		}
		if (!merge) return mismatch(path, t, d);
		*out = dl_type_ref((dl_type *)d);
		*changed = true;
		return 0;
	}
	if (t->id == DL_TYPE_STRUCT && d->id == DL_TYPE_STRUCT)
		return merge_struct(out, changed, t, d, wk, path, depth);
	if ((t->id == DL_TYPE_ARRAY || t->id == DL_TYPE_MAP) && t->id == d->id) {
		dl_type *c[2] = {NULL, NULL};
		int rc = 0;
		for (int i = 0; i < t->nchildren && rc == 0; i++)
			rc = merge_type(&c[i], changed, t->children[i].type, d->children[i].type, wk, path, depth + 1);
		if (rc == 0) {
			*out = t->id == DL_TYPE_ARRAY ? dl_type_array(c[0], t->children[0].nullable)
			                              : dl_type_map(c[0], c[1], t->children[1].nullable);
			if (!*out) rc = DL_ENOMEM;
		}
		dl_type_unref(c[0]);
		dl_type_unref(c[1]);
		return rc;
	}
	if (dl_type_equals(t, d) || (t->id == d->id && dl_type_is_primitive(t) &&
	                             (t->id != DL_TYPE_DECIMAL ||
	                              (t->precision == d->precision && t->scale == d->scale)))) {
		*out = dl_type_ref((dl_type *)t);
		return 0;
	}
	if (merge && dl_type_widens_to(d, t)) { /* narrower data: kept as the table type */
		*out = dl_type_ref((dl_type *)t);
		return 0;
	}
	if (merge && dl_widening_allows(wk->w, t, d)) {
		*out = dl_type_ref((dl_type *)d);
		*changed = true;
		return 0;
	}
	if (wk->store) { /* cast to the table's type */
		*out = dl_type_ref((dl_type *)t);
		return 0;
	}
	return mismatch(path, t, d);
}

int dl_type_store_widened(dl_type **out, const dl_type *to, const dl_type *from, const dl_widening *w)
{
	bool changed = false;
	walk k = {true, w, true};
	return merge_type(out, &changed, to, from, &k, "", 0);
}

int dl_schema_merge(dl_type **out, bool *changed, const dl_type *table, const dl_type *data,
                    bool merge_schema, const dl_widening *widen)
{
	*changed = false;
	dl_type *merged;
	walk k = {merge_schema, widen, false};
	DL_TRY(merge_type(&merged, changed, table, data, &k, "", 0));
	if (!*changed || !widen || merged->id != DL_TYPE_STRUCT) {
		*out = merged;
		return 0;
	}
	/* each widening joins its field's delta.typeChanges, inside arrays and
	 * maps too (with its fieldPath) */
	int rc = dl_type_changes_record(out, table, merged);
	dl_type_unref(merged);
	return rc;
}

