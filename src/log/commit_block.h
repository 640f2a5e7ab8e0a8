/* One byte range of a commit (or compaction) file parsed into actions, the
 * unit of parallel log replay. A block owns the lines that start in
 * [off, end): it skips the partial line before `off` and reads past `end`
 * to finish its last line. Parsing touches no shared state, so blocks run
 * on any thread; the replay then consumes them newest first. */
#ifndef DL_LOG_COMMIT_BLOCK_H
#define DL_LOG_COMMIT_BLOCK_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "deltalake/store.h"
#include "log/actions.h"
#include "util/arena.h"

typedef struct dl_commit_block {
	/* input */
	dl_store *store;
	const char *path;
	int64_t file_size;
	int64_t off, end;
	bool want_commit_info; /* the snapshot version's commit */
	int64_t version;       /* the commit's version (a compaction's last) */
	bool metadata_only;    /* skip file actions, txns and domains */
	/* output: actions built in `arena` (the replay takes the arena over) */
	dl_arena arena;
	dl_action *actions;
	uint64_t *hashes; /* dl_file_key_hash of add/remove actions, else 0 */
	size_t nactions, cap;
} dl_commit_block;

/* A dl_task_fn: parses the block (arg is a dl_commit_block). */
int dl_commit_block_parse(void *arg);
/* Frees the action array and, unless taken over, the arena. */
void dl_commit_block_free(dl_commit_block *b);

#endif
