/* A projection reads only the columns it names. A struct's levels (its
 * nullness) come from a leaf below it, and the file's choice is the first
 * one: a projection that leaves that leaf out must take its levels from a
 * projected one instead of decompressing a column nobody asked for (which
 * made every narrow scan that left out the file's first column read it
 * whole). The test makes that observable: the left-out columns' chunks are
 * overwritten with garbage, so reading them fails, and the projection must
 * still give the same values as a read of the intact file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include <string.h>
#include "columnar/builder.h"
#include "parquet/metadata.h"
#include "parquet/reader.h"
#include "parquet/writer.h"
#include "util/buf.h"
#include "util/error.h"

#define ROWS 5000

static dl_buf good, bad;

/* id LONG NOT NULL, v DOUBLE, st STRUCT<x LONG, y STRING> (nullable) */
static int setup(void **state)
{
	(void)state;
	dl_type *lt = dl_type_new(DL_TYPE_LONG), *dt = dl_type_new(DL_TYPE_DOUBLE), *st = dl_type_new(DL_TYPE_STRING);
	dl_field sf[2] = {{(char *)"x", lt, true, (char *)"{}"}, {(char *)"y", st, true, (char *)"{}"}};
	dl_type *sty = dl_type_struct(sf, 2);
	dl_field f[3] = {{(char *)"id", lt, false, (char *)"{}"}, {(char *)"v", dt, true, (char *)"{}"},
	                 {(char *)"st", sty, true, (char *)"{}"}};
	dl_type *schema = dl_type_struct(f, 3);
	pq_sink sink;
	pq_sink_init_buf(&sink, &good);
	pq_writer_options o = PQ_WRITER_OPTIONS_INIT; /* zstd pages */
	o.row_group_rows = 2000;                      /* three row groups */
	pq_writer *w;
	assert_int_equal(pq_writer_open(&w, schema, &sink, &o), 0);
	dl_batch *b = dl_batch_new(schema, ROWS);
	dl_builder *bl[3];
	for (int c = 0; c < 3; c++) assert_int_equal(dl_builder_new(&bl[c], f[c].type), 0);
	for (int i = 0; i < ROWS; i++) {
		char s[32];
		dl_builder_append_int(bl[0], i);
		if (i % 5 == 1) dl_builder_append_null(bl[1]);
		else dl_builder_append_double(bl[1], i * 0.5);
		if (i % 7 == 3) {
			dl_builder_append_null(bl[2]);
			continue;
		}
		dl_builder_begin_struct(bl[2]);
		if (i % 3 == 0) dl_builder_append_null(dl_builder_child(bl[2], 0));
		else dl_builder_append_int(dl_builder_child(bl[2], 0), i * 3);
		if (i % 4 == 0) dl_builder_append_null(dl_builder_child(bl[2], 1));
		else dl_builder_append_bytes(dl_builder_child(bl[2], 1), s, (size_t)snprintf(s, sizeof s, "y%d", i));
		dl_builder_end_struct(bl[2]);
	}
	for (int c = 0; c < 3; c++) {
		assert_int_equal(dl_builder_finish(&b->cols[c], bl[c]), 0);
		dl_builder_free(bl[c]);
	}
	assert_int_equal(pq_writer_write(w, b), 0);
	assert_int_equal(pq_writer_close(w), 0);
	pq_writer_free(w);
	dl_batch_free(b);
	dl_type_unref(schema);
	dl_type_unref(sty);
	dl_type_unref(lt);
	dl_type_unref(dt);
	dl_type_unref(st);

	/* the same file with the chunks of leaves 0 (id) and 2 (st.x) garbage */
	assert_int_equal(dl_buf_append(&bad, good.data, good.len), 0);
	pq_reader *r;
	assert_int_equal(pq_reader_open_memory(&r, (const uint8_t *)good.data, good.len, "good.parquet"), 0);
	const pq_file_metadata *md = pq_reader_metadata(r);
	assert_int_equal(md->nrow_groups, 3);
	for (uint32_t g = 0; g < md->nrow_groups; g++) {
		const int leaves[2] = {0, 2};
		for (int k = 0; k < 2; k++) {
			const pq_column_meta *m = &md->row_groups[g].columns[leaves[k]].meta_data;
			int64_t start = m->has_dictionary_page_offset && m->dictionary_page_offset < m->data_page_offset
			                    ? m->dictionary_page_offset
			                    : m->data_page_offset;
			assert_true(start > 0 && start + m->total_compressed_size <= (int64_t)bad.len);
			memset(bad.data + start, 0xA5, (size_t)m->total_compressed_size);
		}
	}
	pq_reader_free(r);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	dl_buf_free(&good);
	dl_buf_free(&bad);
	return 0;
}

