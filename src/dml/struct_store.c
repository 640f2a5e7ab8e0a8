/* Store assignment of structs, as Spark's UpdateExpressionsSupport
 * .castIfNeeded with resolveMergeUpdateStructsByName (its default) and
 * merge.preserveNullSourceStructs (on in Spark's test suites):
 *
 *   IF(e IS NULL [AND orig IS NULL], NULL,
 *      named_struct('f1', <e.f1 stored into f1's type>, ...))
 *
 * for every field of the column's type, in its order: the value's field
 * of that name (any case), else the old value's (orig), else NULL. Other
 * types differing are a CAST (ANSI). The text is SQL for the expression
 * parser: field access on any expression is `(e).`f``. */
#include "dml/struct_store.h"
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "util/error.h"
#include "util/mem.h"

bool dl_dml_same_type(const dl_type *a, const dl_type *b)
{
	if (a->id != b->id || a->nchildren != b->nchildren) return false;
	if (a->id == DL_TYPE_DECIMAL && (a->precision != b->precision || a->scale != b->scale)) return false;
	for (int i = 0; i < a->nchildren; i++) {
		if (a->id == DL_TYPE_STRUCT && strcasecmp(a->children[i].name, b->children[i].name) != 0)
			return false;
		if (!dl_dml_same_type(a->children[i].type, b->children[i].type)) return false;
	}
	return true;
}

/* Whether `to` has struct fields `from` lacks, at any depth of structs in
 * structs (Spark's hasExtraStructFieldsToPreserveValue). */
static bool extra_fields(const dl_type *from, const dl_type *to)
{
	for (int i = 0; i < to->nchildren; i++) {
		int k = dl_type_field_index(from, to->children[i].name);
		if (k < 0) return true;
		const dl_type *a = from->children[k].type, *b = to->children[i].type;
		if (a->id == DL_TYPE_STRUCT && b->id == DL_TYPE_STRUCT && extra_fields(a, b)) return true;
	}
	return false;
}

static int mismatch(const dl_type *from, const dl_type *to, const char *col)
{
	char a[2048], b[2048];
	dl_type_sql(from, a, sizeof a);
	dl_type_sql(to, b, sizeof b);
	return dl_error_set_class(DL_EINVALID, "DELTA_UPDATE_SCHEMA_MISMATCH_EXPRESSION",
	                          "[DELTA_UPDATE_SCHEMA_MISMATCH_EXPRESSION] Cannot cast %s to %s. All "
	                          "nested columns must match (column %s).",
	                          a, b, col);
}

/* "(e).`f`" (malloc'd). */
static char *field_of(const char *e, const char *f)
{
	dl_buf b = DL_BUF_INIT;
	dl_buf_printf(&b, "(%s).", e);
	dl_dml_sql_ident(&b, f);
	return b.data;
}

void dl_dml_sql_ident(dl_buf *b, const char *name)
{
	dl_buf_putc(b, '`');
	for (const char *p = name; *p; p++) {
		if (*p == '`') dl_buf_putc(b, '`');
		dl_buf_putc(b, *p);
	}
	dl_buf_putc(b, '`');
}

void dl_dml_sql_string(dl_buf *b, const char *s)
{
	dl_buf_putc(b, '\'');
	for (const char *p = s; *p; p++) {
		if (*p == '\'' || *p == '\\') dl_buf_putc(b, '\\');
		dl_buf_putc(b, *p);
	}
	dl_buf_putc(b, '\'');
}

int dl_dml_cast_sql(dl_buf *b, const char *e, const dl_type *to, const char *col)
{
	char ts[4096];
	dl_type_sql(to, ts, sizeof ts);
	DL_TRY(dl_buf_printf(b, "__check_overflow_in_table_write((%s), CAST(NULL AS %s), ", e, ts));
	dl_dml_sql_string(b, col ? col : "");
	return dl_buf_putc(b, ')');
}

bool dl_dml_has_struct(const dl_type *t)
{
	if (t->id == DL_TYPE_STRUCT) return true;
	if (t->id != DL_TYPE_ARRAY && t->id != DL_TYPE_MAP) return false;
	for (int i = 0; i < t->nchildren; i++)
		if (dl_dml_has_struct(t->children[i].type)) return true;
	return false;
}

/* The checks of Spark's castIfNeeded on the structs inside arrays and
 * maps (the by-name store itself is __store_by_name): every field of a
 * value's struct must exist in the column's, and without schema evolution
 * they must be as many. */
