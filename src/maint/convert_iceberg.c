/* CONVERT TO DELTA iceberg.`path` (Spark's ConvertToDeltaCommand over an
 * IcebergTable source, delta-iceberg module): version 0 of a Delta table
 * in place over the data files of the Iceberg table's current snapshot.
 *
 *  1. A directory that already is a Delta table is left alone (version -1).
 *  2. The newest metadata/v<N>.metadata.json (or <N>-<uuid>.metadata.json)
 *     is read (uniform/iceberg_read.c), its current schema converted:
 *     field ids become delta.columnMapping.id with column mapping mode
 *     'id' (Iceberg files resolve columns by field id, so Spark converts
 *     with IdMapping), names stay, delta.columnMapping.maxColumnId =
 *     last-column-id. int/long/float/double/boolean/string/binary/date/
 *     decimal/struct map to themselves, timestamptz to timestamp,
 *     timestamp to timestamp_ntz, list to array (containsNull = not
 *     element-required), map to map (valueContainsNull = not
 *     value-required); other types are refused. The element-id / key-id /
 *     value-id of lists and maps go into the nearest struct field's
 *     delta.columnMapping.nested.ids keyed as IcebergCompatV2 keys them
 *     ("<physical>.element", "<physical>.value.element", ...), so files
 *     written later carry the ids the Iceberg files have on those nodes,
 *     and enabling IcebergCompatV2 keeps them instead of assigning new ones.
 *     (Spark's IcebergSchemaUtils records only the struct fields' ids.)
 *  3. Refused, as the seeds say: partition evolution (more than one
 *     partition spec, or a manifest written with another spec), partition
 *     transforms other than identity, and merge-on-read deletes (delete
 *     manifests or delete files in the current snapshot), since Delta
 *     cannot express them without rewriting.
 *  4. The live entries (status EXISTING or ADDED) of the current
 *     snapshot's manifests become add actions: the path relative to the
 *     table root when it is under it, the size, identity partition values
 *     from the manifest's partition tuple, stats {"numRecords": n} from
 *     record_count (min/max are not carried: the files' own column names
 *     are not known without their footers).
 *  5. One commit, as convert.c's: protocol for the configuration,
 *     commitInfo CONVERT with sourceFormat "iceberg". The configuration
 *     is Spark's IcebergTable.properties: all the Iceberg table
 *     properties, delta.columnMapping.mode = id and
 *     delta.logRetentionDuration from history.expire.max-snapshot-age-ms.
 *  6. Like Spark, a table with schema.name-mapping.default is refused
 *     ("Cannot convert Iceberg tables with column name mapping"): its
 *     files may lack field ids. UniForm writes that property, so Iceberg
 *     metadata written by a Delta converter comes back only once an
 *     Iceberg engine removed it. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <strings.h>

#include "deltalake/maintenance.h"
#include "expr/expr.h"
#include "log/partition_values.h"
#include "log/schema.h"
#include "log/snapshot.h"
#include "maint/restore_clone.h"
#include "ops/create.h"
#include "ops/protocol_choose.h"
#include "txn/txn.h"
#include "uniform/iceberg_read.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/options.h"
#include "util/time.h"
#include "util/uuid.h"

static const size_t ice_convert_ends[] = {sizeof(dl_convert_options)};

/* Spark's IcebergTable / IcebergFileManifest refuse with a plain
 * UnsupportedOperationException, no error class; so do we. */
static int refuse(const char *what, const char *why)
{
	return dl_error_set(DL_EUNSUPPORTED, "CONVERT TO DELTA iceberg.`%s`: %s; nothing was converted", what, why);
}

/* The nested ids of one struct field being written: "path":id members of
 * its delta.columnMapping.nested.ids object, in pre-order. */
typedef struct nested_ids {
	dl_buf members;
	int n;
} nested_ids;

/* An Iceberg type (JSON) as a Delta type in the schema JSON being written;
 * `path` is the nested-id path of `t` from its struct field's physical name. */
