/* A streaming checkpoint directory on any store, in the layout of Spark's
 * checkpointLocation (HDFSMetadataLog / OffsetSeqLog / CommitLog):
 *
 *   metadata    {"id":"<query id>"}
 *   offsets/N   v1\n{"batchWatermarkMs":0,"batchTimestampMs":T,"conf":{}}\n<offset>
 *   commits/N   v1\n{"nextBatchWatermarkMs":0}
 *
 * Every file is written with put-if-absent, the one atomic primitive all
 * stores have: offsets/N claims batch N before its data is delivered (a
 * second consumer on the same checkpoint loses the race and gets
 * DL_ECONFLICT instead of planning a different batch N), commits/N records
 * it done. A crash between the two leaves batch N planned but not
 * committed: the reader plans the same range again under the same id, so
 * a sink keyed on the batch id (txn appId/version) skips it if it landed. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "deltalake/stream.h"
#include "json/json.h"
#include "stream/stream_internal.h"
#include "util/arena.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/time.h"
#include "util/uuid.h"

struct dl_stream_checkpoint {
	dl_store *store;
	char *uri;
	char id[DL_UUID_TEXT_LEN + 1];
};

static int read_metadata(dl_stream_checkpoint *cp, const uint8_t *data, size_t len)
{
	dl_arena a = {0};
	dl_json *j;
	int rc = dl_json_parse(&a, (const char *)data, len, "checkpoint metadata", &j);
	const char *id = rc == 0 ? dl_json_get_str(j, "id") : NULL;
	if (rc == 0 && (!id || strlen(id) > DL_UUID_TEXT_LEN || !*id))
		rc = dl_error_set(DL_ECORRUPT, "checkpoint %s: metadata has no \"id\" (a query id of at most %d "
		                  "characters); use another checkpoint directory", cp->uri, DL_UUID_TEXT_LEN);
	if (rc == 0) strcpy(cp->id, id);
	dl_arena_free(&a);
	return rc;
}

static int load_or_create_metadata(dl_stream_checkpoint *cp)
{
	for (int attempt = 0; attempt < 2; attempt++) {
		uint8_t *data;
		size_t len;
		int rc = dl_store_get(&data, &len, cp->store, "metadata");
		if (rc == 0) {
			rc = read_metadata(cp, data, len);
			dl_free(data);
			return rc;
		}
		if (rc != DL_ENOTFOUND) return rc;
		char id[DL_UUID_TEXT_LEN + 1], text[64];
		DL_TRY(dl_uuid_v4(id));
		int n = snprintf(text, sizeof text, "{\"id\":\"%s\"}\n", id);
		rc = dl_store_put_if_absent(cp->store, "metadata", text, (size_t)n);
		if (rc == 0) {
			strcpy(cp->id, id);
			return 0;
		}
		/* another consumer created it first: read theirs */
		if (rc != DL_EEXISTS) return rc;
	}
	return dl_error_set(DL_EIO, "checkpoint %s: metadata could not be read or created", cp->uri);
}

int dl_stream_checkpoint_open(dl_stream_checkpoint **out, const char *uri, const dl_store_options *so)
{
	*out = NULL;
	if (!uri || !*uri) return dl_error_set(DL_EINVALID, "the checkpoint location is empty");
	dl_stream_checkpoint *cp = dl_calloc(1, sizeof *cp);
	if (!cp) return DL_ENOMEM;
	cp->uri = dl_strdup(uri);
	int rc = cp->uri ? dl_store_open(&cp->store, uri, so) : DL_ENOMEM;
	if (rc == 0) rc = load_or_create_metadata(cp);
	if (rc < 0) {
		dl_error_prefix("checkpoint %s", uri);
		dl_stream_checkpoint_free(cp);
		return rc;
	}
	*out = cp;
	return 0;
}

void dl_stream_checkpoint_free(dl_stream_checkpoint *cp)
{
	if (!cp) return;
	dl_store_free(cp->store);
	dl_free(cp->uri);
	dl_free(cp);
}

const char *dl_stream_checkpoint_id(const dl_stream_checkpoint *cp)
{
	return cp->id;
}

/* Batch ids are plain decimal file names (Spark's); anything else in the
 * directories (temp files, .crc of HDFS) is not a batch. */
static bool parse_batch_name(const char *name, int64_t *id)
{
	if (!*name || strlen(name) > 18) return false;
	int64_t v = 0;
	for (const char *p = name; *p; p++) {
		if (*p < '0' || *p > '9') return false;
		v = v * 10 + (*p - '0');
	}
	*id = v;
	return true;
}

