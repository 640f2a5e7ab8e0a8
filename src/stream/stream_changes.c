/* The change data feed as a stream (readChangeFeed): a plan's units as
 * rows with _change_type, _commit_version and _commit_timestamp (whole
 * commits through deltalake/changes.h, single files of a split commit or of
 * the initial snapshot through the feed's scan), then the stream's filter
 * and projection over them. */
#include <inttypes.h>
#include <string.h>
#include "columnar/builder.h"
#include "deltalake/changes.h"
#include "exec/exec.h"
#include "stream/stream_internal.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

/* ---- readChangeFeed ---- */

int dl_stream_cdf_init(dl_stream *s)
{
	if (!dl_snapshot_props(s->read_snap)->enable_change_data_feed)
		return dl_error_set_class(DL_EINVALID, "DELTA_MISSING_CHANGE_DATA",
		                          "readChangeFeed needs the change data feed: %s does not have "
		                          "delta.enableChangeDataFeed = true", s->table);
	dl_scan_options sc = DL_SCAN_OPTIONS_INIT;
	sc.threads = 1;
	DL_TRY(dl_scan_open(&s->cdf_scan, s->read_snap, &sc));
	const dl_type *ts = s->cdf_scan->out_schema;
	dl_type *str = dl_type_new(DL_TYPE_STRING), *lng = dl_type_new(DL_TYPE_LONG), *tst = dl_type_new(DL_TYPE_TIMESTAMP);
	dl_field *f = dl_calloc((size_t)ts->nchildren + 3, sizeof *f);
	int rc = str && lng && tst && f ? 0 : DL_ENOMEM;
	if (rc == 0) {
		memcpy(f, ts->children, (size_t)ts->nchildren * sizeof *f);
		f[ts->nchildren] = (dl_field){"_change_type", str, true, "{}"};
		f[ts->nchildren + 1] = (dl_field){"_commit_version", lng, true, "{}"};
		f[ts->nchildren + 2] = (dl_field){"_commit_timestamp", tst, true, "{}"};
		s->cdf_schema = dl_type_struct(f, ts->nchildren + 3);
		if (!s->cdf_schema) rc = DL_ENOMEM;
	}
	dl_free(f);
	dl_type_unref(str);
	dl_type_unref(lng);
	dl_type_unref(tst);
	DL_TRY(rc);
	/* the filter and the columns apply to the feed's rows (its change
	 * columns included): checked here, bound per batch */
	if (s->o.filter) {
		DL_TRY(dl_expr_parse(&s->cdf_filter, s->o.filter));
		dl_expr *probe;
		DL_TRY(dl_expr_parse(&probe, s->o.filter));
		rc = dl_expr_bind(probe, s->cdf_schema);
		dl_expr_free(probe);
		if (rc < 0) return dl_error_prefix("filter '%s'", s->o.filter);
	}
	for (int i = 0; i < s->o.ncolumns; i++) {
		bool found = false;
		for (int j = 0; j < s->cdf_schema->nchildren && !found; j++)
			found = strcasecmp(s->cdf_schema->children[j].name, s->o.columns[i]) == 0;
		if (!found)
			return dl_error_set(DL_EINVALID, "column '%s' is not a column of %s's change data feed",
			                    s->o.columns[i], s->table);
	}
	return 0;
}

typedef struct cdf_units {
	dl_stream *s;
	st_plan *plan;
	size_t next;
	dl_batch_stream *cur;     /* the changes of one commit */
	dl_batch **q;             /* the change rows of one file */
	size_t nq, head, cap;
	const char *change_type;  /* of the file being read */
	int64_t snap_version, snap_ts_us; /* its commit and the commit's time */
} cdf_units;

static dl_array *const_array(dl_type *t, const char *s, int64_t v, int64_t n)
{
	dl_builder *b;
	if (dl_builder_new(&b, t) < 0) return NULL;
	dl_array *one = NULL;
	int rc = s ? dl_builder_append_bytes(b, s, strlen(s)) : dl_builder_append_int(b, v);
	if (rc == 0) dl_builder_finish(&one, b);
	dl_builder_free(b);
	if (!one) return NULL;
	dl_array *a = dl_array_repeat(one, 0, n);
	dl_array_free(one);
	return a;
}

