/* CREATE TABLE (columns, AS SELECT, CLONE), CREATE/DROP SCHEMA, DROP
 * TABLE, and the column definitions ALTER TABLE shares. Table clauses may
 * come in any order, once each, as Spark's createTableClauses allows. */
#include "sql/parser.h"
#include "util/error.h"
#include <ctype.h>
#include <string.h>

int sp_signed_integer(sql_parser *p, int64_t *out)
{
	int neg = sp_accept_op(p, "-");
	if (neg < 0) return neg;
	if (!neg) DL_TRY(sp_accept_op(p, "+"));
	DL_TRY(sp_integer(p, out));
	if (neg) *out = -*out;
	return 0;
}

/* GENERATED ALWAYS AS (expr) | GENERATED {ALWAYS | BY DEFAULT} AS
 * IDENTITY [(START WITH n | INCREMENT BY m ...)] */
static int generated(sql_parser *p, sql_column_def *c)
{
	DL_TRY(sp_expect(p, "GENERATED"));
	bool always = sp_is(p, "ALWAYS");
	if (always) DL_TRY(sp_advance(p));
	else {
		DL_TRY(sp_expect(p, "BY"));
		DL_TRY(sp_expect(p, "DEFAULT"));
	}
	DL_TRY(sp_expect(p, "AS"));
	if (sp_accept(p, "IDENTITY") == 1) {
		c->identity = true;
		c->identity_always = always;
		if (sp_accept_op(p, "(") != 1) return 0;
		while (!sp_is_op(p, ")")) {
			if (sp_accept(p, "START") == 1) {
				DL_TRY(sp_expect(p, "WITH"));
				DL_TRY(sp_signed_integer(p, &c->start));
				c->has_start = true;
			} else if (sp_accept(p, "INCREMENT") == 1) {
				DL_TRY(sp_expect(p, "BY"));
				DL_TRY(sp_signed_integer(p, &c->step));
				c->has_step = true;
			} else {
				return sp_syntax_error(p);
			}
		}
		return sp_advance(p);
	}
	if (!always) return sp_syntax_error(p);
	DL_TRY(sp_expect_op(p, "("));
	DL_TRY(sp_expr(p, &c->generated));
	return sp_expect_op(p, ")");
}

int sp_column_def(sql_parser *p, sql_column_def *c, bool alter)
{
	memset(c, 0, sizeof *c);
	DL_TRY(sp_name(p, &c->name));
	if (!alter && c->name.nparts > 1) return sp_syntax_error(p);
	DL_TRY(sp_type(p, &c->type));
	for (;;) {
		if (sp_is(p, "NOT")) {
			DL_TRY(sp_advance(p));
			DL_TRY(sp_expect(p, "NULL"));
			c->not_null = true;
		} else if (!alter && sp_is(p, "GENERATED")) {
			/* CREATE only: Spark's grammar for ALTER TABLE's column lists
			 * (qualifiedColTypeWithPosition, colType) has no GENERATED
			 * clause, so there it is the syntax error Spark reports. */
			DL_TRY(generated(p, c));
		} else if (sp_accept(p, "DEFAULT") == 1) {
			DL_TRY(sp_expr(p, &c->default_value));
		} else if (sp_accept(p, "COMMENT") == 1) {
			DL_TRY(sp_string(p, &c->comment));
		} else if (alter && sp_accept(p, "FIRST") == 1) {
			c->place = PLACE_FIRST;
		} else if (alter && sp_accept(p, "AFTER") == 1) {
			c->place = PLACE_AFTER;
			DL_TRY(sp_name(p, &c->after));
		} else {
			return 0;
		}
	}
}

static int column_list(sql_parser *p, sql_stmt *st)
{
	int cap = 0;
	DL_TRY(sp_expect_op(p, "("));
	st->has_columns = true;
	do {
		sql_column_def c;
		DL_TRY(sp_column_def(p, &c, false));
		DL_TRY(SP_PUSH(p, st->cols, st->ncols, cap, c));
	} while (sp_accept_op(p, ",") == 1);
	return sp_expect_op(p, ")");
}

static int once(sql_parser *p, bool *seen)
{
	if (*seen)
		return sp_error_at(p, (size_t)p->tok.pos, "DUPLICATE_CLAUSES", "Found duplicate clauses");
	*seen = true;
	return 0;
}

/* USING fmt, PARTITIONED BY, CLUSTER BY, LOCATION, TBLPROPERTIES, COMMENT. */
static int table_clauses(sql_parser *p, sql_stmt *st, bool clone)
{
	bool s_using = false, s_part = false, s_cluster = false, s_loc = false, s_props = false, s_comment = false, s_opts = false;
	for (;;) {
		if (!clone && sp_is(p, "USING")) {
			DL_TRY(once(p, &s_using));
			DL_TRY(sp_advance(p));
			char *fmt;
			DL_TRY(sp_ident(p, &fmt));
			for (char *c = fmt; *c; c++) *c = (char)tolower((unsigned char)*c);
			st->using = fmt;
		} else if (!clone && sp_is(p, "PARTITIONED")) {
			DL_TRY(once(p, &s_part));
			DL_TRY(sp_advance(p));
			DL_TRY(sp_expect(p, "BY"));
			DL_TRY(sp_name_list(p, &st->part_cols, &st->npart, true));
		} else if (!clone && sp_is(p, "CLUSTER")) {
			DL_TRY(once(p, &s_cluster));
			DL_TRY(sp_advance(p));
			DL_TRY(sp_expect(p, "BY"));
			if (sp_accept(p, "NONE") == 1) st->cluster_none = true;
			else DL_TRY(sp_name_list(p, &st->cluster_cols, &st->ncluster, true));
		} else if (sp_is(p, "LOCATION")) {
			DL_TRY(once(p, &s_loc));
			DL_TRY(sp_advance(p));
			DL_TRY(sp_string(p, &st->location));
		} else if (!clone && sp_is(p, "OPTIONS")) {
			DL_TRY(once(p, &s_opts));
			DL_TRY(sp_advance(p));
			DL_TRY(sp_props(p, &st->options, &st->noptions, false));
		} else if (sp_is(p, "TBLPROPERTIES")) {
			DL_TRY(once(p, &s_props));
			DL_TRY(sp_advance(p));
			DL_TRY(sp_props(p, &st->props, &st->nprops, false));
		} else if (!clone && sp_is(p, "COMMENT")) {
			DL_TRY(once(p, &s_comment));
			DL_TRY(sp_advance(p));
			DL_TRY(sp_string(p, &st->comment));
		} else {
			return 0;
		}
	}
}

