/* Filling computed columns and checking the row rules of a write (see
 * enforce.h). Expressions are bound once to the table schema and
 * evaluated per batch, vectorized. */
#include "ops/enforce.h"
#include <stdio.h>
#include <string.h>
#include "columnar/format_value.h"
#include "expr/expr.h"
#include "json/json.h"
#include "log/properties.h"
#include "log/schema.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

typedef enum col_kind { COL_PLAIN, COL_GENERATED, COL_IDENTITY, COL_DEFAULT } col_kind;

typedef struct col_rule {
	col_kind kind;
	dl_expr *value;       /* generated / default: CAST((expr) AS type) */
	dl_expr *check;       /* generated: col <=> CAST((expr) AS type) */
	char *text;           /* the generation expression, for messages */
	dl_identity_info id;
	int64_t next;         /* identity: next value to hand out */
	bool used;            /* identity values handed out */
} col_rule;

typedef struct check_rule {
	char *name;
	char *sql;
	dl_expr *e;
} check_rule;

struct dl_enforcer {
	const dl_type *schema;
	col_rule *cols;
	check_rule *checks;
	int nchecks, checks_cap;
	dl_eval_ctx ctx;
	dl_selection sel;
};

static int bind_sql(dl_expr **out, const char *sql, const dl_type *schema, const char *what)
{
	int rc = dl_expr_parse(out, sql);
	if (rc == 0) rc = dl_expr_bind(*out, schema);
	if (rc < 0) {
		dl_expr_free(*out);
		*out = NULL;
		return dl_error_prefix("%s", what);
	}
	return 0;
}

/* Appends `name` as a back-quoted identifier. */
static int quote_ident(dl_buf *b, const char *name)
{
	DL_TRY(dl_buf_putc(b, '`'));
	for (const char *p = name; *p; p++) {
		if (*p == '`') DL_TRY(dl_buf_putc(b, '`'));
		DL_TRY(dl_buf_putc(b, *p));
	}
	return dl_buf_putc(b, '`');
}

static int computed_rule(col_rule *r, const dl_field *f, const char *expr, const dl_type *schema,
                         bool with_check)
{
	char type[256], what[300];
	dl_type_sql(f->type, type, sizeof type);
	dl_buf b = DL_BUF_INIT;
	int rc = dl_buf_printf(&b, "CAST((%s) AS %s)", expr, type);
	snprintf(what, sizeof what, "%s of column %s", with_check ? "generation expression" : "default",
	         f->name);
	if (rc == 0) rc = bind_sql(&r->value, b.data, schema, what);
	if (rc == 0 && with_check) {
		dl_buf_clear(&b);
		rc = quote_ident(&b, f->name);
		if (rc == 0) rc = dl_buf_printf(&b, " <=> CAST((%s) AS %s)", expr, type);
		if (rc == 0) rc = bind_sql(&r->check, b.data, schema, what);
		if (rc == 0) r->text = dl_strdup(expr);
		if (rc == 0 && !r->text) rc = DL_ENOMEM;
	}
	dl_buf_free(&b);
	return rc;
}

static int add_check(const char *name, const char *expression, void *payload);

/* Legacy column invariants (delta.invariants, writer version 2) are checked
 * like CHECK constraints, for top-level columns. */
static int invariant_rules(dl_enforcer *e, dl_arena *a)
{
	for (int i = 0; i < e->schema->nchildren; i++) {
		const dl_field *f = &e->schema->children[i];
		const char *inv = NULL;
		if (!f->metadata || !strstr(f->metadata, DL_INVARIANTS_KEY)) continue;
		DL_TRY(dl_field_invariant(f, a, &inv));
		if (!inv) continue;
		char name[300];
		snprintf(name, sizeof name, "Invariant on column %s", f->name);
		DL_TRY(add_check(name, inv, e));
	}
	return 0;
}

