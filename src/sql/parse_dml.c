/* INSERT, DELETE, UPDATE and MERGE (Delta's DML grammar on Spark's). */
#include "sql/parser.h"
#include "util/error.h"
#include <string.h>

static bool starts_query(const sql_parser *p, int ahead)
{
	return sp_peek_is(p, ahead, "SELECT") || sp_peek_is(p, ahead, "WITH") || sp_peek_is(p, ahead, "VALUES") ||
	       sp_peek_is(p, ahead, "TABLE") || sp_peek_is(p, ahead, "FROM");
}

/* INSERT {INTO | OVERWRITE} [TABLE] t [(cols)] [REPLACE WHERE pred] query */
int sp_insert(sql_parser *p, sql_stmt *st)
{
	st->kind = ST_INSERT;
	DL_TRY(sp_expect(p, "INSERT"));
	if (sp_is(p, "WITH")) {
		DL_TRY(sp_advance(p));
		DL_TRY(sp_expect(p, "SCHEMA"));
		DL_TRY(sp_expect(p, "EVOLUTION"));
		st->schema_evolution = true;
	}
	if (sp_accept(p, "OVERWRITE") == 1) {
		st->overwrite = true;
		DL_TRY(sp_accept(p, "TABLE"));
	} else {
		DL_TRY(sp_expect(p, "INTO"));
		DL_TRY(sp_accept(p, "TABLE"));
	}
	DL_TRY(sp_table_name(p, &st->table));
	if (sp_is_op(p, "(") && !starts_query(p, 1) && !sp_peek_op(p, 1, "("))
		DL_TRY(sp_name_list(p, &st->insert_cols, &st->ninsert_cols, true));
	if (sp_is(p, "REPLACE")) {
		DL_TRY(sp_advance(p));
		DL_TRY(sp_expect(p, "WHERE"));
		DL_TRY(sp_expr(p, &st->where));
	}
	return sp_query(p, &st->query);
}

int sp_delete(sql_parser *p, sql_stmt *st)
{
	st->kind = ST_DELETE;
	DL_TRY(sp_expect(p, "DELETE"));
	DL_TRY(sp_expect(p, "FROM"));
	DL_TRY(sp_table_name(p, &st->table));
	DL_TRY(sp_alias(p, st->table, false));
	if (sp_accept(p, "WHERE") == 1) DL_TRY(sp_expr(p, &st->where));
	return 0;
}

static int assignments(sql_parser *p, sql_assign **out, int *n)
{
	int cap = 0;
	do {
		sql_assign a;
		DL_TRY(sp_name(p, &a.column));
		DL_TRY(sp_expect_op(p, "="));
		DL_TRY(sp_expr(p, &a.value));
		DL_TRY(SP_PUSH(p, *out, *n, cap, a));
	} while (sp_accept_op(p, ",") == 1);
	return 0;
}

int sp_update(sql_parser *p, sql_stmt *st)
{
	st->kind = ST_UPDATE;
	DL_TRY(sp_expect(p, "UPDATE"));
	DL_TRY(sp_table_name(p, &st->table));
	DL_TRY(sp_alias(p, st->table, false));
	DL_TRY(sp_expect(p, "SET"));
	DL_TRY(assignments(p, &st->sets, &st->nsets));
	if (sp_accept(p, "WHERE") == 1) DL_TRY(sp_expr(p, &st->where));
	return 0;
}

static int merge_clause(sql_parser *p, sql_merge_clause *c)
{
	memset(c, 0, sizeof *c);
	DL_TRY(sp_expect(p, "WHEN"));
	if (sp_accept(p, "NOT") == 1) {
		DL_TRY(sp_expect(p, "MATCHED"));
		c->match = MERGE_NOT_MATCHED;
		if (sp_accept(p, "BY") == 1) {
			if (sp_accept(p, "SOURCE") == 1) c->match = MERGE_NOT_MATCHED_BY_SOURCE;
			else DL_TRY(sp_expect(p, "TARGET"));
		}
	} else {
		DL_TRY(sp_expect(p, "MATCHED"));
		c->match = MERGE_MATCHED;
	}
	if (sp_accept(p, "AND") == 1) DL_TRY(sp_expr(p, &c->cond));
	DL_TRY(sp_expect(p, "THEN"));
	int pos = p->tok.pos;
	if (c->match != MERGE_NOT_MATCHED) {
		if (sp_accept(p, "DELETE") == 1) {
			c->action = MERGE_DELETE;
			return 0;
		}
		DL_TRY(sp_expect(p, "UPDATE"));
		DL_TRY(sp_expect(p, "SET"));
		if (sp_is_op(p, "*")) {
			if (c->match == MERGE_NOT_MATCHED_BY_SOURCE)
				return sp_error_at(p, (size_t)p->tok.pos, "PARSE_SYNTAX_ERROR",
				                   "UPDATE SET * is not allowed in WHEN NOT MATCHED BY SOURCE");
			c->action = MERGE_UPDATE_STAR;
			return sp_advance(p);
		}
		c->action = MERGE_UPDATE;
		return assignments(p, &c->sets, &c->nsets);
	}
	DL_TRY(sp_expect(p, "INSERT"));
	if (sp_accept_op(p, "*") == 1) {
		c->action = MERGE_INSERT_STAR;
		return 0;
	}
	c->action = MERGE_INSERT;
	if (sp_is_op(p, "(")) DL_TRY(sp_name_list(p, &c->cols, &c->ncols, true));
	DL_TRY(sp_expect(p, "VALUES"));
	DL_TRY(sp_expect_op(p, "("));
	int cap = 0;
	do {
		ex_node *v;
		DL_TRY(sp_expr(p, &v));
		DL_TRY(SP_PUSH(p, c->values, c->nvalues, cap, v));
	} while (sp_accept_op(p, ",") == 1);
	DL_TRY(sp_expect_op(p, ")"));
	if (c->ncols && c->ncols != c->nvalues)
		return sp_error_at(p, (size_t)pos, "PARSE_SYNTAX_ERROR",
		                   "the INSERT column list and VALUES list have different lengths");
	return 0;
}

int sp_merge(sql_parser *p, sql_stmt *st)
{
	st->kind = ST_MERGE;
	DL_TRY(sp_expect(p, "MERGE"));
	if (sp_is(p, "WITH")) {
		/* MERGE WITH SCHEMA EVOLUTION INTO (Delta 3.2+) */
		DL_TRY(sp_advance(p));
		DL_TRY(sp_expect(p, "SCHEMA"));
		DL_TRY(sp_expect(p, "EVOLUTION"));
		st->schema_evolution = true;
	}
	DL_TRY(sp_expect(p, "INTO"));
	DL_TRY(sp_table_name(p, &st->table));
	DL_TRY(sp_alias(p, st->table, false));
	DL_TRY(sp_expect(p, "USING"));
	DL_TRY(sp_table_ref(p, &st->source));
	DL_TRY(sp_expect(p, "ON"));
	DL_TRY(sp_expr(p, &st->on));
	int cap = 0;
	if (!sp_is(p, "WHEN")) return sp_syntax_error(p);
	while (sp_is(p, "WHEN")) {
		sql_merge_clause c;
		DL_TRY(merge_clause(p, &c));
		DL_TRY(SP_PUSH(p, st->clauses, st->nclauses, cap, c));
	}
	return 0;
}
