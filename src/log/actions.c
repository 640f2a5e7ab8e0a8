/* Parsing and serialization of log actions (PROTOCOL.md "Actions"). */
#include "log/actions.h"
#include <string.h>
#include "log/path.h"
#include "util/error.h"

static const char *const kind_names[] = {
	"unknown", "add", "remove", "metaData", "protocol", "txn", "commitInfo", "cdc",
	"domainMetadata", "checkpointMetadata", "sidecar",
};

dl_action_kind dl_action_kind_of(const char *key)
{
	for (int k = 1; k < (int)(sizeof kind_names / sizeof kind_names[0]); k++)
		if (strcmp(key, kind_names[k]) == 0) return (dl_action_kind)k;
	return DL_ACTION_UNKNOWN;
}

const char *dl_action_kind_name(dl_action_kind k)
{
	if ((int)k < 0 || (int)k >= (int)(sizeof kind_names / sizeof kind_names[0])) return "unknown";
	return kind_names[k];
}

const char *dl_str_map_get(const dl_str_map *m, const char *key, bool *found)
{
	for (uint32_t i = 0; i < m->n; i++) {
		if (strcmp(m->items[i].key, key) == 0) {
			if (found) *found = true;
			return m->items[i].value;
		}
	}
	if (found) *found = false;
	return NULL;
}

/* ---- field access with errors that name the file, action and field ---- */

typedef struct ctx {
	dl_arena *arena;
	const char *what;
	const char *action;
} ctx;

static int bad(const ctx *c, const char *field, const char *expected)
{
	return dl_error_set(DL_ECORRUPT, "%s: %s.%s %s; the commit file is not a valid Delta log entry",
	                    c->what, c->action, field, expected);
}

static int get_str(const ctx *c, const dl_json *o, const char *field, bool required,
                   const char **out)
{
	const dl_json *v = dl_json_get(o, field);
	*out = NULL;
	if (!v || v->kind == DL_JSON_NULL) return required ? bad(c, field, "is missing") : 0;
	if (v->kind != DL_JSON_STRING) return bad(c, field, "must be a string");
	char *s = dl_arena_strndup(c->arena, v->u.str.ptr, v->u.str.len);
	if (!s) return DL_ENOMEM;
	*out = s;
	return 0;
}

static int get_path(const ctx *c, const dl_json *o, const char *field, const char **out)
{
	const dl_json *v = dl_json_get(o, field);
	if (!v || v->kind != DL_JSON_STRING)
		return bad(c, field, v ? "must be a string" : "is missing");
	return dl_log_path_decode(c->arena, v->u.str.ptr, v->u.str.len, c->what, out);
}

static int get_long(const ctx *c, const dl_json *o, const char *field, bool required,
                    int64_t *out)
{
	const dl_json *v = dl_json_get(o, field);
	*out = DL_NONE;
	if (!v || v->kind == DL_JSON_NULL) return required ? bad(c, field, "is missing") : 0;
	if (dl_json_int64(v, out) < 0) return bad(c, field, "must be a 64-bit integer");
	return 0;
}

static int get_bool(const ctx *c, const dl_json *o, const char *field, bool required, bool dflt,
                    bool *out)
{
	const dl_json *v = dl_json_get(o, field);
	*out = dflt;
	if (!v || v->kind == DL_JSON_NULL) return required ? bad(c, field, "is missing") : 0;
	if (v->kind == DL_JSON_TRUE) *out = true;
	else if (v->kind == DL_JSON_FALSE) *out = false;
	else return bad(c, field, "must be a boolean");
	return 0;
}

static int get_stats(const ctx *c, const dl_json *o, const char **out, uint32_t *len)
{
	const dl_json *v = dl_json_get(o, "stats");
	*out = NULL;
	*len = 0;
	if (!v || v->kind == DL_JSON_NULL) return 0;
	if (v->kind != DL_JSON_STRING) return bad(c, "stats", "must be a JSON string");
	if (v->u.str.len > UINT32_MAX) return bad(c, "stats", "is larger than 4 GiB");
	char *s = dl_arena_strndup(c->arena, v->u.str.ptr, v->u.str.len);
	if (!s) return DL_ENOMEM;
	*out = s;
	*len = (uint32_t)v->u.str.len;
	return 0;
}

