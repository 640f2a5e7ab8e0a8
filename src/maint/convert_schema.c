/* The table schema of CONVERT TO DELTA from the files' schemas, as Spark's
 * ParquetFileFormat.mergeSchemasInParallel does it with StructType.merge:
 * fields are matched by name, fields only one side has are appended in
 * the order met, structs merge recursively, arrays and maps merge their
 * element, key and value types, and any other pair of types must be equal
 * (decimals: same precision and scale), else CANNOT_MERGE_INCOMPATIBLE_DATA_TYPE.
 * Every field comes out nullable (file-source schemas are read as nullable)
 * and without the files' field metadata (Parquet field ids are not Delta
 * column mapping ids). */
#include <string.h>
#include "maint/convert_internal.h"
#include "util/error.h"
#include "util/mem.h"

dl_type *dl_convert_as_nullable(const dl_type *t)
{
	switch (t->id) {
	case DL_TYPE_STRUCT: {
		dl_field *f = dl_calloc((size_t)(t->nchildren ? t->nchildren : 1), sizeof *f);
		if (!f) return NULL;
		bool ok = true;
		for (int i = 0; i < t->nchildren && ok; i++) {
			f[i].name = t->children[i].name;
			f[i].nullable = true;
			f[i].type = dl_convert_as_nullable(t->children[i].type);
			ok = f[i].type != NULL;
		}
		dl_type *s = ok ? dl_type_struct(f, t->nchildren) : NULL;
		for (int i = 0; i < t->nchildren; i++)
			if (f[i].type) dl_type_unref(f[i].type);
		dl_free(f);
		return s;
	}
	case DL_TYPE_ARRAY: {
		dl_type *e = dl_convert_as_nullable(t->children[0].type);
		dl_type *a = e ? dl_type_array(e, true) : NULL;
		if (e) dl_type_unref(e);
		return a;
	}
	case DL_TYPE_MAP: {
		dl_type *k = dl_convert_as_nullable(t->children[0].type);
		dl_type *v = k ? dl_convert_as_nullable(t->children[1].type) : NULL;
		dl_type *m = v ? dl_type_map(k, v, true) : NULL;
		if (k) dl_type_unref(k);
		if (v) dl_type_unref(v);
		return m;
	}
	default:
		return dl_type_ref((dl_type *)t);
	}
}

static int incompatible(const dl_type *a, const dl_type *b, const char *col, const char *fa, const char *fb)
{
	char ta[128], tb[128];
	dl_type_name(a, ta, sizeof ta);
	dl_type_name(b, tb, sizeof tb);
	return dl_error_set_class(DL_ESCHEMA, "CANNOT_MERGE_INCOMPATIBLE_DATA_TYPE",
	                          "[CANNOT_MERGE_INCOMPATIBLE_DATA_TYPE] Failed to merge incompatible data "
	                          "types \"%s\" and \"%s\" (column %s: %s in %s, %s in %s). Please check the data "
	                          "types of the columns being merged and ensure that they are compatible.",
	                          ta, tb, col, ta, fa, tb, fb);
}

/* Both already nullable-normalized; *out a new reference. */
static int merge(dl_type **out, const dl_type *a, const dl_type *b, const char *col, const char *fa,
                 const char *fb)
{
	*out = NULL;
	if (a->id != b->id) return incompatible(a, b, col, fa, fb);
	if (a->id == DL_TYPE_STRUCT) {
		int cap = a->nchildren + b->nchildren;
		dl_field *f = dl_calloc((size_t)(cap ? cap : 1), sizeof *f);
		if (!f) return DL_ENOMEM;
		int n = 0, rc = 0;
		for (int i = 0; i < a->nchildren && rc == 0; i++) {
			const dl_field *af = &a->children[i];
			f[n].name = af->name;
			f[n].nullable = true;
			int j = dl_type_field_index(b, af->name);
			if (j >= 0 && strcmp(b->children[j].name, af->name) != 0) j = -1;
			if (j >= 0) rc = merge(&f[n].type, af->type, b->children[j].type, af->name, fa, fb);
			else if (!(f[n].type = dl_type_ref(af->type))) rc = DL_ENOMEM;
			n++;
		}
		for (int j = 0; j < b->nchildren && rc == 0; j++) {
			const dl_field *bf = &b->children[j];
			int i = dl_type_field_index(a, bf->name);
			if (i >= 0 && strcmp(a->children[i].name, bf->name) == 0) continue;
			f[n].name = bf->name;
			f[n].nullable = true;
			if (!(f[n].type = dl_type_ref(bf->type))) rc = DL_ENOMEM;
			n++;
		}
		if (rc == 0 && !(*out = dl_type_struct(f, n))) rc = DL_ENOMEM;
		for (int i = 0; i < n; i++)
			if (f[i].type) dl_type_unref(f[i].type);
		dl_free(f);
		return rc;
	}
	if (a->id == DL_TYPE_ARRAY) {
		dl_type *e;
		DL_TRY(merge(&e, a->children[0].type, b->children[0].type, col, fa, fb));
		*out = dl_type_array(e, true);
		dl_type_unref(e);
		return *out ? 0 : DL_ENOMEM;
	}
	if (a->id == DL_TYPE_MAP) {
		dl_type *k, *v;
		DL_TRY(merge(&k, a->children[0].type, b->children[0].type, col, fa, fb));
		int rc = merge(&v, a->children[1].type, b->children[1].type, col, fa, fb);
		if (rc == 0) {
			*out = dl_type_map(k, v, true);
			dl_type_unref(v);
			if (!*out) rc = DL_ENOMEM;
		}
		dl_type_unref(k);
		return rc;
	}
	if (!dl_type_equals(a, b)) return incompatible(a, b, col, fa, fb);
	*out = dl_type_ref((dl_type *)a);
	return *out ? 0 : DL_ENOMEM;
}

int dl_convert_merge_schema(dl_type **acc, const dl_type *next, const char *acc_file, const char *next_file)
{
	dl_type *n = dl_convert_as_nullable(next);
	if (!n) return DL_ENOMEM;
	if (!*acc) {
		*acc = n;
		return 0;
	}
	dl_type *m;
	int rc = merge(&m, *acc, n, "<root>", acc_file, next_file);
	dl_type_unref(n);
	if (rc < 0) return rc;
	dl_type_unref(*acc);
	*acc = m;
	return 0;
}