static int write_type(dl_json_writer *w, const dl_json *t, const char *root, const char *path, nested_ids *ids);

static int write_struct(dl_json_writer *w, const dl_json *st, const char *root)
{
	const dl_json *fields = dl_json_get(st, "fields");
	if (!fields || fields->kind != DL_JSON_ARRAY) return refuse(root, "a struct type has no fields array");
	dl_jw_object_begin(w);
	dl_jw_key(w, "type");
	dl_jw_string(w, "struct");
	dl_jw_key(w, "fields");
	dl_jw_array_begin(w);
	for (size_t i = 0; i < fields->u.arr.n; i++) {
		const dl_json *f = &fields->u.arr.items[i];
		const char *name = dl_json_get_str(f, "name");
		const dl_json *id = dl_json_get(f, "id"), *req = dl_json_get(f, "required");
		const dl_json *type = dl_json_get(f, "type");
		int64_t fid;
		if (!name || !id || dl_json_int64(id, &fid) < 0 || fid < 0 || fid > INT32_MAX || !type)
			return dl_error_set(DL_ECORRUPT, "Iceberg metadata of %s: a schema field lacks its name, id or type", root);
		dl_jw_object_begin(w);
		dl_jw_key(w, "name");
		dl_jw_string(w, name);
		dl_jw_key(w, "type");
		nested_ids ids = {DL_BUF_INIT, 0};
		int rc = write_type(w, type, root, name, &ids);
		if (rc < 0) {
			dl_buf_free(&ids.members);
			return rc;
		}
		dl_jw_key(w, "nullable");
		dl_jw_bool(w, !(req && req->kind == DL_JSON_TRUE));
		dl_jw_key(w, "metadata");
		dl_jw_object_begin(w);
		dl_jw_key(w, "delta.columnMapping.id");
		dl_jw_int(w, fid);
		dl_jw_key(w, "delta.columnMapping.physicalName");
		dl_jw_string(w, name); /* Spark's assignPhysicalNames(reuseLogicalName = true) */
		if (ids.n) {
			/* the Iceberg element/key/value ids, as IcebergCompatV2 records them */
			dl_jw_key(w, "delta.columnMapping.nested.ids");
			rc = dl_buf_putc(&ids.members, '}');
			if (rc == 0) dl_jw_raw(w, ids.members.data);
		}
		dl_buf_free(&ids.members);
		DL_TRY(rc);
		dl_jw_object_end(w);
		dl_jw_object_end(w);
	}
	dl_jw_array_end(w);
	dl_jw_object_end(w);
	return 0;
}

/* Records the id of the list element / map key / value at `path`.`slot`
 * (into sub) and returns 0, or an error naming the missing id. */
static int nested_slot(nested_ids *ids, char *sub, size_t cap, const dl_json *t, const char *root,
                       const char *path, const char *slot, const char *id_key)
{
	const dl_json *id = dl_json_get(t, id_key);
	int64_t v;
	if (!id || dl_json_int64(id, &v) < 0 || v < 0 || v > INT32_MAX)
		return dl_error_set(DL_ECORRUPT, "Iceberg metadata of %s: a %s type lacks its %s", root,
		                    strcmp(slot, "element") == 0 ? "list" : "map", id_key);
	if ((size_t)snprintf(sub, cap, "%s.%s", path, slot) >= cap)
		return dl_error_set(DL_EUNSUPPORTED, "Iceberg metadata of %s: nested column path %s is too long", root, path);
	int rc = dl_buf_putc(&ids->members, ids->n ? ',' : '{');
	if (rc == 0) rc = dl_buf_put_json_string(&ids->members, sub, strlen(sub));
	if (rc == 0) rc = dl_buf_printf(&ids->members, ":%lld", (long long)v);
	ids->n++;
	return rc;
}

