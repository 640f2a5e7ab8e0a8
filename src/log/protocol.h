/* Protocol versions and table features (PROTOCOL.md "Protocol Evolution",
 * "Table Features", "Reader/Writer Version Requirements"): what a table
 * requires, and whether this library can read or write it. What each
 * feature is comes from the registry, log/table_features.h. */
#ifndef DL_LOG_PROTOCOL_H
#define DL_LOG_PROTOCOL_H
#include <stdbool.h>
#include "log/actions.h"
#include "log/table_features.h"

/* The highest versions this library implements. */
#define DL_MAX_READER_VERSION 3
#define DL_MAX_WRITER_VERSION 7

/* Whether the table supports `feature`: listed in readerFeatures or
 * writerFeatures (versions 3/7), or implied by legacy versions (reader 2:
 * columnMapping; writer 2: appendOnly, invariants; 3: checkConstraints;
 * 4: changeDataFeed, generatedColumns; 5: columnMapping; 6: identityColumns).
 * Known names are matched case-insensitively (dl_protocol_has). */
bool dl_protocol_supports(const dl_protocol *p, const char *feature);
/* Whether a feature name is one this reader implements for reads
 * (unknown names: false). */
bool dl_feature_readable(const char *feature);
/* Whether a feature name is one this library can honor when writing. */
bool dl_feature_writable(const char *feature);

/* 0 when this library can read the table, else DL_EUNSUPPORTED with a
 * message naming the version or feature ("the table needs reader version
 * 99, which is not supported (this reader supports 1 to 3)"), including
 * catalogManaged tables that must be accessed through their catalog. */
int dl_protocol_check_read(const dl_protocol *p);
/* The same for writing (checks the reader side too). */
int dl_protocol_check_write(const dl_protocol *p);

/* Whether two protocols are the same: versions, and feature lists as sets
 * (an absent list differs from an empty one). */
bool dl_protocol_equal(const dl_protocol *a, const dl_protocol *b);

#endif
