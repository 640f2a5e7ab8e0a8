/* Changing a table after it exists: ALTER TABLE in every form, table
 * properties, CHECK constraints, and adding or dropping table features
 * (AlterTableCommands, DeltaTable.upgradeTableProtocol / addFeatureSupport /
 * dropFeatureSupport of delta-io/delta).
 *
 *   dl_alter_column c = DL_ALTER_COLUMN_INIT;
 *   c.name = "s.f"; c.type = "INT"; c.comment = "new";
 *   int64_t v;
 *   dl_alter_add_columns(&v, "/data/events", &c, 1, NULL);   // ADD COLUMNS (s.f INT COMMENT 'new')
 *
 *   const char *k[] = {"delta.enableChangeDataFeed"}, *val[] = {"true"};
 *   dl_alter_set_properties(&v, "/data/events", k, val, 1, NULL);
 *   dl_alter_add_constraint(&v, "/data/events", "positive", "id > 0", NULL);
 *   dl_drop_feature(&v, "/data/events", "deletionVectors", false, NULL);
 *
 * SQL has the same forms (`ALTER TABLE t <clause>` through deltalake/sql.h)
 * and the CLI's `deltalake alter TABLE "<clause>"` runs them that way.
 *
 * Every call commits one version with a metaData and/or protocol action
 * (a few also add or remove files: DROP FEATURE purging deletion vectors or
 * rewriting widened types, SET NOT NULL and ADD CONSTRAINT only read) through
 * the transaction layer, with Spark's operation name ("ADD COLUMNS",
 * "CHANGE COLUMN", "RENAME COLUMN", "DROP COLUMNS", "REPLACE COLUMNS",
 * "SET TBLPROPERTIES", "UNSET TBLPROPERTIES", "ADD CONSTRAINT",
 * "DROP CONSTRAINT", "UPGRADE PROTOCOL", "DROP FEATURE", "CLUSTER BY") and
 * operationParameters; a concurrent commit conflicts exactly where Spark's
 * does (DELTA_METADATA_CHANGED, DELTA_PROTOCOL_CHANGED...). Refusals
 * carry Spark's error classes in dl_error_last()->klass. *version is the
 * committed version, or -1 when nothing needed changing (an IF EXISTS that
 * found nothing, a feature already supported). A failure leaves the table
 * as it was.
 *
 * Column names are paths into the schema: "a", "s.f" (struct fields),
 * backquotes for names with dots ("`a.b`"); matched case-insensitively as
 * Spark does. Types are Spark SQL type text ("DECIMAL(10,2)", "STRUCT<a:
 * INT>"), defaults and constraints Spark SQL expressions.
 *
 * Thread safety: no state is kept between calls; concurrent calls are
 * concurrent writers like any others. */
