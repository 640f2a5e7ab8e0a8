/* The write operation (DataFrameWriter.save of Delta): the internal entry
 * point behind dl_write, taking the library's batch stream, so the CLI can
 * feed CSV / JSON lines / Parquet input and show progress. */
#ifndef DL_OPS_WRITE_H
#define DL_OPS_WRITE_H
#include "columnar/batch_stream.h"
#include "deltalake/txn.h"
#include "deltalake/write.h"
#include "rewrite/file_writer.h"

/* Called after each input batch with the rows taken so far. */
typedef void (*dl_write_progress_fn)(void *payload, int64_t rows);

/* Writes the rows of `data` (borrowed; the caller frees it) to the table at
 * `uri` (see dl_write). */
int dl_ops_write(int64_t *version, const char *uri, dl_batch_stream *data,
                 const dl_write_options *opts, dl_write_progress_fn progress, void *payload);

/* The data part of dl_ops_write for an append (o->mode DL_WRITE_APPEND, no
 * txn_app_id) into the open transaction `t` (of an existing table): files
 * written with all the rules of an append, their adds (and a metaData when
 * identity columns handed out values) joined to `t`. *row_hwm (in/out) is
 * the last row id handed out (DL_NONE: the read snapshot's mark); the
 * delta.rowTracking domain is left to the caller. On success *files holds
 * the files written (the caller frees it, discarding them when the
 * transaction never commits); on failure they are already deleted, and
 * *joined tells whether some action had already gone into `t` (then `t`
 * must not commit). */
int dl_ops_write_into(dl_files_writer **files, int64_t *row_hwm, bool *joined,
                      dl_transaction *t, dl_batch_stream *data, const dl_write_options *o);

/* dl_ops_write_into where the table schema after the write is `schema`
 * (borrowed; NULL: derived from the data) when the data changes it: the
 * caller evolved it and, under column mapping, handed out the new fields'
 * ids and physical names, as MERGE does for the files it rewrote before
 * its inserts. */
int dl_ops_write_into_schema(dl_files_writer **files, int64_t *row_hwm, bool *joined,
                             dl_transaction *t, dl_batch_stream *data, const dl_write_options *o,
                             const dl_type *schema);

#endif
