/* Snapshots of every conformance table (../shared/conformance): each golden
 * and kernel-data table loads, except the negative ones, which must fail
 * with the error their README names, and versions and file counts match
 * what the logs say. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "deltalake/snapshot.h"
#include "json/json.h"
#include "log/snapshot.h"
#include "util/error.h"
#include "util/mem.h"

static const char *shared_dir(void)
{
	const char *d = getenv("DL_SHARED_DIR");
	return d && *d ? d : DL_SHARED_DIR;
}

typedef struct negative {
	const char *table;
	const char *message;
} negative;

static const negative negatives[] = {
	{"golden/deltalog-invalid-protocol-version/delta",
	 "the table needs reader version 99, which is not supported"},
	{"golden/deltalog-state-reconstruction-without-metadata/delta", "no metaData action"},
	{"golden/deltalog-state-reconstruction-without-protocol/delta", "no protocol action"},
	{"golden/deltalog-state-reconstruction-from-checkpoint-missing-metadata/delta",
	 "no metaData action"},
	{"golden/deltalog-state-reconstruction-from-checkpoint-missing-protocol/delta",
	 "no protocol action"},
	{"golden/versions-not-contiguous/delta", "version 1 is missing from the log"},
	{"golden/no-delta-log-folder/delta", "not a Delta table: no _delta_log"},
	/* only a malformed 0.crc, no commit */
	{"kernel-data/crc-malformed", "_delta_log has no commit"},
	/* no metaData action: a snapshot needs one; its file list is checked
	 * at the replay level by escaped_absolute_paths below */
	{"golden/data-reader-absolute-paths-escaped-chars/delta", "no metaData action"},
};

static const char *expected_failure(const char *table)
{
	for (size_t i = 0; i < sizeof negatives / sizeof negatives[0]; i++)
		if (strcmp(negatives[i].table, table) == 0) return negatives[i].message;
	return NULL;
}

/* Version and number of live files of each table, computed independently
 * when this test was written: JSON-only logs by a Python reconciliation of
 * the commits (newest (decoded path, DV id) wins), logs with checkpoints by
 * a Node script reading the newest checkpoint (and its sidecars) with
 * DuckDB's Parquet reader and then the later commits. */
typedef struct expected_count {
	const char *table;
	int64_t version;
	size_t files;
} expected_count;

