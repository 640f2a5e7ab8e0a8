/* Delta schema to Iceberg schema (Iceberg table spec, "Schemas and Data
 * Types" and Appendix C "JSON serialization"), the way Spark's
 * delta-iceberg module converts it (IcebergSchemaUtils): field ids are the
 * column mapping ids (delta.columnMapping.id), names the logical names,
 * `required` is not nullable. Types: byte, short and integer are int;
 * timestamp is timestamptz, timestamp_ntz is timestamp; decimal(p, s);
 * string, binary, boolean, long, float, double, date as themselves.
 * Arrays are lists and maps maps, with the element/key/value ids from
 * delta.columnMapping.nested.ids (iceberg_nested_ids.c). VOID, variant and
 * geospatial columns are refused (Spark's
 * IcebergCompatV2 CheckTypeInV2AllowList).
 *
 * The partition spec has one identity field per Delta partition column,
 * field ids from 1000 (the spec's convention for partition fields). The
 * manifest Avro schema carries the partition struct r102 built from it. */
#include "uniform/iceberg_schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log/properties.h"
#include "log/schema.h"
#include "uniform/iceberg_nested_ids.h"
#include "util/error.h"

static int unsupported(const dl_type *t, const char *col, int version)
{
	char name[128];
	dl_type_name(t, name, sizeof name);
	return dl_error_set_class(DL_EUNSUPPORTED, "DELTA_ICEBERG_COMPAT_VIOLATION.UNSUPPORTED_DATA_TYPE",
	                          "IcebergCompatV%d does not support the data type %s in your schema "
	                          "(column %s).",
	                          version, name, col);
}

static int check_type(const dl_type *t, const char *col, int version)
{
	switch (t->id) {
	case DL_TYPE_NULL:
	case DL_TYPE_VARIANT: return unsupported(t, col, version);
	case DL_TYPE_BINARY: return t->geo ? unsupported(t, col, version) : 0;
	case DL_TYPE_STRUCT:
		for (int i = 0; i < t->nchildren; i++)
			DL_TRY(check_type(t->children[i].type, t->children[i].name, version));
		return 0;
	case DL_TYPE_ARRAY:
	case DL_TYPE_MAP:
		for (int i = 0; i < t->nchildren; i++) DL_TRY(check_type(t->children[i].type, col, version));
		return 0;
	default: return 0;
	}
}

int dl_ice_check_types(const dl_type *schema, int compat_version)
{
	return check_type(schema, "<root>", compat_version);
}

static void primitive_name(const dl_type *t, char *out, size_t cap)
{
	const char *n = "string";
	switch (t->id) {
	case DL_TYPE_BOOLEAN: n = "boolean"; break;
	case DL_TYPE_BYTE:
	case DL_TYPE_SHORT:
	case DL_TYPE_INTEGER: n = "int"; break;
	case DL_TYPE_LONG: n = "long"; break;
	case DL_TYPE_FLOAT: n = "float"; break;
	case DL_TYPE_DOUBLE: n = "double"; break;
	case DL_TYPE_DATE: n = "date"; break;
	case DL_TYPE_TIMESTAMP: n = "timestamptz"; break;
	case DL_TYPE_TIMESTAMP_NTZ: n = "timestamp"; break;
	case DL_TYPE_BINARY: n = "binary"; break;
	case DL_TYPE_DECIMAL: snprintf(out, cap, "decimal(%d, %d)", t->precision, t->scale); return;
	default: break;
	}
	snprintf(out, cap, "%s", n);
}

static void write_type(dl_json_writer *w, const dl_type *t, const dl_json *ids, const char *path);