/* An Iceberg list or map as a Delta array or map (Spark's
 * TypeToSparkType: containsNull = !element-required, valueContainsNull =
 * !value-required), its element/key/value ids kept as nested ids. */
static int write_nested(dl_json_writer *w, const dl_json *t, const char *k, const char *root, const char *path,
                        nested_ids *ids)
{
	char sub[1024];
	bool list = strcmp(k, "list") == 0;
	const dl_json *a = dl_json_get(t, list ? "element" : "key");
	const dl_json *b = list ? NULL : dl_json_get(t, "value");
	const dl_json *req = dl_json_get(t, list ? "element-required" : "value-required");
	if (!a || (!list && !b))
		return dl_error_set(DL_ECORRUPT, "Iceberg metadata of %s: a %s type lacks its %s", root, k,
		                    list ? "element" : "key or value");
	dl_jw_object_begin(w);
	dl_jw_key(w, "type");
	dl_jw_string(w, list ? "array" : "map");
	dl_jw_key(w, list ? "elementType" : "keyType");
	DL_TRY(nested_slot(ids, sub, sizeof sub, t, root, path, list ? "element" : "key", list ? "element-id" : "key-id"));
	DL_TRY(write_type(w, a, root, sub, ids));
	if (!list) {
		dl_jw_key(w, "valueType");
		DL_TRY(nested_slot(ids, sub, sizeof sub, t, root, path, "value", "value-id"));
		DL_TRY(write_type(w, b, root, sub, ids));
	}
	dl_jw_key(w, list ? "containsNull" : "valueContainsNull");
	dl_jw_bool(w, !(req && req->kind == DL_JSON_TRUE));
	dl_jw_object_end(w);
	return 0;
}

static int write_type(dl_json_writer *w, const dl_json *t, const char *root, const char *path, nested_ids *ids)
{
	if (t->kind == DL_JSON_OBJECT) {
		const char *k = dl_json_get_str(t, "type");
		if (k && strcmp(k, "struct") == 0) return write_struct(w, t, root);
		if (k && (strcmp(k, "list") == 0 || strcmp(k, "map") == 0)) return write_nested(w, t, k, root, path, ids);
		char msg[160];
		snprintf(msg, sizeof msg, "the Iceberg type %.60s has no Delta equivalent", k ? k : "?");
		return refuse(root, msg);
	}
	if (t->kind != DL_JSON_STRING) return dl_error_set(DL_ECORRUPT, "Iceberg metadata of %s: a type is not a string or object", root);
	const char *s = t->u.str.ptr;
	static const char *const map[][2] = {
	    {"boolean", "boolean"}, {"int", "integer"}, {"long", "long"}, {"float", "float"},
	    {"double", "double"}, {"string", "string"}, {"binary", "binary"}, {"date", "date"},
	    {"timestamptz", "timestamp"}, {"timestamp", "timestamp_ntz"},
	};
	for (size_t i = 0; i < sizeof map / sizeof *map; i++)
		if (strcmp(s, map[i][0]) == 0) {
			dl_jw_string(w, map[i][1]);
			return 0;
		}
	int p, sc;
	if (sscanf(s, "decimal(%d, %d)", &p, &sc) == 2 || sscanf(s, "decimal(%d,%d)", &p, &sc) == 2) {
		char d[40];
		snprintf(d, sizeof d, "decimal(%d,%d)", p, sc);
		dl_jw_string(w, d);
		return 0;
	}
	char msg[160];
	snprintf(msg, sizeof msg, "the Iceberg type %.60s has no Delta equivalent", s);
	return refuse(root, msg);
}

typedef struct ice_part {
	const char *name;     /* the source column's name = its physical name */
	const dl_type *type;
} ice_part;

typedef struct ice_conv {
	dl_convert_options o;
	dl_store *store;
	bool owns_store;
	dl_arena arena;
	const char *root;
	dl_ice_metadata meta;
	dl_type *schema;
	ice_part *parts;
	int nparts;
	dl_transaction *txn;
	int64_t nfiles;
	dl_buf tmp;
} ice_conv;

