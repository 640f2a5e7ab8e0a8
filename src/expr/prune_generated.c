/* Partition filters from filters on the base columns of generated partition
 * columns (Delta's OptimizablePartitionExpression rules):
 *   CAST(col AS DATE), date_format(col, <ordered pattern>), date_trunc(u,
 *   col), trunc(col, u), substring(col, 1, n) and year(col) are
 *   non-decreasing in col, so col < v and col <= v give part <= f(v);
 *   col > v and col >= v give part >= f(v); col = v gives part = f(v);
 *   col IN (..) gives part IN (f(..)).
 *   year/month/day/hour partitions of one column form a tuple compared
 *   lexicographically (year=2020/month=10/day=01 layouts).
 * Only top-level conjuncts of the filter are used, so the derived filter is
 * implied by the original and skipping with it is sound. Generation
 * expressions are evaluated in the filter's bind time zone. */
#include "expr/eval.h"
#include "json/json.h"
#include "util/error.h"
#include "util/mem.h"
#include <string.h>
#include <strings.h>

enum { G_MONO = 1, G_YEAR, G_MONTH, G_DAY, G_HOUR };

typedef struct gen_col {
	const char *name;   /* the partition column */
	int kind;
	int base;           /* top-level index of the base column */
	dl_expr *expr;      /* bound generation expression */
	const dl_eval_ctx *ctx; /* the filter's session settings */
} gen_col;

