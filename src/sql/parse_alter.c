/* ALTER TABLE in the forms Spark and Delta accept (Delta's
 * DeltaSqlBase.g4 adds constraints, features and clustering). */
#include "sql/parser.h"
#include "util/error.h"
#include <string.h>

static int if_exists(sql_parser *p, sql_stmt *st)
{
	if (!sp_is(p, "IF")) return 0;
	DL_TRY(sp_advance(p));
	DL_TRY(sp_expect(p, "EXISTS"));
	st->if_exists = true;
	return 0;
}

static int col_defs(sql_parser *p, sql_stmt *st, bool parens)
{
	int cap = 0;
	if (parens) DL_TRY(sp_expect_op(p, "("));
	do {
		sql_column_def c;
		DL_TRY(sp_column_def(p, &c, true));
		DL_TRY(SP_PUSH(p, st->cols, st->ncols, cap, c));
	} while (sp_accept_op(p, ",") == 1);
	return parens ? sp_expect_op(p, ")") : 0;
}

static int add(sql_parser *p, sql_stmt *st)
{
	if (sp_accept(p, "CONSTRAINT") == 1) {
		st->alter = ALTER_ADD_CONSTRAINT;
		char *name;
		DL_TRY(sp_ident(p, &name));
		st->constraint = name;
		DL_TRY(sp_expect(p, "CHECK"));
		DL_TRY(sp_expect_op(p, "("));
		const char *start = p->tok.p;
		DL_TRY(sp_expr(p, &st->check));
		/* the text as written: Spark stores the constraint as given */
		const char *end = p->tok.p;
		while (end > start && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n')) end--;
		st->check_text = dl_arena_strndup(SP_ARENA(p), start, (size_t)(end - start));
		if (!st->check_text) return DL_ENOMEM;
		return sp_expect_op(p, ")");
	}
	st->alter = ALTER_ADD_COLUMNS;
	if (sp_accept(p, "COLUMNS") == 1) return col_defs(p, st, sp_is_op(p, "("));
	DL_TRY(sp_expect(p, "COLUMN"));
	return col_defs(p, st, sp_is_op(p, "("));
}

static int drop(sql_parser *p, sql_stmt *st)
{
	if (sp_accept(p, "CONSTRAINT") == 1) {
		st->alter = ALTER_DROP_CONSTRAINT;
		DL_TRY(if_exists(p, st));
		char *name;
		DL_TRY(sp_ident(p, &name));
		st->constraint = name;
		return 0;
	}
	if (sp_accept(p, "FEATURE") == 1) {
		st->alter = ALTER_DROP_FEATURE;
		if (p->tok.kind == TK_STRING) DL_TRY(sp_string(p, &st->feature));
		else {
			char *f;
			DL_TRY(sp_ident(p, &f));
			st->feature = f;
		}
		if (sp_accept(p, "TRUNCATE") == 1) {
			DL_TRY(sp_expect(p, "HISTORY"));
			st->truncate_history = true;
		}
		return 0;
	}
	st->alter = ALTER_DROP_COLUMNS;
	if (sp_accept(p, "COLUMNS") != 1) DL_TRY(sp_expect(p, "COLUMN"));
	DL_TRY(if_exists(p, st));
	return sp_name_list(p, &st->drop_cols, &st->ndrop, sp_is_op(p, "("));
}

/* ALTER|CHANGE [COLUMN] name <change>; CHANGE also takes Hive's
 * "old new type [COMMENT c] [FIRST|AFTER x]". */
static int alter_column(sql_parser *p, sql_stmt *st)
{
	DL_TRY(sp_accept(p, "COLUMN"));
	DL_TRY(sp_name(p, &st->column));
	st->alter = ALTER_ALTER_COLUMN;
	sql_column_def *c = sp_alloc(p, sizeof *c);
	if (!c) return DL_ENOMEM;
	st->cols = c;
	st->ncols = 1;
	c->name = st->column;
	if (sp_accept(p, "TYPE") == 1) {
		st->alter_col = ALTCOL_TYPE;
		return sp_type(p, &c->type);
	}
	if (sp_accept(p, "COMMENT") == 1) {
		st->alter_col = ALTCOL_COMMENT;
		return sp_string(p, &c->comment);
	}
	if (sp_is(p, "SET") || sp_is(p, "DROP")) {
		bool set = sp_is(p, "SET");
		DL_TRY(sp_advance(p));
		if (sp_accept(p, "DEFAULT") == 1) {
			st->alter_col = set ? ALTCOL_SET_DEFAULT : ALTCOL_DROP_DEFAULT;
			return set ? sp_expr(p, &c->default_value) : 0;
		}
		DL_TRY(sp_expect(p, "NOT"));
		DL_TRY(sp_expect(p, "NULL"));
		st->alter_col = set ? ALTCOL_SET_NOT_NULL : ALTCOL_DROP_NOT_NULL;
		return 0;
	}
	if (sp_accept(p, "FIRST") == 1) {
		st->alter_col = ALTCOL_POSITION;
		c->place = PLACE_FIRST;
		return 0;
	}
	if (sp_accept(p, "AFTER") == 1) {
		st->alter_col = ALTCOL_POSITION;
		c->place = PLACE_AFTER;
		return sp_name(p, &c->after);
	}
	if (sp_accept(p, "SYNC") == 1) {
		st->alter_col = ALTCOL_SYNC_IDENTITY;
		return sp_expect(p, "IDENTITY");
	}
	if (p->tok.kind == TK_IDENT || p->tok.kind == TK_QIDENT) {
		st->alter = ALTER_CHANGE_COLUMN;
		DL_TRY(sp_column_def(p, c, true));
		return 0;
	}
	return sp_syntax_error(p);
}

int sp_alter(sql_parser *p, sql_stmt *st)
{
	st->kind = ST_ALTER_TABLE;
	DL_TRY(sp_expect(p, "ALTER"));
	DL_TRY(sp_expect(p, "TABLE"));
	DL_TRY(sp_table_name(p, &st->table));
	if (st->table->tt.kind != TT_NONE) return sp_syntax_error(p);
	if (sp_accept(p, "ADD") == 1) return add(p, st);
	if (sp_accept(p, "DROP") == 1) return drop(p, st);
	if (sp_accept(p, "RENAME") == 1) {
		if (sp_accept(p, "TO") == 1) {
			st->alter = ALTER_RENAME_TABLE;
			return sp_name(p, &st->new_name);
		}
		DL_TRY(sp_expect(p, "COLUMN"));
		st->alter = ALTER_RENAME_COLUMN;
		DL_TRY(sp_name(p, &st->column));
		DL_TRY(sp_expect(p, "TO"));
		return sp_name(p, &st->new_name);
	}
	if (sp_is(p, "ALTER") || sp_is(p, "CHANGE")) {
		DL_TRY(sp_advance(p));
		return alter_column(p, st);
	}
	if (sp_accept(p, "REPLACE") == 1) {
		DL_TRY(sp_expect(p, "COLUMNS"));
		st->alter = ALTER_REPLACE_COLUMNS;
		return col_defs(p, st, true);
	}
	if (sp_accept(p, "SET") == 1) {
		if (sp_accept(p, "LOCATION") == 1) {
			st->alter = ALTER_SET_LOCATION;
			return sp_string(p, &st->location);
		}
		DL_TRY(sp_expect(p, "TBLPROPERTIES"));
		st->alter = ALTER_SET_PROPERTIES;
		return sp_props(p, &st->props, &st->nprops, false);
	}
	if (sp_accept(p, "UNSET") == 1) {
		DL_TRY(sp_expect(p, "TBLPROPERTIES"));
		st->alter = ALTER_UNSET_PROPERTIES;
		DL_TRY(if_exists(p, st));
		return sp_props(p, &st->props, &st->nprops, true);
	}
	if (sp_accept(p, "CLUSTER") == 1) {
		DL_TRY(sp_expect(p, "BY"));
		st->alter = ALTER_CLUSTER_BY;
		if (sp_accept(p, "NONE") == 1) {
			st->cluster_none = true;
			return 0;
		}
		DL_TRY(sp_name_list(p, &st->cluster_cols, &st->ncluster, true));
		st->cluster_none = st->ncluster == 0;
		return 0;
	}
	return sp_syntax_error(p);
}