static int partition_spec(ice_conv *c)
{
	const dl_json *specs = c->meta.specs;
	if (specs && specs->u.arr.n > 1)
		return refuse(c->root, "the Iceberg table has undergone partition evolution (more than one "
		                       "partition spec)");
	const dl_json *spec = specs && specs->u.arr.n ? dl_json_get(&specs->u.arr.items[0], "fields") : NULL;
	if (!spec) spec = dl_json_get(c->meta.root, "partition-spec"); /* v1 */
	size_t n = spec && spec->kind == DL_JSON_ARRAY ? spec->u.arr.n : 0;
	c->parts = dl_arena_calloc(&c->arena, n + 1, sizeof *c->parts);
	if (!c->parts) return DL_ENOMEM;
	const dl_json *fields = dl_json_get(c->meta.current_schema, "fields");
	for (size_t i = 0; i < n; i++) {
		const dl_json *f = &spec->u.arr.items[i];
		const char *tr = dl_json_get_str(f, "transform");
		const dl_json *src = dl_json_get(f, "source-id");
		int64_t sid;
		if (!tr || !src || dl_json_int64(src, &sid) < 0)
			return dl_error_set(DL_ECORRUPT, "Iceberg metadata of %s: a partition field lacks transform or source-id", c->root);
		if (strcmp(tr, "identity") != 0) {
			char msg[160];
			snprintf(msg, sizeof msg, "the partition transform %.40s is not converted (only identity "
			         "partitions map to Delta partition columns)", tr);
			return refuse(c->root, msg);
		}
		const char *name = NULL;
		for (size_t k = 0; fields && k < fields->u.arr.n; k++) {
			int64_t id;
			const dl_json *x = dl_json_get(&fields->u.arr.items[k], "id");
			if (x && dl_json_int64(x, &id) == 0 && id == sid) name = dl_json_get_str(&fields->u.arr.items[k], "name");
		}
		int idx = name ? dl_type_field_index(c->schema, name) : -1;
		if (idx < 0) return refuse(c->root, "a partition field's source is not a top-level column");
		c->parts[i].name = c->schema->children[idx].name;
		c->parts[i].type = c->schema->children[idx].type;
	}
	c->nparts = (int)n;
	return 0;
}

static int convert_schema(ice_conv *c)
{
	dl_buf b = DL_BUF_INIT;
	dl_json_writer w;
	dl_jw_init(&w, &b);
	int rc = write_struct(&w, c->meta.current_schema, c->root);
	if (rc == 0) rc = dl_jw_finish(&w);
	if (rc == 0) rc = dl_schema_parse(&c->schema, b.data, b.len);
	dl_buf_free(&b);
	return rc;
}

/* Whether n bytes are well-formed UTF-8 (RFC 3629: no overlongs, no
 * surrogates, at most U+10FFFF) without NUL. */
static bool utf8_text(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n;) {
		uint8_t b = p[i];
		size_t len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
		if (b == 0 || len == 0 || i + len > n) return false;
		uint32_t cp = len == 1 ? b : (uint32_t)(b & (0x7f >> len));
		for (size_t k = 1; k < len; k++) {
			if ((p[i + k] & 0xc0) != 0x80) return false;
			cp = (cp << 6) | (p[i + k] & 0x3f);
		}
		static const uint32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
		if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
		i += len;
	}
	return true;
}

/* An Iceberg decimal partition value (Appendix D / the Avro mapping: the
 * unscaled value as big-endian two's complement, in a fixed or bytes). */
static bool unscaled(dl_i128 *out, const uint8_t *p, size_t n)
{
	if (n == 0 || n > 16) return false;
	/* Sign-extended, then byte by byte: every step fits (n <= 16). */
	dl_i128 v = (p[0] & 0x80) ? -1 : 0;
	for (size_t i = 0; i < n; i++) v = v * 256 + p[i];
	*out = v;
	return true;
}

