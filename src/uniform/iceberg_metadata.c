/* Iceberg table metadata JSON, format v2 (table spec "Table Metadata" and
 * Appendix C), one new version per UniForm conversion: the previous
 * version's schemas, snapshots, snapshot-log and metadata-log are kept and
 * the new snapshot appended, as an Iceberg commit does; the current schema
 * is added as a new schema-id only when it changed. The properties are
 * computed by iceberg_properties.c (converted_delta_version,
 * converted_delta_timestamp, schema.name-mapping.default and the
 * delta.universalFormat.config.iceberg.* pass-through). Snapshots an expiry drops
 * (iceberg_expire.c) are left out, with the snapshot-log before them. */
#include "uniform/iceberg_metadata.h"

#include <stdio.h>
#include <string.h>

#include "util/error.h"

/* The schema's fields as JSON, to compare with an earlier schema. */
static int fields_json(dl_buf *out, const dl_json *fields)
{
	return dl_json_write(out, fields);
}

static int raw(dl_json_writer *w, const dl_json *v)
{
	dl_buf b = DL_BUF_INIT;
	int rc = dl_json_write(&b, v);
	if (rc == 0) dl_jw_raw(w, b.data);
	dl_buf_free(&b);
	return rc;
}

static void kv_long(dl_json_writer *w, const char *k, int64_t v)
{
	char num[24];
	snprintf(num, sizeof num, "%lld", (long long)v);
	dl_jw_key(w, k);
	dl_jw_string(w, num);
}

/* Writes "schemas" and returns the current schema id. */
static int write_schemas(dl_json_writer *w, const dl_ice_new_version *v, int32_t *current)
{
	const dl_ice_metadata *p = v->fresh ? NULL : v->prev;
	dl_buf mine = DL_BUF_INIT, cur = DL_BUF_INIT, tmp = DL_BUF_INIT;
	dl_json_writer sw;
	dl_jw_init(&sw, &tmp);
	dl_ice_write_schema(&sw, v->schema, 0);
	int rc = dl_jw_finish(&sw);
	/* compare the fields only (schema-id differs) */
	dl_arena a = DL_ARENA_INIT;
	dl_json *parsed = NULL;
	if (rc == 0) rc = dl_json_parse(&a, tmp.data, tmp.len, "Iceberg schema", &parsed);
	if (rc == 0) rc = fields_json(&mine, dl_json_get(parsed, "fields"));
	int32_t max_id = -1;
	*current = 0;
	bool same = false;
	if (rc == 0 && p) {
		rc = fields_json(&cur, dl_json_get(p->current_schema, "fields"));
		same = rc == 0 && strcmp(cur.data, mine.data) == 0;
		for (size_t i = 0; p->schemas && i < p->schemas->u.arr.n; i++) {
			int64_t id = 0;
			const dl_json *x = dl_json_get(&p->schemas->u.arr.items[i], "schema-id");
			if (x && dl_json_int64(x, &id) == 0 && id > max_id) max_id = (int32_t)id;
			dl_error_clear();
		}
	}
	dl_jw_key(w, "schemas");
	dl_jw_array_begin(w);
	if (rc == 0 && p && p->schemas)
		for (size_t i = 0; rc == 0 && i < p->schemas->u.arr.n; i++)
			rc = raw(w, &p->schemas->u.arr.items[i]);
	if (rc == 0 && same) {
		*current = p->current_schema_id;
	} else if (rc == 0) {
		*current = max_id + 1;
		dl_ice_write_schema(w, v->schema, *current);
	}
	dl_jw_array_end(w);
	dl_buf_free(&mine);
	dl_buf_free(&cur);
	dl_buf_free(&tmp);
	dl_arena_free(&a);
	return rc;
}

static void write_snapshot(dl_json_writer *w, const dl_ice_new_version *v, int64_t parent,
                           int32_t schema_id)
{
	dl_jw_object_begin(w);
	dl_jw_key(w, "snapshot-id");
	dl_jw_int(w, v->snapshot_id);
	if (parent >= 0) {
		dl_jw_key(w, "parent-snapshot-id");
		dl_jw_int(w, parent);
	}
	dl_jw_key(w, "sequence-number");
	dl_jw_int(w, v->sequence_number);
	dl_jw_key(w, "timestamp-ms");
	dl_jw_int(w, v->timestamp_ms);
	dl_jw_key(w, "summary");
	dl_jw_object_begin(w);
	dl_jw_key(w, "operation");
	dl_jw_string(w, v->operation);
	kv_long(w, "added-data-files", v->added_files);
	kv_long(w, "deleted-data-files", v->deleted_files);
	kv_long(w, "added-records", v->added_records);
	kv_long(w, "deleted-records", v->deleted_records);
	kv_long(w, "total-data-files", v->total_files);
	kv_long(w, "total-records", v->total_records);
	kv_long(w, "total-delete-files", 0);
	kv_long(w, "total-position-deletes", 0);
	kv_long(w, "total-equality-deletes", 0);
	dl_jw_object_end(w);
	dl_jw_key(w, "manifest-list");
	dl_jw_string(w, v->manifest_list);
	dl_jw_key(w, "schema-id");
	dl_jw_int(w, schema_id);
	dl_jw_object_end(w);
}

static int64_t snapshot_id_of(const dl_json *o)
{
	const dl_json *x = dl_json_get(o, "snapshot-id");
	int64_t id = -1;
	if (!x || dl_json_int64(x, &id) < 0) {
		dl_error_clear();
		return -1;
	}
	return id;
}

