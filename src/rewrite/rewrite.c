/* The rewrite engine's driver (see rewrite.h): what the command touches,
 * the files processed in parallel, and the actions committed. The rule it
 * follows is Spark's DeleteCommand.performDelete, which replaceWhere also
 * runs: a predicate over partition columns only removes whole files; any
 * other selection reads the candidate files and, per file, either records
 * the deleted rows in a deletion vector (the table enables them) or copies
 * the surviving rows to new files. */
#include "rewrite/rewrite_internal.h"
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "log/table_features.h"
#include "log/partition_values.h"
#include "log/protocol.h"
#include "log/schema.h"
#include "json/json.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/pool.h"
#include "util/uuid.h"

#define ROW_ID_KEY "delta.rowTracking.materializedRowIdColumnName"
#define ROW_CV_KEY "delta.rowTracking.materializedRowCommitVersionColumnName"

/* ---- row tracking's materialized columns ---- */

int dl_rewrite_row_tracking_names(dl_str_map *out, bool *changed, dl_arena *arena,
                                  const dl_str_map *config, bool supported)
{
	*out = *config;
	*changed = false;
	if (!supported) return 0;
	bool has_id, has_cv;
	dl_str_map_get(config, ROW_ID_KEY, &has_id);
	dl_str_map_get(config, ROW_CV_KEY, &has_cv);
	if (has_id && has_cv) return 0;
	dl_kv *items = dl_arena_calloc(arena, (size_t)config->n + 2, sizeof *items);
	if (!items) return DL_ENOMEM;
	memcpy(items, config->items, (size_t)config->n * sizeof *items);
	uint32_t n = config->n;
	const char *keys[2] = {ROW_ID_KEY, ROW_CV_KEY};
	const char *prefixes[2] = {"_row-id-col-", "_row-commit-version-col-"};
	bool have[2] = {has_id, has_cv};
	for (int k = 0; k < 2; k++) {
		if (have[k]) continue;
		char uuid[DL_UUID_TEXT_LEN + 1];
		DL_TRY(dl_uuid_v4(uuid));
		size_t len = strlen(prefixes[k]) + DL_UUID_TEXT_LEN + 1;
		char *name = dl_arena_alloc(arena, len);
		if (!name) return DL_ENOMEM;
		snprintf(name, len, "%s%s", prefixes[k], uuid);
		items[n].key = keys[k];
		items[n++].value = name;
	}
	out->items = items;
	out->n = n;
	*changed = true;
	return 0;
}

static int hidden_columns(dl_rewrite *rw)
{
	const char *id = dl_str_map_get(&rw->config, ROW_ID_KEY, NULL);
	const char *cv = dl_str_map_get(&rw->config, ROW_CV_KEY, NULL);
	if (!id || !cv || !*id || !*cv)
		return dl_error_set(DL_EINVALID,
		                    "the table enables row tracking but its configuration lacks %s; "
		                    "assign the names first (dl_rewrite_row_tracking_names)",
		                    !id || !*id ? ROW_ID_KEY : ROW_CV_KEY);
	dl_type *long_t = dl_type_new(DL_TYPE_LONG);
	if (!long_t) return DL_ENOMEM;
	const char *names[2] = {id, cv};
	for (int k = 0; k < 2; k++) {
		if (dl_schema_find(rw->schema, names[k]) >= 0) {
			dl_type_unref(long_t);
			return dl_error_set(DL_ESCHEMA, "the materialized row tracking column %s is also a "
			                    "column of the table", names[k]);
		}
		rw->hidden[k].name = (char *)names[k];
		rw->hidden[k].type = long_t;
		rw->hidden[k].nullable = true;
		rw->hidden[k].metadata = (char *)"{}";
	}
	dl_type_ref(long_t); /* one reference per field */
	rw->nhidden = 2;
	return 0;
}

/* ---- lifetime ---- */

