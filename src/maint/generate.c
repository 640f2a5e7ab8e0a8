/* GENERATE symlink_format_manifest FOR TABLE (Spark's DeltaGenerateCommand):
 * the manifests of the latest version, written by the same code as the
 * post-commit hook (src/txn/symlink_manifest.c). Commits nothing. */
#include <string.h>
#include <strings.h>

#include "deltalake/maintenance.h"
#include "ops/create.h"
#include "txn/symlink_manifest.h"
#include "util/error.h"
#include "util/options.h"

static const size_t generate_ends[] = {sizeof(dl_generate_options)};
DL_OPTIONS_ENDS_CHECK(generate_ends, DL_GENERATE_OPTIONS_VERSION);

int dl_generate_manifest(int64_t *files, const char *uri, const dl_generate_options *opts)
{
	if (files) *files = 0;
	dl_generate_options o = DL_GENERATE_OPTIONS_INIT;
	DL_TRY(dl_options_load(&o, opts, generate_ends, DL_GENERATE_OPTIONS_VERSION,
	                       "dl_generate_options", "DL_GENERATE_OPTIONS_INIT"));
	/* Spark: DeltaGenerateCommand.modeNameToGenerationFunc, case-insensitive */
	if (o.mode && strcasecmp(o.mode, "symlink_format_manifest") != 0)
		return dl_error_set_class(DL_EINVALID, "DELTA_MODE_NOT_SUPPORTED",
		                          "Specified mode '%s' is not supported. Supported modes are: "
		                          "symlink_format_manifest", o.mode);
	dl_store *store = o.store;
	if (!store) {
		if (!uri) return dl_error_set(DL_EINVALID, "GENERATE: no table given");
		DL_TRY(dl_store_open(&store, uri, o.store_options));
	}
	dl_snapshot *snap = NULL;
	int rc = dl_ops_open_latest(&snap, store);
	if (rc == 0 && !snap)
		rc = dl_error_set_class(DL_ENOTFOUND, "DELTA_TABLE_NOT_FOUND",
		                        "GENERATE: no Delta table at %s", dl_store_root(store));
	if (rc == 0 && o.progress) {
		dl_progress_info p = {"generate", "writing", "files", 0, -1, -1, -1};
		if (o.progress(&p, o.progress_payload))
			rc = dl_error_set(DL_ECANCELLED, "GENERATE cancelled by the progress callback");
	}
	if (rc == 0) rc = dl_symlink_manifest_write(files, store, snap);
	dl_snapshot_free(snap);
	if (!o.store) dl_store_free(store);
	return rc;
}
