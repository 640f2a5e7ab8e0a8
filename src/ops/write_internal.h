/* State of one write operation shared by write.c (definition, batches,
 * files) and write_commit.c (the actions and commitInfo of its commit).
 * Internal to src/ops. */
#ifndef DL_OPS_WRITE_INTERNAL_H
#define DL_OPS_WRITE_INTERNAL_H
#include "ops/write.h"
#include "columnar/array.h"
#include "expr/expr.h"
#include "log/snapshot.h"
#include "ops/enforce.h"
#include "ops/table_def.h"
#include "rewrite/change_data.h"
#include "rewrite/file_writer.h"
#include "rewrite/rewrite.h"
#include "txn/txn.h"
#include "util/arena.h"

typedef struct write_ctx {
	const dl_write_options *o;
	dl_store *store;
	dl_snapshot *snap;
	dl_transaction *txn;
	const dl_type *data_schema;
	dl_type *schema;              /* the table schema written (after evolution) */
	bool metadata_set;
	dl_arena arena;
	dl_table_plan plan;
	dl_str_map config;
	dl_table_properties props;
	const char *const *part_cols;
	int npart;
	dl_files_writer *fw;
	dl_enforcer *enf;
	dl_expr *replace_where;       /* bound to schema */
	dl_selection sel;
	int *data_index;              /* per table column: data column or -1 */
	bool *provided;
	int64_t now;
	int64_t removed_files, removed_bytes, input_rows;
	dl_rewrite *rw;               /* what replaceWhere / dynamic overwrite rewrite */
	dl_change_writer *cdc;        /* inserts as change data, when the rewrite wrote some */
	dl_write_progress_fn progress;
	void *progress_payload;
	int64_t row_hwm;              /* last row id handed out; DL_NONE: not read yet */
	const dl_type *evolved;       /* dl_ops_write_into_schema: the schema after the write */
	bool into_txn;                /* dl_ops_write_into: the caller's transaction, which
	                                 sets delta.rowTracking itself */
	bool joined;                  /* an action went into the transaction */
	bool owns_store;              /* store opened by dl_ops_write (not o->store) */
} write_ctx;

/* Spark's name of a save mode ("Append", "Overwrite", ...). */
const char *dl_ops_write_mode_name(dl_write_mode m);
/* Sets the transaction's metaData to `schema` and `config` (the table's
 * other fields kept). */
int dl_ops_write_commit_schema(write_ctx *c, const dl_type *schema, const dl_str_map *config);

/* write_commit.c */
/* operationParameters and operationMetrics of the commit, as Spark's. */
int dl_ops_write_commit_info(write_ctx *c);
/* A metaData with the identity columns' new high water marks, when the
 * write handed out identity values. */
int dl_ops_write_commit_identity(write_ctx *c);
/* The adds of the files written (with row ids when rows are tracked). */
int dl_ops_write_add_files(write_ctx *c);
/* The cdc actions of the change data files a rewrite wrote. */
int dl_ops_write_add_change_data(write_ctx *c);

#endif
