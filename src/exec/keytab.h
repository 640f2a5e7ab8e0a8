/* A hash table of distinct key rows: the one structure behind GROUP BY,
 * DISTINCT, COUNT(DISTINCT), set operations and the join's build side.
 *
 * A key is a row of nkeys columns. Equality is value equality with NULL
 * equal to NULL, NaN equal to NaN and -0.0 equal to 0.0 (Spark normalizes
 * floating keys the same way); callers that want SQL's "NULL never matches"
 * drop those rows first. Ids are dense, 0.. in order of first insertion, so
 * per-key state lives in plain arrays indexed by id.
 *
 * Keys are copied into chunks (one per inserted batch that added keys), so
 * the caller's arrays are only borrowed for the call. Memory grows through
 * the budget given at creation. */
#ifndef DL_EXEC_KEYTAB_H
#define DL_EXEC_KEYTAB_H
#include "exec/exec.h"

#define DL_KEYTAB_NONE UINT32_MAX

typedef struct dl_keytab dl_keytab;

/* types: the key columns' types (referenced). */
int dl_keytab_new(dl_keytab **out, dl_type *const *types, int nkeys, dl_exec_memory *mem, const char *what);
void dl_keytab_free(dl_keytab *t);
int64_t dl_keytab_size(const dl_keytab *t);
/* ids[i] = the id of row i of keys[0..nkeys) (n rows each), inserting
 * missing keys. */
int dl_keytab_insert(dl_keytab *t, dl_array *const *keys, int64_t n, uint32_t *ids);
/* The same with the rows' hashes given (dl_keys_hash of these keys), for
 * a caller that hashed them already (the parallel aggregate's shards). */
int dl_keytab_insert_hashed(dl_keytab *t, dl_array *const *keys, int64_t n, uint32_t *ids, const uint64_t *h);
/* The most bytes an insert of `more` new keys could charge beyond what is
 * charged now, not counting the key values themselves (entries and slots
 * grow by doubling): what a spilling operator checks before it inserts. */
int64_t dl_keytab_grow_bytes(const dl_keytab *t, int64_t more);
/* ids[i] = the id of row i, or DL_KEYTAB_NONE when absent. */
int dl_keytab_find(const dl_keytab *t, dl_array *const *keys, int64_t n, uint32_t *ids);
/* The same into the caller's scratch h (n hashes), touching nothing in t:
 * threads may find in one table at once (the parallel join probe) while
 * nothing inserts. */
void dl_keytab_find_with(const dl_keytab *t, dl_array *const *keys, int64_t n, uint32_t *ids, uint64_t *h);
/* Key column k of ids [start, start+n) as a new array. */
int dl_keytab_keys(dl_array **out, const dl_keytab *t, int k, int64_t start, int64_t n);

/* Row hashes of n rows of keys[0..nkeys), consistent with the equality
 * above (also used to partition rows). */
void dl_keys_hash(uint64_t *h, dl_array *const *keys, int nkeys, int64_t n);

#endif
