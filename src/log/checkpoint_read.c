/* Checkpoint rows (Parquet) to actions. A checkpoint has one struct column
 * per action kind (add, remove, metaData, protocol, txn, domainMetadata,
 * checkpointMetadata, sidecar); each row sets exactly one of them. Only the
 * columns present in the file are read; in metadata-only replays only
 * protocol and metaData. add.stats_parsed (checkpoints written with
 * delta.checkpoint.writeStatsAsStruct) is turned back into the stats JSON
 * text when the JSON form is absent, so stats have one representation. */
#include "log/checkpoint_read.h"
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "columnar/array.h"
#include "json/json.h"
#include "log/partition_values.h"
#include "log/path.h"
#include "parquet/reader.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/time.h"

static const char *const action_columns[] = {
	"add", "remove", "metaData", "protocol", "txn", "domainMetadata", "checkpointMetadata",
	"sidecar",
};
#define NCOLS (sizeof action_columns / sizeof action_columns[0])
_Static_assert(NCOLS == DL_CP_KINDS, "dl_cp_file.kinds holds one per action column");

typedef struct cp_ctx {
	dl_replayer *r;
	dl_arena *arena;
	const char *file;
	int64_t row; /* file row, for messages */
} cp_ctx;

/* ---- typed access to struct children ---- */

static const dl_array *child(const dl_array *st, const char *name)
{
	if (!st || st->type->id != DL_TYPE_STRUCT) return NULL;
	for (int i = 0; i < st->type->nchildren && i < st->nchildren; i++)
		if (strcmp(st->type->children[i].name, name) == 0) return st->children[i];
	return NULL;
}

static bool valid(const dl_array *a, int64_t i)
{
	return a && dl_array_is_valid(a, i);
}

static int bad(const cp_ctx *c, const char *field, const char *what)
{
	return dl_error_set(DL_ECORRUPT, "%s row %" PRId64 ": %s %s", c->file, c->row, field, what);
}

static int get_string(const cp_ctx *c, const dl_array *a, int64_t i, const char *field,
                      bool required, const char **out)
{
	*out = NULL;
	if (!valid(a, i)) return required ? bad(c, field, "is missing") : 0;
	if (a->type->id != DL_TYPE_STRING && a->type->id != DL_TYPE_BINARY)
		return bad(c, field, "must be a string column");
	int32_t s = a->offsets[i], e = a->offsets[i + 1];
	if (s < 0 || e < s || e > a->data_len) return bad(c, field, "has invalid offsets");
	char *p = dl_arena_strndup(c->arena, (const char *)a->data + s, (size_t)(e - s));
	if (!p) return DL_ENOMEM;
	*out = p;
	return 0;
}

static int get_long(const cp_ctx *c, const dl_array *a, int64_t i, const char *field,
                    bool required, int64_t *out)
{
	*out = DL_NONE;
	if (!valid(a, i)) return required ? bad(c, field, "is missing") : 0;
	switch (a->type->id) {
	case DL_TYPE_LONG:
	case DL_TYPE_TIMESTAMP:
	case DL_TYPE_TIMESTAMP_NTZ: *out = ((const int64_t *)a->values)[i]; return 0;
	case DL_TYPE_INTEGER:
	case DL_TYPE_DATE: *out = ((const int32_t *)a->values)[i]; return 0;
	case DL_TYPE_SHORT: *out = ((const int16_t *)a->values)[i]; return 0;
	case DL_TYPE_BYTE: *out = ((const int8_t *)a->values)[i]; return 0;
	default: return bad(c, field, "must be an integer column");
	}
}

static int get_bool(const cp_ctx *c, const dl_array *a, int64_t i, const char *field, bool dflt,
                    bool *out)
{
	*out = dflt;
	if (!valid(a, i)) return 0;
	if (a->type->id != DL_TYPE_BOOLEAN) return bad(c, field, "must be a boolean column");
	*out = dl_bit_get(a->values, i);
	return 0;
}

static int get_map(const cp_ctx *c, const dl_array *a, int64_t i, const char *field,
                   dl_str_map *out)
{
	out->items = NULL;
	out->n = 0;
	if (!valid(a, i)) return 0;
	if (a->type->id != DL_TYPE_MAP || a->nchildren < 1)
		return bad(c, field, "must be a map column");
	const dl_array *entries = a->children[0];
	const dl_array *k = entries && entries->nchildren > 0 ? entries->children[0] : NULL;
	const dl_array *v = entries && entries->nchildren > 1 ? entries->children[1] : NULL;
	int32_t s = a->offsets[i], e = a->offsets[i + 1];
	if (!k || !v || s < 0 || e < s || e > entries->length) return bad(c, field, "is malformed");
	if (e == s) return 0;
	dl_kv *kv = dl_arena_alloc(c->arena, (size_t)(e - s) * sizeof *kv);
	if (!kv) return DL_ENOMEM;
	for (int32_t j = s; j < e; j++) {
		DL_TRY(get_string(c, k, j, field, true, &kv[j - s].key));
		DL_TRY(get_string(c, v, j, field, false, &kv[j - s].value));
	}
	out->items = kv;
	out->n = (uint32_t)(e - s);
	return 0;
}

