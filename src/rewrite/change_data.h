/* Change data files (PROTOCOL.md "Add CDC File", "Change Data Files"): rows
 * of the table schema plus `_change_type` (insert, delete, update_preimage,
 * update_postimage) under _change_data/, committed as cdc actions with
 * dataChange false. Readers of the change data feed use a commit's cdc files
 * instead of deriving changes from its adds and removes, so a command that
 * writes any must write all of its changes this way. */
#ifndef DL_REWRITE_CHANGE_DATA_H
#define DL_REWRITE_CHANGE_DATA_H
#include "columnar/array.h"
#include "deltalake/store.h"
#include "log/properties.h"
#include "txn/txn.h"

typedef struct dl_change_writer dl_change_writer;

/* `schema`: the logical table schema written (borrowed; outlives the
 * writer); partition columns as in add actions. */
int dl_change_writer_open(dl_change_writer **out, dl_store *store, const dl_type *schema,
                          const char *const *part_cols, int npart,
                          const dl_table_properties *props);
/* Writes the rows of `b` (the table schema's columns first; further
 * columns are ignored) with _change_type `kind`. */
int dl_change_writer_write(dl_change_writer *w, const dl_batch *b, const char *kind);
/* Closes the files; then count and commit are complete. */
int dl_change_writer_finish(dl_change_writer *w);
size_t dl_change_writer_count(const dl_change_writer *w);
/* Joins a cdc action per file to t. */
int dl_change_writer_commit(dl_change_writer *w, dl_transaction *t);
/* Deletes the files written (a commit that did not happen). */
void dl_change_writer_discard(dl_change_writer *w);
void dl_change_writer_free(dl_change_writer *w);

#endif
