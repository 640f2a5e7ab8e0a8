/* Rows as canonical text for multiset comparison: one string per row, the
 * cells as JSON values (columnar/format_value.h: decimals exact at their
 * scale, timestamps as UTC text whatever their Parquet encoding, nested
 * values as JSON) in the order of a reference column list. */
#include "conformance.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "columnar/format_value.h"
#include "parquet/reader.h"
#include "util/error.h"
#include "util/mem.h"

void rowset_free(rowset *r)
{
	for (size_t i = 0; i < r->n; i++) free(r->rows[i]);
	free(r->rows);
	for (int i = 0; i < r->ncols; i++) free(r->cols[i]);
	free(r->cols);
	memset(r, 0, sizeof *r);
}

static int push_row(rowset *r, char *row)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		char **n = realloc(r->rows, cap * sizeof *n);
		if (!n) return DL_ENOMEM;
		r->rows = n;
		r->cap = cap;
	}
	r->rows[r->n++] = row;
	return 0;
}

int rowset_set_columns(rowset *r, const dl_type *schema)
{
	r->cols = calloc((size_t)schema->nchildren + 1, sizeof *r->cols);
	if (!r->cols) return DL_ENOMEM;
	for (int i = 0; i < schema->nchildren; i++) r->cols[i] = strdup(schema->children[i].name);
	r->ncols = schema->nchildren;
	return 0;
}

/* Appends the rows of b, with the columns in r->cols order (matched by
 * name, case-insensitively); `skip` names a column rendered as "*". */
int rowset_add_batch(rowset *r, const dl_batch *b, const char *skip)
{
	int *map = calloc((size_t)r->ncols + 1, sizeof *map);
	if (!map) return DL_ENOMEM;
	for (int c = 0; c < r->ncols; c++) {
		map[c] = dl_type_field_index(b->schema, r->cols[c]);
		if (skip && strcasecmp(skip, r->cols[c]) == 0) map[c] = -2;
	}
	dl_buf buf = DL_BUF_INIT;
	int rc = 0;
	for (int64_t i = 0; i < b->num_rows && rc == 0; i++) {
		dl_buf_clear(&buf);
		for (int c = 0; c < r->ncols && rc == 0; c++) {
			if (c) rc = dl_buf_puts(&buf, " | ");
			if (map[c] == -1) rc = dl_buf_puts(&buf, "null"); /* a column older versions lack */
			else if (map[c] == -2) rc = dl_buf_puts(&buf, "*");
			else rc = dl_format_value_json(&buf, b->cols[map[c]], i);
		}
		if (rc == 0) {
			char *s = strdup(buf.data ? buf.data : "");
			rc = s ? push_row(r, s) : DL_ENOMEM;
		}
	}
	dl_buf_free(&buf);
	free(map);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void rowset_sort(rowset *r)
{
	if (r->n) qsort(r->rows, r->n, sizeof *r->rows, cmp_str);
}

/* Compares two sorted row sets; on a difference writes the first row
 * missing on either side into why. */
bool rowset_equal(const rowset *want, const rowset *got, char *why, size_t cap)
{
	size_t i = 0, j = 0;
	while (i < want->n || j < got->n) {
		int c = i == want->n ? 1 : j == got->n ? -1 : strcmp(want->rows[i], got->rows[j]);
		if (c == 0) {
			i++;
			j++;
			continue;
		}
		snprintf(why, cap, "%zu rows expected, %zu read; %s row: %.300s", want->n, got->n,
		         c < 0 ? "missing" : "unexpected", c < 0 ? want->rows[i] : got->rows[j]);
		return false;
	}
	return true;
}

/* Every row of the Parquet files in dir (a directory of *.parquet). */
int rowset_read_parquet_dir(rowset *r, const char *dir, const char *skip)
{
	dl_store *st;
	DL_TRY(dl_store_open(&st, dir, NULL));
	dl_object_list l = {0};
	int rc = dl_store_list_from(&l, st, "", NULL);
	for (size_t i = 0; i < l.count && rc == 0; i++) {
		const char *p = l.items[i].path;
		size_t n = strlen(p);
		if (n < 8 || strcmp(p + n - 8, ".parquet") != 0) continue;
		pq_reader *pr;
		rc = pq_reader_open_store(&pr, st, p, l.items[i].size);
		if (rc < 0) break;
		if (!r->cols) rc = rowset_set_columns(r, pq_reader_schema(pr));
		dl_batch *b;
		int64_t first;
		while (rc == 0 && (rc = pq_reader_next(pr, &b, &first)) == 0 && b) {
			rc = rowset_add_batch(r, b, skip);
			dl_batch_free(b);
		}
		pq_reader_free(pr);
	}
	dl_object_list_free(&l);
	dl_store_free(st);
	return rc;
}
