/* The commits of a shared table (client_table.c serves them as
 * `_delta_log/<v>.json`), in both response formats, built from one of two
 * answers (store option delta-sharing.commits):
 * - `changes` (default): GET .../changes (PROTOCOL.md "Read Change Data
 *   Feed from a Table"), what the change data feed reads: a commit with
 *   cdc files is its cdc files;
 * - `query`: POST .../query with startingVersion / endingVersion, the
 *   form streaming clients read (Spark's DeltaSharingSource): every
 *   data-changing add and remove of each version, never cdc files, and on
 *   tables without the change data feed too. At most commit_versions
 *   versions a request (DeltaSharingSource's maxVersionsPerRpc, 100).
 * Both answers are read in pages of delta-sharing.max_files lines. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "deltalake/sys/store_backend.h"
#include "json/json.h"
#include "sharing/client_table.h"
#include "util/error.h"
#include "util/mem.h"

/* The change data feed reader (table/cdf.c) reads the commits of a range
 * by name; they are not listed (a listed commit would be read for every
 * snapshot's commitInfo). One changes answer over [start, latest] builds
 * them all: a commitInfo with the server's commit time, historical
 * metaData (includeHistoricalMetadata), add/remove/cdc actions whose paths
 * are names of this store, like a snapshot's files. */
typedef struct changes_ctx {
	sh_table *t;
	int64_t start, end;
	bool build;
	int64_t *ts;
	char *next_token; /* the page's endStreamAction nextPageToken (malloc'd) */
} changes_ctx;

static int on_change(const dl_sharing_line *l, void *p)
{
	changes_ctx *x = p;
	sh_table *t = x->t;
	if (l->kind == DL_SHARING_END_STREAM) {
		dl_free(x->next_token);
		x->next_token = NULL;
		if (l->next_page_token && l->next_page_token[0] && !(x->next_token = dl_strdup(l->next_page_token)))
			return DL_ENOMEM;
		return 0;
	}
	if (l->kind == DL_SHARING_PROTOCOL) return 0;
	int64_t v = l->version;
	if (l->kind == DL_SHARING_METADATA) {
		/* the unversioned one is the table's current metadata */
		if (!x->build || v < x->start || v > x->end) return 0;
		return dl_buf_printf(&t->commits[v - x->start], "{\"metaData\":%s}\n", l->metadata);
	}
	if (v < 0)
		return dl_error_set(DL_ECORRUPT, "changes line %" PRId64 ": a file without its version", l->line);
	if (v < x->start || v > x->end) return 0; /* endingVersion is a hint to the server */
	if (x->build && l->timestamp >= 0) x->ts[v - x->start] = l->timestamp;
	dl_buf *o = x->build ? &t->commits[v - x->start] : NULL;
	dl_buf name = DL_BUF_INIT;
	int rc = sh_hex_name(&name, l->kind == DL_SHARING_CDF ? DATA_DIR "/c" : DATA_DIR "/", l->id, ".parquet");
	if (rc == 0) rc = sh_put_file(t, name.data, l->url, l->size, l->expiration_ms, -1);
	if (rc == 0 && l->delta_format) {
		build_ctx b = {.t = t, .qv = -1, .out = o};
		rc = sh_write_delta_action(&b, o, l, name.data);
	} else if (rc == 0 && o) {
		dl_json_writer w;
		dl_jw_init(&w, o);
		dl_jw_object_begin(&w);
		dl_jw_key(&w, l->kind == DL_SHARING_ADD ? "add" : l->kind == DL_SHARING_CDF ? "cdc" : "remove");
		dl_jw_object_begin(&w);
		dl_jw_key(&w, "path");
		dl_jw_string(&w, name.data);
		dl_jw_key(&w, "partitionValues");
		dl_jw_raw(&w, l->partition_values);
		dl_jw_key(&w, "size");
		dl_jw_int(&w, l->size);
		if (l->kind == DL_SHARING_ADD) {
			dl_jw_key(&w, "modificationTime");
			dl_jw_int(&w, l->timestamp >= 0 ? l->timestamp : 0);
		} else if (l->kind == DL_SHARING_REMOVE) {
			dl_jw_key(&w, "deletionTimestamp");
			dl_jw_int(&w, l->timestamp >= 0 ? l->timestamp : 0);
			dl_jw_key(&w, "extendedFileMetadata");
			dl_jw_bool(&w, true);
		}
		dl_jw_key(&w, "dataChange");
		dl_jw_bool(&w, l->kind != DL_SHARING_CDF);
		if (l->stats && l->kind == DL_SHARING_ADD) {
			dl_jw_key(&w, "stats");
			dl_jw_string(&w, l->stats);
		}
		dl_jw_object_end(&w);
		dl_jw_object_end(&w);
		rc = dl_jw_finish(&w);
		if (rc == 0) rc = dl_buf_putc(o, '\n');
	}
	dl_buf_free(&name);
	return rc;
}