int dl_rewrite_new(dl_rewrite **out, const dl_rewrite_options *o)
{
	*out = NULL;
	if (!o || o->version < 1 || o->version > DL_REWRITE_OPTIONS_VERSION || !o->txn)
		return dl_error_set(DL_EINVALID, "dl_rewrite_new: options missing, of an unknown "
		                                  "version or without a transaction");
	dl_snapshot *snap = dl_txn_snapshot(o->txn);
	if (!snap) return dl_error_set(DL_EINVALID, "a rewrite needs an existing table");
	dl_rewrite *rw = dl_calloc(1, sizeof *rw);
	if (!rw) return DL_ENOMEM;
	rw->o = *o;
	rw->snap = snap;
	rw->store = dl_snapshot_store(snap);
	rw->schema = dl_type_ref((dl_type *)(o->schema ? o->schema : dl_snapshot_schema(snap)));
	const dl_log_state *st = dl_snapshot_state(snap);
	rw->config = o->configuration ? *o->configuration : st->metadata->configuration;
	rw->part_cols = (const char *const *)st->metadata->partition_columns;
	rw->npart = (int)st->metadata->npartition_columns;
	rw->m.deleted_rows_known = true;
	dl_table_properties_defaults(&rw->props);
	int rc = dl_table_properties_parse(&rw->props, &rw->config, false);
	const dl_protocol *p = st->protocol;
	rw->use_dv = o->output == DL_REWRITE_AUTO && rw->props.enable_deletion_vectors &&
	             dl_protocol_has(p, DL_FEATURE_DELETION_VECTORS);
	rw->cdf = rw->props.enable_change_data_feed;
	rw->tracked = dl_protocol_has(p, DL_FEATURE_ROW_TRACKING);
	rw->preserve = rw->tracked && rw->props.enable_row_tracking;
	if (rc == 0 && rw->preserve) rc = hidden_columns(rw);
	if (rc < 0) {
		dl_rewrite_free(rw);
		return rc;
	}
	*out = rw;
	return 0;
}

static void free_file(rw_file *f)
{
	dl_rowset_free(&f->given);
	dl_rowset_free(&f->old);
	dl_rowset_free(&f->deleted);
	dl_free(f->bpos);
	dl_selection_free(&f->sel);
	dl_files_writer_free(f->out);
	dl_change_writer_free(f->cdc);
}

void dl_rewrite_free(dl_rewrite *rw)
{
	if (!rw) return;
	for (size_t i = 0; i < rw->nfiles; i++) free_file(&rw->files[i]);
	dl_free(rw->files);
	for (int k = 0; k < rw->nhidden; k++) dl_type_unref(rw->hidden[k].type);
	dl_scan_free(rw->scan);
	dl_expr_free(rw->pred);
	dl_scan_free(rw->narrow);
	dl_expr_free(rw->narrow_pred);
	dl_scan_free(rw->filtered);
	dl_type_unref(rw->schema);
	dl_free(rw->dv_path);
	dl_arena_free(&rw->arena);
	dl_free(rw);
}

/* ---- what is touched ---- */

static int push_file(dl_rewrite *rw, const dl_add *add, rw_kind kind, rw_file **out)
{
	for (size_t i = 0; i < rw->nfiles; i++)
		if (rw->files[i].add == add || strcmp(rw->files[i].add->path, add->path) == 0)
			return dl_error_set(DL_EINVALID, "file %s is touched twice by one rewrite", add->path);
	if (rw->nfiles == rw->cap) {
		size_t cap = rw->cap ? rw->cap * 2 : 16;
		rw_file *nf = dl_reallocarray(rw->files, cap, sizeof *nf);
		if (!nf) return DL_ENOMEM;
		rw->files = nf;
		rw->cap = cap;
	}
	rw_file *f = &rw->files[rw->nfiles++];
	memset(f, 0, sizeof *f);
	f->add = add;
	f->kind = kind;
	f->copy = !rw->use_dv || kind == RW_COPY;
	f->given.budget = f->old.budget = f->deleted.budget = rw->o.budget;
	if (out) *out = f;
	return 0;
}