static int column_rules(dl_enforcer *e)
{
	const dl_type *s = e->schema;
	dl_arena a = DL_ARENA_INIT;
	int rc = 0;
	for (int i = 0; i < s->nchildren && rc == 0; i++) {
		const dl_field *f = &s->children[i];
		col_rule *r = &e->cols[i];
		const char *gen = NULL, *def = NULL;
		rc = dl_field_generation_expression(f, &a, &gen);
		if (rc == 0) rc = dl_field_default_expression(f, &a, &def);
		if (rc == 0) rc = dl_field_identity(f, &r->id);
		if (rc < 0) break;
		if (gen) {
			r->kind = COL_GENERATED;
			rc = computed_rule(r, f, gen, s, true);
		} else if (r->id.is_identity) {
			r->kind = COL_IDENTITY;
			r->next = r->id.has_high_water_mark ? r->id.high_water_mark + r->id.step : r->id.start;
		} else if (def) {
			r->kind = COL_DEFAULT;
			rc = computed_rule(r, f, def, s, false);
		}
	}
	if (rc == 0) rc = invariant_rules(e, &a);
	dl_arena_free(&a);
	return rc;
}

static int add_check(const char *name, const char *expression, void *payload)
{
	dl_enforcer *e = payload;
	if (e->nchecks == e->checks_cap) {
		int cap = e->checks_cap ? e->checks_cap * 2 : 4;
		check_rule *c = dl_reallocarray(e->checks, (size_t)cap, sizeof *c);
		if (!c) return DL_ENOMEM;
		e->checks = c;
		e->checks_cap = cap;
	}
	check_rule *c = &e->checks[e->nchecks];
	memset(c, 0, sizeof *c);
	char what[300];
	snprintf(what, sizeof what, "CHECK constraint %s", name);
	c->name = dl_strdup(name);
	c->sql = dl_strdup(expression);
	if (!c->name || !c->sql) {
		dl_free(c->name);
		dl_free(c->sql);
		return DL_ENOMEM;
	}
	e->nchecks++;
	return bind_sql(&c->e, expression, e->schema, what);
}

int dl_enforcer_new(dl_enforcer **out, const dl_type *schema, const dl_str_map *configuration)
{
	dl_enforcer *e = dl_calloc(1, sizeof *e);
	if (!e) return DL_ENOMEM;
	e->schema = schema;
	e->cols = dl_calloc((size_t)schema->nchildren + 1, sizeof *e->cols);
	int rc = e->cols ? column_rules(e) : DL_ENOMEM;
	if (rc == 0) rc = dl_table_constraints_each(configuration, add_check, e);
	if (rc < 0) {
		dl_enforcer_free(e);
		return rc;
	}
	*out = e;
	return 0;
}

void dl_enforcer_free(dl_enforcer *e)
{
	if (!e) return;
	for (int i = 0; e->cols && i < e->schema->nchildren; i++) {
		dl_expr_free(e->cols[i].value);
		dl_expr_free(e->cols[i].check);
		dl_free(e->cols[i].text);
	}
	for (int i = 0; i < e->nchecks; i++) {
		dl_free(e->checks[i].name);
		dl_free(e->checks[i].sql);
		dl_expr_free(e->checks[i].e);
	}
	dl_free(e->checks);
	dl_free(e->cols);
	dl_selection_free(&e->sel);
	dl_free(e);
}

static int identity_values(col_rule *r, dl_array **out, dl_type *t, int64_t n)
{
	dl_array *a = dl_array_new(t, n);
	if (!a) return dl_error_last()->code;
	int64_t *v = a->values;
	for (int64_t i = 0; i < n; i++) {
		v[i] = r->next;
		if (__builtin_add_overflow(r->next, r->id.step, &r->next)) {
			dl_array_free(a);
			return dl_error_set(DL_ECONSTRAINT,
			                    "identity column values overflowed a long; the column cannot "
			                    "take more rows");
		}
	}
	r->used = n > 0 || r->used;
	*out = a;
	return 0;
}

int dl_enforcer_fill(dl_enforcer *e, dl_batch *b, const bool *provided)
{
	for (int i = 0; i < e->schema->nchildren; i++) {
		col_rule *r = &e->cols[i];
		if (provided[i] || r->kind == COL_PLAIN) continue;
		dl_array *a = NULL;
		if (r->kind == COL_IDENTITY)
			DL_TRY(identity_values(r, &a, e->schema->children[i].type, b->num_rows));
		else
			DL_TRY(dl_expr_eval(&a, r->value, b, &e->ctx));
		dl_array_free(b->cols[i]);
		b->cols[i] = a;
	}
	return 0;
}

typedef struct fmt_ctx {
	const dl_type *schema;
	const dl_batch *b;
	int64_t row;
	dl_buf *msg;
} fmt_ctx;

