/* Reading inside a variant value (VariantEncoding.md of apache/parquet-format):
 * the metadata dictionary, object fields by name, array elements by index,
 * and primitives decoded into C values. variant_get and the file pruner's
 * variant statistics use it. Both buffers come from data files or the log,
 * so every size and offset is checked: malformed input is DL_ECORRUPT
 * (Spark's MALFORMED_VARIANT), never a read out of bounds. A value buffer
 * may be longer than its value (a field's bytes run to the end of its
 * container; decoded statistics carry padding). */
#ifndef DL_COLUMNAR_VARIANT_ACCESS_H
#define DL_COLUMNAR_VARIANT_ACCESS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "columnar/types.h"

typedef struct dl_vmeta {
	const uint8_t *offsets; /* dict_size + 1 entries of offset_size bytes */
	const uint8_t *bytes;
	uint64_t bytes_len;
	uint64_t dict_size;
	int offset_size;
	size_t size; /* bytes the metadata occupies */
} dl_vmeta;

int dl_vmeta_parse(dl_vmeta *m, const uint8_t *p, size_t n);
int dl_vmeta_key(const dl_vmeta *m, uint64_t id, const char **s, size_t *len);

/* What a value is. Integers of every width are DL_V_INT (Spark's LONG). */
typedef enum dl_vkind {
	DL_V_NULL, DL_V_BOOLEAN, DL_V_INT, DL_V_DOUBLE, DL_V_DECIMAL, DL_V_DATE, DL_V_TIMESTAMP,
	DL_V_TIMESTAMP_NTZ, DL_V_FLOAT, DL_V_BINARY, DL_V_STRING, DL_V_TIME, DL_V_TIMESTAMP_NANOS,
	DL_V_TIMESTAMP_NTZ_NANOS, DL_V_UUID, DL_V_OBJECT, DL_V_ARRAY,
} dl_vkind;

typedef struct dl_vprim {
	dl_vkind kind;
	int int_width;   /* DL_V_INT: 1, 2, 4 or 8 bytes */
	bool b;
	int64_t i;       /* INT, DATE, TIMESTAMP(_NTZ) micros, TIME micros, nanos */
	double d;        /* DOUBLE, FLOAT */
	dl_i128 dec;     /* DECIMAL: unscaled */
	int scale;       /* DECIMAL */
	int dec_width;   /* DECIMAL: 4, 8 or 16 */
	const uint8_t *s; /* STRING, BINARY, UUID (16 bytes) */
	size_t slen;
} dl_vprim;

/* Decodes the header of v (and the value when it is a primitive). */
int dl_variant_decode(dl_vprim *out, const uint8_t *v, size_t n);
/* The exact size of the value at v (n bytes available). */
int dl_variant_size(const uint8_t *v, size_t n, size_t *size);
/* Number of fields (object) or elements (array). */
int dl_variant_count(const uint8_t *v, size_t n, uint64_t *count);
/* Field i of an object: its name and value bytes. */
int dl_variant_field_at(const dl_vmeta *m, const uint8_t *v, size_t n, uint64_t i, const char **key, size_t *klen,
                        const uint8_t **fv, size_t *fn);
/* The field named key: 1 with *fv and *fn set, 0 when absent or v is not an
 * object, < 0 when malformed. */
int dl_variant_field(const dl_vmeta *m, const uint8_t *v, size_t n, const char *key, size_t klen,
                     const uint8_t **fv, size_t *fn);
/* Element idx of an array: 1 found, 0 out of range or not an array. */
int dl_variant_element(const uint8_t *v, size_t n, uint64_t idx, const uint8_t **ev, size_t *en);

#endif
