/* Change data feed (PROTOCOL.md "Change Data Files", "Add CDC File"): the
 * changes of versions [start, end], commit by commit.
 *
 * A commit with cdc actions has its changes in those files (the data
 * columns plus _change_type; partition values in the action). A commit
 * without them changed rows only by adding and removing whole files:
 * added files are inserts, removed files deletes. Deletion vectors refine
 * this: remove(p, dv1) + add(p, dv2) deletes exactly the rows in dv2 but not
 * in dv1 (and restores those in dv1 but not in dv2), and a file's rows
 * already deleted by its own DV are not part of an insert or delete. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "columnar/builder.h"
#include "deltalake/changes.h"
#include "log/snapshot.h"
#include "storage/backend.h"
#include "table/scan.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/options.h"

typedef struct commit_actions {
	dl_arena arena;
	dl_action *items;
	size_t n, cap;
	const char *what;
} commit_actions;

typedef struct cdf {
	dl_snapshot *snap;        /* latest: its schema is the feed's */
	dl_scan *scan;            /* reads data files (all columns) */
	dl_scan *cdc_scan;        /* reads cdc files (+ _change_type) */
	dl_type *schema;          /* output */
	dl_type *string_t, *long_t, *ts_t;
	int64_t *versions, *ts;   /* commit timestamps */
	size_t nversions;
	int64_t next, end;        /* versions still to read */
	bool enabled;             /* delta.enableChangeDataFeed at the current version */
	dl_batch **pending;       /* batches of the current commit */
	size_t npending, head, cap;
	int64_t cur_version, cur_ts;
	const char *cur_type;     /* change type of the file being read, NULL: from the file */
	dl_changes_skip_fn skip;  /* files left out (a stream's excludeRegex), or NULL */
	void *skip_payload;
} cdf;

/* ---- output columns ---- */

static dl_array *const_int(dl_type *t, int64_t v, int64_t n)
{
	dl_builder *b;
	if (dl_builder_new(&b, t) < 0) return NULL;
	dl_array *one = NULL;
	if (dl_builder_append_int(b, v) == 0) dl_builder_finish(&one, b);
	dl_builder_free(b);
	if (!one) return NULL;
	dl_array *a = dl_array_repeat(one, 0, n);
	dl_array_free(one);
	return a;
}

static dl_array *const_str(dl_type *t, const char *s, int64_t n)
{
	dl_builder *b;
	if (dl_builder_new(&b, t) < 0) return NULL;
	dl_array *one = NULL;
	if (dl_builder_append_bytes(b, s, strlen(s)) == 0) dl_builder_finish(&one, b);
	dl_builder_free(b);
	if (!one) return NULL;
	dl_array *a = dl_array_repeat(one, 0, n);
	dl_array_free(one);
	return a;
}

static int push(cdf *c, dl_batch *b)
{
	if (c->npending == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		dl_batch **p = dl_reallocarray(c->pending, cap, sizeof *p);
		if (!p) return DL_ENOMEM;
		c->pending = p;
		c->cap = cap;
	}
	c->pending[c->npending++] = b;
	return 0;
}

/* Appends the change columns to a data (or cdc) batch. */
static int emit_change(void *payload, dl_batch *in)
{
	cdf *c = payload;
	int64_t n = in->num_rows;
	dl_batch *o = dl_batch_new(c->schema, n);
	int rc = o ? 0 : DL_ENOMEM;
	int k = 0;
	for (; rc == 0 && k < in->ncols; k++) {
		o->cols[k] = in->cols[k];
		in->cols[k] = NULL;
	}
	if (rc == 0 && c->cur_type) {
		o->cols[k] = const_str(c->string_t, c->cur_type, n);
		if (!o->cols[k++]) rc = DL_ENOMEM;
	}
	if (rc == 0) {
		o->cols[k] = const_int(c->long_t, c->cur_version, n);
		o->cols[k + 1] = const_int(c->ts_t, c->cur_ts * 1000, n);
		if (!o->cols[k] || !o->cols[k + 1]) rc = DL_ENOMEM;
	}
	dl_batch_free(in);
	if (rc == 0) rc = push(c, o);
	if (rc < 0) dl_batch_free(o);
	return rc;
}

/* ---- the cdc scan: the data columns plus _change_type ---- */

