/* ALTER TABLE forms on columns (ADD/DROP/RENAME/ALTER/CHANGE/REPLACE
 * COLUMNS) and on the table (RENAME TO, SET LOCATION) onto
 * deltalake/alter.h (src/alter), which holds every rule; this file only
 * translates the parsed statement: column paths and types back to text,
 * DEFAULT expressions printed as Spark SQL, Hive's CHANGE COLUMN
 * `old new type [COMMENT c] [FIRST | AFTER x]` into the change it means.
 * The result has no rows, as Spark's. */
#include "sql/session_internal.h"

#include <string.h>
#include <strings.h>

#include "deltalake/alter.h"
#include "sql/print.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

static int on_progress(const dl_progress_info *info, void *payload)
{
	(void)info;
	dl_sql_conn *c = payload;
	return atomic_load(&c->interrupt) ? 1 : 0;
}

/* Strings of one statement's translation, freed together. */
typedef struct texts {
	char **items;
	int n, cap;
} texts;

static char *keep(texts *t, dl_buf *b)
{
	if (!b->data && dl_buf_puts(b, "") < 0) return NULL;
	if (t->n == t->cap) {
		int cap = t->cap ? 2 * t->cap : 16;
		char **g = dl_realloc(t->items, (size_t)cap * sizeof *g);
		if (!g) return NULL;
		t->items = g;
		t->cap = cap;
	}
	char *s = dl_buf_detach(b, NULL);
	if (s) t->items[t->n++] = s;
	return s;
}

static void texts_free(texts *t)
{
	for (int i = 0; i < t->n; i++) dl_free(t->items[i]);
	dl_free(t->items);
}

/* A column path as deltalake/alter.h takes it: parts joined by '.', a
 * part back-quoted only when it is not a plain word (so messages show
 * names as written). */
static const char *name_text(texts *t, const sql_name *n)
{
	dl_buf b = DL_BUF_INIT;
	int rc = 0;
	for (int i = 0; i < n->nparts && rc == 0; i++) {
		const char *s = n->parts[i];
		bool plain = *s != 0;
		for (const char *c = s; *c && plain; c++)
			plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
			        *c == '_';
		if (i) rc = dl_buf_putc(&b, '.');
		if (rc == 0) rc = plain ? dl_buf_puts(&b, s) : sqlp_ident(&b, s);
	}
	if (rc < 0) {
		dl_buf_free(&b);
		return NULL;
	}
	return keep(t, &b);
}

static const char *type_text(texts *t, const dl_type *ty)
{
	if (!ty) return NULL;
	dl_buf b = DL_BUF_INIT;
	if (sqlp_type(&b, ty) < 0) {
		dl_buf_free(&b);
		return NULL;
	}
	return keep(t, &b);
}

static const char *expr_text(texts *t, const ex_node *e)
{
	if (!e) return NULL;
	dl_buf b = DL_BUF_INIT;
	if (ex_print(&b, e) < 0) {
		dl_buf_free(&b);
		return NULL;
	}
	return keep(t, &b);
}

static int column_of(dl_alter_column *out, texts *t, const sql_column_def *d)
{
	dl_alter_column init = DL_ALTER_COLUMN_INIT;
	*out = init;
	out->name = name_text(t, &d->name);
	out->type = type_text(t, d->type);
	if (!out->name || (d->type && !out->type)) return dl_error_set(DL_ENOMEM, "out of memory");
	out->not_null = d->not_null;
	out->comment = d->comment;
	if (d->default_value && !(out->default_sql = expr_text(t, d->default_value)))
		return dl_error_last()->code < 0 ? dl_error_last()->code : DL_ENOMEM;
	out->position = d->place == PLACE_FIRST   ? DL_COLUMN_POSITION_FIRST
	                : d->place == PLACE_AFTER ? DL_COLUMN_POSITION_AFTER
	                                          : DL_COLUMN_POSITION_NONE;
	if (d->place == PLACE_AFTER && d->after.nparts > 0)
		out->after = d->after.parts[d->after.nparts - 1];
	return 0;
}