int dl_str_map_from_json(dl_str_map *out, dl_arena *arena, const dl_json *obj, const char *what,
                         const char *field)
{
	out->items = NULL;
	out->n = 0;
	if (!obj || obj->kind == DL_JSON_NULL) return 0;
	if (obj->kind != DL_JSON_OBJECT)
		return dl_error_set(DL_ECORRUPT, "%s: %s must be a JSON object of strings", what, field);
	if (obj->u.obj.n == 0) return 0;
	if (obj->u.obj.n > UINT32_MAX) return dl_error_set(DL_ECORRUPT, "%s: %s is too large", what, field);
	dl_kv *kv = dl_arena_alloc(arena, obj->u.obj.n * sizeof *kv);
	if (!kv) return DL_ENOMEM;
	for (size_t i = 0; i < obj->u.obj.n; i++) {
		const dl_json_member *m = &obj->u.obj.items[i];
		kv[i].key = dl_arena_strndup(arena, m->key, m->key_len);
		if (!kv[i].key) return DL_ENOMEM;
		const dl_json *v = &m->value;
		if (v->kind == DL_JSON_NULL) {
			kv[i].value = NULL;
		} else if (v->kind == DL_JSON_STRING) {
			kv[i].value = dl_arena_strndup(arena, v->u.str.ptr, v->u.str.len);
			if (!kv[i].value) return DL_ENOMEM;
		} else {
			/* Lenient: a number or nested value is kept as its JSON text. */
			dl_buf b = DL_BUF_INIT;
			int rc = dl_json_write(&b, v);
			if (rc == 0) kv[i].value = dl_arena_strndup(arena, b.data ? b.data : "", b.len);
			dl_buf_free(&b);
			if (rc < 0) return rc;
			if (!kv[i].value) return DL_ENOMEM;
		}
	}
	out->items = kv;
	out->n = (uint32_t)obj->u.obj.n;
	return 0;
}

int dl_str_map_copy(dl_str_map *out, dl_arena *arena, const dl_str_map *m)
{
	out->n = 0;
	out->items = NULL;
	if (!m->n) return 0;
	out->items = dl_arena_alloc(arena, m->n * sizeof *out->items);
	if (!out->items) return DL_ENOMEM;
	for (uint32_t i = 0; i < m->n; i++) {
		out->items[i].key = dl_arena_strdup(arena, m->items[i].key);
		out->items[i].value = m->items[i].value ? dl_arena_strdup(arena, m->items[i].value) : NULL;
		if (!out->items[i].key || (m->items[i].value && !out->items[i].value)) return DL_ENOMEM;
	}
	out->n = m->n;
	return 0;
}

static int get_map(const ctx *c, const dl_json *o, const char *field, bool required,
                   dl_str_map *out)
{
	const dl_json *v = dl_json_get(o, field);
	if (!v && required) {
		out->items = NULL;
		out->n = 0;
		return bad(c, field, "is missing");
	}
	int rc = dl_str_map_from_json(out, c->arena, v, c->what, field);
	if (rc < 0 && rc != DL_ENOMEM) return dl_error_prefix("%s", c->action);
	return rc;
}

static int get_str_array(const ctx *c, const dl_json *o, const char *field, bool required,
                         const char ***out, uint32_t *n)
{
	const dl_json *v = dl_json_get(o, field);
	*out = NULL;
	*n = 0;
	if (!v || v->kind == DL_JSON_NULL) return required ? bad(c, field, "is missing") : 0;
	if (v->kind != DL_JSON_ARRAY || v->u.arr.n > UINT32_MAX) return bad(c, field, "must be an array of strings");
	const char **a = dl_arena_alloc(c->arena, (v->u.arr.n + 1) * sizeof *a);
	if (!a) return DL_ENOMEM;
	for (size_t i = 0; i < v->u.arr.n; i++) {
		const dl_json *e = &v->u.arr.items[i];
		if (e->kind != DL_JSON_STRING) return bad(c, field, "must be an array of strings");
		a[i] = dl_arena_strndup(c->arena, e->u.str.ptr, e->u.str.len);
		if (!a[i]) return DL_ENOMEM;
	}
	a[v->u.arr.n] = NULL;
	*out = a;
	*n = (uint32_t)v->u.arr.n;
	return 0;
}