static int check_nested(const dl_type *from, const dl_type *to, bool evolve, const char *col)
{
	if (dl_dml_same_type(from, to)) return 0;
	if (from->id == DL_TYPE_STRUCT && to->id == DL_TYPE_STRUCT) {
		for (int i = 0; i < from->nchildren; i++)
			if (dl_type_field_index(to, from->children[i].name) < 0) return mismatch(from, to, col);
		if (from->nchildren != to->nchildren && !evolve) return mismatch(from, to, col);
		for (int i = 0; i < to->nchildren; i++) {
			int k = dl_type_field_index(from, to->children[i].name);
			if (k >= 0) DL_TRY(check_nested(from->children[k].type, to->children[i].type, evolve, col));
		}
		return 0;
	}
	if ((from->id == DL_TYPE_ARRAY || from->id == DL_TYPE_MAP) && from->id == to->id) {
		for (int i = 0; i < to->nchildren; i++)
			DL_TRY(check_nested(from->children[i].type, to->children[i].type, evolve, col));
		return 0;
	}
	if (dl_dml_has_struct(from) || dl_dml_has_struct(to)) return mismatch(from, to, col);
	return 0;
}

int dl_dml_store_sql(dl_buf *b, const char *e, const dl_type *from, const dl_type *to,
                     const char *orig, const dl_type *otype, bool evolve, const char *col)
{
	char ts[4096];
	dl_type_sql(to, ts, sizeof ts);
	if (!e || !from || from->id == DL_TYPE_NULL) return dl_buf_printf(b, "CAST(NULL AS %s)", ts);
	if (dl_dml_same_type(from, to)) return dl_buf_printf(b, "(%s)", e);
	if (from->id != DL_TYPE_STRUCT || to->id != DL_TYPE_STRUCT) {
		/* structs inside arrays and maps: Spark stores them by name with a
		 * lambda over the elements (transform, transform_keys,
		 * transform_values); __store_by_name does the same in one pass */
		if (dl_dml_has_struct(from) || dl_dml_has_struct(to)) {
			DL_TRY(check_nested(from, to, evolve, col));
			DL_TRY(dl_buf_printf(b, "__store_by_name((%s), CAST(NULL AS %s), ", e, ts));
			dl_dml_sql_string(b, col ? col : "");
			return dl_buf_putc(b, ')');
		}
		return dl_dml_cast_sql(b, e, to, col);
	}
	for (int i = 0; i < from->nchildren; i++)
		if (dl_type_field_index(to, from->children[i].name) < 0) return mismatch(from, to, col);
	if (from->nchildren != to->nchildren && !evolve) return mismatch(from, to, col);
	if (!otype || otype->id != DL_TYPE_STRUCT) orig = NULL;
	/* the old value matters to the NULL test only when it has fields the
	 * value lacks (their values would be lost) */
	bool keep = orig && extra_fields(from, to);
	DL_TRY(dl_buf_printf(b, "IF((%s) IS NULL", e));
	if (keep) DL_TRY(dl_buf_printf(b, " AND (%s) IS NULL", orig));
	DL_TRY(dl_buf_printf(b, ", CAST(NULL AS %s), named_struct(", ts));
	int rc = 0;
	for (int i = 0; rc == 0 && i < to->nchildren; i++) {
		const dl_field *f = &to->children[i];
		int sf = dl_type_field_index(from, f->name);
		int of = orig ? dl_type_field_index(otype, f->name) : -1;
		char *child_orig = of >= 0 ? field_of(orig, otype->children[of].name) : NULL;
		char *child = sf >= 0 ? field_of(e, from->children[sf].name) : NULL;
		const dl_type *ct = sf >= 0 ? from->children[sf].type : of >= 0 ? otype->children[of].type : NULL;
		if ((of >= 0 && !child_orig) || (sf >= 0 && !child)) rc = DL_ENOMEM;
		if (rc == 0 && i) rc = dl_buf_puts(b, ", ");
		if (rc == 0) {
			dl_dml_sql_string(b, f->name);
			rc = dl_buf_puts(b, ", ");
		}
		if (rc == 0)
			rc = dl_dml_store_sql(b, sf >= 0 ? child : child_orig, ct, f->type, child_orig,
			                      of >= 0 ? otype->children[of].type : NULL, evolve, f->name);
		dl_free(child);
		dl_free(child_orig);
	}
	if (rc == 0) rc = dl_buf_puts(b, "))");
	return rc;
}
