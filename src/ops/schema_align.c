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

static int merge_type(dl_type **out, bool *changed, const dl_type *t, const dl_type *d,
                      bool merge, bool widen, const char *path, int depth);

static int merge_struct(dl_type **out, bool *changed, const dl_type *t, const dl_type *d,
                        bool merge, bool widen, const char *path, int depth)
{
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
		else rc = merge_type(&fs[i].type, changed, tf->type, d->children[k].type,
		                     merge, widen, sub, depth + 1);
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

static int merge_type(dl_type **out, bool *changed, const dl_type *t, const dl_type *d,
                      bool merge, bool widen, const char *path, int depth)
{
	if (depth > 256) return dl_error_set(DL_ESCHEMA, "the data is nested too deeply");
	if (d->id == DL_TYPE_NULL) { /* NullType data fits anything */
		*out = dl_type_ref((dl_type *)t);
		return 0;
	}
	if (t->id == DL_TYPE_NULL) {
		if (!merge) return mismatch(path, t, d);
		*out = dl_type_ref((dl_type *)d);
		*changed = true;
		return 0;
	}
	if (t->id == DL_TYPE_STRUCT && d->id == DL_TYPE_STRUCT)
		return merge_struct(out, changed, t, d, merge, widen, path, depth);
	if ((t->id == DL_TYPE_ARRAY || t->id == DL_TYPE_MAP) && t->id == d->id) {
		dl_type *c[2] = {NULL, NULL};
		int rc = 0;
		for (int i = 0; i < t->nchildren && rc == 0; i++)
			rc = merge_type(&c[i], changed, t->children[i].type, d->children[i].type, merge,
			                widen, path, depth + 1);
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
	if (merge && widen && dl_type_change_automatic(t, d)) {
		*out = dl_type_ref((dl_type *)d);
		*changed = true;
		return 0;
	}
	return mismatch(path, t, d);
}

int dl_schema_merge(dl_type **out, bool *changed, const dl_type *table, const dl_type *data,
                    bool merge_schema, bool type_widening)
{
	*changed = false;
	dl_type *merged;
	DL_TRY(merge_type(&merged, changed, table, data, merge_schema, type_widening, "", 0));
	if (!*changed || !type_widening || merged->id != DL_TYPE_STRUCT) {
		*out = merged;
		return 0;
	}
	/* each widening joins its field's delta.typeChanges, inside arrays and
	 * maps too (with its fieldPath) */
	int rc = dl_type_changes_record(out, table, merged);
	dl_type_unref(merged);
	return rc;
}

