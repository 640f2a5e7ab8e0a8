/* The inside of dl_transaction, shared by the files of src/txn: the
 * builder (txn.c), commitInfo (commit_info.c), conflict checks
 * (conflict.c), the commit loop (commit.c) and post-commit hooks. */
#ifndef DL_TXN_TXN_INTERNAL_H
#define DL_TXN_TXN_INTERNAL_H
#include "expr/expr.h"
#include "log/properties.h"
#include "txn/transaction_api.h"
#include "txn/txn.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/uuid.h"

typedef struct txn_kv {
	char *key;
	char *json;   /* an encoded JSON value */
} txn_kv;

typedef struct txn_app {
	char *app_id;
	int64_t version;
} txn_app;

typedef struct txn_domain {
	char *domain;
	char *configuration;
	bool removed;
} txn_domain;

/* What the winning commits changed, accumulated across retries so the
 * post-commit .crc can still be derived from the read state. */
typedef struct txn_winners {
	int64_t nadds, add_bytes;
	int64_t nremoves, remove_bytes;
	bool sizes_unknown;           /* a winner removed a file without size */
	int64_t last_ict;             /* newest winner inCommitTimestamp, DL_NONE */
	int64_t last_ts;              /* newest winner commitInfo.timestamp, DL_NONE */
	bool txns_changed, domains_changed; /* the .crc lists would be stale */
	bool protocol_changed;        /* a winner upgraded the protocol (no .crc then) */
	int64_t row_id_hwm;           /* newest delta.rowTracking high-water mark, -1 */
} txn_winners;

/* Row tracking (PROTOCOL.md "Row Tracking"): fresh adds carry row ids after
 * the read high-water mark and the version they commit in; when the commit
 * lands later than planned, both are moved instead of failing. */
typedef struct txn_rows {
	bool tracked;                 /* the commit sets the delta.rowTracking domain */
	int64_t read_hwm;             /* the mark the fresh ids start after */
	bool read_known;              /* read_hwm came from the read snapshot */
	int64_t min_fresh_base;       /* lowest baseRowId of adds new in this commit */
	int64_t own_hwm;              /* the mark this commit writes */
	int64_t shift;                /* row ids moved so far */
	int64_t version;              /* defaultRowCommitVersion the lines carry now */
} txn_rows;

struct dl_transaction {
	dl_store *store;
	dl_snapshot *snap;            /* NULL for a new table */
	dl_snapshot *owned_snap;      /* freed with the transaction (public API) */
	dl_strmap *live_index;        /* path -> add of the read state, built on demand */
	int64_t read_version;
	dl_txn_options opts;          /* strings copied below */
	char *operation, *engine_info, *user_metadata;
	char txn_id[DL_UUID_TEXT_LEN + 1];

	/* write set */
	char *protocol_json;          /* body of the protocol action, or NULL */
	char *metadata_json;          /* body of the metaData action, or NULL */
	dl_table_properties new_props; /* of metadata_json (string fields NULL) */
	dl_table_properties default_props; /* for a new table without metaData yet */
	bool has_new_props;
	dl_buf file_lines;            /* add/remove/cdc lines, each ending '\n' */
	int64_t nadds, add_bytes, nremoves, remove_bytes, ncdc;
	bool remove_size_unknown;
	bool data_change;             /* some add/remove has dataChange=true */
	bool only_data_adds;          /* no removes, no cdc (for isBlindAppend) */
	dl_strmap removed_paths;      /* copied keys */
	txn_app *apps;
	size_t napps, apps_cap;
	txn_domain *domains;
	size_t ndomains, domains_cap;
	txn_rows rows;

	/* read set */
	dl_strmap read_files;         /* copied keys */
	char **predicates;
	dl_expr **bound;              /* bound lazily; NULL entry: matches all */
	size_t npredicates, predicates_cap;
	bool read_whole_table;
	dl_strmap read_apps;          /* copied keys */

	/* commitInfo */
	txn_kv *params;
	size_t nparams, params_cap;
	txn_kv *metrics;
	size_t nmetrics, metrics_cap;
	int blind_append;             /* -1 computed, else 0/1 */

	/* Per-transaction state of a layer above (dl_transaction_write in
	 * src/ops), attached through txn/transaction_api.h. */
	dl_transaction_hook hook;
	bool has_hook;

	/* outcome */
	bool committed;
	bool commit_unknown; /* the commit failed and reading it back too: it may be in the log */
	int64_t version;
	int64_t commit_ts;
	int attempts;
	txn_winners winners;
	int post_rc;
	char *post_msg;
};

/* The table properties in force for this commit (new metaData or read). */
const dl_table_properties *dl_txn_props(const dl_transaction *t);
/* The isolation level name written to commitInfo and used for checks. */
dl_isolation_level dl_txn_isolation(const dl_transaction *t);
bool dl_txn_is_blind_append(const dl_transaction *t);

/* commit_info.c: the commitInfo line (with '\n') for one attempt. */
int dl_txn_commit_info(dl_buf *out, const dl_transaction *t, int64_t timestamp, int64_t ict);

/* conflict.c: reads the winning commit `version` and checks it against
 * the transaction. 0 (retry), DL_ECONFLICT with a class, or a read error. */
int dl_txn_check_winner(dl_transaction *t, int64_t version);

/* row_tracking.c: the high-water mark of a domain configuration (-1 when
 * absent or malformed), and moving the fresh row ids and commit version of
 * the write set to commit at `version` after winners raised the mark. */
int64_t dl_txn_row_id_hwm(const char *configuration);
int dl_txn_rebase_rows(dl_transaction *t, int64_t version);

/* post_commit.c: checksum file, checkpoint and log cleanup after a commit. */
void dl_txn_post_commit(dl_transaction *t);
/* The UniForm/IcebergCompat rules for a commit's new metaData (uniform/iceberg_compat.c). */
int dl_txn_check_uniform(const dl_metadata *md);

#endif
