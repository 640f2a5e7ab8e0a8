/* Constraints and generated columns reading a widened column
 * (type_change_deps.h). */
#include "ops/type_change_deps.h"
#include <string.h>
#include <strings.h>
#include "expr/expr.h"
#include "log/properties.h"
#include "log/schema.h"
#include "util/buf.h"
#include "util/error.h"

#define MAX_DEPTH 64

typedef struct ref_check {
	const char *const *parts;
	int n;
	bool hit;
} ref_check;

/* A reference to the column, a field under it or a struct above it. */
static int column_ref(const char *const *path, int depth, void *payload)
{
	ref_check *d = payload;
	int m = depth < d->n ? depth : d->n;
	for (int i = 0; i < m; i++)
		if (strcasecmp(path[i], d->parts[i]) != 0) return 0;
	d->hit = true;
	return 0;
}

/* Unparsable text counts as not referencing: it was checked when stored. */
static bool references(const char *sql, const char *const *parts, int n)
{
	dl_expr *e;
	if (dl_expr_parse(&e, sql) < 0) {
		dl_error_clear();
		return false;
	}
	ref_check d = {parts, n, false};
	if (dl_expr_columns(e, column_ref, &d) < 0) dl_error_clear();
	dl_expr_free(e);
	return d.hit;
}

typedef struct dep_list {
	const char *const *parts;
	int n;
	dl_buf *out;
} dep_list;

static int constraint_ref(const char *name, const char *expression, void *payload)
{
	dep_list *l = payload;
	if (references(expression, l->parts, l->n))
		dl_buf_printf(l->out, "%sdelta.constraints.%s -> %s", l->out->len ? "\n" : "", name, expression);
	return 0;
}

int dl_column_dependents(const dl_type *schema, const dl_str_map *configuration, const char *const *parts, int n,
                         dl_buf *constraints, dl_buf *generated)
{
	dep_list l = {parts, n, constraints};
	DL_TRY(dl_table_constraints_each(configuration, constraint_ref, &l));
	dl_arena ar = DL_ARENA_INIT;
	for (int i = 0; i < schema->nchildren; i++) {
		const char *gen = NULL;
		if (dl_field_generation_expression(&schema->children[i], &ar, &gen) < 0) {
			dl_error_clear();
			continue;
		}
		if (gen && references(gen, parts, n))
			dl_buf_printf(generated, "%s%s -> %s", generated->len ? "\n" : "", schema->children[i].name, gen);
	}
	dl_arena_free(&ar);
	return 0;
}

static int check_column(const dl_type *schema, const dl_str_map *config, const char *const *parts, int n,
                        const dl_type *from, const dl_type *to)
{
	dl_buf cons = DL_BUF_INIT, gen = DL_BUF_INIT, col = DL_BUF_INIT;
	char a[256], b[256];
	dl_type_sql(from, a, sizeof a);
	dl_type_sql(to, b, sizeof b);
	dl_field_path_text(&col, parts, n);
	int rc = dl_column_dependents(schema, config, parts, n, &cons, &gen);
	if (rc == 0 && cons.len)
		rc = dl_error_set_class(DL_ECONSTRAINT, "DELTA_CONSTRAINT_DATA_TYPE_MISMATCH",
		                        "[DELTA_CONSTRAINT_DATA_TYPE_MISMATCH] Column %s has data type %s and "
		                        "cannot be altered to data type %s because this column is referenced "
		                        "by the following check constraint(s):\n%s",
		                        col.data, a, b, cons.data);
	if (rc == 0 && gen.len)
		rc = dl_error_set_class(DL_ECONSTRAINT, "DELTA_GENERATED_COLUMNS_DATA_TYPE_MISMATCH",
		                        "[DELTA_GENERATED_COLUMNS_DATA_TYPE_MISMATCH] Column %s has data type %s "
		                        "and cannot be altered to data type %s because this column is "
		                        "referenced by the following generated column(s):\n%s",
		                        col.data, a, b, gen.data);
	dl_buf_free(&col);
	dl_buf_free(&cons);
	dl_buf_free(&gen);
	return rc;
}

/* Whether o became e by a type change (not just by new struct fields). */
static bool widened(const dl_type *o, const dl_type *e, int depth)
{
	if (depth > MAX_DEPTH) return false;
	if (o->id == DL_TYPE_STRUCT && e->id == DL_TYPE_STRUCT) {
		for (int i = 0; i < e->nchildren; i++) {
			int k = dl_type_field_index(o, e->children[i].name);
			if (k >= 0 && widened(o->children[k].type, e->children[i].type, depth + 1)) return true;
		}
		return false;
	}
	if ((o->id == DL_TYPE_ARRAY || o->id == DL_TYPE_MAP) && o->id == e->id) {
		for (int i = 0; i < o->nchildren; i++)
			if (widened(o->children[i].type, e->children[i].type, depth + 1)) return true;
		return false;
	}
	return !dl_type_equals(o, e);
}

static int walk(const dl_type *schema, const dl_str_map *config, const dl_type *o, const dl_type *e,
                const char **parts, int depth)
{
	for (int i = 0; i < e->nchildren && depth < MAX_DEPTH; i++) {
		int k = dl_type_field_index(o, e->children[i].name);
		if (k < 0) continue;
		const dl_type *ot = o->children[k].type, *et = e->children[i].type;
		parts[depth] = o->children[k].name;
		if (ot->id == DL_TYPE_STRUCT && et->id == DL_TYPE_STRUCT) {
			DL_TRY(walk(schema, config, ot, et, parts, depth + 1));
		} else if (widened(ot, et, 0)) {
			DL_TRY(check_column(schema, config, parts, depth + 1, ot, et));
		}
	}
	return 0;
}

int dl_type_changes_check_dependents(const dl_type *old, const dl_type *evolved, const dl_str_map *configuration)
{
	const char *parts[MAX_DEPTH];
	return walk(old, configuration, old, evolved, parts, 0);
}