/* A file's rows as changes of one type at one version (the initial
 * snapshot's inserts, or a file of a commit split across batches). */
static int cu_emit(void *payload, dl_batch *in)
{
	cdf_units *c = payload;
	dl_type *sch = c->s->cdf_schema;
	int64_t n = in->num_rows;
	dl_batch *o = n ? dl_batch_new(sch, n) : NULL;
	int rc = n == 0 ? 1 : o ? 0 : DL_ENOMEM;
	int k = 0;
	for (; rc == 0 && k < in->ncols; k++) {
		o->cols[k] = in->cols[k];
		in->cols[k] = NULL;
	}
	if (rc == 0) {
		o->cols[k] = const_array(sch->children[k].type, c->change_type, 0, n);
		o->cols[k + 1] = const_array(sch->children[k + 1].type, NULL, c->snap_version, n);
		o->cols[k + 2] = const_array(sch->children[k + 2].type, NULL, c->snap_ts_us, n);
		if (!o->cols[k] || !o->cols[k + 1] || !o->cols[k + 2]) rc = DL_ENOMEM;
	}
	dl_batch_free(in);
	if (rc == 0 && c->nq == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 8;
		dl_batch **q = dl_reallocarray(c->q, cap, sizeof *q);
		if (q) c->q = q, c->cap = cap;
		else rc = DL_ENOMEM;
	}
	if (rc == 0) c->q[c->nq++] = o;
	else dl_batch_free(o);
	return rc == 1 ? 0 : rc;
}

static const dl_type *cu_schema(dl_batch_stream *bs)
{
	return ((cdf_units *)bs->private_data)->s->cdf_schema;
}

static bool skip_excluded(void *payload, const char *path)
{
	return dl_stream_excluded(payload, path);
}

static int open_commit(cdf_units *c, int64_t v)
{
	dl_changes_options co = DL_CHANGES_OPTIONS_INIT;
	co.store = c->s->store;
	co.start_version = v;
	co.end_version = v;
	int rc = dl_changes_batches_skipping(&c->cur, NULL, &co, c->s->has_exclude ? skip_excluded : NULL, c->s,
	                                     c->s->read_snap);
	if (rc < 0) return dl_error_prefix("%s: the changes of version %" PRId64, c->s->table, v);
	return 0;
}

/* The time in commit v's commitInfo (in-commit time first), for a store
 * that lists no commits: a shared table's commits are served by name only
 * and carry the server's commit time there (src/sharing/client_changes.c),
 * as the change data feed reader (table/cdf.c) reads them. */
static int commit_info_ms(int64_t *ms, dl_stream *s, int64_t v)
{
	dl_arena a = DL_ARENA_INIT;
	st_commit c;
	bool missing;
	int rc = dl_stream_read_commit(&c, &a, s, v, &missing);
	bool found = false;
	for (size_t i = 0; rc == 0 && !found && i < c.n; i++) {
		if (c.items[i].kind != DL_ACTION_COMMIT_INFO) continue;
		const dl_commit_info *ci = &c.items[i].u.commit_info;
		if (ci->in_commit_timestamp != DL_NONE) *ms = ci->in_commit_timestamp, found = true;
		else if (ci->timestamp != DL_NONE) *ms = ci->timestamp, found = true;
	}
	dl_free(c.items);
	dl_arena_free(&a);
	DL_TRY(rc);
	if (!found)
		return dl_error_set(DL_ENOTFOUND, "%s: the commit of version %" PRId64 " is not in the log%s", s->table,
		                    v, missing ? "" : " with its time (no commitInfo timestamp)");
	return 0;
}

/* The commit time of version v, as the change data feed gives it
 * (_commit_timestamp): the listing's timestamps (in-commit times where
 * the table has them); a commit the listing does not hold gives its
 * commitInfo's. */
static int commit_ms(int64_t *ms, dl_stream *s, int64_t v)
{
	int64_t *vs, *ts;
	size_t n;
	DL_TRY(dl_log_commit_timestamps(s->store, dl_snapshot_props(s->read_snap), &vs, &ts, &n));
	bool found = false;
	for (size_t i = 0; i < n; i++)
		if (vs[i] == v) {
			*ms = ts[i];
			found = true;
		}
	dl_free(vs);
	dl_free(ts);
	return found ? 0 : commit_info_ms(ms, s, v);
}