#ifndef DELTALAKE_ALTER_H
#define DELTALAKE_ALTER_H
#include "deltalake/common.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "deltalake/progress.h"
#include "deltalake/store.h"
#ifdef __cplusplus
extern "C" {
#endif

#define DL_ALTER_OPTIONS_VERSION 1
typedef struct dl_alter_options {
	int version;                           /* DL_ALTER_OPTIONS_VERSION */
	dl_store *store;                       /* the table's store (borrowed); uri ignored */
	const dl_store_options *store_options; /* opening the uri's store; NULL: defaults */
	const char *user_metadata;             /* commitInfo.userMetadata, or NULL */
	dl_progress_fn progress;               /* for the forms that read or rewrite files */
	void *progress_payload;
} dl_alter_options;
#define DL_ALTER_OPTIONS_INIT {DL_ALTER_OPTIONS_VERSION, NULL, NULL, NULL, NULL, NULL}

/* ---- columns ---- */

typedef enum dl_column_position {
	DL_COLUMN_POSITION_NONE = 0,  /* ADD: last; CHANGE: unchanged */
	DL_COLUMN_POSITION_FIRST,
	DL_COLUMN_POSITION_AFTER,     /* after `after` (a sibling) */
} dl_column_position;

/* A column of ADD COLUMNS / REPLACE COLUMNS. */
typedef struct dl_alter_column {
	const char *name;                      /* path: "c" or "s.f" (ADD only) */
	const char *type;                      /* Spark SQL type text */
	bool not_null;                         /* ADD: refused (Spark's DELTA_ADD_COLUMN... error) */
	const char *comment;                   /* or NULL */
	const char *default_sql;               /* DEFAULT expression (allowColumnDefaults), or NULL */
	dl_column_position position;
	const char *after;
} dl_alter_column;
#define DL_ALTER_COLUMN_INIT {NULL, NULL, false, NULL, NULL, DL_COLUMN_POSITION_NONE, NULL}

/* ADD COLUMN(S) (...). */
DL_EXTERN(int) dl_alter_add_columns(int64_t *version, const char *uri, const dl_alter_column *cols, size_t ncols,
                                    const dl_alter_options *opts);

/* REPLACE COLUMNS (...), as Spark allows it (drops and reorders need
 * column mapping; types only widen). */
DL_EXTERN(int) dl_alter_replace_columns(int64_t *version, const char *uri, const dl_alter_column *cols,
                                        size_t ncols, const dl_alter_options *opts);

/* DROP COLUMN(S) [IF EXISTS] (...): needs column mapping (name or id);
 * no data file is rewritten. */
DL_EXTERN(int) dl_alter_drop_columns(int64_t *version, const char *uri, const char *const *names, size_t n,
                                     bool if_exists, const dl_alter_options *opts);

/* RENAME COLUMN from TO to: needs column mapping; no file is rewritten. */
DL_EXTERN(int) dl_alter_rename_column(int64_t *version, const char *uri, const char *from, const char *to,
                                      const dl_alter_options *opts);

/* ALTER | CHANGE COLUMN c ...: the fields set are the changes made. */
typedef struct dl_column_change {
	const char *type;                      /* TYPE t: a typeWidening widening (or same type) */
	const char *comment;                   /* COMMENT '...' */
	bool set_not_null;                     /* SET NOT NULL: checked against every row */
	bool drop_not_null;                    /* DROP NOT NULL */
	const char *set_default;               /* SET DEFAULT expr */
	bool drop_default;                     /* DROP DEFAULT */
	dl_column_position position;           /* FIRST | AFTER x */
	const char *after;
	bool sync_identity;                    /* SYNC IDENTITY: high water mark from the data */
	const char *new_name;                  /* CHANGE COLUMN a b ...: a rename (column mapping) */
} dl_column_change;
#define DL_COLUMN_CHANGE_INIT {NULL, NULL, false, false, NULL, false, DL_COLUMN_POSITION_NONE, NULL, false, NULL}

DL_EXTERN(int) dl_alter_change_column(int64_t *version, const char *uri, const char *column,
                                      const dl_column_change *change, const dl_alter_options *opts);

/* ---- properties and constraints ---- */

/* SET TBLPROPERTIES: every delta.* key validated (unknown keys and bad
 * values refused as Spark does), with its effect (enabling a feature,
 * backfilling row tracking, upgrading column mapping...). */
DL_EXTERN(int) dl_alter_set_properties(int64_t *version, const char *uri, const char *const *keys,
                                       const char *const *values, size_t n, const dl_alter_options *opts);
/* The property commit of REORG TABLE ... APPLY (UPGRADE UNIFORM(...)): as
 * dl_alter_set_properties, recorded as Spark's UpgradeUniformProperties
 * (operation "REORG TABLE UPGRADE UNIFORM", parameter properties). */
DL_EXTERN(int) dl_alter_upgrade_uniform_properties(int64_t *version, const char *uri, const char *const *keys,
                                                   const char *const *values, size_t n,
                                                   const dl_alter_options *opts);
/* UNSET TBLPROPERTIES [IF EXISTS] (...) */
DL_EXTERN(int) dl_alter_unset_properties(int64_t *version, const char *uri, const char *const *keys, size_t n,
                                         bool if_exists, const dl_alter_options *opts);

/* ADD CONSTRAINT name CHECK (expr): every existing row must satisfy it
 * (DELTA_NEW_CHECK_CONSTRAINT_VIOLATION naming a row). */
DL_EXTERN(int) dl_alter_add_constraint(int64_t *version, const char *uri, const char *name, const char *expr,
                                       const dl_alter_options *opts);
DL_EXTERN(int) dl_alter_drop_constraint(int64_t *version, const char *uri, const char *name, bool if_exists,
                                        const dl_alter_options *opts);

/* ---- protocol and features ---- */

/* DeltaTable.upgradeTableProtocol(reader, writer): never downgrades. */
DL_EXTERN(int) dl_upgrade_protocol(int64_t *version, const char *uri, int reader_version, int writer_version,
                                   const dl_alter_options *opts);
/* addFeatureSupport / SET TBLPROPERTIES ('delta.feature.X' = 'supported'). */
DL_EXTERN(int) dl_add_feature_support(int64_t *version, const char *uri, const char *feature,
                                      const dl_alter_options *opts);
/* ALTER TABLE t DROP FEATURE X [TRUNCATE HISTORY] / dropFeatureSupport:
 * the protocol's downgrade procedure for X; Spark's errors when it cannot
 * be dropped yet (DELTA_FEATURE_DROP_WAIT_FOR_RETENTION_PERIOD...). */
DL_EXTERN(int) dl_drop_feature(int64_t *version, const char *uri, const char *feature, bool truncate_history,
                               const dl_alter_options *opts);

/* ---- clustering (the maintenance side of liquid clustering) ---- */

/* ALTER TABLE t CLUSTER BY (cols) / CLUSTER BY NONE (ncols 0): at most 4
 * columns with statistics, in the delta.clustering domain metadata. */
DL_EXTERN(int) dl_alter_cluster_by(int64_t *version, const char *uri, const char *const *cols, size_t ncols,
                                   const dl_alter_options *opts);

#ifdef __cplusplus
}
#endif
#endif
