/* OPTIMIZE's command state, shared by the driver (optimize.c, with
 * optimize_checks.c, optimize_plan.c, optimize_commit.c) and the bin
 * writer (optimize_bin.c: one bin's rows streamed from its files, ordered
 * along a curve when clustering, into new files). */
#ifndef DL_OPTIMIZE_INTERNAL_H
#define DL_OPTIMIZE_INTERNAL_H
#include <stdatomic.h>
#include <stdbool.h>
#include "deltalake/maintenance.h"
#include "expr/expr.h"
#include "log/snapshot.h"
#include "optimize/bins.h"
#include "optimize/clustering.h"
#include "rewrite/file_writer.h"
#include "txn/txn.h"
#include "util/arena.h"
#include "util/buf.h"

/* A column a curve orders by: a top-level column of the scan's output and
 * the struct children down to the leaf. */
typedef struct opt_order_col {
	int top;
	int path[16];
	int depth;
} opt_order_col;

typedef struct opt_cmd {
	const char *operation;          /* "OPTIMIZE" / "REORG" */
	dl_store *store;
	bool owns_store;
	dl_snapshot *snap;
	dl_transaction *txn;
	dl_arena arena;
	dl_str_map config;              /* committed configuration (row tracking names) */
	dl_table_properties props;
	const char *const *part_cols;
	int npart;
	bool tracked;                   /* rowTracking supported: new files get base row ids */
	bool preserve;                  /* rowTracking enabled: copies keep ids */
	dl_field hidden[2];
	int nhidden;
	dl_clustering clustering;
	bool clustered;                 /* delta.clustering domain present */
	/* ordering of multi-dimensional clustering; norder 0: bin-packing */
	opt_order_col order[32];
	int norder;
	bool hilbert;
	char *const *order_scan_cols;   /* top-level columns the sample reads */
	int64_t max_file_size;
	dl_opt_plan plan;
	dl_files_writer **outs;         /* per bin */
	int threads;                    /* bins in parallel */
	dl_progress_fn progress;
	void *progress_payload;
	_Atomic bool cancel;
	_Atomic int64_t bins_done, files_done, rows_done;
	bool purge;                     /* REORG ... APPLY (PURGE) */
	int iceberg_compat;             /* REORG UPGRADE UNIFORM: the version files get tagged with */
	int64_t now_ms;
	dl_optimize_stats stats;        /* the rest of OptimizeMetrics */
} opt_cmd;

/* What one run is asked to do (optimize.c): OPTIMIZE, REORG or auto
 * compaction. */
typedef struct opt_request {
	const char *operation;
	dl_store *store;
	const dl_store_options *store_options;
	const char *user_metadata;
	dl_progress_fn progress;
	void *progress_payload;
	const char *where;
	const char *const *zorder_by;
	int nzorder_by;
	bool full;
	bool purge;          /* REORG ... APPLY (PURGE) */
	int iceberg_compat;  /* REORG ... APPLY (UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION=N)): N, else 0 */
	bool auto_compact;
	int64_t max_file_size, min_file_size;
	double ratio;
	int threads;
	/* auto compaction: only the files partition_filter accepts, and only
	 * partitions with at least min_num_files candidates */
	bool (*partition_filter)(const dl_add *a, void *payload);
	void *filter_payload;
	int64_t min_num_files;
	dl_optimize_stats *stats;  /* out, or NULL */
} opt_request;

/* Spark's AddFile tags of a ZCube (ZCubeInfo): the files one clustering bin
 * wrote share a ZCUBE_ID; ZCUBE_ZORDER_BY is the JSON array of the
 * clustering columns' logical names. */
#define DL_TAG_ZCUBE_ID "ZCUBE_ID"
#define DL_TAG_ZCUBE_ZORDER_BY "ZCUBE_ZORDER_BY"

/* reorg_uniform.c: whether a file carries the tag ICEBERG_COMPAT_VERSION
 * = version, and the tag added to an add action (tags copied to arena). */
bool dl_opt_iceberg_tagged(const dl_add *a, int version);
int dl_opt_iceberg_tag(dl_add *a, dl_arena *arena, int version);

/* Runs it (optimize.c); metrics as dl_optimize's. */
int dl_opt_run(dl_optimize_metrics *m, const char *uri, const opt_request *r);
/* The request of a REORG ... APPLY (PURGE and UPGRADE UNIFORM share it):
 * the options checked (fn names the caller in the error) and copied. */
int dl_opt_reorg_request(opt_request *r, const dl_reorg_options *opts, const char *fn);
void dl_opt_metrics_init(dl_optimize_metrics *m);
/* The key of a partition: its values' text, never a NULL buffer. */
int dl_opt_part_key(dl_buf *k, const dl_str_map *pv);

/* Writes bin i (optimize_bin.c): cmd->outs[i] holds its files after. */
int dl_opt_write_bin(opt_cmd *c, size_t i);

/* optimize_checks.c: the WHERE bound to the partition columns (*out, to
 * free); the ZORDER BY columns checked and resolved into c->order; one
 * order column resolved to the scan's output. */
int dl_opt_check_where(opt_cmd *c, const char *where, dl_expr **out);
int dl_opt_check_zorder(opt_cmd *c, const opt_request *r);
int dl_opt_resolve_order(opt_cmd *c, const dl_clustering_column *cc, opt_order_col *o);

/* optimize_plan.c: c->plan from the files `where` selects; *considered
 * counts the candidate files looked at. */
int dl_opt_plan_files(opt_cmd *c, const opt_request *r, const dl_expr *where, int64_t *considered);

/* optimize_commit.c: removes the planned files, adds the bins' outputs and
 * commits with Spark's parameters and metrics (m->version set). */
int dl_opt_commit(opt_cmd *c, dl_optimize_metrics *m, const opt_request *r, const dl_expr *where);

#endif
