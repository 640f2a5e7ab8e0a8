/* Canonical SQL of queries and table references. Set-operation operands
 * and right-hand joins are parenthesized so the tree reads back the same
 * whatever the precedence; identifiers are always back-quoted, which is
 * never wrong and keeps names that are keywords names. */
#include "sql/print.h"
#include "json/json.h"
#include "util/error.h"
#include <string.h>

int sqlp_ident(dl_buf *out, const char *s)
{
	DL_TRY(dl_buf_putc(out, '`'));
	for (; *s; s++) {
		if (*s == '`') DL_TRY(dl_buf_putc(out, '`'));
		DL_TRY(dl_buf_putc(out, *s));
	}
	return dl_buf_putc(out, '`');
}

int sqlp_name(dl_buf *out, const sql_name *n)
{
	for (int i = 0; i < n->nparts; i++) {
		if (i) DL_TRY(dl_buf_putc(out, '.'));
		DL_TRY(sqlp_ident(out, n->parts[i]));
	}
	return 0;
}

int sqlp_names(dl_buf *out, const sql_name *n, int count)
{
	DL_TRY(dl_buf_putc(out, '('));
	for (int i = 0; i < count; i++) {
		if (i) DL_TRY(dl_buf_puts(out, ", "));
		DL_TRY(sqlp_name(out, &n[i]));
	}
	return dl_buf_putc(out, ')');
}

int sqlp_idents(dl_buf *out, char **ids, int n)
{
	DL_TRY(dl_buf_putc(out, '('));
	for (int i = 0; i < n; i++) {
		if (i) DL_TRY(dl_buf_puts(out, ", "));
		DL_TRY(sqlp_ident(out, ids[i]));
	}
	return dl_buf_putc(out, ')');
}

int sqlp_string(dl_buf *out, const char *s)
{
	dl_scalar v = {.type = DL_TYPE_STRING};
	v.v.str.ptr = s;
	v.v.str.len = strlen(s);
	return ex_print_scalar(out, &v);
}

/* Types as the type grammar reads them, keeping what dl_type_sql leaves
 * out: NOT NULL and COMMENT of struct fields, at any depth. */
int sqlp_type(dl_buf *out, const dl_type *t)
{
	if (t->id == DL_TYPE_ARRAY) {
		DL_TRY(dl_buf_puts(out, "ARRAY<"));
		DL_TRY(sqlp_type(out, t->children[0].type));
		return dl_buf_putc(out, '>');
	}
	if (t->id == DL_TYPE_MAP) {
		DL_TRY(dl_buf_puts(out, "MAP<"));
		DL_TRY(sqlp_type(out, t->children[0].type));
		DL_TRY(dl_buf_puts(out, ", "));
		DL_TRY(sqlp_type(out, t->children[1].type));
		return dl_buf_putc(out, '>');
	}
	if (t->id == DL_TYPE_STRUCT) {
		DL_TRY(dl_buf_puts(out, "STRUCT<"));
		for (int i = 0; i < t->nchildren; i++) {
			const dl_field *f = &t->children[i];
			if (i) DL_TRY(dl_buf_puts(out, ", "));
			DL_TRY(sqlp_ident(out, f->name));
			DL_TRY(dl_buf_puts(out, ": "));
			DL_TRY(sqlp_type(out, f->type));
			if (!f->nullable) DL_TRY(dl_buf_puts(out, " NOT NULL"));
			if (f->metadata && strcmp(f->metadata, "{}") != 0) {
				dl_arena a = DL_ARENA_INIT;
				dl_json *j;
				int rc = dl_json_parse(&a, f->metadata, strlen(f->metadata), "field metadata", &j);
				const char *c = rc == 0 ? dl_json_get_str(j, "comment") : NULL;
				if (c) rc = dl_buf_puts(out, " COMMENT ");
				if (c && rc == 0) rc = sqlp_string(out, c);
				dl_arena_free(&a);
				DL_TRY(rc);
			}
		}
		return dl_buf_putc(out, '>');
	}
	char text[256];
	dl_type_sql(t, text, sizeof text);
	return dl_buf_puts(out, text);
}

int sqlp_exprs(dl_buf *out, ex_node **e, int n)
{
	for (int i = 0; i < n; i++) {
		if (i) DL_TRY(dl_buf_puts(out, ", "));
		DL_TRY(ex_print(out, e[i]));
	}
	return 0;
}

