/* Checks derived from a table's own log, for tables without expected rows
 * and for the feature each kernel-data table exists for. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "conformance.h"
#include "deltalake.h"
#include "log/snapshot.h"
#include "log/stats.h"
#include "table/scan.h"
#include "util/error.h"

/* Rows the log says the table holds: sum of numRecords minus deletion
 * vector cardinalities; -1 when a file has no numRecords. */
static int64_t log_row_count(dl_snapshot *snap)
{
	int64_t total = 0;
	dl_arena a = DL_ARENA_INIT;
	size_t n = dl_snapshot_file_count(snap);
	for (size_t i = 0; i < n; i++) {
		dl_file_info fi;
		dl_file_stats st;
		if (dl_snapshot_file_at(snap, i, &fi) < 0 || !fi.stats ||
		    dl_file_stats_parse(&st, &a, fi.stats, strlen(fi.stats)) < 0 || st.num_records < 0) {
			total = -1;
			break;
		}
		total += st.num_records - fi.deleted_rows;
		dl_arena_reset(&a);
	}
	dl_arena_free(&a);
	dl_error_clear();
	return total;
}

/* Reads the scan to the end; the row count. */
static int scan_count(dl_snapshot *snap, const dl_scan_options *o, int64_t *rows, dl_scan **keep)
{
	dl_scan *scan;
	DL_TRY(dl_scan_open(&scan, snap, o));
	dl_batch_stream *bs;
	int rc = dl_scan_batches(&bs, scan);
	*rows = 0;
	dl_batch *b;
	while (rc == 0 && (rc = dl_batch_stream_next(bs, &b)) == 0 && b) {
		*rows += b->num_rows;
		dl_batch_free(b);
	}
	if (rc == 0) dl_batch_stream_free(bs);
	if (keep && rc == 0) *keep = scan;
	else dl_scan_free(scan);
	return rc;
}

static void check_counts(verdict *v, dl_snapshot *snap)
{
	int64_t rows;
	if (scan_count(snap, NULL, &rows, NULL) < 0) {
		fail_error(v, "reading the table");
		return;
	}
	int64_t want = log_row_count(snap);
	if (want >= 0 && rows != want)
		fail(v, "read %" PRId64 " rows; the log's numRecords minus deleted rows say %" PRId64, rows, want);
}

/* Some log tests ship no data: their files are missing or 1-byte
 * placeholders. Those tables are checked through their logs only. */
static bool log_only(dl_snapshot *snap)
{
	dl_store *st = dl_snapshot_store(snap);
	size_t n = dl_snapshot_file_count(snap);
	for (size_t i = 0; i < n; i++) {
		dl_file_info fi;
		dl_object_info oi;
		if (dl_snapshot_file_at(snap, i, &fi) < 0) return true;
		if (fi.path[0] == '/') continue;
		if (dl_store_stat(st, fi.path, &oi) < 0) {
			dl_error_clear();
			return true;
		}
		bool tiny = oi.size < 12;
		dl_object_info_free(&oi);
		if (tiny) return true;
	}
	return false;
}

static void check_plan(verdict *v, dl_snapshot *snap)
{
	if (!dl_snapshot_schema_json(snap)) return; /* nothing to scan */
	dl_scan *scan;
	if (dl_scan_open(&scan, snap, NULL) < 0) {
		fail_error(v, "planning a scan");
		return;
	}
	if (dl_scan_file_count(scan) != dl_snapshot_file_count(snap))
		fail(v, "a scan without filter plans %zu files of %zu", dl_scan_file_count(scan),
		     dl_snapshot_file_count(snap));
	dl_scan_free(scan);
}

void check_features(verdict *v, const char *name, const char *dir, const char *features)
{
	(void)features;
	dl_snapshot *snap;
	if (dl_snapshot_open(&snap, dir, NULL) < 0) {
		fail_error(v, "opening the table");
		return;
	}
	if (log_only(snap)) check_plan(v, snap);
	else check_counts(v, snap);
	/* the same file spelled through differently encoded paths counts once:
	 * it was added then removed, so nothing is live */
	if (strstr(name, "canonicalized-paths-") && dl_snapshot_file_count(snap) != 0)
		fail(v, "%zu live files; the remove's differently encoded path must cancel the add",
		     dl_snapshot_file_count(snap));
	dl_snapshot_free(snap);
}
