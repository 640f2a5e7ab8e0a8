/* Which files OPTIMIZE rewrites and how they are grouped (Spark's
 * OptimizeExecutor.optimize / groupFilesIntoBins), as a pure function of
 * the files' sizes, row counts and deletion vectors:
 *
 *   candidates  bin-packing: files below minFileSize, or whose deletion
 *               vector removes more than maxDeletedRowsRatio of their rows;
 *               multi-dimensional clustering (Z-order, Hilbert): every file;
 *               REORG ... APPLY (PURGE) is bin-packing with minFileSize 0
 *               and ratio 0: every file with deleted rows;
 *   bins        per partition, candidates by ascending size, a new bin when
 *               the next file would take the bin past maxFileSize
 *               (multi-dimensional: the whole partition is one bin);
 *   kept        bins of two or more files, a single file with a deletion
 *               vector (its deleted rows get purged), and every bin of a
 *               multi-dimensional clustering. */
#ifndef DL_OPTIMIZE_BINS_H
#define DL_OPTIMIZE_BINS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct dl_opt_file {
	size_t index;            /* the caller's (the snapshot's add index) */
	uint32_t partition;      /* files of one partition share it */
	int64_t size;
	int64_t num_records;     /* physical rows (stats numRecords), -1 unknown */
	int64_t dv_cardinality;  /* rows its deletion vector removes; 0 without one */
	bool has_dv;
	bool force;              /* rewritten whatever its size (REORG UPGRADE UNIFORM) */
} dl_opt_file;

typedef enum dl_opt_mode {
	DL_OPT_BINPACK = 0,
	DL_OPT_MULTIDIM,         /* Z-order / clustering: whole partitions */
} dl_opt_mode;

typedef struct dl_opt_rules {
	dl_opt_mode mode;
	int64_t min_file_size;
	int64_t max_file_size;
	double max_deleted_rows_ratio;
} dl_opt_rules;

typedef struct dl_opt_bin {
	size_t first, n;         /* files[first .. first+n) of dl_opt_plan's order */
	uint32_t partition;
	int64_t bytes;
} dl_opt_bin;

typedef struct dl_opt_plan {
	dl_opt_file *files;      /* the binned files, bin by bin */
	dl_opt_bin *bins;
	size_t nbins, nfiles;
	int64_t partitions;      /* distinct partitions among the bins */
} dl_opt_plan;

/* Whether a file is a candidate under the rules (see above). */
bool dl_opt_is_candidate(const dl_opt_file *f, const dl_opt_rules *r);

/* Plans the bins of `files` (any order; not modified). */
int dl_opt_plan_bins(dl_opt_plan *out, const dl_opt_file *files, size_t n, const dl_opt_rules *r);
void dl_opt_plan_free(dl_opt_plan *p);

#endif
