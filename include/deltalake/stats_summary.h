/* Statistics coverage and clustering quality of a snapshot's files: how
 * many files carry min/max/null counts for each leaf column (PROTOCOL.md
 * "Per-file Statistics"), and how deeply the files' [min, max] ranges of a
 * column overlap (the measure of Z-order and liquid clustering quality:
 * depth 1 everywhere means every value lies in one file's range).
 *
 *   dl_stats_summary *s;  dl_stats_summary_open(&s, snap);
 *   for (size_t i = 0; i < dl_stats_summary_column_count(s); i++) {
 *       dl_stats_column c;  dl_stats_summary_column_at(&c, s, i);
 *       ... c.column, c.files_with_min ...
 *   }
 *   dl_overlap_depth d;  dl_stats_summary_overlap(&d, s, 0);
 *   dl_stats_summary_free(s);
 *
 * Reads each live file's stats JSON once per call (no data files). A file
 * without stats counts as having none; a stats text that is not JSON is
 * DL_ECORRUPT naming the file. Immutable after open: safe to read from
 * several threads. */
#ifndef DELTALAKE_STATS_SUMMARY_H
#define DELTALAKE_STATS_SUMMARY_H
#include "deltalake/common.h"
#include <stddef.h>
#include <stdint.h>
#include "deltalake/snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dl_stats_summary dl_stats_summary;

/* One leaf column of the schema (nested struct fields included; arrays,
 * maps and variants have no min/max and are not listed). */
typedef struct dl_stats_column {
	const char *column;            /* logical path, names joined with '.' */
	const char *physical;          /* the stats key path (physical names under column mapping) */
	const char *type;              /* Delta type name: "long", "string", "decimal(10,2)"... */
	int64_t files_with_min;        /* files whose minValues has the column */
	int64_t files_with_max;
	int64_t files_with_null_count;
} dl_stats_column;

/* Summarizes the stats of the live files of `snap` (borrowed: it must
 * outlive the summary). */
DL_EXTERN(int) dl_stats_summary_open(dl_stats_summary **out, dl_snapshot *snap);
DL_EXTERN(void) dl_stats_summary_free(dl_stats_summary *s);
/* Live files, and those whose stats give numRecords. */
DL_EXTERN(int64_t) dl_stats_summary_file_count(const dl_stats_summary *s);
DL_EXTERN(int64_t) dl_stats_summary_files_with_stats(const dl_stats_summary *s);
DL_EXTERN(size_t) dl_stats_summary_column_count(const dl_stats_summary *s);
DL_EXTERN(int) dl_stats_summary_column_at(dl_stats_column *out, const dl_stats_summary *s, size_t i);
/* The index of a column by its logical dotted path (case-insensitive), or
 * DL_ENOTFOUND. */
DL_EXTERN(int) dl_stats_summary_find(size_t *out, const dl_stats_summary *s, const char *column);

/* Overlap of the files' value ranges of one column. The sorted distinct
 * bounds cut the value line into pieces (each bound, and each open gap
 * between two bounds); a piece's depth is the number of files whose
 * [min, max] covers it. Numbers compare as numbers, other values (strings,
 * dates, timestamps as the stats spell them) as UTF-8 text. */
typedef struct dl_overlap_depth {
	int64_t files;                 /* files with both min and max for the column */
	int64_t pieces;                /* pieces covered by at least one file */
	double average_depth;          /* mean depth over those pieces; 0 without files */
	int64_t max_depth;
	int64_t histogram[17];         /* pieces of depth 1, 2, ..., 16, and > 16 (index 16) */
} dl_overlap_depth;
DL_EXTERN(int) dl_stats_summary_overlap(dl_overlap_depth *out, const dl_stats_summary *s, size_t column);

#ifdef __cplusplus
}
#endif
#endif