static int fmt_column(const char *const *path, int depth, void *payload)
{
	fmt_ctx *c = payload;
	int k = dl_schema_find(c->schema, path[0]);
	if (k < 0) return 0;
	const dl_array *a = c->b->cols[k];
	DL_TRY(dl_buf_puts(c->msg, "\n - "));
	for (int i = 0; i < depth; i++) DL_TRY(dl_buf_printf(c->msg, "%s%s", i ? "." : "", path[i]));
	DL_TRY(dl_buf_puts(c->msg, " : "));
	/* Nested paths: walk struct children while the names resolve. */
	for (int i = 1; i < depth && a && a->type->id == DL_TYPE_STRUCT; i++) {
		int j = dl_type_field_index(a->type, path[i]);
		a = j < 0 ? NULL : a->children[j];
	}
	if (!a) return dl_buf_puts(c->msg, "?");
	return dl_format_value(c->msg, a, c->row);
}

/* The rows of b where `check` is not TRUE: the first one, or -1. */
static int first_violation(dl_enforcer *e, const dl_expr *check, const dl_batch *b, int64_t *row)
{
	DL_TRY(dl_expr_filter(&e->sel, check, b, &e->ctx));
	*row = -1;
	if (e->sel.count == b->num_rows) return 0;
	int64_t i = 0;
	while (i < e->sel.count && e->sel.idx[i] == (uint32_t)i) i++;
	*row = i;
	return 0;
}

static int violation(const dl_type *schema, const dl_batch *b, int64_t row, const dl_expr *e,
                     const char *what)
{
	dl_buf msg = DL_BUF_INIT;
	fmt_ctx c = {schema, b, row, &msg};
	int rc = dl_expr_columns(e, fmt_column, &c);
	rc = dl_error_set_class(DL_ECONSTRAINT, "DELTA_VIOLATE_CONSTRAINT_WITH_VALUES", "%s violated by row with values:%s", what,
	                  rc == 0 && msg.data ? msg.data : " (unavailable)");
	dl_buf_free(&msg);
	return rc;
}

/* NOT NULL of nested fields: a null child of a valid parent. */
static int nested_not_null(const dl_array *a, const dl_type *t, const uint8_t *parent_valid,
                           dl_buf *path, int64_t *bad_row)
{
	if (t->id != DL_TYPE_STRUCT) return 0;
	size_t base = path->len;
	for (int i = 0; i < t->nchildren; i++) {
		const dl_array *c = a->children[i];
		path->len = base;
		if (path->data) path->data[base] = 0;
		DL_TRY(dl_buf_printf(path, ".%s", t->children[i].name));
		for (int64_t r = 0; r < a->length; r++) {
			bool pv = dl_array_is_valid(a, r) && (!parent_valid || dl_bit_get(parent_valid, r));
			if (!t->children[i].nullable && pv && !dl_array_is_valid(c, r)) {
				*bad_row = r;
				return 1;
			}
		}
		int rc = nested_not_null(c, t->children[i].type, NULL, path, bad_row);
		if (rc) return rc;
	}
	path->len = base;
	if (path->data) path->data[base] = 0;
	return 0;
}

static int check_not_null(const dl_enforcer *e, const dl_batch *b)
{
	for (int i = 0; i < e->schema->nchildren; i++) {
		const dl_field *f = &e->schema->children[i];
		dl_array *a = b->cols[i];
		if (!f->nullable && dl_array_null_count(a) > 0)
			return dl_error_set_class(DL_ECONSTRAINT, "DELTA_NOT_NULL_CONSTRAINT_VIOLATED", "NOT NULL constraint violated for column: %s",
			                    f->name);
		if (f->type->id != DL_TYPE_STRUCT) continue;
		dl_buf path = DL_BUF_INIT;
		int64_t row = -1;
		int rc = dl_buf_puts(&path, f->name);
		if (rc == 0) rc = nested_not_null(a, f->type, NULL, &path, &row);
		if (rc == 1)
			rc = dl_error_set_class(DL_ECONSTRAINT, "DELTA_NOT_NULL_CONSTRAINT_VIOLATED", "NOT NULL constraint violated for column: %s",
			                  path.data);
		dl_buf_free(&path);
		DL_TRY(rc);
	}
	return 0;
}

