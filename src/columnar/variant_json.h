/* Variant values (the Parquet Variant binary encoding, VariantEncoding.md of
 * apache/parquet-format) rendered as JSON text. Both buffers come from data
 * files, so every size and offset is checked: malformed input gives
 * DL_ECORRUPT, never a read out of bounds. */
#ifndef DL_COLUMNAR_VARIANT_JSON_H
#define DL_COLUMNAR_VARIANT_JSON_H
#include <stddef.h>
#include <stdint.h>
#include "util/buf.h"

int dl_variant_to_json(dl_buf *out, const uint8_t *value, size_t value_len, const uint8_t *metadata,
                       size_t metadata_len);

#endif
