/* MERGE's shared state (include/deltalake/merge.h): the builder, the
 * execution context, and the steps each file implements:
 *   merge_api.c      builder, clause rules, the execution driver and commit;
 *   merge_resolve.c  names in conditions and values -> the join's columns,
 *                    the ON condition split into equi-keys and a residual;
 *   merge_join.c     source read once, target files pruned and streamed with
 *                    row positions, the hash join, clause evaluation per row;
 *   merge_recs.c     the touched target rows per file (in memory or spilled),
 *                    the multiple-match check;
 *   merge_write.c    the rewrite engine's callback (updated/deleted rows),
 *                    inserts, schema evolution;
 *   merge_metrics.c  commitInfo parameters and metrics as Spark writes them.
 *
 * The join works on one "canonical" row: the target's columns __t0.., then
 * __file (index into the candidate files) and __pos (row position in it),
 * then the source's columns __s0.., then __srow (its index in the source).
 * Every expression is rewritten onto those names and bound once. */
#ifndef DL_DML_MERGE_INTERNAL_H
#define DL_DML_MERGE_INTERNAL_H
#include "ops/type_change_meta.h"
#include <pthread.h>
#include "columnar/batch_stream.h"
#include "deltalake/merge.h"
#include "exec/exec.h"
#include "expr/expr.h"
#include "log/actions.h"
#include "log/properties.h"
#include "ops/enforce.h"
#include "rewrite/rewrite.h"
#include "txn/txn.h"
#include "util/arena.h"

typedef enum mg_kind { MG_MATCHED = 0, MG_NOT_MATCHED, MG_BY_SOURCE } mg_kind;
typedef enum mg_action { MG_UPDATE = 0, MG_UPDATE_ALL, MG_DELETE, MG_INSERT, MG_INSERT_ALL } mg_action;

typedef struct mg_clause {
	mg_kind kind;
	mg_action action;
	char *cond;           /* SQL text or NULL */
	char **cols, **vals;  /* explicit assignments / insert lists */
	int n;
	/* resolved at execute */
	dl_expr *cond_e;      /* bound to the canonical schema; NULL = always */
	dl_expr **set;        /* per written column: its new value (bound), NULL = unchanged
	                         (update) / not provided (insert) */
	int64_t rows;         /* rows this clause acted on */
} mg_clause;

struct dl_merge {
	dl_merge_options o;
	char *uri;
	dl_batch_stream *src;  /* dl_merge_source_stream / internal */
	char *src_uri;
	int64_t src_version;
	char *talias, *salias;
	char *on;
	mg_clause *cl;
	int ncl, cap;
	bool evolve;
	bool executed;
};

/* A target row acted on (or matched): where it is and what happens to it. */
typedef struct mg_rec {
	uint64_t pos;
	int32_t clause;   /* index in cl, -1: matched but no clause acted (copied) */
	int64_t srow;     /* source row (ns: the all-NULL row) */
	int64_t crow;     /* its source columns: row of the file's capture, -1: none */
} mg_rec;

/* The source columns of one file's updated rows, captured during the join
 * (the source itself is not kept): batches in memory, charged to x->mem,
 * or, once the budget is used up, a spill file. */
typedef struct mg_capture {
	dl_batch **b;
	int nb, capb;
	int64_t rows, bytes;
	struct dl_spill_file *spill;
	dl_batch *all;            /* loaded for the update callback */
	int64_t used;             /* rows of `all` the callback consumed */
} mg_capture;

/* One target file's records (merge_recs.c): in memory, charged to x->mem,
 * while they fit; once the budget is used up, every file's records go to
 * its own spill file, r then holding only what the current joined batch
 * added. After the check n counts the touched rows either way. */
typedef struct mg_file_recs {
	mg_rec *r;
	size_t n, cap;
	int64_t charged;              /* bytes of x->mem that r holds */
	struct dl_spill_file *spill;  /* spilled: join order, then sorted by the check */
	bool dirty;                   /* listed in x->recs_dirty */
	/* a spilled file read back in position order by the update callback */
	dl_batch *cur;
	int64_t cur_i;
	size_t found;
} mg_file_recs;

