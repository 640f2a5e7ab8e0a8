/* libFuzzer harness for the Parquet reader: any bytes, read as an in-memory
 * file, must open and decode or fail with an error (never crash, hang, leak
 * or allocate without bound). Reads the metadata, every row group's
 * statistics, and all batches (small batches, so batch boundaries fall
 * inside pages and nested rows), then a projection of the first column,
 * and of the first column as a variant when it is a group (a shredded
 * variant is rebuilt from its typed_value columns, src/parquet/variant_shred.c). */
#include <stdint.h>
#include <stdlib.h>
#include "parquet/reader.h"
#include "util/error.h"

static void drain(pq_reader *r)
{
	for (int guard = 0; guard < 100000; guard++) {
		dl_batch *b;
		int64_t first;
		if (pq_reader_next(r, &b, &first) < 0 || !b) return;
		if (first < 0) abort();
		dl_batch_free(b);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pq_reader *r;
	if (pq_reader_open_memory(&r, data, size, "fuzz.parquet") < 0) {
		if (dl_error_last()->code == DL_OK) abort(); /* a failure must say why */
		return 0;
	}
	for (int g = 0; g < pq_reader_num_row_groups(r) && g < 64; g++)
		for (int c = 0; c < pq_reader_num_leaves(r) && c < 64; c++) {
			pq_column_stats st;
			(void)pq_reader_column_stats(r, g, c, &st);
		}
	pq_reader_set_batch_size(r, 37);
	drain(r);
	pq_reader_free(r);

	/* A projection of the first column (and a missing one) by name. */
	if (pq_reader_open_memory(&r, data, size, "fuzz.parquet") == 0) {
		const dl_type *t = pq_reader_schema(r);
		if (t->nchildren > 0) {
			const char *names[] = {t->children[0].name};
			if (pq_reader_select_columns(r, names, 1) == 0) drain(r);
		}
		pq_reader_free(r);
	}
	if (pq_reader_open_memory(&r, data, size, "fuzz.parquet") == 0) {
		const dl_type *t = pq_reader_schema(r);
		dl_type *var = dl_type_variant(), *req = NULL;
		if (var && t->nchildren > 0 && t->children[0].type->id == DL_TYPE_STRUCT) {
			dl_field f = {t->children[0].name, var, true, (char *)"{}"};
			req = dl_type_struct(&f, 1);
		}
		if (req && pq_reader_set_projection(r, req, false) == 0) {
			pq_reader_set_batch_size(r, 37);
			drain(r);
		}
		if (req) dl_type_unref(req);
		if (var) dl_type_unref(var);
		pq_reader_free(r);
	}
	return 0;
}
