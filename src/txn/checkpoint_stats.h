/* add.stats_parsed of checkpoints (PROTOCOL.md "Checkpoints": stats in
 * their original format when delta.checkpoint.writeStatsAsStruct is true). */
#ifndef DL_TXN_CHECKPOINT_STATS_H
#define DL_TXN_CHECKPOINT_STATS_H
#include "columnar/builder.h"
#include "log/actions.h"
#include "log/snapshot.h"

typedef struct dl_ckpt_stats {
	dl_type *minmax;     /* struct of the columns with min/max (physical names) */
	dl_type *nulls;      /* the same shape for nullCount, every leaf a long */
	bool tight_bounds;   /* the table may hold deletion vectors: tightBounds field */
	char *type_json;     /* the stats_parsed struct type as Delta schema JSON */
} dl_ckpt_stats;

/* The stats_parsed type of a snapshot's table: numRecords, minValues,
 * maxValues, nullCount (and tightBounds with deletion vectors) over the
 * first delta.dataSkippingNumIndexedCols leaf columns (or
 * delta.dataSkippingStatsColumns), partition columns excluded, as Spark
 * collects them: min/max for numbers, dates, timestamps and strings only. */
int dl_ckpt_stats_init(dl_ckpt_stats *out, const dl_snapshot *snap);
void dl_ckpt_stats_free(dl_ckpt_stats *s);
/* Appends one add's stats (its stats JSON parsed and typed) to `b`, a
 * builder of the stats_parsed type; null when the add has no stats. */
int dl_ckpt_stats_put(dl_builder *b, const dl_ckpt_stats *s, const dl_add *a);

#endif
