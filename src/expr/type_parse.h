/* The one SQL type grammar: CAST targets, DDL column types, schema text and
 * the SQL layer's column definitions all read types through it, so every
 * spelling (BOOL, DOUBLE PRECISION, VARCHAR(n), STRUCT<a: INT NOT NULL
 * COMMENT '...'>, GEOMETRY(EPSG:3857)...) means the same everywhere. */
#ifndef DL_EXPR_TYPE_PARSE_H
#define DL_EXPR_TYPE_PARSE_H
#include "columnar/types.h"
#include <stddef.h>

/* Reads one type from src[*pos..len) (leading space and comments skipped)
 * and sets *pos to the first byte after it (trailing space not consumed
 * past the next token's start). On error *pos is the offset of the
 * offending token and the error message names what was expected. */
int ex_parse_type_at(dl_type **out, const char *src, size_t len, size_t *pos);

#endif
