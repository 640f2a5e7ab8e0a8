/* ALTER TABLE t CLUSTER BY (cols) | CLUSTER BY NONE (Spark's
 * AlterTableClusterByDeltaCommand and the checks DeltaCatalog.alterTable
 * makes before it), see include/deltalake/alter.h.
 *
 * The rules, in Spark's order:
 *   - more than 4 columns: DELTA_CLUSTER_BY_INVALID_NUM_COLUMNS;
 *   - a partitioned table, with columns or NONE:
 *     DELTA_ALTER_TABLE_CLUSTER_BY_ON_PARTITIONED_TABLE_NOT_ALLOWED;
 *   - CLUSTER BY NONE on a table without the clustering feature: nothing
 *     is committed (*version -1);
 *   - the columns must exist and have statistics (optimize/clustering.c);
 *   - a table without the clustering feature gets it, as Spark's
 *     getTableFeatureProperties asks (delta.feature.clustering =
 *     supported, which brings domainMetadata): a protocol action and the
 *     metaData Spark's txn.updateMetadata commits;
 *   - the delta.clustering domain then holds the new columns (NONE: an
 *     empty list: the table stays clustered, by nothing);
 *   - commitInfo: operation "CLUSTER BY", operationParameters
 *     oldClusteringColumns / newClusteringColumns, the logical names
 *     joined by ",". */
#include <string.h>
#include "alter/alter_txn.h"
#include "deltalake/alter.h"
#include "log/protocol.h"
#include "log/snapshot.h"
#include "log/table_features.h"
#include "ops/create.h"
#include "ops/protocol_choose.h"
#include "optimize/clustering.h"
#include "txn/txn.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/options.h"

typedef struct cluster_ctx {
	dl_alter_txn t; /* the shared ALTER transaction (alter_txn.h) */
	dl_clustering old, neu;
	dl_buf old_names, new_names, domain;
} cluster_ctx;

static int join_names(dl_buf *out, const dl_clustering *c)
{
	for (int i = 0; i < c->n; i++) {
		if (i) DL_TRY(dl_buf_putc(out, ','));
		DL_TRY(dl_buf_puts(out, c->cols[i].name));
	}
	return dl_buf_putc(out, 0);
}

/* The protocol with the clustering feature (and what it requires), and the
 * metaData Spark commits with it: the configuration is unchanged, since the
 * delta.feature.* key only asks for the protocol. */
static int enable_clustering(cluster_ctx *c)
{
	const dl_log_state *st = dl_snapshot_state(c->t.snap);
	const dl_str_map *cfg = &st->metadata->configuration;
	dl_kv *items = dl_arena_calloc(&c->t.arena, (size_t)cfg->n + 1, sizeof *items);
	if (!items) return DL_ENOMEM;
	if (cfg->n) memcpy(items, cfg->items, cfg->n * sizeof *items);
	items[cfg->n].key = "delta.feature.clustering";
	items[cfg->n].value = "supported";
	dl_str_map with = {items, cfg->n + 1};
	dl_protocol p;
	DL_TRY(dl_ops_choose_protocol(&p, &c->t.arena, dl_snapshot_schema(c->t.snap), &with, st->protocol));
	if (!dl_ops_protocol_equal(&p, st->protocol)) DL_TRY(dl_txn_set_protocol(c->t.txn, &p));
	return dl_txn_set_metadata(c->t.txn, st->metadata);
}

static int run(cluster_ctx *c, int64_t *version, const char *uri, const char *const *cols, size_t ncols,
               const dl_alter_options *opts)
{
	if (ncols > (size_t)DL_CLUSTERING_MAX_COLUMNS)
		return dl_error_set_class(DL_EINVALID, "DELTA_CLUSTER_BY_INVALID_NUM_COLUMNS",
		                          "CLUSTER BY supports up to %d clustering columns, but the table has %zu "
		                          "clustering columns. Please remove the extra clustering columns.",
		                          DL_CLUSTERING_MAX_COLUMNS, ncols);
	if (ncols && !cols) return dl_error_set(DL_EINVALID, "dl_alter_cluster_by: %zu columns without names", ncols);
	DL_TRY(dl_alter_open(&c->t, uri, opts));
	const dl_log_state *st = dl_snapshot_state(c->t.snap);
	if (st->metadata->npartition_columns)
		return dl_error_set_class(DL_EINVALID, "DELTA_ALTER_TABLE_CLUSTER_BY_ON_PARTITIONED_TABLE_NOT_ALLOWED",
		                          "ALTER TABLE CLUSTER BY cannot be applied to a partitioned table.");
	bool supported = dl_protocol_has(st->protocol, DL_FEATURE_CLUSTERING);
	if (ncols == 0 && !supported) return 0; /* Spark skips CLUSTER BY NONE on a non-clustered table */
	dl_table_properties props;
	dl_table_properties_defaults(&props);
	DL_TRY(dl_table_properties_parse(&props, &st->metadata->configuration, false));
	const dl_type *schema = dl_snapshot_schema(c->t.snap);
	bool present;
	DL_TRY(dl_clustering_from_snapshot(&c->old, &present, c->t.snap));
	DL_TRY(dl_clustering_resolve(&c->neu, cols, (int)ncols, schema, props.column_mapping_mode));
	DL_TRY(dl_clustering_validate(&c->neu, schema, &props, NULL, 0));
	DL_TRY(join_names(&c->old_names, &c->old));
	DL_TRY(join_names(&c->new_names, &c->neu));
	DL_TRY(dl_clustering_domain_json(&c->domain, &c->neu));
	DL_TRY(dl_buf_putc(&c->domain, 0));
	DL_TRY(dl_alter_start(&c->t, "CLUSTER BY"));
	if (!supported) DL_TRY(enable_clustering(c));
	DL_TRY(dl_txn_set_domain(c->t.txn, DL_CLUSTERING_DOMAIN, (const char *)c->domain.data, false));
	DL_TRY(dl_txn_set_parameter(c->t.txn, "oldClusteringColumns", (const char *)c->old_names.data));
	DL_TRY(dl_txn_set_parameter(c->t.txn, "newClusteringColumns", (const char *)c->new_names.data));
	DL_TRY(dl_alter_progress(&c->t, "committing", "actions", 1, 1, -1));
	return dl_txn_commit(c->t.txn, version);
}

int dl_alter_cluster_by(int64_t *version, const char *uri, const char *const *cols, size_t ncols,
                        const dl_alter_options *opts)
{
	if (!version) return dl_error_set(DL_EINVALID, "dl_alter_cluster_by: version is NULL");
	*version = -1;
	cluster_ctx c;
	memset(&c, 0, sizeof c);
	int rc = run(&c, version, uri, cols, ncols, opts);
	dl_alter_end(&c.t);
	dl_clustering_free(&c.old);
	dl_clustering_free(&c.neu);
	dl_buf_free(&c.old_names);
	dl_buf_free(&c.new_names);
	dl_buf_free(&c.domain);
	return rc;
}