static void write_fields(dl_json_writer *w, const dl_type *st)
{
	dl_jw_key(w, "fields");
	dl_jw_array_begin(w);
	for (int i = 0; i < st->nchildren; i++) {
		const dl_field *f = &st->children[i];
		int32_t id = 0;
		if (dl_field_column_id(f, &id) < 0) dl_error_clear(); /* checked in build */
		dl_jw_object_begin(w);
		dl_jw_key(w, "id");
		dl_jw_int(w, id);
		dl_jw_key(w, "name");
		dl_jw_string(w, f->name);
		dl_jw_key(w, "required");
		dl_jw_bool(w, !f->nullable);
		dl_jw_key(w, "type");
		/* Lists and maps below take their ids from this field's nested ids. */
		dl_arena a = DL_ARENA_INIT;
		const dl_json *ids = NULL;
		const char *phys = f->name;
		if (dl_ice_nested_ids_of(f, &a, &ids) < 0 || dl_field_physical_name(f, DL_CM_NAME, &a, &phys) < 0)
			dl_error_clear(); /* checked in build */
		write_type(w, f->type, ids, phys);
		dl_arena_free(&a);
		dl_jw_object_end(w);
	}
	dl_jw_array_end(w);
}

/* One element/key/value of a list or map: "<slot>-id", the type and, for
 * element and value, "<slot>-required". */
static void write_slot(dl_json_writer *w, const dl_type *t, bool nullable, const dl_json *ids,
                       const char *path, const char *slot, bool has_required)
{
	char sub[1024], key[32];
	int32_t id = 0;
	snprintf(sub, sizeof sub, "%s.%s", path, slot);
	dl_ice_nested_id(ids, sub, &id); /* every one was checked in build */
	snprintf(key, sizeof key, "%s-id", slot);
	dl_jw_key(w, key);
	dl_jw_int(w, id);
	if (has_required) {
		snprintf(key, sizeof key, "%s-required", slot);
		dl_jw_key(w, key);
		dl_jw_bool(w, !nullable);
	}
	dl_jw_key(w, slot);
	write_type(w, t, ids, sub);
}

static void write_type(dl_json_writer *w, const dl_type *t, const dl_json *ids, const char *path)
{
	if (t->id == DL_TYPE_STRUCT) {
		dl_jw_object_begin(w);
		dl_jw_key(w, "type");
		dl_jw_string(w, "struct");
		write_fields(w, t);
		dl_jw_object_end(w);
		return;
	}
	if (t->id == DL_TYPE_ARRAY) {
		dl_jw_object_begin(w);
		dl_jw_key(w, "type");
		dl_jw_string(w, "list");
		write_slot(w, t->children[0].type, t->children[0].nullable, ids, path, "element", true);
		dl_jw_object_end(w);
		return;
	}
	if (t->id == DL_TYPE_MAP) {
		dl_jw_object_begin(w);
		dl_jw_key(w, "type");
		dl_jw_string(w, "map");
		write_slot(w, t->children[0].type, false, ids, path, "key", false);
		write_slot(w, t->children[1].type, t->children[1].nullable, ids, path, "value", true);
		dl_jw_object_end(w);
		return;
	}
	char name[64];
	primitive_name(t, name, sizeof name);
	dl_jw_string(w, name);
}

void dl_ice_write_schema(dl_json_writer *w, const dl_type *schema, int schema_id)
{
	dl_jw_object_begin(w);
	dl_jw_key(w, "type");
	dl_jw_string(w, "struct");
	dl_jw_key(w, "schema-id");
	dl_jw_int(w, schema_id);
	write_fields(w, schema);
	dl_jw_object_end(w);
}

void dl_ice_write_spec(dl_json_writer *w, const dl_ice_table_schema *s, bool fields_only)
{
	if (!fields_only) {
		dl_jw_object_begin(w);
		dl_jw_key(w, "spec-id");
		dl_jw_int(w, 0);
		dl_jw_key(w, "fields");
	}
	dl_jw_array_begin(w);
	for (int i = 0; i < s->nparts; i++) {
		dl_jw_object_begin(w);
		dl_jw_key(w, "name");
		dl_jw_string(w, s->parts[i].name);
		dl_jw_key(w, "transform");
		dl_jw_string(w, "identity");
		dl_jw_key(w, "source-id");
		dl_jw_int(w, s->parts[i].source_id);
		dl_jw_key(w, "field-id");
		dl_jw_int(w, s->parts[i].field_id);
		dl_jw_object_end(w);
	}
	dl_jw_array_end(w);
	if (!fields_only) dl_jw_object_end(w);
}

