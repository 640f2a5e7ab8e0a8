/* libdeltalake: read, write and maintain Delta Lake tables from C.
 * Umbrella header: include this one. Conventions: docs/ARCHITECTURE.md. */
#ifndef DELTALAKE_H
#define DELTALAKE_H

#include "deltalake/error.h"
#include "deltalake/progress.h"
#include "deltalake/store.h"
#include "deltalake/arrow.h"
#include "deltalake/snapshot.h"
#include "deltalake/scan.h"
#include "deltalake/history.h"
#include "deltalake/changes.h"
#include "deltalake/write.h"
#include "deltalake/merge.h"
#include "deltalake/txn.h"
#include "deltalake/parquet.h"
#include "deltalake/input.h"
#include "deltalake/schema.h"
#include "deltalake/timestamp.h"
#include "deltalake/maintenance.h"
#include "deltalake/catalog.h"
#include "deltalake/dml.h"
#include "deltalake/sql.h"
#include "deltalake/stream.h"
#include "deltalake/alter.h"
#include "deltalake/sharing.h"
#include "deltalake/stats_summary.h"
#include "deltalake/uniform.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library version, e.g. "0.1.0". */
DL_EXTERN(const char *) dl_version(void);

#ifdef __cplusplus
}
#endif
#endif