int sqlp_time_travel(dl_buf *out, const sql_time_travel *tt)
{
	if (tt->kind == TT_NONE) return 0;
	DL_TRY(dl_buf_puts(out, tt->kind == TT_VERSION ? " VERSION AS OF " : " TIMESTAMP AS OF "));
	return ex_print(out, tt->value);
}

static int alias(dl_buf *out, const sql_table_ref *t)
{
	if (!t->alias) return 0;
	DL_TRY(dl_buf_puts(out, " AS "));
	DL_TRY(sqlp_ident(out, t->alias));
	return t->nalias_cols ? sqlp_idents(out, t->alias_cols, t->nalias_cols) : 0;
}

static const char *join_kw(const sql_table_ref *t)
{
	switch (t->join) {
	case JOIN_INNER: return t->natural ? " NATURAL JOIN " : " JOIN ";
	case JOIN_LEFT: return t->natural ? " NATURAL LEFT JOIN " : " LEFT JOIN ";
	case JOIN_RIGHT: return t->natural ? " NATURAL RIGHT JOIN " : " RIGHT JOIN ";
	case JOIN_FULL: return t->natural ? " NATURAL FULL JOIN " : " FULL JOIN ";
	case JOIN_CROSS: return " CROSS JOIN ";
	case JOIN_LEFT_SEMI: return t->natural ? " NATURAL LEFT SEMI JOIN " : " LEFT SEMI JOIN ";
	case JOIN_LEFT_ANTI: return t->natural ? " NATURAL LEFT ANTI JOIN " : " LEFT ANTI JOIN ";
	case JOIN_COMMA: return ", ";
	}
	return " JOIN ";
}

int sqlp_table_ref(dl_buf *out, const sql_table_ref *t)
{
	switch (t->kind) {
	case TREF_NAME:
		DL_TRY(sqlp_name(out, &t->name));
		DL_TRY(sqlp_time_travel(out, &t->tt));
		break;
	case TREF_PATH:
		DL_TRY(dl_buf_printf(out, "%s.", t->format));
		DL_TRY(sqlp_ident(out, t->path));
		DL_TRY(sqlp_time_travel(out, &t->tt));
		break;
	case TREF_FUNCTION:
		DL_TRY(dl_buf_printf(out, "%s(", t->function));
		DL_TRY(sqlp_exprs(out, t->args, t->nargs));
		DL_TRY(dl_buf_putc(out, ')'));
		break;
	case TREF_QUERY:
		DL_TRY(dl_buf_putc(out, '('));
		DL_TRY(dl_sql_print_query(out, t->query));
		DL_TRY(dl_buf_putc(out, ')'));
		break;
	case TREF_JOIN:
		DL_TRY(sqlp_table_ref(out, t->left));
		DL_TRY(dl_buf_puts(out, join_kw(t)));
		if (t->right->kind == TREF_JOIN) DL_TRY(dl_buf_putc(out, '('));
		DL_TRY(sqlp_table_ref(out, t->right));
		if (t->right->kind == TREF_JOIN) DL_TRY(dl_buf_putc(out, ')'));
		if (t->on) {
			DL_TRY(dl_buf_puts(out, " ON "));
			DL_TRY(ex_print(out, t->on));
		} else if (t->nusing) {
			DL_TRY(dl_buf_puts(out, " USING "));
			DL_TRY(sqlp_idents(out, t->using_cols, t->nusing));
		}
		return 0;
	}
	return alias(out, t);
}