static int columns_of(dl_alter_column **out, texts *t, const sql_stmt *st)
{
	*out = dl_calloc((size_t)(st->ncols ? st->ncols : 1), sizeof **out);
	if (!*out) return dl_error_set(DL_ENOMEM, "out of memory");
	for (int i = 0; i < st->ncols; i++) DL_TRY(column_of(&(*out)[i], t, &st->cols[i]));
	return 0;
}

/* ALTER | CHANGE COLUMN c <one change>. */
static int alter_change_of(dl_column_change *ch, texts *t, const sql_stmt *st)
{
	const sql_column_def *d = st->ncols ? &st->cols[0] : NULL;
	switch (st->alter_col) {
	case ALTCOL_TYPE:
		if (!d || !(ch->type = type_text(t, d->type))) return dl_error_set(DL_ENOMEM, "out of memory");
		break;
	case ALTCOL_COMMENT: ch->comment = d ? d->comment : NULL; break;
	case ALTCOL_SET_NOT_NULL: ch->set_not_null = true; break;
	case ALTCOL_DROP_NOT_NULL: ch->drop_not_null = true; break;
	case ALTCOL_POSITION:
		ch->position = d && d->place == PLACE_FIRST ? DL_COLUMN_POSITION_FIRST : DL_COLUMN_POSITION_AFTER;
		if (d && d->place == PLACE_AFTER && d->after.nparts > 0)
			ch->after = d->after.parts[d->after.nparts - 1];
		break;
	case ALTCOL_SET_DEFAULT:
		if (!d || !(ch->set_default = expr_text(t, d->default_value)))
			return dl_error_set(DL_ENOMEM, "out of memory");
		break;
	case ALTCOL_DROP_DEFAULT: ch->drop_default = true; break;
	case ALTCOL_SYNC_IDENTITY: ch->sync_identity = true; break;
	}
	return 0;
}

/* Hive's CHANGE [COLUMN] old new type [COMMENT c] [FIRST | AFTER x]: the
 * type is the column's (a widening when it differs), a different name
 * (as the resolver compares: case-insensitively) a rename. */
static int hive_change_of(dl_column_change *ch, texts *t, const sql_stmt *st)
{
	const sql_column_def *d = &st->cols[0];
	const char *old_leaf = st->column.parts[st->column.nparts - 1];
	const char *new_leaf = d->name.nparts ? d->name.parts[d->name.nparts - 1] : old_leaf;
	if (strcasecmp(old_leaf, new_leaf) != 0) ch->new_name = new_leaf;
	if (d->type && !(ch->type = type_text(t, d->type))) return dl_error_set(DL_ENOMEM, "out of memory");
	ch->comment = d->comment;
	if (d->not_null) ch->set_not_null = true;
	if (d->default_value && !(ch->set_default = expr_text(t, d->default_value)))
		return dl_error_set(DL_ENOMEM, "out of memory");
	if (d->place == PLACE_FIRST) ch->position = DL_COLUMN_POSITION_FIRST;
	if (d->place == PLACE_AFTER) {
		ch->position = DL_COLUMN_POSITION_AFTER;
		if (d->after.nparts > 0) ch->after = d->after.parts[d->after.nparts - 1];
	}
	return 0;
}

/* The catalog entry's name as the catalog parses it: `schema`.`table`. */
static const char *qualified_name(texts *t, const sql_target *tg)
{
	dl_buf b = DL_BUF_INIT;
	if (dl_buf_printf(&b, "`%s`.`%s`", tg->info.schema, tg->info.name) < 0) {
		dl_buf_free(&b);
		return NULL;
	}
	return keep(t, &b);
}