static int get_dv(const ctx *c, const dl_json *o, dl_dv_descriptor **out)
{
	const dl_json *v = dl_json_get(o, "deletionVector");
	*out = NULL;
	if (!v || v->kind == DL_JSON_NULL) return 0;
	if (v->kind != DL_JSON_OBJECT) return bad(c, "deletionVector", "must be an object");
	ctx dc = *c;
	dc.action = c->action[0] == 'a' ? "add.deletionVector" : "remove.deletionVector";
	dl_dv_descriptor *dv = dl_arena_calloc(c->arena, 1, sizeof *dv);
	if (!dv) return DL_ENOMEM;
	const char *st;
	DL_TRY(get_str(&dc, v, "storageType", true, &st));
	if (strlen(st) != 1 || !strchr("uip", st[0]))
		return bad(&dc, "storageType", "must be one of 'u', 'i' or 'p'");
	dv->storage_type = st[0];
	DL_TRY(get_str(&dc, v, "pathOrInlineDv", true, &dv->path_or_inline));
	int64_t x;
	DL_TRY(get_long(&dc, v, "offset", false, &x));
	/* absent is -1 inside; a negative offset in the log points nowhere */
	if (x != DL_NONE && x < 0) return bad(&dc, "offset", "is negative");
	dv->offset = x == DL_NONE ? -1 : x;
	DL_TRY(get_long(&dc, v, "sizeInBytes", true, &x));
	if (x < 0 || x > INT32_MAX) return bad(&dc, "sizeInBytes", "must be a non-negative 32-bit integer");
	dv->size_in_bytes = (int32_t)x;
	DL_TRY(get_long(&dc, v, "cardinality", true, &dv->cardinality));
	DL_TRY(get_long(&dc, v, "maxRowIndex", false, &x));
	dv->max_row_index = x == DL_NONE ? -1 : x;
	if (dv->offset < -1 || dv->cardinality < 0) return bad(&dc, "offset", "or cardinality is negative");
	*out = dv;
	return 0;
}

/* ---- per-action parsers ---- */

static int parse_add(const ctx *c, const dl_json *o, dl_add *a)
{
	DL_TRY(get_path(c, o, "path", &a->path));
	const dl_json *raw = dl_json_get(o, "path"); /* a string: get_path checked it */
	a->log_path = dl_log_path_raw(c->arena, raw->u.str.ptr, raw->u.str.len, a->path);
	if (!a->log_path) return DL_ENOMEM;
	DL_TRY(get_map(c, o, "partitionValues", false, &a->partition_values));
	DL_TRY(get_long(c, o, "size", true, &a->size));
	if (a->size < 0) return bad(c, "size", "is negative");
	DL_TRY(get_long(c, o, "modificationTime", false, &a->modification_time));
	if (a->modification_time == DL_NONE) a->modification_time = 0;
	DL_TRY(get_bool(c, o, "dataChange", false, true, &a->data_change));
	DL_TRY(get_stats(c, o, &a->stats, &a->stats_len));
	DL_TRY(get_map(c, o, "tags", false, &a->tags));
	DL_TRY(get_dv(c, o, &a->dv));
	DL_TRY(get_long(c, o, "baseRowId", false, &a->base_row_id));
	DL_TRY(get_long(c, o, "defaultRowCommitVersion", false, &a->default_row_commit_version));
	DL_TRY(get_str(c, o, "clusteringProvider", false, &a->clustering_provider));
	return 0;
}

static int parse_remove(const ctx *c, const dl_json *o, dl_remove *r)
{
	DL_TRY(get_path(c, o, "path", &r->path));
	DL_TRY(get_long(c, o, "deletionTimestamp", false, &r->deletion_timestamp));
	DL_TRY(get_bool(c, o, "dataChange", false, true, &r->data_change));
	DL_TRY(get_bool(c, o, "extendedFileMetadata", false, false, &r->extended_file_metadata));
	DL_TRY(get_map(c, o, "partitionValues", false, &r->partition_values));
	DL_TRY(get_long(c, o, "size", false, &r->size));
	if (r->size != DL_NONE && r->size < 0) return bad(c, "size", "is negative");
	DL_TRY(get_stats(c, o, &r->stats, &r->stats_len));
	DL_TRY(get_map(c, o, "tags", false, &r->tags));
	DL_TRY(get_dv(c, o, &r->dv));
	DL_TRY(get_long(c, o, "baseRowId", false, &r->base_row_id));
	DL_TRY(get_long(c, o, "defaultRowCommitVersion", false, &r->default_row_commit_version));
	return 0;
}

