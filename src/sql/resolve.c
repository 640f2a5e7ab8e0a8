/* Table references -> the tables they name: statement targets (a catalog
 * name or delta.`path`) and the planner's relations (sql_env.resolve).
 * Catalog names resolve in the current schema (USE); delta.`path` takes a
 * path or URI; time travel (VERSION AS OF, TIMESTAMP AS OF, t@v5) is
 * evaluated here, once, in the session's zone. File sources and
 * table_changes are in resolve_files.c and resolve_changes.c. */
#include "sql/resolve_internal.h"
#include "expr/ast.h"
#include "log/snapshot.h"
#include "sql/print.h"
#include "storage/resolve.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- names ---- */

static bool plain_ident(const char *s)
{
	if (!*s) return false;
	for (const char *p = s; *p; p++)
		if (!(isalnum((unsigned char)*p) || *p == '_')) return false;
	return true;
}

int sql_ref_name(char **out, const sql_table_ref *ref)
{
	dl_buf b = DL_BUF_INIT;
	int rc = 0;
	for (int i = 0; i < ref->name.nparts && rc == 0; i++) {
		if (i) rc = dl_buf_putc(&b, '.');
		const char *p = ref->name.parts[i];
		if (rc == 0 && plain_ident(p)) rc = dl_buf_puts(&b, p);
		else if (rc == 0) {
			rc = dl_buf_putc(&b, '`');
			for (; *p && rc == 0; p++) rc = *p == '`' ? dl_buf_puts(&b, "``") : dl_buf_putc(&b, *p);
			if (rc == 0) rc = dl_buf_putc(&b, '`');
		}
	}
	if (rc == 0) rc = dl_buf_putc(&b, 0);
	if (rc < 0) {
		dl_buf_free(&b);
		return rc;
	}
	*out = (char *)b.data;
	return 0;
}

static int path_display(char **out, const char *format, const char *path)
{
	dl_buf b = DL_BUF_INIT;
	int rc = dl_buf_printf(&b, "%s.`", format);
	for (const char *p = path; *p && rc == 0; p++) rc = *p == '`' ? dl_buf_puts(&b, "``") : dl_buf_putc(&b, *p);
	if (rc == 0) rc = dl_buf_puts(&b, "`");
	if (rc == 0) rc = dl_buf_putc(&b, 0);
	if (rc < 0) {
		dl_buf_free(&b);
		return rc;
	}
	*out = (char *)b.data;
	return 0;
}

int sql_target_resolve(sql_target *out, dl_sql_conn *c, const sql_table_ref *ref)
{
	memset(out, 0, sizeof *out);
	int rc = 0;
	if (ref->kind == TREF_NAME) {
		char *name = NULL;
		DL_TRY(sql_ref_name(&name, ref));
		rc = dl_catalog_lookup_table(&out->info, c->cat, name);
		if (rc == 0) {
			out->from_catalog = true;
			char buf[300];
			snprintf(buf, sizeof buf, "spark_catalog.%s.%s", out->info.schema, out->info.name);
			if (!(out->uri = dl_strdup(out->info.uri)) || !(out->display = dl_strdup(buf))) rc = DL_ENOMEM;
		}
		dl_free(name);
	} else if (ref->kind == TREF_PATH) {
		if (strcmp(ref->format, "delta") != 0)
			return dl_error_set_class(DL_EUNSUPPORTED, "DELTA_TABLE_ONLY_OPERATION",
			                          "[DELTA_TABLE_ONLY_OPERATION] %s.`%s` is not a Delta table: this statement "
			                          "works on Delta tables only",
			                          ref->format, ref->path);
		if (!(out->uri = dl_strdup(ref->path))) rc = DL_ENOMEM;
		if (rc == 0) rc = path_display(&out->display, "delta", ref->path);
	} else {
		return dl_error_set(DL_EINVALID, "a table name or delta.`path` is expected here");
	}
	if (rc < 0) sql_target_free(out);
	return rc;
}

void sql_target_free(sql_target *t)
{
	dl_free(t->uri);
	dl_free(t->display);
	if (t->from_catalog) dl_catalog_table_info_free(&t->info);
	memset(t, 0, sizeof *t);
}