static int get_str_list(const cp_ctx *c, const dl_array *a, int64_t i, const char *field,
                        const char ***out, uint32_t *n)
{
	*out = NULL;
	*n = 0;
	if (!valid(a, i)) return 0;
	if (a->type->id != DL_TYPE_ARRAY || a->nchildren < 1)
		return bad(c, field, "must be a list column");
	int32_t s = a->offsets[i], e = a->offsets[i + 1];
	if (s < 0 || e < s || e > a->children[0]->length) return bad(c, field, "is malformed");
	const char **l = dl_arena_alloc(c->arena, (size_t)(e - s + 1) * sizeof *l);
	if (!l) return DL_ENOMEM;
	for (int32_t j = s; j < e; j++) DL_TRY(get_string(c, a->children[0], j, field, true, &l[j - s]));
	l[e - s] = NULL;
	*out = l;
	*n = (uint32_t)(e - s);
	return 0;
}

/* The decoded path and, with raw, its spelling in the checkpoint. */
static int get_path_raw(const cp_ctx *c, const dl_array *a, int64_t i, const char *field,
                        const char **out, const char **raw_out)
{
	const char *raw;
	DL_TRY(get_string(c, a, i, field, true, &raw));
	/* most paths decode to themselves: one copy then serves both (as in
	 * add_scan.c) */
	if (!strchr(raw, '%') && strncmp(raw, "file:", 5) != 0) *out = raw;
	else DL_TRY(dl_log_path_decode(c->arena, raw, strlen(raw), c->file, out));
	if (raw_out) *raw_out = raw; /* get_string copied it into the arena */
	return 0;
}

static int get_path(const cp_ctx *c, const dl_array *a, int64_t i, const char *field,
                    const char **out)
{
	return get_path_raw(c, a, i, field, out, NULL);
}

enum { V_TYPE, V_PATH, V_OFFSET, V_SIZE, V_CARD, V_MAX, V_N };
static const char *const dv_fields[V_N] = {
	"storageType", "pathOrInlineDv", "offset", "sizeInBytes", "cardinality", "maxRowIndex",
};

static int get_dv(const cp_ctx *c, const dl_array *a, const dl_array *const *f, int64_t i,
                  dl_dv_descriptor **out)
{
	*out = NULL;
	if (!valid(a, i)) return 0;
	dl_dv_descriptor *dv = dl_arena_calloc(c->arena, 1, sizeof *dv);
	if (!dv) return DL_ENOMEM;
	const char *type;
	int64_t x;
	DL_TRY(get_string(c, f[V_TYPE], i, "deletionVector.storageType", true, &type));
	if (strlen(type) != 1 || !strchr("uip", type[0]))
		return bad(c, "deletionVector.storageType", "must be 'u', 'i' or 'p'");
	dv->storage_type = type[0];
	DL_TRY(get_string(c, f[V_PATH], i, "deletionVector.pathOrInlineDv", true,
	                  &dv->path_or_inline));
	DL_TRY(get_long(c, f[V_OFFSET], i, "deletionVector.offset", false, &x));
	dv->offset = x == DL_NONE ? -1 : x;
	DL_TRY(get_long(c, f[V_SIZE], i, "deletionVector.sizeInBytes", true, &x));
	if (x < 0 || x > INT32_MAX) return bad(c, "deletionVector.sizeInBytes", "is out of range");
	dv->size_in_bytes = (int32_t)x;
	DL_TRY(get_long(c, f[V_CARD], i, "deletionVector.cardinality", true, &dv->cardinality));
	DL_TRY(get_long(c, f[V_MAX], i, "deletionVector.maxRowIndex", false, &x));
	dv->max_row_index = x == DL_NONE ? -1 : x;
	*out = dv;
	return 0;
}

/* ---- stats_parsed back to the stats JSON ---- */

static void write_value(dl_json_writer *w, const dl_array *a, int64_t i);

static void write_struct(dl_json_writer *w, const dl_array *a, int64_t i)
{
	dl_jw_object_begin(w);
	for (int k = 0; k < a->nchildren && k < a->type->nchildren; k++) {
		if (!valid(a->children[k], i)) continue; /* absent stat, not a null value */
		dl_jw_key(w, a->type->children[k].name);
		write_value(w, a->children[k], i);
	}
	dl_jw_object_end(w);
}