/* A scan of what touched files are read as: every column of the snapshot,
 * and the stable row ids and commit versions when copies must keep them;
 * with `filter`, only the rows where it holds. */
static int open_rows_scan(dl_rewrite *rw, dl_scan **out, const char *filter)
{
	const dl_type *s = dl_snapshot_schema(rw->snap);
	int n = s->nchildren;
	const char **cols = dl_calloc((size_t)n + 3, sizeof *cols);
	if (!cols) return DL_ENOMEM;
	for (int i = 0; i < n; i++) cols[i] = s->children[i].name;
	int nc = n;
	if (rw->preserve) {
		cols[nc++] = DL_SCAN_ROW_ID;
		cols[nc++] = DL_SCAN_ROW_COMMIT_VERSION;
	}
	dl_scan_options so = DL_SCAN_OPTIONS_INIT;
	so.columns = cols;
	so.ncolumns = nc;
	so.filter = filter;
	so.threads = 1;
	int rc = dl_scan_open(out, rw->snap, &so);
	dl_free(cols);
	rw->nsnap = n;
	return rc;
}

/* The scan that reads touched files whole. */
static int open_reader(dl_rewrite *rw)
{
	return rw->scan ? 0 : open_rows_scan(rw, &rw->scan, NULL);
}

/* A one-row batch of the snapshot schema holding a file's partition values
 * (other columns null), to decide a partition-only predicate exactly. */
static int partition_row(dl_rewrite *rw, const dl_add *a, dl_batch **out)
{
	const dl_type *schema = dl_snapshot_schema(rw->snap);
	dl_batch *b = dl_batch_new((dl_type *)schema, 1);
	if (!b) return dl_error_last()->code;
	int rc = 0;
	for (int i = 0; i < schema->nchildren && rc == 0; i++) {
		const dl_field *f = &schema->children[i];
		const char *val = NULL;
		bool is_part = false;
		for (int p = 0; p < rw->npart && !is_part; p++)
			is_part = strcasecmp(rw->part_cols[p], f->name) == 0;
		if (is_part) {
			const char *phys;
			bool found;
			rc = dl_field_physical_name(f, rw->props.column_mapping_mode, &rw->arena, &phys);
			if (rc == 0) val = dl_str_map_get(&a->partition_values, phys, &found);
			if (rc == 0) rc = dl_partition_value_array(&b->cols[i], f->type, val);
		} else if (!(b->cols[i] = dl_array_new_null(f->type, 1))) {
			rc = dl_error_last()->code;
		}
	}
	if (rc < 0) {
		dl_batch_free(b);
		return rc;
	}
	*out = b;
	return 0;
}

/* The predicate's top-level columns, deduplicated. */
typedef struct col_set {
	const char **names;
	int n, cap;
} col_set;

static int add_column(const char *const *path, int depth, void *payload)
{
	(void)depth;
	col_set *c = payload;
	for (int i = 0; i < c->n; i++)
		if (strcasecmp(c->names[i], path[0]) == 0) return 0;
	if (c->n == c->cap) return DL_EINVALID;
	c->names[c->n++] = path[0];
	return 0;
}

/* A scan of only the columns the predicate reads: finding the matching
 * rows needs no other column (a DV-only delete never does; copies need the
 * rest only once a file is known to match). Not opened when the predicate
 * reads every column or none. */
static int open_narrow(dl_rewrite *rw, const char *predicate)
{
	const dl_type *s = dl_snapshot_schema(rw->snap);
	dl_expr *e = NULL;
	col_set cs = {dl_calloc((size_t)s->nchildren + 1, sizeof(char *)), 0, s->nchildren};
	if (!cs.names) return DL_ENOMEM;
	int rc = dl_expr_parse(&e, predicate);
	if (rc == 0) rc = dl_expr_bind(e, s);
	if (rc == 0) rc = dl_expr_columns(e, add_column, &cs);
	if (rc == 0 && cs.n > 0 && cs.n < s->nchildren) {
		dl_scan_options so = DL_SCAN_OPTIONS_INIT;
		so.columns = cs.names;
		so.ncolumns = cs.n;
		so.threads = 1;
		rc = dl_scan_open(&rw->narrow, rw->snap, &so);
		if (rc == 0) rc = dl_expr_parse(&rw->narrow_pred, predicate);
		if (rc == 0) rc = dl_expr_bind(rw->narrow_pred, rw->narrow->out_schema);
	}
	dl_expr_free(e);
	dl_free(cs.names);
	return rc;
}

