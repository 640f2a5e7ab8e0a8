/* MERGE INTO: upserts, deletes and inserts driven by a source, with Spark's
 * semantics (DeltaTable.merge() of delta-spark, MergeIntoCommand).
 *
 *   dl_merge *m;
 *   dl_merge_options o = DL_MERGE_OPTIONS_INIT;
 *   dl_merge_new(&m, "/data/events", &o);
 *   dl_merge_source_stream(m, &arrow_stream);           // or dl_merge_source_table
 *   dl_merge_alias(m, "t", "s");
 *   dl_merge_on(m, "t.id = s.id");
 *   dl_merge_when_matched_update_all(m, NULL);
 *   dl_merge_when_not_matched_insert_all(m, NULL);
 *   dl_merge_metrics r;
 *   int rc = dl_merge_execute(&r, m);                    // one commit
 *   dl_merge_free(m);
 *
 * Clauses are tried in the order given within their kind; the first whose
 * condition holds acts on a row. Only the last clause of each kind may omit
 * its condition. Two source rows matching one target row fail with
 * DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE unless the only
 * matched clause is an unconditional DELETE. Conditions and values are Spark
 * SQL over the target (its alias, or unqualified names) and the source (its
 * alias); `=` never matches NULL keys, `<=>` does. Errors carry Spark's
 * error class (dl_error_class()). A failed merge leaves the table as it
 * was, without stray files. See docs/DML.md. */
#ifndef DELTALAKE_MERGE_H
#define DELTALAKE_MERGE_H
#include "deltalake/common.h"
#include <stdbool.h>
#include <stdint.h>
#include "deltalake/arrow.h"
#include "deltalake/progress.h"
#include "deltalake/store.h"
#include "deltalake/write.h" /* dl_auto_widening */
#ifdef __cplusplus
extern "C" {
#endif

typedef struct dl_merge dl_merge;

#define DL_MERGE_OPTIONS_VERSION 2
typedef struct dl_merge_options {
	int version;                          /* DL_MERGE_OPTIONS_VERSION */
	dl_store *store;                      /* the target's store (borrowed); uri ignored */
	const dl_store_options *store_options; /* opening the uri's store; NULL: defaults */
	const char *user_metadata;            /* commitInfo.userMetadata, or NULL */
	dl_progress_fn progress;              /* non-zero return cancels (nothing committed) */
	void *progress_payload;
	int64_t memory_limit;                 /* bytes the join may hold; 0: no limit */
	const char *temp_dir;                 /* where spills go; NULL: $TMPDIR or /tmp */
	/* version 2: the type changes schema evolution applies by itself
	 * (deltalake/write.h; Spark's allowAutomaticWidening) */
	dl_auto_widening auto_widening;
} dl_merge_options;
#define DL_MERGE_OPTIONS_INIT \
	{DL_MERGE_OPTIONS_VERSION, NULL, NULL, NULL, NULL, NULL, 0, NULL, DL_AUTO_WIDENING_ALWAYS}

/* What a merge did: Spark's operationMetrics of the MERGE commit. */
typedef struct dl_merge_metrics {
	int64_t version;                      /* the version committed */
	int64_t num_source_rows;
	int64_t num_target_rows_inserted;
	int64_t num_target_rows_updated;
	int64_t num_target_rows_matched_updated;
	int64_t num_target_rows_not_matched_by_source_updated;
	int64_t num_target_rows_deleted;
	int64_t num_target_rows_matched_deleted;
	int64_t num_target_rows_not_matched_by_source_deleted;
	int64_t num_target_rows_copied;
	int64_t num_output_rows;
	int64_t num_target_files_added;
	int64_t num_target_files_removed;
	int64_t num_target_change_files_added;
	int64_t num_target_bytes_added;
	int64_t num_target_bytes_removed;
	int64_t num_target_deletion_vectors_added;
	int64_t num_target_deletion_vectors_removed;
	int64_t num_target_deletion_vectors_updated;
	int64_t execution_time_ms, scan_time_ms, rewrite_time_ms;
} dl_merge_metrics;

/* A merge into the Delta table at `target_uri` (or opts->store). */
DL_EXTERN(int) dl_merge_new(dl_merge **out, const char *target_uri, const dl_merge_options *opts);
DL_EXTERN(void) dl_merge_free(dl_merge *m);

/* The source rows: an Arrow stream (moved: source->release becomes NULL;
 * read once, at execute), or a Delta table at `uri` (version < 0: latest). */
DL_EXTERN(int) dl_merge_source_stream(dl_merge *m, struct ArrowArrayStream *source);
DL_EXTERN(int) dl_merge_source_table(dl_merge *m, const char *uri, int64_t version);
/* Names by which conditions refer to the target and the source (either
 * NULL: none; columns are then referenced unqualified). */
DL_EXTERN(int) dl_merge_alias(dl_merge *m, const char *target_alias, const char *source_alias);
/* The merge condition (Spark SQL). */
DL_EXTERN(int) dl_merge_on(dl_merge *m, const char *condition);

/* WHEN MATCHED [AND condition] THEN UPDATE SET columns[i] = values[i] /
 * UPDATE SET * / DELETE. condition NULL: none. columns name target columns
 * (nested fields with a.b); values are Spark SQL. */
DL_EXTERN(int) dl_merge_when_matched_update(dl_merge *m, const char *condition, const char *const *columns,
                                            const char *const *values, int n);
DL_EXTERN(int) dl_merge_when_matched_update_all(dl_merge *m, const char *condition);
DL_EXTERN(int) dl_merge_when_matched_delete(dl_merge *m, const char *condition);
/* WHEN NOT MATCHED [BY TARGET] [AND condition] THEN INSERT (columns)
 * VALUES (values) / INSERT *. Target columns not listed get NULL (or their
 * default / generated / identity value). */
DL_EXTERN(int) dl_merge_when_not_matched_insert(dl_merge *m, const char *condition, const char *const *columns,
                                                const char *const *values, int n);
DL_EXTERN(int) dl_merge_when_not_matched_insert_all(dl_merge *m, const char *condition);
/* WHEN NOT MATCHED BY SOURCE [AND condition] THEN UPDATE SET ... / DELETE
 * (conditions and values over target columns only). */
DL_EXTERN(int) dl_merge_when_not_matched_by_source_update(dl_merge *m, const char *condition,
                                                          const char *const *columns,
                                                          const char *const *values, int n);
DL_EXTERN(int) dl_merge_when_not_matched_by_source_delete(dl_merge *m, const char *condition);
/* withSchemaEvolution(): source columns unknown to the target that UPDATE
 * SET * / INSERT * (or explicit assignments to them) write are added to the
 * table's schema. */
DL_EXTERN(int) dl_merge_with_schema_evolution(dl_merge *m);

/* Runs the merge: one commit (operation MERGE). metrics may be NULL. A
 * merge executes once. */
DL_EXTERN(int) dl_merge_execute(dl_merge_metrics *metrics, dl_merge *m);

#ifdef __cplusplus
}
#endif
#endif