static bool snapshot_listed(const dl_ice_metadata *p, int64_t id)
{
	for (size_t i = 0; p->snapshots && i < p->snapshots->u.arr.n; i++)
		if (snapshot_id_of(&p->snapshots->u.arr.items[i]) == id) return true;
	return false;
}

int dl_ice_metadata_write(dl_buf *out, const dl_ice_new_version *v)
{
	const dl_ice_metadata *p = v->fresh ? NULL : v->prev;
	int64_t parent = p ? p->current_snapshot_id : -1;
	dl_json_writer w;
	dl_jw_init(&w, out);
	dl_jw_object_begin(&w);
	dl_jw_key(&w, "format-version");
	dl_jw_int(&w, 2);
	dl_jw_key(&w, "table-uuid");
	dl_jw_string(&w, v->prev ? v->prev->table_uuid : v->table_uuid);
	dl_jw_key(&w, "location");
	dl_jw_string(&w, v->location);
	dl_jw_key(&w, "last-sequence-number");
	dl_jw_int(&w, v->sequence_number);
	dl_jw_key(&w, "last-updated-ms");
	dl_jw_int(&w, v->timestamp_ms);
	dl_jw_key(&w, "last-column-id");
	dl_jw_int(&w, v->ice->last_column_id);
	int32_t schema_id;
	DL_TRY(write_schemas(&w, v, &schema_id));
	dl_jw_key(&w, "current-schema-id");
	dl_jw_int(&w, schema_id);
	dl_jw_key(&w, "partition-specs");
	dl_jw_array_begin(&w);
	dl_ice_write_spec(&w, v->ice, false);
	dl_jw_array_end(&w);
	dl_jw_key(&w, "default-spec-id");
	dl_jw_int(&w, 0);
	dl_jw_key(&w, "last-partition-id");
	dl_jw_int(&w, 999 + v->ice->nparts);
	dl_jw_key(&w, "properties");
	dl_jw_object_begin(&w);
	for (uint32_t i = 0; i < v->properties->n; i++) {
		dl_jw_key(&w, v->properties->items[i].key);
		dl_jw_string(&w, v->properties->items[i].value);
	}
	dl_jw_object_end(&w);
	dl_jw_key(&w, "current-snapshot-id");
	dl_jw_int(&w, v->snapshot_id);
	dl_jw_key(&w, "refs");
	dl_jw_object_begin(&w);
	dl_jw_key(&w, "main");
	dl_jw_object_begin(&w);
	dl_jw_key(&w, "snapshot-id");
	dl_jw_int(&w, v->snapshot_id);
	dl_jw_key(&w, "type");
	dl_jw_string(&w, "branch");
	dl_jw_object_end(&w);
	dl_jw_object_end(&w);
	dl_jw_key(&w, "snapshots");
	dl_jw_array_begin(&w);
	for (size_t i = 0; p && p->snapshots && i < p->snapshots->u.arr.n; i++)
		if (!dl_ice_expiry_has(v->expired, snapshot_id_of(&p->snapshots->u.arr.items[i])))
			DL_TRY(raw(&w, &p->snapshots->u.arr.items[i]));
	write_snapshot(&w, v, parent, schema_id);
	dl_jw_array_end(&w);
	dl_jw_key(&w, "snapshot-log");
	dl_jw_array_begin(&w);
	/* Iceberg's updateSnapshotLog: an entry naming a snapshot that is gone
	 * drops the history before it (no gaps in time travel). */
	size_t log_from = 0;
	for (size_t i = 0; p && p->snapshot_log && v->expired && i < p->snapshot_log->u.arr.n; i++) {
		int64_t id = snapshot_id_of(&p->snapshot_log->u.arr.items[i]);
		if (dl_ice_expiry_has(v->expired, id) || !snapshot_listed(p, id)) log_from = i + 1;
	}
	for (size_t i = log_from; p && p->snapshot_log && i < p->snapshot_log->u.arr.n; i++)
		DL_TRY(raw(&w, &p->snapshot_log->u.arr.items[i]));
	dl_jw_object_begin(&w);
	dl_jw_key(&w, "timestamp-ms");
	dl_jw_int(&w, v->timestamp_ms);
	dl_jw_key(&w, "snapshot-id");
	dl_jw_int(&w, v->snapshot_id);
	dl_jw_object_end(&w);
	dl_jw_array_end(&w);
	dl_jw_key(&w, "metadata-log");
	dl_jw_array_begin(&w);
	for (size_t i = 0; v->prev && v->prev->metadata_log && i < v->prev->metadata_log->u.arr.n; i++)
		DL_TRY(raw(&w, &v->prev->metadata_log->u.arr.items[i]));
	if (v->prev && v->prev_metadata_file) {
		dl_jw_object_begin(&w);
		dl_jw_key(&w, "timestamp-ms");
		dl_jw_int(&w, v->prev->last_updated_ms);
		dl_jw_key(&w, "metadata-file");
		dl_jw_string(&w, v->prev_metadata_file);
		dl_jw_object_end(&w);
	}
	dl_jw_array_end(&w);
	dl_jw_key(&w, "default-sort-order-id");
	dl_jw_int(&w, 0);
	dl_jw_key(&w, "sort-orders");
	dl_jw_raw(&w, "[{\"order-id\":0,\"fields\":[]}]");
	dl_jw_object_end(&w);
	return dl_jw_finish(&w);
}