static int touch_partitions(dl_rewrite *rw, dl_scan *plan, const char *predicate)
{
	dl_expr *e = NULL;
	int rc = dl_expr_parse(&e, predicate);
	if (rc == 0) rc = dl_expr_bind(e, dl_snapshot_schema(rw->snap));
	const dl_log_state *st = dl_snapshot_state(rw->snap);
	for (size_t i = 0; i < dl_scan_file_count(plan) && rc == 0; i++) {
		const dl_add *a = dl_log_state_add(st, dl_scan_file_snapshot_index(plan, i));
		dl_batch *row = NULL;
		dl_selection s = {NULL, 0, 0};
		rc = partition_row(rw, a, &row);
		if (rc == 0) rc = dl_expr_filter(&s, e, row, NULL);
		if (rc == 0 && s.count == 1) rc = push_file(rw, a, RW_WHOLE, NULL);
		dl_selection_free(&s);
		dl_batch_free(row);
	}
	dl_expr_free(e);
	return rc;
}

int dl_rewrite_touch_where(dl_rewrite *rw, const char *predicate)
{
	if (rw->ran) return dl_error_set(DL_EINVALID, "the rewrite already ran");
	if (rw->pred) return dl_error_set(DL_EINVALID, "a rewrite takes one predicate");
	DL_TRY(dl_txn_read_predicate(rw->o.txn, predicate));
	dl_scan_options so = DL_SCAN_OPTIONS_INIT;
	so.filter = predicate;
	so.threads = 1;
	dl_scan *plan;
	/* An UPDATE with DVs reads only the matching rows of the touched files
	 * (their other rows stay where they are): the planning scan, with the
	 * reader's columns, is the one that reads them. */
	bool filtered = rw->o.update && rw->use_dv;
	DL_TRY(filtered ? open_rows_scan(rw, &plan, predicate) : dl_scan_open(&plan, rw->snap, &so));
	int rc = 0;
	/* an update reads the rows even of whole files: it rewrites them */
	if (!plan->prune_data_cols && !rw->o.update) {
		rc = touch_partitions(rw, plan, predicate);
	} else {
		rc = open_reader(rw);
		if (rc == 0) rc = dl_expr_parse(&rw->pred, predicate);
		if (rc == 0) rc = dl_expr_bind(rw->pred, rw->scan->out_schema);
		if (rc == 0 && !dl_expr_is_deterministic(rw->pred))
			rc = dl_error_set(DL_EINVALID, "the condition '%s' is not deterministic", predicate);
		/* (the filtered scan finds the matches itself: no probe pass) */
		if (rc == 0 && !filtered) rc = open_narrow(rw, predicate);
		const dl_log_state *st = dl_snapshot_state(rw->snap);
		for (size_t i = 0; i < dl_scan_file_count(plan) && rc == 0; i++) {
			const dl_add *a = dl_log_state_add(st, dl_scan_file_snapshot_index(plan, i));
			rc = dl_txn_read_file(rw->o.txn, a->path);
			if (rc == 0) rc = push_file(rw, a, RW_WHERE, NULL);
		}
		if (rc == 0 && filtered) {
			rw->filtered = plan;
			plan = NULL;
		}
	}
	dl_scan_free(plan);
	return rc;
}

int dl_rewrite_touch_rows(dl_rewrite *rw, const dl_add *file, const uint64_t *positions, size_t n)
{
	if (rw->ran) return dl_error_set(DL_EINVALID, "the rewrite already ran");
	for (size_t i = 1; i < n; i++)
		if (positions[i] <= positions[i - 1])
			return dl_error_set(DL_EINVALID, "row positions of %s are not sorted and unique",
			                    file->path);
	DL_TRY(open_reader(rw));
	DL_TRY(dl_txn_read_file(rw->o.txn, file->path));
	rw_file *f;
	DL_TRY(push_file(rw, file, RW_ROWS, &f));
	return dl_rowset_push(&f->given, positions, n, file->path);
}