static int parse_metadata(const ctx *c, const dl_json *o, dl_metadata *m)
{
	DL_TRY(get_str(c, o, "id", true, &m->id));
	DL_TRY(get_str(c, o, "name", false, &m->name));
	DL_TRY(get_str(c, o, "description", false, &m->description));
	const dl_json *fmt = dl_json_get(o, "format");
	if (fmt && fmt->kind == DL_JSON_OBJECT) {
		ctx fc = *c;
		fc.action = "metaData.format";
		DL_TRY(get_str(&fc, fmt, "provider", false, &m->format_provider));
		DL_TRY(get_map(&fc, fmt, "options", false, &m->format_options));
	}
	if (!m->format_provider) m->format_provider = "parquet";
	/* Optional here: old writers left it out (golden deltalog-commit-info);
	 * the snapshot reports a missing schema when one is needed. */
	DL_TRY(get_str(c, o, "schemaString", false, &m->schema_string));
	DL_TRY(get_str_array(c, o, "partitionColumns", false, &m->partition_columns,
	                     &m->npartition_columns));
	DL_TRY(get_long(c, o, "createdTime", false, &m->created_time));
	DL_TRY(get_map(c, o, "configuration", false, &m->configuration));
	return 0;
}

static int parse_protocol(const ctx *c, const dl_json *o, dl_protocol *p)
{
	int64_t r, w;
	DL_TRY(get_long(c, o, "minReaderVersion", true, &r));
	DL_TRY(get_long(c, o, "minWriterVersion", true, &w));
	if (r < 0 || r > INT32_MAX || w < 0 || w > INT32_MAX)
		return bad(c, "minReaderVersion", "or minWriterVersion is out of range");
	p->min_reader_version = (int32_t)r;
	p->min_writer_version = (int32_t)w;
	DL_TRY(get_str_array(c, o, "readerFeatures", false, &p->reader_features, &p->nreader_features));
	DL_TRY(get_str_array(c, o, "writerFeatures", false, &p->writer_features, &p->nwriter_features));
	return 0;
}

static int parse_txn(const ctx *c, const dl_json *o, dl_txn *t)
{
	DL_TRY(get_str(c, o, "appId", true, &t->app_id));
	DL_TRY(get_long(c, o, "version", true, &t->version));
	DL_TRY(get_long(c, o, "lastUpdated", false, &t->last_updated));
	return 0;
}

static int parse_commit_info(const ctx *c, const dl_json *o, dl_commit_info *ci)
{
	dl_buf b = DL_BUF_INIT;
	int rc = dl_json_write(&b, o);
	if (rc == 0) {
		ci->json = dl_arena_strndup(c->arena, b.data ? b.data : "{}", b.data ? b.len : 2);
		if (!ci->json) rc = DL_ENOMEM;
	}
	dl_buf_free(&b);
	DL_TRY(rc);
	/* commitInfo is free-form: tolerate odd types instead of failing reads. */
	const dl_json *v = dl_json_get(o, "timestamp");
	if (!v || dl_json_int64(v, &ci->timestamp) < 0) ci->timestamp = DL_NONE;
	v = dl_json_get(o, "inCommitTimestamp");
	if (!v || dl_json_int64(v, &ci->in_commit_timestamp) < 0) ci->in_commit_timestamp = DL_NONE;
	v = dl_json_get(o, "operation");
	ci->operation = NULL;
	if (v && v->kind == DL_JSON_STRING) {
		ci->operation = dl_arena_strndup(c->arena, v->u.str.ptr, v->u.str.len);
		if (!ci->operation) return DL_ENOMEM;
	}
	return 0;
}

