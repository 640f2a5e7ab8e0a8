/* The hash aggregate's shared state (aggregate.c: the operator, its
 * aggregate kinds and output; aggregate_spill.c: spilling under a memory
 * limit). Internal to those two files. */
#ifndef DL_EXEC_AGGREGATE_H
#define DL_EXEC_AGGREGATE_H
#include "exec/agg_ext.h"
#include "exec/keytab.h"
#include "exec/op.h"
#include "exec/spill.h"
#include "expr/eval.h"

typedef struct aslot {
	int64_t cnt;
	union {
		int64_t i;
		double d;
		dl_i128 dec;
	} s;
	ex_val v;   /* min/max/first/last; strings owned (malloc'd) */
	double m2;  /* variance: sum of squared deviations (s.d is the mean) */
	bool set;
} aslot;

typedef struct agg_state {
	dl_agg_kind kind;
	dl_expr *arg;
	bool ignore_nulls;
	const dl_type *in;   /* borrowed from arg */
	dl_type *out;
	aslot *slots;
	dl_keytab *distinct; /* count(DISTINCT): (group id, value) pairs */
	dl_type *long_t;
	dl_agg_ext *ext;     /* the kinds of agg_ext.h */
	dl_agg_distinct *dfilter; /* agg(DISTINCT x) of the other kinds */
	dl_expr *param;      /* percentile_approx's, until agg_ext takes it */
} agg_state;

typedef struct agg_op {
	dl_batch_stream *in;
	dl_exec_ctx ctx;
	dl_expr **keys;
	int nkeys;
	agg_state *aggs;
	int naggs;
	dl_keytab *groups;  /* NULL without keys: one group */
	int64_t ngroups, slot_cap, charged;
	dl_type *schema;
	bool done;          /* input consumed */
	int64_t emitted;
	uint32_t *ids;
	int64_t ids_cap;
	/* spilling (the section "Spilling" below) */
	int level;            /* 0 for the plan's operator, +1 per partition pass */
	bool spilling;        /* rows of groups not in memory go to `parts` */
	bool released;        /* the in-memory groups are emitted and freed */
	dl_spill_parts parts;
	dl_type *raw_schema;  /* spilled rows: the keys, then each argument */
	dl_exec_agg *spec;    /* the aggregates again, for the partitions' operators */
	char **param_sql;
	int next_part;
	dl_batch_stream *child;
	int64_t mem_base;     /* the budget's use before the first group */
	bool based;
	/* parallel (aggregate_par.c) */
	struct agg_par *par;  /* the plan's operator over shards; NULL: serial */
	int64_t *first;       /* a shard's: per group, the input position of its first row */
	const int64_t *rowpos; /* a shard's: the current batch's input positions */
	const uint64_t *rowhash; /* a shard's: the current batch's key hashes */
} agg_op;

/* aggregate.c */
/* Aggregates batch b whose GROUP BY keys are kc (NULL without keys). */
int agg_consume_mem(agg_op *a, dl_batch *b, dl_array *const *kc);
/* Frees the groups and their states. */
void agg_free_groups(agg_op *a);
/* The operator; level 0 for the plan's, +1 per spilled partition pass. */
int agg_open(dl_batch_stream **out, dl_batch_stream *in, dl_expr *const *keys, const char *const *key_names,
             int nkeys, const dl_exec_agg *aggs, int naggs, const dl_exec_ctx *ctx, int level);

/* Consumes one batch (keys evaluated here; spilling under a limit). */
int agg_consume(agg_op *a, dl_batch *b);
/* e over b: a bare column borrowed from b, else evaluated (*owned). */
int agg_eval_borrow(dl_array **out, bool *owned, const dl_expr *e, dl_batch *b, const dl_exec_ctx *ctx);
/* Output columns (keys, then aggregates) of groups [start, start+n). */
int agg_emit(agg_op *a, int64_t start, int64_t n, dl_array **cols);

/* aggregate_par.c */
/* Splits the operator's groups over shards when the context allows more
 * than one thread (level 0, with keys); a no-op otherwise. */
int agg_par_open(agg_op *a);
/* Consumes batch b (keys kc) into the shards. */
int agg_par_consume(agg_op *a, dl_batch *b, dl_array *const *kc);
/* After the input: the shards' groups in order of first appearance, then
 * their spilled partitions. */
int agg_par_next(agg_op *a, dl_batch **out);
void agg_par_free(agg_op *a);

/* aggregate_spill.c */
/* The same aggregates as `a` over its raw columns (`__k<i>` keys,
 * `__a<i>` arguments: the shape of its spill files and of its shards'
 * input), reading `src` (taken over, also on failure). */
int agg_open_raw(dl_batch_stream **out, const agg_op *a, dl_batch_stream *src, const dl_exec_ctx *ctx, int level);

/* Remembers what the partitions' operators need. */
int agg_keep_spec(agg_op *a, const dl_exec_agg *aggs);
/* Consumes a batch under a memory limit: in memory while it fits, else
 * the rows of groups not in memory go to partitions. */
int agg_spill_consume(agg_op *a, dl_batch *b, dl_array *const *kc);
/* After the in-memory groups: each partition's groups. */
int agg_spill_next(agg_op *a, dl_batch **out);

#endif