static const expected_count counts[] = {
{"golden/124-decimal-decode-bug/delta", 0, 2},
{"golden/basic-decimal-table-legacy/delta", 0, 4},
{"golden/basic-decimal-table/delta", 0, 4},
{"golden/basic-with-inserts-merge/delta", 1, 1},
{"golden/basic-with-inserts-updates/delta", 1, 2},
{"golden/basic-with-vacuum-protocol-check-feature/delta", 1, 2},
{"golden/canonicalized-paths-normal-a/delta", 1, 0},
{"golden/canonicalized-paths-normal-b/delta", 1, 0},
{"golden/canonicalized-paths-special-a/delta", 1, 0},
{"golden/canonicalized-paths-special-b/delta", 1, 0},
{"golden/data-reader-absolute-paths-escaped-chars/delta", 1, 2},
{"golden/data-reader-array-complex-objects/delta", 0, 2},
{"golden/data-reader-array-primitives/delta", 0, 2},
{"golden/data-reader-date-types-America/delta", 0, 2},
{"golden/data-reader-date-types-Asia/delta", 0, 2},
{"golden/data-reader-date-types-Etc/delta", 0, 2},
{"golden/data-reader-date-types-Iceland/delta", 0, 2},
{"golden/data-reader-date-types-Jst/delta", 0, 2},
{"golden/data-reader-date-types-Pst/delta", 0, 2},
{"golden/data-reader-date-types-utc/delta", 0, 2},
{"golden/data-reader-escaped-chars/delta", 2, 3},
{"golden/data-reader-map/delta", 0, 2},
{"golden/data-reader-nested-struct/delta", 0, 2},
{"golden/data-reader-nullable-field-invalid-schema-key/delta", 0, 2},
{"golden/data-reader-partition-values/delta", 0, 3},
{"golden/data-reader-primitives/delta", 0, 2},
{"golden/data-reader-timestamp_ntz-id-mode/delta", 1, 4},
{"golden/data-reader-timestamp_ntz-name-mode/delta", 1, 4},
{"golden/data-reader-timestamp_ntz/delta", 1, 4},
{"golden/data-skipping-basic-stats-all-types-checkpoint/delta", 0, 1},
{"golden/data-skipping-basic-stats-all-types-columnmapping-id/delta", 0, 1},
{"golden/data-skipping-basic-stats-all-types-columnmapping-name/delta", 0, 1},
{"golden/data-skipping-basic-stats-all-types/delta", 0, 1},
{"golden/data-skipping-change-stats-collected-across-versions/delta", 4, 3},
{"golden/data-skipping-partition-and-data-column/delta", 3, 4},
{"golden/decimal-various-scale-precision/delta", 0, 1},
{"golden/delete-re-add-same-file-different-transactions/delta", 3, 2},
{"golden/deltalog-commit-info/delta", 0, 1},
{"golden/deltalog-getChanges/delta", 2, 0},
{"golden/deltalog-invalid-protocol-version/delta", 0, 1},
{"golden/deltalog-state-reconstruction-without-metadata/delta", 0, 1},
{"golden/deltalog-state-reconstruction-without-protocol/delta", 0, 1},
{"golden/hive/delta/deltatbl-column-names-case-insensitive", 0, 4},
{"golden/hive/delta/deltatbl-deleted-path", 0, 2},
{"golden/hive/delta/deltatbl-incorrect-format-config", 0, 2},
{"golden/hive/delta/deltatbl-map-types-correctly", 0, 1},
{"golden/hive/delta/deltatbl-non-partitioned", 0, 2},
{"golden/hive/delta/deltatbl-not-allow-write", 0, 2},
{"golden/hive/delta/deltatbl-partition-prune", 0, 5},
{"golden/hive/delta/deltatbl-partitioned", 0, 4},
{"golden/hive/delta/deltatbl-schema-match", 0, 4},
{"golden/hive/delta/deltatbl-special-chars-in-partition-column", 0, 4},
{"golden/hive/delta/deltatbl-touch-files-needed-for-partitioned", 0, 4},
{"golden/kernel-timestamp-int96/delta", 0, 5},
{"golden/kernel-timestamp-pst/delta", 0, 5},
{"golden/kernel-timestamp-timestamp_micros/delta", 0, 5},
{"golden/kernel-timestamp-timestamp_millis/delta", 0, 5},
{"golden/log-replay-dv-key-cases/delta", 3, 1},
{"golden/log-replay-latest-metadata-protocol/delta", 2, 4},
{"golden/log-replay-special-characters-a/delta", 1, 0},
{"golden/log-replay-special-characters-b/delta", 0, 1},
{"golden/log-replay-special-characters/delta", 1, 0},
{"golden/parquet-all-types-legacy-format/delta", 0, 1},
{"golden/parquet-all-types/delta", 0, 1},
{"golden/parquet-decimal-dictionaries-v2/delta", 0, 1},
{"golden/parquet-decimal-dictionaries/delta", 0, 1},
{"golden/parquet-decimal-type/delta", 0, 1},
{"golden/snapshot-data0/delta", 0, 2},
{"golden/snapshot-data1/delta", 1, 4},
{"golden/snapshot-data2-deleted/delta", 4, 3},
{"golden/snapshot-data2/delta", 2, 2},
{"golden/snapshot-data3/delta", 3, 4},
{"golden/snapshot-repartitioned/delta", 5, 2},
{"golden/snapshot-vacuumed/delta", 5, 2},
{"golden/table-with-columnmapping-mode-id/delta", 0, 2},
{"golden/table-with-columnmapping-mode-name/delta", 0, 2},
{"golden/time-travel-partition-changes-a/delta", 0, 10},
{"golden/time-travel-partition-changes-b/delta", 1, 4},
{"golden/time-travel-schema-changes-a/delta", 0, 2},
{"golden/time-travel-schema-changes-b/delta", 1, 4},
{"golden/time-travel-start-start20-start40/delta", 2, 6},
{"golden/time-travel-start-start20/delta", 1, 4},
{"golden/time-travel-start/delta", 0, 2},
{"golden/versions-not-contiguous/delta", 2, 1},
{"kernel-data/app-txn-no-checkpoint", 1, 4},
{"kernel-data/app-txn-with-last-updated", 3, 4},
{"kernel-data/basic-decimal-table", 0, 4},
{"kernel-data/basic_partitioned", 1, 6},
{"kernel-data/cdf-column-mapping-id-mode", 4, 3},
{"kernel-data/cdf-column-mapping-name-mode", 4, 3},
{"kernel-data/cdf-column-mapping-name-mode-3-7", 4, 3},
{"kernel-data/cdf-table", 3, 9},
{"kernel-data/cdf-table-backtick-column-names", 1, 4},
{"kernel-data/cdf-table-data-change", 1, 1},
{"kernel-data/cdf-table-delete-conditional-all-rows", 1, 0},
{"kernel-data/cdf-table-delete-conditional-two-rows", 1, 3},
{"kernel-data/cdf-table-delete-unconditional", 1, 0},
{"kernel-data/cdf-table-non-partitioned", 4, 11},
{"kernel-data/cdf-table-partitioned", 2, 1},
{"kernel-data/cdf-table-simple", 2, 0},
{"kernel-data/cdf-table-update-ops", 2, 2},
{"kernel-data/cdf-table-with-cdc-and-dvs", 25, 2},
{"kernel-data/cdf-table-with-dv", 6, 1},
{"kernel-data/compacted-log-files-table", 25, 2},
{"kernel-data/crc-full", 0, 0},
{"kernel-data/data-reader-timestamp_ntz", 1, 4},
{"kernel-data/mixed-nulls", 0, 3},
{"kernel-data/partition_cm/id", 0, 0},
{"kernel-data/partition_cm/name", 0, 0},
{"kernel-data/partition_cm/none", 0, 0},
{"kernel-data/partitioned_with_materialize_feature", 1, 6},
{"kernel-data/stats-writing-all-types/delta", 1, 1},
{"kernel-data/table-with-cdf", 4, 0},
{"kernel-data/table-with-dv-small", 1, 1},
{"kernel-data/table-with-geo", 0, 0},
{"kernel-data/table-without-dv-small", 0, 1},
{"kernel-data/timestamp-partitioned-table", 0, 1},
{"kernel-data/timestamp-truncation-stats", 2, 3},
{"kernel-data/type-widening", 2, 2},
{"kernel-data/void-column", 0, 3},
{"kernel-data/with-short-dv", 0, 2},
{"golden/125-iterator-bug/delta", 11, 12},
{"golden/basic-with-inserts-deletes-checkpoint/delta", 13, 7},
{"golden/basic-with-inserts-overwrite-restore/delta", 3, 4},
{"golden/checkpoint/delta", 14, 1},
{"golden/corrupted-last-checkpoint-kernel/delta", 11, 2},
{"golden/deltalog-state-reconstruction-from-checkpoint-missing-metadata/delta", 10, 11},
{"golden/deltalog-state-reconstruction-from-checkpoint-missing-protocol/delta", 10, 11},
{"golden/dv-partitioned-with-checkpoint/delta", 15, 15},
{"golden/dv-with-columnmapping/delta", 15, 15},
{"golden/multi-part-checkpoint/delta", 1, 10},
{"golden/only-checkpoint-files/delta", 2, 7},
{"golden/update-deleted-directory/delta", 0, 10},
{"golden/v2-checkpoint-json/delta", 2, 4},
{"golden/v2-checkpoint-parquet/delta", 2, 4},
{"kernel-data/app-txn-checkpoint", 1, 4},
{"kernel-data/external-table-different-nullability", 5, 3},
{"kernel-data/parquet_row_group_skipping", 1, 1},
{"kernel-data/parsed-stats", 5, 6},
{"kernel-data/unshredded-variant", 2, 4},
{"kernel-data/v1-multi-part-partitioned-struct-stats-only", 5, 5},
{"kernel-data/v1-multi-part-struct-stats-only", 5, 5},
{"kernel-data/v1-single-part-struct-stats-only", 5, 5},
{"kernel-data/v2-checkpoints-json-with-last-checkpoint", 0, 2},
{"kernel-data/v2-checkpoints-json-with-sidecars", 6, 101},
{"kernel-data/v2-checkpoints-json-without-sidecars", 2, 3},
{"kernel-data/v2-checkpoints-parquet-with-last-checkpoint", 0, 2},
{"kernel-data/v2-checkpoints-parquet-with-sidecars", 6, 101},
{"kernel-data/v2-checkpoints-parquet-without-sidecars", 2, 3},
{"kernel-data/v2-classic-checkpoint-json", 1, 4},
{"kernel-data/v2-classic-checkpoint-parquet", 1, 4},
{"kernel-data/v2-classic-parquet-struct-stats-only", 5, 5},
{"kernel-data/v2-json-sidecars-struct-stats-only", 5, 5},
{"kernel-data/v2-parquet-sidecars-struct-stats-only", 5, 5},
{"kernel-data/with_checkpoint_no_last_checkpoint", 3, 1},
};