int dl_enforcer_check(dl_enforcer *e, const dl_batch *b, const bool *provided)
{
	if (b->num_rows == 0) return 0;
	DL_TRY(check_not_null(e, b));
	for (int i = 0; i < e->schema->nchildren; i++) {
		col_rule *r = &e->cols[i];
		const char *name = e->schema->children[i].name;
		if (r->kind == COL_IDENTITY && provided[i] && !r->id.allow_explicit_insert)
			return dl_error_set(DL_ECONSTRAINT,
			                    "providing values for GENERATED ALWAYS AS IDENTITY column %s is "
			                    "not supported; leave the column out of the data",
			                    name);
		if (r->kind != COL_GENERATED || !provided[i]) continue;
		int64_t row;
		DL_TRY(first_violation(e, r->check, b, &row));
		if (row >= 0) {
			char what[600];
			snprintf(what, sizeof what, "CHECK constraint Generated Column (`%s` <=> %s)", name,
			         r->text);
			return violation(e->schema, b, row, r->check, what);
		}
	}
	for (int i = 0; i < e->nchecks; i++) {
		int64_t row;
		DL_TRY(first_violation(e, e->checks[i].e, b, &row));
		if (row >= 0) {
			char what[600];
			snprintf(what, sizeof what, "CHECK constraint %s %s", e->checks[i].name,
			         e->checks[i].sql);
			return violation(e->schema, b, row, e->checks[i].e, what);
		}
	}
	return 0;
}

bool dl_enforcer_identity_used(const dl_enforcer *e)
{
	for (int i = 0; i < e->schema->nchildren; i++)
		if (e->cols[i].kind == COL_IDENTITY && e->cols[i].used) return true;
	return false;
}

bool dl_schema_has_identity(const dl_type *schema)
{
	for (int i = 0; i < schema->nchildren; i++) {
		const char *m = schema->children[i].metadata;
		if (m && strstr(m, DL_IDENTITY_START_KEY)) return true;
	}
	return false;
}

/* Field metadata with delta.identity.highWaterMark set to hwm. */
static int meta_with_hwm(const char *meta, int64_t hwm, char **out)
{
	dl_arena a = DL_ARENA_INIT;
	dl_json *root;
	int rc = dl_json_parse(&a, meta, strlen(meta), "field metadata", &root);
	dl_buf b = DL_BUF_INIT;
	if (rc == 0) {
		dl_json_writer w;
		dl_jw_init(&w, &b);
		dl_jw_object_begin(&w);
		for (size_t i = 0; root->kind == DL_JSON_OBJECT && i < root->u.obj.n; i++) {
			const dl_json_member *m = &root->u.obj.items[i];
			if (strcmp(m->key, DL_IDENTITY_HWM_KEY) == 0) continue;
			dl_buf v = DL_BUF_INIT;
			rc = dl_json_write(&v, &m->value);
			if (rc == 0) {
				dl_jw_key(&w, m->key);
				dl_jw_raw(&w, v.data);
			}
			dl_buf_free(&v);
			if (rc < 0) break;
		}
		dl_jw_key(&w, DL_IDENTITY_HWM_KEY);
		dl_jw_int(&w, hwm);
		dl_jw_object_end(&w);
		if (rc == 0) rc = dl_jw_finish(&w);
	}
	dl_arena_free(&a);
	if (rc < 0) {
		dl_buf_free(&b);
		return rc;
	}
	*out = dl_buf_detach(&b, NULL);
	return 0;
}

int dl_enforcer_schema_with_hwm(const dl_enforcer *e, dl_type **out)
{
	const dl_type *s = e->schema;
	dl_field *fs = dl_calloc((size_t)s->nchildren + 1, sizeof *fs);
	char **metas = dl_calloc((size_t)s->nchildren + 1, sizeof *metas);
	int rc = fs && metas ? 0 : DL_ENOMEM;
	for (int i = 0; i < s->nchildren && rc == 0; i++) {
		fs[i] = s->children[i];
		const col_rule *r = &e->cols[i];
		if (r->kind == COL_IDENTITY && r->used) {
			rc = meta_with_hwm(fs[i].metadata ? fs[i].metadata : "{}", r->next - r->id.step,
			                   &metas[i]);
			fs[i].metadata = metas[i];
		}
	}
	if (rc == 0) {
		*out = dl_type_struct(fs, s->nchildren);
		if (!*out) rc = DL_ENOMEM;
	}
	for (int i = 0; metas && i < s->nchildren; i++) dl_free(metas[i]);
	dl_free(metas);
	dl_free(fs);
	return rc;
}
