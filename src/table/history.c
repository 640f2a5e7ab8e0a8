/* DESCRIBE HISTORY: the commitInfo of each commit, newest first, with the
 * commit timestamps time travel uses (in-commit timestamps where enabled,
 * else file times made increasing, as dl_log_commit_timestamps gives). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "deltalake/history.h"
#include "json/json.h"
#include "log/snapshot.h"
#include "util/arena.h"
#include "util/error.h"
#include "util/mem.h"

struct dl_history {
	dl_arena arena;
	dl_history_entry *items;
	size_t n;
};

static const char *json_text(dl_arena *a, const dl_json *v)
{
	if (!v || v->kind == DL_JSON_NULL) return NULL;
	dl_buf b = DL_BUF_INIT;
	const char *s = NULL;
	if (dl_json_write(&b, v) == 0 && b.data) s = dl_arena_strdup(a, b.data);
	dl_buf_free(&b);
	return s;
}

static const char *str_field(dl_arena *a, const dl_json *ci, const char *key)
{
	const dl_json *v = dl_json_get(ci, key);
	if (!v || v->kind == DL_JSON_NULL) return NULL;
	if (v->kind == DL_JSON_STRING) return dl_arena_strndup(a, v->u.str.ptr, v->u.str.len);
	return json_text(a, v); /* numbers or objects where strings are usual */
}

typedef struct find_ci {
	const dl_json *ci;
} find_ci;

static int find_commit_info(const dl_json *line, int64_t lineno, void *payload)
{
	(void)lineno;
	find_ci *f = payload;
	const dl_json *ci = dl_json_get(line, "commitInfo");
	if (ci && ci->kind == DL_JSON_OBJECT) {
		f->ci = ci;
		return 1; /* stop: found */
	}
	return 0;
}

static int fill_entry(dl_history *h, dl_history_entry *e, dl_store *store, int64_t version)
{
	memset(e, 0, sizeof *e);
	e->version = version;
	e->read_version = INT64_MIN;
	e->is_blind_append = -1;
	char path[64];
	snprintf(path, sizeof path, "_delta_log/%020" PRId64 ".json", version);
	uint8_t *data;
	size_t len;
	int rc = dl_store_get(&data, &len, store, path);
	if (rc == DL_ENOTFOUND) {
		dl_error_clear();
		return 0;
	}
	DL_TRY(rc);
	find_ci f = {NULL};
	rc = dl_json_parse_lines(&h->arena, (const char *)data, len, path, find_commit_info, &f);
	dl_free(data);
	if (rc < 0) return rc;
	const dl_json *ci = f.ci;
	if (!ci) return 0;
	dl_arena *a = &h->arena;
	e->user_id = str_field(a, ci, "userId");
	e->user_name = str_field(a, ci, "userName");
	e->operation = str_field(a, ci, "operation");
	e->operation_parameters = json_text(a, dl_json_get(ci, "operationParameters"));
	e->job = json_text(a, dl_json_get(ci, "job"));
	e->notebook = json_text(a, dl_json_get(ci, "notebook"));
	e->cluster_id = str_field(a, ci, "clusterId");
	int64_t rv;
	const dl_json *v = dl_json_get(ci, "readVersion");
	if (v && dl_json_int64(v, &rv) == 0) e->read_version = rv;
	e->isolation_level = str_field(a, ci, "isolationLevel");
	v = dl_json_get(ci, "isBlindAppend");
	if (v && (v->kind == DL_JSON_TRUE || v->kind == DL_JSON_FALSE)) e->is_blind_append = v->kind == DL_JSON_TRUE;
	e->operation_metrics = json_text(a, dl_json_get(ci, "operationMetrics"));
	e->user_metadata = str_field(a, ci, "userMetadata");
	e->engine_info = str_field(a, ci, "engineInfo");
	return 0;
}

int dl_history_open(dl_history **out, dl_snapshot *snap, int64_t limit)
{
	*out = NULL;
	dl_history *h = dl_calloc(1, sizeof *h);
	if (!h) return DL_ENOMEM;
	int64_t *versions = NULL, *ts = NULL;
	size_t n = 0;
	int rc = dl_log_commit_timestamps(dl_snapshot_store(snap), dl_snapshot_props(snap), &versions, &ts, &n);
	/* newest first, up to the snapshot's version */
	size_t end = n;
	while (rc == 0 && end > 0 && versions[end - 1] > dl_snapshot_version(snap)) end--;
	size_t want = limit >= 0 && (size_t)limit < end ? (size_t)limit : end;
	if (rc == 0) {
		h->items = dl_calloc(want ? want : 1, sizeof *h->items);
		if (!h->items) rc = DL_ENOMEM;
	}
	for (size_t k = 0; rc == 0 && k < want; k++) {
		size_t i = end - 1 - k;
		rc = fill_entry(h, &h->items[h->n], dl_snapshot_store(snap), versions[i]);
		if (rc == 0) h->items[h->n++].timestamp_ms = ts[i];
	}
	dl_free(versions);
	dl_free(ts);
	if (rc < 0) {
		dl_history_free(h);
		return dl_error_prefix("reading the history");
	}
	*out = h;
	return 0;
}

size_t dl_history_count(const dl_history *h)
{
	return h->n;
}

const dl_history_entry *dl_history_at(const dl_history *h, size_t i)
{
	return i < h->n ? &h->items[i] : NULL;
}

void dl_history_free(dl_history *h)
{
	if (!h) return;
	dl_arena_free(&h->arena);
	dl_free(h->items);
	dl_free(h);
}
