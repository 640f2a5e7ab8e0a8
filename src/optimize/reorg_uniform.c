/* REORG TABLE ... APPLY (UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION=N)): the
 * rewrite step (Spark's ReorgTableForUpgradeUniformHelper). Files that an
 * Iceberg reader cannot read correctly are rewritten through the REORG
 * machinery of optimize.c: files with deletion vectors (Iceberg does not
 * see DVs; the rewrite applies them) and files not yet tagged
 * ICEBERG_COMPAT_VERSION = N, which may predate column mapping and so
 * lack the Parquet field ids Iceberg resolves columns by. The files it
 * writes carry the tag, so a second REORG rewrites nothing. The property
 * changes (DVs off and column mapping on before, IcebergCompatV2 and
 * enabledFormats after) belong to the statement (sql/stmt_optimize.c). */
#include <stdio.h>
#include <string.h>

#include "deltalake/maintenance.h"
#include "optimize/optimize_internal.h"
#include "util/error.h"

#define TAG "ICEBERG_COMPAT_VERSION"

bool dl_opt_iceberg_tagged(const dl_add *a, int version)
{
	bool found;
	const char *v = dl_str_map_get(&a->tags, TAG, &found);
	char want[16];
	snprintf(want, sizeof want, "%d", version);
	return v && strcmp(v, want) == 0;
}

int dl_opt_iceberg_tag(dl_add *a, dl_arena *arena, int version)
{
	dl_kv *items = dl_arena_calloc(arena, (size_t)a->tags.n + 1, sizeof *items);
	char *v = dl_arena_alloc(arena, 16);
	if (!items || !v) return DL_ENOMEM;
	snprintf(v, 16, "%d", version);
	uint32_t n = 0;
	for (uint32_t i = 0; i < a->tags.n; i++)
		if (strcmp(a->tags.items[i].key, TAG) != 0) items[n++] = a->tags.items[i];
	items[n].key = TAG;
	items[n++].value = v;
	a->tags = (dl_str_map){items, n};
	return 0;
}

int dl_reorg_upgrade_uniform(dl_optimize_metrics *metrics, const char *uri, int version,
                             const dl_reorg_options *opts)
{
	if (!metrics) return dl_error_set(DL_EINVALID, "dl_reorg_upgrade_uniform: metrics missing");
	dl_opt_metrics_init(metrics);
	if (version != 2)
		return dl_error_set_class(DL_EUNSUPPORTED, "DELTA_UNIVERSAL_FORMAT_VIOLATION",
		                          "REORG TABLE ... APPLY (UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION=%d)): "
		                          "only ICEBERG_COMPAT_VERSION=2 is supported",
		                          version);
	opt_request r;
	DL_TRY(dl_opt_reorg_request(&r, opts, "dl_reorg_upgrade_uniform"));
	r.iceberg_compat = version;
	int rc = dl_opt_run(metrics, uri, &r);
	if (rc < 0) dl_opt_metrics_init(metrics);
	return rc;
}
