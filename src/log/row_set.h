/* A set of row positions of one file: the rows a deletion vector deletes,
 * as the scan's reader applies them (table/scan_read.c) and MERGE's target
 * reader skips them, and what the rewrite engine holds for each touched
 * file (the positions a caller deletes, those an existing DV deletes, those
 * deleted now), so that what they hold follows the DV rather than the rows
 * listed: per 65536-position chunk a sorted array of 16-bit offsets while
 * it has at most 4096 positions, then an 8 KB bitmap, and no storage at all
 * once every position is in (the containers of a roaring bitmap, without
 * its runs). At most ~1 bit per position of the chunks it touches (8 bytes
 * per position as a sorted list), 24 bytes per full chunk. Built in
 * ascending order, read in ascending order by cursors. Allocations through
 * util/mem.h (the failure walks reach them), optionally charged to a
 * caller's budget; after a failed push the set holds a prefix of what was
 * pushed. */
#ifndef DL_LOG_ROW_SET_H
#define DL_LOG_ROW_SET_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "log/deletion_vector.h"

typedef struct dl_rowset_chunk {
	uint64_t key;   /* its positions are key << 16 | 0..0xffff */
	uint32_t n;     /* positions in it, 1..65536 */
	uint32_t cap;   /* offsets the array has room for; 0: a bitmap or full */
	void *data;     /* uint16_t[cap] ascending, or uint64_t[1024] (bit i: offset i);
	                   NULL when all 65536 positions are in */
} dl_rowset_chunk;

/* A caller's memory budget for a set: charge(payload, bytes) before each
 * allocation, non-zero (an error set) refusing it (the push fails, the set
 * unchanged by that allocation); charge(payload, -bytes) when bytes are
 * freed. */
typedef struct dl_rowset_budget {
	int (*charge)(void *payload, int64_t bytes);
	void *payload;
} dl_rowset_budget;

typedef struct dl_rowset {
	dl_rowset_chunk *chunks; /* ascending keys */
	size_t nchunks, cap;
	uint64_t count;
	uint64_t last;           /* the greatest position (when count > 0) */
	size_t bytes;            /* heap the set holds (all charged to budget) */
	const dl_rowset_budget *budget; /* borrowed; NULL: unaccounted */
} dl_rowset;
#define DL_ROWSET_INIT {NULL, 0, 0, 0, 0, 0, NULL}

/* Frees what the set holds (released from its budget, which it keeps). */
void dl_rowset_free(dl_rowset *s);
/* Adds pos[0..n), ascending and each past the greatest position held
 * (DL_EINVALID otherwise, naming `what`). */
int dl_rowset_push(dl_rowset *s, const uint64_t *pos, size_t n, const char *what);

/* Reads a set in ascending order: queries whose positions never decrease. */
typedef struct dl_rowset_cursor {
	const dl_rowset *s;
	size_t c;   /* chunk */
	uint32_t i; /* offset's index in an array chunk */
} dl_rowset_cursor;
void dl_rowset_cursor_init(dl_rowset_cursor *cur, const dl_rowset *s);
/* Whether p is in the set. */
bool dl_rowset_has(dl_rowset_cursor *cur, uint64_t p);
/* The least position >= p, or UINT64_MAX when there is none. */
uint64_t dl_rowset_next(dl_rowset_cursor *cur, uint64_t p);
/* The offsets j in [0, n) (ascending, into idx[0..n)) of the positions
 * first + j that are in the set (in) or not (!in); returns how many. A
 * chunk at a time (a bitmap's words, an array's run), for a scan's batch. */
size_t dl_rowset_select(dl_rowset_cursor *cur, uint64_t first, uint32_t n, bool in, uint32_t *idx);
/* How many positions of the set are below p. */
uint64_t dl_rowset_rank(const dl_rowset *s, uint64_t p);

/* The rows of a loaded DV (at most DL_DV_MAX_ARRAY_ROWS, as
 * dl_dv_rows_to_array) into the empty set *out (its budget kept). */
int dl_rowset_from_dv(dl_rowset *out, const dl_dv_rows *rows);
/* a ∪ b (disjoint) as the DV dl_dv_rows_from_array builds from the same
 * positions (so it serializes to the same bytes). */
int dl_rowset_union_dv(dl_dv_rows *out, const dl_rowset *a, const dl_rowset *b);

#endif