typedef struct mg_exec {
	dl_merge *m;
	dl_store *store;
	bool owns_store;
	dl_snapshot *snap;
	dl_transaction *txn;
	dl_table_properties props;
	dl_arena arena;
	const dl_type *tschema;  /* the snapshot's */
	int nt;
	dl_type *sschema;        /* the source's (reference) */
	int ns;
	dl_type *wschema;        /* written: tschema + evolved columns (reference) */
	int nw;
	dl_str_map config;       /* committed configuration */
	bool schema_changed;
	/* delta.enableTypeWidening on a table supporting it: schema evolution
	 * widens the target's types to the source's (Spark's TypeEvolution) */
	bool widen;
	dl_widening widening;  /* which widenings (UniForm, allowAutomaticWidening) */
	dl_type *canon;          /* the canonical joined schema (reference) */
	/* source, read once: ns columns + __srow; in memory while it fits
	 * x->mem (scharged bytes), else spilled to sspill */
	dl_batch **sbatches;
	int nsb;
	int64_t scharged;
	struct dl_spill_file *sspill;
	int64_t nsrc;
	/* the source's key range, gathered while reading it */
	bool kr_init;
	dl_expr **kr_e;
	dl_array **kr_best;
	/* per candidate file: the source columns of its updated rows */
	mg_capture *cap;
	bool cap_spilling;
	pthread_mutex_t cap_lock;
	bool cap_lock_init;
	/* ON */
	int nkeys;
	dl_expr **tkeys, **skeys; /* bound to the target / source stream schemas */
	bool *null_safe;
	dl_expr *residual;        /* bound to the canonical schema, NULL = none */
	char *prune;              /* target-only terms of ON over plain names, or NULL */
	int *key_tcol;            /* per key: the target column it is, or -1 */
	char **key_ssql;          /* per key: the source side's canonical SQL */
	/* the target columns the join phase reads (merge_join.c): per target
	 * column its place in the target stream, or -1 when nothing evaluated
	 * over the joined rows names it (an all-NULL column stands in for it
	 * there; the rewrite engine re-reads every column of touched files) */
	int *tread;
	int ntread;
	/* target files */
	const dl_add **files;
	size_t nfiles;
	mg_file_recs *recs;
	bool recs_spilling;
	size_t *recs_dirty;       /* files with records not yet flushed to their spill */
	size_t ndirty;
	dl_type *rec_schema;      /* of the spilled records */
	int64_t target_rows_est;
	/* clause shape */
	bool matched_only, single_uncond_delete;
	bool has_matched, has_not_matched, has_by_source;
	/* inserts: per clause, the schema of the rows it computes */
	dl_type **ins_schema;
	/* inserted rows, conformed to ins_us: in memory (ins_charged bytes of
	 * x->mem) until the budget is used up, then in ins_spill (and, when the
	 * change data needs them too, ins_spill_cdc) */
	bool ins_ready;
	dl_type *ins_us;
	bool *ins_given;
	/* fills what an INSERT clause leaves out of the columns another one
	 * gives (merge_write.c fill_left_out); opened when needed */
	dl_enforcer *ins_enf;
	dl_batch **insb;
	int ninsb, capinsb;
	int64_t ins_rows, ins_charged;
	struct dl_spill_file *ins_spill, *ins_spill_cdc;
	/* write side */
	dl_rewrite *rw;
	dl_enforcer *enf;
	pthread_mutex_t enf_lock;
	bool lock_init;
	bool *gen_recompute;      /* per written column: generated, recomputed on update */
	dl_exec_memory mem;
	/* the row sets of MERGE's target reader and of the rewrite engine,
	 * charged to mem (merge_write.c); rs_lock: their spilling of inserts */
	dl_rowset_budget rs_budget;
	pthread_mutex_t rs_lock;
	bool rs_lock_init;
	int64_t row_hwm;
	/* metrics */
	dl_merge_metrics mt;
	int64_t t0, scan_ns, rewrite_ns;
	struct dl_files_writer **insert_files;
	int ninsert_files;
	struct dl_change_writer *cdc;
} mg_exec;

/* merge_resolve.c */
/* Parses `sql` and rewrites its column references onto the canonical
 * names; allow_t / allow_s say which side it may name; `what` names the
 * clause for messages. *out is unbound. */
int dl_mg_resolve(mg_exec *x, dl_expr **out, const char *sql, bool allow_t, bool allow_s, const char *what);
/* dl_mg_resolve then bind to the canonical schema; with `to` non-NULL the
 * value is cast to it as the store assignment into column `col`. */
int dl_mg_resolve_bound(mg_exec *x, dl_expr **out, const char *sql, bool allow_t, bool allow_s,
                        const char *what, const dl_type *to, const char *col);
/* The ON condition into x->tkeys/skeys/null_safe, x->residual, x->prune. */
int dl_mg_split_on(mg_exec *x);
/* After the source is read: each plain `t.col = <source expr>` key adds
 * `col BETWEEN min AND max` of the source's values to x->prune. */
int dl_mg_key_range(mg_exec *x);
/* Adds a source batch (the source stream's columns) to the key range. */
int dl_mg_key_range_add(mg_exec *x, const dl_batch *b);
void dl_mg_key_range_free(mg_exec *x);
/* Clause conditions and assignments (x->wschema known). */
int dl_mg_resolve_clauses(mg_exec *x);
/* The canonical schema of x (after tschema and sschema are known). */
int dl_mg_build_canon(mg_exec *x);

/* merge_join.c */
int dl_mg_read_source(mg_exec *x);
int dl_mg_plan_files(mg_exec *x);
int dl_mg_join(mg_exec *x);

/* merge_write.c */
int dl_mg_evolve_schema(mg_exec *x);
/* Takes b (rows of clause k's insert schema) into the inserted rows. */
int dl_mg_insert_add(mg_exec *x, int k, dl_batch *b);
void dl_mg_inserts_free(mg_exec *x);
/* x->rs_budget and its lock (dl_mg_row_sets_done undoes it). */
int dl_mg_row_sets_budget(mg_exec *x);
void dl_mg_row_sets_done(mg_exec *x);
int dl_mg_write(mg_exec *x);
void dl_mg_discard(mg_exec *x);

/* merge_metrics.c */
int dl_mg_commit_info(mg_exec *x);

/* Column name helpers */
void dl_mg_tname(char *buf, size_t cap, int i);
void dl_mg_sname(char *buf, size_t cap, int j);

#endif
