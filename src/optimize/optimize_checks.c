/* OPTIMIZE's checks before anything is read, in Spark's order
 * (OptimizeTableCommand): WHERE on partition columns only, ZORDER BY
 * columns that exist, are not partition columns and have statistics, and
 * the columns a curve orders by resolved to the scan's output. */
#include "optimize/optimize_internal.h"

#include <string.h>
#include <strings.h>

#include "expr/expr.h"
#include "util/error.h"
#include "util/mem.h"

static bool is_partition_col(const opt_cmd *c, const char *name)
{
	for (int i = 0; i < c->npart; i++)
		if (!strcasecmp(c->part_cols[i], name)) return true;
	return false;
}

typedef struct where_check {
	opt_cmd *c;
	const char *bad;
} where_check;

static int where_column(const char *const *path, int depth, void *payload)
{
	where_check *w = payload;
	if (!w->bad && (depth != 1 || !is_partition_col(w->c, path[0]))) w->bad = path[0];
	return 0;
}

/* WHERE: partition columns only (Spark's OptimizeTableCommand refuses
 * the others naming the first). */
int dl_opt_check_where(opt_cmd *c, const char *where, dl_expr **out)
{
	dl_expr *e;
	if (dl_expr_parse(&e, where) < 0) return dl_error_prefix("the %s predicate", c->operation);
	int rc = dl_expr_bind(e, dl_snapshot_schema(c->snap));
	if (rc < 0) {
		dl_expr_free(e);
		return dl_error_prefix("the %s predicate", c->operation);
	}
	where_check w = {c, NULL};
	rc = dl_expr_columns(e, where_column, &w);
	if (rc == 0 && w.bad && c->clustered)
		rc = dl_error_set_class(DL_EINVALID, "DELTA_CLUSTERING_WITH_PARTITION_PREDICATE",
		                        "OPTIMIZE command for Delta table with Liquid clustering doesn't support "
		                        "partition predicates. Please remove the predicates: %s.", where);
	else if (rc == 0 && w.bad) {
		dl_buf l = DL_BUF_INIT;
		for (int i = 0; i < c->npart; i++) dl_buf_printf(&l, "%s%s", i ? ", " : "", c->part_cols[i]);
		rc = dl_error_set_class(DL_EINVALID, "DELTA_NON_PARTITION_COLUMN_REFERENCE",
		                        "Predicate references non-partition column '%s'. Only the partition "
		                        "columns may be referenced: [%s]", w.bad, l.data ? l.data : "");
		dl_buf_free(&l);
	}
	if (rc < 0) dl_expr_free(e);
	else *out = e;
	return rc;
}

/* Resolves an order column (logical name, nested with '.') to the scan's
 * layout: top-level index in the snapshot schema and child indexes. */
int dl_opt_resolve_order(opt_cmd *c, const dl_clustering_column *cc, opt_order_col *o)
{
	const dl_type *t = dl_snapshot_schema(c->snap);
	if (cc->nparts > (int)(sizeof o->path / sizeof o->path[0]) + 1)
		return dl_error_set(DL_EUNSUPPORTED, "column %s is nested too deeply", cc->name);
	for (int d = 0; d < cc->nparts; d++) {
		int idx = -1;
		for (int i = 0; i < t->nchildren && idx < 0; i++)
			if (!strcmp(t->children[i].name, cc->logical[d])) idx = i;
		if (idx < 0) return dl_error_set(DL_ERROR, "column %s vanished from the schema", cc->name);
		if (d == 0) o->top = idx;
		else o->path[d - 1] = idx;
		t = t->children[idx].type;
	}
	o->depth = cc->nparts - 1;
	return 0;
}

/* ZORDER BY: Spark's OptimizeTableCommand.validateZorderByColumns. */
int dl_opt_check_zorder(opt_cmd *c, const opt_request *r)
{
	const dl_type *schema = dl_snapshot_schema(c->snap);
	if (c->clustered) {
		dl_buf l = DL_BUF_INIT;
		for (int i = 0; i < r->nzorder_by; i++) dl_buf_printf(&l, "%s%s", i ? ", " : "", r->zorder_by[i]);
		int rc = dl_error_set_class(DL_EINVALID, "DELTA_CLUSTERING_WITH_ZORDER_BY",
		                            "OPTIMIZE command for Delta table with Liquid clustering cannot specify "
		                            "ZORDER BY. Please remove ZORDER BY (%s).", l.data ? l.data : "");
		dl_buf_free(&l);
		return rc;
	}
	if (r->nzorder_by > (int)(sizeof c->order / sizeof c->order[0]))
		return dl_error_set(DL_EUNSUPPORTED, "ZORDER BY takes at most %d columns",
		                    (int)(sizeof c->order / sizeof c->order[0]));
	dl_clustering cols = {0};
	dl_buf nostats = DL_BUF_INIT;
	int rc = 0;
	for (int i = 0; i < r->nzorder_by && rc == 0; i++) {
		char **parts;
		int np;
		if ((rc = dl_column_name_split(&parts, &np, r->zorder_by[i]))) break;
		if (is_partition_col(c, parts[0]) && np == 1)
			rc = dl_error_set_class(DL_EINVALID, "DELTA_ZORDERING_ON_PARTITION_COLUMN",
			                        "%s is a partition column. Z-Ordering can only be performed on data "
			                        "columns", r->zorder_by[i]);
		for (int k = 0; k < np; k++) dl_free(parts[k]);
		dl_free(parts);
		if (rc) break;
		dl_clustering one;
		const char *nm = r->zorder_by[i];
		rc = dl_clustering_resolve(&one, &nm, 1, schema, c->props.column_mapping_mode);
		if (rc == DL_EINVALID && !strcmp(dl_error_last()->klass, "DELTA_COLUMN_NOT_FOUND_IN_SCHEMA")) {
			rc = dl_error_set_class(DL_EINVALID, "DELTA_ZORDERING_COLUMN_DOES_NOT_EXIST",
			                        "Z-Ordering column %s does not exist in data schema.", nm);
			break;
		}
		if (rc) break;
		if (!dl_column_has_stats(schema, &c->props, c->part_cols, c->npart,
		                         (const char *const *)one.cols[0].logical, one.cols[0].nparts))
			dl_buf_printf(&nostats, "%s%s", nostats.len ? ", " : "", one.cols[0].name);
		rc = dl_opt_resolve_order(c, &one.cols[0], &c->order[c->norder]);
		if (rc == 0) c->norder++;
		dl_clustering_free(&one);
	}
	if (rc == 0 && nostats.len)
		rc = dl_error_set_class(DL_EINVALID, "DELTA_ZORDERING_ON_COLUMN_WITHOUT_STATS",
		                        "Z-Ordering on [%s] will be ineffective, because we currently do not collect "
		                        "stats for these columns. Please refer to "
		                        "https://docs.delta.io/latest/optimizations-oss.html for more information on "
		                        "data skipping and z-ordering. You can disable this check by setting "
		                        "'spark.databricks.delta.optimize.zorder.checkStatsCollection.enabled' = false",
		                        nostats.data);
	dl_buf_free(&nostats);
	dl_clustering_free(&cols);
	return rc;
}

