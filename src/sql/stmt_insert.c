/* INSERT INTO / INSERT OVERWRITE [TABLE] t [(cols)] [REPLACE WHERE p]
 * {SELECT | VALUES}, and the rows of CREATE TABLE ... AS SELECT.
 *
 * Spark matches an INSERT's values to the table's columns by position
 * (or to the listed columns), casting each to the column's type as its
 * store assignment does (ANSI: a value that does not fit fails). The
 * rows then go through the write path (deltalake/write.h): columns not
 * given take their default, generated or identity value or NULL, NOT NULL
 * and CHECK constraints are enforced, files are partitioned and get
 * statistics, and everything is one commit. The result is Spark's row
 * (num_affected_rows, num_inserted_rows). */
#include "sql/session_internal.h"
#include "columnar/batch_stream.h"
#include "dml/struct_store.h"
#include "expr/ast.h"
#include "log/snapshot.h"
#include "ops/schema_align.h" /* dl_type_store_widened */
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include <string.h>
#include <strings.h>

/* ---- a stream that renames its input's columns and counts rows ---- */

typedef struct relabel_stream {
	dl_batch_stream *in;
	dl_type *schema;
	int64_t *rows;
} relabel_stream;

static const dl_type *rl_schema(dl_batch_stream *s)
{
	relabel_stream *r = s->private_data;
	return r->schema;
}

static int rl_next(dl_batch_stream *s, dl_batch **out)
{
	relabel_stream *r = s->private_data;
	DL_TRY(dl_batch_stream_next(r->in, out));
	if (!*out) return 0;
	int rc = dl_batch_set_schema(*out, r->schema);
	if (rc < 0) {
		dl_batch_free(*out);
		*out = NULL;
		return rc;
	}
	if (r->rows) *r->rows += (*out)->num_rows;
	return 0;
}

static void rl_release(dl_batch_stream *s)
{
	relabel_stream *r = s->private_data;
	dl_batch_stream_free(r->in);
	dl_type_unref(r->schema);
	dl_free(r);
	dl_free(s);
}

/* in's columns renamed names[i] (same types); takes in. */
static int relabel(dl_batch_stream **out, dl_batch_stream *in, const char *const *names, int64_t *rows)
{
	*out = NULL;
	const dl_type *t = dl_batch_stream_schema(in);
	dl_field *f = dl_calloc((size_t)(t->nchildren ? t->nchildren : 1), sizeof *f);
	dl_batch_stream *s = f ? dl_calloc(1, sizeof *s) : NULL;
	relabel_stream *r = s ? dl_calloc(1, sizeof *r) : NULL;
	if (r) {
		for (int i = 0; i < t->nchildren; i++) {
			f[i] = t->children[i];
			if (names) f[i].name = (char *)names[i];
		}
		r->schema = dl_type_struct(f, t->nchildren);
	}
	dl_free(f);
	if (!r || !r->schema) {
		dl_free(r);
		dl_free(s);
		dl_batch_stream_free(in);
		return dl_error_set(DL_ENOMEM, "out of memory");
	}
	r->in = in;
	r->rows = rows;
	s->private_data = r;
	s->schema = rl_schema;
	s->next = rl_next;
	s->release = rl_release;
	*out = s;
	return 0;
}

static int quote_ident(dl_buf *b, const char *name)
{
	DL_TRY(dl_buf_putc(b, '`'));
	for (const char *p = name; *p; p++) DL_TRY(*p == '`' ? dl_buf_puts(b, "``") : dl_buf_putc(b, *p));
	return dl_buf_putc(b, '`');
}

/* Every column cast to the table column's type, by name, as INSERT's
 * store assignment; with `w` (schema evolution of a table with type
 * widening) to the type dl_type_store_widened keeps. Takes in. */