static int parse_cdc(const ctx *c, const dl_json *o, dl_cdc *d)
{
	DL_TRY(get_path(c, o, "path", &d->path));
	DL_TRY(get_map(c, o, "partitionValues", false, &d->partition_values));
	DL_TRY(get_long(c, o, "size", true, &d->size));
	DL_TRY(get_bool(c, o, "dataChange", false, false, &d->data_change));
	DL_TRY(get_map(c, o, "tags", false, &d->tags));
	return 0;
}

static int parse_domain(const ctx *c, const dl_json *o, dl_domain_metadata *d)
{
	DL_TRY(get_str(c, o, "domain", true, &d->domain));
	DL_TRY(get_str(c, o, "configuration", true, &d->configuration));
	DL_TRY(get_bool(c, o, "removed", true, false, &d->removed));
	return 0;
}

static int parse_cp_metadata(const ctx *c, const dl_json *o, dl_checkpoint_metadata *m)
{
	DL_TRY(get_long(c, o, "version", true, &m->version));
	DL_TRY(get_map(c, o, "tags", false, &m->tags));
	return 0;
}

static int parse_sidecar(const ctx *c, const dl_json *o, dl_sidecar *s)
{
	DL_TRY(get_path(c, o, "path", &s->path));
	DL_TRY(get_long(c, o, "sizeInBytes", true, &s->size_in_bytes));
	DL_TRY(get_long(c, o, "modificationTime", false, &s->modification_time));
	DL_TRY(get_map(c, o, "tags", false, &s->tags));
	return 0;
}

int dl_action_body_from_json(dl_action *out, dl_action_kind kind, dl_arena *arena,
                             const dl_json *body, const char *what)
{
	memset(out, 0, sizeof *out);
	out->kind = kind;
	if (kind == DL_ACTION_UNKNOWN) return 0;
	ctx c = {arena, what, dl_action_kind_name(kind)};
	if (!body || body->kind != DL_JSON_OBJECT) return bad(&c, "", "must be a JSON object");
	switch (kind) {
	case DL_ACTION_ADD: return parse_add(&c, body, &out->u.add);
	case DL_ACTION_REMOVE: return parse_remove(&c, body, &out->u.remove);
	case DL_ACTION_METADATA: return parse_metadata(&c, body, &out->u.metadata);
	case DL_ACTION_PROTOCOL: return parse_protocol(&c, body, &out->u.protocol);
	case DL_ACTION_TXN: return parse_txn(&c, body, &out->u.txn);
	case DL_ACTION_COMMIT_INFO: return parse_commit_info(&c, body, &out->u.commit_info);
	case DL_ACTION_CDC: return parse_cdc(&c, body, &out->u.cdc);
	case DL_ACTION_DOMAIN_METADATA: return parse_domain(&c, body, &out->u.domain_metadata);
	case DL_ACTION_CHECKPOINT_METADATA:
		return parse_cp_metadata(&c, body, &out->u.checkpoint_metadata);
	case DL_ACTION_SIDECAR: return parse_sidecar(&c, body, &out->u.sidecar);
	default: return 0;
	}
}

int dl_action_from_json(dl_action *out, dl_arena *arena, const dl_json *line, const char *what)
{
	memset(out, 0, sizeof *out);
	if (!line || line->kind != DL_JSON_OBJECT)
		return dl_error_set(DL_ECORRUPT, "%s: an action must be a JSON object", what);
	/* One key per line; unknown keys are future actions and are ignored. */
	for (size_t i = 0; i < line->u.obj.n; i++) {
		const dl_json_member *m = &line->u.obj.items[i];
		dl_action_kind k = dl_action_kind_of(m->key);
		if (k == DL_ACTION_UNKNOWN || m->value.kind == DL_JSON_NULL) continue;
		return dl_action_body_from_json(out, k, arena, &m->value, what);
	}
	return 0;
}

/* ---- serialization ---- */

void dl_str_map_write(dl_json_writer *w, const dl_str_map *m)
{
	dl_jw_object_begin(w);
	for (uint32_t i = 0; i < m->n; i++) {
		dl_jw_key(w, m->items[i].key);
		if (m->items[i].value) dl_jw_string(w, m->items[i].value);
		else dl_jw_null(w);
	}
	dl_jw_object_end(w);
}

