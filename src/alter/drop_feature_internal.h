/* The per-feature steps of DROP FEATURE (drop_feature_steps.c), driven by
 * drop_feature.c. */
#ifndef DL_ALTER_DROP_FEATURE_INTERNAL_H
#define DL_ALTER_DROP_FEATURE_INTERNAL_H
#include <stdbool.h>
#include "alter/properties_internal.h"
#include "rewrite/rewrite.h"

typedef struct df_step {
	int feature;                               /* dl_table_feature */
	/* Spark's preDowngradeCommand: disables the feature and removes its
	 * traces from the latest version, in commits of its own; *changed when
	 * it committed anything. c->t.snap is the latest version afterwards. */
	int (*prepare)(ap_ctx *c, bool *changed);
	/* validateDropInvariants on the latest snapshot. */
	bool (*clean)(ap_ctx *c);
	/* actionUsesFeature for the history check (NULL: no action traces). */
	bool (*action_trace)(const dl_action *a);
	/* Its traces are V2 checkpoint files among the log files kept. */
	bool checkpoint_trace;
} df_step;

const df_step *df_step_for(int feature);

/* drop_feature_types.c: typeWidening and its -preview twin. */
int df_type_widening_prepare(ap_ctx *c, bool *changed);
bool df_type_widening_clean(ap_ctx *c);
bool df_type_widening_trace(const dl_action *a);
/* Runs a rewrite of copies and stages its actions in c->t.txn, with the
 * delta.rowTracking high-water mark moved past any row ids it assigned. */
int df_rewrite_stage(ap_ctx *c, dl_rewrite *rw);

/* drop_feature_mapping.c: columnMapping. */
int df_column_mapping_prepare(ap_ctx *c, bool *changed);
bool df_column_mapping_clean(ap_ctx *c);
bool df_column_mapping_trace(const dl_action *a);

#endif