static int run(dl_sql_conn *c, const sql_stmt *st, const sql_target *tg, texts *t)
{
	dl_alter_options o = DL_ALTER_OPTIONS_INIT;
	o.store_options = c->store_options;
	o.progress = on_progress;
	o.progress_payload = c;
	int64_t v;
	switch (st->alter) {
	case ALTER_ADD_COLUMNS:
	case ALTER_REPLACE_COLUMNS: {
		bool add = st->alter == ALTER_ADD_COLUMNS;
		dl_alter_column *cols = NULL;
		int rc = columns_of(&cols, t, st);
		if (rc == 0)
			rc = add ? dl_alter_add_columns(&v, tg->uri, cols, (size_t)st->ncols, &o)
			         : dl_alter_replace_columns(&v, tg->uri, cols, (size_t)st->ncols, &o);
		dl_free(cols);
		return rc;
	}
	case ALTER_DROP_COLUMNS: {
		const char **names = dl_calloc((size_t)(st->ndrop ? st->ndrop : 1), sizeof *names);
		if (!names) return dl_error_set(DL_ENOMEM, "out of memory");
		int rc = 0;
		for (int i = 0; i < st->ndrop && rc == 0; i++)
			if (!(names[i] = name_text(t, &st->drop_cols[i]))) rc = dl_error_set(DL_ENOMEM, "out of memory");
		if (rc == 0) rc = dl_alter_drop_columns(&v, tg->uri, names, (size_t)st->ndrop, st->if_exists, &o);
		dl_free(names);
		return rc;
	}
	case ALTER_RENAME_COLUMN: {
		const char *from = name_text(t, &st->column);
		if (!from || st->new_name.nparts == 0) return dl_error_set(DL_ENOMEM, "out of memory");
		if (st->new_name.nparts > 1)
			return dl_error_set(DL_EINVALID, "RENAME COLUMN ... TO takes the new name of the field "
			                                 "alone, not a path: %s",
			                    name_text(t, &st->new_name));
		return dl_alter_rename_column(&v, tg->uri, from, st->new_name.parts[0], &o);
	}
	case ALTER_ALTER_COLUMN:
	case ALTER_CHANGE_COLUMN: {
		const char *col = name_text(t, &st->column);
		if (!col) return dl_error_set(DL_ENOMEM, "out of memory");
		dl_column_change ch = DL_COLUMN_CHANGE_INIT;
		int rc = st->alter == ALTER_ALTER_COLUMN ? alter_change_of(&ch, t, st) : hive_change_of(&ch, t, st);
		if (rc == 0) rc = dl_alter_change_column(&v, tg->uri, col, &ch, &o);
		return rc;
	}
	case ALTER_SET_LOCATION:
		if (!tg->from_catalog)
			return dl_error_set_class(DL_EUNSUPPORTED, "DELTA_CANNOT_SET_LOCATION_ON_PATH_IDENTIFIER",
			                          "Cannot change the location of a path based table (%s): "
			                          "ALTER TABLE SET LOCATION changes where a catalog table "
			                          "points", tg->display);
		return dl_catalog_set_table_location(c->cat, qualified_name(t, tg), st->location);
	case ALTER_RENAME_TABLE: {
		if (!tg->from_catalog)
			return dl_error_set_class(DL_EUNSUPPORTED, "DELTA_CANNOT_RENAME_PATH",
			                          "Cannot rename a path based table (%s): RENAME TO renames "
			                          "a catalog table", tg->display);
		const char *to = name_text(t, &st->new_name);
		if (!to) return dl_error_set(DL_ENOMEM, "out of memory");
		return dl_catalog_rename_table(c->cat, qualified_name(t, tg), to);
	}
	default:
		return dl_error_set(DL_EUNSUPPORTED, "this ALTER TABLE form is not a column form");
	}
}

int sql_alter_columns(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	sql_target tg;
	DL_TRY(sql_target_resolve(&tg, c, st->table));
	texts t = {0};
	int rc = run(c, st, &tg, &t);
	if (rc == DL_ECANCELLED && atomic_load(&c->interrupt)) rc = sql_cancelled();
	texts_free(&t);
	sql_target_free(&tg);
	DL_TRY(rc);
	return sql_empty_result(out);
}