static int print_select(dl_buf *out, const sql_select *s)
{
	DL_TRY(dl_buf_puts(out, s->distinct ? "SELECT DISTINCT " : "SELECT "));
	for (int i = 0; i < s->nitems; i++) {
		const sql_select_item *it = &s->items[i];
		if (i) DL_TRY(dl_buf_puts(out, ", "));
		if (it->star) {
			if (it->qual.nparts) {
				DL_TRY(sqlp_name(out, &it->qual));
				DL_TRY(dl_buf_putc(out, '.'));
			}
			DL_TRY(dl_buf_putc(out, '*'));
			continue;
		}
		DL_TRY(ex_print(out, it->expr));
		if (it->alias) {
			DL_TRY(dl_buf_puts(out, " AS "));
			DL_TRY(sqlp_ident(out, it->alias));
		}
	}
	if (s->from) {
		DL_TRY(dl_buf_puts(out, " FROM "));
		DL_TRY(sqlp_table_ref(out, s->from));
	}
	if (s->where) {
		DL_TRY(dl_buf_puts(out, " WHERE "));
		DL_TRY(ex_print(out, s->where));
	}
	if (s->ngsets) {
		/* every form (ROLLUP, CUBE, WITH ..., products) as its sets */
		DL_TRY(dl_buf_puts(out, " GROUP BY GROUPING SETS ("));
		for (int i = 0; i < s->ngsets; i++) {
			DL_TRY(dl_buf_puts(out, i ? ", (" : "("));
			for (int j = 0; j < s->gset_len[i]; j++) {
				if (j) DL_TRY(dl_buf_puts(out, ", "));
				DL_TRY(ex_print(out, s->group_by[s->gsets[i][j]]));
			}
			DL_TRY(dl_buf_putc(out, ')'));
		}
		DL_TRY(dl_buf_putc(out, ')'));
	} else if (s->ngroup) {
		DL_TRY(dl_buf_puts(out, " GROUP BY "));
		DL_TRY(sqlp_exprs(out, s->group_by, s->ngroup));
	}
	if (s->having) {
		DL_TRY(dl_buf_puts(out, " HAVING "));
		DL_TRY(ex_print(out, s->having));
	}
	return 0;
}

static bool needs_parens(const sql_query *q)
{
	return q->kind >= Q_UNION || q->nctes || q->norder || q->limit || q->offset;
}

static int operand(dl_buf *out, const sql_query *q)
{
	if (!needs_parens(q)) return dl_sql_print_query(out, q);
	DL_TRY(dl_buf_putc(out, '('));
	DL_TRY(dl_sql_print_query(out, q));
	return dl_buf_putc(out, ')');
}

int dl_sql_print_query(dl_buf *out, const sql_query *q)
{
	if (q->nctes) {
		DL_TRY(dl_buf_puts(out, "WITH "));
		for (int i = 0; i < q->nctes; i++) {
			if (i) DL_TRY(dl_buf_puts(out, ", "));
			DL_TRY(sqlp_ident(out, q->ctes[i].name));
			if (q->ctes[i].ncols) DL_TRY(sqlp_idents(out, q->ctes[i].cols, q->ctes[i].ncols));
			DL_TRY(dl_buf_puts(out, " AS ("));
			DL_TRY(dl_sql_print_query(out, q->ctes[i].query));
			DL_TRY(dl_buf_putc(out, ')'));
		}
		DL_TRY(dl_buf_putc(out, ' '));
	}
	switch (q->kind) {
	case Q_SELECT: DL_TRY(print_select(out, q->select)); break;
	case Q_VALUES:
		DL_TRY(dl_buf_puts(out, "VALUES "));
		for (int i = 0; i < q->nrows; i++) {
			DL_TRY(dl_buf_puts(out, i ? ", (" : "("));
			DL_TRY(sqlp_exprs(out, q->rows[i], q->rowlen[i]));
			DL_TRY(dl_buf_putc(out, ')'));
		}
		break;
	case Q_UNION:
	case Q_INTERSECT:
	case Q_EXCEPT: {
		static const char *const kw[] = {[Q_UNION] = "UNION", [Q_INTERSECT] = "INTERSECT", [Q_EXCEPT] = "EXCEPT"};
		DL_TRY(operand(out, q->left));
		DL_TRY(dl_buf_printf(out, " %s%s ", kw[q->kind], q->all ? " ALL" : ""));
		DL_TRY(operand(out, q->right));
		break;
	}
	}
	if (q->norder) {
		DL_TRY(dl_buf_puts(out, " ORDER BY "));
		DL_TRY(ex_print_sort_items(out, q->order_by, q->norder));
	}
	if (q->limit) {
		DL_TRY(dl_buf_puts(out, " LIMIT "));
		DL_TRY(ex_print(out, q->limit));
	}
	if (q->offset) {
		DL_TRY(dl_buf_puts(out, " OFFSET "));
		DL_TRY(ex_print(out, q->offset));
	}
	return 0;
}
