/* Canonical SQL of statements (see dl_sql_print). */
#include "sql/print.h"
#include "util/error.h"
#include <string.h>

static int props(dl_buf *out, const sql_prop *p, int n, bool keys_only)
{
	DL_TRY(dl_buf_putc(out, '('));
	for (int i = 0; i < n; i++) {
		if (i) DL_TRY(dl_buf_puts(out, ", "));
		DL_TRY(sqlp_string(out, p[i].key));
		if (!keys_only && p[i].value) {
			DL_TRY(dl_buf_puts(out, " = "));
			DL_TRY(sqlp_string(out, p[i].value));
		}
	}
	return dl_buf_putc(out, ')');
}

int sqlp_column_clauses(dl_buf *out, const sql_column_def *c)
{
	if (c->type) {
		DL_TRY(dl_buf_putc(out, ' '));
		DL_TRY(sqlp_type(out, c->type));
	}
	if (c->not_null) DL_TRY(dl_buf_puts(out, " NOT NULL"));
	if (c->generated) {
		DL_TRY(dl_buf_puts(out, " GENERATED ALWAYS AS ("));
		DL_TRY(ex_print(out, c->generated));
		DL_TRY(dl_buf_putc(out, ')'));
	}
	if (c->identity) {
		DL_TRY(dl_buf_printf(out, " GENERATED %s AS IDENTITY", c->identity_always ? "ALWAYS" : "BY DEFAULT"));
		if (c->has_start || c->has_step) {
			DL_TRY(dl_buf_putc(out, '('));
			if (c->has_start) DL_TRY(dl_buf_printf(out, "START WITH %lld", (long long)c->start));
			if (c->has_step)
				DL_TRY(dl_buf_printf(out, "%sINCREMENT BY %lld", c->has_start ? " " : "", (long long)c->step));
			DL_TRY(dl_buf_putc(out, ')'));
		}
	}
	if (c->default_value) {
		DL_TRY(dl_buf_puts(out, " DEFAULT "));
		DL_TRY(ex_print(out, c->default_value));
	}
	if (c->comment) {
		DL_TRY(dl_buf_puts(out, " COMMENT "));
		DL_TRY(sqlp_string(out, c->comment));
	}
	return 0;
}

static int column_def(dl_buf *out, const sql_column_def *c)
{
	DL_TRY(sqlp_name(out, &c->name));
	DL_TRY(sqlp_column_clauses(out, c));
	if (c->place == PLACE_FIRST) DL_TRY(dl_buf_puts(out, " FIRST"));
	if (c->place == PLACE_AFTER) {
		DL_TRY(dl_buf_puts(out, " AFTER "));
		DL_TRY(sqlp_name(out, &c->after));
	}
	return 0;
}

static int column_defs(dl_buf *out, const sql_column_def *c, int n)
{
	DL_TRY(dl_buf_putc(out, '('));
	for (int i = 0; i < n; i++) {
		if (i) DL_TRY(dl_buf_puts(out, ", "));
		DL_TRY(column_def(out, &c[i]));
	}
	return dl_buf_putc(out, ')');
}

static int assigns(dl_buf *out, const sql_assign *a, int n)
{
	for (int i = 0; i < n; i++) {
		if (i) DL_TRY(dl_buf_puts(out, ", "));
		DL_TRY(sqlp_name(out, &a[i].column));
		DL_TRY(dl_buf_puts(out, " = "));
		DL_TRY(ex_print(out, a[i].value));
	}
	return 0;
}

static int kw_expr(dl_buf *out, const char *kw, const ex_node *e)
{
	if (!e) return 0;
	DL_TRY(dl_buf_puts(out, kw));
	return ex_print(out, e);
}

static int target(dl_buf *out, const sql_table_ref *t, bool with_alias)
{
	sql_table_ref copy = *t;
	if (!with_alias) copy.alias = NULL;
	return sqlp_table_ref(out, &copy);
}