__extension__ typedef unsigned __int128 cp_u128;

static void write_decimal(dl_json_writer *w, const dl_array *a, int64_t i)
{
	dl_i128 v;
	memcpy(&v, (const uint8_t *)a->values + 16 * i, 16);
	char digits[64], out[80];
	int n = 0, neg = v < 0;
	cp_u128 u = neg ? (cp_u128)(-(v + 1)) + 1 : (cp_u128)v;
	do {
		digits[n++] = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u);
	while (n <= a->type->scale) digits[n++] = '0';
	int o = 0;
	if (neg) out[o++] = '-';
	for (int k = n - 1; k >= 0; k--) {
		out[o++] = digits[k];
		if (k == a->type->scale && k > 0) out[o++] = '.';
	}
	out[o] = 0;
	dl_jw_raw(w, out);
}

static void write_value(dl_json_writer *w, const dl_array *a, int64_t i)
{
	char t[DL_TIME_TEXT_MAX];
	if (!valid(a, i)) {
		dl_jw_null(w);
		return;
	}
	switch (a->type->id) {
	case DL_TYPE_BOOLEAN: dl_jw_bool(w, dl_bit_get(a->values, i)); break;
	case DL_TYPE_BYTE: dl_jw_int(w, ((const int8_t *)a->values)[i]); break;
	case DL_TYPE_SHORT: dl_jw_int(w, ((const int16_t *)a->values)[i]); break;
	case DL_TYPE_INTEGER: dl_jw_int(w, ((const int32_t *)a->values)[i]); break;
	case DL_TYPE_LONG: dl_jw_int(w, ((const int64_t *)a->values)[i]); break;
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE: {
		double d = a->type->id == DL_TYPE_FLOAT ? ((const float *)a->values)[i]
		                                        : ((const double *)a->values)[i];
		/* JSON has no NaN/Infinity: such a bound is dropped (unknown) */
		if (isfinite(d)) dl_jw_double(w, d);
		else dl_jw_null(w);
		break;
	}
	case DL_TYPE_DECIMAL: write_decimal(w, a, i); break;
	case DL_TYPE_DATE:
		dl_date_format(t, ((const int32_t *)a->values)[i]);
		dl_jw_string(w, t);
		break;
	case DL_TYPE_TIMESTAMP: {
		/* Delta writes timestamp stats in ISO form with milliseconds */
		int64_t us = ((const int64_t *)a->values)[i];
		dl_timestamp_format_iso(t, us, NULL, 3);
		size_t n = strlen(t);
		if (n + 1 < sizeof t) t[n] = 'Z', t[n + 1] = 0;
		dl_jw_string(w, t);
		break;
	}
	case DL_TYPE_TIMESTAMP_NTZ:
		dl_timestamp_format_iso(t, ((const int64_t *)a->values)[i], NULL, 3);
		dl_jw_string(w, t);
		break;
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY:
		dl_jw_string_n(w, (const char *)a->data + a->offsets[i],
		               (size_t)(a->offsets[i + 1] - a->offsets[i]));
		break;
	case DL_TYPE_STRUCT: write_struct(w, a, i); break;
	default: dl_jw_null(w); break;
	}
}

static int stats_from_parsed(const cp_ctx *c, const dl_array *sp, int64_t i, const char **out,
                             uint32_t *len)
{
	*out = NULL;
	*len = 0;
	if (!valid(sp, i) || sp->type->id != DL_TYPE_STRUCT) return 0;
	dl_buf b = DL_BUF_INIT;
	dl_json_writer w;
	dl_jw_init(&w, &b);
	write_struct(&w, sp, i);
	int rc = dl_jw_finish(&w);
	if (rc == 0 && b.len > UINT32_MAX) rc = bad(c, "stats_parsed", "is too large");
	if (rc == 0) {
		char *s = dl_arena_strndup(c->arena, b.data, b.len);
		if (!s) rc = DL_ENOMEM;
		*out = s;
		*len = (uint32_t)b.len;
	}
	dl_buf_free(&b);
	return rc;
}

/* ---- partitionValues_parsed back to the partition value strings ---- */

