/* Delta's table maintenance commands (DeltaSqlBase.g4): OPTIMIZE, REORG,
 * VACUUM, RESTORE, CONVERT TO DELTA, GENERATE, FSCK REPAIR TABLE. */
#include "sql/parser.h"
#include "util/error.h"
#include <ctype.h>
#include <string.h>

static int optimize(sql_parser *p, sql_stmt *st)
{
	st->kind = ST_OPTIMIZE;
	DL_TRY(sp_advance(p));
	DL_TRY(sp_delta_target(p, &st->table));
	if (sp_accept(p, "WHERE") == 1) DL_TRY(sp_expr(p, &st->where));
	if (sp_accept(p, "FULL") == 1) st->full = true;
	if (sp_accept(p, "ZORDER") == 1) {
		DL_TRY(sp_expect(p, "BY"));
		bool parens = sp_is_op(p, "(");
		DL_TRY(sp_name_list(p, &st->zorder, &st->nzorder, parens));
		if (!st->nzorder) return sp_syntax_error(p);
	}
	return 0;
}

static int reorg(sql_parser *p, sql_stmt *st)
{
	st->kind = ST_REORG;
	DL_TRY(sp_advance(p));
	DL_TRY(sp_expect(p, "TABLE"));
	DL_TRY(sp_delta_target(p, &st->table));
	if (sp_accept(p, "WHERE") == 1) DL_TRY(sp_expr(p, &st->where));
	DL_TRY(sp_expect(p, "APPLY"));
	DL_TRY(sp_expect_op(p, "("));
	if (sp_accept(p, "PURGE") == 1) {
		st->purge = true;
	} else {
		DL_TRY(sp_expect(p, "UPGRADE"));
		DL_TRY(sp_expect(p, "UNIFORM"));
		DL_TRY(sp_expect_op(p, "("));
		DL_TRY(sp_expect(p, "ICEBERG_COMPAT_VERSION"));
		DL_TRY(sp_expect_op(p, "="));
		int64_t v;
		int pos = p->tok.pos;
		DL_TRY(sp_integer(p, &v));
		if (v < 1 || v > 1000)
			return sp_error_at(p, (size_t)pos, "PARSE_SYNTAX_ERROR", "ICEBERG_COMPAT_VERSION must be a small positive integer");
		st->iceberg_compat_version = (int)v;
		DL_TRY(sp_expect_op(p, ")"));
	}
	return sp_expect_op(p, ")");
}

static int vacuum(sql_parser *p, sql_stmt *st)
{
	st->kind = ST_VACUUM;
	DL_TRY(sp_advance(p));
	DL_TRY(sp_delta_target(p, &st->table));
	bool retain = false, dry = false, mode = false;
	if (sp_accept(p, "USING") == 1) {
		/* USING INVENTORY t | (query): the files to consider (Delta 3.1) */
		DL_TRY(sp_expect(p, "INVENTORY"));
		if (sp_is_op(p, "(")) {
			sql_table_ref *t = sp_alloc(p, sizeof *t);
			if (!t) return DL_ENOMEM;
			t->kind = TREF_QUERY;
			t->pos = p->tok.pos;
			DL_TRY(sp_advance(p));
			DL_TRY(sp_query(p, &t->query));
			DL_TRY(sp_expect_op(p, ")"));
			st->source = t;
		} else {
			DL_TRY(sp_table_name(p, &st->source));
		}
	}
	for (;;) {
		if (!retain && sp_accept(p, "RETAIN") == 1) {
			retain = true;
			if (p->tok.kind != TK_NUMBER) return sp_syntax_error(p);
			DL_TRY(sp_expr(p, &st->retain_hours));
			DL_TRY(sp_expect(p, "HOURS"));
		} else if (!dry && sp_is(p, "DRY")) {
			dry = true;
			DL_TRY(sp_advance(p));
			DL_TRY(sp_expect(p, "RUN"));
			st->dry_run = true;
		} else if (!mode && (sp_is(p, "LITE") || sp_is(p, "FULL"))) {
			mode = true;
			st->lite = sp_is(p, "LITE");
			st->full = !st->lite;
			DL_TRY(sp_advance(p));
		} else {
			return 0;
		}
	}
}

static int restore(sql_parser *p, sql_stmt *st)
{
	st->kind = ST_RESTORE;
	DL_TRY(sp_advance(p));
	DL_TRY(sp_accept(p, "TABLE"));
	DL_TRY(sp_delta_target(p, &st->table));
	if (st->table->tt.kind != TT_NONE) return sp_syntax_error(p);
	DL_TRY(sp_accept(p, "TO"));
	DL_TRY(sp_time_travel(p, &st->tt));
	if (st->tt.kind == TT_NONE) return sp_syntax_error(p);
	return 0;
}

/* CONVERT TO DELTA parquet.`path` [NO STATISTICS] [PARTITIONED BY (c type, ...)] */
static int convert(sql_parser *p, sql_stmt *st)
{
	st->kind = ST_CONVERT;
	DL_TRY(sp_advance(p));
	DL_TRY(sp_expect(p, "TO"));
	DL_TRY(sp_expect(p, "DELTA"));
	DL_TRY(sp_delta_target(p, &st->table));
	if (sp_is(p, "NO")) {
		DL_TRY(sp_advance(p));
		DL_TRY(sp_expect(p, "STATISTICS"));
		st->no_statistics = true;
	}
	if (sp_accept(p, "PARTITIONED") == 1) {
		DL_TRY(sp_expect(p, "BY"));
		DL_TRY(sp_expect_op(p, "("));
		int cap = 0;
		do {
			sql_column_def c;
			DL_TRY(sp_column_def(p, &c, false));
			DL_TRY(SP_PUSH(p, st->cols, st->ncols, cap, c));
		} while (sp_accept_op(p, ",") == 1);
		DL_TRY(sp_expect_op(p, ")"));
	}
	return 0;
}

static int generate(sql_parser *p, sql_stmt *st)
{
	st->kind = ST_GENERATE;
	DL_TRY(sp_advance(p));
	char *mode;
	DL_TRY(sp_ident(p, &mode));
	for (char *c = mode; *c; c++) *c = (char)tolower((unsigned char)*c);
	st->mode = mode;
	DL_TRY(sp_expect(p, "FOR"));
	DL_TRY(sp_expect(p, "TABLE"));
	return sp_delta_target(p, &st->table);
}

static int fsck(sql_parser *p, sql_stmt *st)
{
	st->kind = ST_FSCK;
	DL_TRY(sp_advance(p));
	DL_TRY(sp_expect(p, "REPAIR"));
	DL_TRY(sp_expect(p, "TABLE"));
	DL_TRY(sp_delta_target(p, &st->table));
	if (sp_is(p, "DRY")) {
		DL_TRY(sp_advance(p));
		DL_TRY(sp_expect(p, "RUN"));
		st->dry_run = true;
	}
	return 0;
}

int sp_maintenance(sql_parser *p, sql_stmt *st)
{
	if (sp_is(p, "OPTIMIZE")) return optimize(p, st);
	if (sp_is(p, "REORG")) return reorg(p, st);
	if (sp_is(p, "VACUUM")) return vacuum(p, st);
	if (sp_is(p, "RESTORE")) return restore(p, st);
	if (sp_is(p, "CONVERT")) return convert(p, st);
	if (sp_is(p, "GENERATE")) return generate(p, st);
	if (sp_is(p, "FSCK")) return fsck(p, st);
	return sp_syntax_error(p);
}