static int create(dl_buf *out, const sql_stmt *st)
{
	DL_TRY(dl_buf_puts(out, st->replace_only ? "REPLACE TABLE " : st->or_replace ? "CREATE OR REPLACE TABLE " : "CREATE TABLE "));
	if (st->if_not_exists) DL_TRY(dl_buf_puts(out, "IF NOT EXISTS "));
	DL_TRY(target(out, st->table, false));
	if (st->kind == ST_CLONE) {
		DL_TRY(dl_buf_puts(out, st->shallow ? " SHALLOW CLONE " : " CLONE "));
		DL_TRY(target(out, st->source, false));
	}
	if (st->like) {
		DL_TRY(dl_buf_puts(out, " LIKE "));
		DL_TRY(target(out, st->source, false));
	}
	if (st->has_columns) {
		DL_TRY(dl_buf_putc(out, ' '));
		DL_TRY(column_defs(out, st->cols, st->ncols));
	}
	if (st->using) DL_TRY(dl_buf_printf(out, " USING %s", st->using));
	if (st->noptions) {
		DL_TRY(dl_buf_puts(out, " OPTIONS "));
		DL_TRY(props(out, st->options, st->noptions, false));
	}
	if (st->npart) {
		DL_TRY(dl_buf_puts(out, " PARTITIONED BY "));
		DL_TRY(sqlp_names(out, st->part_cols, st->npart));
	}
	if (st->cluster_none) DL_TRY(dl_buf_puts(out, " CLUSTER BY NONE"));
	else if (st->ncluster) {
		DL_TRY(dl_buf_puts(out, " CLUSTER BY "));
		DL_TRY(sqlp_names(out, st->cluster_cols, st->ncluster));
	}
	if (st->comment) {
		DL_TRY(dl_buf_puts(out, " COMMENT "));
		DL_TRY(sqlp_string(out, st->comment));
	}
	if (st->nprops) {
		DL_TRY(dl_buf_puts(out, " TBLPROPERTIES "));
		DL_TRY(props(out, st->props, st->nprops, false));
	}
	if (st->location) {
		DL_TRY(dl_buf_puts(out, " LOCATION "));
		DL_TRY(sqlp_string(out, st->location));
	}
	if (st->query) {
		DL_TRY(dl_buf_puts(out, " AS "));
		DL_TRY(dl_sql_print_query(out, st->query));
	}
	return 0;
}

static int merge(dl_buf *out, const sql_stmt *st)
{
	DL_TRY(dl_buf_puts(out, st->schema_evolution ? "MERGE WITH SCHEMA EVOLUTION INTO " : "MERGE INTO "));
	DL_TRY(target(out, st->table, true));
	DL_TRY(dl_buf_puts(out, " USING "));
	DL_TRY(sqlp_table_ref(out, st->source));
	DL_TRY(kw_expr(out, " ON ", st->on));
	for (int i = 0; i < st->nclauses; i++) {
		const sql_merge_clause *c = &st->clauses[i];
		static const char *const m[] = {" WHEN MATCHED", " WHEN NOT MATCHED", " WHEN NOT MATCHED BY SOURCE"};
		DL_TRY(dl_buf_puts(out, m[c->match]));
		DL_TRY(kw_expr(out, " AND ", c->cond));
		DL_TRY(dl_buf_puts(out, " THEN "));
		switch (c->action) {
		case MERGE_UPDATE:
			DL_TRY(dl_buf_puts(out, "UPDATE SET "));
			DL_TRY(assigns(out, c->sets, c->nsets));
			break;
		case MERGE_UPDATE_STAR: DL_TRY(dl_buf_puts(out, "UPDATE SET *")); break;
		case MERGE_DELETE: DL_TRY(dl_buf_puts(out, "DELETE")); break;
		case MERGE_INSERT_STAR: DL_TRY(dl_buf_puts(out, "INSERT *")); break;
		case MERGE_INSERT:
			DL_TRY(dl_buf_puts(out, "INSERT "));
			if (c->ncols) {
				DL_TRY(sqlp_names(out, c->cols, c->ncols));
				DL_TRY(dl_buf_putc(out, ' '));
			}
			DL_TRY(dl_buf_puts(out, "VALUES ("));
			DL_TRY(sqlp_exprs(out, c->values, c->nvalues));
			DL_TRY(dl_buf_putc(out, ')'));
			break;
		}
	}
	return 0;
}