/* A partition tuple value (Avro) as Delta's partitionValues text
 * (PROTOCOL.md "Partition Value Serialization"): decimals as their plain
 * decimal text, binaries as the string of their bytes. A binary value must
 * be UTF-8 text then (Delta readers take the string's UTF-8 bytes, as
 * Spark's cast to binary does), so other bytes are refused, not mangled. */
static int partition_text(const char **out, ice_conv *c, avro_value_t *v, const dl_type *t)
{
	*out = NULL;
	avro_value_t b = *v;
	if (avro_value_get_type(v) == AVRO_UNION && avro_value_get_current_branch(v, &b)) goto bad;
	if (avro_value_get_type(&b) == AVRO_NULL) return 0;
	dl_scalar s;
	memset(&s, 0, sizeof s);
	s.type = t->id;
	int32_t i32;
	int64_t i64;
	int bo;
	double d;
	float f;
	const char *str;
	size_t n;
	switch (avro_value_get_type(&b)) {
	case AVRO_INT32: if (avro_value_get_int(&b, &i32)) goto bad; s.v.i64 = i32; break;
	case AVRO_INT64: if (avro_value_get_long(&b, &i64)) goto bad; s.v.i64 = i64; break;
	case AVRO_BOOLEAN: if (avro_value_get_boolean(&b, &bo)) goto bad; s.v.b = bo; break;
	case AVRO_DOUBLE: if (avro_value_get_double(&b, &d)) goto bad; s.v.f64 = d; break;
	case AVRO_FLOAT: if (avro_value_get_float(&b, &f)) goto bad; s.v.f64 = f; break;
	case AVRO_STRING:
		if (avro_value_get_string(&b, &str, &n)) goto bad;
		s.v.str.ptr = str;
		s.v.str.len = n ? n - 1 : 0;
		break;
	case AVRO_FIXED:
	case AVRO_BYTES: {
		const void *bp;
		if (avro_value_get_type(&b) == AVRO_FIXED ? avro_value_get_fixed(&b, &bp, &n)
		                                          : avro_value_get_bytes(&b, &bp, &n))
			goto bad;
		if (t->id == DL_TYPE_DECIMAL) {
			s.precision = t->precision;
			s.scale = t->scale;
			if (!unscaled(&s.v.dec, bp, n))
				return dl_error_set(DL_ECORRUPT, "Iceberg manifest of %s: a decimal partition value of "
				                    "%zu bytes", c->root, n);
			break;
		}
		if (t->id != DL_TYPE_BINARY) goto other;
		if (n == 0)
			return refuse(c->root, "an empty binary partition value has no Delta serialization "
			                       "(\"\" is null)");
		if (!utf8_text(bp, n))
			return refuse(c->root, "a binary partition value is not UTF-8 text, which Delta's "
			                       "partition value string cannot carry without loss");
		s.v.str.ptr = bp;
		s.v.str.len = n;
		break;
	}
	default:
	other:
		return refuse(c->root, "a partition value has a type this converter does not read");
	}
	dl_buf_clear(&c->tmp);
	bool is_null;
	DL_TRY(dl_partition_value_format(&c->tmp, &s, &is_null));
	if (is_null) return 0;
	*out = dl_arena_strdup(&c->arena, c->tmp.data ? c->tmp.data : "");
	return *out ? 0 : DL_ENOMEM;
bad:
	return dl_ice_avro_error(DL_ECORRUPT, c->root);
}

