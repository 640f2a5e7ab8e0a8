/* Iceberg table properties of a UniForm table, as Spark's delta-iceberg
 * module writes them.
 *
 * Pass-through (DeltaToIcebergConvert.TableProperties): every Delta table
 * property starting with delta.universalformat.config.iceberg. is copied
 * with the prefix stripped. Computed on top of those: the Iceberg
 * format-version of the enabled IcebergCompat (2), which is one of
 * Iceberg's reserved properties (TableProperties.RESERVED_PROPERTIES:
 * format-version, uuid, snapshot-count, current-snapshot-id,
 * current-snapshot-summary, current-snapshot-timestamp-ms, current-schema,
 * default-partition-spec, default-sort-order), which Iceberg's
 * TableMetadata never persists in "properties", so neither it nor a
 * pass-through of a reserved key appears there; and
 * history.expire.max-snapshot-age-ms = the smaller of
 * delta.logRetentionDuration and delta.deletedFileRetentionDuration when
 * either is set and below Iceberg's default of 5 days (it overrides a
 * pass-through value). A pass-through max-snapshot-age-ms larger than the
 * smaller of those retentions (defaults 30 days and 1 week) fails the
 * conversion with Spark's IllegalArgumentException message.
 *
 * Changes (IcebergConversionTransaction.updateTableMetadata with
 * detectPropertiesChange): the keys the previous Delta configuration
 * produced and the new one does not are removed, the new ones set; other
 * Iceberg properties stay. Every conversion then sets
 * converted_delta_version, converted_delta_timestamp and
 * schema.name-mapping.default (IcebergConversionTransaction.commit:
 * NameMappingParser.toJson(MappingUtil.create(icebergSchema))). */
#include "uniform/iceberg_properties.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "log/properties.h"
#include "util/error.h"

#define MAX_AGE_KEY "history.expire.max-snapshot-age-ms"
#define MAX_AGE_DEFAULT_MS (5LL * 24 * 60 * 60 * 1000)
#define LOG_RETENTION_KEY "delta.logRetentionDuration"
#define TOMBSTONE_RETENTION_KEY "delta.deletedFileRetentionDuration"

static const char *const reserved[] = {
	"format-version",      "uuid",           "snapshot-count",         "current-snapshot-id",
	"current-snapshot-summary", "current-snapshot-timestamp-ms", "current-schema",
	"default-partition-spec", "default-sort-order",
};

static bool is_reserved(const char *k)
{
	for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
		if (strcmp(reserved[i], k) == 0) return true;
	return false;
}

/* An ordered, growable key -> value list in the arena. */
typedef struct plist {
	dl_arena *a;
	dl_kv *items;
	uint32_t n, cap;
} plist;

static int put(plist *l, const char *k, const char *v)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (strcmp(l->items[i].key, k) == 0) {
			l->items[i].value = v;
			return 0;
		}
	if (l->n == l->cap) {
		uint32_t cap = l->cap ? l->cap * 2 : 16;
		dl_kv *g = dl_arena_calloc(l->a, cap, sizeof *g);
		if (!g) return DL_ENOMEM;
		if (l->n) memcpy(g, l->items, l->n * sizeof *g);
		l->items = g;
		l->cap = cap;
	}
	l->items[l->n].key = k;
	l->items[l->n++].value = v;
	return 0;
}

static void del(plist *l, const char *k)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (strcmp(l->items[i].key, k) == 0) {
			memmove(&l->items[i], &l->items[i + 1], (l->n - i - 1) * sizeof *l->items);
			l->n--;
			return;
		}
}

static int retention_ms(const dl_str_map *conf, const char *key, int64_t *out, bool *set)
{
	bool found;
	const char *v = dl_str_map_get(conf, key, &found);
	*set = found && v;
	if (!*set) return 0;
	if (dl_parse_interval_ms(v, out) < 0)
		return dl_error_prefix("Iceberg properties from Delta property %s", key);
	return 0;
}