static int alter_column(dl_buf *out, const sql_stmt *st)
{
	const sql_column_def *c = &st->cols[0];
	DL_TRY(dl_buf_puts(out, " ALTER COLUMN "));
	DL_TRY(sqlp_name(out, &st->column));
	switch (st->alter_col) {
	case ALTCOL_TYPE:
		DL_TRY(dl_buf_puts(out, " TYPE "));
		return sqlp_type(out, c->type);
	case ALTCOL_COMMENT:
		DL_TRY(dl_buf_puts(out, " COMMENT "));
		return sqlp_string(out, c->comment);
	case ALTCOL_SET_NOT_NULL: return dl_buf_puts(out, " SET NOT NULL");
	case ALTCOL_DROP_NOT_NULL: return dl_buf_puts(out, " DROP NOT NULL");
	case ALTCOL_POSITION:
		if (c->place == PLACE_FIRST) return dl_buf_puts(out, " FIRST");
		DL_TRY(dl_buf_puts(out, " AFTER "));
		return sqlp_name(out, &c->after);
	case ALTCOL_SET_DEFAULT: return kw_expr(out, " SET DEFAULT ", c->default_value);
	case ALTCOL_DROP_DEFAULT: return dl_buf_puts(out, " DROP DEFAULT");
	case ALTCOL_SYNC_IDENTITY: return dl_buf_puts(out, " SYNC IDENTITY");
	}
	return 0;
}

static int alter(dl_buf *out, const sql_stmt *st)
{
	DL_TRY(dl_buf_puts(out, "ALTER TABLE "));
	DL_TRY(target(out, st->table, false));
	switch (st->alter) {
	case ALTER_ADD_COLUMNS:
		DL_TRY(dl_buf_puts(out, " ADD COLUMNS "));
		return column_defs(out, st->cols, st->ncols);
	case ALTER_REPLACE_COLUMNS:
		DL_TRY(dl_buf_puts(out, " REPLACE COLUMNS "));
		return column_defs(out, st->cols, st->ncols);
	case ALTER_DROP_COLUMNS:
		DL_TRY(dl_buf_puts(out, st->if_exists ? " DROP COLUMNS IF EXISTS " : " DROP COLUMNS "));
		return sqlp_names(out, st->drop_cols, st->ndrop);
	case ALTER_RENAME_COLUMN:
		DL_TRY(dl_buf_puts(out, " RENAME COLUMN "));
		DL_TRY(sqlp_name(out, &st->column));
		DL_TRY(dl_buf_puts(out, " TO "));
		return sqlp_name(out, &st->new_name);
	case ALTER_RENAME_TABLE:
		DL_TRY(dl_buf_puts(out, " RENAME TO "));
		return sqlp_name(out, &st->new_name);
	case ALTER_ALTER_COLUMN: return alter_column(out, st);
	case ALTER_CHANGE_COLUMN:
		DL_TRY(dl_buf_puts(out, " CHANGE COLUMN "));
		DL_TRY(sqlp_name(out, &st->column));
		DL_TRY(dl_buf_putc(out, ' '));
		return column_def(out, &st->cols[0]);
	case ALTER_SET_PROPERTIES:
		DL_TRY(dl_buf_puts(out, " SET TBLPROPERTIES "));
		return props(out, st->props, st->nprops, false);
	case ALTER_UNSET_PROPERTIES:
		DL_TRY(dl_buf_puts(out, st->if_exists ? " UNSET TBLPROPERTIES IF EXISTS " : " UNSET TBLPROPERTIES "));
		return props(out, st->props, st->nprops, true);
	case ALTER_ADD_CONSTRAINT:
		DL_TRY(dl_buf_puts(out, " ADD CONSTRAINT "));
		DL_TRY(sqlp_ident(out, st->constraint));
		DL_TRY(dl_buf_puts(out, " CHECK ("));
		DL_TRY(ex_print(out, st->check));
		return dl_buf_putc(out, ')');
	case ALTER_DROP_CONSTRAINT:
		DL_TRY(dl_buf_puts(out, st->if_exists ? " DROP CONSTRAINT IF EXISTS " : " DROP CONSTRAINT "));
		return sqlp_ident(out, st->constraint);
	case ALTER_DROP_FEATURE:
		DL_TRY(dl_buf_puts(out, " DROP FEATURE "));
		DL_TRY(sqlp_ident(out, st->feature));
		return st->truncate_history ? dl_buf_puts(out, " TRUNCATE HISTORY") : 0;
	case ALTER_CLUSTER_BY:
		if (st->cluster_none) return dl_buf_puts(out, " CLUSTER BY NONE");
		DL_TRY(dl_buf_puts(out, " CLUSTER BY "));
		return sqlp_names(out, st->cluster_cols, st->ncluster);
	case ALTER_SET_LOCATION:
		DL_TRY(dl_buf_puts(out, " SET LOCATION "));
		return sqlp_string(out, st->location);
	}
	return 0;
}