/* A local path (no scheme, or file:) that does not exist at all. */
static bool local_missing(const char *uri)
{
	const char *p = uri;
	if (strncmp(p, "file://", 7) == 0) p += 7;
	else if (strncmp(p, "file:", 5) == 0) p += 5;
	else if (strstr(p, "://")) return false;
	struct stat sb;
	return stat(p, &sb) != 0;
}

int sql_open_snapshot(dl_snapshot **out, dl_sql_conn *c, const sql_target *t, const dl_snapshot_options *o)
{
	dl_snapshot_options d = DL_SNAPSHOT_OPTIONS_INIT;
	if (!o) o = &d;
	dl_snapshot_options so = *o;
	so.store_options = c->store_options;
	int rc = dl_snapshot_open(out, t->uri, &so);
	if (rc != DL_ENOTFOUND) return rc;
	/* a version or timestamp beyond the table is its own error: keep it */
	if (so.as_of_version >= 0 || so.as_of_timestamp_ms != DL_NO_TIMESTAMP) {
		dl_snapshot *latest = NULL;
		so.as_of_version = -1;
		so.as_of_timestamp_ms = DL_NO_TIMESTAMP;
		so.metadata_only = true;
		char *msg = dl_strdup(dl_error_last()->message);
		int r2 = dl_snapshot_open(&latest, t->uri, &so);
		dl_snapshot_free(latest);
		if (r2 == 0) {
			/* Spark's classes: a version is VersionNotFoundException's
			 * case; timestamps have their own */
			const char *klass = "DELTA_VERSION_NOT_FOUND";
			if (o->as_of_timestamp_ms != DL_NO_TIMESTAMP && msg && strstr(msg, "is after"))
				klass = "DELTA_TIMESTAMP_GREATER_THAN_COMMIT";
			else if (o->as_of_timestamp_ms != DL_NO_TIMESTAMP)
				klass = "DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION";
			rc = dl_error_set_class(DL_ENOTFOUND, klass, "[%s] %s: %s", klass, t->display,
			                        msg ? msg : "no such version");
			dl_free(msg);
			return rc;
		}
		dl_free(msg);
	}
	if (t->from_catalog)
		return dl_error_set_class(DL_ENOTFOUND, "DELTA_TABLE_NOT_FOUND",
		                          "[DELTA_TABLE_NOT_FOUND] Delta table %s doesn't exist (no _delta_log at %s).",
		                          t->display, t->uri);
	if (local_missing(t->uri))
		return dl_error_set_class(DL_ENOTFOUND, "DELTA_PATH_DOES_NOT_EXIST",
		                          "[DELTA_PATH_DOES_NOT_EXIST] %s doesn't exist", t->uri);
	return dl_error_set_class(DL_ENOTFOUND, "DELTA_MISSING_DELTA_TABLE", "[DELTA_MISSING_DELTA_TABLE] %s is not a Delta table.",
	                          t->display);
}

/* ---- constants: time travel values, table_changes arguments ---- */

int sql_eval_const(dl_scalar *out, dl_expr **holder, const ex_node *n, const char *cast_to, const dl_exec_ctx *ctx)
{
	*holder = NULL;
	dl_buf b = DL_BUF_INIT;
	int rc = cast_to ? dl_buf_puts(&b, "CAST((") : 0;
	if (rc == 0) rc = ex_print(&b, n);
	if (rc == 0 && cast_to) rc = dl_buf_printf(&b, ") AS %s)", cast_to);
	if (rc == 0) rc = dl_buf_putc(&b, 0);
	dl_type *empty = rc == 0 ? dl_type_struct(NULL, 0) : NULL;
	if (rc == 0 && !empty) rc = DL_ENOMEM;
	if (rc == 0) rc = dl_expr_parse(holder, (const char *)b.data);
	if (rc == 0) rc = dl_expr_bind_ctx(*holder, empty, &ctx->eval);
	if (rc == 0) rc = dl_expr_eval_scalar(out, *holder, &ctx->eval);
	if (empty) dl_type_unref(empty);
	dl_buf_free(&b);
	if (rc < 0) {
		dl_expr_free(*holder);
		*holder = NULL;
	}
	return rc;
}

