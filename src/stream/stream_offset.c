/* Spark's DeltaSourceOffset as JSON (DeltaSourceOffset.scala): the
 * serialized form keeps the beta-era names ("reservoir", and
 * "isStartingVersion" for "is inside the initial snapshot"), writes
 * sourceVersion 1 with the base index as -1, and reads sourceVersion 1 and
 * 3 (2 is reserved and refused, as Spark does). Offsets are stored by
 * consumers and in checkpoints, so parsing is strict: outside data. */
#include <inttypes.h>
#include <string.h>
#include "deltalake/stream.h"
#include "json/json.h"
#include "stream/stream_internal.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"

int dl_stream_offset_to_json(char **json, const dl_stream_offset *o)
{
	*json = NULL;
	dl_buf b = DL_BUF_INIT;
	dl_json_writer w;
	dl_jw_init(&w, &b);
	dl_jw_object_begin(&w);
	dl_jw_key(&w, "sourceVersion");
	dl_jw_int(&w, 1);
	dl_jw_key(&w, "reservoirId");
	dl_jw_string(&w, o->reservoir_id);
	dl_jw_key(&w, "reservoirVersion");
	dl_jw_int(&w, o->reservoir_version);
	dl_jw_key(&w, "index");
	dl_jw_int(&w, o->index);
	dl_jw_key(&w, "isStartingVersion");
	dl_jw_bool(&w, o->is_starting_version);
	dl_jw_object_end(&w);
	int rc = dl_jw_finish(&w);
	if (rc < 0) {
		dl_buf_free(&b);
		return rc;
	}
	*json = dl_buf_detach(&b, NULL);
	return *json ? 0 : DL_ENOMEM;
}

static int get_int(const dl_json *obj, const char *key, int64_t *out)
{
	const dl_json *v = dl_json_get(obj, key);
	if (!v || v->kind != DL_JSON_NUMBER || dl_json_int64(v, out) < 0)
		return dl_error_set(DL_EINVALID, "stream offset: \"%s\" must be an integer", key);
	return 0;
}

int dl_stream_offset_from_json(dl_stream_offset *out, const char *json, size_t len)
{
	memset(out, 0, sizeof *out);
	dl_arena arena = {0};
	dl_json *j;
	int rc = dl_json_parse(&arena, json, len, "stream offset", &j);
	if (rc < 0) {
		dl_arena_free(&arena);
		return dl_error_set(DL_EINVALID, "%s", dl_error_last()->message);
	}
	int64_t sv = 0, v = 0, idx = 0;
	if (j->kind != DL_JSON_OBJECT) rc = dl_error_set(DL_EINVALID, "stream offset: not a JSON object");
	if (rc == 0) rc = get_int(j, "sourceVersion", &sv);
	if (rc == 0 && (sv < 1 || sv == 2))
		rc = dl_error_set(DL_EINVALID, "stream offset: invalid sourceVersion %" PRId64, sv);
	if (rc == 0 && sv > 3)
		rc = dl_error_set(DL_EINVALID, "stream offset: sourceVersion %" PRId64 " is newer than the "
		                  "supported 3; read it with a newer library", sv);
	if (rc == 0) rc = get_int(j, "reservoirVersion", &v);
	if (rc == 0) rc = get_int(j, "index", &idx);
	const char *id = rc == 0 ? dl_json_get_str(j, "reservoirId") : NULL;
	if (rc == 0 && (!id || strlen(id) >= sizeof out->reservoir_id))
		rc = dl_error_set(DL_EINVALID, "stream offset: \"reservoirId\" must be a string of at most %zu bytes",
		                  sizeof out->reservoir_id - 1);
	const dl_json *isv = rc == 0 ? dl_json_get(j, "isStartingVersion") : NULL;
	if (rc == 0 && (!isv || (isv->kind != DL_JSON_TRUE && isv->kind != DL_JSON_FALSE)))
		rc = dl_error_set(DL_EINVALID, "stream offset: \"isStartingVersion\" must be true or false");
	/* Version 3's base index is -100 in memory (Spark writes -1 unless a
	 * metadata-change index forces 3); both mean "before every file". */
	if (rc == 0 && (idx == -100 || (sv < 3 && idx == -1))) idx = DL_STREAM_BASE_INDEX;
	else if (rc == 0 && idx < 0)
		rc = dl_error_set(DL_EINVALID, "stream offset: index %" PRId64 " is not supported (schema tracking "
		                  "offsets are not read by this library)", idx);
	if (rc == 0 && v < 0) rc = dl_error_set(DL_EINVALID, "stream offset: negative reservoirVersion");
	if (rc == 0) {
		strcpy(out->reservoir_id, id);
		out->reservoir_version = v;
		out->index = idx;
		out->is_starting_version = isv->kind == DL_JSON_TRUE;
	}
	dl_arena_free(&arena);
	return rc;
}

int dl_stream_offset_cmp(const dl_stream_offset *a, const dl_stream_offset *b)
{
	if (a->reservoir_version != b->reservoir_version) return a->reservoir_version < b->reservoir_version ? -1 : 1;
	if (a->index != b->index) return a->index < b->index ? -1 : 1;
	return 0;
}

bool dl_stream_offset_equal(const dl_stream_offset *a, const dl_stream_offset *b)
{
	return dl_stream_offset_cmp(a, b) == 0 && a->is_starting_version == b->is_starting_version &&
	       strcmp(a->reservoir_id, b->reservoir_id) == 0;
}