static int extend_change_type(dl_scan *s, dl_type *string_t)
{
	int nr = s->read_schema->nchildren, np = s->phys_request->nchildren;
	dl_field *rf = dl_calloc((size_t)nr + 1, sizeof *rf);
	dl_field *pf = dl_calloc((size_t)np + 1, sizeof *pf);
	dl_field *of = dl_calloc((size_t)s->nout + 1, sizeof *of);
	dl_scan_col *cols = dl_reallocarray(s->cols, (size_t)nr + 1, sizeof *cols);
	int *out_cols = dl_reallocarray(s->out_cols, (size_t)s->nout + 1, sizeof *out_cols);
	if (cols) s->cols = cols;
	if (out_cols) s->out_cols = out_cols;
	int rc = (!rf || !pf || !of || !cols || !out_cols) ? DL_ENOMEM : 0;
	if (rc == 0) {
		memcpy(rf, s->read_schema->children, (size_t)nr * sizeof *rf);
		memcpy(pf, s->phys_request->children, (size_t)np * sizeof *pf);
		memcpy(of, s->out_schema->children, (size_t)s->nout * sizeof *of);
		dl_field ct = {"_change_type", string_t, true, "{}"};
		rf[nr] = pf[np] = of[s->nout] = ct;
		dl_type *r = dl_type_struct(rf, nr + 1), *p = dl_type_struct(pf, np + 1), *o = dl_type_struct(of, s->nout + 1);
		if (!r || !p || !o) {
			dl_type_unref(r);
			dl_type_unref(p);
			dl_type_unref(o);
			rc = DL_ENOMEM;
		} else {
			dl_type_unref(s->read_schema);
			dl_type_unref(s->phys_request);
			dl_type_unref(s->out_schema);
			s->read_schema = r;
			s->phys_request = p;
			s->out_schema = o;
			for (int i = 0; i <= nr; i++) s->cols[i].type = r->children[i].type;
			s->cols[nr] = (dl_scan_col){DL_SCOL_DATA, np, NULL, r->children[nr].type};
			s->out_cols[s->nout++] = nr;
			/* cdc files carry physical names; _change_type has no field id */
			s->by_field_id = false;
		}
	}
	dl_free(rf);
	dl_free(pf);
	dl_free(of);
	return rc;
}

/* ---- reading one commit ---- */

static int collect_action(const dl_json *line, int64_t lineno, void *payload)
{
	(void)lineno;
	commit_actions *ca = payload;
	dl_action a;
	DL_TRY(dl_action_from_json(&a, &ca->arena, line, ca->what));
	if (a.kind == DL_ACTION_UNKNOWN) return 0;
	if (ca->n == ca->cap) {
		size_t cap = ca->cap ? ca->cap * 2 : 16;
		dl_action *p = dl_reallocarray(ca->items, cap, sizeof *p);
		if (!p) return DL_ENOMEM;
		ca->items = p;
		ca->cap = cap;
	}
	ca->items[ca->n++] = a;
	return 0;
}

static int read_commit(commit_actions *ca, dl_store *store, int64_t v)
{
	char path[64];
	snprintf(path, sizeof path, "_delta_log/%020" PRId64 ".json", v);
	ca->what = path;
	uint8_t *data;
	size_t len;
	int rc = dl_store_get(&data, &len, store, path);
	if (rc == DL_ENOTFOUND)
		return dl_error_set(DL_ENOTFOUND, "commit %" PRId64 " (%s) is missing: the log was cleaned up past it, "
		                    "so its changes cannot be read", v, path);
	DL_TRY(rc);
	rc = dl_json_parse_lines(&ca->arena, (const char *)data, len, path, collect_action, ca);
	dl_free(data);
	return rc;
}

static int check_enabled(cdf *c, const commit_actions *ca, int64_t v)
{
	for (size_t i = 0; i < ca->n; i++) {
		if (ca->items[i].kind != DL_ACTION_METADATA) continue;
		dl_table_properties p;
		dl_table_properties_parse(&p, &ca->items[i].u.metadata.configuration, false);
		c->enabled = p.enable_change_data_feed;
	}
	if (!c->enabled)
		return dl_error_set(DL_EINVALID, "the change data feed was not enabled at version %" PRId64
		                    " (table property delta.enableChangeDataFeed); read changes from a later "
		                    "version", v);
	return 0;
}

