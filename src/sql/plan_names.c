/* Spark's names for select items without an alias: the expression's SQL
 * with attributes unqualified and literals as their bare values
 * (toPrettySQL): a column is its own name, `(a + 1)`, `sum(x)`,
 * `count(1)` for count(*), `CAST(a AS STRING)`, `(a IS NULL)`,
 * `CASE WHEN (a > 1) THEN x ELSE y END`. */
#include "sql/plan_internal.h"
#include <string.h>

static const char *const op_sym[] = {
	[OP_NEG] = "-", [OP_POS] = "+", [OP_NOT] = "NOT", [OP_BITNOT] = "~",
	[OP_ADD] = "+", [OP_SUB] = "-", [OP_MUL] = "*", [OP_DIV] = "/", [OP_MOD] = "%", [OP_IDIV] = "div",
	[OP_CONCAT] = "||", [OP_BITAND] = "&", [OP_BITOR] = "|", [OP_BITXOR] = "^",
	[OP_EQ] = "=", [OP_NE] = "!=", [OP_LT] = "<", [OP_LE] = "<=", [OP_GT] = ">", [OP_GE] = ">=", [OP_NSEQ] = "<=>",
	[OP_AND] = "AND", [OP_OR] = "OR",
};

static int list(dl_buf *out, ex_node *const *a, int from, int to)
{
	for (int i = from; i < to; i++) {
		if (i > from) DL_TRY(dl_buf_puts(out, ", "));
		DL_TRY(pl_auto_name(out, a[i]));
	}
	return 0;
}

static int lit(dl_buf *out, const ex_node *n)
{
	if (n->lit.is_null) return dl_buf_puts(out, "NULL");
	if (n->lit.type == DL_TYPE_STRING) return dl_buf_append(out, n->lit.v.str.ptr, n->lit.v.str.len);
	dl_buf t = DL_BUF_INIT;
	int rc = ex_print(&t, n);
	if (rc == 0 && t.data) {
		/* typed literals print as Spark shows them: DATE '2020-01-01' */
		const char *s = t.data;
		rc = dl_buf_puts(out, s);
	}
	dl_buf_free(&t);
	return rc;
}

static int bound_name(dl_buf *out, const ex_frame_bound *b)
{
	switch (b->kind) {
	case BOUND_UNBOUNDED_PRECEDING: return dl_buf_puts(out, "UNBOUNDED PRECEDING");
	case BOUND_CURRENT_ROW: return dl_buf_puts(out, "CURRENT ROW");
	case BOUND_UNBOUNDED_FOLLOWING: return dl_buf_puts(out, "UNBOUNDED FOLLOWING");
	case BOUND_PRECEDING:
	case BOUND_FOLLOWING: break;
	}
	DL_TRY(pl_auto_name(out, b->offset));
	return dl_buf_puts(out, b->kind == BOUND_PRECEDING ? " PRECEDING" : " FOLLOWING");
}

/* Spark's WindowSpecDefinition.sql: PARTITION BY, ORDER BY with explicit
 * directions, and the frame the function runs over (the ranking functions
 * and lag/lead have their own). */
