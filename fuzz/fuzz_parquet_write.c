/* libFuzzer harness for the Parquet writer (parquet/writer.c and its
 * column writers, encoders, statistics and page index): the batches of an
 * Arrow IPC stream (the input after its first byte) are written with
 * options picked by the first byte (codec, dictionary on/off, tiny pages and
 * row groups, statistics truncation, page index), read back with the
 * Parquet reader projected to the written schema, and every cell must
 * render the same on both sides.
 *
 * The writer may refuse a schema or batch (unsupported type, duplicate
 * names, a null in a NOT NULL field) but never crash, leak, or produce a
 * file the reader rejects or reads differently. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "columnar/format_value.h"
#include "columnar/ipc_reader.h"
#include "parquet/reader.h"
#include "parquet/writer.h"
#include "util/buf.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_BATCHES 8

static bool refusal(int rc)
{
	return rc == DL_ECORRUPT || rc == DL_EUNSUPPORTED || rc == DL_ENOMEM || rc == DL_EINVALID ||
	       rc == DL_ECONSTRAINT;
}

/* Every cell of a batch rendered, with separators; false if a cell does not
 * render (a malformed variant value: nothing to compare). */
static bool render(dl_buf *out, const dl_batch *b)
{
	for (int64_t k = 0; k < b->num_rows; k++) {
		for (int c = 0; c < b->ncols; c++) {
			if (dl_format_value(out, b->cols[c], k) < 0) return false;
			if (dl_buf_putc(out, '\x1f') < 0) abort();
		}
		if (dl_buf_putc(out, '\n') < 0) abort();
	}
	return true;
}

static void options_from(uint8_t o, pq_writer_options *opts)
{
	static const pq_codec codecs[] = {PQ_CODEC_UNCOMPRESSED, PQ_CODEC_SNAPPY, PQ_CODEC_ZSTD,
	                                  PQ_CODEC_GZIP, PQ_CODEC_LZ4_RAW, PQ_CODEC_BROTLI};
	*opts = (pq_writer_options)PQ_WRITER_OPTIONS_INIT;
	opts->codec = codecs[(o & 7) % 6];
	opts->dictionary = !(o & 8);
	if (o & 16) opts->page_bytes = 64;    /* many pages */
	if (o & 32) opts->row_group_rows = 3; /* many row groups */
	if (o & 64) opts->dict_bytes = 40;    /* dictionary fallback mid-chunk */
	opts->page_index = !(o & 128);
	opts->stats_truncate = (o & 3) == 1 ? 2 : 64;
}

static bool has_null_type(const dl_type *t)
{
	if (t->id == DL_TYPE_NULL) return true;
	for (int i = 0; i < t->nchildren; i++)
		if (has_null_type(t->children[i].type)) return true;
	return false;
}

/* The types to read the file back as: the written schema, but a top-level
 * NullType column as INT (written as an all-null INT32 with the UNKNOWN
 * annotation; the reader does not project INT to NullType, and both render
 * "NULL"). NULL when out of memory. */
static dl_type *read_schema(dl_type *schema)
{
	int n = schema->nchildren;
	dl_field *f = malloc(sizeof *f * (size_t)(n ? n : 1));
	dl_type *i32 = dl_type_new(DL_TYPE_INTEGER);
	if (!f || !i32) abort();
	for (int i = 0; i < n; i++) {
		f[i] = schema->children[i];
		if (f[i].type->id == DL_TYPE_NULL) f[i].type = i32;
	}
	dl_type *t = dl_type_struct(f, n);
	dl_type_unref(i32);
	free(f);
	return t;
}

/* Writes the batches, reads the file back and compares the rendering. */
static void round_trip(dl_batch **batches, int n, dl_type *schema, uint8_t o)
{
	pq_writer_options opts;
	options_from(o, &opts);
	dl_buf file = DL_BUF_INIT, expect = DL_BUF_INIT, got = DL_BUF_INIT;
	pq_sink sink;
	pq_sink_init_buf(&sink, &file);
	pq_writer *w;
	int rc = pq_writer_open(&w, schema, &sink, &opts);
	if (rc < 0) {
		if (!refusal(rc)) abort();
		dl_buf_free(&file);
		return;
	}
	bool comparable = true;
	for (int i = 0; i < n && rc == 0; i++) {
		rc = pq_writer_write(w, batches[i]);
		if (rc == 0 && !render(&expect, batches[i])) comparable = false;
	}
	if (rc == 0) rc = pq_writer_close(w);
	if (rc < 0 && !refusal(rc)) abort();
	if (rc == 0) {
		pq_reader *r;
		if (pq_reader_open_memory(&r, (const uint8_t *)file.data, file.len, "fuzz.parquet") < 0) abort();
		/* Read as a Delta scan does, into the table's types (a variant is an
		 * unannotated {value, metadata} group in the file). */
		dl_type *as = read_schema(schema);
		if (!as) abort();
		/* NullType inside nested types cannot be projected (see read_schema):
		 * read the file's own types, without comparing. */
		bool nested_null = false;
		for (int i = 0; i < schema->nchildren; i++)
			if (schema->children[i].type->id != DL_TYPE_NULL && has_null_type(schema->children[i].type))
				nested_null = true;
		if (nested_null) comparable = false;
		else if (pq_reader_set_projection(r, as, false) < 0) abort();
		for (;;) {
			dl_batch *b;
			int64_t first;
			if (pq_reader_next(r, &b, &first) < 0) abort();
			if (!b) break;
			if (dl_batch_validate(b) < 0) abort();
			if (!render(&got, b)) comparable = false;
			dl_batch_free(b);
		}
		pq_reader_free(r);
		dl_type_unref(as);
		if (comparable && (got.len != expect.len || (got.len && memcmp(got.data, expect.data, got.len) != 0)))
			abort();
	}
	pq_writer_free(w);
	dl_buf_free(&file);
	dl_buf_free(&expect);
	dl_buf_free(&got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1) return 0;
	size_t n = size - 1;
	uint8_t *copy = malloc(n ? n : 1);
	if (!copy) abort();
	memcpy(copy, data + 1, n);
	dl_ipc_reader *r;
	if (dl_ipc_reader_open(&r, copy, n, "fuzz") == 0) {
		dl_batch *batches[MAX_BATCHES];
		int nb = 0;
		while (nb < MAX_BATCHES) {
			dl_batch *b;
			if (dl_ipc_reader_next(r, &b) < 0 || !b) break;
			if (dl_batch_validate(b) < 0) abort();
			batches[nb++] = b;
		}
		dl_type *schema = (dl_type *)dl_ipc_reader_schema(r);
		round_trip(batches, nb, schema, data[0]);
		for (int i = 0; i < nb; i++) dl_batch_free(batches[i]);
		dl_ipc_reader_free(r);
	}
	dl_error_clear();
	free(copy);
	return 0;
}
