/* Dictionary builder of the writer: maps each distinct value of a column
 * chunk to an index and accumulates the PLAIN-encoded dictionary page.
 *
 * Fixed-width values (INT32, INT64, FLOAT, DOUBLE, FIXED_LEN_BYTE_ARRAY) are
 * compared bitwise, so -0.0/+0.0 and distinct NaN payloads stay distinct and
 * decode back to exactly what was written. */
#ifndef DL_PARQUET_DICTIONARY_WRITE_H
#define DL_PARQUET_DICTIONARY_WRITE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/buf.h"

typedef struct pq_dict {
	int width;         /* bytes per value; 0 = BYTE_ARRAY (length-prefixed) */
	dl_buf data;       /* the dictionary page body (PLAIN) */
	uint32_t count;    /* entries */
	uint32_t *hashes;  /* per entry */
	size_t *offs;      /* BYTE_ARRAY: offset of each entry's length prefix */
	size_t cap;        /* capacity of hashes/offs */
	uint32_t *slots;   /* open addressing: entry index + 1, 0 = empty */
	uint32_t mask;     /* slot count - 1 */
	size_t data_limit; /* where data is expected to stop (the fallback limit
	                      plus a value; 0: none), for its capacity */
} pq_dict;

void pq_dict_init(pq_dict *d, int width);
/* Finds or adds the value p[0..n) (n == width for fixed values). */
int pq_dict_insert(pq_dict *d, const void *p, size_t n, uint32_t *idx, bool *added);
/* The PLAIN bytes of entry idx (for BYTE_ARRAY: without the length prefix). */
const uint8_t *pq_dict_entry(const pq_dict *d, uint32_t idx, size_t *n);
/* Forgets every entry but keeps the memory for the next column chunk. */
void pq_dict_clear(pq_dict *d);
void pq_dict_free(pq_dict *d);

#endif
