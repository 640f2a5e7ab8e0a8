/* Table history (DESCRIBE HISTORY) and table detail (DESCRIBE DETAIL).
 *
 * History lists the commits of a table newest first with the fields of
 * their commitInfo; detail summarizes a snapshot. JSON-valued fields
 * (operationParameters, job, notebook, operationMetrics, partition and
 * clustering columns, properties, table features) are given as compact
 * JSON text. Strings are borrowed from the history/detail object.
 *
 * Thread safety: a history or a detail does not change after it is opened
 * and may be read from several threads at once. */
#ifndef DELTALAKE_HISTORY_H
#define DELTALAKE_HISTORY_H
#include "deltalake/common.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "deltalake/snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dl_history_entry {
	int64_t version;
	int64_t timestamp_ms;            /* commit timestamp as time travel uses it */
	const char *user_id;             /* NULL when absent */
	const char *user_name;
	const char *operation;
	const char *operation_parameters; /* JSON object text */
	const char *job;                 /* JSON object text */
	const char *notebook;            /* JSON object text */
	const char *cluster_id;
	int64_t read_version;            /* INT64_MIN when absent */
	const char *isolation_level;
	int is_blind_append;             /* 1, 0, or -1 when absent */
	const char *operation_metrics;   /* JSON object text */
	const char *user_metadata;
	const char *engine_info;
} dl_history_entry;

typedef struct dl_history dl_history;

/* The commits of the snapshot's table up to the snapshot's version, newest
 * first; at most `limit` (< 0: all). Commits whose file is gone (log
 * cleanup) are not listed; a commit without commitInfo has NULL fields. */
DL_EXTERN(int) dl_history_open(dl_history **out, dl_snapshot *snap, int64_t limit);
DL_EXTERN(size_t) dl_history_count(const dl_history *h);
DL_EXTERN(const dl_history_entry *) dl_history_at(const dl_history *h, size_t i);
DL_EXTERN(void) dl_history_free(dl_history *h);

typedef struct dl_table_detail {
	const char *format;              /* "delta" */
	const char *id;
	const char *name;                /* NULL when absent */
	const char *description;
	const char *location;            /* the table root */
	int64_t created_at_ms;           /* -1 when absent */
	int64_t last_modified_ms;        /* commit timestamp of the snapshot */
	const char *partition_columns;   /* JSON array of names */
	const char *clustering_columns;  /* JSON array of names (liquid clustering) */
	int64_t num_files;
	int64_t size_in_bytes;
	const char *properties;          /* JSON object */
	int min_reader_version;
	int min_writer_version;
	const char *table_features;      /* JSON array, reader and writer features */
	int64_t version;
} dl_table_detail;

typedef struct dl_detail dl_detail;
/* The detail of a snapshot; *detail points into *out. */
DL_EXTERN(int) dl_detail_open(dl_detail **out, const dl_table_detail **detail, dl_snapshot *snap);
DL_EXTERN(void) dl_detail_free(dl_detail *d);

#ifdef __cplusplus
}
#endif
#endif
