/* Encoder of Parquet's footer and page headers from the structs of
 * parquet/metadata.h (the same structs the reader decodes into), in the
 * Thrift compact protocol with the field ids of parquet.thrift. */
#ifndef DL_PARQUET_METADATA_WRITE_H
#define DL_PARQUET_METADATA_WRITE_H
#include "parquet/metadata.h"
#include "util/buf.h"

/* Appends the encoded FileMetaData (without the length and magic). */
int pq_file_metadata_encode(dl_buf *out, const pq_file_metadata *md);
/* Appends one encoded PageHeader. */
int pq_page_header_encode(dl_buf *out, const pq_page_header *h);

#endif
