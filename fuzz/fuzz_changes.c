/* libFuzzer harness for the change data feed (src/table/cdf.c): version 0
 * of a small table (change data feed on) adds a Parquet file; version 1 is
 * the fuzzer's commit (adds, removes with deletion vectors, cdc actions,
 * metaData turning the feed off...) and optionally replaces the data file.
 * Reading the feed must give rows or an error, never crash, hang or leak.
 *
 * Input: bytes 0-1 = length L of the data file (little endian, capped),
 * then L bytes of Parquet (L = 0 keeps a valid default file written once),
 * then the text of commit 1. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "columnar/builder.h"
#include "deltalake.h"
#include "parquet/writer.h"
#include "storage/store_mem.h"
#include "table/scan.h"
#include "util/buf.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static dl_buf default_file;

/* ids 0..9 as a Parquet file (our writer), made once. */
static void make_default(void)
{
	if (default_file.len) return;
	dl_type *lt = dl_type_new(DL_TYPE_LONG);
	dl_field f = {"id", lt, true, "{}"};
	dl_type *st = dl_type_struct(&f, 1);
	dl_batch *b = dl_batch_new(st, 10);
	dl_builder *bl;
	dl_builder_new(&bl, lt);
	for (int i = 0; i < 10; i++) dl_builder_append_int(bl, i);
	dl_builder_finish(&b->cols[0], bl);
	dl_builder_free(bl);
	pq_sink sink;
	pq_sink_init_buf(&sink, &default_file);
	pq_writer_options o = PQ_WRITER_OPTIONS_INIT;
	pq_writer *w;
	if (pq_writer_open(&w, st, &sink, &o) != 0 || pq_writer_write(w, b) != 0 || pq_writer_close(w) != 0) abort();
	pq_writer_free(w);
	dl_batch_free(b);
	dl_type_unref(st);
	dl_type_unref(lt);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2) return 0;
	make_default();
	size_t flen = (size_t)data[0] | (size_t)data[1] << 8;
	if (flen > size - 2) flen = size - 2;
	const uint8_t *file = flen ? data + 2 : (const uint8_t *)default_file.data;
	size_t file_len = flen ? flen : default_file.len;
	const char *commit = (const char *)data + 2 + flen;
	size_t commit_len = size - 2 - flen;
	dl_store *st;
	if (dl_store_open(&st, "mem://fuzz-changes", NULL) < 0) abort();
	dl_buf v0 = DL_BUF_INIT;
	dl_buf_printf(&v0,
	              "{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":[\"deletionVectors\"],"
	              "\"writerFeatures\":[\"deletionVectors\",\"changeDataFeed\"]}}\n"
	              "{\"metaData\":{\"id\":\"f\",\"format\":{\"provider\":\"parquet\",\"options\":{}},\"schemaString\":"
	              "\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"id\\\",\\\"type\\\":\\\"long\\\","
	              "\\\"nullable\\\":true,\\\"metadata\\\":{}},{\\\"name\\\":\\\"p\\\",\\\"type\\\":\\\"integer\\\","
	              "\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\",\"partitionColumns\":[\"p\"],"
	              "\"configuration\":{\"delta.enableChangeDataFeed\":\"true\"}}}\n"
	              "{\"add\":{\"path\":\"a.parquet\",\"partitionValues\":{\"p\":\"1\"},\"size\":%zu,"
	              "\"modificationTime\":1,\"dataChange\":true}}\n", file_len);
	dl_store_put(st, "_delta_log/00000000000000000000.json", v0.data, v0.len);
	dl_store_put(st, "_delta_log/00000000000000000001.json", commit, commit_len);
	dl_store_put(st, "a.parquet", file, file_len);
	dl_store_put(st, "_change_data/c.parquet", file, file_len);
	dl_changes_options o = DL_CHANGES_OPTIONS_INIT;
	dl_batch_stream *bs;
	if (dl_changes_batches(&bs, "mem://fuzz-changes", &o) == 0) {
		dl_batch *b;
		while (dl_batch_stream_next(bs, &b) == 0 && b) {
			if (dl_batch_validate(b) < 0) abort();
			dl_batch_free(b);
		}
		dl_batch_stream_free(bs);
	}
	dl_error_clear();
	dl_buf_free(&v0);
	dl_store_mem_drop("fuzz-changes");
	dl_store_free(st);
	return 0;
}
