/* Deletion vectors (PROTOCOL.md "Deletion Vectors" and "Deletion Vector
 * Format"): the descriptor carried by add/remove actions, its derived
 * unique id and file path, and the serialized RoaringBitmapArray, inline
 * (Z85 text in the log) or in a DV file (version byte, then per DV: size
 * (4 bytes BE), magic + 64-bit portable roaring bitmap, CRC-32 (BE)). */
#ifndef DL_LOG_DELETION_VECTOR_H
#define DL_LOG_DELETION_VECTOR_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "deltalake/store.h"
#include "storage/resolve.h"
#include "util/arena.h"
#include "util/buf.h"

/* The magic number before a serialized RoaringBitmapArray (little endian). */
#define DL_DV_MAGIC 1681511377u

typedef struct dl_dv_descriptor {
	char storage_type;          /* 'u' (UUID-relative), 'i' (inline), 'p' (absolute path) */
	const char *path_or_inline; /* as in the log */
	int64_t offset;             /* -1 when absent (always for 'i') */
	int32_t size_in_bytes;
	int64_t cardinality;
	int64_t max_row_index;      /* -1 when absent */
} dl_dv_descriptor;

/* The derived uniqueId: "<storageType><pathOrInlineDv>[@<offset>]". */
int dl_dv_unique_id(const dl_dv_descriptor *dv, dl_buf *out);
/* The DV file's path: for 'u' "<prefix>/deletion_vector_<uuid>.bin" relative
 * to the table root; for 'p' the decoded absolute path. DL_EINVALID for 'i'
 * and DL_ECORRUPT for a malformed 'u' id. */
int dl_dv_file_path(const dl_dv_descriptor *dv, dl_buf *out);

/* A set of deleted row indexes: 32-bit roaring bitmaps per high 32 bits. */
typedef struct dl_dv_bucket {
	uint32_t key;
	void *bitmap; /* roaring_bitmap_t * */
} dl_dv_bucket;

typedef struct dl_dv_rows {
	dl_dv_bucket *buckets; /* ascending keys */
	uint32_t nbuckets;
	uint64_t cardinality;
} dl_dv_rows;

/* Parses a magic-prefixed RoaringBitmapArray; `what` names the source. */
int dl_dv_rows_deserialize(dl_dv_rows *out, const uint8_t *data, size_t len, const char *what);
/* Serializes rows (magic + portable 64-bit bitmap). */
int dl_dv_rows_serialize(const dl_dv_rows *rows, dl_buf *out);
/* Builds a set from sorted or unsorted row indexes. */
int dl_dv_rows_from_array(dl_dv_rows *out, const uint64_t *rows, size_t n);
bool dl_dv_rows_contains(const dl_dv_rows *rows, uint64_t row);
/* All deleted rows, ascending, in a malloc'd array (NULL when empty);
 * DL_ENOMEM beyond DL_DV_MAX_ARRAY_ROWS (hostile bitmaps are tiny on disk
 * but can claim 2^63 rows). */
#define DL_DV_MAX_ARRAY_ROWS (1ull << 31)
int dl_dv_rows_to_array(const dl_dv_rows *rows, uint64_t **out, size_t *n);
void dl_dv_rows_free(dl_dv_rows *rows);

/* Loads the rows of a descriptor: decodes inline DVs, or reads the DV file
 * through the table's store (absolute paths: the store of their scheme)
 * and checks its size, magic and CRC-32. Opens the DV file for this one
 * call: readers of many DVs use dl_dv_files. */
int dl_dv_load(dl_dv_rows *out, dl_store *table_store, const dl_dv_descriptor *dv);

/* The DV files of one reader (a scan), each opened once on first use and
 * kept open until dl_dv_files_free, with paths resolved (and checked
 * against the path policy) by `res` (borrowed; it must outlive the set).
 * dl_dv_load_from is safe from several threads at once. */
typedef struct dl_dv_files dl_dv_files;
int dl_dv_files_new(dl_dv_files **out, dl_store_resolver *res);
void dl_dv_files_free(dl_dv_files *f);
int dl_dv_load_from(dl_dv_rows *out, dl_dv_files *f, const dl_dv_descriptor *dv);
/* How many DV files were opened so far. */
size_t dl_dv_files_count(const dl_dv_files *f);

/* Parses the bytes of one DV inside a DV file (at dv->offset) as stored:
 * 4-byte BE size, data, 4-byte BE CRC-32. `file` is the whole file. */
int dl_dv_parse_file(dl_dv_rows *out, const uint8_t *file, size_t file_len, int64_t offset,
                     int32_t expected_size, const char *what);
/* Builds a DV file holding one DV (version byte + entry); *offset gets the
 * entry's offset (1). For writers and tests. */
int dl_dv_write_file(const dl_dv_rows *rows, dl_buf *out, int64_t *offset, int32_t *size);

#endif
