/* The actions of the Delta log (PROTOCOL.md "Actions"): add, remove,
 * metaData, protocol, txn, commitInfo, cdc, domainMetadata,
 * checkpointMetadata and sidecar.
 *
 * Parsed actions are plain structs whose strings and arrays live in a
 * dl_arena chosen by the caller (the replay keeps the survivors in the
 * snapshot's arena and drops the rest with the parse arena). Paths are
 * stored URI-decoded and canonical (see log/path.h); `stats` stays the raw
 * JSON text and is parsed lazily by log/stats.h. */
#ifndef DL_LOG_ACTIONS_H
#define DL_LOG_ACTIONS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "json/json.h"
#include "log/deletion_vector.h"
#include "util/arena.h"
#include "util/buf.h"

/* The value of an optional long field that is absent. */
#define DL_NONE INT64_MIN

/* A string-to-string map (partitionValues, tags, configuration...). A NULL
 * value is a JSON null (a null partition value). Order is kept. */
typedef struct dl_kv {
	const char *key;
	const char *value;
} dl_kv;

typedef struct dl_str_map {
	dl_kv *items;
	uint32_t n;
} dl_str_map;

/* The value of `key`, or NULL when absent or null; *found tells which. */
const char *dl_str_map_get(const dl_str_map *m, const char *key, bool *found);

typedef struct dl_add {
	const char *path;              /* decoded */
	const char *log_path;          /* as the log spells it (the same pointer when decoding
	                                  changed nothing); NULL for adds not read from a log */
	dl_str_map partition_values;
	int64_t size;
	int64_t modification_time;
	const char *stats;             /* raw JSON text or NULL */
	uint32_t stats_len;
	bool data_change;
	dl_str_map tags;
	dl_dv_descriptor *dv;          /* NULL without a deletion vector */
	int64_t base_row_id;           /* DL_NONE when absent */
	int64_t default_row_commit_version;
	const char *clustering_provider;
	/* Where replay found it, for errors that name it: the commit version
	 * that added it, or -(C + 2) for the checkpoint of version C. Set only
	 * in a snapshot's adds; not part of the action. */
	int64_t log_version;
} dl_add;

typedef struct dl_remove {
	const char *path;
	int64_t deletion_timestamp;    /* DL_NONE when absent */
	bool data_change;
	bool extended_file_metadata;
	dl_str_map partition_values;
	int64_t size;                  /* DL_NONE when absent */
	const char *stats;
	uint32_t stats_len;
	dl_str_map tags;
	dl_dv_descriptor *dv;
	int64_t base_row_id;
	int64_t default_row_commit_version;
} dl_remove;

typedef struct dl_metadata {
	const char *id;
	const char *name;              /* NULL when absent */
	const char *description;
	const char *format_provider;
	dl_str_map format_options;
	const char *schema_string;
	const char **partition_columns;
	uint32_t npartition_columns;
	int64_t created_time;          /* DL_NONE when absent */
	dl_str_map configuration;
} dl_metadata;

typedef struct dl_protocol {
	int32_t min_reader_version;
	int32_t min_writer_version;
	const char **reader_features;  /* NULL when the list is absent */
	uint32_t nreader_features;
	const char **writer_features;
	uint32_t nwriter_features;
} dl_protocol;

typedef struct dl_txn {
	const char *app_id;
	int64_t version;
	int64_t last_updated;          /* DL_NONE when absent */
} dl_txn;

typedef struct dl_commit_info {
	const char *json;              /* the whole object, compact JSON */
	int64_t timestamp;             /* DL_NONE when absent */
	int64_t in_commit_timestamp;   /* DL_NONE when absent */
	const char *operation;         /* NULL when absent */
} dl_commit_info;

typedef struct dl_cdc {
	const char *path;
	dl_str_map partition_values;
	int64_t size;
	bool data_change;
	dl_str_map tags;
} dl_cdc;

typedef struct dl_domain_metadata {
	const char *domain;
	const char *configuration;
	bool removed;
} dl_domain_metadata;

typedef struct dl_checkpoint_metadata {
	int64_t version;
	dl_str_map tags;
} dl_checkpoint_metadata;

typedef struct dl_sidecar {
	const char *path;              /* decoded, relative to _delta_log/_sidecars */
	int64_t size_in_bytes;
	int64_t modification_time;
	dl_str_map tags;
} dl_sidecar;

typedef enum dl_action_kind {
	DL_ACTION_UNKNOWN = 0, /* an action this reader does not know: ignored */
	DL_ACTION_ADD,
	DL_ACTION_REMOVE,
	DL_ACTION_METADATA,
	DL_ACTION_PROTOCOL,
	DL_ACTION_TXN,
	DL_ACTION_COMMIT_INFO,
	DL_ACTION_CDC,
	DL_ACTION_DOMAIN_METADATA,
	DL_ACTION_CHECKPOINT_METADATA,
	DL_ACTION_SIDECAR,
} dl_action_kind;

typedef struct dl_action {
	dl_action_kind kind;
	union {
		dl_add add;
		dl_remove remove;
		dl_metadata metadata;
		dl_protocol protocol;
		dl_txn txn;
		dl_commit_info commit_info;
		dl_cdc cdc;
		dl_domain_metadata domain_metadata;
		dl_checkpoint_metadata checkpoint_metadata;
		dl_sidecar sidecar;
	} u;
} dl_action;

/* The action kind named by a line's single key ("add", "metaData"...). */
dl_action_kind dl_action_kind_of(const char *key);
const char *dl_action_kind_name(dl_action_kind k);

/* Parses one line of a commit file (`{"add":{...}}`). Strings are copied
 * into `arena`, so the JSON value may be freed afterwards. Missing required
 * fields or fields of the wrong type are DL_ECORRUPT naming `what` (the
 * file and line). Unknown actions give kind DL_ACTION_UNKNOWN. */
int dl_action_from_json(dl_action *out, dl_arena *arena, const dl_json *line, const char *what);
/* The same for the body of one action of a known kind. */
int dl_action_body_from_json(dl_action *out, dl_action_kind kind, dl_arena *arena,
                             const dl_json *body, const char *what);

/* Serializes an action as one line of a commit file (no newline). */
int dl_action_to_json(dl_buf *out, const dl_action *a);
void dl_action_write(dl_json_writer *w, const dl_action *a);
/* Helpers for other writers of log-like JSON. */
void dl_str_map_write(dl_json_writer *w, const dl_str_map *m);

/* Copies a JSON object of strings (or nulls) into a map. Non-string values
 * are kept as their JSON text (writers sometimes put numbers in tags). */
int dl_str_map_from_json(dl_str_map *out, dl_arena *arena, const dl_json *obj, const char *what,
                         const char *field);
/* Deep copy of a map into `arena`. */
int dl_str_map_copy(dl_str_map *out, dl_arena *arena, const dl_str_map *m);

#endif
