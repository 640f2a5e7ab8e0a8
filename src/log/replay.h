/* Action reconciliation (PROTOCOL.md "Action Reconciliation"): from a log
 * segment to the state of one version. Files are read newest first and a
 * hash set of seen (path, deletion vector unique id) keys decides which
 * file action survives, so shadowed actions are dropped right after they
 * are parsed; survivors are kept compactly in one arena. */
#ifndef DL_LOG_REPLAY_H
#define DL_LOG_REPLAY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "deltalake/store.h"
#include "log/actions.h"
#include "log/log_segment.h"
#include "util/arena.h"

/* Adds are stored in chunks so that 10^6 files never need one huge
 * reallocation; use dl_log_state_add(s, i). */
#define DL_ADD_CHUNK_SHIFT 12
#define DL_ADD_CHUNK (1u << DL_ADD_CHUNK_SHIFT)

typedef struct dl_log_state {
	dl_arena arena;              /* holds every action below */
	int64_t version;
	const dl_protocol *protocol; /* newest protocol */
	const dl_metadata *metadata; /* newest metaData */
	dl_add **add_chunks;         /* live files: nadds in chunks of DL_ADD_CHUNK */
	size_t nadds;
	size_t nadd_chunks;
	dl_remove *removes;          /* tombstones (unexpired and expired) */
	size_t nremoves;
	size_t removes_cap;
	dl_txn *txns;                /* newest per appId */
	size_t ntxns;
	size_t txns_cap;
	dl_domain_metadata *domains; /* newest per domain, removed ones dropped */
	size_t ndomains;
	size_t domains_cap;
	const dl_commit_info *commit_info; /* of the snapshot version, or NULL */
	int64_t crc_in_commit_timestamp; /* from the version's .crc when it was used, else DL_NONE */
	bool metadata_only;          /* replayed without file actions: no adds, no removes */
	bool from_crc;               /* txns/domains came from the version's .crc, which was
	                                checked to agree with the replayed protocol/metaData */
	dl_arena *block_arenas;      /* arenas of blocks parsed in parallel */
	size_t nblock_arenas, block_arenas_cap;
	int64_t total_size;          /* sum of live adds' sizes */
} dl_log_state;

static inline dl_add *dl_log_state_add(const dl_log_state *s, size_t i)
{
	return &s->add_chunks[i >> DL_ADD_CHUNK_SHIFT][i & (DL_ADD_CHUNK - 1)];
}

typedef struct dl_replay_options {
	/* Skip tombstones (scans do not need them): less memory. */
	int skip_tombstones;
	/* Only protocol, metaData, txns, domains and the version's commitInfo:
	 * no file actions (for time travel and metadata queries). Protocol and
	 * metaData always come from the log; a .crc of the version whose
	 * protocol and metaData agree with the log's supplies the txns and
	 * domains, so that the replay can stop once protocol and metaData are
	 * found. Without one, the replay reads them from the log. */
	int metadata_only;
	/* 1: never parse commit files on several threads */
	int sequential;
	/* logs with fewer bytes of commits are parsed on one thread (0: 8 MB) */
	int64_t parallel_min_bytes;
	/* bytes per parallel block (0: 1 MB); small values test block edges */
	int64_t block_bytes;
} dl_replay_options;

/* Replays the segment's files. Errors name the file and line. Does not
 * check that protocol and metadata exist (dl_log_state_validate does). */
int dl_replay(dl_log_state *out, dl_store *store, const dl_log_segment *seg,
              const dl_replay_options *opts);
/* DL_ECORRUPT "...has no protocol action" / "...no metaData action". */
int dl_log_state_validate(const dl_log_state *s);
void dl_log_state_free(dl_log_state *s);

/* The hash of a file's (path, DV unique id) key in the seen-set. */
uint64_t dl_file_key_hash(const char *path, const dl_dv_descriptor *dv);

/* ---- used by checkpoint_read.c to feed checkpoint rows ---- */
typedef struct dl_replayer dl_replayer;
/* The arena actions must be built in before dl_replay_offer(). */
dl_arena *dl_replay_arena(dl_replayer *r);
/* Marks the arena before building one action, so a shadowed action's memory
 * is taken back. */
void dl_replay_begin_action(dl_replayer *r);
/* Whether file actions are skipped. */
bool dl_replay_metadata_only(const dl_replayer *r);
/* Whether txn and domainMetadata actions are wanted. */
bool dl_replay_wants_txns_domains(const dl_replayer *r);
/* Offers one action (built in dl_replay_arena since the last begin). */
int dl_replay_offer(dl_replayer *r, const dl_action *a);

#endif