static const dl_remove *find_remove(const commit_actions *ca, const char *path)
{
	for (size_t i = 0; i < ca->n; i++)
		if (ca->items[i].kind == DL_ACTION_REMOVE && ca->items[i].u.remove.data_change &&
		    strcmp(ca->items[i].u.remove.path, path) == 0) return &ca->items[i].u.remove;
	return NULL;
}

static const dl_add *find_add(const commit_actions *ca, const char *path)
{
	for (size_t i = 0; i < ca->n; i++)
		if (ca->items[i].kind == DL_ACTION_ADD && ca->items[i].u.add.data_change &&
		    strcmp(ca->items[i].u.add.path, path) == 0) return &ca->items[i].u.add;
	return NULL;
}

/* Through the scan's DV files: opened once for the whole feed, and under
 * the path policy. */
static int load_rows(dl_scan *scan, const dl_dv_descriptor *dv, uint64_t **rows, size_t *n)
{
	*rows = NULL;
	*n = 0;
	if (!dv) return 0;
	dl_dv_rows r;
	DL_TRY(dl_dv_load_from(&r, scan->dvs, dv));
	int rc = dl_dv_rows_to_array(&r, rows, n);
	dl_dv_rows_free(&r);
	return rc;
}

/* a \ b of two sorted arrays into out (malloc'd). */
static int difference(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, uint64_t **out, size_t *n)
{
	*out = dl_malloc((na ? na : 1) * sizeof **out);
	if (!*out) return DL_ENOMEM;
	size_t j = 0;
	*n = 0;
	for (size_t i = 0; i < na; i++) {
		while (j < nb && b[j] < a[i]) j++;
		if (j < nb && b[j] == a[i]) continue;
		(*out)[(*n)++] = a[i];
	}
	return 0;
}

/* A file re-added with another DV: deletes (new \ old), restores (old \ new). */
static int dv_update(cdf *c, const dl_add *add, const dl_remove *rm)
{
	uint64_t *nw = NULL, *old = NULL, *d = NULL;
	size_t nn = 0, no = 0, nd = 0;
	int rc = load_rows(c->scan, add->dv, &nw, &nn);
	if (rc == 0) rc = load_rows(c->scan, rm->dv, &old, &no);
	if (rc == 0) rc = difference(nw, nn, old, no, &d, &nd);
	c->cur_type = "delete";
	if (rc == 0) rc = dl_scan_read_add(c->scan, add, d, nd, true, emit_change, c);
	dl_free(d);
	d = NULL;
	if (rc == 0) rc = difference(old, no, nw, nn, &d, &nd);
	c->cur_type = "insert";
	if (rc == 0) rc = dl_scan_read_add(c->scan, add, d, nd, true, emit_change, c);
	dl_free(d);
	dl_free(nw);
	dl_free(old);
	return rc;
}

/* A remove as an add (same path, partition values, DV), to read its rows. */
static dl_add remove_as_add(const dl_remove *r)
{
	dl_add a;
	memset(&a, 0, sizeof a);
	a.path = r->path;
	a.partition_values = r->partition_values;
	a.size = r->size == DL_NONE ? -1 : r->size;
	a.dv = r->dv;
	a.base_row_id = r->base_row_id;
	a.default_row_commit_version = r->default_row_commit_version;
	return a;
}

static int commit_changes(cdf *c, const commit_actions *ca)
{
	bool has_cdc = false;
	for (size_t i = 0; i < ca->n; i++) has_cdc |= ca->items[i].kind == DL_ACTION_CDC;
	if (has_cdc) {
		c->cur_type = NULL;
		for (size_t i = 0; i < ca->n; i++) {
			if (ca->items[i].kind != DL_ACTION_CDC) continue;
			const dl_cdc *cd = &ca->items[i].u.cdc;
			if (c->skip && c->skip(c->skip_payload, cd->path)) continue;
			dl_add a;
			memset(&a, 0, sizeof a);
			a.path = cd->path;
			a.partition_values = cd->partition_values;
			a.size = cd->size;
			DL_TRY(dl_scan_read_add(c->cdc_scan, &a, NULL, 0, false, emit_change, c));
		}
		return 0;
	}
	for (size_t i = 0; i < ca->n; i++) {
		const dl_action *a = &ca->items[i];
		/* a DV pair shares its path: left out together */
		const char *path = a->kind == DL_ACTION_ADD ? a->u.add.path : a->kind == DL_ACTION_REMOVE ? a->u.remove.path : NULL;
		if (path && c->skip && c->skip(c->skip_payload, path)) continue;
		if (a->kind == DL_ACTION_ADD && a->u.add.data_change) {
			const dl_remove *rm = find_remove(ca, a->u.add.path);
			if (rm && (rm->dv || a->u.add.dv)) {
				DL_TRY(dv_update(c, &a->u.add, rm));
				continue;
			}
			c->cur_type = "insert";
			DL_TRY(dl_scan_read_add(c->scan, &a->u.add, NULL, 0, false, emit_change, c));
		} else if (a->kind == DL_ACTION_REMOVE && a->u.remove.data_change) {
			/* a file re-added with another DV was handled with its add */
			const dl_add *add = find_add(ca, a->u.remove.path);
			if (add && (add->dv || a->u.remove.dv)) continue;
			dl_add ra = remove_as_add(&a->u.remove);
			c->cur_type = "delete";
			DL_TRY(dl_scan_read_add(c->scan, &ra, NULL, 0, false, emit_change, c));
		}
	}
	return 0;
}

