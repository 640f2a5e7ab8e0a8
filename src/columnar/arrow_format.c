/* The public cell formatter (deltalake/arrow.h) over Arrow C data: each
 * batch is imported once (buffers borrowed, no copies for our own layout)
 * and its cells rendered by format_value.c, so a program printing Arrow
 * batches gets exactly the text `deltalake cat` prints, at the same speed
 * as formatting the library's own arrays. */
#include <string.h>
#include "columnar/arrow_c.h"
#include "columnar/format_value.h"
#include "util/error.h"
#include "util/mem.h"

struct dl_arrow_formatter {
	const struct ArrowSchema *schema; /* borrowed */
	dl_type *type;
	dl_batch *batch;                  /* the current batch, or NULL */
	dl_buf *cells;                    /* one text buffer per column */
	int ncols;
};

int dl_arrow_formatter_new(dl_arrow_formatter **out, const struct ArrowSchema *schema)
{
	*out = NULL;
	if (!schema || !schema->format || strcmp(schema->format, "+s") != 0)
		return dl_error_set(DL_EINVALID, "a formatter needs a struct schema (format \"+s\") of record batches");
	dl_arrow_formatter *f = dl_calloc(1, sizeof *f);
	if (!f) return DL_ENOMEM;
	f->schema = schema;
	int rc = dl_arrow_import_type(&f->type, schema);
	if (rc == 0) {
		f->ncols = f->type->nchildren;
		f->cells = dl_calloc(f->ncols ? (size_t)f->ncols : 1, sizeof *f->cells);
		if (!f->cells) rc = DL_ENOMEM;
	}
	if (rc < 0) {
		dl_arrow_formatter_free(f);
		return rc;
	}
	*out = f;
	return 0;
}

int dl_arrow_formatter_set_batch(int64_t *rows, dl_arrow_formatter *f, struct ArrowArray *batch)
{
	*rows = 0;
	dl_batch_free(f->batch);
	f->batch = NULL;
	if (!batch || !batch->release) return dl_error_set(DL_EINVALID, "the batch is NULL or already released");
	DL_TRY(dl_arrow_import_batch(&f->batch, batch, f->schema));
	if (f->batch->ncols != f->ncols) {
		int n = f->batch->ncols;
		dl_batch_free(f->batch);
		f->batch = NULL;
		return dl_error_set(DL_EINVALID, "a batch of %d columns for a formatter of %d", n, f->ncols);
	}
	*rows = f->batch->num_rows;
	return 0;
}

int dl_arrow_formatter_cell(const char **text, size_t *len, dl_arrow_formatter *f, int column, int64_t row,
                            dl_format_style style)
{
	*text = NULL;
	*len = 0;
	if (!f->batch) return dl_error_set(DL_EINVALID, "the formatter has no batch (dl_arrow_formatter_set_batch)");
	if (column < 0 || column >= f->ncols || row < 0 || row >= f->batch->num_rows)
		return dl_error_set(DL_EINVALID, "cell (%d, %lld) is outside the batch of %d columns and %lld rows", column,
		                    (long long)row, f->ncols, (long long)f->batch->num_rows);
	const dl_array *a = f->batch->cols[column];
	if (!dl_array_is_valid(a, row)) return 0; /* each output spells null its own way */
	dl_buf *cell = &f->cells[column];
	dl_buf_clear(cell);
	switch (style) {
	case DL_FORMAT_TEXT: DL_TRY(dl_format_value(cell, a, row)); break;
	case DL_FORMAT_JSON: DL_TRY(dl_format_value_json(cell, a, row)); break;
	case DL_FORMAT_CSV: DL_TRY(dl_format_value_csv(cell, a, row, ',')); break;
	default: return dl_error_set(DL_EINVALID, "unknown format style %d", (int)style);
	}
	if (!cell->data) DL_TRY(dl_buf_reserve(cell, 0));
	*text = cell->data;
	*len = cell->len;
	return 0;
}

void dl_arrow_formatter_free(dl_arrow_formatter *f)
{
	if (!f) return;
	dl_batch_free(f->batch);
	for (int i = 0; f->cells && i < f->ncols; i++) dl_buf_free(&f->cells[i]);
	dl_free(f->cells);
	dl_type_unref(f->type);
	dl_free(f);
}