static int check_counts(dl_snapshot *s, const char *table)
{
	for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
		if (strcmp(counts[i].table, table) != 0) continue;
		if (dl_snapshot_version(s) != counts[i].version ||
		    dl_snapshot_file_count(s) != counts[i].files) {
			fprintf(stderr, "%s: version %" PRId64 " with %zu files, expected version %" PRId64
			        " with %zu\n", table, dl_snapshot_version(s), dl_snapshot_file_count(s),
			        counts[i].version, counts[i].files);
			return 1;
		}
		return 0;
	}
	return 0;
}

static int check_table(const char *rel)
{
	char uri[8192];
	snprintf(uri, sizeof uri, "%s/conformance/%s", shared_dir(), rel);
	dl_snapshot *s;
	int rc = dl_snapshot_open(&s, uri, NULL);
	const char *want = expected_failure(rel);
	if (want) {
		if (rc == 0) {
			fprintf(stderr, "%s: loaded but must fail with \"%s\"\n", rel, want);
			dl_snapshot_free(s);
			return 1;
		}
		if (!strstr(dl_error_last()->message, want)) {
			fprintf(stderr, "%s: error \"%s\" does not say \"%s\"\n", rel,
			        dl_error_last()->message, want);
			return 1;
		}
		return 0;
	}
	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", rel, dl_error_last()->message);
		return 1;
	}
	int bad = check_counts(s, rel);
	dl_snapshot_free(s);
	return bad;
}

