/* Change data feed (table_changes): the row-level changes of a range of
 * versions, with the table's columns (schema of the latest version) plus
 *   _change_type       string: insert, update_preimage, update_postimage, delete
 *   _commit_version    long
 *   _commit_timestamp  timestamp (the commit timestamp time travel uses)
 * Commits that wrote change data (cdc actions, _change_data/ files) give
 * those rows; other commits give their added files' rows as inserts and
 * their removed files' rows as deletes (with deletion vectors: only the
 * rows a new DV deletes). */
#ifndef DELTALAKE_CHANGES_H
#define DELTALAKE_CHANGES_H
#include "deltalake/common.h"
#include <stdint.h>
#include "deltalake/arrow.h"
#include "deltalake/snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DL_CHANGES_OPTIONS_VERSION 2
typedef struct dl_changes_options {
	int version;                 /* DL_CHANGES_OPTIONS_VERSION */
	int64_t start_version;       /* first version (inclusive), or -1 with start_timestamp_ms */
	int64_t end_version;         /* last version (inclusive), -1 = the latest */
	int64_t start_timestamp_ms;  /* DL_NO_TIMESTAMP, or the first commit at or after it */
	int64_t end_timestamp_ms;    /* DL_NO_TIMESTAMP, or the last commit at or before it */
	/* since version 2 (as in dl_snapshot_options): */
	dl_store *store;             /* the table's store (borrowed); uri ignored */
	const dl_store_options *store_options; /* opening the uri's store */
	const char *const *allowed_roots; /* path policy */
	int nallowed_roots;
} dl_changes_options;

#define DL_CHANGES_OPTIONS_INIT \
	{DL_CHANGES_OPTIONS_VERSION, 0, -1, DL_NO_TIMESTAMP, DL_NO_TIMESTAMP, NULL, NULL, NULL, 0}

/* The changes of the table at `uri` as an Arrow stream. Errors:
 * DL_EINVALID when the start is after the end, the end (or start) is after
 * the latest version, or the change data feed was not enabled
 * (delta.enableChangeDataFeed) at a version of the range. */
DL_EXTERN(int) dl_table_changes(struct ArrowArrayStream *out, const char *uri, const dl_changes_options *opts);

#ifdef __cplusplus
}
#endif
#endif
