/* The public entry point of UniForm (include/deltalake/uniform.h). */
#include "deltalake/uniform.h"

#include <string.h>

#include <stdlib.h>

#include "uniform/iceberg_read.h"
#include "uniform/uniform.h"
#include "util/error.h"
#include "util/options.h"

int dl_uniform_regenerate(dl_uniform_info *out, const char *uri, const dl_uniform_options *opts)
{
	static const size_t ends[] = {sizeof(dl_uniform_options)};
	DL_OPTIONS_ENDS_CHECK(ends, DL_UNIFORM_OPTIONS_VERSION);
	memset(out, 0, sizeof *out);
	out->converted_delta_version = out->previous_delta_version = out->metadata_version = -1;
	out->converted_delta_timestamp = -1;
	dl_uniform_options o = DL_UNIFORM_OPTIONS_INIT;
	if (opts) DL_TRY(dl_options_load(&o, opts, ends, DL_UNIFORM_OPTIONS_VERSION, "dl_uniform_options",
	                                 "DL_UNIFORM_OPTIONS_INIT"));
	dl_store *store = o.store;
	if (!store) DL_TRY(dl_store_open(&store, uri, o.store_options));
	dl_uniform_result r;
	int rc = dl_uniform_convert(&r, store, -1, true, o.force != 0);
	if (rc == 0) {
		out->converted = r.converted;
		out->converted_delta_version = r.delta_version;
		out->previous_delta_version = r.from_version;
		out->metadata_version = r.metadata_version;
		out->snapshot_id = r.snapshot_id;
	}
	if (!o.store) dl_store_free(store);
	return rc;
}

int dl_uniform_status(dl_uniform_info *out, const char *uri, const dl_uniform_options *opts)
{
	static const size_t ends[] = {sizeof(dl_uniform_options)};
	memset(out, 0, sizeof *out);
	out->converted_delta_version = out->previous_delta_version = out->metadata_version = -1;
	out->snapshot_id = out->converted_delta_timestamp = -1;
	dl_uniform_options o = DL_UNIFORM_OPTIONS_INIT;
	if (opts) DL_TRY(dl_options_load(&o, opts, ends, DL_UNIFORM_OPTIONS_VERSION, "dl_uniform_options",
	                                 "DL_UNIFORM_OPTIONS_INIT"));
	dl_store *store = o.store;
	if (!store) DL_TRY(dl_store_open(&store, uri, o.store_options));
	dl_arena a = DL_ARENA_INIT;
	dl_ice_metadata m;
	int rc = dl_ice_metadata_load_latest(&m, &a, store);
	if (rc == DL_ENOTFOUND) {
		dl_error_clear();
		rc = 0;
	} else if (rc == 0) {
		out->converted_delta_version = m.converted_delta_version;
		out->previous_delta_version = m.converted_delta_version;
		out->metadata_version = m.file_version;
		out->snapshot_id = m.current_snapshot_id;
		const char *ts = m.properties ? dl_json_get_str(m.properties, "converted_delta_timestamp") : NULL;
		if (ts) out->converted_delta_timestamp = strtoll(ts, NULL, 10);
	}
	dl_arena_free(&a);
	if (!o.store) dl_store_free(store);
	return rc;
}
