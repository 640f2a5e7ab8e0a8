/* Page-level steps of the column writer shared by its three files:
 * column_writer.c shreds values into the page being filled, column_page.c
 * encodes and compresses full pages, column_chunk.c seals and emits the
 * chunk. Internal to the writer. */
#ifndef DL_PARQUET_COLUMN_PAGE_H
#define DL_PARQUET_COLUMN_PAGE_H
#include "parquet/column_writer.h"
#include "parquet/metadata.h"

/* Re-encodes the page's dictionary indices as PLAIN values and stops using
 * the dictionary (dropping it when no page used it yet). */
int pq_colw_fall_back(pq_colw *c);
/* Encodes the page being filled and hands it on (scr->put) to be
 * compressed into the chunk. */
int pq_colw_flush_page(pq_colw *c);
/* Uncompressed size of the page being filled (levels and values). */
size_t pq_colw_page_bytes(const pq_colw *c);
/* Dictionary plus indices smaller than the same values PLAIN. */
bool pq_colw_dict_pays_off(const pq_colw *c);
/* A new page of header h (its body in c->scr->body) into *slot, then
 * handed on to c->scr->put. */
int pq_colw_put_page(pq_colw *c, const pq_page_header *h, pq_wpage **slot);
/* DL_ENOMEM naming the column when n does not fit Parquet's int32 sizes. */
int pq_colw_check_i32(size_t n, const char *what, const pq_colw *c);
/* Gives the dictionary's memory back and starts an empty one. */
void pq_colw_dict_release(pq_colw *c);

#endif