static bool scalar_at(const dl_array *a, int64_t i, dl_scalar *v)
{
	memset(v, 0, sizeof *v);
	v->type = a->type->id;
	if (!valid(a, i)) {
		v->is_null = true;
		return true;
	}
	switch (a->type->id) {
	case DL_TYPE_BOOLEAN: v->v.b = dl_bit_get(a->values, i); return true;
	case DL_TYPE_BYTE: v->v.i64 = ((const int8_t *)a->values)[i]; return true;
	case DL_TYPE_SHORT: v->v.i64 = ((const int16_t *)a->values)[i]; return true;
	case DL_TYPE_INTEGER:
	case DL_TYPE_DATE: v->v.i64 = ((const int32_t *)a->values)[i]; return true;
	case DL_TYPE_LONG:
	case DL_TYPE_TIMESTAMP:
	case DL_TYPE_TIMESTAMP_NTZ: v->v.i64 = ((const int64_t *)a->values)[i]; return true;
	case DL_TYPE_FLOAT: v->v.f64 = ((const float *)a->values)[i]; return true;
	case DL_TYPE_DOUBLE: v->v.f64 = ((const double *)a->values)[i]; return true;
	case DL_TYPE_DECIMAL:
		memcpy(&v->v.dec, (const uint8_t *)a->values + 16 * i, 16);
		v->precision = a->type->precision;
		v->scale = a->type->scale;
		return true;
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY:
		v->v.str.ptr = (const char *)a->data + a->offsets[i];
		v->v.str.len = (size_t)(a->offsets[i + 1] - a->offsets[i]);
		return true;
	default: return false;
	}
}

/* Writers always store the partitionValues map; when a checkpoint has only
 * the typed partitionValues_parsed struct, the map is rebuilt from it. */
static int partition_values_from_parsed(const cp_ctx *c, const dl_array *pp, int64_t i,
                                        dl_str_map *out)
{
	if (!valid(pp, i) || pp->type->id != DL_TYPE_STRUCT || pp->nchildren == 0) return 0;
	dl_kv *kv = dl_arena_alloc(c->arena, (size_t)pp->nchildren * sizeof *kv);
	if (!kv) return DL_ENOMEM;
	uint32_t n = 0;
	for (int k = 0; k < pp->nchildren && k < pp->type->nchildren; k++) {
		dl_scalar v;
		if (!scalar_at(pp->children[k], i, &v)) continue;
		dl_buf b = DL_BUF_INIT;
		bool is_null;
		int rc = dl_partition_value_format(&b, &v, &is_null);
		const char *text = NULL;
		if (rc == 0 && !is_null) {
			text = dl_arena_strndup(c->arena, b.data ? b.data : "", b.len);
			if (!text) rc = DL_ENOMEM;
		}
		dl_buf_free(&b);
		if (rc < 0) return rc;
		kv[n].key = dl_arena_strdup(c->arena, pp->type->children[k].name);
		if (!kv[n].key) return DL_ENOMEM;
		kv[n++].value = text;
	}
	out->items = kv;
	out->n = n;
	return 0;
}

/* ---- rows to actions ---- */

/* The fields read of each action column, in the order of its enum below;
 * the first is the one every action of the kind has (its key). Arrays are
 * resolved by name once per batch, not per row. */
enum { A_PATH, A_PV, A_PVP, A_SIZE, A_MTIME, A_DC, A_STATS, A_STATSP, A_TAGS, A_DV, A_BRID,
       A_DRCV, A_CLUST };
enum { R_PATH, R_DELTS, R_DC, R_EFM, R_PV, R_SIZE, R_TAGS, R_DV, R_BRID, R_DRCV };
enum { M_ID, M_NAME, M_DESC, M_FORMAT, M_SCHEMA, M_PCOLS, M_CTIME, M_CONF };
enum { P_READER, P_WRITER, P_RFEAT, P_WFEAT };
enum { T_APP, T_VERSION, T_UPDATED };
enum { D_DOMAIN, D_CONF, D_REMOVED };
enum { C_VERSION, C_TAGS };
enum { S_PATH, S_SIZE, S_MTIME, S_TAGS };
#define MAXF 13

static const char *const kind_fields[NCOLS][MAXF + 1] = {
	{"path", "partitionValues", "partitionValues_parsed", "size", "modificationTime",
	 "dataChange", "stats", "stats_parsed", "tags", "deletionVector", "baseRowId",
	 "defaultRowCommitVersion", "clusteringProvider", NULL},
	{"path", "deletionTimestamp", "dataChange", "extendedFileMetadata", "partitionValues", "size",
	 "tags", "deletionVector", "baseRowId", "defaultRowCommitVersion", NULL},
	{"id", "name", "description", "format", "schemaString", "partitionColumns", "createdTime",
	 "configuration", NULL},
	{"minReaderVersion", "minWriterVersion", "readerFeatures", "writerFeatures", NULL},
	{"appId", "version", "lastUpdated", NULL},
	{"domain", "configuration", "removed", NULL},
	{"version", "tags", NULL},
	{"path", "sizeInBytes", "modificationTime", "tags", NULL},
};