/* Tables listed in <set>/INVENTORY.tsv (first column). */
static void run_inventory(const char *set, int *tables, int *failures)
{
	char path[1024], line[4096];
	snprintf(path, sizeof path, "%s/conformance/%s/INVENTORY.tsv", shared_dir(), set);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof line, f)) {
		char *tab = strchr(line, '\t');
		if (!tab) continue;
		*tab = 0;
		char rel[sizeof line + 64];
		snprintf(rel, sizeof rel, "%s/%s", set, line);
		if (strcmp(set, "kernel-data") == 0 && strcmp(line, "300k-add-files-100-col-partitioned") == 0)
			continue; /* lives in ../bench-data, loaded by the benchmark */
		(*tables)++;
		*failures += check_table(rel);
	}
	fclose(f);
}

static void golden_tables(void **state)
{
	(void)state;
	int tables = 0, failures = 0;
	run_inventory("golden", &tables, &failures);
	/* the no-delta-log-folder table is not in the inventory */
	tables++;
	failures += check_table("golden/no-delta-log-folder/delta");
	fprintf(stderr, "golden: %d tables, %d failures\n", tables, failures);
	assert_true(tables >= 90);
	assert_int_equal(failures, 0);
}

static void kernel_tables(void **state)
{
	(void)state;
	int tables = 0, failures = 0;
	run_inventory("kernel-data", &tables, &failures);
	fprintf(stderr, "kernel-data: %d tables, %d failures\n", tables, failures);
	assert_true(tables >= 56);
	assert_int_equal(failures, 0);
}

