/* Progress of long operations, and cancelling them.
 *
 * dl_write, dl_transaction_write, scans (the stream of dl_scan_to_arrow),
 * dl_checkpoint and dl_log_cleanup take a dl_progress_fn and its payload in
 * their options. The library calls it on the thread that runs the
 * operation (for a scan: the thread calling get_next), never on a pool
 * thread and never concurrently for one operation, with the units done so
 * far:
 *
 *   operation   phase        unit      done / total
 *   "write"     "writing"    "rows"    rows taken from the input / -1
 *               "committing" "files"   data files written / the same
 *   "scan"      "reading"    "files"   files read to their end / files planned
 *   "checkpoint" "writing"   "actions" actions written / actions to write
 *   "log cleanup" "deleting" "files"   files deleted / files to delete
 *   "delete", "update" "scanning" "files"  1 / 1 once the files to touch are chosen
 *               "committing" "files"   data files added / the same
 *
 * (dl_transaction_write reports as "transaction write", phase "writing"
 * only: the commit is dl_transaction_commit's. A checkpoint reports when a
 * batch of rows is written and before each file is published.)
 * `rows` and `bytes` are side counters where the operation knows them (rows
 * read by a scan, bytes of data files written), else -1.
 *
 * Returning non-zero cancels: the operation stops as soon as it can and
 * fails with DL_ECANCELLED, leaving the table as it was (a cancelled write
 * commits nothing and deletes the data files it wrote; a cancelled
 * checkpoint publishes no _last_checkpoint; a cancelled cleanup keeps the
 * files it had not deleted yet, each deletion being one the retention
 * allows anyway). A checkpoint or cleanup ends with a call where done ==
 * total, made once the work is done, whose answer no longer matters; a
 * write's last call ("committing") comes before the commit and can still
 * cancel it. The strings are static. Calls are not throttled (one per input
 * batch, per output file...): an expensive callback should rate-limit
 * itself. */
#ifndef DELTALAKE_PROGRESS_H
#define DELTALAKE_PROGRESS_H
#include "deltalake/common.h"
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dl_progress_info {
	const char *operation; /* "write", "transaction write", "scan", "checkpoint", "log cleanup",
	                          "delete", "update" */
	const char *phase;     /* see above */
	const char *unit;      /* what done and total count: "rows", "files", "actions" */
	int64_t done;
	int64_t total;         /* -1 when unknown */
	int64_t rows;          /* rows so far, or -1 */
	int64_t bytes;         /* bytes written so far, or -1 */
} dl_progress_info;

/* Non-zero cancels the operation (DL_ECANCELLED). */
typedef int (*dl_progress_fn)(const dl_progress_info *p, void *payload);

#ifdef __cplusplus
}
#endif
#endif