static int cu_next(dl_batch_stream *bs, dl_batch **out)
{
	cdf_units *c = bs->private_data;
	*out = NULL;
	for (;;) {
		if (c->head < c->nq) {
			*out = c->q[c->head++];
			return 0;
		}
		if (c->cur) {
			dl_batch *b;
			DL_TRY(dl_batch_stream_next(c->cur, &b));
			if (b) {
				*out = b;
				return 0;
			}
			dl_batch_stream_free(c->cur);
			c->cur = NULL;
		}
		c->head = c->nq = 0;
		if (c->next == c->plan->n) return 0;
		const st_unit *u = &c->plan->units[c->next++];
		if (u->kind == ST_COMMIT_CHANGES) {
			DL_TRY(open_commit(c, u->version));
			continue;
		}
		if (c->snap_version != u->version) {
			int64_t ms = 0;
			DL_TRY(commit_ms(&ms, c->s, u->version));
			c->snap_version = u->version;
			c->snap_ts_us = ms * 1000;
		}
		c->change_type = u->kind == ST_CHANGE_DELETE ? "delete" : "insert";
		DL_TRY(dl_scan_read_add(c->s->cdf_scan, u->add, NULL, 0, false, cu_emit, c));
	}
}

static void cu_release(dl_batch_stream *bs)
{
	cdf_units *c = bs->private_data;
	for (size_t i = c->head; i < c->nq; i++) dl_batch_free(c->q[i]);
	dl_free(c->q);
	dl_batch_stream_free(c->cur);
	dl_stream_plan_free(c->plan);
	dl_free(c);
	dl_free(bs);
}

/* The filter, then the projection, over the feed's rows. */
static int shape(dl_batch_stream **out, dl_stream *s, dl_batch_stream *in)
{
	dl_exec_ctx ctx = DL_EXEC_CTX_INIT;
	ctx.threads = 1;
	if (s->cdf_filter) {
		dl_expr *e;
		int rc = dl_expr_parse(&e, s->o.filter);
		if (rc == 0) rc = dl_expr_bind(e, s->cdf_schema);
		if (rc < 0) {
			dl_expr_free(e);
			dl_batch_stream_free(in);
			return rc;
		}
		DL_TRY(dl_exec_filter(&in, in, e, &ctx));
	}
	if (s->o.ncolumns == 0) {
		*out = in;
		return 0;
	}
	int n = s->o.ncolumns;
	dl_expr **ex = dl_calloc((size_t)n, sizeof *ex);
	if (!ex) {
		dl_batch_stream_free(in);
		return DL_ENOMEM;
	}
	int rc = 0;
	for (int i = 0; rc == 0 && i < n; i++) {
		dl_buf q = DL_BUF_INIT;
		rc = dl_buf_putc(&q, '`');
		for (const char *p = s->o.columns[i]; rc == 0 && *p; p++)
			rc = *p == '`' ? dl_buf_puts(&q, "``") : dl_buf_putc(&q, *p);
		if (rc == 0) rc = dl_buf_putc(&q, '`');
		if (rc == 0) rc = dl_expr_parse(&ex[i], q.data);
		if (rc == 0) rc = dl_expr_bind(ex[i], s->cdf_schema);
		dl_buf_free(&q);
	}
	if (rc < 0) {
		for (int i = 0; i < n; i++) dl_expr_free(ex[i]);
		dl_free(ex);
		dl_batch_stream_free(in);
		return rc;
	}
	rc = dl_exec_project(out, in, ex, s->o.columns, n, &ctx);
	dl_free(ex);
	return rc;
}

int dl_stream_cdf_batches(dl_batch_stream **out, dl_stream *s, st_plan *plan)
{
	*out = NULL;
	cdf_units *c = dl_calloc(1, sizeof *c);
	dl_batch_stream *bs = dl_calloc(1, sizeof *bs);
	if (!c || !bs) {
		dl_free(c);
		dl_free(bs);
		dl_stream_plan_free(plan);
		return DL_ENOMEM;
	}
	c->s = s;
	c->plan = plan;
	c->snap_version = -1;
	bs->schema = cu_schema;
	bs->next = cu_next;
	bs->release = cu_release;
	bs->private_data = c;
	return shape(out, s, bs);
}
