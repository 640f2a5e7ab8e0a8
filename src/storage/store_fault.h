/* The fault-injection backend (fault://<inner-uri>), for tests: a store that
 * forwards every call to the store of <inner-uri> ("fault://file:///tmp/t",
 * "fault://mem://x") and fails the calls its options name, so each layer
 * above can be tested against a failing store.
 *
 * Options (dl_store_options keys):
 *   fault.fail_kind  which calls can fail: get, get_range, put,
 *                    put_if_absent, list, delete, stat, writer_open,
 *                    writer_write, writer_commit, reader_open, reader_read,
 *                    delete_many, or any (default any)
 *   fault.fail_nth   the first failing call, 1-based, counted among the
 *                    calls of fail_kind (for any: among all calls); 0 or
 *                    unset: none fails
 *   fault.fail_times how many calls fail from the nth on (default 1; 0:
 *                    every later one too)
 *   fault.error      eio, enospc (both DL_EIO, with the OS's wording),
 *                    notfound (DL_ENOTFOUND), exists (DL_EEXISTS) or nomem
 *                    (DL_ENOMEM); default eio
 *   fault.torn_write true: a failing put, put_if_absent or writer_write
 *                    first writes half of its bytes (to a temp object of
 *                    the inner store, or the streamed object) and then
 *                    fails, as a disk that fills up mid-write does
 *   fault.fail_after true: a failing put, put_if_absent, delete or
 *                    writer_commit is carried out and then reports the
 *                    failure (a lost reply, a failed directory sync after
 *                    the rename): the caller cannot tell whether it happened
 *   fault.latency_ms sleep this long before every call
 * Without fail_after a failed call does not reach the inner store (except
 * the torn half),
 * and its message names the store, the call, the path and the fault.
 *
 * Every call is counted per kind (failed ones included), so a test can
 * first count what an operation does and then fail each call in turn. */
#ifndef DL_STORAGE_STORE_FAULT_H
#define DL_STORAGE_STORE_FAULT_H
#include <stdint.h>
#include "deltalake/store.h"

typedef enum dl_fault_kind {
	DL_FAULT_GET = 0,
	DL_FAULT_GET_RANGE,
	DL_FAULT_PUT,
	DL_FAULT_PUT_IF_ABSENT,
	DL_FAULT_LIST,
	DL_FAULT_DELETE,
	DL_FAULT_STAT,
	DL_FAULT_WRITER_OPEN,
	DL_FAULT_WRITER_WRITE,
	DL_FAULT_WRITER_COMMIT,
	DL_FAULT_READER_OPEN,
	DL_FAULT_READER_READ,
	DL_FAULT_DELETE_MANY, /* one per batch; each of its paths counts as a delete too */
	DL_FAULT_NKINDS,
	DL_FAULT_ANY = DL_FAULT_NKINDS,
} dl_fault_kind;

typedef struct dl_store_fault_counts {
	int64_t calls[DL_FAULT_NKINDS]; /* per kind, failed calls included */
	int64_t total;                  /* all calls */
	int64_t injected;               /* calls that failed by injection */
} dl_store_fault_counts;

/* The counts of a fault:// store so far. DL_EINVALID for another store. */
int dl_store_fault_counts_get(dl_store_fault_counts *out, const dl_store *s);
/* Sets all counts back to 0 (the nth call is counted from here). */
int dl_store_fault_counts_reset(dl_store *s);
/* "put_if_absent", ... ("any" for DL_FAULT_ANY). */
const char *dl_fault_kind_name(dl_fault_kind k);

#endif