static bool ordered_pattern(const char *p, size_t n)
{
	/* fixed-width fields in decreasing significance: y M d H m s */
	static const char order[] = "yMdHms";
	int last = -1;
	for (size_t i = 0; i < n;) {
		char c = p[i];
		size_t k = i;
		while (k < n && p[k] == c) k++;
		const char *pos = strchr(order, c);
		if (pos && c) {
			int idx = (int)(pos - order);
			size_t w = k - i;
			if (idx <= last || (c == 'y' && w != 4) || (c != 'y' && w != 2)) return false;
			last = idx;
		} else if (((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) || c == '\'') {
			return false;
		}
		i = k;
	}
	return last >= 0;
}

/* The top-level column under n, looking through the implicit DATE <->
 * TIMESTAMP casts the binder puts around date/time arguments (both are
 * non-decreasing). */
static int base_of(const ex_node *n)
{
	while (n->kind == EX_CAST && !n->flag) {
		dl_type_id f = n->args[0]->type->id, t = n->type->id;
		bool dt = (f == DL_TYPE_DATE || f == DL_TYPE_TIMESTAMP || f == DL_TYPE_TIMESTAMP_NTZ) &&
		          (t == DL_TYPE_DATE || t == DL_TYPE_TIMESTAMP || t == DL_TYPE_TIMESTAMP_NTZ);
		if (!dt) break;
		n = n->args[0];
	}
	return n->kind == EX_COL && n->npath == 1 ? n->colidx[0] : -1;
}

/* Classifies a bound generation expression. */
static int classify(const ex_node *n, int *base)
{
	*base = -1;
	if (n->kind == EX_CAST && n->type->id == DL_TYPE_DATE && !n->flag) {
		const ex_node *a = n->args[0];
		if (a->type->id == DL_TYPE_TIMESTAMP || a->type->id == DL_TYPE_TIMESTAMP_NTZ || a->type->id == DL_TYPE_DATE)
			*base = base_of(a);
		return *base >= 0 ? G_MONO : 0;
	}
	if (n->kind != EX_CALL) return 0;
	const char *f = n->fn->name;
	if (!strcmp(f, "year") || !strcmp(f, "month") || !strcmp(f, "day") || !strcmp(f, "dayofmonth") || !strcmp(f, "hour")) {
		*base = base_of(n->args[0]);
		if (*base < 0) return 0;
		return f[0] == 'y' ? G_YEAR : f[0] == 'm' ? G_MONTH : f[0] == 'h' ? G_HOUR : G_DAY;
	}
	if (!strcmp(f, "date_format") && n->args[1]->kind == EX_LIT && !n->args[1]->lit.is_null &&
	    ordered_pattern(n->args[1]->lit.v.str.ptr, n->args[1]->lit.v.str.len)) {
		*base = base_of(n->args[0]);
		return *base >= 0 ? G_MONO : 0;
	}
	if (!strcmp(f, "date_trunc") && n->args[0]->kind == EX_LIT) {
		*base = base_of(n->args[1]);
		return *base >= 0 ? G_MONO : 0;
	}
	if (!strcmp(f, "trunc") && n->args[1]->kind == EX_LIT) {
		*base = base_of(n->args[0]);
		return *base >= 0 ? G_MONO : 0;
	}
	if ((!strcmp(f, "substring") || !strcmp(f, "substr")) && n->nargs == 3 && n->args[1]->kind == EX_LIT &&
	    n->args[1]->lit.v.i64 == 1 && n->args[2]->kind == EX_LIT) {
		*base = base_of(n->args[0]);
		return *base >= 0 ? G_MONO : 0;
	}
	return 0;
}

static int load_gen(gen_col *g, const dl_type *schema, const char *pname, const dl_eval_ctx *ctx)
{
	memset(g, 0, sizeof *g);
	g->ctx = ctx;
	int k = dl_type_field_index(schema, pname);
	if (k < 0) return 0;
	const char *meta = schema->children[k].metadata;
	if (!meta || !*meta) return 0;
	dl_arena arena = DL_ARENA_INIT;
	dl_json *j;
	int rc = dl_json_parse(&arena, meta, strlen(meta), "column metadata", &j);
	const char *text = rc == 0 ? dl_json_get_str(j, "delta.generationExpression") : NULL;
	if (rc < 0) dl_error_clear();
	rc = 0;
	if (text && dl_expr_parse(&g->expr, text) == 0 && dl_expr_bind_ctx(g->expr, schema, ctx) == 0) {
		g->kind = classify(g->expr->bound, &g->base);
		g->name = schema->children[k].name;
	} else {
		dl_error_clear();
	}
	if (!g->kind) {
		dl_expr_free(g->expr);
		g->expr = NULL;
	}
	dl_arena_free(&arena);
	return rc;
}

/* f(v): the generation expression on a one-row batch whose base column
 * holds v. */
static int gen_value(dl_buf *out, const gen_col *g, const dl_type *schema, const dl_scalar *v)
{
	dl_batch *b = dl_batch_new((dl_type *)schema, 1);
	if (!b) return DL_ENOMEM;
	ex_val x;
	ex_val_from_scalar(&x, v);
	dl_array *col;
	int rc = ex_const_array(&col, schema->children[g->base].type, &x);
	if (rc == 0) {
		dl_array_free(b->cols[g->base]);
		b->cols[g->base] = col;
		dl_array *res;
		rc = dl_expr_eval(&res, g->expr, b, g->ctx);
		if (rc == 0) {
			ex_val r;
			dl_scalar s;
			ex_val_load(&r, res, 0);
			ex_scalar_from_val(&s, &r, res->type);
			rc = s.is_null ? DL_EINVALID : ex_print_scalar(out, &s);
			dl_array_free(res);
		}
	}
	dl_batch_free(b);
	return rc;
}

static int put_ident(dl_buf *out, const char *s)
{
	DL_TRY(dl_buf_putc(out, '`'));
	for (; *s; s++) {
		if (*s == '`') DL_TRY(dl_buf_putc(out, '`'));
		DL_TRY(dl_buf_putc(out, *s));
	}
	return dl_buf_putc(out, '`');
}

typedef struct derive {
	const dl_type *schema;
	gen_col *gens;
	int ngens;
	dl_buf sql;
	int nconj;
} derive;

static int begin_conj(derive *d)
{
	return d->nconj++ ? dl_buf_puts(&d->sql, " AND (") : dl_buf_putc(&d->sql, '(');
}

/* Lexicographic comparison of the year/month/day/hour tuple with v's. */
static int tuple_pred(derive *d, gen_col **chain, int len, int op, const dl_scalar *v)
{
	dl_buf vals[4] = {DL_BUF_INIT, DL_BUF_INIT, DL_BUF_INIT, DL_BUF_INIT};
	int rc = 0;
	for (int i = 0; i < len && rc == 0; i++) rc = gen_value(&vals[i], chain[i], d->schema, v);
	if (rc < 0) {
		dl_error_clear();
		for (int i = 0; i < 4; i++) dl_buf_free(&vals[i]);
		return 0;
	}
	rc = begin_conj(d);
	const char *strict = op == OP_LE ? " < " : " > ", *loose = op == OP_LE ? " <= " : " >= ";
	for (int i = 0; i < len && rc == 0; i++) {
		if (i) rc = dl_buf_puts(&d->sql, op == OP_EQ ? " AND " : " AND (");
		if (rc == 0) rc = put_ident(&d->sql, chain[i]->name);
		if (op == OP_EQ) {
			if (rc == 0) rc = dl_buf_puts(&d->sql, " = ");
			if (rc == 0) rc = dl_buf_puts(&d->sql, vals[i].data);
			continue;
		}
		bool last = i == len - 1;
		if (rc == 0) rc = dl_buf_puts(&d->sql, last ? loose : strict);
		if (rc == 0) rc = dl_buf_puts(&d->sql, vals[i].data);
		if (!last) {
			if (rc == 0) rc = dl_buf_puts(&d->sql, " OR (");
			if (rc == 0) rc = put_ident(&d->sql, chain[i]->name);
			if (rc == 0) rc = dl_buf_printf(&d->sql, " = %s", vals[i].data);
		}
	}
	if (op != OP_EQ)
		for (int i = 0; i < 2 * (len - 1) && rc == 0; i++) rc = dl_buf_putc(&d->sql, ')');
	if (rc == 0) rc = dl_buf_putc(&d->sql, ')');
	for (int i = 0; i < 4; i++) dl_buf_free(&vals[i]);
	return rc;
}

static int derive_leaf(derive *d, int base, int op, const dl_scalar *const *vals, int nvals)
{
	/* single monotonic generated columns */
	for (int g = 0; g < d->ngens; g++) {
		gen_col *gc = &d->gens[g];
		if (gc->base != base || (gc->kind != G_MONO && gc->kind != G_YEAR)) continue;
		dl_buf part = DL_BUF_INIT;
		int rc = 0;
		for (int i = 0; i < nvals && rc == 0; i++) {
			if (i) rc = dl_buf_puts(&part, ", ");
			if (rc == 0) rc = gen_value(&part, gc, d->schema, vals[i]);
		}
		if (rc < 0) {
			dl_error_clear();
			dl_buf_free(&part);
			continue;
		}
		rc = begin_conj(d);
		if (rc == 0) rc = put_ident(&d->sql, gc->name);
		if (rc == 0) {
			if (nvals > 1) rc = dl_buf_printf(&d->sql, " IN (%s))", part.data);
			else rc = dl_buf_printf(&d->sql, " %s %s)", op == OP_EQ ? "=" : op == OP_LE ? "<=" : ">=", part.data);
		}
		dl_buf_free(&part);
		DL_TRY(rc);
	}
	/* year / month / day / hour chains */
	if (nvals != 1) return 0;
	static const int order[] = {G_YEAR, G_MONTH, G_DAY, G_HOUR};
	gen_col *chain[4];
	int len = 0;
	for (int k = 0; k < 4; k++) {
		gen_col *found = NULL;
		for (int g = 0; g < d->ngens && !found; g++)
			if (d->gens[g].base == base && d->gens[g].kind == order[k]) found = &d->gens[g];
		if (!found) break;
		chain[len++] = found;
	}
	if (len >= 2) return tuple_pred(d, chain, len, op, vals[0]);
	return 0;
}

static int walk(derive *d, const ex_node *n)
{
	if (n->kind == EX_OP && n->op == OP_AND) {
		DL_TRY(walk(d, n->args[0]));
		return walk(d, n->args[1]);
	}
	if (n->kind == EX_OP && n->nargs == 2 && n->op >= OP_EQ && n->op <= OP_GE && n->op != OP_NE) {
		const ex_node *a = n->args[0], *b = n->args[1];
		int op = n->op;
		if (a->kind == EX_LIT) {
			const ex_node *t = a;
			a = b;
			b = t;
			op = op == OP_LT ? OP_GT : op == OP_LE ? OP_GE : op == OP_GT ? OP_LT : op == OP_GE ? OP_LE : op;
		}
		int base = base_of(a);
		if (base < 0 || b->kind != EX_LIT || b->lit.is_null) return 0;
		int mop = op == OP_EQ ? OP_EQ : (op == OP_LT || op == OP_LE) ? OP_LE : OP_GE;
		const dl_scalar *v = &b->lit;
		return derive_leaf(d, base, mop, &v, 1);
	}
	if (n->kind == EX_IN && !n->negated && n->nargs <= 101) {
		int base = base_of(n->args[0]);
		const dl_scalar *vals[100];
		for (int i = 1; i < n->nargs; i++) {
			if (base < 0 || n->args[i]->kind != EX_LIT || n->args[i]->lit.is_null) return 0;
			vals[i - 1] = &n->args[i]->lit;
		}
		return derive_leaf(d, base, OP_EQ, vals, n->nargs - 1);
	}
	return 0;
}

int dl_expr_derive_partition_filter(dl_expr **out, const dl_expr *filter, const dl_type *schema,
                                    const char *const *partition_cols, int npartition_cols)
{
	*out = NULL;
	if (!filter->bound) return dl_error_set(DL_EINVALID, "the filter must be bound before deriving partition filters");
	if (npartition_cols <= 0) return 0;
	/* generation expressions run in the filter's session time zone */
	dl_eval_ctx ctx = {filter->bind_tz ? dl_tz_name(filter->bind_tz) : NULL, 0};
	derive d = {schema, dl_calloc((size_t)npartition_cols, sizeof(gen_col)), 0, DL_BUF_INIT, 0};
	if (!d.gens) return DL_ENOMEM;
	int rc = 0;
	for (int i = 0; i < npartition_cols && rc == 0; i++) {
		rc = load_gen(&d.gens[d.ngens], schema, partition_cols[i], &ctx);
		if (rc == 0 && d.gens[d.ngens].kind) d.ngens++;
	}
	if (rc == 0 && d.ngens) rc = walk(&d, filter->bound);
	if (rc == 0 && d.nconj) {
		rc = dl_expr_parse(out, d.sql.data);
		if (rc == 0) rc = dl_expr_bind_ctx(*out, schema, &ctx);
		if (rc < 0) {
			dl_expr_free(*out);
			*out = NULL;
		}
	}
	for (int i = 0; i < d.ngens; i++) dl_expr_free(d.gens[i].expr);
	dl_free(d.gens);
	dl_buf_free(&d.sql);
	return rc;
}
