/* Shared steps of DELETE and UPDATE (see dml_common.h). */
#include "dml/dml_common.h"
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "json/json.h"
#include "log/protocol.h"
#include "log/table_features.h"
#include "ops/auto_optimize.h"
#include "ops/create.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/time.h"

int dl_dml_begin(dl_dml_cmd *c, const char *uri, dl_store *store,
                 const dl_store_options *store_options, const char *user_metadata)
{
	c->start_ns = dl_monotonic_ns();
	c->now_ms = dl_now_millis();
	if (store) {
		c->store = store;
	} else {
		if (!uri) return dl_error_set(DL_EINVALID, "%s: no table given", c->operation);
		DL_TRY(dl_store_open(&c->store, uri, store_options));
		c->owns_store = true;
	}
	DL_TRY(dl_ops_open_latest(&c->snap, c->store));
	if (!c->snap)
		return dl_error_set(DL_ENOTFOUND, "%s: no Delta table at %s", c->operation,
		                    dl_store_root(c->store));
	const dl_log_state *st = dl_snapshot_state(c->snap);
	dl_table_properties_defaults(&c->props);
	DL_TRY(dl_table_properties_parse(&c->props, &st->metadata->configuration, false));
	/* Spark's DeltaLog.assertRemovable, before any work */
	if (c->props.append_only)
		return dl_error_set_class(DL_ECONSTRAINT, "DELTA_CANNOT_MODIFY_APPEND_ONLY",
		                          "This table is configured to only allow appends "
		                          "(delta.appendOnly = true): %s is not allowed. Set "
		                          "delta.appendOnly to false to allow updates and deletes.",
		                          c->operation);
	c->use_dv = c->props.enable_deletion_vectors &&
	            dl_protocol_has(st->protocol, DL_FEATURE_DELETION_VECTORS);
	dl_txn_options to = DL_TXN_OPTIONS_INIT;
	to.operation = c->operation;
	to.user_metadata = user_metadata;
	DL_TRY(dl_txn_begin(&c->txn, c->store, c->snap, &to));
	/* Copies keep their row ids in the materialized columns, which must
	 * have names (a table written before they were named gets them now). */
	bool named = false;
	c->config = st->metadata->configuration;
	if (c->props.enable_row_tracking)
		DL_TRY(dl_rewrite_row_tracking_names(&c->config, &named, &c->arena,
		                                     &st->metadata->configuration,
		                                     dl_protocol_has(st->protocol,
		                                                     DL_FEATURE_ROW_TRACKING)));
	if (named) {
		dl_metadata md = *st->metadata;
		md.configuration = c->config;
		DL_TRY(dl_txn_set_metadata(c->txn, &md));
	}
	return 0;
}

int dl_dml_already_applied(dl_dml_cmd *c, const char *app_id, int64_t version, bool *applied)
{
	*applied = false;
	if ((app_id != NULL) != (version >= 0))
		return dl_error_set(DL_EINVALID, "%s: idempotent DML needs both txn_app_id and "
		                    "txn_version (>= 0)", c->operation);
	if (!app_id) return 0;
	int64_t v;
	int rc = dl_txn_app_version(c->txn, app_id, &v);
	if (rc == DL_ENOTFOUND) {
		dl_error_clear();
		rc = 0;
	} else if (rc == 0) {
		*applied = v >= version;
	}
	if (rc == 0 && !*applied) rc = dl_txn_set_app_txn(c->txn, app_id, version);
	return rc;
}

int dl_dml_check_predicate(dl_dml_cmd *c, const char *sql, const char *what, dl_expr **out)
{
	if (out) *out = NULL;
	dl_expr *e;
	if (dl_expr_parse(&e, sql) < 0) return dl_error_prefix("%s", what);
	int rc = dl_expr_bind(e, dl_snapshot_schema(c->snap));
	if (rc < 0) {
		dl_expr_free(e);
		return dl_error_prefix("%s", what);
	}
	if (!dl_expr_is_deterministic(e))
		rc = dl_error_set_class(DL_EINVALID, "DELTA_NON_DETERMINISTIC_FUNCTION_NOT_SUPPORTED",
		                        "%s '%s' is not deterministic (non-deterministic functions "
		                        "such as rand() or current_timestamp() are not supported)",
		                        what, sql);
	else if (dl_expr_type(e)->id != DL_TYPE_BOOLEAN)
		rc = dl_error_set(DL_EINVALID, "%s '%s' is not a boolean expression", what, sql);
	if (rc < 0 || !out) dl_expr_free(e);
	else *out = e;
	return rc;
}

typedef struct part_check {
	const dl_dml_cmd *c;
	bool only;
} part_check;

static int column_is_partition(const char *const *path, int depth, void *payload)
{
	part_check *p = payload;
	const dl_metadata *md = dl_snapshot_state(p->c->snap)->metadata;
	bool found = false;
	for (uint32_t i = 0; i < md->npartition_columns && !found && depth == 1; i++)
		found = strcasecmp(md->partition_columns[i], path[0]) == 0;
	if (!found) p->only = false;
	return 0;
}

