/* What a new table configuration does beyond being stored (see
 * properties_internal.h).
 *
 * Column mapping (Spark's DeltaColumnMapping.verifyAndUpdateMetadataChange):
 * an existing table may go from mode none to name only; its fields get ids
 * and physical names equal to their logical names, which are the names its
 * files already use, so nothing is rewritten. Other mode changes are
 * DELTA_UNSUPPORTED_COLUMN_MAPPING_MODE_CHANGE; removing column mapping
 * by SET ... = 'none' or UNSET of the mode is Spark's
 * RemoveColumnMappingCommand (drop_feature_mapping.c, run by properties.c
 * before this).
 *
 * Row tracking backfill (PROTOCOL.md "Row Tracking", enabling on an
 * existing table): files without a baseRowId are re-added, dataChange
 * false, with fresh ids after the high-water mark and the committing
 * version as defaultRowCommitVersion, in the same commit that enables the
 * property; the delta.rowTracking domain records the new mark. The whole
 * table counts as read, so a concurrent append (a file without ids) makes
 * the commit conflict instead of leaving that file without ids. */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "alter/properties_internal.h"
#include "json/json.h"
#include "log/properties.h"
#include "ops/column_mapping.h"
#include "util/error.h"

static const char *mode_name(dl_column_mapping_mode m)
{
	return m == DL_CM_NAME ? "name" : m == DL_CM_ID ? "id" : "none";
}

int ap_column_mapping_change(dl_type **schema, ap_ctx *c, dl_str_map *conf)
{
	*schema = NULL;
	dl_table_properties np;
	DL_TRY(dl_table_properties_parse(&np, conf, true));
	dl_column_mapping_mode from = dl_snapshot_props(c->t.snap)->column_mapping_mode, to = np.column_mapping_mode;
	if (from == to) return 0;
	if (to == DL_CM_NONE)
		/* not reached: properties.c runs the removal first (SET ... =
		 * 'none', UNSET); kept so no path drops the mapping silently */
		return dl_error_set(DL_EUNSUPPORTED,
		                    "removing column mapping (delta.columnMapping.mode '%s') by UNSET "
		                    "TBLPROPERTIES is not supported; use SET TBLPROPERTIES "
		                    "('delta.columnMapping.mode' = 'none') or DROP FEATURE columnMapping, "
		                    "which rewrite the files with the logical names; nothing was changed",
		                    mode_name(from));
	if (from != DL_CM_NONE || to != DL_CM_NAME)
		return dl_error_set_class(DL_EINVALID, "DELTA_UNSUPPORTED_COLUMN_MAPPING_MODE_CHANGE",
		                          "Changing column mapping mode from '%s' to '%s' is not supported.",
		                          mode_name(from), mode_name(to));
	int64_t max_id = 0;
	DL_TRY(dl_cm_assign_logical(schema, dl_snapshot_schema(c->t.snap), &max_id));
	char num[24];
	snprintf(num, sizeof num, "%lld", (long long)max_id);
	int rc = ap_conf_put(conf, c, "delta.columnMapping.maxColumnId", num);
	if (rc < 0) {
		dl_type_unref(*schema);
		*schema = NULL;
	}
	return rc;
}

/* numRecords of a file's stats (physical rows, DV-deleted ones included:
 * row ids cover every row of the file). */
static int file_rows(const dl_add *a, int64_t *n)
{
	dl_arena tmp = DL_ARENA_INIT;
	dl_json *v;
	int rc = a->stats ? dl_json_parse(&tmp, a->stats, a->stats_len, "stats", &v) : DL_ENOTFOUND;
	const dl_json *r = rc == 0 ? dl_json_get(v, "numRecords") : NULL;
	rc = r && dl_json_int64(r, n) == 0 ? 0 : -1;
	dl_arena_free(&tmp);
	if (rc < 0) {
		dl_error_clear();
		return dl_error_set(DL_EUNSUPPORTED,
		                    "cannot enable row tracking: data file %s has no numRecords statistic to "
		                    "assign row ids from (recompute its statistics first)",
		                    a->path);
	}
	return 0;
}

/* The delta.rowTracking domain's rowIdHighWaterMark (-1: none yet). */
static int row_id_hwm(dl_snapshot *s, int64_t *hwm)
{
	*hwm = -1;
	const char *conf = dl_snapshot_domain(s, "delta.rowTracking");
	if (!conf) return 0;
	dl_arena a = DL_ARENA_INIT;
	dl_json *v;
	int rc = dl_json_parse(&a, conf, strlen(conf), "delta.rowTracking domain", &v);
	const dl_json *m = rc == 0 ? dl_json_get(v, "rowIdHighWaterMark") : NULL;
	if (rc == 0 && m && dl_json_int64(m, hwm) < 0)
		rc = dl_error_set(DL_ECORRUPT, "rowIdHighWaterMark is not an integer: %s", conf);
	dl_arena_free(&a);
	return rc;
}

int ap_backfill_row_ids(ap_ctx *c, int64_t *nfiles)
{
	*nfiles = 0;
	const dl_log_state *st = dl_snapshot_state(c->t.snap);
	int64_t hwm;
	DL_TRY(row_id_hwm(c->t.snap, &hwm));
	int64_t before = hwm;
	int64_t next_version = dl_snapshot_version(c->t.snap) + 1;
	dl_txn_read_whole_table(c->t.txn);
	for (size_t i = 0; i < st->nadds; i++) {
		const dl_add *a = dl_log_state_add(st, i);
		if (a->base_row_id != DL_NONE) continue;
		int64_t n;
		DL_TRY(file_rows(a, &n));
		dl_add b = *a;
		b.data_change = false;
		b.base_row_id = hwm + 1;
		b.default_row_commit_version = next_version;
		hwm += n;
		DL_TRY(dl_txn_add_file(c->t.txn, &b));
		(*nfiles)++;
	}
	if (hwm == before) return 0;
	char conf[64];
	snprintf(conf, sizeof conf, "{\"rowIdHighWaterMark\":%lld}", (long long)hwm);
	return dl_txn_set_domain(c->t.txn, "delta.rowTracking", conf, false);
}
