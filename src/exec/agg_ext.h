/* The hash aggregate's kinds that keep more than one fixed slot per group
 * (aggregate.c calls in here, through a handful of hooks): count_if,
 * bool_and, bool_or, any_value, collect_list, collect_set,
 * approx_count_distinct, percentile_approx; and the filter behind
 * agg(DISTINCT x) for every kind.
 *
 * Per-group state lives in arrays indexed by group id, grown to the
 * number of groups on update; a group never updated (a global aggregate
 * over no rows) finishes as the empty group. What is kept is charged to
 * the plan's budget. */
#ifndef DL_EXEC_AGG_EXT_H
#define DL_EXEC_AGG_EXT_H
#include "columnar/builder.h"
#include "exec/keytab.h"
#include "exec/op.h"

/* Whether the kind is one of this file's; also min, max, first and last
 * over nested types (structs, arrays, maps), whose values it keeps. */
bool dl_agg_ext_kind(dl_agg_kind k, const dl_type *in);
/* The SQL name of any aggregate kind (error messages, default names). */
const char *dl_agg_kind_name(dl_agg_kind k);

/* Values kept by reference: each stored value is one row of a chunk (the
 * rows of one input batch that had to be kept, copied). */
typedef struct agg_store {
	dl_array **chunks;
	int64_t nchunks, cap;
	int64_t bytes;
} agg_store;
/* Appends rows sel[0..n) of x as a new chunk; *chunk is its index. */
int agg_store_add(agg_store *s, const dl_array *x, const uint32_t *sel, int64_t n, dl_exec_memory *mem,
                  uint32_t *chunk);
void agg_store_free(agg_store *s, dl_exec_memory *mem);

typedef struct agg_gk agg_gk;    /* agg_percentile.c */

typedef struct dl_agg_ext {
	dl_agg_kind kind;
	const dl_type *in;
	dl_type *out;
	bool ignore_nulls;
	dl_exec_memory *mem;
	int64_t cap;           /* groups with state */
	int64_t charged;
	int64_t *cnt;          /* count_if; bool_*: values seen; collect: length */
	int64_t *aux;          /* bool_and: FALSEs seen, bool_or: TRUEs seen */
	uint64_t *ref;         /* any_value / collect heads: chunk << 32 | row, UINT64_MAX none */
	/* collect: per element its successor, by element number */
	uint64_t *tail;        /* collect: last element's number per group */
	uint64_t *elem_ref;    /* element number -> chunk << 32 | row */
	uint64_t *elem_next;   /* element number -> next element number or UINT64_MAX */
	int64_t nelem, elem_cap;
	agg_store store;
	dl_keytab *seen;       /* collect_set: (group, value) pairs */
	dl_type *long_t;
	/* approx_count_distinct */
	int p;
	uint8_t *reg;          /* 2^p registers per group */
	/* percentile_approx */
	agg_gk *gk;            /* one summary per group */
	double *pct;
	int npct;
	bool pct_array;
	double rel_err;
} dl_agg_ext;

/* For the kinds above: binds nothing (aggregate.c bound the argument to
 * `in`'s expression), checks the input type, evaluates the constant
 * percentage (param, taken), decides the result type (*out_type borrowed
 * from the ext) and its nullability. */
int dl_agg_ext_new(dl_agg_ext **out, const dl_exec_agg *spec, const dl_type *in, const dl_type *schema,
                   const dl_exec_ctx *ctx, int index, const dl_type **out_type, bool *nullable);
void dl_agg_ext_free(dl_agg_ext *x);
/* Drops every group's state (the window operator reuses one ext per
 * frame); the configuration stays. */
int dl_agg_ext_reset(dl_agg_ext *x);
/* What adding n rows may charge at most, the groups growing to ngroups
 * (the aggregate's spilling decides with it before it adds a batch). */
int64_t dl_agg_ext_grow_bytes(const dl_agg_ext *x, int64_t ngroups, int64_t n);
/* Adds rows [0, n) of arg, row i to group ids[i] (< ngroups). */
int dl_agg_ext_update(dl_agg_ext *x, const uint32_t *ids, int64_t ngroups, const dl_array *arg, int64_t n);
/* The results of groups [start, start+n) as one array. */
int dl_agg_ext_finish(dl_agg_ext *x, dl_array **out, int64_t start, int64_t n);

/* Per-kind parts. */
int agg_collect_update(dl_agg_ext *x, const uint32_t *ids, const dl_array *arg, int64_t n);
int agg_collect_finish(dl_agg_ext *x, dl_builder *b, int64_t start, int64_t n);
int agg_hll_update(dl_agg_ext *x, const uint32_t *ids, const dl_array *arg, int64_t n);
int64_t agg_hll_estimate(const dl_agg_ext *x, int64_t group);
int agg_hll_precision(double rsd, int *p);
int agg_gk_update(dl_agg_ext *x, const uint32_t *ids, const dl_array *arg, int64_t n);
int agg_gk_finish(dl_agg_ext *x, dl_builder *b, int64_t start, int64_t n);
int agg_gk_grow(dl_agg_ext *x, int64_t old_cap, int64_t cap);
/* collect_set: the non-null rows whose (group, value) pair is new. */
int agg_new_pairs(dl_agg_ext *x, const uint32_t *ids, const dl_array *arg, int64_t n, dl_selection *out);
/* XXH64, and Spark's XxHash64Function.hash of one row (agg_hll.c). */
uint64_t agg_xxh64(const void *data, size_t n, uint64_t seed);
uint64_t agg_spark_hash(const dl_array *a, int64_t i, uint64_t seed);
void agg_gk_free(dl_agg_ext *x);

/* agg(DISTINCT x): the (group, value) pairs seen so far. */
typedef struct dl_agg_distinct dl_agg_distinct;
int dl_agg_distinct_new(dl_agg_distinct **out, const dl_type *in, dl_exec_memory *mem);
void dl_agg_distinct_free(dl_agg_distinct *d);
int64_t dl_agg_distinct_grow_bytes(const dl_agg_distinct *d, int64_t n);
/* The rows of x that are non-null and whose (group, value) pair is new:
 * their ids (*ids_out) and values (*x_out, a new array), *n_out of them. */
int dl_agg_distinct_filter(dl_agg_distinct *d, const uint32_t *ids, const dl_array *x, int64_t n, uint32_t **ids_out,
                           dl_array **x_out, int64_t *n_out);

#endif