/* Iceberg's AvroSchemaUtil.makeCompatibleName: a leading digit becomes
 * "_<digit>", any other character outside [A-Za-z0-9_] "_x<HEX>". */
static char *avro_name(dl_arena *a, const char *name)
{
	dl_buf b = DL_BUF_INIT;
	int rc = 0;
	for (size_t i = 0; name[i] && rc == 0; i++) {
		unsigned char c = (unsigned char)name[i];
		bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
		bool digit = c >= '0' && c <= '9';
		if (letter || (digit && i > 0)) rc = dl_buf_putc(&b, (char)c);
		else if (digit) rc = dl_buf_printf(&b, "_%c", c);
		else rc = dl_buf_printf(&b, "_x%X", c);
	}
	char *out = rc == 0 ? dl_arena_strdup(a, b.data ? b.data : "_") : NULL;
	dl_buf_free(&b);
	return out;
}

static bool partition_type_ok(const dl_type *t)
{
	switch (t->id) {
	case DL_TYPE_BOOLEAN:
	case DL_TYPE_BYTE:
	case DL_TYPE_SHORT:
	case DL_TYPE_INTEGER:
	case DL_TYPE_LONG:
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE:
	case DL_TYPE_STRING:
	case DL_TYPE_DATE:
	case DL_TYPE_TIMESTAMP:
	case DL_TYPE_TIMESTAMP_NTZ: return true;
	default: return false;
	}
}

int dl_ice_schema_build(dl_ice_table_schema *out, dl_arena *arena, const dl_type *schema,
                        const dl_metadata *md)
{
	memset(out, 0, sizeof *out);
	DL_TRY(dl_ice_check_types(schema, 2));
	DL_TRY(dl_ice_check_nested_ids(schema));
	out->cols = dl_arena_calloc(arena, (size_t)schema->nchildren + 1, sizeof *out->cols);
	out->parts = dl_arena_calloc(arena, (size_t)md->npartition_columns + 1, sizeof *out->parts);
	if (!out->cols || !out->parts) return DL_ENOMEM;
	for (int i = 0; i < schema->nchildren; i++) {
		const dl_field *f = &schema->children[i];
		dl_ice_column *c = &out->cols[i];
		c->name = f->name;
		c->type = f->type;
		c->nullable = f->nullable;
		if (dl_field_column_id(f, &c->id) < 0) {
			dl_error_clear();
			return dl_error_set_class(DL_EUNSUPPORTED,
			                          "DELTA_ICEBERG_COMPAT_VIOLATION.WRONG_REQUIRED_TABLE_PROPERTY",
			                          "Iceberg metadata needs column mapping: column %s has no "
			                          "delta.columnMapping.id (set delta.columnMapping.mode = 'name')",
			                          f->name);
		}
		DL_TRY(dl_field_physical_name(f, DL_CM_NAME, arena, &c->physical));
	}
	out->ncols = schema->nchildren;
	/* last-column-id covers nested struct fields too. */
	bool found = false;
	const char *max = dl_str_map_get(&md->configuration, "delta.columnMapping.maxColumnId", &found);
	out->last_column_id = max ? (int32_t)strtol(max, NULL, 10) : 0;
	for (int i = 0; i < out->ncols; i++)
		if (out->cols[i].id > out->last_column_id) out->last_column_id = out->cols[i].id;
	for (uint32_t i = 0; i < md->npartition_columns; i++) {
		int k = dl_type_field_index(schema, md->partition_columns[i]);
		if (k < 0)
			return dl_error_set(DL_ECORRUPT, "partition column %s is not in the schema",
			                    md->partition_columns[i]);
		dl_ice_part_field *p = &out->parts[i];
		p->name = schema->children[k].name;
		p->type = schema->children[k].type;
		p->physical = out->cols[k].physical;
		p->source_id = out->cols[k].id;
		p->field_id = 1000 + (int32_t)i;
		if (!partition_type_ok(p->type)) {
			char tn[64];
			dl_type_name(p->type, tn, sizeof tn);
			return dl_error_set_class(DL_EUNSUPPORTED,
			                          "DELTA_ICEBERG_COMPAT_VIOLATION.UNSUPPORTED_PARTITION_DATA_TYPE",
			                          "IcebergCompatV2 here does not support the data type %s of "
			                          "partition column %s (Iceberg metadata is written for boolean, "
			                          "integral, floating, string, date and timestamp partitions).",
			                          tn, p->name);
		}
		p->avro_name = avro_name(arena, p->name);
		if (!p->avro_name) return DL_ENOMEM;
	}
	out->nparts = (int)md->npartition_columns;
	return 0;
}

