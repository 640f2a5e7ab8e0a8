/* The statement dispatcher and the small statements: DESCRIBE, SHOW, USE,
 * EXPLAIN, SET and RESET. */
#include "sql/parser.h"
#include "util/error.h"
#include <ctype.h>
#include <string.h>

static int describe(sql_parser *p, sql_stmt *st)
{
	DL_TRY(sp_advance(p));
	/* HISTORY / DETAIL are keywords unless they are the table's name */
	bool more = !sp_peek_op(p, 1, ".") && !sp_peek_end(p, 1) && p->tok.kind == TK_IDENT;
	if (more && sp_is(p, "HISTORY")) {
		DL_TRY(sp_advance(p));
		st->kind = ST_DESCRIBE_HISTORY;
		DL_TRY(sp_delta_target(p, &st->table));
		if (sp_accept(p, "LIMIT") == 1) DL_TRY(sp_expr(p, &st->limit));
		return 0;
	}
	if (more && sp_is(p, "DETAIL")) {
		DL_TRY(sp_advance(p));
		st->kind = ST_DESCRIBE_DETAIL;
		return sp_delta_target(p, &st->table);
	}
	st->kind = ST_DESCRIBE_TABLE;
	if (sp_is(p, "TABLE") && !sp_peek_op(p, 1, ".") && !sp_peek_end(p, 1)) DL_TRY(sp_advance(p));
	if ((sp_is(p, "EXTENDED") || sp_is(p, "FORMATTED")) && !sp_peek_op(p, 1, ".") && !sp_peek_end(p, 1)) {
		st->extended = true;
		DL_TRY(sp_advance(p));
	}
	return sp_table_name(p, &st->table);
}

static int in_schema(sql_parser *p, sql_name *out)
{
	if (sp_is(p, "IN") || sp_is(p, "FROM")) {
		DL_TRY(sp_advance(p));
		return sp_name(p, out);
	}
	return 0;
}

static int like_pattern(sql_parser *p, sql_stmt *st)
{
	DL_TRY(sp_accept(p, "LIKE"));
	if (p->tok.kind == TK_STRING) return sp_string(p, &st->pattern);
	return 0;
}

static int show(sql_parser *p, sql_stmt *st)
{
	DL_TRY(sp_advance(p));
	if (sp_accept(p, "TABLES") == 1) {
		st->kind = ST_SHOW_TABLES;
		DL_TRY(in_schema(p, &st->schema));
		return like_pattern(p, st);
	}
	if (sp_accept(p, "SCHEMAS") == 1 || sp_accept(p, "DATABASES") == 1 || sp_accept(p, "NAMESPACES") == 1) {
		st->kind = ST_SHOW_SCHEMAS;
		return like_pattern(p, st);
	}
	if (sp_accept(p, "COLUMNS") == 1) {
		st->kind = ST_SHOW_COLUMNS;
		if (!sp_is(p, "IN") && !sp_is(p, "FROM")) return sp_syntax_error(p);
		DL_TRY(sp_advance(p));
		DL_TRY(sp_table_name(p, &st->table));
		return in_schema(p, &st->schema);
	}
	if (sp_accept(p, "TBLPROPERTIES") == 1) {
		st->kind = ST_SHOW_TBLPROPERTIES;
		DL_TRY(sp_table_name(p, &st->table));
		if (sp_is_op(p, "(")) DL_TRY(sp_props(p, &st->props, &st->nprops, true));
		if (st->nprops > 1) return sp_syntax_error(p);
		return 0;
	}
	if (sp_accept(p, "CREATE") == 1) {
		st->kind = ST_SHOW_CREATE_TABLE;
		DL_TRY(sp_expect(p, "TABLE"));
		return sp_table_name(p, &st->table);
	}
	return sp_syntax_error(p);
}

static const char *trimmed(sql_parser *p, size_t a, size_t b)
{
	while (a < b && isspace((unsigned char)p->src[a])) a++;
	while (b > a && isspace((unsigned char)p->src[b - 1])) b--;
	return dl_arena_strndup(SP_ARENA(p), p->src + a, b - a);
}

/* SET, SET key, SET key = value: Spark takes both as raw text. */
static int set(sql_parser *p, sql_stmt *st, bool reset)
{
	st->kind = reset ? ST_RESET : ST_SET;
	DL_TRY(sp_advance(p));
	if (p->tok.kind == TK_EOF) return 0;
	size_t kstart = (size_t)p->tok.pos;
	while (p->tok.kind != TK_EOF && !(!reset && sp_is_op(p, "="))) DL_TRY(sp_advance(p));
	size_t kend = (size_t)p->tok.pos;
	if (!(st->key = trimmed(p, kstart, kend))) return DL_ENOMEM;
	if (!*st->key) return sp_syntax_error(p);
	if (p->tok.kind == TK_EOF) return 0;
	size_t vstart = (size_t)p->tok.pos + 1;
	if (!(st->value = trimmed(p, vstart, p->len))) return DL_ENOMEM;
	return sp_seek(p, p->len);
}