static int window_name(dl_buf *out, const ex_node *n)
{
	const ex_window *w = n->over;
	DL_TRY(dl_buf_puts(out, " OVER ("));
	const char *sep = "";
	if (w->npartition) {
		DL_TRY(dl_buf_puts(out, "PARTITION BY "));
		DL_TRY(list(out, w->partition, 0, w->npartition));
		sep = " ";
	}
	if (w->norder) {
		DL_TRY(dl_buf_printf(out, "%sORDER BY ", sep));
		for (int i = 0; i < w->norder; i++) {
			if (i) DL_TRY(dl_buf_puts(out, ", "));
			DL_TRY(pl_auto_name(out, w->order[i].expr));
			bool first = w->order[i].nulls == NULLS_DEFAULT ? !w->order[i].desc : w->order[i].nulls == NULLS_FIRST;
			DL_TRY(dl_buf_printf(out, " %s NULLS %s", w->order[i].desc ? "DESC" : "ASC", first ? "FIRST" : "LAST"));
		}
		sep = " ";
	}
	DL_TRY(dl_buf_puts(out, sep));
	static const char *const ranking[] = {"row_number", "rank", "dense_rank", "percent_rank", "ntile"};
	for (size_t i = 0; i < sizeof ranking / sizeof ranking[0]; i++)
		if (!strcmp(n->name, ranking[i])) return dl_buf_puts(out, "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)");
	if (!strcmp(n->name, "lag") || !strcmp(n->name, "lead")) {
		dl_buf k = DL_BUF_INIT;
		int rc = n->nargs > 1 ? pl_auto_name(&k, n->args[1]) : dl_buf_puts(&k, "1");
		bool lag = n->name[2] == 'g';
		if (rc == 0)
			rc = dl_buf_printf(out, "ROWS BETWEEN %s%s FOLLOWING AND %s%s FOLLOWING)", lag ? "-" : "", k.data,
			                   lag ? "-" : "", k.data);
		dl_buf_free(&k);
		return rc;
	}
	if (w->frame == FRAME_NONE)
		return dl_buf_puts(out, w->norder ? "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"
		                                  : "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)");
	DL_TRY(dl_buf_puts(out, w->frame == FRAME_ROWS ? "ROWS BETWEEN " : "RANGE BETWEEN "));
	DL_TRY(bound_name(out, &w->lo));
	DL_TRY(dl_buf_puts(out, " AND "));
	DL_TRY(bound_name(out, &w->hi));
	return dl_buf_putc(out, ')');
}