static int next_commit(cdf *c)
{
	int64_t v = c->next++;
	commit_actions ca;
	memset(&ca, 0, sizeof ca);
	int rc = read_commit(&ca, dl_snapshot_store(c->snap), v);
	if (rc == 0) rc = check_enabled(c, &ca, v);
	c->cur_version = v;
	c->cur_ts = 0;
	bool listed = false;
	for (size_t i = 0; i < c->nversions; i++)
		if (c->versions[i] == v) {
			c->cur_ts = c->ts[i];
			listed = true;
		}
	/* A store that serves commits it does not list (a Delta Sharing table,
	 * src/sharing/client_table.c: the server gives each change's commit
	 * time, not file times) carries the time in the commit's commitInfo. */
	for (size_t i = 0; rc == 0 && !listed && i < ca.n; i++)
		if (ca.items[i].kind == DL_ACTION_COMMIT_INFO) {
			const dl_commit_info *ci = &ca.items[i].u.commit_info;
			if (ci->in_commit_timestamp != DL_NONE) c->cur_ts = ci->in_commit_timestamp;
			else if (ci->timestamp != DL_NONE) c->cur_ts = ci->timestamp;
		}
	if (rc == 0) rc = commit_changes(c, &ca);
	dl_free(ca.items);
	dl_arena_free(&ca.arena);
	if (rc < 0) return dl_error_prefix("changes of version %" PRId64, v);
	return 0;
}

/* ---- the stream ---- */

static const dl_type *cdf_schema(dl_batch_stream *bs)
{
	return ((cdf *)bs->private_data)->schema;
}

static int cdf_next(dl_batch_stream *bs, dl_batch **out)
{
	cdf *c = bs->private_data;
	*out = NULL;
	while (c->head == c->npending) {
		c->head = c->npending = 0;
		if (c->next > c->end) return 0;
		DL_TRY(next_commit(c));
	}
	*out = c->pending[c->head++];
	return 0;
}

static void cdf_free(cdf *c)
{
	if (!c) return;
	for (size_t i = c->head; i < c->npending; i++) dl_batch_free(c->pending[i]);
	dl_free(c->pending);
	dl_scan_free(c->scan);
	dl_scan_free(c->cdc_scan);
	dl_snapshot_free(c->snap);
	dl_type_unref(c->schema);
	dl_type_unref(c->string_t);
	dl_type_unref(c->long_t);
	dl_type_unref(c->ts_t);
	dl_free(c->versions);
	dl_free(c->ts);
	dl_free(c);
}

static void cdf_release(dl_batch_stream *bs)
{
	if (!bs) return;
	cdf_free(bs->private_data);
	dl_free(bs);
}

/* ---- range resolution ---- */