/* One action column of a batch with its fields (NULL: absent). */
typedef struct cp_col {
	int kind;
	const dl_array *a;
	const dl_array *f[MAXF];
	const dl_array *dv[V_N]; /* add/remove deletionVector fields */
	const dl_array *fmt_provider, *fmt_options;
} cp_col;

static void resolve(cp_col *c, int kind, const dl_array *a)
{
	memset(c, 0, sizeof *c);
	c->kind = kind;
	c->a = a;
	for (int k = 0; kind_fields[kind][k]; k++) c->f[k] = child(a, kind_fields[kind][k]);
	const dl_array *dv = kind == 0 ? c->f[A_DV] : kind == 1 ? c->f[R_DV] : NULL;
	for (int k = 0; dv && k < V_N; k++) c->dv[k] = child(dv, dv_fields[k]);
	if (kind == 2) {
		c->fmt_provider = child(c->f[M_FORMAT], "provider");
		c->fmt_options = child(c->f[M_FORMAT], "options");
	}
}

static int row_add(const cp_ctx *c, const cp_col *k, int64_t i, dl_add *out)
{
	const dl_array *const *f = k->f;
	DL_TRY(get_path_raw(c, f[A_PATH], i, "add.path", &out->path, &out->log_path));
	if (valid(f[A_PV], i))
		DL_TRY(get_map(c, f[A_PV], i, "add.partitionValues", &out->partition_values));
	else
		DL_TRY(partition_values_from_parsed(c, f[A_PVP], i, &out->partition_values));
	DL_TRY(get_long(c, f[A_SIZE], i, "add.size", true, &out->size));
	if (out->size < 0) return bad(c, "add.size", "is negative");
	DL_TRY(get_long(c, f[A_MTIME], i, "add.modificationTime", false, &out->modification_time));
	if (out->modification_time == DL_NONE) out->modification_time = 0;
	DL_TRY(get_bool(c, f[A_DC], i, "add.dataChange", false, &out->data_change));
	const char *stats;
	DL_TRY(get_string(c, f[A_STATS], i, "add.stats", false, &stats));
	if (stats) {
		size_t n = strlen(stats);
		if (n > UINT32_MAX) return bad(c, "add.stats", "is too large");
		out->stats = stats;
		out->stats_len = (uint32_t)n;
	} else {
		DL_TRY(stats_from_parsed(c, f[A_STATSP], i, &out->stats, &out->stats_len));
	}
	DL_TRY(get_map(c, f[A_TAGS], i, "add.tags", &out->tags));
	DL_TRY(get_dv(c, f[A_DV], k->dv, i, &out->dv));
	DL_TRY(get_long(c, f[A_BRID], i, "add.baseRowId", false, &out->base_row_id));
	DL_TRY(get_long(c, f[A_DRCV], i, "add.defaultRowCommitVersion", false,
	                &out->default_row_commit_version));
	return get_string(c, f[A_CLUST], i, "add.clusteringProvider", false,
	                  &out->clustering_provider);
}

static int row_remove(const cp_ctx *c, const cp_col *k, int64_t i, dl_remove *out)
{
	const dl_array *const *f = k->f;
	DL_TRY(get_path(c, f[R_PATH], i, "remove.path", &out->path));
	DL_TRY(get_long(c, f[R_DELTS], i, "remove.deletionTimestamp", false,
	                &out->deletion_timestamp));
	DL_TRY(get_bool(c, f[R_DC], i, "remove.dataChange", false, &out->data_change));
	DL_TRY(get_bool(c, f[R_EFM], i, "remove.extendedFileMetadata", false,
	                &out->extended_file_metadata));
	DL_TRY(get_map(c, f[R_PV], i, "remove.partitionValues", &out->partition_values));
	DL_TRY(get_long(c, f[R_SIZE], i, "remove.size", false, &out->size));
	DL_TRY(get_map(c, f[R_TAGS], i, "remove.tags", &out->tags));
	DL_TRY(get_dv(c, f[R_DV], k->dv, i, &out->dv));
	DL_TRY(get_long(c, f[R_BRID], i, "remove.baseRowId", false, &out->base_row_id));
	return get_long(c, f[R_DRCV], i, "remove.defaultRowCommitVersion", false,
	                &out->default_row_commit_version);
}

