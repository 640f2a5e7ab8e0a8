/* VACUUM, FSCK REPAIR TABLE and GENERATE statements onto dl_vacuum,
 * dl_fsck_repair and dl_generate_manifest (deltalake/maintenance.h,
 * src/maint), which own the rules. This file translates the statement:
 *
 *   - VACUUM t [USING INVENTORY tbl | (query)] [RETAIN n HOURS] [DRY RUN]
 *     [LITE | FULL]: RETAIN evaluated as a DOUBLE constant (negative:
 *     DELTA_VACUUM_RETENTION_PERIOD_NEGATIVE); the inventory planned as
 *     SELECT * FROM it and streamed; the session's
 *     spark.databricks.delta.retentionDurationCheck.enabled=false turns
 *     the check off. Result as Spark: DRY RUN one row per file, column
 *     `path` (absolute); otherwise one row, the table's path;
 *   - FSCK REPAIR TABLE t [DRY RUN]: one row per entry removed
 *     (dataFilePath, dataFileMissing), as Databricks' FSCK;
 *   - GENERATE mode FOR TABLE t: no rows.
 * The session's interrupt cancels through the progress callbacks. */
#include "sql/session_internal.h"

#include <string.h>
#include <strings.h>

#include "columnar/batch_stream.h"
#include "deltalake/maintenance.h"
#include "sql/plan.h"
#include "sql/resolve_internal.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

static int on_progress(const dl_progress_info *info, void *payload)
{
	(void)info;
	dl_sql_conn *c = payload;
	return atomic_load(&c->interrupt) ? 1 : 0;
}

static int cancelled_or(int rc, dl_sql_conn *c)
{
	if (rc == DL_ECANCELLED && atomic_load(&c->interrupt)) return sql_cancelled();
	return rc;
}

/* The table's root as Spark prints paths: the target URI without a
 * trailing '/'. */
typedef struct path_rows {
	sql_rows rows;
	const char *root;
	dl_buf b;
} path_rows;

static int add_path_row(const char *path, int64_t size, void *payload)
{
	(void)size;
	path_rows *p = payload;
	dl_buf_clear(&p->b);
	int rc = strstr(path, "://") || path[0] == '/'
		? dl_buf_puts(&p->b, path)
		: dl_buf_printf(&p->b, "%s/%s", p->root, path);
	if (rc == 0) rc = sql_rows_str(&p->rows, 0, p->b.data);
	return rc < 0 ? 1 : 0;
}

static bool retention_check_disabled(dl_sql_conn *c)
{
	const char *v = sql_setting_get(c, "spark.databricks.delta.retentionDurationCheck.enabled");
	return v && strcasecmp(v, "false") == 0;
}

static int inventory_stream(struct ArrowArrayStream *out, const sql_table_ref *src, const sql_env *env)
{
	sql_select_item star = {.star = true};
	sql_select sel = {.items = &star, .nitems = 1, .from = (sql_table_ref *)src};
	sql_query q = {.kind = Q_SELECT, .pos = src->pos, .select = &sel};
	const sql_query *qq = src->kind == TREF_QUERY ? src->query : &q;
	dl_batch_stream *s;
	DL_TRY(sql_plan_query(&s, env, qq));
	return dl_batch_stream_export(out, s);
}

int sql_run_vacuum(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	sql_env env;
	sql_session_env(&env, c);
	dl_vacuum_options o = DL_VACUUM_OPTIONS_INIT;
	o.store_options = c->store_options;
	o.progress = on_progress;
	o.progress_payload = c;
	o.dry_run = st->dry_run;
	o.lite = st->lite;
	o.no_retention_check = retention_check_disabled(c);
	if (st->retain_hours) {
		dl_scalar v;
		dl_expr *h = NULL;
		int rc = sql_eval_const(&v, &h, st->retain_hours, "DOUBLE", &env.ctx);
		double hours = v.is_null ? -1 : v.v.f64;
		dl_expr_free(h);
		DL_TRY(rc);
		if (v.is_null || hours < 0)
			return dl_error_set_class(DL_EINVALID, "DELTA_VACUUM_RETENTION_PERIOD_NEGATIVE",
			                          "Retention for Vacuum can't be less than 0.");
		o.retain_hours = hours;
	}
	sql_target t;
	DL_TRY(sql_target_resolve(&t, c, st->table));
	struct ArrowArrayStream inv;
	memset(&inv, 0, sizeof inv);
	int rc = 0;
	if (st->source) {
		rc = inventory_stream(&inv, st->source, &env);
		if (rc == 0) o.inventory = &inv;
	}
	path_rows pr;
	memset(&pr, 0, sizeof pr);
	pr.root = t.uri;
	size_t rl = strlen(t.uri);
	while (rl > 1 && t.uri[rl - 1] == '/') t.uri[--rl] = '\0';
	static const char *const names[] = {"path"};
	static const dl_type_id types[] = {DL_TYPE_STRING};
	if (rc == 0) rc = sql_rows_init(&pr.rows, names, types, 1);
	if (rc == 0 && st->dry_run) {
		o.on_file = add_path_row;
		o.on_file_payload = &pr;
	}
	dl_vacuum_result r;
	if (rc == 0) rc = cancelled_or(dl_vacuum(&r, t.uri, &o), c);
	else if (inv.release) inv.release(&inv);
	if (rc == 0 && !st->dry_run) rc = sql_rows_str(&pr.rows, 0, t.uri);
	if (rc == 0) rc = sql_rows_finish(out, &pr.rows);
	sql_rows_free(&pr.rows);
	dl_buf_free(&pr.b);
	sql_target_free(&t);
	return rc;
}

typedef struct fsck_rows {
	sql_rows rows;
	int rc;
} fsck_rows;

static int add_fsck_row(const char *path, int64_t size, void *payload)
{
	fsck_rows *f = payload;
	int rc = sql_rows_str(&f->rows, 0, path);
	if (rc == 0) rc = sql_rows_bool(&f->rows, 1, size >= 0);
	if (rc < 0) f->rc = rc;
	return rc < 0 ? 1 : 0;
}

int sql_run_fsck(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	sql_target t;
	DL_TRY(sql_target_resolve(&t, c, st->table));
	fsck_rows f;
	memset(&f, 0, sizeof f);
	static const char *const names[] = {"dataFilePath", "dataFileMissing"};
	static const dl_type_id types[] = {DL_TYPE_STRING, DL_TYPE_BOOLEAN};
	int rc = sql_rows_init(&f.rows, names, types, 2);
	dl_fsck_options o = DL_FSCK_OPTIONS_INIT;
	o.store_options = c->store_options;
	o.progress = on_progress;
	o.progress_payload = c;
	o.dry_run = st->dry_run;
	o.on_file = add_fsck_row;
	o.on_file_payload = &f;
	dl_fsck_result r;
	if (rc == 0) rc = cancelled_or(dl_fsck_repair(&r, t.uri, &o), c);
	if (rc == 0) rc = sql_rows_finish(out, &f.rows);
	sql_rows_free(&f.rows);
	sql_target_free(&t);
	return rc;
}

int sql_run_generate(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	sql_target t;
	DL_TRY(sql_target_resolve(&t, c, st->table));
	dl_generate_options o = DL_GENERATE_OPTIONS_INIT;
	o.store_options = c->store_options;
	o.progress = on_progress;
	o.progress_payload = c;
	o.mode = st->mode;
	int64_t files;
	int rc = cancelled_or(dl_generate_manifest(&files, t.uri, &o), c);
	sql_target_free(&t);
	DL_TRY(rc);
	return sql_empty_result(out);
}