static int add_entry(const dl_ice_entry *e, avro_value_t *df, void *payload)
{
	ice_conv *c = payload;
	if (e->status == DL_ICE_DELETED) return 0;
	if (e->content != 0) return refuse(c->root, "the current snapshot has merge-on-read delete files");
	if (strcasecmp(e->file_format, "parquet") != 0) {
		char msg[120];
		snprintf(msg, sizeof msg, "data file %.60s is %.10s, not Parquet", e->file_path, e->file_format);
		return refuse(c->root, msg);
	}
	dl_add a;
	memset(&a, 0, sizeof a);
	a.path = dl_arena_strdup(&c->arena, dl_ice_relative(e->file_path, c->meta.location));
	if (!a.path) return DL_ENOMEM;
	if (strncmp(a.path, "file:", 5) == 0 && strstr(a.path, "://") == NULL) a.path += 5;
	dl_kv *pv = c->nparts ? dl_arena_calloc(&c->arena, (size_t)c->nparts, sizeof *pv) : NULL;
	avro_value_t part;
	if (c->nparts && (!pv || avro_value_get_by_name(df, "partition", &part, NULL)))
		return pv ? dl_error_set(DL_ECORRUPT, "Iceberg manifest entry for %s has no partition", e->file_path) : DL_ENOMEM;
	for (int i = 0; i < c->nparts; i++) {
		avro_value_t v;
		size_t count = 0;
		avro_value_get_size(&part, &count);
		if ((size_t)i >= count || avro_value_get_by_index(&part, (size_t)i, &v, NULL))
			return dl_error_set(DL_ECORRUPT, "Iceberg manifest entry for %s: partition tuple too short", e->file_path);
		pv[i].key = c->parts[i].name;
		DL_TRY(partition_text(&pv[i].value, c, &v, c->parts[i].type));
	}
	a.partition_values = (dl_str_map){pv, (uint32_t)c->nparts};
	a.size = e->file_size;
	a.modification_time = dl_now_millis();
	a.data_change = true;
	char stats[48];
	snprintf(stats, sizeof stats, "{\"numRecords\":%" PRId64 "}", e->record_count);
	a.stats = stats;
	a.stats_len = (uint32_t)strlen(stats);
	a.base_row_id = DL_NONE;
	a.default_row_commit_version = DL_NONE;
	c->nfiles++;
	return dl_txn_add_file(c->txn, &a);
}

/* Spark's IcebergTable.properties: every Iceberg table property, then
 * delta.columnMapping.mode = id and delta.logRetentionDuration = the
 * Iceberg history.expire.max-snapshot-age-ms (default 5 days) as
 * "<ms> millisecond", so Delta keeps its history as long as Iceberg kept
 * its snapshots; and our delta.columnMapping.maxColumnId = last-column-id
 * (Spark's column mapping assigns it at commit). */
static int configuration(dl_str_map *out, ice_conv *c, const char *maxid)
{
	const dl_json *p = c->meta.properties;
	size_t n = p ? p->u.obj.n : 0;
	dl_kv *kv = dl_arena_calloc(&c->arena, n + 3, sizeof *kv);
	if (!kv) return DL_ENOMEM;
	uint32_t k = 0;
	int64_t age = 432000000; /* Iceberg's MAX_SNAPSHOT_AGE_MS_DEFAULT */
	for (size_t i = 0; i < n; i++) {
		const dl_json_member *m = &p->u.obj.items[i];
		if (m->value.kind != DL_JSON_STRING) continue;
		char *v = dl_arena_alloc(&c->arena, m->value.u.str.len + 1);
		if (!v) return DL_ENOMEM;
		memcpy(v, m->value.u.str.ptr, m->value.u.str.len);
		v[m->value.u.str.len] = 0;
		if (strcmp(m->key, "history.expire.max-snapshot-age-ms") == 0) {
			/* PropertyUtil.propertyAsLong: a value that is not a long fails */
			char *e;
			long long x = strtoll(v, &e, 10);
			if (!*v || *e) {
				char msg[160];
				snprintf(msg, sizeof msg, "its history.expire.max-snapshot-age-ms '%.60s' is not a number", v);
				return refuse(c->root, msg);
			}
			age = x;
		}
		if (strcmp(m->key, "delta.columnMapping.mode") == 0 || strcmp(m->key, "delta.logRetentionDuration") == 0 ||
		    strcmp(m->key, "delta.columnMapping.maxColumnId") == 0)
			continue; /* set below, as Spark's + overrides them */
		kv[k].key = m->key;
		kv[k++].value = v;
	}
	char ret[48];
	snprintf(ret, sizeof ret, "%" PRId64 " millisecond", age);
	kv[k].key = "delta.columnMapping.mode";
	kv[k++].value = "id";
	kv[k].key = "delta.logRetentionDuration";
	kv[k++].value = dl_arena_strdup(&c->arena, ret);
	kv[k].key = "delta.columnMapping.maxColumnId";
	kv[k++].value = dl_arena_strdup(&c->arena, maxid);
	if (!kv[k - 1].value || !kv[k - 2].value) return DL_ENOMEM;
	*out = (dl_str_map){kv, k};
	return 0;
}