static void write_path(dl_json_writer *w, const char *key, const char *path)
{
	dl_buf b = DL_BUF_INIT;
	dl_jw_key(w, key);
	if (dl_log_path_encode(&b, path) < 0) {
		if (!w->error) w->error = DL_ENOMEM;
		dl_jw_null(w);
	} else {
		dl_jw_string_n(w, b.data, b.len);
	}
	dl_buf_free(&b);
}

static void write_opt_long(dl_json_writer *w, const char *key, int64_t v)
{
	if (v == DL_NONE) return;
	dl_jw_key(w, key);
	dl_jw_int(w, v);
}

static void write_opt_str(dl_json_writer *w, const char *key, const char *s)
{
	if (!s) return;
	dl_jw_key(w, key);
	dl_jw_string(w, s);
}

static void write_dv(dl_json_writer *w, const dl_dv_descriptor *dv)
{
	if (!dv) return;
	char st[2] = {dv->storage_type, 0};
	dl_jw_key(w, "deletionVector");
	dl_jw_object_begin(w);
	dl_jw_key(w, "storageType");
	dl_jw_string(w, st);
	dl_jw_key(w, "pathOrInlineDv");
	dl_jw_string(w, dv->path_or_inline);
	if (dv->offset >= 0) write_opt_long(w, "offset", dv->offset);
	write_opt_long(w, "sizeInBytes", dv->size_in_bytes);
	write_opt_long(w, "cardinality", dv->cardinality);
	if (dv->max_row_index >= 0) write_opt_long(w, "maxRowIndex", dv->max_row_index);
	dl_jw_object_end(w);
}

static void write_str_array(dl_json_writer *w, const char *key, const char **a, uint32_t n)
{
	dl_jw_key(w, key);
	dl_jw_array_begin(w);
	for (uint32_t i = 0; i < n; i++) dl_jw_string(w, a[i]);
	dl_jw_array_end(w);
}

static void write_add(dl_json_writer *w, const dl_add *a)
{
	write_path(w, "path", a->path);
	dl_jw_key(w, "partitionValues");
	dl_str_map_write(w, &a->partition_values);
	write_opt_long(w, "size", a->size);
	write_opt_long(w, "modificationTime", a->modification_time);
	dl_jw_key(w, "dataChange");
	dl_jw_bool(w, a->data_change);
	if (a->stats) {
		dl_jw_key(w, "stats");
		dl_jw_string_n(w, a->stats, a->stats_len);
	}
	if (a->tags.n) {
		dl_jw_key(w, "tags");
		dl_str_map_write(w, &a->tags);
	}
	write_dv(w, a->dv);
	write_opt_long(w, "baseRowId", a->base_row_id);
	write_opt_long(w, "defaultRowCommitVersion", a->default_row_commit_version);
	write_opt_str(w, "clusteringProvider", a->clustering_provider);
}

static void write_remove(dl_json_writer *w, const dl_remove *r)
{
	write_path(w, "path", r->path);
	write_opt_long(w, "deletionTimestamp", r->deletion_timestamp);
	dl_jw_key(w, "dataChange");
	dl_jw_bool(w, r->data_change);
	if (r->extended_file_metadata) {
		dl_jw_key(w, "extendedFileMetadata");
		dl_jw_bool(w, true);
		dl_jw_key(w, "partitionValues");
		dl_str_map_write(w, &r->partition_values);
	}
	write_opt_long(w, "size", r->size);
	if (r->stats) {
		dl_jw_key(w, "stats");
		dl_jw_string_n(w, r->stats, r->stats_len);
	}
	if (r->tags.n) {
		dl_jw_key(w, "tags");
		dl_str_map_write(w, &r->tags);
	}
	write_dv(w, r->dv);
	write_opt_long(w, "baseRowId", r->base_row_id);
	write_opt_long(w, "defaultRowCommitVersion", r->default_row_commit_version);
}