/* The table without metaData whose point is path decoding: the replay
 * still lists its two files with %-escapes decoded. */
static void escaped_absolute_paths(void **state)
{
	(void)state;
	char uri[4096];
	snprintf(uri, sizeof uri, "%s/conformance/golden/data-reader-absolute-paths-escaped-chars/delta",
	         shared_dir());
	dl_store *st;
	assert_int_equal(dl_store_open(&st, uri, NULL), 0);
	dl_log_segment seg;
	assert_int_equal(dl_log_segment_build(&seg, st, -1), 0);
	assert_int_equal(seg.version, 1);
	dl_log_state ls;
	assert_int_equal(dl_replay(&ls, st, &seg, NULL), 0);
	assert_int_equal(ls.nadds, 2);
	int found = 0;
	for (size_t i = 0; i < ls.nadds; i++) {
		const char *p = dl_log_state_add(&ls, i)->path;
		if (strcmp(p, "bar-bar.snappy.parquet") == 0) found++;
		if (strstr(p, "data-reader-absolute-paths-escaped-chars/foo.snappy.parquet")) found++;
	}
	assert_int_equal(found, 2);
	assert_int_equal(dl_log_state_validate(&ls), DL_ECORRUPT);
	dl_log_state_free(&ls);
	dl_log_segment_free(&seg);
	dl_store_free(st);
}

static dl_snapshot *open_table(const char *rel, int64_t version)
{
	char uri[4096];
	snprintf(uri, sizeof uri, "%s/conformance/%s", shared_dir(), rel);
	dl_snapshot_options o = DL_SNAPSHOT_OPTIONS_INIT;
	o.as_of_version = version;
	dl_snapshot *s = NULL;
	if (dl_snapshot_open(&s, uri, &o) < 0) fprintf(stderr, "%s: %s\n", rel, dl_error_last()->message);
	assert_non_null(s);
	return s;
}

