/* Relabelling arrays with a type of the same layout: column mapping turns
 * physical field names (col-5f3a...) into logical ones, at every nesting
 * level, and schemas carry nullability and metadata the data does not
 * depend on. The buffers stay; only the type references change. */
#include <string.h>
#include "columnar/array.h"
#include "util/error.h"

/* Same physical layout: ids, decimal parameters and child counts match all
 * the way down (names, nullability and metadata may differ). */
static bool same_layout(const dl_type *a, const dl_type *b)
{
	if (a->id != b->id || a->nchildren != b->nchildren) return false;
	if (a->id == DL_TYPE_DECIMAL && (a->precision != b->precision || a->scale != b->scale)) return false;
	for (int i = 0; i < a->nchildren; i++)
		if (!same_layout(a->children[i].type, b->children[i].type)) return false;
	return true;
}

static int retype(dl_array *a, dl_type *t)
{
	if (a->type->id == DL_TYPE_MAP) {
		/* The entries struct takes the new key/value names and types. */
		dl_field f[2] = {t->children[0], t->children[1]};
		f[0].nullable = false;
		dl_type *entries = dl_type_struct(f, 2);
		if (!entries) return DL_ENOMEM;
		int rc = retype(a->children[0], entries);
		dl_type_unref(entries);
		DL_TRY(rc);
	} else {
		for (int i = 0; i < a->nchildren; i++) DL_TRY(retype(a->children[i], t->children[i].type));
	}
	dl_type *old = a->type;
	a->type = dl_type_ref(t);
	dl_type_unref(old);
	return 0;
}

int dl_array_set_type(dl_array *a, dl_type *type)
{
	if (!same_layout(a->type, type)) {
		char have[128], want[128];
		dl_type_sql(a->type, have, sizeof have);
		dl_type_sql(type, want, sizeof want);
		return dl_error_set(DL_ESCHEMA, "cannot relabel %s as %s: the layouts differ", have, want);
	}
	return retype(a, type);
}

int dl_batch_set_schema(dl_batch *b, dl_type *schema)
{
	if (schema->id != DL_TYPE_STRUCT || schema->nchildren != b->ncols)
		return dl_error_set(DL_ESCHEMA, "schema of %d fields for a batch of %d columns",
		                    schema->id == DL_TYPE_STRUCT ? schema->nchildren : 0, b->ncols);
	for (int i = 0; i < b->ncols; i++) {
		if (!b->cols[i] || !same_layout(b->cols[i]->type, schema->children[i].type))
			return dl_error_set(DL_ESCHEMA, "column %d ('%s') does not have the layout of field '%s'", i,
			                    b->schema->children[i].name, schema->children[i].name);
	}
	for (int i = 0; i < b->ncols; i++) DL_TRY(retype(b->cols[i], schema->children[i].type));
	dl_type *old = b->schema;
	b->schema = dl_type_ref(schema);
	dl_type_unref(old);
	return 0;
}