int dl_ice_properties_from_delta(dl_str_map *out, dl_arena *arena, const dl_str_map *conf)
{
	plist l = {arena, NULL, 0, 0};
	size_t plen = strlen(DL_UNIFORM_ICEBERG_CONFIG_PREFIX);
	for (uint32_t i = 0; conf && i < conf->n; i++) {
		const char *k = conf->items[i].key;
		if (strncmp(k, DL_UNIFORM_ICEBERG_CONFIG_PREFIX, plen) != 0 || !conf->items[i].value) continue;
		if (!is_reserved(k + plen)) DL_TRY(put(&l, k + plen, conf->items[i].value));
	}
	/* RetentionPeriodComputer */
	int64_t log_ms = 0, tomb_ms = 0;
	bool log_set, tomb_set;
	DL_TRY(retention_ms(conf, LOG_RETENTION_KEY, &log_ms, &log_set));
	DL_TRY(retention_ms(conf, TOMBSTONE_RETENTION_KEY, &tomb_ms, &tomb_set));
	int64_t allowed = (log_set ? log_ms : 30LL * 86400000) < (tomb_set ? tomb_ms : 7LL * 86400000)
	                          ? (log_set ? log_ms : 30LL * 86400000)
	                          : (tomb_set ? tomb_ms : 7LL * 86400000);
	bool found;
	const char *provided = NULL;
	for (uint32_t i = 0; i < l.n; i++)
		if (strcmp(l.items[i].key, MAX_AGE_KEY) == 0) provided = l.items[i].value;
	if (!provided) provided = dl_str_map_get(conf, MAX_AGE_KEY, &found);
	if (provided) {
		char *e;
		errno = 0;
		long long p = strtoll(provided, &e, 10);
		if (!*provided || *e || errno)
			return dl_error_set(DL_EINVALID, "For input string: \"%s\" (%s)", provided, MAX_AGE_KEY);
		if (p > allowed)
			return dl_error_set(DL_EINVALID,
			                    "Uniform iceberg's %s should be no less than the min of delta's %s "
			                    "and %s. Current delta retention min in MS: %" PRId64
			                    ". Proposed iceberg retention in Ms: %s",
			                    MAX_AGE_KEY, LOG_RETENTION_KEY, TOMBSTONE_RETENTION_KEY, allowed, provided);
	}
	if (log_set || tomb_set) {
		int64_t r = log_set && tomb_set ? (log_ms < tomb_ms ? log_ms : tomb_ms) : log_set ? log_ms : tomb_ms;
		if (r < MAX_AGE_DEFAULT_MS) {
			char num[24];
			snprintf(num, sizeof num, "%" PRId64, r);
			char *v = dl_arena_strdup(arena, num);
			if (!v) return DL_ENOMEM;
			DL_TRY(put(&l, MAX_AGE_KEY, v));
		}
	}
	*out = (dl_str_map){l.items, l.n};
	return 0;
}

static int mapped_fields(dl_json_writer *w, const dl_json *type);

/* The nested mapping of a field of type `t`: none for a primitive. */
static int nested(dl_json_writer *w, const dl_json *t)
{
	if (!t || t->kind != DL_JSON_OBJECT) return 0;
	dl_jw_key(w, "fields");
	return mapped_fields(w, t);
}

static int one(dl_json_writer *w, const dl_json *id, const char *name, const dl_json *t)
{
	int64_t x;
	if (!id || dl_json_int64(id, &x) < 0)
		return dl_error_set(DL_ECORRUPT, "Iceberg schema: a field without an integer id");
	dl_jw_object_begin(w);
	dl_jw_key(w, "field-id");
	dl_jw_int(w, x);
	dl_jw_key(w, "names");
	dl_jw_array_begin(w);
	dl_jw_string(w, name);
	dl_jw_array_end(w);
	DL_TRY(nested(w, t));
	dl_jw_object_end(w);
	return 0;
}

/* MappingUtil's visitor: a struct's fields by their names, a list's element
 * as "element", a map's key and value as "key" and "value". */
