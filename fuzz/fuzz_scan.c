/* libFuzzer harness for the scan pipeline (src/table): a hostile data file
 * (and optionally a hostile deletion vector file) in a small table, read
 * through dl_scan with projection, partition values, a filter (file,
 * row-group and residual pruning) and the DV applied. Any input must give
 * rows or an error naming the file: never a crash, an out-of-bounds access,
 * a hang or a leak.
 *
 * Input: byte 0 = flags (bit 0: the add has a DV; bits 1-3: which filter;
 * bit 4: project id and part only), with a DV bytes 1-2 = DV file length L
 * (little endian) then L bytes of DV file; the rest is the Parquet file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "deltalake.h"
#include "storage/store_mem.h"
#include "table/scan.h"
#include "util/buf.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *filters[8] = {
	NULL, "id > 10", "part = 1", "name LIKE 'n1%'", "id IS NULL OR part > 1", "id < 0 AND name = 'x'",
	"id BETWEEN 3 AND 7", "length(name) > 2",
};

/* A DV id whose file is deletion_vector_<uuid>.bin at the table root. */
static const char dv_id[] = "ab^-aqEH.-t@S}K{vb[*";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1) return 0;
	uint8_t flags = data[0];
	size_t pos = 1, dvlen = 0;
	const uint8_t *dv = NULL;
	if (flags & 1) {
		if (size < 3) return 0;
		dvlen = (size_t)data[1] | (size_t)data[2] << 8;
		if (dvlen > size - 3) dvlen = size - 3;
		dv = data + 3;
		pos = 3 + dvlen;
	}
	dl_store *st;
	if (dl_store_open(&st, "mem://fuzz-scan", NULL) < 0) abort();
	dl_buf log = DL_BUF_INIT, dvpath = DL_BUF_INIT;
	dl_buf_printf(&log,
	              "{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":[\"deletionVectors\"],"
	              "\"writerFeatures\":[\"deletionVectors\"]}}\n"
	              "{\"metaData\":{\"id\":\"f\",\"format\":{\"provider\":\"parquet\",\"options\":{}},\"schemaString\":"
	              "\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"id\\\",\\\"type\\\":\\\"long\\\","
	              "\\\"nullable\\\":true,\\\"metadata\\\":{}},{\\\"name\\\":\\\"name\\\",\\\"type\\\":\\\"string\\\","
	              "\\\"nullable\\\":true,\\\"metadata\\\":{}},{\\\"name\\\":\\\"part\\\",\\\"type\\\":\\\"integer\\\","
	              "\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\",\"partitionColumns\":[\"part\"],\"configuration\":{}}}\n"
	              "{\"add\":{\"path\":\"part=1/f.parquet\",\"partitionValues\":{\"part\":\"1\"},\"size\":%zu,"
	              "\"modificationTime\":1,\"dataChange\":true,\"stats\":\"{\\\"numRecords\\\":100,\\\"minValues\\\":"
	              "{\\\"id\\\":0},\\\"maxValues\\\":{\\\"id\\\":99}}\"",
	              size - pos);
	if (dv)
		dl_buf_printf(&log, ",\"deletionVector\":{\"storageType\":\"u\",\"pathOrInlineDv\":\"%s\",\"offset\":1,"
		              "\"sizeInBytes\":%d,\"cardinality\":%d}", dv_id, dvlen > 9 ? (int)dvlen - 9 : 1,
		              (int)(flags >> 5) + 1);
	dl_buf_puts(&log, "}}\n");
	dl_store_put(st, "_delta_log/00000000000000000000.json", log.data, log.len);
	dl_store_put(st, "part=1/f.parquet", data + pos, size - pos);
	if (dv) {
		dl_dv_descriptor d = {'u', dv_id, 1, 1, 1, -1};
		if (dl_dv_file_path(&d, &dvpath) == 0) dl_store_put(st, dvpath.data, dv, dvlen);
	}
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	so.store = st;
	dl_snapshot *snap;
	if (dl_snapshot_open(&snap, NULL, &so) == 0) {
		const char *cols[] = {"id", "part"};
		dl_scan_options o = DL_SCAN_OPTIONS_INIT;
		o.filter = filters[(flags >> 1) & 7];
		o.threads = 1;
		o.batch_rows = 1000;
		if (flags & 16) {
			o.columns = cols;
			o.ncolumns = 2;
		}
		dl_scan *scan;
		if (dl_scan_open(&scan, snap, &o) == 0) {
			dl_batch_stream *bs;
			if (dl_scan_batches(&bs, scan) == 0) {
				dl_batch *b;
				int rc;
				while ((rc = dl_batch_stream_next(bs, &b)) == 0 && b) {
					if (dl_batch_validate(b) < 0) abort();
					dl_batch_free(b);
				}
				/* errors about the data file must say which file */
				if (rc < 0 && rc != DL_ENOMEM && !strstr(dl_error_last()->message, "f.parquet") &&
				    !strstr(dl_error_last()->message, "deletion")) {
					fprintf(stderr, "error without the file name: %s\n", dl_error_last()->message);
					abort();
				}
				dl_batch_stream_free(bs);
			}
			dl_scan_free(scan);
		}
		dl_snapshot_free(snap);
	}
	dl_error_clear();
	dl_buf_free(&log);
	dl_buf_free(&dvpath);
	dl_store_mem_drop("fuzz-scan");
	dl_store_free(st);
	return 0;
}
