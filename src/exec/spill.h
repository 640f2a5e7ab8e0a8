/* Spill files: where operators put rows that do not fit the memory budget
 * (hash aggregate's new groups, a grace hash join's partitions, an external
 * sort's runs).
 *
 * A spill file is a temporary file under dl_exec_ctx.temp_dir (NULL: $TMPDIR,
 * else /tmp), unlinked as soon as it is created, so it disappears when it is
 * closed - on success, on error, on an early free, and even when the
 * process dies. Rows are written as batches of one schema in a compact
 * internal format (each array's buffers as they are in memory: the Arrow
 * layout has no offsets to fix up), then read back in the order written.
 *
 * Partitions: dl_spill_parts routes rows to one of n files by a hash of
 * their key, re-mixed per recursion level so that a partition that is still
 * too big splits differently the next time. */
#ifndef DL_EXEC_SPILL_H
#define DL_EXEC_SPILL_H
#include <stdio.h>
#include "exec/exec.h"

typedef struct dl_spill_file dl_spill_file;

/* A new empty spill file for batches of `schema` (referenced). `what`
 * names the operator in errors. */
int dl_spill_open(dl_spill_file **out, const dl_exec_ctx *ctx, const dl_type *schema, const char *what);
void dl_spill_free(dl_spill_file *f);
/* Appends the batch's rows (rows 0..b->num_rows). */
int dl_spill_write(dl_spill_file *f, const dl_batch *b);
/* Ends writing and goes back to the start for reading. */
int dl_spill_rewind(dl_spill_file *f);
/* The next batch written, or NULL at the end. */
int dl_spill_read(dl_spill_file *f, dl_batch **out);
int64_t dl_spill_rows(const dl_spill_file *f);
int64_t dl_spill_bytes(const dl_spill_file *f);

/* A stream over the file's batches (rewound first); it owns f. Each next
 * checks ctx->interrupt. */
int dl_spill_stream(dl_batch_stream **out, dl_spill_file *f, const dl_exec_ctx *ctx);

/* Charges without the limit check: for the one batch a spilling operator
 * must hold to make progress (so the peak may pass the limit by about one
 * batch). Released with dl_exec_mem_release. */
void dl_exec_mem_force(dl_exec_memory *m, int64_t bytes);

/* DL_ECANCELLED when the context's interrupt flag is set. */
int dl_exec_check_interrupt(const dl_exec_ctx *ctx, const char *what);

/* ---- hash partitions ------------------------------------------------- */

#define DL_SPILL_PARTS 16
/* Deeper than this a partition that still does not fit is one key's rows
 * (or a hash that cannot split them): the operator gives up with
 * DL_ENOMEM. */
#define DL_SPILL_MAX_LEVEL 6

typedef struct dl_spill_parts {
	int n;
	int level;
	dl_exec_ctx ctx;   /* files open at their first row */
	dl_type *schema;
	const char *what;
	dl_spill_file *f[DL_SPILL_PARTS];
	uint64_t *h;     /* scratch: row hashes */
	uint32_t *sel;   /* scratch: rows of one partition */
	int64_t cap;
} dl_spill_parts;

/* DL_SPILL_PARTS files for batches of `schema`. */
int dl_spill_parts_open(dl_spill_parts *p, const dl_exec_ctx *ctx, const dl_type *schema, int level,
                        const char *what);
void dl_spill_parts_free(dl_spill_parts *p);
/* The partition of a row hash (dl_keys_hash) at a level. */
int dl_spill_part_of(uint64_t hash, int level);
/* Writes each row of b to the partition of its key (keys: nkeys columns of
 * b->num_rows rows, hashed with dl_keys_hash). */
int dl_spill_parts_write(dl_spill_parts *p, const dl_batch *b, dl_array *const *keys, int nkeys);
/* Takes partition i's file out of p (rewound), or NULL when it got no rows
 * (it is freed then). */
int dl_spill_parts_take(dl_spill_file **out, dl_spill_parts *p, int i);

#endif