static int commit(ice_conv *c, dl_convert_metrics *m)
{
	dl_ice_manifest_info *list = NULL;
	size_t nlist = 0;
	if (c->meta.current_manifest_list)
		DL_TRY(dl_ice_manifest_list_read(&list, &nlist, c->store,
		                                 dl_ice_relative(c->meta.current_manifest_list, c->meta.location)));
	int rc = 0;
	for (size_t i = 0; i < nlist && rc == 0; i++) {
		if (list[i].content != 0) rc = refuse(c->root, "the current snapshot has merge-on-read delete manifests");
		else if (list[i].spec_id != c->meta.default_spec_id)
			rc = refuse(c->root, "a manifest was written with an earlier partition spec (partition evolution)");
	}
	dl_buf sj = DL_BUF_INIT, pj = DL_BUF_INIT;
	if (rc == 0) rc = dl_schema_to_json(&sj, c->schema);
	dl_metadata md;
	memset(&md, 0, sizeof md);
	char id[DL_UUID_TEXT_LEN + 1], maxid[24];
	if (rc == 0) rc = dl_uuid_v4(id);
	int64_t last_col = 0;
	const dl_json *lc = dl_json_get(c->meta.root, "last-column-id");
	if (lc && dl_json_int64(lc, &last_col) < 0) {
		last_col = 0;
		if (rc == 0) dl_error_clear();
	}
	snprintf(maxid, sizeof maxid, "%" PRId64, last_col);
	dl_str_map conf = {NULL, 0};
	if (rc == 0) rc = configuration(&conf, c, maxid);
	md.id = id;
	md.format_provider = "parquet";
	md.schema_string = sj.data;
	md.created_time = dl_now_millis();
	md.configuration = conf;
	const char **pcols = dl_arena_calloc(&c->arena, (size_t)c->nparts + 1, sizeof *pcols);
	if (!pcols) rc = DL_ENOMEM;
	for (int i = 0; i < c->nparts && pcols; i++) pcols[i] = c->parts[i].name;
	md.partition_columns = pcols;
	md.npartition_columns = (uint32_t)c->nparts;
	dl_protocol proto;
	if (rc == 0) rc = dl_ops_choose_protocol(&proto, &c->arena, c->schema, &md.configuration, NULL);
	dl_txn_options to = DL_TXN_OPTIONS_INIT;
	to.operation = "CONVERT";
	to.user_metadata = c->o.user_metadata;
	if (rc == 0) rc = dl_txn_begin(&c->txn, c->store, NULL, &to);
	if (rc == 0) rc = dl_txn_set_protocol(c->txn, &proto);
	if (rc == 0) rc = dl_txn_set_metadata(c->txn, &md);
	for (size_t i = 0; i < nlist && rc == 0; i++)
		rc = dl_ice_manifest_read(c->store, dl_ice_relative(list[i].path, c->meta.location), add_entry, c);
	char num[32];
	snprintf(num, sizeof num, "%" PRId64, c->nfiles);
	if (rc == 0) rc = dl_txn_set_parameter_json(c->txn, "numFiles", num);
	if (rc == 0) rc = dl_ops_partition_by_json(&pj, pcols, (uint32_t)c->nparts);
	if (rc == 0) rc = dl_txn_set_parameter(c->txn, "partitionedBy", pj.data);
	if (rc == 0) rc = dl_txn_set_parameter_json(c->txn, "collectStats", "false");
	if (rc == 0) rc = dl_txn_set_parameter(c->txn, "sourceFormat", "iceberg");
	if (rc == 0) rc = dl_txn_set_metric(c->txn, "numConvertedFiles", c->nfiles);
	if (rc == 0) rc = dl_txn_commit(c->txn, &m->version);
	if (rc == 0) m->numConvertedFiles = c->nfiles;
	for (size_t i = 0; i < nlist; i++) dl_ice_manifest_info_free(&list[i]);
	dl_free(list);
	dl_buf_free(&sj);
	dl_buf_free(&pj);
	return rc;
}