int dl_rewrite_touch_rows_more(dl_rewrite *rw, const dl_add *file, const uint64_t *positions,
                               size_t n)
{
	if (rw->ran) return dl_error_set(DL_EINVALID, "the rewrite already ran");
	rw_file *f = rw->nfiles ? &rw->files[rw->nfiles - 1] : NULL;
	if (!f || f->kind != RW_ROWS || (f->add != file && strcmp(f->add->path, file->path) != 0))
		return dl_error_set(DL_EINVALID, "dl_rewrite_touch_rows_more: %s is not the file the last "
		                    "dl_rewrite_touch_rows touched", file->path);
	return dl_rowset_push(&f->given, positions, n, file->path);
}

int dl_rewrite_touch_expr(dl_rewrite *rw, const dl_expr *predicate)
{
	dl_buf sql = DL_BUF_INIT;
	int rc = dl_expr_sql(predicate, &sql);
	if (rc == 0) rc = dl_rewrite_touch_where(rw, sql.data);
	dl_buf_free(&sql);
	return rc;
}

int dl_rewrite_touch_copy(dl_rewrite *rw, const dl_add *file)
{
	if (rw->ran) return dl_error_set(DL_EINVALID, "the rewrite already ran");
	DL_TRY(open_reader(rw));
	DL_TRY(dl_txn_read_file(rw->o.txn, file->path));
	return push_file(rw, file, RW_COPY, NULL);
}

int dl_rewrite_touch_file(dl_rewrite *rw, const dl_add *file)
{
	if (rw->ran) return dl_error_set(DL_EINVALID, "the rewrite already ran");
	DL_TRY(dl_txn_read_file(rw->o.txn, file->path));
	return push_file(rw, file, RW_WHOLE, NULL);
}

/* ---- processing ---- */

static int process_range(void *ctx, size_t begin, size_t end)
{
	dl_rewrite *rw = ctx;
	for (size_t i = begin; i < end; i++) DL_TRY(dl_rw_process_file(rw, &rw->files[i]));
	return 0;
}

int dl_rewrite_run(dl_rewrite *rw)
{
	if (rw->ran) return dl_error_set(DL_EINVALID, "the rewrite already ran");
	rw->ran = true;
	dl_pool *pool = NULL;
	int rc = 0;
	if (rw->o.threads > 0) rc = dl_pool_create(&pool, rw->o.threads);
	if (rc == 0) rc = dl_parallel_for(pool, rw->nfiles, 1, process_range, rw);
	if (pool) dl_pool_free(pool);
	if (rc == 0) rc = dl_rw_write_dvs(rw);
	if (rc < 0) dl_rewrite_discard(rw);
	return rc;
}

/* ---- commit ---- */

int dl_rw_remove(dl_rewrite *rw, const dl_add *add)
{
	dl_remove r;
	memset(&r, 0, sizeof r);
	r.path = add->path;
	r.deletion_timestamp = rw->o.now_ms;
	r.data_change = rw->o.data_change;
	r.extended_file_metadata = true;
	r.partition_values = add->partition_values;
	r.size = add->size;
	r.stats = add->stats;
	r.stats_len = add->stats_len;
	r.tags = add->tags;
	r.dv = add->dv;
	r.base_row_id = add->base_row_id;
	r.default_row_commit_version = add->default_row_commit_version;
	return dl_txn_remove_file(rw->o.txn, &r);
}

/* Rows a file holds according to its stats (numRecords minus its DV), or
 * -1 when its stats do not say. */
