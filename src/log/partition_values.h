/* Partition values (PROTOCOL.md "Partition Value Serialization"): the
 * strings of add.partitionValues to typed scalars and back, and the
 * Hive-style directory names writers use ("date=2021-09-08/",
 * "__HIVE_DEFAULT_PARTITION__" for null, special characters %-escaped as
 * Spark's ExternalCatalogUtils.escapePathName does). */
#ifndef DL_LOG_PARTITION_VALUES_H
#define DL_LOG_PARTITION_VALUES_H
#include <stdbool.h>
#include "columnar/types.h"
#include "expr/expr.h"
#include "util/buf.h"

#define DL_HIVE_DEFAULT_PARTITION "__HIVE_DEFAULT_PARTITION__"

/* Parses the serialized value `s` (NULL, or "" for any type, is a null
 * value) of a partition column of type `t`. Strings and binaries borrow s.
 * Timestamps without a zone are read as UTC. DL_ECORRUPT names the value
 * and the type when it does not parse. */
int dl_partition_value_parse(dl_scalar *out, const dl_type *t, const char *s);
/* The serialized form of a scalar (appended to out); *is_null set for a
 * null value (nothing appended). Timestamps are written in ISO 8601 UTC
 * with microseconds, as recommended; doubles like Java's Double.toString. */
int dl_partition_value_format(dl_buf *out, const dl_scalar *v, bool *is_null);

/* Appends the Hive-escaped form of a partition directory component. */
int dl_partition_path_escape(dl_buf *out, const char *s);
/* Decodes %XX escapes of a directory component (for readers of paths). */
int dl_partition_path_unescape(dl_buf *out, const char *s, size_t n);
/* "k1=v1/k2=v2/" for a file's partition values (values already
 * serialized; NULL or "" for null), with names and values escaped. */
int dl_partition_dir(dl_buf *out, const char *const *names, const char *const *values, int n);

#endif