int dl_convert_iceberg_to_delta(dl_convert_metrics *metrics, const char *uri, const dl_convert_options *opts)
{
	DL_OPTIONS_ENDS_CHECK(ice_convert_ends, DL_CONVERT_OPTIONS_VERSION);
	if (!metrics) return dl_error_set(DL_EINVALID, "dl_convert_iceberg_to_delta: metrics missing");
	metrics->version = -1;
	metrics->numConvertedFiles = 0;
	ice_conv c;
	memset(&c, 0, sizeof c);
	dl_convert_options d = DL_CONVERT_OPTIONS_INIT;
	c.o = d;
	DL_TRY(dl_options_load(&c.o, opts, ice_convert_ends, DL_CONVERT_OPTIONS_VERSION, "dl_convert_options",
	                       "DL_CONVERT_OPTIONS_INIT"));
	if (c.o.partition_schema_ddl && *c.o.partition_schema_ddl)
		return dl_error_set(DL_EINVALID, "CONVERT TO DELTA iceberg: PARTITIONED BY is not allowed (the "
		                                 "Iceberg partition spec is used)");
	c.arena = (dl_arena)DL_ARENA_INIT;
	int rc = dl_maint_store(&c.store, &c.owns_store, c.o.store, c.o.store_options, uri, "CONVERT TO DELTA");
	c.root = rc == 0 ? dl_store_root(c.store) : uri;
	dl_snapshot *existing = NULL;
	if (rc == 0) rc = dl_ops_open_latest(&existing, c.store);
	if (rc == 0 && !existing) {
		rc = dl_ice_metadata_load_latest(&c.meta, &c.arena, c.store);
		if (rc == DL_ENOTFOUND)
			rc = dl_error_set(DL_ENOTFOUND,
			                  "CONVERT TO DELTA iceberg.`%s`: no Iceberg metadata "
			                  "(metadata/v<N>.metadata.json) under it", c.root);
		/* Spark's IcebergTable.checkConvertible: a table whose files are
		 * read through a name mapping (imported without field ids) is
		 * refused, UniForm tables included (Delta writes one). */
		if (rc == 0 && c.meta.properties && dl_json_get(c.meta.properties, "schema.name-mapping.default"))
			rc = refuse(c.root, "Cannot convert Iceberg tables with column name mapping "
			                    "(schema.name-mapping.default is set)");
		if (rc == 0) rc = convert_schema(&c);
		if (rc == 0) rc = partition_spec(&c);
		if (rc == 0) rc = commit(&c, metrics);
	}
	dl_snapshot_free(existing);
	if (rc < 0) {
		metrics->version = -1;
		metrics->numConvertedFiles = 0;
	}
	dl_txn_free(c.txn);
	dl_type_unref(c.schema);
	dl_buf_free(&c.tmp);
	dl_arena_free(&c.arena);
	if (c.owns_store) dl_store_free(c.store);
	return rc;
}