static int maintenance(dl_buf *out, const sql_stmt *st)
{
	switch (st->kind) {
	case ST_OPTIMIZE:
		DL_TRY(dl_buf_puts(out, "OPTIMIZE "));
		DL_TRY(target(out, st->table, false));
		DL_TRY(kw_expr(out, " WHERE ", st->where));
		if (st->full) DL_TRY(dl_buf_puts(out, " FULL"));
		if (st->nzorder) {
			DL_TRY(dl_buf_puts(out, " ZORDER BY "));
			DL_TRY(sqlp_names(out, st->zorder, st->nzorder));
		}
		return 0;
	case ST_REORG:
		DL_TRY(dl_buf_puts(out, "REORG TABLE "));
		DL_TRY(target(out, st->table, false));
		DL_TRY(kw_expr(out, " WHERE ", st->where));
		if (st->purge) return dl_buf_puts(out, " APPLY (PURGE)");
		return dl_buf_printf(out, " APPLY (UPGRADE UNIFORM (ICEBERG_COMPAT_VERSION = %d))", st->iceberg_compat_version);
	case ST_VACUUM:
		DL_TRY(dl_buf_puts(out, "VACUUM "));
		DL_TRY(target(out, st->table, false));
		if (st->source) {
			DL_TRY(dl_buf_puts(out, " USING INVENTORY "));
			DL_TRY(target(out, st->source, false));
		}
		if (st->lite) DL_TRY(dl_buf_puts(out, " LITE"));
		if (st->full) DL_TRY(dl_buf_puts(out, " FULL"));
		DL_TRY(kw_expr(out, " RETAIN ", st->retain_hours));
		if (st->retain_hours) DL_TRY(dl_buf_puts(out, " HOURS"));
		return st->dry_run ? dl_buf_puts(out, " DRY RUN") : 0;
	case ST_RESTORE:
		DL_TRY(dl_buf_puts(out, "RESTORE TABLE "));
		DL_TRY(target(out, st->table, false));
		DL_TRY(dl_buf_puts(out, " TO"));
		return sqlp_time_travel(out, &st->tt);
	case ST_CONVERT:
		DL_TRY(dl_buf_puts(out, "CONVERT TO DELTA "));
		DL_TRY(target(out, st->table, false));
		if (st->no_statistics) DL_TRY(dl_buf_puts(out, " NO STATISTICS"));
		if (st->ncols) {
			DL_TRY(dl_buf_puts(out, " PARTITIONED BY "));
			DL_TRY(column_defs(out, st->cols, st->ncols));
		}
		return 0;
	case ST_GENERATE:
		DL_TRY(dl_buf_printf(out, "GENERATE %s FOR TABLE ", st->mode));
		return target(out, st->table, false);
	case ST_FSCK:
		DL_TRY(dl_buf_puts(out, "FSCK REPAIR TABLE "));
		DL_TRY(target(out, st->table, false));
		return st->dry_run ? dl_buf_puts(out, " DRY RUN") : 0;
	default: return 0;
	}
}