static void write_metadata(dl_json_writer *w, const dl_metadata *m)
{
	write_opt_str(w, "id", m->id);
	write_opt_str(w, "name", m->name);
	write_opt_str(w, "description", m->description);
	dl_jw_key(w, "format");
	dl_jw_object_begin(w);
	write_opt_str(w, "provider", m->format_provider ? m->format_provider : "parquet");
	dl_jw_key(w, "options");
	dl_str_map_write(w, &m->format_options);
	dl_jw_object_end(w);
	write_opt_str(w, "schemaString", m->schema_string);
	write_str_array(w, "partitionColumns", m->partition_columns, m->npartition_columns);
	dl_jw_key(w, "configuration");
	dl_str_map_write(w, &m->configuration);
	write_opt_long(w, "createdTime", m->created_time);
}

static void write_protocol(dl_json_writer *w, const dl_protocol *p)
{
	dl_jw_key(w, "minReaderVersion");
	dl_jw_int(w, p->min_reader_version);
	dl_jw_key(w, "minWriterVersion");
	dl_jw_int(w, p->min_writer_version);
	if (p->reader_features)
		write_str_array(w, "readerFeatures", p->reader_features, p->nreader_features);
	if (p->writer_features)
		write_str_array(w, "writerFeatures", p->writer_features, p->nwriter_features);
}

void dl_action_write(dl_json_writer *w, const dl_action *a)
{
	dl_jw_object_begin(w);
	dl_jw_key(w, dl_action_kind_name(a->kind));
	if (a->kind == DL_ACTION_COMMIT_INFO) {
		dl_jw_raw(w, a->u.commit_info.json ? a->u.commit_info.json : "{}");
		dl_jw_object_end(w);
		return;
	}
	dl_jw_object_begin(w);
	switch (a->kind) {
	case DL_ACTION_ADD: write_add(w, &a->u.add); break;
	case DL_ACTION_REMOVE: write_remove(w, &a->u.remove); break;
	case DL_ACTION_METADATA: write_metadata(w, &a->u.metadata); break;
	case DL_ACTION_PROTOCOL: write_protocol(w, &a->u.protocol); break;
	case DL_ACTION_TXN:
		write_opt_str(w, "appId", a->u.txn.app_id);
		write_opt_long(w, "version", a->u.txn.version);
		write_opt_long(w, "lastUpdated", a->u.txn.last_updated);
		break;
	case DL_ACTION_CDC:
		write_path(w, "path", a->u.cdc.path);
		dl_jw_key(w, "partitionValues");
		dl_str_map_write(w, &a->u.cdc.partition_values);
		write_opt_long(w, "size", a->u.cdc.size);
		dl_jw_key(w, "dataChange");
		dl_jw_bool(w, a->u.cdc.data_change);
		if (a->u.cdc.tags.n) {
			dl_jw_key(w, "tags");
			dl_str_map_write(w, &a->u.cdc.tags);
		}
		break;
	case DL_ACTION_DOMAIN_METADATA:
		write_opt_str(w, "domain", a->u.domain_metadata.domain);
		write_opt_str(w, "configuration", a->u.domain_metadata.configuration);
		dl_jw_key(w, "removed");
		dl_jw_bool(w, a->u.domain_metadata.removed);
		break;
	case DL_ACTION_CHECKPOINT_METADATA:
		write_opt_long(w, "version", a->u.checkpoint_metadata.version);
		if (a->u.checkpoint_metadata.tags.n) {
			dl_jw_key(w, "tags");
			dl_str_map_write(w, &a->u.checkpoint_metadata.tags);
		}
		break;
	case DL_ACTION_SIDECAR:
		write_path(w, "path", a->u.sidecar.path);
		write_opt_long(w, "sizeInBytes", a->u.sidecar.size_in_bytes);
		write_opt_long(w, "modificationTime", a->u.sidecar.modification_time);
		if (a->u.sidecar.tags.n) {
			dl_jw_key(w, "tags");
			dl_str_map_write(w, &a->u.sidecar.tags);
		}
		break;
	default: break;
	}
	dl_jw_object_end(w);
	dl_jw_object_end(w);
}

int dl_action_to_json(dl_buf *out, const dl_action *a)
{
	if (a->kind == DL_ACTION_UNKNOWN)
		return dl_error_set(DL_EINVALID, "cannot serialize an action of unknown kind");
	dl_json_writer w;
	dl_jw_init(&w, out);
	dl_action_write(&w, a);
	return dl_jw_finish(&w);
}