static int resolve_range(cdf *c, const dl_changes_options *o)
{
	int64_t latest = dl_snapshot_version(c->snap);
	int64_t start = o->start_version, end = o->end_version;
	/* A store that resolves times itself (a shared table: its server). */
	dl_store *st = dl_snapshot_store(c->snap);
	int by_store = 0;
	if (o->start_timestamp_ms != DL_NO_TIMESTAMP)
		by_store = dl_store_version_at_timestamp(&start, st, o->start_timestamp_ms,
		                                         DL_STORE_TS_STARTING, false);
	if (by_store >= 0 && o->end_timestamp_ms != DL_NO_TIMESTAMP) {
		int e = dl_store_version_at_timestamp(&end, st, o->end_timestamp_ms, DL_STORE_TS_AS_OF, true);
		by_store = e < 0 ? e : by_store | e;
	}
	if (by_store < 0) return by_store;
	if (by_store == 0 && o->start_timestamp_ms != DL_NO_TIMESTAMP) {
		/* the first commit at or after the start timestamp */
		start = -1;
		for (size_t i = 0; i < c->nversions && start < 0; i++)
			if (c->ts[i] >= o->start_timestamp_ms) start = c->versions[i];
		if (start < 0)
			return dl_error_set(DL_EINVALID, "no commit at or after the start timestamp: the latest version %"
			                    PRId64 " is older; use an earlier start", latest);
	}
	if (by_store == 0 && o->end_timestamp_ms != DL_NO_TIMESTAMP)
		DL_TRY(dl_log_version_at_timestamp(c->versions, c->ts, c->nversions, o->end_timestamp_ms, true, &end));
	if (end < 0) end = latest;
	if (start < 0) return dl_error_set(DL_EINVALID, "the start version must be >= 0");
	if (end > latest)
		return dl_error_set(DL_EINVALID, "the end version %" PRId64 " is after the latest version %" PRId64
		                    " of the table; use an end version <= %" PRId64, end, latest, latest);
	if (start > end)
		return dl_error_set(DL_EINVALID, "the start version %" PRId64 " is after the end version %" PRId64
		                    "; give a start at or before the end", start, end);
	c->next = start;
	c->end = end;
	/* whether the feed was enabled just before the start (the start's own
	 * metadata may enable it) */
	if (start > 0) {
		dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
		so.as_of_version = start - 1;
		so.metadata_only = true;
		so.store = dl_snapshot_store(c->snap);
		dl_snapshot *prev;
		DL_TRY(dl_snapshot_open(&prev, NULL, &so));
		c->enabled = dl_snapshot_props(prev)->enable_change_data_feed;
		dl_snapshot_free(prev);
	}
	return 0;
}

/* Whether the feed is on over the whole range, before any row is
 * produced: only the metaData lines of the range's commits are parsed. */
static int precheck_enabled(cdf *c)
{
	bool enabled = c->enabled;
	dl_store *st = dl_snapshot_store(c->snap);
	for (int64_t v = c->next; v <= c->end; v++) {
		char path[64];
		snprintf(path, sizeof path, "_delta_log/%020" PRId64 ".json", v);
		uint8_t *data;
		size_t len;
		int rc = dl_store_get(&data, &len, st, path);
		if (rc == DL_ENOTFOUND)
			return dl_error_set(DL_ENOTFOUND, "commit %" PRId64 " (%s) is missing: the log was cleaned up past "
			                    "it, so its changes cannot be read", v, path);
		DL_TRY(rc);
		commit_actions ca;
		memset(&ca, 0, sizeof ca);
		ca.what = path;
		const char *text = (const char *)data;
		for (const char *line = text; rc == 0 && line < text + len;) {
			const char *nl = memchr(line, '\n', (size_t)(text + len - line));
			size_t n = nl ? (size_t)(nl - line) : (size_t)(text + len - line);
			/* a metaData action's line starts with its key */
			const char *k = line;
			while (k < line + n && (*k == ' ' || *k == '\t' || *k == '{')) k++;
			if ((size_t)(line + n - k) > 11 && memcmp(k, "\"metaData\"", 10) == 0) {
				dl_json *j;
				rc = dl_json_parse(&ca.arena, line, n, path, &j);
				if (rc == 0) rc = collect_action(j, 0, &ca);
			}
			line = nl ? nl + 1 : text + len;
		}
		dl_free(data);
		for (size_t i = 0; rc == 0 && i < ca.n; i++) {
			dl_table_properties p;
			dl_table_properties_parse(&p, &ca.items[i].u.metadata.configuration, false);
			enabled = p.enable_change_data_feed;
		}
		dl_free(ca.items);
		dl_arena_free(&ca.arena);
		DL_TRY(rc);
		if (!enabled)
			return dl_error_set(DL_EINVALID, "the change data feed was not enabled at version %" PRId64
			                    " (table property delta.enableChangeDataFeed); read changes from a later "
			                    "version", v);
	}
	return 0;
}

