/* One leaf column of the Parquet writer: shreds Arrow arrays into
 * definition/repetition levels and values (Dremel), encodes them into data
 * pages v1 (RLE_DICTIONARY with a PLAIN dictionary page, falling back to
 * PLAIN when the dictionary outgrows its limit or does not pay off),
 * compresses each page as it fills and keeps the column chunk of the
 * current row group in memory until the writer flushes the row group. */
#ifndef DL_PARQUET_COLUMN_WRITER_H
#define DL_PARQUET_COLUMN_WRITER_H
#include "columnar/array.h"
#include "parquet/bloom_write.h"
#include "parquet/dictionary_write.h"
#include "parquet/metadata.h"
#include "parquet/page_index.h"
#include "parquet/schema_write.h"
#include "parquet/stats.h"
#include "util/arena.h"

typedef struct pq_sink pq_sink;

typedef struct pq_colw_options {
	pq_codec codec;
	int level;               /* codec level, 0 = default */
	size_t page_bytes;       /* target uncompressed page size */
	size_t dict_bytes;       /* dictionary page limit before falling back */
	bool dictionary;         /* try dictionary encoding */
	size_t stats_truncate;   /* byte array min/max length in the footer (0 = full) */
	bool page_crc;           /* CRC-32 of each page's (compressed) data in its header */
	bool page_index;         /* collect the ColumnIndex/OffsetIndex of each chunk */
} pq_colw_options;

/* A page on its way into the file: encoded on its column's thread (the
 * header's fields but its sizes and CRC, the uncompressed body), then
 * compressed by whichever thread takes it (pq_colw_compress_page), then
 * written with its chunk, in order. Each page is its own allocation, so a
 * thread may compress it while its column carries on. */
typedef struct pq_wpage {
	pq_page_header h;
	dl_buf body;             /* the uncompressed body, until compressed */
	uint8_t *data;           /* header + compressed body, exactly as stored */
	size_t len;
	int64_t body_len, comp_len; /* the body before and after compression */
	int64_t uncompressed;    /* header + uncompressed body */
	int col;                 /* the leaf's index in the writer */
	bool done;               /* data is set (the pipeline's lock guards it) */
	struct pq_wpage *next_queued, *next_ordered; /* the pipeline's lists */
} pq_wpage;
void pq_wpage_free(pq_wpage *p);

typedef struct pq_colw pq_colw;
typedef struct pq_colw_scratch pq_colw_scratch;
/* Takes an encoded page of column c, its body in scr->body: compresses it
 * now or queues it for another thread (swapping scr->body for a spare
 * buffer). Set by the writer's pipeline; the page then belongs to c's
 * chunk, and the pipeline tells when it is compressed. */
typedef int (*pq_put_page_fn)(void *ctx, pq_colw *c, pq_colw_scratch *scr, pq_wpage *p);

/* The buffers a page passes through on its way into the chunk (its body,
 * then compressed, its header): needed only while one page is written, so
 * the writer shares a set among its columns (one per thread at work)
 * instead of each of 50 columns keeping 2 MB of them. Lent with them:
 * where the column's pages go. */
struct pq_colw_scratch {
	dl_buf body, comp, head;
	pq_put_page_fn put;
	void *put_ctx;
};
void pq_colw_scratch_free(pq_colw_scratch *s);

