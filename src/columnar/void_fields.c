/* Void fields of written columns (void_fields.h). */
#include "columnar/void_fields.h"
#include <stdio.h>
#include <string.h>
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

#define MAX_DEPTH 256

static bool holds_void(const dl_type *t, int depth)
{
	if (t->id == DL_TYPE_NULL) return true;
	for (int i = 0; depth < MAX_DEPTH && i < t->nchildren; i++)
		if (holds_void(t->children[i].type, depth + 1)) return true;
	return false;
}

/* The column path as Spark's UnresolvedAttribute names it: parts joined
 * by '.', a part holding '.' or '`' quoted in backquotes. */
static void path_push(dl_buf *b, const char *name)
{
	if (b->len) dl_buf_putc(b, '.');
	if (!strchr(name, '.') && !strchr(name, '`')) {
		dl_buf_puts(b, name);
		return;
	}
	dl_buf_putc(b, '`');
	for (const char *p = name; *p; p++) {
		if (*p == '`') dl_buf_putc(b, '`');
		dl_buf_putc(b, *p);
	}
	dl_buf_putc(b, '`');
}

static int check_struct(const dl_type *st, dl_buf *path, int depth)
{
	for (int i = 0; i < st->nchildren; i++) {
		const dl_field *f = &st->children[i];
		size_t at = path->len;
		path_push(path, f->name);
		int rc = 0;
		if (f->type->id == DL_TYPE_STRUCT && depth < MAX_DEPTH) {
			rc = check_struct(f->type, path, depth + 1);
		} else if ((f->type->id == DL_TYPE_ARRAY || f->type->id == DL_TYPE_MAP) && holds_void(f->type, 0)) {
			rc = dl_error_set_class(DL_ESCHEMA, "DELTA_COMPLEX_TYPE_COLUMN_CONTAINS_NULL_TYPE",
			                        "[DELTA_COMPLEX_TYPE_COLUMN_CONTAINS_NULL_TYPE] Found nested NullType "
			                        "in column %s which is of %s. Delta doesn't support writing NullType "
			                        "in complex types.",
			                        path->data ? path->data : "",
			                        f->type->id == DL_TYPE_ARRAY ? "ArrayType" : "MapType");
		}
		path->len = at;
		if (path->data) path->data[at] = 0;
		if (rc < 0) return rc;
	}
	return 0;
}

int dl_void_check_complex(const dl_type *schema)
{
	if (!schema || schema->id != DL_TYPE_STRUCT || !holds_void(schema, 0)) return 0;
	dl_buf path = DL_BUF_INIT;
	int rc = check_struct(schema, &path, 0);
	dl_buf_free(&path);
	return rc;
}

bool dl_void_has_fields(const dl_type *t)
{
	if (t->id != DL_TYPE_STRUCT) return false;
	for (int i = 0; i < t->nchildren; i++)
		if (t->children[i].type->id == DL_TYPE_NULL || dl_void_has_fields(t->children[i].type)) return true;
	return false;
}

int dl_void_drop_fields(dl_type **out, const dl_type *t, const char *path)
{
	*out = NULL;
	if (!dl_void_has_fields(t)) {
		*out = dl_type_ref((dl_type *)t);
		return 0;
	}
	dl_field *fs = dl_calloc((size_t)t->nchildren + 1, sizeof *fs);
	dl_type **owned = dl_calloc((size_t)t->nchildren + 1, sizeof *owned);
	int n = 0, rc = fs && owned ? 0 : DL_ENOMEM;
	char sub[1024];
	for (int i = 0; rc == 0 && i < t->nchildren; i++) {
		const dl_field *f = &t->children[i];
		if (f->type->id == DL_TYPE_NULL) continue;
		snprintf(sub, sizeof sub, "%s.%s", path, f->name);
		rc = dl_void_drop_fields(&owned[n], f->type, sub);
		if (rc < 0) break;
		fs[n] = *f;
		fs[n].type = owned[n];
		n++;
	}
	if (rc == 0 && n == 0)
		rc = dl_error_set_class(DL_ESCHEMA, "DELTA_CANNOT_WRITE_EMPTY_SCHEMA.STRUCT_ALL_VOID_FIELDS",
		                        "[DELTA_CANNOT_WRITE_EMPTY_SCHEMA.STRUCT_ALL_VOID_FIELDS] The Delta table "
		                        "is not writable because parts of the schema are not supported. Reason: "
		                        "The column `%s` is a struct where all fields have VOID type.",
		                        path);
	if (rc == 0 && !(*out = dl_type_struct(fs, n))) rc = dl_error_last()->code;
	for (int i = 0; i < n; i++) dl_type_unref(owned[i]);
	dl_free(owned);
	dl_free(fs);
	return rc;
}