static int64_t logical_records(const dl_add *a)
{
	if (!a->stats) return -1;
	dl_arena tmp = DL_ARENA_INIT;
	dl_json *v;
	int64_t n = -1;
	if (dl_json_parse(&tmp, a->stats, a->stats_len, "stats", &v) == 0) {
		const dl_json *r = dl_json_get(v, "numRecords");
		if (!r || dl_json_int64(r, &n) < 0) n = -1;
	} else {
		dl_error_clear();
	}
	dl_arena_free(&tmp);
	if (n >= 0 && a->dv) n -= a->dv->cardinality;
	return n;
}

static int commit_outputs(dl_rewrite *rw, rw_file *f, int64_t *hwm)
{
	if (f->out) {
		for (size_t i = 0; i < dl_files_writer_count(f->out); i++) {
			dl_add a = *dl_files_writer_add(f->out, i);
			if (rw->tracked) {
				a.base_row_id = *hwm + 1;
				a.default_row_commit_version = dl_txn_read_version(rw->o.txn) + 1;
				*hwm += dl_files_writer_file_rows(f->out, i);
			}
			DL_TRY(dl_txn_add_file(rw->o.txn, &a));
			rw->m.added_files++;
			rw->m.added_bytes += a.size;
		}
		rw->m.added_rows += dl_files_writer_rows(f->out);
	}
	if (f->cdc) {
		DL_TRY(dl_change_writer_commit(f->cdc, rw->o.txn));
		rw->m.change_files += (int64_t)dl_change_writer_count(f->cdc);
	}
	return 0;
}

int dl_rewrite_commit(dl_rewrite *rw, int64_t *row_hwm)
{
	if (!rw->ran) return dl_error_set(DL_EINVALID, "dl_rewrite_commit before dl_rewrite_run");
	int64_t hwm = row_hwm ? *row_hwm : -1;
	if (rw->tracked && !row_hwm)
		return dl_error_set(DL_EINVALID, "the table tracks rows: the commit needs the high-water mark");
	for (size_t i = 0; i < rw->nfiles; i++) {
		rw_file *f = &rw->files[i];
		if (f->kind == RW_WHOLE) {
			DL_TRY(dl_rw_remove(rw, f->add));
			rw->m.removed_files++;
			rw->m.removed_bytes += f->add->size;
			if (f->add->dv) rw->m.dvs_removed++;
			int64_t n = logical_records(f->add);
			if (n < 0) rw->m.deleted_rows_known = false;
			else rw->m.deleted_rows += n;
			continue;
		}
		rw->m.read_rows = true;
		if (!f->touched) continue;
		int64_t gone = rw->o.update ? 0 : f->matched;
		rw->m.deleted_rows += gone;
		rw->m.updated_rows += rw->o.update ? f->matched : 0;
		if (!f->copy) {
			DL_TRY(dl_rw_commit_dv_file(rw, f));
		} else {
			DL_TRY(dl_rw_remove(rw, f->add));
			rw->m.removed_files++;
			rw->m.removed_bytes += f->add->size;
			if (f->add->dv) rw->m.dvs_removed++;
			rw->m.copied_rows += f->copied;
		}
		DL_TRY(commit_outputs(rw, f, &hwm));
	}
	if (row_hwm) *row_hwm = hwm;
	return 0;
}

const dl_rewrite_metrics *dl_rewrite_get_metrics(const dl_rewrite *rw) { return &rw->m; }

bool dl_rewrite_wrote_change_data(const dl_rewrite *rw)
{
	for (size_t i = 0; i < rw->nfiles; i++)
		if (rw->files[i].cdc && dl_change_writer_count(rw->files[i].cdc)) return true;
	return false;
}

void dl_rewrite_discard(dl_rewrite *rw)
{
	if (!rw) return;
	for (size_t i = 0; i < rw->nfiles; i++) {
		rw_file *f = &rw->files[i];
		if (f->out) dl_files_writer_discard(f->out);
		if (f->cdc) dl_change_writer_discard(f->cdc);
	}
	if (rw->dv_path) {
		(void)dl_store_delete(rw->store, rw->dv_path);
		dl_free(rw->dv_path);
		rw->dv_path = NULL;
	}
}
