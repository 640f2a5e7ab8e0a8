/* JSON text -> variant (value, metadata), as Spark's parse_json builds it
 * (VariantBuilder): integers in the narrowest of int8/16/32/64, numbers
 * with a fraction and no exponent as the narrowest decimal that holds them
 * (up to 38 digits), other numbers as double; strings under 64 bytes in the
 * short-string form; object fields sorted by name, names in a dictionary in
 * first-seen order; offsets in the fewest bytes. */
#ifndef DL_EXPR_VARIANT_ENCODE_H
#define DL_EXPR_VARIANT_ENCODE_H
#include <stddef.h>
#include "util/buf.h"

/* Appends the encoded value and metadata to the two buffers. Invalid JSON
 * is DL_EINVALID (MALFORMED_RECORD_IN_PARSING), a repeated object key
 * DL_EINVALID (VARIANT_DUPLICATE_KEY). */
int ex_variant_from_json(dl_buf *value, dl_buf *metadata, const char *json, size_t len);

#endif