static int row_metadata(const cp_ctx *c, const cp_col *k, int64_t i, dl_metadata *out)
{
	const dl_array *const *f = k->f;
	DL_TRY(get_string(c, f[M_ID], i, "metaData.id", true, &out->id));
	DL_TRY(get_string(c, f[M_NAME], i, "metaData.name", false, &out->name));
	DL_TRY(get_string(c, f[M_DESC], i, "metaData.description", false, &out->description));
	if (valid(f[M_FORMAT], i)) {
		DL_TRY(get_string(c, k->fmt_provider, i, "metaData.format.provider", false,
		                  &out->format_provider));
		DL_TRY(get_map(c, k->fmt_options, i, "metaData.format.options", &out->format_options));
	}
	if (!out->format_provider) out->format_provider = "parquet";
	DL_TRY(get_string(c, f[M_SCHEMA], i, "metaData.schemaString", false, &out->schema_string));
	DL_TRY(get_str_list(c, f[M_PCOLS], i, "metaData.partitionColumns", &out->partition_columns,
	                    &out->npartition_columns));
	DL_TRY(get_long(c, f[M_CTIME], i, "metaData.createdTime", false, &out->created_time));
	return get_map(c, f[M_CONF], i, "metaData.configuration", &out->configuration);
}

static int row_protocol(const cp_ctx *c, const cp_col *k, int64_t i, dl_protocol *out)
{
	const dl_array *const *f = k->f;
	int64_t r, w;
	DL_TRY(get_long(c, f[P_READER], i, "protocol.minReaderVersion", true, &r));
	DL_TRY(get_long(c, f[P_WRITER], i, "protocol.minWriterVersion", true, &w));
	if (r < 0 || r > INT32_MAX || w < 0 || w > INT32_MAX)
		return bad(c, "protocol", "versions are out of range");
	out->min_reader_version = (int32_t)r;
	out->min_writer_version = (int32_t)w;
	DL_TRY(get_str_list(c, f[P_RFEAT], i, "protocol.readerFeatures", &out->reader_features,
	                    &out->nreader_features));
	return get_str_list(c, f[P_WFEAT], i, "protocol.writerFeatures", &out->writer_features,
	                    &out->nwriter_features);
}

static int row_action(const cp_ctx *c, const cp_col *k, int64_t i, dl_action *out)
{
	const dl_array *const *f = k->f;
	memset(out, 0, sizeof *out);
	switch (k->kind) {
	case 0: out->kind = DL_ACTION_ADD; return row_add(c, k, i, &out->u.add);
	case 1: out->kind = DL_ACTION_REMOVE; return row_remove(c, k, i, &out->u.remove);
	case 2: out->kind = DL_ACTION_METADATA; return row_metadata(c, k, i, &out->u.metadata);
	case 3: out->kind = DL_ACTION_PROTOCOL; return row_protocol(c, k, i, &out->u.protocol);
	case 4:
		out->kind = DL_ACTION_TXN;
		DL_TRY(get_string(c, f[T_APP], i, "txn.appId", true, &out->u.txn.app_id));
		DL_TRY(get_long(c, f[T_VERSION], i, "txn.version", true, &out->u.txn.version));
		return get_long(c, f[T_UPDATED], i, "txn.lastUpdated", false, &out->u.txn.last_updated);
	case 5:
		out->kind = DL_ACTION_DOMAIN_METADATA;
		DL_TRY(get_string(c, f[D_DOMAIN], i, "domainMetadata.domain", true,
		                  &out->u.domain_metadata.domain));
		DL_TRY(get_string(c, f[D_CONF], i, "domainMetadata.configuration", true,
		                  &out->u.domain_metadata.configuration));
		return get_bool(c, f[D_REMOVED], i, "domainMetadata.removed", false,
		                &out->u.domain_metadata.removed);
	case 6:
		out->kind = DL_ACTION_CHECKPOINT_METADATA;
		DL_TRY(get_long(c, f[C_VERSION], i, "checkpointMetadata.version", true,
		                &out->u.checkpoint_metadata.version));
		return get_map(c, f[C_TAGS], i, "checkpointMetadata.tags",
		               &out->u.checkpoint_metadata.tags);
	case 7:
		out->kind = DL_ACTION_SIDECAR;
		DL_TRY(get_path(c, f[S_PATH], i, "sidecar.path", &out->u.sidecar.path));
		DL_TRY(get_long(c, f[S_SIZE], i, "sidecar.sizeInBytes", true,
		                &out->u.sidecar.size_in_bytes));
		DL_TRY(get_long(c, f[S_MTIME], i, "sidecar.modificationTime", false,
		                &out->u.sidecar.modification_time));
		return get_map(c, f[S_TAGS], i, "sidecar.tags", &out->u.sidecar.tags);
	default: return 0;
	}
}

static int kind_of(const char *name)
{
	for (size_t k = 0; k < NCOLS; k++)
		if (strcasecmp(action_columns[k], name) == 0) return (int)k;
	return -1;
}