static int mapped_fields(dl_json_writer *w, const dl_json *type)
{
	const char *kind = dl_json_get_str(type, "type");
	dl_jw_array_begin(w);
	if (kind && strcmp(kind, "struct") == 0) {
		const dl_json *fs = dl_json_get(type, "fields");
		for (size_t i = 0; fs && fs->kind == DL_JSON_ARRAY && i < fs->u.arr.n; i++) {
			const dl_json *f = &fs->u.arr.items[i];
			const char *name = dl_json_get_str(f, "name");
			if (!name) return dl_error_set(DL_ECORRUPT, "Iceberg schema: a field without a name");
			DL_TRY(one(w, dl_json_get(f, "id"), name, dl_json_get(f, "type")));
		}
	} else if (kind && strcmp(kind, "list") == 0) {
		DL_TRY(one(w, dl_json_get(type, "element-id"), "element", dl_json_get(type, "element")));
	} else if (kind && strcmp(kind, "map") == 0) {
		DL_TRY(one(w, dl_json_get(type, "key-id"), "key", dl_json_get(type, "key")));
		DL_TRY(one(w, dl_json_get(type, "value-id"), "value", dl_json_get(type, "value")));
	}
	dl_jw_array_end(w);
	return 0;
}

int dl_ice_name_mapping(dl_buf *out, const char *schema_json)
{
	dl_arena a = DL_ARENA_INIT;
	dl_json *s = NULL;
	int rc = dl_json_parse(&a, schema_json, strlen(schema_json), "Iceberg schema", &s);
	dl_json_writer w;
	dl_jw_init(&w, out);
	if (rc == 0) rc = mapped_fields(&w, s);
	int frc = dl_jw_finish(&w);
	dl_arena_free(&a);
	return rc < 0 ? rc : frc;
}

static char *num_text(dl_arena *a, int64_t v)
{
	char num[24];
	snprintf(num, sizeof num, "%" PRId64, v);
	return dl_arena_strdup(a, num);
}

int dl_ice_properties_build(dl_str_map *out, dl_arena *arena, const dl_ice_properties_in *in)
{
	plist l = {arena, NULL, 0, 0};
	const dl_json *pp = in->prev ? in->prev->properties : NULL;
	for (size_t i = 0; pp && i < pp->u.obj.n; i++) {
		const dl_json_member *m = &pp->u.obj.items[i];
		if (m->value.kind != DL_JSON_STRING) continue;
		char *v = dl_arena_alloc(arena, m->value.u.str.len + 1);
		if (!v) return DL_ENOMEM;
		memcpy(v, m->value.u.str.ptr, m->value.u.str.len);
		v[m->value.u.str.len] = 0;
		DL_TRY(put(&l, m->key, v));
	}
	/* Iceberg's writer default, on a new table only */
	if (!in->prev) DL_TRY(put(&l, "write.format.default", "parquet"));
	dl_str_map now, before = {NULL, 0};
	DL_TRY(dl_ice_properties_from_delta(&now, arena, in->conf));
	if (in->prev_conf) {
		/* the earlier configuration was accepted then; a value it can no
		 * longer justify does not stop the removal of its keys */
		if (dl_ice_properties_from_delta(&before, arena, in->prev_conf) < 0) dl_error_clear();
		for (uint32_t i = 0; i < before.n; i++) {
			bool found;
			dl_str_map_get(&now, before.items[i].key, &found);
			if (!found) del(&l, before.items[i].key);
		}
	}
	for (uint32_t i = 0; i < now.n; i++) DL_TRY(put(&l, now.items[i].key, now.items[i].value));
	char *ver = num_text(arena, in->delta_version), *ts = num_text(arena, in->delta_timestamp_ms);
	if (!ver || !ts) return DL_ENOMEM;
	DL_TRY(put(&l, "converted_delta_version", ver));
	DL_TRY(put(&l, "converted_delta_timestamp", ts));
	dl_buf nm = DL_BUF_INIT;
	int rc = dl_ice_name_mapping(&nm, in->schema_json);
	char *nmv = rc == 0 ? dl_arena_strdup(arena, nm.data) : NULL;
	dl_buf_free(&nm);
	DL_TRY(rc);
	if (!nmv) return DL_ENOMEM;
	DL_TRY(put(&l, "schema.name-mapping.default", nmv));
	*out = (dl_str_map){l.items, l.n};
	return 0;
}
