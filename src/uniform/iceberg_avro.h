/* Avro object container files for Iceberg (see iceberg_avro.c). */
#ifndef DL_UNIFORM_ICEBERG_AVRO_H
#define DL_UNIFORM_ICEBERG_AVRO_H

#include <avro.h>
#include <stdint.h>

#include "deltalake/store.h"
#include "log/actions.h"
#include "util/buf.h"

typedef struct dl_ice_avro_writer {
	dl_store_writer *out;
	const char *path;
	avro_schema_t schema;
	avro_value_iface_t *iface;
	uint8_t sync[16];
	dl_buf block;  /* encoded records of the open block */
	int64_t count; /* records in the block */
	int64_t total; /* records written */
} dl_ice_avro_writer;

/* Opens `path` in the store and writes the header: magic, the metadata map
 * (avro.schema = schema_json exactly as given, so its field-id attributes
 * survive; avro.codec = null; then meta's pairs), the sync marker. */
int dl_ice_avro_open(dl_ice_avro_writer *w, dl_store *s, const char *path, const char *schema_json,
                     const dl_str_map *meta);
/* A new record value of the file's schema (avro_value_decref when done). */
int dl_ice_avro_new_value(dl_ice_avro_writer *w, avro_value_t *out);
int dl_ice_avro_append(dl_ice_avro_writer *w, avro_value_t *v);
/* Flushes and publishes the file; *size is its length in bytes. */
int dl_ice_avro_close(dl_ice_avro_writer *w, int64_t *size);
/* Drops an unfinished file (nothing is published). Safe after close. */
void dl_ice_avro_abort(dl_ice_avro_writer *w);

/* The avro-c error text as a DL_ECORRUPT/DL_EINVALID error naming `what`. */
int dl_ice_avro_error(int code, const char *what);

#endif