static int build_schema(cdf *c)
{
	c->string_t = dl_type_new(DL_TYPE_STRING);
	c->long_t = dl_type_new(DL_TYPE_LONG);
	c->ts_t = dl_type_new(DL_TYPE_TIMESTAMP);
	if (!c->string_t || !c->long_t || !c->ts_t) return DL_ENOMEM;
	const dl_type *ts = c->scan->out_schema;
	dl_field *f = dl_calloc((size_t)ts->nchildren + 3, sizeof *f);
	if (!f) return DL_ENOMEM;
	memcpy(f, ts->children, (size_t)ts->nchildren * sizeof *f);
	f[ts->nchildren] = (dl_field){"_change_type", c->string_t, true, "{}"};
	f[ts->nchildren + 1] = (dl_field){"_commit_version", c->long_t, true, "{}"};
	f[ts->nchildren + 2] = (dl_field){"_commit_timestamp", c->ts_t, true, "{}"};
	c->schema = dl_type_struct(f, ts->nchildren + 3);
	dl_free(f);
	return c->schema ? 0 : DL_ENOMEM;
}

int dl_changes_batches(dl_batch_stream **out, const char *uri, const dl_changes_options *opts)
{
	return dl_changes_batches_skipping(out, uri, opts, NULL, NULL, NULL);
}

int dl_changes_batches_skipping(dl_batch_stream **out, const char *uri, const dl_changes_options *opts,
                                dl_changes_skip_fn skip, void *payload, dl_snapshot *read_snap)
{
	/* The size of each version of the options (util/options.h). */
	static const size_t ends[] = {
		DL_OPTIONS_END(dl_changes_options, end_timestamp_ms), /* 1 */
		sizeof(dl_changes_options),                           /* 2: store, roots */
	};
	DL_OPTIONS_ENDS_CHECK(ends, DL_CHANGES_OPTIONS_VERSION);
	*out = NULL;
	dl_changes_options loaded = DL_CHANGES_OPTIONS_INIT;
	DL_TRY(dl_options_load(&loaded, opts, ends, DL_CHANGES_OPTIONS_VERSION, "dl_changes_options",
	                       "DL_CHANGES_OPTIONS_INIT"));
	const dl_changes_options *o = &loaded;
	cdf *c = dl_calloc(1, sizeof *c);
	if (!c) return DL_ENOMEM;
	c->skip = skip;
	c->skip_payload = payload;
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	so.skip_tombstones = true;
	so.store = o->store;
	so.store_options = o->store_options;
	so.allowed_roots = o->allowed_roots;
	so.nallowed_roots = o->nallowed_roots;
	int rc = dl_snapshot_open(&c->snap, uri, &so);
	if (rc == 0) rc = dl_log_commit_timestamps(dl_snapshot_store(c->snap), dl_snapshot_props(c->snap),
	                                           &c->versions, &c->ts, &c->nversions);
	if (rc == 0) rc = resolve_range(c, o);
	if (rc == 0) rc = precheck_enabled(c);
	dl_scan_options sco = DL_SCAN_OPTIONS_INIT;
	sco.threads = 1;
	/* the rows come in the reader's schema when it has one (a stream's,
	 * fixed at its start), else the latest */
	dl_snapshot *rs = read_snap ? read_snap : c->snap;
	if (rc == 0) rc = dl_scan_open(&c->scan, rs, &sco);
	if (rc == 0) rc = dl_scan_open(&c->cdc_scan, rs, &sco);
	if (rc == 0) rc = build_schema(c);
	if (rc == 0) rc = extend_change_type(c->cdc_scan, c->string_t);
	dl_batch_stream *bs = rc == 0 ? dl_calloc(1, sizeof *bs) : NULL;
	if (rc == 0 && !bs) rc = DL_ENOMEM;
	if (rc < 0) {
		cdf_free(c);
		return rc;
	}
	bs->schema = cdf_schema;
	bs->next = cdf_next;
	bs->release = cdf_release;
	bs->private_data = c;
	*out = bs;
	return 0;
}

int dl_table_changes(struct ArrowArrayStream *out, const char *uri, const dl_changes_options *opts)
{
	dl_batch_stream *bs;
	DL_TRY(dl_changes_batches(&bs, uri, opts));
	return dl_batch_stream_export(out, bs);
}