static int read_batch(cp_ctx *c, const dl_batch *b, int64_t first)
{
	cp_col cols[NCOLS];
	int n = 0;
	for (int k = 0; k < b->ncols && n < (int)NCOLS; k++) {
		int kind = kind_of(b->schema->children[k].name);
		/* a column with no non-null row in the batch needs no look */
		if (kind >= 0 && b->cols[k]->null_count < b->num_rows) resolve(&cols[n++], kind, b->cols[k]);
	}
	for (int64_t i = 0; i < b->num_rows; i++) {
		c->row = first + i;
		for (int k = 0; k < n; k++) {
			if (!dl_array_is_valid(cols[k].a, i)) continue;
			dl_action act;
			dl_replay_begin_action(c->r);
			DL_TRY(row_action(c, &cols[k], i, &act));
			DL_TRY(dl_replay_offer(c->r, &act));
		}
	}
	return 0;
}

/* ---- what to read of each row group ---- */

/* Whether the leaves at or under `path` ("add.stats", "add.tags" for
 * add.tags.key_value.*) hold no value in row group rg by the chunks'
 * statistics; *found says whether there are such leaves, *nulls sums their
 * null counts (-1 when a chunk has none). */
static bool leaves_all_null(const pq_reader *pr, int rg, const char *path, bool *found,
                            int64_t *nulls)
{
	const pq_file_metadata *md = pq_reader_metadata(pr);
	size_t len = strlen(path);
	bool all = true;
	*found = false;
	*nulls = 0;
	for (int l = 0; l < pq_reader_num_leaves(pr); l++) {
		const char *lp = pq_reader_leaf_path(pr, l);
		if (strncasecmp(lp, path, len) != 0 || (lp[len] != 0 && lp[len] != '.')) continue;
		*found = true;
		const pq_column_chunk *cc = &md->row_groups[rg].columns[l];
		const pq_column_meta *m = &cc->meta_data;
		if (!cc->has_meta_data || !m->has_statistics || !m->statistics.has_null_count) {
			*nulls = -1;
			all = false;
			continue;
		}
		if (*nulls >= 0) *nulls += m->statistics.null_count;
		if (m->statistics.null_count != m->num_values) all = false;
	}
	return *found && all;
}

/* The dotted paths of row group rg worth decoding: of each wanted action
 * column, only the fields the row functions read, and not those that the
 * chunk statistics show hold no value (a null or absent field reads the
 * same); a column whose key field (add.path, metaData.id, ...) is null in
 * every row holds no action there and is not read at all. Most checkpoint
 * rows are adds, so this skips the decoding of the remove, txn, ...
 * columns that are null in all of them. Without statistics everything is
 * decoded. A struct whose key field is null while the struct is not (a
 * corrupt row the full decoding would report) is then not seen. */
static int plan_row_group(const pq_reader *pr, int rg, const int *kinds, int nkinds, dl_buf *text,
                          const char **paths, int *npaths)
{
	const dl_type *schema = pq_reader_schema(pr);
	size_t offs[NCOLS * MAXF];
	int n = 0;
	dl_buf_clear(text);
	for (int j = 0; j < nkinds; j++) {
		int k = kinds[j];
		const dl_field *top = &schema->children[dl_type_field_index(schema, action_columns[k])];
		char p[512], key[512];
		bool found;
		int64_t key_nulls, nulls;
		snprintf(key, sizeof key, "%s.%s", top->name, kind_fields[k][0]);
		bool key_in = top->type->id == DL_TYPE_STRUCT &&
		              dl_type_field_index(top->type, kind_fields[k][0]) >= 0;
		if (!key_in) {
			/* unusual shape: the whole column, for the row functions to judge */
			offs[n++] = text->len;
			DL_TRY(dl_buf_printf(text, "%s", top->name));
			DL_TRY(dl_buf_putc(text, 0));
			continue;
		}
		if (leaves_all_null(pr, rg, key, &found, &key_nulls)) continue;
		for (int f = 0; kind_fields[k][f]; f++) {
			int fi = dl_type_field_index(top->type, kind_fields[k][f]);
			if (fi < 0) continue;
			snprintf(p, sizeof p, "%s.%s", top->name, top->type->children[fi].name);
			if (f > 0 && leaves_all_null(pr, rg, p, &found, &nulls)) continue;
			/* the parsed forms are read only for rows lacking the text form:
			 * when the text form has a value in every row that has the key,
			 * they are not needed */
			if ((k == 0 && f == A_STATSP) || (k == 0 && f == A_PVP)) {
				char tp[512];
				snprintf(tp, sizeof tp, "%s.%s", top->name,
				         f == A_STATSP ? "stats" : "partitionValues");
				leaves_all_null(pr, rg, tp, &found, &nulls);
				/* a map's key leaf: one null level per null or empty map */
				if (f == A_PVP) {
					snprintf(tp, sizeof tp, "%s.partitionValues.key_value.key", top->name);
					leaves_all_null(pr, rg, tp, &found, &nulls);
				}
				if (found && key_nulls >= 0 && nulls == key_nulls) continue;
			}
			offs[n++] = text->len;
			DL_TRY(dl_buf_printf(text, "%s", p));
			DL_TRY(dl_buf_putc(text, 0));
		}
	}
	for (int i = 0; i < n; i++) paths[i] = text->data + offs[i];
	*npaths = n;
	return 0;
}