int dl_sql_print(dl_buf *out, const sql_stmt *st)
{
	switch (st->kind) {
	case ST_QUERY: return dl_sql_print_query(out, st->query);
	case ST_CREATE_TABLE:
	case ST_CLONE: return create(out, st);
	case ST_INSERT:
		DL_TRY(dl_buf_puts(out, st->schema_evolution ? "INSERT WITH SCHEMA EVOLUTION " : "INSERT "));
		DL_TRY(dl_buf_puts(out, st->overwrite ? "OVERWRITE TABLE " : "INTO "));
		DL_TRY(target(out, st->table, false));
		if (st->ninsert_cols) {
			DL_TRY(dl_buf_putc(out, ' '));
			DL_TRY(sqlp_names(out, st->insert_cols, st->ninsert_cols));
		}
		DL_TRY(kw_expr(out, " REPLACE WHERE ", st->where));
		DL_TRY(dl_buf_putc(out, ' '));
		return dl_sql_print_query(out, st->query);
	case ST_DELETE:
		DL_TRY(dl_buf_puts(out, "DELETE FROM "));
		DL_TRY(target(out, st->table, true));
		return kw_expr(out, " WHERE ", st->where);
	case ST_UPDATE:
		DL_TRY(dl_buf_puts(out, "UPDATE "));
		DL_TRY(target(out, st->table, true));
		DL_TRY(dl_buf_puts(out, " SET "));
		DL_TRY(assigns(out, st->sets, st->nsets));
		return kw_expr(out, " WHERE ", st->where);
	case ST_MERGE: return merge(out, st);
	case ST_OPTIMIZE:
	case ST_REORG:
	case ST_VACUUM:
	case ST_RESTORE:
	case ST_CONVERT:
	case ST_GENERATE:
	case ST_FSCK: return maintenance(out, st);
	case ST_ALTER_TABLE: return alter(out, st);
	case ST_DESCRIBE_TABLE:
		DL_TRY(dl_buf_puts(out, st->extended ? "DESCRIBE TABLE EXTENDED " : "DESCRIBE TABLE "));
		return target(out, st->table, false);
	case ST_DESCRIBE_HISTORY:
		DL_TRY(dl_buf_puts(out, "DESCRIBE HISTORY "));
		DL_TRY(target(out, st->table, false));
		return kw_expr(out, " LIMIT ", st->limit);
	case ST_DESCRIBE_DETAIL:
		DL_TRY(dl_buf_puts(out, "DESCRIBE DETAIL "));
		return target(out, st->table, false);
	case ST_SHOW_TABLES:
		DL_TRY(dl_buf_puts(out, "SHOW TABLES"));
		if (st->schema.nparts) {
			DL_TRY(dl_buf_puts(out, " IN "));
			DL_TRY(sqlp_name(out, &st->schema));
		}
		if (st->pattern) {
			DL_TRY(dl_buf_puts(out, " LIKE "));
			DL_TRY(sqlp_string(out, st->pattern));
		}
		return 0;
	case ST_SHOW_SCHEMAS:
		DL_TRY(dl_buf_puts(out, "SHOW SCHEMAS"));
		if (st->pattern) {
			DL_TRY(dl_buf_puts(out, " LIKE "));
			DL_TRY(sqlp_string(out, st->pattern));
		}
		return 0;
	case ST_SHOW_COLUMNS:
		DL_TRY(dl_buf_puts(out, "SHOW COLUMNS IN "));
		DL_TRY(target(out, st->table, false));
		if (st->schema.nparts) {
			DL_TRY(dl_buf_puts(out, " IN "));
			DL_TRY(sqlp_name(out, &st->schema));
		}
		return 0;
	case ST_SHOW_TBLPROPERTIES:
		DL_TRY(dl_buf_puts(out, "SHOW TBLPROPERTIES "));
		DL_TRY(target(out, st->table, false));
		if (st->nprops) {
			DL_TRY(dl_buf_putc(out, ' '));
			DL_TRY(props(out, st->props, st->nprops, true));
		}
		return 0;
	case ST_SHOW_CREATE_TABLE:
		DL_TRY(dl_buf_puts(out, "SHOW CREATE TABLE "));
		return target(out, st->table, false);
	case ST_CREATE_SCHEMA:
		DL_TRY(dl_buf_puts(out, st->if_not_exists ? "CREATE SCHEMA IF NOT EXISTS " : "CREATE SCHEMA "));
		DL_TRY(sqlp_name(out, &st->schema));
		if (st->comment) {
			DL_TRY(dl_buf_puts(out, " COMMENT "));
			DL_TRY(sqlp_string(out, st->comment));
		}
		if (st->location) {
			DL_TRY(dl_buf_puts(out, " LOCATION "));
			DL_TRY(sqlp_string(out, st->location));
		}
		if (st->nprops) {
			DL_TRY(dl_buf_puts(out, " WITH DBPROPERTIES "));
			DL_TRY(props(out, st->props, st->nprops, false));
		}
		return 0;
	case ST_DROP_SCHEMA:
		DL_TRY(dl_buf_puts(out, st->if_exists ? "DROP SCHEMA IF EXISTS " : "DROP SCHEMA "));
		DL_TRY(sqlp_name(out, &st->schema));
		return st->cascade ? dl_buf_puts(out, " CASCADE") : 0;
	case ST_DROP_TABLE:
		DL_TRY(dl_buf_puts(out, st->if_exists ? "DROP TABLE IF EXISTS " : "DROP TABLE "));
		return target(out, st->table, false);
	case ST_USE:
		DL_TRY(dl_buf_puts(out, "USE "));
		return sqlp_name(out, &st->schema);
	case ST_EXPLAIN:
		DL_TRY(dl_buf_puts(out, "EXPLAIN "));
		if (st->explain_mode) DL_TRY(dl_buf_printf(out, "%s ", st->explain_mode));
		return dl_sql_print(out, st->inner);
	case ST_SET:
	case ST_RESET:
		DL_TRY(dl_buf_puts(out, st->kind == ST_SET ? "SET" : "RESET"));
		if (st->key) DL_TRY(dl_buf_printf(out, " %s", st->key));
		if (st->value) DL_TRY(dl_buf_printf(out, " = %s", st->value));
		return 0;
	}
	return dl_error_set(DL_ERROR, "unknown statement kind %d", (int)st->kind);
}

