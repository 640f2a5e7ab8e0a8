/* MERGE for the SQL layer: the public builder (include/deltalake/merge.h)
 * plus a source given as the library's own batch stream (a query's plan). */
#ifndef DL_DML_MERGE_H
#define DL_DML_MERGE_H
#include "columnar/batch_stream.h"
#include "deltalake/merge.h"

/* The source rows as a batch stream (owned by m from here on, also on
 * failure); read once, at execute. */
int dl_merge_source_batches(dl_merge *m, dl_batch_stream *source);

#endif