/* Rows per decoded batch: each row is copied into the snapshot's arena
 * right away, so a batch is only a window; a smaller one holds fewer
 * decoded strings beside the snapshot (65536 rows of 5 columns' stats JSON are
 * 18 MB). */
#define CP_BATCH_ROWS 8192

/* Opens a checkpoint part or sidecar for dl_cp_file_next, to read the
 * action columns a replay wants (dl_replay_metadata_only and
 * dl_replay_wants_txns_domains of it, passed in so any thread can run this). */
int dl_cp_file_open(dl_cp_file *f, dl_store *store, const char *path, bool meta_only, bool lists)
{
	memset(f, 0, sizeof *f);
	f->path = path;
	f->rg = -1;
	int rc = pq_reader_open_store(&f->pr, store, path, -1);
	if (rc < 0) return dl_error_prefix("reading checkpoint %s", path);
	const dl_type *schema = pq_reader_schema(f->pr);
	for (size_t k = 0; k < NCOLS; k++) {
		/* metaData, protocol; txn, domainMetadata when wanted */
		if (meta_only && k != 2 && k != 3 && !(lists && (k == 4 || k == 5))) continue;
		if (dl_type_field_index(schema, action_columns[k]) < 0) continue;
		f->kinds[f->nkinds++] = (int)k;
	}
	rc = pq_reader_set_batch_size(f->pr, CP_BATCH_ROWS);
	if (rc < 0) {
		dl_cp_file_close(f);
		return dl_error_prefix("reading checkpoint %s", path);
	}
	return 0;
}

/* The next batch of the row groups worth reading (their planned columns
 * only), or *out NULL at the end. Any thread, one at a time per file. */
int dl_cp_file_next(dl_cp_file *f, dl_batch **out, int64_t *first)
{
	*out = NULL;
	int rc = 0, nrg = pq_reader_num_row_groups(f->pr);
	while (rc == 0 && f->nkinds) {
		if (f->rg >= 0) {
			rc = pq_reader_next(f->pr, out, first);
			if (rc < 0 || *out) break;
		}
		if (++f->rg >= nrg) break;
		const char *paths[NCOLS * MAXF];
		int npaths;
		rc = plan_row_group(f->pr, f->rg, f->kinds, f->nkinds, &f->text, paths, &npaths);
		if (rc == 0 && npaths == 0) continue;
		if (rc == 0) rc = pq_reader_rewind(f->pr);
		if (rc == 0) rc = pq_reader_set_row_groups(f->pr, &f->rg, 1);
		if (rc == 0) rc = pq_reader_select_paths(f->pr, paths, npaths);
	}
	if (rc < 0 && rc != DL_ENOMEM && !strstr(dl_error_last()->message, f->path))
		dl_error_prefix("reading checkpoint %s", f->path);
	return rc;
}

void dl_cp_file_close(dl_cp_file *f)
{
	dl_buf_free(&f->text);
	pq_reader_free(f->pr);
	f->pr = NULL;
}

/* Offers the actions of a batch of `path` (rows from `first` on). On the
 * replaying thread only: it builds in the replay's arena. */
int dl_cp_offer_batch(dl_replayer *r, const char *path, const dl_batch *b, int64_t first)
{
	cp_ctx c = {r, dl_replay_arena(r), path, 0};
	int rc = read_batch(&c, b, first);
	if (rc < 0 && rc != DL_ENOMEM && !strstr(dl_error_last()->message, path))
		dl_error_prefix("reading checkpoint %s", path);
	return rc;
}

int dl_checkpoint_read_parquet(dl_replayer *r, dl_store *store, const char *path)
{
	dl_cp_file f;
	DL_TRY(dl_cp_file_open(&f, store, path, dl_replay_metadata_only(r), dl_replay_wants_txns_domains(r)));
	int rc;
	for (;;) {
		dl_batch *b;
		int64_t first;
		rc = dl_cp_file_next(&f, &b, &first);
		if (rc < 0 || !b) break;
		rc = dl_cp_offer_batch(r, path, b, first);
		dl_batch_free(b);
		if (rc < 0) break;
	}
	dl_cp_file_close(&f);
	return rc;
}