/* The Avro type of a partition value (Iceberg's Avro type mapping). */
static void avro_partition_type(dl_json_writer *w, const dl_type *t)
{
	const char *prim = NULL, *logical = NULL;
	int utc = -1;
	switch (t->id) {
	case DL_TYPE_BOOLEAN: prim = "boolean"; break;
	case DL_TYPE_BYTE:
	case DL_TYPE_SHORT:
	case DL_TYPE_INTEGER: prim = "int"; break;
	case DL_TYPE_LONG: prim = "long"; break;
	case DL_TYPE_FLOAT: prim = "float"; break;
	case DL_TYPE_DOUBLE: prim = "double"; break;
	case DL_TYPE_STRING: prim = "string"; break;
	case DL_TYPE_DATE: prim = "int"; logical = "date"; break;
	case DL_TYPE_TIMESTAMP: prim = "long"; logical = "timestamp-micros"; utc = 1; break;
	case DL_TYPE_TIMESTAMP_NTZ: prim = "long"; logical = "timestamp-micros"; utc = 0; break;
	default: prim = "bytes"; break;
	}
	if (!logical) {
		dl_jw_string(w, prim);
		return;
	}
	dl_jw_object_begin(w);
	dl_jw_key(w, "type");
	dl_jw_string(w, prim);
	dl_jw_key(w, "logicalType");
	dl_jw_string(w, logical);
	if (utc >= 0) {
		dl_jw_key(w, "adjust-to-utc");
		dl_jw_bool(w, utc == 1);
	}
	dl_jw_object_end(w);
}

/* The parts of the manifest_entry schema before and after the partition
 * struct (Iceberg spec "Manifests", v2 columns; the names of the map
 * records k<key-id>_v<value-id> as Iceberg's Java writer names them). */
static const char ENTRY_HEAD[] =
    "{\"type\":\"record\",\"name\":\"manifest_entry\",\"fields\":["
    "{\"name\":\"status\",\"type\":\"int\",\"field-id\":0},"
    "{\"name\":\"snapshot_id\",\"type\":[\"null\",\"long\"],\"default\":null,\"field-id\":1},"
    "{\"name\":\"sequence_number\",\"type\":[\"null\",\"long\"],\"default\":null,\"field-id\":3},"
    "{\"name\":\"file_sequence_number\",\"type\":[\"null\",\"long\"],\"default\":null,\"field-id\":4},"
    "{\"name\":\"data_file\",\"type\":{\"type\":\"record\",\"name\":\"r2\",\"fields\":["
    "{\"name\":\"content\",\"type\":\"int\",\"doc\":\"Contents of the file: 0=data, 1=position "
    "deletes, 2=equality deletes\",\"field-id\":134},"
    "{\"name\":\"file_path\",\"type\":\"string\",\"doc\":\"Location URI with FS scheme\",\"field-id\":100},"
    "{\"name\":\"file_format\",\"type\":\"string\",\"doc\":\"File format name: avro, orc, or parquet\","
    "\"field-id\":101},"
    "{\"name\":\"partition\",\"type\":";