static int highest_batch(int64_t *out, dl_store *s, const char *dir)
{
	*out = -1;
	dl_object_list l;
	DL_TRY(dl_store_list_from(&l, s, dir, NULL));
	for (size_t i = 0; i < l.count; i++) {
		const char *name = strrchr(l.items[i].path, '/');
		name = name ? name + 1 : l.items[i].path;
		int64_t id;
		if (parse_batch_name(name, &id) && id > *out) *out = id;
	}
	dl_object_list_free(&l);
	return 0;
}

/* The offset line of an offsets/N file: the third line (Spark's log has
 * the version line, the batch metadata, then one line per source). */
static int offset_line(char **out, const char *path, const uint8_t *data, size_t len)
{
	const char *p = (const char *)data, *end = p + len;
	if (len < 3 || memcmp(p, "v1\n", 3) != 0)
		return dl_error_set(DL_ECORRUPT, "%s: not a streaming offset log entry (it must start with "
		                    "\"v1\"); use another checkpoint directory", path);
	p += 3;
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	if (!nl)
		return dl_error_set(DL_ECORRUPT, "%s: the offset line is missing", path);
	p = nl + 1;
	nl = memchr(p, '\n', (size_t)(end - p));
	size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
	if (n == 0) return dl_error_set(DL_ECORRUPT, "%s: the offset line is empty", path);
	*out = dl_strndup(p, n);
	return *out ? 0 : DL_ENOMEM;
}

int dl_stream_checkpoint_offset(char **offset, dl_stream_checkpoint *cp, int64_t batch_id)
{
	*offset = NULL;
	char path[48];
	snprintf(path, sizeof path, "offsets/%" PRId64, batch_id);
	uint8_t *data;
	size_t len;
	int rc = dl_store_get(&data, &len, cp->store, path);
	if (rc == DL_ENOTFOUND)
		return dl_error_set(DL_ENOTFOUND, "checkpoint %s: batch %" PRId64 " has no offset", cp->uri, batch_id);
	DL_TRY(rc);
	rc = offset_line(offset, path, data, len);
	dl_free(data);
	return rc;
}

int dl_stream_checkpoint_last(int64_t *batch_id, char **offset, bool *committed, dl_stream_checkpoint *cp)
{
	*batch_id = -1;
	*offset = NULL;
	*committed = false;
	int64_t last, last_commit;
	DL_TRY(highest_batch(&last, cp->store, "offsets"));
	DL_TRY(highest_batch(&last_commit, cp->store, "commits"));
	if (last < 0) return 0;
	DL_TRY(dl_stream_checkpoint_offset(offset, cp, last));
	*batch_id = last;
	*committed = last_commit >= last;
	return 0;
}

int dl_stream_checkpoint_write_offset(dl_stream_checkpoint *cp, int64_t batch_id, const char *offset)
{
	if (batch_id < 0) return dl_error_set(DL_EINVALID, "a batch id must be >= 0");
	if (strchr(offset, '\n')) return dl_error_set(DL_EINVALID, "an offset must be one line");
	char path[48];
	snprintf(path, sizeof path, "offsets/%" PRId64, batch_id);
	char *text = NULL;
	size_t n = strlen(offset) + 96;
	text = dl_malloc(n);
	if (!text) return DL_ENOMEM;
	int len = snprintf(text, n, "v1\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":%" PRId64 ",\"conf\":{}}\n%s",
	                   dl_now_millis(), offset);
	int rc = dl_store_put_if_absent(cp->store, path, text, (size_t)len);
	dl_free(text);
	if (rc != DL_EEXISTS) return rc;
	char *have;
	DL_TRY(dl_stream_checkpoint_offset(&have, cp, batch_id));
	bool same = strcmp(have, offset) == 0;
	dl_free(have);
	if (same) return 0;
	return dl_error_set_class(DL_ECONFLICT, "ConcurrentStreamException",
	                          "checkpoint %s: batch %" PRId64 " was planned by another consumer of this "
	                          "checkpoint; run one query per checkpoint directory", cp->uri, batch_id);
}

int dl_stream_checkpoint_commit(dl_stream_checkpoint *cp, int64_t batch_id)
{
	char path[48];
	snprintf(path, sizeof path, "offsets/%" PRId64, batch_id);
	dl_object_info info;
	int rc = dl_store_stat(&info, cp->store, path);
	if (rc == DL_ENOTFOUND)
		return dl_error_set(DL_EINVALID, "checkpoint %s: batch %" PRId64 " has no offset, so it cannot be "
		                    "committed", cp->uri, batch_id);
	DL_TRY(rc);
	dl_object_info_free(&info);
	snprintf(path, sizeof path, "commits/%" PRId64, batch_id);
	static const char text[] = "v1\n{\"nextBatchWatermarkMs\":0}";
	rc = dl_store_put_if_absent(cp->store, path, text, sizeof text - 1);
	return rc == DL_EEXISTS ? 0 : rc;
}