bool dl_dml_partition_only(const dl_dml_cmd *c, const dl_expr *pred)
{
	part_check p = {c, true};
	if (dl_expr_columns(pred, column_is_partition, &p) < 0) {
		dl_error_clear();
		return false;
	}
	return p.only;
}

int dl_dml_set_predicate_parameter(dl_dml_cmd *c, const char *predicate)
{
	dl_buf b = DL_BUF_INIT, sql = DL_BUF_INIT;
	int rc = 0;
	if (predicate) {
		/* Spark writes the expression's own text (Expression.simpleString):
		 * ours is the canonical SQL of the parsed predicate. */
		dl_expr *e;
		rc = dl_expr_parse(&e, predicate);
		if (rc == 0) {
			rc = dl_expr_sql(e, &sql);
			dl_expr_free(e); /* also when the SQL text failed */
		}
	}
	dl_json_writer w;
	dl_jw_init(&w, &b);
	dl_jw_array_begin(&w);
	if (predicate && rc == 0) {
		/* Spark's binary operators print themselves parenthesized: "(id = 2)" */
		dl_buf par = DL_BUF_INIT;
		bool wrap = sql.data[0] != '(' || sql.data[sql.len - 1] != ')';
		dl_buf_printf(&par, wrap ? "(%s)" : "%s", sql.data);
		dl_jw_string(&w, par.data ? par.data : "");
		dl_buf_free(&par);
	}
	dl_jw_array_end(&w);
	if (rc == 0) rc = dl_jw_finish(&w);
	if (rc == 0) rc = dl_txn_set_parameter(c->txn, "predicate", b.data);
	dl_buf_free(&b);
	dl_buf_free(&sql);
	return rc;
}

int dl_dml_open_rewrite(dl_dml_cmd *c, dl_rewrite_options *ro)
{
	ro->txn = c->txn;
	ro->configuration = &c->config;
	ro->data_change = true;
	ro->now_ms = c->now_ms;
	return dl_rewrite_new(&c->rw, ro);
}

static int row_id_high_water_mark(dl_dml_cmd *c, int64_t *hwm)
{
	*hwm = -1;
	const char *conf = dl_snapshot_domain(c->snap, "delta.rowTracking");
	if (!conf) return 0;
	dl_json *v;
	if (dl_json_parse(&c->arena, conf, strlen(conf), "delta.rowTracking domain", &v) < 0)
		return dl_error_set(DL_ECORRUPT, "the delta.rowTracking domain is not JSON: %s", conf);
	const dl_json *m = dl_json_get(v, "rowIdHighWaterMark");
	if (m && dl_json_int64(m, hwm) < 0)
		return dl_error_set(DL_ECORRUPT, "rowIdHighWaterMark is not an integer: %s", conf);
	return 0;
}

int dl_dml_commit_rewrite(dl_dml_cmd *c)
{
	const dl_protocol *p = dl_snapshot_state(c->snap)->protocol;
	bool track = dl_protocol_has(p, DL_FEATURE_ROW_TRACKING);
	int64_t hwm = -1;
	if (track) DL_TRY(row_id_high_water_mark(c, &hwm));
	int64_t before = hwm;
	DL_TRY(dl_rewrite_commit(c->rw, track ? &hwm : NULL));
	if (track && hwm != before) {
		char conf[64];
		snprintf(conf, sizeof conf, "{\"rowIdHighWaterMark\":%lld}", (long long)hwm);
		DL_TRY(dl_txn_set_domain(c->txn, "delta.rowTracking", conf, false));
	}
	return 0;
}

int dl_dml_progress(dl_dml_cmd *c, const char *phase, const char *unit, int64_t done,
                    int64_t total, int64_t rows)
{
	if (!c->progress) return 0;
	dl_progress_info p = {c->progress_name, phase, unit, done, total, rows, -1};
	if (c->progress(&p, c->progress_payload) == 0) return 0;
	return dl_error_set(DL_ECANCELLED, "%s cancelled by the progress callback (%s)",
	                    c->operation, phase);
}

int64_t dl_dml_elapsed_ms(const dl_dml_cmd *c)
{
	return (dl_monotonic_ns() - c->start_ns) / 1000000;
}

int dl_dml_commit(dl_dml_cmd *c, int64_t *version)
{
	DL_TRY(dl_txn_commit(c->txn, version));
	/* Spark's AutoCompact post-commit hook; it never fails the command */
	dl_ops_auto_compact_after_commit(c->store, &c->config, -1, *version);
	return 0;
}

void dl_dml_end(dl_dml_cmd *c, int rc)
{
	if (rc < 0 && c->rw && !(c->txn && dl_txn_commit_unknown(c->txn))) {
		dl_error saved = *dl_error_last();
		char *msg = dl_strdup(saved.message);
		char *klass = dl_strdup(saved.klass);
		dl_rewrite_discard(c->rw);
		if (msg && klass && *klass) dl_error_set_class(rc, klass, "%s", msg);
		else if (msg) dl_error_set(rc, "%s", msg);
		dl_free(msg);
		dl_free(klass);
	}
	dl_rewrite_free(c->rw);
	dl_txn_free(c->txn);
	dl_snapshot_free(c->snap);
	if (c->owns_store) dl_store_free(c->store);
	dl_arena_free(&c->arena);
	memset(c, 0, sizeof *c);
}