#define COUNT_MAP(fid, k, v, doc)                                                                  \
	"{\"name\":\"" doc "\",\"type\":[\"null\",{\"type\":\"array\",\"items\":{\"type\":\"record\","  \
	"\"name\":\"k" #k "_v" #v "\",\"fields\":[{\"name\":\"key\",\"type\":\"int\",\"field-id\":" #k  \
	"},{\"name\":\"value\",\"type\":\"long\",\"field-id\":" #v "}]},\"logicalType\":\"map\"}],"     \
	"\"default\":null,\"field-id\":" #fid "},"
#define BOUND_MAP(fid, k, v, doc)                                                                  \
	"{\"name\":\"" doc "\",\"type\":[\"null\",{\"type\":\"array\",\"items\":{\"type\":\"record\","  \
	"\"name\":\"k" #k "_v" #v "\",\"fields\":[{\"name\":\"key\",\"type\":\"int\",\"field-id\":" #k  \
	"},{\"name\":\"value\",\"type\":\"bytes\",\"field-id\":" #v "}]},\"logicalType\":\"map\"}],"    \
	"\"default\":null,\"field-id\":" #fid "},"

static const char ENTRY_TAIL[] =
    ",\"field-id\":102},"
    "{\"name\":\"record_count\",\"type\":\"long\",\"doc\":\"Number of records in the file\",\"field-id\":103},"
    "{\"name\":\"file_size_in_bytes\",\"type\":\"long\",\"doc\":\"Total file size in bytes\",\"field-id\":104},"
    COUNT_MAP(108, 117, 118, "column_sizes")
    COUNT_MAP(109, 119, 120, "value_counts")
    COUNT_MAP(110, 121, 122, "null_value_counts")
    COUNT_MAP(137, 138, 139, "nan_value_counts")
    BOUND_MAP(125, 126, 127, "lower_bounds")
    BOUND_MAP(128, 129, 130, "upper_bounds")
    "{\"name\":\"key_metadata\",\"type\":[\"null\",\"bytes\"],\"default\":null,\"field-id\":131},"
    "{\"name\":\"split_offsets\",\"type\":[\"null\",{\"type\":\"array\",\"items\":\"long\","
    "\"element-id\":133}],\"default\":null,\"field-id\":132},"
    "{\"name\":\"equality_ids\",\"type\":[\"null\",{\"type\":\"array\",\"items\":\"int\","
    "\"element-id\":136}],\"default\":null,\"field-id\":135},"
    "{\"name\":\"sort_order_id\",\"type\":[\"null\",\"int\"],\"default\":null,\"field-id\":140}"
    "]},\"field-id\":2}]}";

int dl_ice_manifest_avro_schema(dl_buf *out, const dl_ice_table_schema *s)
{
	DL_TRY(dl_buf_puts(out, ENTRY_HEAD));
	dl_buf p = DL_BUF_INIT;
	dl_json_writer w;
	dl_jw_init(&w, &p);
	dl_jw_object_begin(&w);
	dl_jw_key(&w, "type");
	dl_jw_string(&w, "record");
	dl_jw_key(&w, "name");
	dl_jw_string(&w, "r102");
	dl_jw_key(&w, "fields");
	dl_jw_array_begin(&w);
	for (int i = 0; i < s->nparts; i++) {
		dl_jw_object_begin(&w);
		dl_jw_key(&w, "name");
		dl_jw_string(&w, s->parts[i].avro_name);
		dl_jw_key(&w, "type");
		dl_jw_array_begin(&w);
		dl_jw_string(&w, "null");
		avro_partition_type(&w, s->parts[i].type);
		dl_jw_array_end(&w);
		dl_jw_key(&w, "default");
		dl_jw_null(&w);
		dl_jw_key(&w, "field-id");
		dl_jw_int(&w, s->parts[i].field_id);
		dl_jw_object_end(&w);
	}
	dl_jw_array_end(&w);
	dl_jw_object_end(&w);
	int rc = dl_jw_finish(&w);
	if (rc == 0) rc = dl_buf_append(out, p.data, p.len);
	dl_buf_free(&p);
	DL_TRY(rc);
	return dl_buf_puts(out, ENTRY_TAIL);
}

