/* Version checksum files (PROTOCOL.md "Version Checksum File"): N.crc holds
 * the table state summary of version N (protocol, metadata, file count and
 * size, in-commit timestamp, live txns and domains). The log is the truth:
 * readers use a .crc only where it agrees with what replay gives
 * (dl_version_checksum_matches), to skip work, never instead of the log's
 * protocol and metadata. A malformed .crc is never an error for a reader:
 * it is ignored. */
#ifndef DL_LOG_CRC_H
#define DL_LOG_CRC_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "deltalake/store.h"
#include "log/actions.h"
#include "util/arena.h"

typedef struct dl_version_checksum {
	int64_t table_size_bytes;
	int64_t num_files;
	int64_t in_commit_timestamp;   /* DL_NONE when absent */
	const dl_protocol *protocol;
	const dl_metadata *metadata;
	dl_txn *txns;                  /* NULL when the file has none */
	size_t ntxns;
	dl_domain_metadata *domains;
	size_t ndomains;
	bool has_txns, has_domains;    /* the optional lists were present */
} dl_version_checksum;

/* Reads and parses `path` into `arena`. Returns 0 and fills *out when it is
 * a valid checksum (required fields present and well typed); DL_ECORRUPT
 * (with the reason) when it is malformed; the store's error when missing. */
int dl_version_checksum_read(dl_version_checksum *out, dl_arena *arena, dl_store *store,
                             const char *path);
/* Whether the checksum describes the state whose protocol and metaData
 * replay found: the same versions and feature sets, the same metadata
 * (id, name, description, format, schemaString, partition columns,
 * configuration, createdTime), and - when `commit_ict` is known - the same
 * in-commit timestamp. */
bool dl_version_checksum_matches(const dl_version_checksum *c, const dl_protocol *protocol,
                                 const dl_metadata *metadata, int64_t commit_ict);
int dl_version_checksum_parse(dl_version_checksum *out, dl_arena *arena, const char *json,
                              size_t len, const char *what);

#endif