int sql_time_travel_options(dl_snapshot_options *o, const sql_time_travel *tt, const dl_exec_ctx *ctx)
{
	if (tt->kind == TT_NONE) return 0;
	dl_scalar v;
	dl_expr *h = NULL;
	int rc;
	if (tt->kind == TT_VERSION) {
		rc = sql_eval_const(&v, &h, tt->value, "BIGINT", ctx);
		if (rc == 0 && (v.is_null || v.v.i64 < 0))
			rc = dl_error_set_class(DL_EINVALID, "INVALID_TIME_TRAVEL_SPEC",
			                        "[INVALID_TIME_TRAVEL_SPEC] VERSION AS OF needs a version >= 0");
		if (rc == 0) o->as_of_version = v.v.i64;
	} else {
		rc = sql_eval_const(&v, &h, tt->value, "TIMESTAMP", ctx);
		if (rc == 0 && v.is_null)
			rc = dl_error_set_class(DL_EINVALID, "INVALID_TIME_TRAVEL_TIMESTAMP_EXPR.INPUT",
			                        "[INVALID_TIME_TRAVEL_TIMESTAMP_EXPR.INPUT] TIMESTAMP AS OF is NULL");
		if (rc == 0) {
			int64_t us = v.v.i64;
			o->as_of_timestamp_ms = us >= 0 ? us / 1000 : -((-us + 999) / 1000);
		}
	}
	dl_expr_free(h);
	if (rc < 0 && !*dl_error_last()->klass)
		return dl_error_prefix("time travel");
	return rc;
}

/* ---- the Delta relation ---- */

typedef struct delta_rel {
	sql_relation r;
	dl_snapshot *snap;
	char *display;
} delta_rel;

/* A scan stream that owns the snapshot it reads (the relation goes away
 * after open()). */
typedef struct owning_stream {
	dl_batch_stream *in;
	dl_snapshot *snap;
} owning_stream;

static const dl_type *own_schema(dl_batch_stream *s)
{
	owning_stream *o = s->private_data;
	return dl_batch_stream_schema(o->in);
}
static int own_next(dl_batch_stream *s, dl_batch **out)
{
	owning_stream *o = s->private_data;
	return dl_batch_stream_next(o->in, out);
}
static void own_release(dl_batch_stream *s)
{
	owning_stream *o = s->private_data;
	dl_batch_stream_free(o->in);
	dl_snapshot_free(o->snap);
	dl_free(o);
	dl_free(s);
}

static int filter_text(char **out, const dl_expr *filter)
{
	*out = NULL;
	if (!filter) return 0;
	dl_buf b = DL_BUF_INIT;
	int rc = dl_expr_sql(filter, &b);
	if (rc == 0) rc = dl_buf_putc(&b, 0);
	if (rc < 0) {
		dl_buf_free(&b);
		return rc;
	}
	*out = (char *)b.data;
	return 0;
}

/* Plans the scan with the filter; a filter the scan cannot take (it
 * does not parse or bind standalone) is left to the planner above. */
static int plan_scan(dl_scan **scan, char **ftext, dl_snapshot *snap, const char *const *cols, int ncols,
                     const dl_expr *filter)
{
	dl_scan_options so = DL_SCAN_OPTIONS_INIT;
	if (ncols >= 0) {
		so.columns = cols;
		so.ncolumns = ncols;
	}
	DL_TRY(filter_text(ftext, filter));
	so.filter = *ftext;
	int rc = dl_scan_open(scan, snap, &so);
	if (rc == DL_EINVALID && *ftext) {
		dl_free(*ftext);
		*ftext = NULL;
		so.filter = NULL;
		rc = dl_scan_open(scan, snap, &so);
	}
	return rc;
}