static const char MANIFEST_LIST[] =
    "{\"type\":\"record\",\"name\":\"manifest_file\",\"fields\":["
    "{\"name\":\"manifest_path\",\"type\":\"string\",\"doc\":\"Location URI with FS scheme\",\"field-id\":500},"
    "{\"name\":\"manifest_length\",\"type\":\"long\",\"doc\":\"Total file size in bytes\",\"field-id\":501},"
    "{\"name\":\"partition_spec_id\",\"type\":\"int\",\"doc\":\"Spec ID used to write\",\"field-id\":502},"
    "{\"name\":\"content\",\"type\":\"int\",\"doc\":\"Contents of the manifest: 0=data, 1=deletes\","
    "\"field-id\":517},"
    "{\"name\":\"sequence_number\",\"type\":\"long\",\"doc\":\"Sequence number when the manifest was "
    "added\",\"field-id\":515},"
    "{\"name\":\"min_sequence_number\",\"type\":\"long\",\"doc\":\"Lowest sequence number in the "
    "manifest\",\"field-id\":516},"
    "{\"name\":\"added_snapshot_id\",\"type\":\"long\",\"doc\":\"Snapshot ID that added the "
    "manifest\",\"field-id\":503},"
    "{\"name\":\"added_files_count\",\"type\":\"int\",\"doc\":\"Added entry count\",\"field-id\":504},"
    "{\"name\":\"existing_files_count\",\"type\":\"int\",\"doc\":\"Existing entry count\",\"field-id\":505},"
    "{\"name\":\"deleted_files_count\",\"type\":\"int\",\"doc\":\"Deleted entry count\",\"field-id\":506},"
    "{\"name\":\"added_rows_count\",\"type\":\"long\",\"doc\":\"Added rows count\",\"field-id\":512},"
    "{\"name\":\"existing_rows_count\",\"type\":\"long\",\"doc\":\"Existing rows count\",\"field-id\":513},"
    "{\"name\":\"deleted_rows_count\",\"type\":\"long\",\"doc\":\"Deleted rows count\",\"field-id\":514},"
    "{\"name\":\"partitions\",\"type\":[\"null\",{\"type\":\"array\",\"items\":{\"type\":\"record\","
    "\"name\":\"r508\",\"fields\":["
    "{\"name\":\"contains_null\",\"type\":\"boolean\",\"doc\":\"True if any file has a null partition "
    "value\",\"field-id\":509},"
    "{\"name\":\"contains_nan\",\"type\":[\"null\",\"boolean\"],\"doc\":\"True if any file has a nan "
    "partition value\",\"default\":null,\"field-id\":518},"
    "{\"name\":\"lower_bound\",\"type\":[\"null\",\"bytes\"],\"doc\":\"Partition lower bound for all "
    "files\",\"default\":null,\"field-id\":510},"
    "{\"name\":\"upper_bound\",\"type\":[\"null\",\"bytes\"],\"doc\":\"Partition upper bound for all "
    "files\",\"default\":null,\"field-id\":511}"
    "]},\"element-id\":508}],\"doc\":\"Summary for each partition\",\"default\":null,\"field-id\":507},"
    "{\"name\":\"key_metadata\",\"type\":[\"null\",\"bytes\"],\"doc\":\"Encryption key metadata "
    "blob\",\"default\":null,\"field-id\":519}"
    "]}";

const char *dl_ice_manifest_list_avro_schema(void) { return MANIFEST_LIST; }
