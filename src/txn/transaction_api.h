/* Hooks of layers above the transaction on the public handle
 * (include/deltalake/txn.h): dl_transaction_write (src/ops) attaches the
 * data files it wrote, so the commit can finish its actions and a
 * transaction freed without committing deletes them. */
#ifndef DL_TXN_TRANSACTION_API_H
#define DL_TXN_TRANSACTION_API_H
#include <stdbool.h>
#include "deltalake/txn.h"

typedef struct dl_transaction_hook {
	/* Runs first in dl_transaction_commit (a failure fails the commit). */
	int (*before_commit)(void *payload, dl_transaction *t);
	/* Runs in dl_transaction_free; committed tells whether the commit landed. */
	void (*release)(void *payload, bool committed);
	void *payload;
} dl_transaction_hook;

/* At most one hook per transaction: DL_EINVALID when one is attached. */
int dl_transaction_attach(dl_transaction *t, const dl_transaction_hook *hook);
/* The payload attached to `t`, or NULL. */
void *dl_transaction_attached(const dl_transaction *t);

#endif