struct pq_colw {
	const pq_leaf *leaf;
	pq_colw_options opt;
	int width;               /* PLAIN bytes per value; 0 = BYTE_ARRAY */
	/* the page being filled */
	uint16_t *def, *rep;
	size_t nslots, cap_slots; /* level slots (values + nulls) */
	uint32_t *idx;
	size_t nidx, cap_idx;
	dl_buf plain;            /* PLAIN values (booleans: one byte each) */
	size_t page_raw;         /* PLAIN size of the page's values */
	/* the column chunk of the current row group */
	bool dict_on;            /* values go through the dictionary */
	bool fallback;           /* switch to PLAIN at the next row boundary */
	pq_dict dict;
	int dict_pages;          /* data pages written with the dictionary */
	int plain_pages;
	pq_wpage **pagev;        /* the chunk's data pages, in order */
	size_t npages, cap_pages;
	int64_t num_values;
	pq_stats stats;          /* this chunk */
	pq_stats file_stats;     /* every chunk so far */
	pq_colw_scratch *scr;    /* lent by the writer for a write or flush call */
	dl_buf scratch;          /* statistics encoding */
	/* page index (opt.page_index) */
	pq_page_index pidx;
	int64_t page_rows, chunk_rows;
	pq_stats pstats;         /* the page's min/max */
	bool pstats_live;        /* pstats took every value of the page (PLAIN pages:
	                          * then the chunk's min/max come from it, not twice) */
	int64_t page_nans;
	uint64_t *seen;          /* dictionary entries used by the page */
	size_t seen_words;
	pq_bloom_builder bloom;  /* bloom.fpp > 0: a Bloom filter per chunk */
};

int pq_colw_init(pq_colw *c, const pq_leaf *leaf, const pq_colw_options *opt);
void pq_colw_free(pq_colw *c);

/* Shreds rows [start, start+n) of the leaf's top-level array. */
int pq_colw_write(pq_colw *c, pq_colw_scratch *scr, const dl_array *top, int64_t start, int64_t n);
/* Bytes of memory the column holds (the capacity of its buffers: levels,
 * values, dictionary; its pages are counted by the writer's pipeline), for
 * tests that bound the writer's memory. */
size_t pq_colw_memory(const pq_colw *c);
/* Uncompressed bytes of the values and levels not in a page yet (the
 * writer's size estimates add them to the pages'). */
int64_t pq_colw_unpaged(const pq_colw *c);
/* Compresses page p of column c (its body into comp, header into head,
 * both then copied into p->data), leaving p->body to the caller. Reads
 * only c's options and leaf, so any thread may run it while c carries on. */
int pq_colw_compress_page(const pq_colw *c, pq_wpage *p, pq_colw_scratch *scr);
/* A column chunk ended by pq_colw_seal and not yet in the file: its
 * pages (compressed, with headers), statistics, page index and Bloom
 * hashes. Sealing runs on the column's thread, emitting on the one that
 * owns the sink, so columns carry on into the next row group while the
 * chunks of this one wait for their turn in the file. */
typedef struct pq_sealed_chunk {
	pq_wpage *dict_page;     /* the dictionary page, or NULL */
	pq_wpage **pagev;        /* data pages, in order */
	size_t npages;
	int64_t num_values;
	int dict_pages, plain_pages;
	pq_stats stats;
	pq_page_index pidx;
	pq_bloom_builder bloom;
} pq_sealed_chunk;

/* Ends the column's chunk: flushes its last page, encodes its dictionary
 * page and moves everything into *out (an empty pq_sealed_chunk); the
 * column starts the next row group afresh. Its pages may still be on
 * their way through compression: emit it only once they are done. */
int pq_colw_seal(pq_colw *c, pq_colw_scratch *scr, pq_sealed_chunk *out);
/* Writes a sealed chunk of column c to the sink and describes it in *out
 * (strings and statistics copied into `arena`, which must outlive the
 * footer; `scratch` is a buffer for the statistics' encoding). With the
 * page index, appends the chunk's ColumnIndex to `ci` and OffsetIndex to
 * `oi` and sets the column/offset index fields of *out to their offsets in
 * those buffers (the writer rebases them when it writes the buffers). With
 * a Bloom filter, appends it to `bf` likewise (bloom_filter_offset relative
 * to bf). Folds the chunk's statistics into c->file_stats and frees *s.
 * Chunks are emitted in file order, by one thread at a time. */
int pq_colw_emit(pq_colw *c, pq_sealed_chunk *s, pq_sink *sink, dl_arena *arena, dl_buf *scratch,
                 pq_column_chunk *out, dl_buf *ci, dl_buf *oi, dl_buf *bf);
void pq_sealed_chunk_free(pq_sealed_chunk *s);

#endif