static int cast_to(dl_batch_stream **out, dl_batch_stream *in, const dl_type *table, const dl_widening *w,
                   const dl_exec_ctx *ctx)
{
	const dl_type *t = dl_batch_stream_schema(in);
	int n = t->nchildren;
	dl_expr **ex = dl_calloc((size_t)(n ? n : 1), sizeof *ex);
	const char **names = dl_calloc((size_t)(n ? n : 1), sizeof *names);
	int rc = ex && names ? 0 : DL_ENOMEM;
	for (int i = 0; i < n && rc == 0; i++) {
		int k = dl_type_field_index(table, t->children[i].name);
		dl_type *to = NULL;
		if (k < 0 || !w) to = dl_type_ref(k >= 0 ? table->children[k].type : t->children[i].type);
		else if ((rc = dl_type_store_widened(&to, table->children[k].type, t->children[i].type, w)) < 0) break;
		dl_buf b = DL_BUF_INIT;
		char ty[4096];
		dl_type_sql(to, ty, sizeof ty);
		bool same = dl_type_equals(to, t->children[i].type) || t->children[i].type->id == DL_TYPE_NULL;
		/* Spark's ANSI store assignment: an overflow names the column
		 * (CAST_OVERFLOW_IN_TABLE_INSERT) */
		rc = same ? 0 : dl_buf_puts(&b, "__check_overflow_in_table_insert(");
		if (rc == 0) rc = quote_ident(&b, t->children[i].name);
		if (rc == 0 && !same) {
			rc = dl_buf_printf(&b, ", CAST(NULL AS %s), ", ty);
			dl_dml_sql_string(&b, t->children[i].name);
			if (rc == 0) rc = dl_buf_putc(&b, ')');
		}
		if (rc == 0 && t->children[i].type->id == DL_TYPE_NULL) {
			/* NULL values: typed by the column (a NULL-typed column has no Parquet type) */
			dl_buf_free(&b);
			rc = dl_buf_printf(&b, "CAST(NULL AS %s)", ty);
		}
		if (rc == 0) rc = dl_buf_putc(&b, 0);
		if (rc == 0) rc = dl_expr_parse(&ex[i], (const char *)b.data);
		dl_buf_free(&b);
		dl_type_unref(to);
		names[i] = t->children[i].name;
	}
	if (rc < 0) {
		for (int i = 0; i < n; i++) dl_expr_free(ex ? ex[i] : NULL);
		dl_free(ex);
		dl_free(names);
		dl_batch_stream_free(in);
		return rc;
	}
	/* names point into in's schema: the project copies them at build */
	rc = dl_exec_project(out, in, ex, names, n, ctx);
	dl_free(ex);
	dl_free(names);
	return rc;
}

int sql_write_rows(int64_t *version, int64_t *rows, dl_sql_conn *c, const char *uri, dl_batch_stream *data,
                   const dl_write_options *wo)
{
	(void)rows;
	struct ArrowArrayStream a;
	DL_TRY(dl_batch_stream_export(&a, data));
	dl_write_options o = *wo;
	o.store_options = c->store_options;
	int rc = dl_write(version, uri, &a, &o);
	if (a.release) a.release(&a);
	return rc;
}

/* The query's rows matched to the table by position: the query's i-th
 * column becomes names[i] (the listed columns, or the table's first
 * columns), cast to its type. */
static int match_columns(dl_batch_stream **out, dl_batch_stream *q, const dl_type *table, const sql_stmt *st,
                         const char *display, const dl_widening *w, int64_t *rows, const dl_exec_ctx *ctx)
{
	const dl_type *qt = dl_batch_stream_schema(q);
	int n = qt->nchildren;
	int avail = st ? (st->ninsert_cols ? st->ninsert_cols : table->nchildren) : table->nchildren;
	/* WITH SCHEMA EVOLUTION: columns past the table's are new columns,
	 * named as the query names them */
	bool evolve = st && st->schema_evolution && !st->ninsert_cols;
	if (n > avail && !evolve) {
		dl_batch_stream_free(q);
		return dl_error_set_class(DL_ESCHEMA, "INSERT_COLUMN_ARITY_MISMATCH.TOO_MANY_DATA_COLUMNS",
		                          "[INSERT_COLUMN_ARITY_MISMATCH.TOO_MANY_DATA_COLUMNS] Cannot write to %s, the "
		                          "reason is too many data columns: Table columns: %d. Data columns: %d.",
		                          display, avail, n);
	}
	const char **names = dl_calloc((size_t)(n ? n : 1), sizeof *names);
	if (!names) {
		dl_batch_stream_free(q);
		return DL_ENOMEM;
	}
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++) {
		if (st && st->ninsert_cols) {
			const sql_name *nm = &st->insert_cols[i];
			int k = nm->nparts == 1 ? dl_type_field_index(table, nm->parts[0]) : -1;
			if (k < 0)
				rc = dl_error_set_class(DL_ESCHEMA, "UNRESOLVED_COLUMN.WITH_SUGGESTION",
				                        "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column with name `%s` cannot be "
				                        "resolved in %s.",
				                        nm->parts[nm->nparts - 1], display);
			else names[i] = table->children[k].name;
			for (int j = 0; rc == 0 && j < i; j++)
				if (strcasecmp(names[j], names[i]) == 0)
					rc = dl_error_set_class(DL_EINVALID, "COLUMN_ALREADY_EXISTS",
					                        "[COLUMN_ALREADY_EXISTS] The column `%s` already exists in the INSERT "
					                        "column list.",
					                        names[i]);
		} else {
			names[i] = i < table->nchildren ? table->children[i].name : qt->children[i].name;
		}
	}
	if (rc < 0) {
		dl_free(names);
		dl_batch_stream_free(q);
		return rc;
	}
	dl_batch_stream *r = NULL;
	rc = relabel(&r, q, names, rows);
	dl_free(names);
	if (rc < 0) return rc;
	return cast_to(out, r, table, w, ctx);
}