const char *dl_sql_stmt_kind_name(sql_stmt_kind k)
{
	static const char *const names[] = {
	    [ST_QUERY] = "query", [ST_CREATE_TABLE] = "CREATE TABLE", [ST_CLONE] = "CREATE TABLE CLONE",
	    [ST_INSERT] = "INSERT", [ST_DELETE] = "DELETE", [ST_UPDATE] = "UPDATE", [ST_MERGE] = "MERGE",
	    [ST_OPTIMIZE] = "OPTIMIZE", [ST_REORG] = "REORG TABLE", [ST_VACUUM] = "VACUUM", [ST_RESTORE] = "RESTORE",
	    [ST_CONVERT] = "CONVERT TO DELTA", [ST_GENERATE] = "GENERATE", [ST_FSCK] = "FSCK REPAIR TABLE",
	    [ST_ALTER_TABLE] = "ALTER TABLE", [ST_DESCRIBE_TABLE] = "DESCRIBE TABLE",
	    [ST_DESCRIBE_HISTORY] = "DESCRIBE HISTORY", [ST_DESCRIBE_DETAIL] = "DESCRIBE DETAIL",
	    [ST_SHOW_TABLES] = "SHOW TABLES", [ST_SHOW_SCHEMAS] = "SHOW SCHEMAS", [ST_SHOW_COLUMNS] = "SHOW COLUMNS",
	    [ST_SHOW_TBLPROPERTIES] = "SHOW TBLPROPERTIES", [ST_SHOW_CREATE_TABLE] = "SHOW CREATE TABLE",
	    [ST_CREATE_SCHEMA] = "CREATE SCHEMA", [ST_DROP_SCHEMA] = "DROP SCHEMA", [ST_DROP_TABLE] = "DROP TABLE",
	    [ST_USE] = "USE", [ST_EXPLAIN] = "EXPLAIN", [ST_SET] = "SET", [ST_RESET] = "RESET",
	};
	return (unsigned)k < sizeof names / sizeof names[0] && names[k] ? names[k] : "statement";
}
