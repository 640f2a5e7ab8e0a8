/* Delta's logical types as a tree: primitive types, decimal(p,s), struct,
 * array, map and variant. The same tree describes a table's schema (parsed
 * from the Delta schema JSON by log/schema.c), a Parquet file's projection and
 * the columns of a batch.
 *
 * A dl_type is immutable once built and reference counted, so batches,
 * schemas and expressions can share one without copying. */
#ifndef DL_COLUMNAR_TYPES_H
#define DL_COLUMNAR_TYPES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum dl_type_id {
	DL_TYPE_NULL = 0,      /* Spark NullType / "void" */
	DL_TYPE_BOOLEAN,
	DL_TYPE_BYTE,          /* int8 */
	DL_TYPE_SHORT,         /* int16 */
	DL_TYPE_INTEGER,       /* int32 */
	DL_TYPE_LONG,          /* int64 */
	DL_TYPE_FLOAT,
	DL_TYPE_DOUBLE,
	DL_TYPE_DECIMAL,       /* precision <= 38, stored as 128-bit little-endian */
	DL_TYPE_STRING,        /* UTF-8 */
	DL_TYPE_BINARY,
	DL_TYPE_DATE,          /* int32 days since 1970-01-01 */
	DL_TYPE_TIMESTAMP,     /* int64 microseconds since epoch, UTC */
	DL_TYPE_TIMESTAMP_NTZ, /* int64 microseconds, no time zone */
	DL_TYPE_STRUCT,        /* children = fields */
	DL_TYPE_ARRAY,         /* one child: "element" */
	DL_TYPE_MAP,           /* two children: "key", "value" */
	DL_TYPE_VARIANT,       /* two children: "value" (binary), "metadata" (binary) */
} dl_type_id;

typedef struct dl_type dl_type;

/* A named child of a struct (or the element/key/value of array/map). */
typedef struct dl_field {
	char *name;
	dl_type *type;
	bool nullable;
	/* The field's Delta metadata as a JSON object text ("{}" when empty):
	 * comments, column mapping ids and physical names, generation
	 * expressions, identity, defaults, invariants, type changes. */
	char *metadata;
} dl_field;

struct dl_type {
	dl_type_id id;
	int refcount;
	int precision; /* DL_TYPE_DECIMAL */
	int scale;     /* DL_TYPE_DECIMAL */
	int nchildren;
	dl_field *children;
	/* DL_TYPE_BINARY only: the Delta text of a geospatial type
	 * ("geometry(OGC:CRS84)", "geography(OGC:CRS84, spherical)") whose WKB
	 * values the binary holds; NULL for plain binary. See geo_type.h. */
	char *geo;
};

/* 128-bit decimals without a pedantic warning. */
__extension__ typedef __int128 dl_i128;

/* Constructors return a new reference (refcount 1) or NULL with DL_ENOMEM. */
dl_type *dl_type_new(dl_type_id id);
dl_type *dl_type_decimal(int precision, int scale);
/* Struct with n fields; the fields' names/metadata are copied and their
 * types referenced (the caller keeps its references). */
dl_type *dl_type_struct(const dl_field *fields, int n);
dl_type *dl_type_array(dl_type *element, bool contains_null);
dl_type *dl_type_map(dl_type *key, dl_type *value, bool value_contains_null);
dl_type *dl_type_variant(void);
/* Arrow's "entries" struct of a map type: {key (not null), value (nullable
 * as the map declares)}, the one child of an Arrow map. */
dl_type *dl_type_map_entries(const dl_type *map);

dl_type *dl_type_ref(dl_type *t);
void dl_type_unref(dl_type *t);

bool dl_type_equals(const dl_type *a, const dl_type *b);
bool dl_type_is_primitive(const dl_type *t);
bool dl_type_is_integral(const dl_type *t);
bool dl_type_is_numeric(const dl_type *t);
/* Byte width of one value in the Arrow layout (0 for variable, nested, bool). */
int dl_type_fixed_width(const dl_type *t);
/* Delta's name: "long", "decimal(10,2)", "timestamp_ntz", "struct"... */
const char *dl_type_id_name(dl_type_id id);
/* Delta's name of a whole type: like dl_type_id_name but with the decimal's
 * parameters ("decimal(10,2)"). NUL-terminated, truncated to cap. */
void dl_type_name(const dl_type *t, char *out, size_t cap);
/* Writes the Spark SQL spelling (BIGINT, DECIMAL(10,2), ARRAY<INT>,
 * STRUCT<a: INT>...) into out (NUL-terminated, truncated to cap). */
void dl_type_sql(const dl_type *t, char *out, size_t cap);

/* Case-insensitive lookup of a struct field, as Delta resolves columns.
 * Returns the index or -1. */
int dl_type_field_index(const dl_type *st, const char *name);

#endif