static int count_result(dl_batch_stream **out, int64_t rows)
{
	static const char *const names[] = {"num_affected_rows", "num_inserted_rows"};
	static const dl_type_id types[] = {DL_TYPE_LONG, DL_TYPE_LONG};
	sql_rows r;
	DL_TRY(sql_rows_init(&r, names, types, 2));
	int rc = sql_rows_int(&r, 0, rows);
	if (rc == 0) rc = sql_rows_int(&r, 1, rows);
	if (rc == 0) rc = sql_rows_finish(out, &r);
	sql_rows_free(&r);
	return rc;
}

int sql_run_insert(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	sql_target t;
	DL_TRY(sql_target_resolve(&t, c, st->table));
	dl_snapshot *snap = NULL;
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	so.metadata_only = true;
	int rc = sql_open_snapshot(&snap, c, &t, &so);
	sql_env env;
	sql_session_env(&env, c);
	dl_batch_stream *q = NULL, *data = NULL;
	if (rc == 0) rc = sql_plan_query(&q, &env, st->query);
	int64_t rows = 0;
	dl_write_options wo = DL_WRITE_OPTIONS_INIT;
	wo.mode = st->overwrite ? DL_WRITE_OVERWRITE : DL_WRITE_APPEND;
	wo.merge_schema = st->schema_evolution || sql_setting_true(c, "spark.databricks.delta.schema.autoMerge.enabled");
	/* with schema evolution a table with type widening takes the values'
	 * wider types (TypeWideningInsertSchemaEvolutionSuite), as far as
	 * UniForm and allowAutomaticWidening allow */
	dl_widening w;
	if (rc == 0) rc = sql_auto_widening(&wo.auto_widening, c);
	if (rc == 0) dl_widening_of(&w, &dl_snapshot_state(snap)->metadata->configuration, wo.auto_widening);
	bool widen = rc == 0 && wo.merge_schema && dl_snapshot_props(snap)->enable_type_widening;
	if (rc == 0)
		rc = match_columns(&data, q, dl_snapshot_schema(snap), st, t.display, widen ? &w : NULL, &rows, &env.ctx);
	dl_buf where = DL_BUF_INIT;
	sql_write_auto_optimize(&wo, c);
	/* Spark's dynamic partition overwrite: only the partitions written */
	const char *pom = sql_setting_get(c, "spark.sql.sources.partitionOverwriteMode");
	if (st->overwrite && !st->where && pom && strcasecmp(pom, "dynamic") == 0) wo.dynamic_partition_overwrite = true;
	if (rc == 0 && st->where) {
		rc = ex_print(&where, st->where);
		if (rc == 0) rc = dl_buf_putc(&where, 0);
		wo.replace_where = (const char *)where.data;
		wo.mode = DL_WRITE_OVERWRITE;
	}
	int64_t version = -1;
	if (rc == 0) rc = sql_write_rows(&version, &rows, c, t.uri, data, &wo);
	else dl_batch_stream_free(data);
	dl_buf_free(&where);
	dl_snapshot_free(snap);
	sql_target_free(&t);
	DL_TRY(rc);
	return count_result(out, rows);
}