int pl_auto_name(dl_buf *out, const ex_node *n)
{
	char tsql[256];
	switch (n->kind) {
	case EX_LIT: return lit(out, n);
	case EX_PARAM: return dl_buf_putc(out, '?'); /* substituted before planning; for completeness */
	case EX_COL: return dl_buf_puts(out, n->path[n->npath - 1]);
	case EX_FIELD: return dl_buf_puts(out, n->path[0]);
	case EX_INTERVAL: return ex_print(out, n);
	case EX_OP:
		if (n->op == OP_CONCAT) {
			DL_TRY(dl_buf_puts(out, "concat("));
			DL_TRY(list(out, n->args, 0, 2));
			return dl_buf_putc(out, ')');
		}
		if (n->nargs == 1) {
			DL_TRY(dl_buf_printf(out, "(%s%s", op_sym[n->op], n->op == OP_NOT ? " " : " "));
			DL_TRY(pl_auto_name(out, n->args[0]));
			return dl_buf_putc(out, ')');
		}
		if (n->op == OP_NE) {
			DL_TRY(dl_buf_puts(out, "(NOT ("));
			DL_TRY(pl_auto_name(out, n->args[0]));
			DL_TRY(dl_buf_puts(out, " = "));
			DL_TRY(pl_auto_name(out, n->args[1]));
			return dl_buf_puts(out, "))");
		}
		DL_TRY(dl_buf_putc(out, '('));
		DL_TRY(pl_auto_name(out, n->args[0]));
		DL_TRY(dl_buf_printf(out, " %s ", op_sym[n->op]));
		DL_TRY(pl_auto_name(out, n->args[1]));
		return dl_buf_putc(out, ')');
	case EX_CALL:
		if (n->flag && !strcmp(n->name, "count")) DL_TRY(dl_buf_puts(out, "count(1"));
		else {
			DL_TRY(dl_buf_printf(out, "%s(", n->name));
			if (n->distinct) DL_TRY(dl_buf_puts(out, "DISTINCT "));
			DL_TRY(list(out, n->args, 0, n->nargs));
			/* lag/lead spell their defaults: lag(x, 1, NULL) */
			if (n->over && (!strcmp(n->name, "lag") || !strcmp(n->name, "lead")) && n->nargs < 3)
				DL_TRY(dl_buf_puts(out, n->nargs == 1 ? ", 1, NULL" : ", NULL"));
		}
		DL_TRY(dl_buf_putc(out, ')'));
		return n->over ? window_name(out, n) : 0;
	case EX_CAST:
		dl_type_sql(n->to, tsql, sizeof tsql);
		DL_TRY(dl_buf_puts(out, n->flag ? "TRY_CAST(" : "CAST("));
		DL_TRY(pl_auto_name(out, n->args[0]));
		return dl_buf_printf(out, " AS %s)", tsql);
	case EX_CASE: {
		DL_TRY(dl_buf_puts(out, "CASE"));
		int i = 0;
		if (n->flag) {
			DL_TRY(dl_buf_putc(out, ' '));
			DL_TRY(pl_auto_name(out, n->args[0]));
			i = 1;
		}
		int end = n->nargs - (n->has_else ? 1 : 0);
		for (; i + 1 < end + 1 && i < end; i += 2) {
			DL_TRY(dl_buf_puts(out, " WHEN "));
			DL_TRY(pl_auto_name(out, n->args[i]));
			DL_TRY(dl_buf_puts(out, " THEN "));
			DL_TRY(pl_auto_name(out, n->args[i + 1]));
		}
		if (n->has_else) {
			DL_TRY(dl_buf_puts(out, " ELSE "));
			DL_TRY(pl_auto_name(out, n->args[n->nargs - 1]));
		}
		return dl_buf_puts(out, " END");
	}
	case EX_IN:
		DL_TRY(dl_buf_puts(out, n->negated ? "(NOT (" : "("));
		DL_TRY(pl_auto_name(out, n->args[0]));
		DL_TRY(dl_buf_puts(out, " IN ("));
		DL_TRY(list(out, n->args, 1, n->nargs));
		return dl_buf_puts(out, n->negated ? ")))" : "))");
	case EX_BETWEEN:
		DL_TRY(dl_buf_puts(out, n->negated ? "(NOT (" : "("));
		DL_TRY(pl_auto_name(out, n->args[0]));
		DL_TRY(dl_buf_puts(out, " BETWEEN "));
		DL_TRY(pl_auto_name(out, n->args[1]));
		DL_TRY(dl_buf_puts(out, " AND "));
		DL_TRY(pl_auto_name(out, n->args[2]));
		return dl_buf_puts(out, n->negated ? "))" : ")");
	case EX_LIKE: {
		static const char *const kw[] = {"LIKE", "ILIKE", "RLIKE"};
		if (n->negated) DL_TRY(dl_buf_puts(out, "(NOT "));
		DL_TRY(pl_auto_name(out, n->args[0]));
		DL_TRY(dl_buf_printf(out, " %s ", kw[n->op]));
		DL_TRY(pl_auto_name(out, n->args[1]));
		return n->negated ? dl_buf_putc(out, ')') : 0;
	}
	case EX_IS: {
		static const char *const what[] = {"NULL", "TRUE", "FALSE"};
		DL_TRY(dl_buf_putc(out, '('));
		DL_TRY(pl_auto_name(out, n->args[0]));
		return dl_buf_printf(out, " IS %s%s)", n->negated ? "NOT " : "", what[n->op]);
	}
	case EX_INDEX:
		DL_TRY(pl_auto_name(out, n->args[0]));
		DL_TRY(dl_buf_putc(out, '['));
		DL_TRY(pl_auto_name(out, n->args[1]));
		return dl_buf_putc(out, ']');
	case EX_SUBQUERY:
		return dl_buf_puts(out, n->op == SQ_EXISTS ? "exists()" : n->op == SQ_SCALAR ? "scalarsubquery()" : "(IN (listquery()))");
	}
	return ex_print(out, n);
}
