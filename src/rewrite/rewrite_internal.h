/* The rewrite engine's shared state (see rewrite.h): the engine, one
 * touched file, and the steps of rewrite.c that the other files implement. */
#ifndef DL_REWRITE_INTERNAL_H
#define DL_REWRITE_INTERNAL_H
#include "expr/expr.h"
#include "log/properties.h"
#include "log/snapshot.h"
#include "rewrite/change_data.h"
#include "rewrite/file_writer.h"
#include "rewrite/rewrite.h"
#include "log/row_set.h"
#include "table/scan.h"

typedef enum rw_kind {
	RW_WHERE,  /* rows matching the engine's predicate */
	RW_ROWS,   /* rows at the given positions */
	RW_WHOLE,  /* the whole file, unread */
	RW_COPY,   /* every row copied, none deleted (purging a DV) */
} rw_kind;

typedef struct rw_file {
	const dl_add *add;
	rw_kind kind;
	bool copy;              /* copy-on-write output (else a DV) */
	dl_rowset given;        /* RW_ROWS: positions to delete (freed once read) */
	/* results of processing: positions as row sets (row_set.h), about a
	 * bit per row at most rather than 8 bytes */
	dl_rowset old;          /* rows of the existing DV (DV output and reading) */
	dl_rowset deleted;      /* positions deleted now (DV output) */
	int64_t live;           /* rows read (those the old DV keeps) */
	int64_t matched, copied;
	bool touched;           /* some row matched */
	dl_files_writer *out;   /* copies and updated rows */
	dl_change_writer *cdc;
	/* reading state */
	bool probe;             /* first copy-on-write pass: stop at the first match */
	int64_t pos;            /* position of the next row read */
	dl_rowset_cursor old_c, given_c;
	uint64_t old_next;      /* the least old DV row >= pos (UINT64_MAX: none) */
	int64_t bbase;          /* the current batch's rows are at bbase.. (-1: bpos) */
	uint64_t *bpos;         /* positions of the rows of the current batch */
	size_t bpos_cap;
	dl_selection sel;
	/* DV output, decided at commit */
	dl_dv_descriptor dv;
	bool full;              /* every row deleted: removed */
} rw_file;

struct dl_rewrite {
	dl_rewrite_options o;
	dl_snapshot *snap;
	dl_store *store;
	dl_type *schema;        /* the written schema (reference) */
	dl_str_map config;
	dl_table_properties props;
	const char *const *part_cols;
	int npart;
	bool use_dv;            /* DV output */
	bool cdf;               /* change data feed on */
	bool tracked;           /* rowTracking supported: new files get ids */
	bool preserve;          /* row tracking enabled: copies keep ids */
	dl_field hidden[2];     /* materialized row id, row commit version */
	int nhidden;
	dl_scan *scan;          /* reads touched files: the snapshot's columns
	                           (+ _metadata.row_id, row_commit_version) */
	int nsnap;              /* snapshot columns in the scan's output */
	dl_expr *pred;          /* bound to the scan's output */
	dl_scan *narrow;        /* reads only the predicate's columns: the probe
	                           pass of copies and DV-only deletes (NULL: none) */
	dl_expr *narrow_pred;   /* bound to narrow's output */
	dl_scan *filtered;      /* an UPDATE with DVs: the scan's columns and the
	                           predicate as its filter, so that only the matching
	                           rows are produced (with their positions) and the
	                           columns the predicate does not read are decoded
	                           only for them (NULL: not that case) */
	rw_file *files;
	size_t nfiles, cap;
	dl_arena arena;
	char *dv_path;          /* the commit's DV file once written */
	dl_rewrite_metrics m;
	bool ran;
};

/* rewrite_read.c: reads a touched file and sends its rows to the outputs. */
int dl_rw_process_file(dl_rewrite *rw, rw_file *f);
/* rewrite_copy.c: output of one batch's rows. */
int dl_rw_write_copies(dl_rewrite *rw, rw_file *f, const dl_batch *b, const uint32_t *idx, int64_t n);
int dl_rw_write_matched(dl_rewrite *rw, rw_file *f, const dl_batch *b, const uint32_t *idx,
                        const uint64_t *pos, int64_t n);
int dl_rw_open_outputs(dl_rewrite *rw, rw_file *f);
/* rewrite_dv.c: the commit's DV file and the actions of DV'd files. */
int dl_rw_write_dvs(dl_rewrite *rw);
int dl_rw_commit_dv_file(dl_rewrite *rw, rw_file *f);
/* rewrite.c */
int dl_rw_remove(dl_rewrite *rw, const dl_add *a);

#endif