static int create_schema(sql_parser *p, sql_stmt *st)
{
	st->kind = ST_CREATE_SCHEMA;
	DL_TRY(sp_advance(p));
	if (sp_is(p, "IF")) {
		DL_TRY(sp_advance(p));
		DL_TRY(sp_expect(p, "NOT"));
		DL_TRY(sp_expect(p, "EXISTS"));
		st->if_not_exists = true;
	}
	DL_TRY(sp_name(p, &st->schema));
	for (;;) {
		if (sp_accept(p, "COMMENT") == 1) DL_TRY(sp_string(p, &st->comment));
		else if (sp_accept(p, "LOCATION") == 1) DL_TRY(sp_string(p, &st->location));
		else if (sp_is(p, "WITH") && (sp_peek_is(p, 1, "DBPROPERTIES") || sp_peek_is(p, 1, "PROPERTIES"))) {
			DL_TRY(sp_advance(p));
			DL_TRY(sp_advance(p));
			DL_TRY(sp_props(p, &st->props, &st->nprops, false));
		} else return 0;
	}
}

int sp_create(sql_parser *p, sql_stmt *st)
{
	if (sp_accept(p, "REPLACE") == 1) {
		st->replace_only = true;
		st->or_replace = true;
		goto table;
	}
	DL_TRY(sp_expect(p, "CREATE"));
	if (sp_is(p, "OR")) {
		DL_TRY(sp_advance(p));
		DL_TRY(sp_expect(p, "REPLACE"));
		st->or_replace = true;
	}
	if (!st->or_replace && (sp_is(p, "SCHEMA") || sp_is(p, "DATABASE"))) return create_schema(p, st);
	DL_TRY(sp_accept(p, "EXTERNAL"));
table:
	DL_TRY(sp_expect(p, "TABLE"));
	st->kind = ST_CREATE_TABLE;
	if (!st->replace_only && sp_is(p, "IF")) {
		DL_TRY(sp_advance(p));
		DL_TRY(sp_expect(p, "NOT"));
		DL_TRY(sp_expect(p, "EXISTS"));
		st->if_not_exists = true;
	}
	DL_TRY(sp_table_name(p, &st->table));
	if (st->table->tt.kind != TT_NONE) return sp_syntax_error(p);
	if (sp_is(p, "SHALLOW") || sp_is(p, "DEEP") || sp_is(p, "CLONE")) {
		st->kind = ST_CLONE;
		if (sp_is(p, "DEEP"))
			return sp_error_at(p, (size_t)p->tok.pos, "DELTA_UNSUPPORTED_DEEP_CLONE",
			                   "Deep clone is not supported by this Delta version; use SHALLOW CLONE");
		if (sp_accept(p, "SHALLOW") == 1) st->shallow = true;
		DL_TRY(sp_expect(p, "CLONE"));
		DL_TRY(sp_table_name(p, &st->source));
		return table_clauses(p, st, true);
	}
	if (!st->or_replace && sp_accept(p, "LIKE") == 1) {
		st->like = true;
		DL_TRY(sp_table_name(p, &st->source));
		return table_clauses(p, st, false);
	}
	if (sp_is_op(p, "(")) DL_TRY(column_list(p, st));
	DL_TRY(table_clauses(p, st, false));
	int as = sp_accept(p, "AS");
	if (as < 0) return as;
	if (as || sp_is(p, "SELECT") || sp_is(p, "WITH") || sp_is(p, "VALUES") || sp_is_op(p, "("))
		DL_TRY(sp_query(p, &st->query));
	return 0;
}

int sp_drop(sql_parser *p, sql_stmt *st)
{
	DL_TRY(sp_expect(p, "DROP"));
	bool schema = sp_is(p, "SCHEMA") || sp_is(p, "DATABASE");
	if (!schema && !sp_is(p, "TABLE")) return sp_syntax_error(p);
	st->kind = schema ? ST_DROP_SCHEMA : ST_DROP_TABLE;
	DL_TRY(sp_advance(p));
	if (sp_is(p, "IF")) {
		DL_TRY(sp_advance(p));
		DL_TRY(sp_expect(p, "EXISTS"));
		st->if_exists = true;
	}
	if (schema) {
		DL_TRY(sp_name(p, &st->schema));
		if (sp_accept(p, "CASCADE") == 1) st->cascade = true;
		else DL_TRY(sp_accept(p, "RESTRICT"));
		return 0;
	}
	DL_TRY(sp_table_name(p, &st->table));
	DL_TRY(sp_accept(p, "PURGE"));
	return 0;
}