/* What the logs of a few tables say beyond file counts. */
static void table_contents(void **state)
{
	(void)state;
	int64_t v;
	/* txn: newest per app id, lastUpdated kept; from commits and checkpoints */
	dl_snapshot *s = open_table("kernel-data/app-txn-with-last-updated", -1);
	assert_int_equal(dl_snapshot_app_count(s), 4);
	const char *app;
	int64_t last;
	for (size_t i = 0; i < dl_snapshot_app_count(s); i++) {
		dl_snapshot_app_at(&app, &v, &last, s, i);
		if (strcmp(app, "new_app_2") == 0) assert_int_equal(last, 1002);
		if (strcmp(app, "new_app_0") == 0) assert_int_equal(last, INT64_MIN);
	}
	/* retention of 1 day: those updated in 1970 expired, no lastUpdated stays */
	assert_int_equal(dl_snapshot_app_version(&v, s, "new_app_1"), DL_ENOTFOUND);
	assert_non_null(strstr(dl_error_last()->message, "expired"));
	assert_int_equal(dl_snapshot_app_version(&v, s, "new_app_0"), 0);
	assert_int_equal(v, 1);
	dl_snapshot_free(s);
	const char *txn_tables[] = {"kernel-data/app-txn-checkpoint", "kernel-data/app-txn-no-checkpoint"};
	for (int k = 0; k < 2; k++) {
		s = open_table(txn_tables[k], -1);
		assert_int_equal(dl_snapshot_app_version(&v, s, "my-app"), 0);
		assert_int_equal(v, 3);
		assert_int_equal(dl_snapshot_app_version(&v, s, "my-app2"), 0);
		assert_int_equal(v, 2);
		assert_int_equal(dl_snapshot_app_version(&v, s, "nobody"), DL_ENOTFOUND);
		dl_snapshot_free(s);
	}
	s = open_table("kernel-data/app-txn-checkpoint", 0);
	assert_int_equal(dl_snapshot_app_version(&v, s, "my-app"), 0);
	assert_int_equal(v, 1);
	dl_snapshot_free(s);

	/* metadata from the version's .crc (its domains and txns exist only there) */
	char uri[4096];
	snprintf(uri, sizeof uri, "%s/conformance/kernel-data/crc-full", shared_dir());
	dl_snapshot_options mo = DL_SNAPSHOT_OPTIONS_INIT;
	mo.metadata_only = true;
	assert_int_equal(dl_snapshot_open(&s, uri, &mo), 0);
	assert_int_equal(dl_snapshot_domain_count(s), 3);
	assert_non_null(dl_snapshot_domain(s, "delta.rowTracking"));
	assert_int_equal(dl_snapshot_app_version(&v, s, "streaming-job-abc"), 0);
	assert_int_equal(v, 100);
	/* inCommitTimestampOpt is there but the table does not enable ICT */
	assert_int_equal(dl_snapshot_in_commit_timestamp(&v, s), DL_ENOTFOUND);
	dl_snapshot_free(s);

	/* the newest protocol and metaData win */
	s = open_table("golden/log-replay-latest-metadata-protocol/delta", -1);
	assert_int_equal(dl_snapshot_min_reader_version(s), 3);
	assert_int_equal(dl_snapshot_min_writer_version(s), 7);
	assert_int_equal(dl_snapshot_writer_feature_count(s), 2);
	assert_true(dl_snapshot_has_feature(s, "invariants"));
	assert_non_null(strstr(dl_snapshot_schema_json(s), "col2"));
	assert_int_equal(dl_snapshot_schema(s)->nchildren, 2);
	dl_snapshot_free(s);

	/* commitInfo of the version; a metaData without schemaString */
	s = open_table("golden/deltalog-commit-info/delta", -1);
	assert_non_null(strstr(dl_snapshot_commit_info(s), "\"userMetadata\":\"foo\""));
	assert_null(dl_snapshot_schema(s));
	dl_snapshot_free(s);

	/* partition columns and values */
	s = open_table("golden/data-reader-partition-values/delta", -1);
	assert_true(dl_snapshot_partition_column_count(s) > 0);
	dl_file_info fi;
	assert_int_equal(dl_snapshot_file_at(&fi, s, 0), 0);
	assert_int_equal(fi.npartition_values, dl_snapshot_partition_column_count(s));
	dl_snapshot_free(s);

	/* deletion vectors survive the replay with their descriptors */
	s = open_table("golden/log-replay-dv-key-cases/delta", -1);
	assert_int_equal(dl_snapshot_file_count(s), 1);
	assert_int_equal(dl_snapshot_file_at(&fi, s, 0), 0);
	assert_true(fi.has_deletion_vector);
	assert_int_equal(fi.deleted_rows, 3);
	assert_true(dl_snapshot_tombstone_count(s) >= 1);
	dl_snapshot_free(s);

	/* struct-only stats in checkpoints come back as stats JSON */
	s = open_table("kernel-data/v1-single-part-struct-stats-only", -1);
	size_t with_stats = 0;
	for (size_t i = 0; i < dl_snapshot_file_count(s); i++) {
		assert_int_equal(dl_snapshot_file_at(&fi, s, i), 0);
		if (fi.stats && strstr(fi.stats, "numRecords")) with_stats++;
	}
	assert_int_equal(with_stats, dl_snapshot_file_count(s));
	dl_snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(golden_tables),
		cmocka_unit_test(kernel_tables),
		cmocka_unit_test(escaped_absolute_paths),
		cmocka_unit_test(table_contents),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