/* All batches of `paths` projected out of `file`; NULL with the error code
 * in *rc when reading fails. */
static dl_batch **read_all(const dl_buf *file, const char *const *paths, int n, int *nb, int *rc)
{
	pq_reader *r;
	assert_int_equal(pq_reader_open_memory(&r, (const uint8_t *)file->data, file->len, "t.parquet"), 0);
	assert_int_equal(pq_reader_select_paths(r, paths, n), 0);
	dl_batch **out = calloc(64, sizeof *out);
	*nb = 0;
	*rc = 0;
	for (;;) {
		dl_batch *b;
		int e = pq_reader_next(r, &b, NULL);
		if (e < 0) {
			*rc = e;
			break;
		}
		if (!b) break;
		assert_true(*nb < 64);
		out[(*nb)++] = b;
	}
	pq_reader_free(r);
	if (*rc == 0) return out;
	for (int i = 0; i < *nb; i++) dl_batch_free(out[i]);
	free(out);
	return NULL;
}

static void assert_same_array(const dl_array *a, const dl_array *b)
{
	assert_int_equal(a->length, b->length);
	assert_int_equal(a->null_count, b->null_count);
	for (int64_t i = 0; i < a->length; i++) {
		bool va = dl_array_is_valid(a, i), vb = dl_array_is_valid(b, i);
		assert_int_equal(va, vb);
		if (!va) continue;
		switch (a->type->id) {
		case DL_TYPE_LONG: assert_int_equal(((int64_t *)a->values)[i], ((int64_t *)b->values)[i]); break;
		case DL_TYPE_DOUBLE: assert_true(((double *)a->values)[i] == ((double *)b->values)[i]); break;
		case DL_TYPE_STRUCT:
			break; /* children compared below */
		default: {
			int32_t la = a->offsets[i + 1] - a->offsets[i], lb = b->offsets[i + 1] - b->offsets[i];
			assert_int_equal(la, lb);
			assert_memory_equal(a->data + a->offsets[i], b->data + b->offsets[i], (size_t)la);
		}
		}
	}
	assert_int_equal(a->nchildren, b->nchildren);
	for (int c = 0; c < a->nchildren; c++) assert_same_array(a->children[c], b->children[c]);
}

static void check_projection(const char *const *paths, int n)
{
	int ng, nb, rg, rb;
	dl_batch **g = read_all(&good, paths, n, &ng, &rg);
	dl_batch **b = read_all(&bad, paths, n, &nb, &rb);
	assert_int_equal(rg, 0);
	if (rb != 0) fail_msg("projection read a left-out column: %s", dl_error_last()->message);
	assert_int_equal(ng, nb);
	int64_t rows = 0;
	for (int i = 0; i < ng; i++) {
		assert_int_equal(g[i]->num_rows, b[i]->num_rows);
		assert_int_equal(g[i]->ncols, b[i]->ncols);
		for (int c = 0; c < g[i]->ncols; c++) assert_same_array(g[i]->cols[c], b[i]->cols[c]);
		rows += g[i]->num_rows;
		dl_batch_free(g[i]);
		dl_batch_free(b[i]);
	}
	assert_int_equal(rows, ROWS);
	free(g);
	free(b);
}

/* Sanity: the garbage is real, so reading a damaged column fails. */
static void test_damaged_columns_fail(void **state)
{
	(void)state;
	int nb, rc;
	const char *id[] = {"id"}, *x[] = {"st.x"};
	assert_null(read_all(&bad, id, 1, &nb, &rc));
	assert_true(rc < 0);
	assert_null(read_all(&bad, x, 1, &nb, &rc));
	assert_true(rc < 0);
}

/* Top level: v alone, without the file's first column id. */
static void test_top_level_without_first_column(void **state)
{
	(void)state;
	const char *p[] = {"v"};
	check_projection(p, 1);
}