int sp_misc(sql_parser *p, sql_stmt *st)
{
	if (sp_is(p, "DESCRIBE") || sp_is(p, "DESC")) return describe(p, st);
	if (sp_is(p, "SHOW")) return show(p, st);
	if (sp_is(p, "USE")) {
		st->kind = ST_USE;
		DL_TRY(sp_advance(p));
		/* USE SCHEMA s; USE schema names a schema called "schema" */
		if ((sp_is(p, "SCHEMA") || sp_is(p, "DATABASE") || sp_is(p, "NAMESPACE")) && !sp_peek_op(p, 1, ".") &&
		    !sp_peek_end(p, 1))
			DL_TRY(sp_advance(p));
		return sp_name(p, &st->schema);
	}
	if (sp_is(p, "EXPLAIN")) {
		st->kind = ST_EXPLAIN;
		DL_TRY(sp_advance(p));
		static const char *const modes[] = {"EXTENDED", "FORMATTED", "CODEGEN", "COST", "LOGICAL", NULL};
		for (int i = 0; modes[i]; i++) {
			if (!sp_is(p, modes[i])) continue;
			char *m = dl_arena_strdup(SP_ARENA(p), modes[i]);
			if (!m) return DL_ENOMEM;
			for (char *c = m; *c; c++) *c = (char)tolower((unsigned char)*c);
			st->explain_mode = m;
			DL_TRY(sp_advance(p));
			break;
		}
		sql_stmt *in = sp_alloc(p, sizeof *in);
		if (!in) return DL_ENOMEM;
		in->pos = p->tok.pos;
		in->start = (size_t)p->tok.pos;
		in->end = st->end;
		if (sp_is(p, "EXPLAIN")) return sp_syntax_error(p);
		DL_TRY(sp_enter(p));
		DL_TRY(sp_stmt(p, in));
		p->depth--;
		st->inner = in;
		return 0;
	}
	if (sp_is(p, "SET")) return set(p, st, false);
	if (sp_is(p, "RESET")) return set(p, st, true);
	return sp_syntax_error(p);
}

int sp_stmt(sql_parser *p, sql_stmt *st)
{
	if (sp_is(p, "WITH")) {
		/* WITH ... INSERT: the common table expressions belong to the
		 * inserted query (Spark reads INSERT INTO t WITH ... SELECT too) */
		sql_cte *ctes = NULL;
		int n = 0;
		DL_TRY(sp_ctes(p, &ctes, &n));
		if (sp_is(p, "INSERT")) {
			DL_TRY(sp_insert(p, st));
		} else {
			st->kind = ST_QUERY;
			DL_TRY(sp_query(p, &st->query));
		}
		sql_query *q = st->query;
		if (q->nctes) {
			/* both lists: the outer ones first, inner ones see them */
			sql_cte *all = sp_alloc(p, (size_t)(n + q->nctes) * sizeof *all);
			if (!all) return DL_ENOMEM;
			memcpy(all, ctes, (size_t)n * sizeof *all);
			memcpy(all + n, q->ctes, (size_t)q->nctes * sizeof *all);
			ctes = all;
			n += q->nctes;
		}
		q->ctes = ctes;
		q->nctes = n;
		return 0;
	}
	if (sp_is(p, "SELECT") || sp_is(p, "VALUES") || sp_is(p, "TABLE") || sp_is_op(p, "(")) {
		st->kind = ST_QUERY;
		return sp_query(p, &st->query);
	}
	if (sp_is(p, "CREATE") || (sp_is(p, "REPLACE") && sp_peek_is(p, 1, "TABLE"))) return sp_create(p, st);
	if (sp_is(p, "DROP")) return sp_drop(p, st);
	if (sp_is(p, "INSERT")) return sp_insert(p, st);
	if (sp_is(p, "DELETE")) return sp_delete(p, st);
	if (sp_is(p, "UPDATE")) return sp_update(p, st);
	if (sp_is(p, "MERGE")) return sp_merge(p, st);
	if (sp_is(p, "ALTER")) return sp_alter(p, st);
	static const char *const maint[] = {"OPTIMIZE", "REORG", "VACUUM", "RESTORE", "CONVERT", "GENERATE", "FSCK", NULL};
	for (int i = 0; maint[i]; i++)
		if (sp_is(p, maint[i])) return sp_maintenance(p, st);
	return sp_misc(p, st);
}