void sh_free_commits(sh_table *t)
{
	if (t->commits)
		for (int64_t i = 0; i <= t->ch_end - t->ch_start; i++) dl_buf_free(&t->commits[i]);
	dl_free(t->commits);
	t->commits = NULL;
	t->ch_start = t->ch_end = -1;
}

/* Sends the changes query of [start, end]; build: the commits, else only
 * the URLs are refreshed. Called with t->mu held. */
int sh_run_changes(sh_table *t, int64_t start, int64_t end, bool build)
{
	dl_sharing_query q = DL_SHARING_QUERY_INIT;
	q.starting_version = start;
	q.ending_version = end;
	q.include_historical_metadata = 1;
	changes_ctx x = {.t = t, .start = start, .end = end, .build = build};
	size_t n = (size_t)(end - start + 1);
	if (build) {
		sh_free_commits(t);
		t->commits = dl_calloc(n, sizeof *t->commits);
		x.ts = dl_calloc(n, sizeof *x.ts);
		if (!t->commits || !x.ts) {
			dl_free(x.ts);
			dl_free(t->commits);
			t->commits = NULL;
			return DL_ENOMEM;
		}
		for (size_t i = 0; i < n; i++) x.ts[i] = -1;
		t->ch_start = start;
		t->ch_end = end;
	}
	t->generation++;
	t->cur_ch_start = start;
	t->cur_ch_end = end;
	/* Pages: each page's endStreamAction names the next; the server pins
	 * the last version of the first, so the pages are one answer. */
	q.max_files = t->max_files > 0 ? t->max_files : -1;
	char *token = NULL;
	int rc = 0;
	for (;;) {
		int64_t tv;
		q.page_token = token;
		rc = t->commits_query
		         ? dl_sharing_query_table(&tv, t->c, t->share, t->schema, t->table, &q, on_change, &x)
		         : dl_sharing_table_changes(&tv, t->c, t->share, t->schema, t->table, &q, on_change, &x);
		if (rc < 0 || !x.next_token) break;
		if (token && strcmp(token, x.next_token) == 0) { /* it would page for ever */
			rc = dl_error_set(DL_ECORRUPT, "the server gave the same pageToken twice");
			break;
		}
		dl_free(token);
		token = x.next_token;
		x.next_token = NULL;
	}
	dl_free(token);
	dl_free(x.next_token);
	t->cur_ch_start = t->cur_ch_end = -1;
	for (size_t i = 0; rc == 0 && build && i < n; i++) {
		/* commitInfo first, with the commit time the server gave */
		dl_buf c = DL_BUF_INIT;
		rc = x.ts[i] >= 0 ? dl_buf_printf(&c, "{\"commitInfo\":{\"timestamp\":%" PRId64 "}}\n", x.ts[i])
		                  : dl_buf_puts(&c, "{\"commitInfo\":{}}\n");
		if (rc == 0 && t->commits[i].len) rc = dl_buf_append(&c, t->commits[i].data, t->commits[i].len);
		dl_buf_free(&t->commits[i]);
		t->commits[i] = c;
	}
	dl_free(x.ts);
	if (rc < 0) {
		if (build) sh_free_commits(t);
		dl_error_prefix("%s of shared table %s.%s.%s", t->commits_query ? "commits" : "changes",
		                t->share, t->schema, t->table);
	}
	return rc;
}

int sh_parse_commit_name(const char *path, int64_t *version)
{
	size_t pre = sizeof LOG_DIR;
	if (strlen(path) != pre + 25 || strncmp(path, LOG_DIR "/", pre) != 0 ||
	    strcmp(path + pre + 20, ".json") != 0)
		return 0;
	int64_t v = 0;
	for (size_t i = 0; i < 20; i++) {
		char ch = path[pre + i];
		if (ch < '0' || ch > '9') return 0;
		v = v * 10 + (ch - '0');
	}
	*version = v;
	return 1;
}

int sh_get_commit(uint8_t **data, size_t *len, sh_table *t, int64_t v)
{
	pthread_mutex_lock(&t->mu);
	int rc = 0;
	if (!t->commits || v < t->ch_start || v > t->ch_end) {
		int64_t latest;
		rc = dl_sharing_table_version(&latest, t->c, t->share, t->schema, t->table, NULL);
		if (rc == 0 && v > latest)
			rc = dl_store_backend_error(DL_ENOTFOUND, "commit %" PRId64 ": shared table %s.%s.%s is "
			                            "at version %" PRId64, v, t->share, t->schema, t->table, latest);
		int64_t end = latest;
		if (t->commits_query && t->commit_versions > 0 && latest - v >= t->commit_versions)
			end = v + t->commit_versions - 1;
		if (rc == 0) rc = sh_run_changes(t, v, end, true);
	}
	if (rc == 0) {
		const dl_buf *c = &t->commits[v - t->ch_start];
		*data = dl_malloc(c->len + 1);
		if (!*data) rc = DL_ENOMEM;
		else {
			memcpy(*data, c->data, c->len);
			*len = c->len;
		}
	}
	pthread_mutex_unlock(&t->mu);
	return rc;
}