static int delta_open(dl_batch_stream **out, sql_relation *r, const char *const *cols, int ncols, dl_expr *filter,
                      const dl_exec_ctx *ctx)
{
	delta_rel *d = r->impl;
	*out = NULL;
	char *ftext = NULL;
	dl_scan_options so = DL_SCAN_OPTIONS_INIT;
	if (ncols >= 0) {
		so.columns = cols;
		so.ncolumns = ncols;
	}
	int rc = filter_text(&ftext, filter);
	dl_expr_free(filter);
	if (rc < 0) return rc;
	so.filter = ftext;
	so.threads = ctx ? ctx->threads : 0;
	dl_batch_stream *scan = NULL;
	rc = dl_exec_scan_snapshot(&scan, d->snap, &so);
	if (rc == DL_EINVALID && ftext) {
		so.filter = NULL;
		rc = dl_exec_scan_snapshot(&scan, d->snap, &so);
	}
	dl_free(ftext);
	if (rc < 0) return dl_error_prefix("%s: ", d->display);
	dl_batch_stream *s = dl_calloc(1, sizeof *s);
	owning_stream *o = s ? dl_calloc(1, sizeof *o) : NULL;
	if (!o) {
		dl_free(s);
		dl_batch_stream_free(scan);
		return dl_error_set(DL_ENOMEM, "out of memory");
	}
	o->in = scan;
	o->snap = d->snap;
	d->snap = NULL; /* the stream owns it now */
	s->private_data = o;
	s->schema = own_schema;
	s->next = own_next;
	s->release = own_release;
	if (ctx && ctx->interrupt) return sql_interruptible(out, s, ctx->interrupt);
	*out = s;
	return 0;
}

static int delta_explain(dl_buf *out, sql_relation *r, const char *const *cols, int ncols, const dl_expr *filter,
                         const dl_exec_ctx *ctx)
{
	(void)ctx;
	delta_rel *d = r->impl;
	if (!d->snap) return 0;
	dl_scan *scan = NULL;
	char *ftext = NULL;
	int rc = plan_scan(&scan, &ftext, d->snap, cols, ncols, filter);
	if (rc == 0) {
		dl_scan_metrics m;
		dl_scan_get_metrics(&m, scan);
		rc = dl_buf_printf(out, "version %lld, files %zu of %zu after pruning (%zu by partition values, %zu by "
		                        "statistics)%s%s",
		                   (long long)dl_snapshot_version(d->snap), dl_scan_file_count(scan), m.files_total,
		                   m.files_pruned_partitions, m.files_pruned_stats, ftext ? ", pushed filter: " : "",
		                   ftext ? ftext : "");
	}
	dl_scan_free(scan);
	dl_free(ftext);
	return rc;
}

static void delta_release(sql_relation *r)
{
	delta_rel *d = r->impl;
	dl_snapshot_free(d->snap);
	if (r->schema) dl_type_unref((dl_type *)r->schema);
	dl_free(d->display);
	dl_free(d);
}

/* numRecords of the live files, less the rows their deletion vectors drop. */
static int64_t estimate_rows(const dl_snapshot *snap)
{
	int64_t total = 0;
	size_t n = dl_snapshot_file_count(snap);
	for (size_t i = 0; i < n; i++) {
		dl_file_info fi;
		if (dl_snapshot_file_at(&fi, snap, i) < 0 || !fi.stats) return -1;
		const char *p = strstr(fi.stats, "\"numRecords\":");
		if (!p) return -1;
		total += strtoll(p + 13, NULL, 10) - fi.deleted_rows;
	}
	return total;
}

static int delta_relation(sql_relation **out, dl_sql_conn *c, const sql_table_ref *ref, const dl_exec_ctx *ctx)
{
	sql_target t;
	DL_TRY(sql_target_resolve(&t, c, ref));
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	int rc = sql_time_travel_options(&so, &ref->tt, ctx);
	dl_snapshot *snap = NULL;
	if (rc == 0) rc = sql_open_snapshot(&snap, c, &t, &so);
	if (rc == 0 && !dl_snapshot_schema(snap))
		rc = dl_error_set_class(DL_ECORRUPT, "DELTA_SCHEMA_NOT_SET", "[DELTA_SCHEMA_NOT_SET] %s has no schema",
		                        t.display);
	delta_rel *d = rc == 0 ? dl_calloc(1, sizeof *d) : NULL;
	if (rc == 0 && !d) rc = DL_ENOMEM;
	if (rc == 0) {
		dl_buf b = DL_BUF_INIT;
		rc = dl_buf_puts(&b, t.display);
		if (rc == 0 && so.as_of_version >= 0) rc = dl_buf_printf(&b, " VERSION AS OF %lld", (long long)so.as_of_version);
		if (rc == 0 && so.as_of_timestamp_ms != DL_NO_TIMESTAMP)
			rc = dl_buf_printf(&b, " (version %lld)", (long long)dl_snapshot_version(snap));
		if (rc == 0) rc = dl_buf_putc(&b, 0);
		if (rc == 0) d->display = (char *)b.data;
		else dl_buf_free(&b);
	}
	sql_target_free(&t);
	if (rc < 0) {
		dl_snapshot_free(snap);
		dl_free(d);
		return rc;
	}
	d->snap = snap;
	d->r.schema = dl_type_ref((dl_type *)dl_snapshot_schema(snap));
	d->r.display = d->display;
	d->r.est_rows = estimate_rows(snap);
	d->r.open = delta_open;
	d->r.explain = delta_explain;
	d->r.release = delta_release;
	d->r.impl = d;
	*out = &d->r;
	return 0;
}

