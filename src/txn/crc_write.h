/* Writing the version checksum file N.crc after a commit (crc_write.c). */
#ifndef DL_TXN_CRC_WRITE_H
#define DL_TXN_CRC_WRITE_H
#include "txn/txn_internal.h"

/* Writes N.crc for the committed version when the new state is known
 * exactly; 0 without writing when it is not (or it exists already). */
int dl_txn_write_crc(dl_transaction *t);

#endif
