/* Where a Parquet file's bytes come from: a dl_store object read with range
 * reads, or a caller's memory.
 *
 * Object stores charge per request (one VACUUM once read a checkpoint with
 * 162 small ranged GETs), so a reader announces the column chunks of a row
 * group first (pq_source_prefetch): ranges closer than the gap limit are
 * merged (as arrow's ReadRangeCache and object_store's coalesce_ranges do),
 * merged ranges are capped, and on a remote store several are fetched at
 * once. Later reads inside a fetched block are served from it. */
#ifndef DL_PARQUET_FILE_SOURCE_H
#define DL_PARQUET_FILE_SOURCE_H
#include <stddef.h>
#include <stdint.h>
#include "deltalake/store.h"

typedef struct pq_source {
	dl_store *store;    /* borrowed; NULL for memory */
	char *path;         /* object path in the store */
	const uint8_t *mem; /* borrowed memory image */
	int64_t size;
	char *name;         /* for messages */
	/* blocks fetched by the last pq_source_prefetch */
	struct pq_block *blocks;
	int nblocks;
	/* the whole object, once one read asked for all of it (the footer read
	 * of a file smaller than its guess): every later read is served from
	 * it, so such a file costs one request in all */
	uint8_t *whole;
} pq_source;

typedef struct pq_block {
	int64_t off;
	size_t len;
	uint8_t *data;
} pq_block;

typedef struct pq_range {
	int64_t off;
	size_t len;
} pq_range;

/* Merge two ranges when the bytes between them are fewer than this: one
 * more request costs about as much as reading 1 MiB on S3 (object_store's
 * default). Local stores (file, mem) are not prefetched at all. */
#define PQ_COALESCE_GAP ((int64_t)1 << 20)
/* A merged range grows no longer than this (a single bigger range stays
 * whole), so one request does not hold a whole row group. */
#define PQ_COALESCE_MAX ((int64_t)32 << 20)
/* Requests in flight at once on a remote store. */
#define PQ_FETCH_PARALLEL 8

/* Merges ranges[0..n) (sorted here in place; empty ones dropped) into
 * *out (malloc'd, *nout entries) under `gap` and PQ_COALESCE_MAX. */
int pq_coalesce_ranges(pq_range **out, int *nout, pq_range *ranges, int n, int64_t gap);
/* Replaces the fetched blocks by the coalesced ranges[0..n) (reordered):
 * reads that fall inside one of them are then served without a request.
 * Nothing for memory sources. Ranges outside the file are left to the
 * read that needs them to report. */
int pq_source_prefetch(pq_source *s, pq_range *ranges, int n);

/* size < 0: stat the object. */
int pq_source_open_store(pq_source *s, dl_store *store, const char *path, int64_t size);
int pq_source_open_memory(pq_source *s, const uint8_t *data, size_t len, const char *name);
void pq_source_close(pq_source *s);
/* Bytes [off, off+len): *ptr points at them (into a prefetched block when
 * one holds them: valid until the next prefetch or close); for store sources
 * they are otherwise read into a new buffer returned in *owned (free with dl_free), for memory
 * sources *owned is NULL. A read of the whole object keeps it in the source
 * (*owned NULL; valid until close) and serves every later read from it.
 * DL_ECORRUPT when the range is outside the file. */
int pq_source_read(pq_source *s, int64_t off, size_t len, const uint8_t **ptr, uint8_t **owned);
/* The same, reading store bytes into *buf (grown as needed, reused across
 * calls so repeated chunk reads do not fault in fresh memory). */
int pq_source_read_into(pq_source *s, int64_t off, size_t len, const uint8_t **ptr, uint8_t **buf, size_t *cap);

#endif