/* dl_sql_options.allowed_tables: a confined connection reads only those
 * Delta tables (by path, any version) and range(). */
static int check_allowed(const dl_sql_conn *c, const sql_table_ref *ref)
{
	if (c->allowed_tables.n == 0) return 0;
	if (ref->kind == TREF_FUNCTION && strcmp(ref->function, "range") == 0) return 0;
	if (ref->kind == TREF_PATH && strcmp(ref->format, "delta") == 0) {
		char *canon = NULL;
		if (dl_path_canonical(&canon, ref->path) == 0) {
			bool ok = false;
			for (int i = 0; i < c->allowed_tables.n && !ok; i++) ok = strcmp(canon, c->allowed_tables.items[i]) == 0;
			dl_free(canon);
			if (ok) return 0;
		}
		dl_error_clear();
	}
	const char *what = ref->kind == TREF_PATH ? ref->path : ref->kind == TREF_FUNCTION ? ref->function : NULL;
	char *name = NULL;
	if (!what && sql_ref_name(&name, ref) == 0) what = name;
	int rc = dl_error_set(DL_EPERM, "%s%s%s is not a table this connection may read (it is confined to %d "
	                      "table%s by dl_sql_options.allowed_tables)",
	                      ref->kind == TREF_PATH ? ref->format : "", ref->kind == TREF_PATH ? "." : "",
	                      what ? what : "the table", c->allowed_tables.n, c->allowed_tables.n == 1 ? "" : "s");
	dl_free(name);
	return rc;
}

int sql_resolve(sql_relation **out, void *payload, const sql_table_ref *ref, const dl_exec_ctx *ctx)
{
	dl_sql_conn *c = payload;
	*out = NULL;
	if (ctx && ctx->interrupt && atomic_load(ctx->interrupt)) return sql_cancelled();
	DL_TRY(check_allowed(c, ref));
	switch (ref->kind) {
	case TREF_NAME: return delta_relation(out, c, ref, ctx);
	case TREF_PATH:
		if (strcmp(ref->format, "delta") == 0) return delta_relation(out, c, ref, ctx);
		if (ref->tt.kind != TT_NONE)
			return dl_error_set_class(DL_EUNSUPPORTED, "UNSUPPORTED_FEATURE.TIME_TRAVEL",
			                          "[UNSUPPORTED_FEATURE.TIME_TRAVEL] time travel on %s.`%s`: only Delta tables "
			                          "have versions",
			                          ref->format, ref->path);
		return sql_file_relation(out, c, ref, ctx);
	case TREF_FUNCTION:
		if (strcmp(ref->function, "table_changes") == 0) return sql_changes_relation(out, c, ref, ctx);
		if (strcmp(ref->function, "range") == 0) return sql_range_relation(out, c, ref, ctx);
		if (strcmp(ref->function, "sharing") == 0) return sql_sharing_relation(out, c, ref, ctx);
		return dl_error_set_class(DL_ENOTFOUND, "UNRESOLVABLE_TABLE_VALUED_FUNCTION",
		                          "[UNRESOLVABLE_TABLE_VALUED_FUNCTION] Could not resolve `%s` to a table-valued "
		                          "function (there are table_changes, range and sharing).",
		                          ref->function);
	default: return dl_error_set(DL_EINVALID, "internal: the resolver got a subquery or join");
	}
}