/* Nested: st.y alone, without st's first leaf st.x; st's NULLs (every 7th
 * row) must still come out as NULL structs, st.y's own NULLs as NULL y. */
static void test_struct_without_first_leaf(void **state)
{
	(void)state;
	const char *p[] = {"st.y"};
	check_projection(p, 1);
	const char *q[] = {"v", "st.y"};
	check_projection(q, 2);
	int nb, rc;
	dl_batch **b = read_all(&bad, p, 1, &nb, &rc);
	assert_non_null(b);
	const dl_array *st = b[0]->cols[0];
	assert_int_equal(st->type->id, DL_TYPE_STRUCT);
	assert_false(dl_array_is_valid(st, 3));
	assert_true(dl_array_is_valid(st, 4));
	assert_false(dl_array_is_valid(st->children[0], 4)); /* 4 % 4 == 0: y is NULL */
	assert_true(dl_array_is_valid(st->children[0], 5));
	for (int i = 0; i < nb; i++) dl_batch_free(b[i]);
	free(b);
}

/* A void field inside a struct: the writer stores it as an all-null INT32
 * annotated UNKNOWN (as Arrow does), and reading it as VOID gives NULLs
 * (it was refused: "INT in the file but VOID was requested"). */
static void test_nested_void_field(void **state)
{
	(void)state;
	dl_type *lt = dl_type_new(DL_TYPE_LONG), *nt = dl_type_new(DL_TYPE_NULL);
	dl_field sf[2] = {{(char *)"a", lt, true, (char *)"{}"}, {(char *)"b", nt, true, (char *)"{}"}};
	dl_type *sty = dl_type_struct(sf, 2);
	dl_field f[1] = {{(char *)"s", sty, true, (char *)"{}"}};
	dl_type *schema = dl_type_struct(f, 1);
	dl_buf file = DL_BUF_INIT;
	pq_sink sink;
	pq_sink_init_buf(&sink, &file);
	pq_writer_options o = PQ_WRITER_OPTIONS_INIT;
	pq_writer *w;
	assert_int_equal(pq_writer_open(&w, schema, &sink, &o), 0);
	dl_batch *b = dl_batch_new(schema, 3);
	dl_builder *bl;
	assert_int_equal(dl_builder_new(&bl, sty), 0);
	for (int i = 0; i < 3; i++) {
		if (i == 1) {
			dl_builder_append_null(bl);
			continue;
		}
		dl_builder_begin_struct(bl);
		dl_builder_append_int(dl_builder_child(bl, 0), 10 + i);
		dl_builder_append_null(dl_builder_child(bl, 1));
		dl_builder_end_struct(bl);
	}
	assert_int_equal(dl_builder_finish(&b->cols[0], bl), 0);
	dl_builder_free(bl);
	assert_int_equal(pq_writer_write(w, b), 0);
	assert_int_equal(pq_writer_close(w), 0);
	pq_writer_free(w);
	dl_batch_free(b);

	pq_reader *r;
	assert_int_equal(pq_reader_open_memory(&r, (const uint8_t *)file.data, file.len, "void.parquet"), 0);
	assert_int_equal(pq_reader_set_projection(r, schema, false), 0);
	dl_batch *out;
	assert_int_equal(pq_reader_next(r, &out, NULL), 0);
	assert_non_null(out);
	const dl_array *s = out->cols[0];
	assert_int_equal(s->length, 3);
	assert_true(dl_array_is_valid(s, 0));
	assert_false(dl_array_is_valid(s, 1));
	assert_int_equal(((int64_t *)s->children[0]->values)[2], 12);
	assert_int_equal(s->children[1]->type->id, DL_TYPE_NULL);
	for (int i = 0; i < 3; i++) assert_false(dl_array_is_valid(s->children[1], i));
	dl_batch_free(out);
	pq_reader_free(r);
	dl_buf_free(&file);
	dl_type_unref(schema);
	dl_type_unref(sty);
	dl_type_unref(lt);
	dl_type_unref(nt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_damaged_columns_fail),
		cmocka_unit_test(test_top_level_without_first_column),
		cmocka_unit_test(test_struct_without_first_leaf),
		cmocka_unit_test(test_nested_void_field),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
