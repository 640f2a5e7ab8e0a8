/* The internal side of the streaming source (include/deltalake/stream.h):
 * the stream's state, the planner's units of a micro-batch, and the
 * helpers the files of src/stream share. */
#ifndef DL_STREAM_INTERNAL_H
#define DL_STREAM_INTERNAL_H
#include <regex.h>
#include "columnar/batch_stream.h"
#include "deltalake/stream.h"
#include "log/actions.h"
#include "log/snapshot.h"
#include "table/scan.h"
#include "util/arena.h"

int dl_stream_offset_cmp(const dl_stream_offset *a, const dl_stream_offset *b);
bool dl_stream_offset_equal(const dl_stream_offset *a, const dl_stream_offset *b);

/* One unit of a planned batch: a data file (of the initial snapshot or of
 * a commit), or with readChangeFeed a whole commit's changes. */
typedef enum st_unit_kind {
	ST_FILE = 0,        /* add: read its rows */
	ST_SNAPSHOT_INSERT, /* readChangeFeed: an initial snapshot file as inserts */
	ST_COMMIT_CHANGES,  /* readChangeFeed: the changes of `version` */
	ST_CHANGE_INSERT,   /* readChangeFeed, a commit split across batches: an add's rows */
	ST_CHANGE_DELETE,   /* the same for a remove's rows (as an add: path, partition values) */
} st_unit_kind;

typedef struct st_unit {
	st_unit_kind kind;
	int64_t version;
	const dl_add *add;  /* all but ST_COMMIT_CHANGES (in the plan's arena or the snapshot) */
} st_unit;

typedef struct st_plan {
	dl_arena arena;      /* commit actions the units point into */
	st_unit *units;
	size_t n, cap;
	dl_stream_offset end;
	dl_snapshot *snap;   /* the initial snapshot its units point into, once the stream left it */
} st_plan;

struct dl_stream {
	dl_store *store;
	bool owns_store;
	char *table;                 /* the table's location, for messages */
	dl_stream_options o;         /* strings copied into arena */
	dl_arena arena;
	dl_snapshot *read_snap;      /* the stream's schema (latest at open) */
	dl_scan *scan;               /* projection and filter, reads adds */
	regex_t exclude;
	bool has_exclude;
	dl_stream_checkpoint *cp;
	dl_stream_offset pos;        /* everything up to here is processed */
	int64_t next_batch_id;
	bool forced;                 /* replaying a planned batch: up to forced_end */
	dl_stream_offset forced_end;
	bool pending;                /* a batch returned, not committed */
	dl_stream_offset pending_end;
	/* the initial snapshot, while the stream is inside it */
	dl_snapshot *init_snap;
	size_t *init_order;          /* add indexes by (modificationTime, path) */
	size_t ninit;
	/* readChangeFeed */
	dl_scan *cdf_scan;           /* all columns, no filter (snapshot inserts) */
	dl_type *cdf_schema;         /* table columns + _change_type, _commit_version, _commit_timestamp */
	dl_expr *cdf_filter;         /* unbound, copied per batch */
};

/* One commit's actions (stream_plan.c). */
typedef struct st_commit {
	dl_action *items;
	size_t n, cap;
} st_commit;
int dl_stream_read_commit(st_commit *c, dl_arena *arena, dl_stream *s, int64_t version, bool *missing);

/* Spark's rules for commits that are not appends (stream_rules.c):
 * whether the commit is skipped, or the error that stops the stream. */
int dl_stream_check_commit(bool *skip, dl_stream *s, const st_commit *c, int64_t version);
/* A metaData action of `version` against the stream's schema (stream_rules.c). */
int dl_stream_check_schema(dl_stream *s, const dl_metadata *m, int64_t version);
/* Whether excludeRegex leaves out the file at `path` (stream_plan.c). */
bool dl_stream_excluded(const dl_stream *s, const char *path);
/* The next batch from s->pos: its units and end offset (stream_plan.c). */
int dl_stream_plan_batch(st_plan **out, dl_stream *s);
/* The readChangeFeed batches of a plan (stream_changes.c). */
int dl_stream_cdf_init(dl_stream *s);
int dl_stream_cdf_batches(dl_batch_stream **out, dl_stream *s, st_plan *plan);
/* The plain batches of a plan: each file through the stream's scan
 * (stream_read.c). */
int dl_stream_file_batches(dl_batch_stream **out, dl_stream *s, st_plan *plan);
void dl_stream_plan_free(st_plan *p);

#endif
