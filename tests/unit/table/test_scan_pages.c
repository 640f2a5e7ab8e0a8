/* Page skipping by the Parquet page index: filtered scans of a file with
 * many small pages (pages of different row counts across columns, nulls,
 * strings, several row groups, a deletion vector) give exactly the rows of
 * the same scan of the same data written without a page index, and of the
 * filter applied by hand, while reading fewer pages. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "table/scan.h"
#include "table_fixture.h"
#include "util/error.h"

#define NROWS 3000

static const char *schema_json =
	"\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":["
	"{\\\"name\\\":\\\"id\\\",\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}},"
	"{\\\"name\\\":\\\"name\\\",\\\"type\\\":\\\"string\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}},"
	"{\\\"name\\\":\\\"grp\\\",\\\"type\\\":\\\"integer\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}},"
	"{\\\"name\\\":\\\"val\\\",\\\"type\\\":\\\"double\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\"";

/* name: null every 7th row, otherwise "n<id>" padded to a varying length
 * (so its pages hold fewer rows than id's); val: null every 5th row. */
static dl_batch *make_rows(void)
{
	dl_type *lt = dl_type_new(DL_TYPE_LONG), *st = dl_type_new(DL_TYPE_STRING), *it = dl_type_new(DL_TYPE_INTEGER),
	        *dt = dl_type_new(DL_TYPE_DOUBLE);
	dl_field fs[4] = {{"id", lt, true, "{}"}, {"name", st, true, "{}"}, {"grp", it, true, "{}"}, {"val", dt, true, "{}"}};
	dl_type *schema = dl_type_struct(fs, 4);
	dl_batch *b = dl_batch_new(schema, NROWS);
	dl_builder *bl[4];
	for (int c = 0; c < 4; c++) assert_int_equal(dl_builder_new(&bl[c], fs[c].type), 0);
	for (int i = 0; i < NROWS; i++) {
		dl_builder_append_int(bl[0], i);
		if (i % 7 == 3) {
			dl_builder_append_null(bl[1]);
		} else {
			char s[64];
			snprintf(s, sizeof s, "n%04d%.*s", i, (i / 100) % 30, "..............................");
			dl_builder_append_str(bl[1], s);
		}
		dl_builder_append_int(bl[2], (i * 7919) % 50);
		if (i % 5 == 0) dl_builder_append_null(bl[3]);
		else dl_builder_append_double(bl[3], i + 0.5);
	}
	for (int c = 0; c < 4; c++) {
		assert_int_equal(dl_builder_finish(&b->cols[c], bl[c]), 0);
		dl_builder_free(bl[c]);
	}
	dl_type_unref(lt);
	dl_type_unref(st);
	dl_type_unref(it);
	dl_type_unref(dt);
	dl_type_unref(schema);
	return b;
}

static const uint64_t deleted[] = {4, 1201, 1250, 2999};

/* One file of NROWS rows in row groups of 1000, pages of ~300 bytes
 * without dictionaries, with or without the page index; a DV deletes
 * `deleted`. */
static void make_table(fixture *f, bool page_index)
{
	assert_int_equal(fixture_open(f), 0);
	dl_batch *b = make_rows();
	dl_buf buf = DL_BUF_INIT;
	pq_sink sink;
	pq_sink_init_buf(&sink, &buf);
	pq_writer_options o = PQ_WRITER_OPTIONS_INIT;
	o.row_group_rows = 1000;
	o.page_bytes = 300;
	o.dictionary = false;
	o.page_index = page_index;
	pq_writer *w;
	assert_int_equal(pq_writer_open(&w, b->schema, &sink, &o), 0);
	assert_int_equal(pq_writer_write(w, b), 0);
	assert_int_equal(pq_writer_close(w), 0);
	pq_writer_free(w);
	dl_batch_free(b);
	assert_int_equal(dl_store_put(f->store, "a.parquet", buf.data, buf.len), 0);
	dl_buf dv = DL_BUF_INIT;
	assert_int_equal(fixture_dv(f, deleted, sizeof deleted / sizeof *deleted, &dv, 0x31), 0);
	char add[1024], meta[2048];
	snprintf(add, sizeof add,
	         "{\"add\":{\"path\":\"a.parquet\",\"partitionValues\":{},\"size\":%zu,\"modificationTime\":1,"
	         "\"dataChange\":true,\"deletionVector\":%s}}", buf.len, dv.data);
	snprintf(meta, sizeof meta,
	         "{\"metaData\":{\"id\":\"t\",\"format\":{\"provider\":\"parquet\",\"options\":{}},\"schemaString\":%s,"
	         "\"partitionColumns\":[],\"configuration\":{\"delta.enableDeletionVectors\":\"true\"},\"createdTime\":1}}",
	         schema_json);
	const char *lines[] = {
		"{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":[\"deletionVectors\"],"
		"\"writerFeatures\":[\"deletionVectors\"]}}",
		meta, add};
	assert_int_equal(fixture_commit(f, 0, lines, 3), 0);
	dl_buf_free(&dv);
	dl_buf_free(&buf);
}

/* Row i of the data: does filter number k hold? (the filters below) */
static bool holds(int k, int i)
{
	bool name_null = i % 7 == 3, val_null = i % 5 == 0;
	double val = i + 0.5;
	char name[64];
	snprintf(name, sizeof name, "n%04d%.*s", i, (i / 100) % 30, "..............................");
	switch (k) {
	case 0: return i >= 1200 && i <= 1300;
	case 1: return i >= 2990 || i < 5;
	case 2: return !name_null && strcmp(name, "n1500...............") == 0;
	case 3: return name_null && i < 100;
	case 4: return !val_null && val > 2950.5;
	case 5: return i == 5 || i == 1700 || i == 2998;
	case 6: return !name_null && strncmp(name, "n12", 3) == 0;
	case 7: return !(i < 2900);
	case 8: return i > 2500 && (i * 7919) % 50 == 3;
	case 9: return (i >= 100 && i < 110) || (i >= 1990 && i < 2010);
	case 10: return i < 0;
	default: return false;
	}
}

static const char *filters[] = {
	"id BETWEEN 1200 AND 1300",
	"id >= 2990 OR id < 5",
	"name = 'n1500...............'",
	"name IS NULL AND id < 100",
	"val > 2950.5",
	"id IN (5, 1700, 2998)",
	"name LIKE 'n12%'",
	"NOT (id < 2900)",
	"id > 2500 AND grp = 3",
	"(id >= 100 AND id < 110) OR (id >= 1990 AND id < 2010)",
	"id < 0",
};

static bool is_deleted(int i)
{
	for (size_t k = 0; k < sizeof deleted / sizeof *deleted; k++)
		if (deleted[k] == (uint64_t)i) return true;
	return false;
}

static void expect_rows(const dl_batch *b, int k, const char *what)
{
	int64_t got = b ? b->num_rows : 0, j = 0;
	for (int i = 0; i < NROWS; i++) {
		if (!holds(k, i) || is_deleted(i)) continue;
		if (j >= got) fail_msg("%s, filter %s: row id %d missing", what, filters[k], i);
		assert_int_equal(col_i64(b, 0, j), i);
		j++;
	}
	if (j != got) fail_msg("%s, filter %s: %lld rows, %lld expected", what, filters[k], (long long)got, (long long)j);
}

static void same_batches(const dl_batch *a, const dl_batch *b)
{
	if (!a || !b) {
		assert_true(!a && !b);
		return;
	}
	assert_int_equal(a->num_rows, b->num_rows);
	assert_int_equal(a->ncols, b->ncols);
	for (int c = 0; c < a->ncols; c++) {
		const dl_array *x = a->cols[c], *y = b->cols[c];
		assert_int_equal(x->type->id, y->type->id);
		for (int64_t i = 0; i < a->num_rows; i++) {
			assert_int_equal(dl_array_is_valid(x, i), dl_array_is_valid(y, i));
			if (!dl_array_is_valid(x, i)) continue;
			switch (x->type->id) {
			case DL_TYPE_STRING: {
				int32_t xl = x->offsets[i + 1] - x->offsets[i], yl = y->offsets[i + 1] - y->offsets[i];
				assert_int_equal(xl, yl);
				assert_memory_equal(x->data + x->offsets[i], y->data + y->offsets[i], (size_t)xl);
				break;
			}
			case DL_TYPE_DOUBLE:
				assert_true(((const double *)x->values)[i] == ((const double *)y->values)[i]);
				break;
			default: assert_int_equal(col_i64(a, c, i), col_i64(b, c, i)); break;
			}
		}
	}
}

static void scan_both(fixture *with, fixture *without, const char *const *cols, int ncols, bool id_first)
{
	int selective_skips = 0;
	for (size_t k = 0; k < sizeof filters / sizeof *filters; k++) {
		dl_scan_options o = DL_SCAN_OPTIONS_INIT;
		o.filter = filters[k];
		o.columns = cols;
		o.ncolumns = ncols;
		o.batch_rows = 64; /* batches end inside ranges too */
		dl_batch *a = NULL, *b = NULL;
		dl_scan_metrics ma, mb;
		assert_int_equal(fixture_scan(&a, with->dir, &o, &ma), 0);
		assert_int_equal(fixture_scan(&b, without->dir, &o, &mb), 0);
		same_batches(a, b);
		if (id_first) {
			expect_rows(a, (int)k, "with the page index");
			expect_rows(b, (int)k, "without the page index");
		}
		assert_int_equal(mb.pages_skipped, 0);
		if (ma.pages_skipped > 0) {
			selective_skips++;
			assert_true(ma.page_bytes_skipped > 0);
		}
		dl_batch_free(a);
		dl_batch_free(b);
	}
	/* all but the grp and LIKE-on-unsorted ones skip pages */
	assert_true(selective_skips >= 7);
}

static void page_index_scans_equal(void **state)
{
	(void)state;
	fixture with, without;
	make_table(&with, true);
	make_table(&without, false);
	scan_both(&with, &without, NULL, 0, true);
	/* projections: the filter's columns read only for the filter, and a
	 * string column whose pages do not line up with id's */
	const char *c1[] = {"id", "name"};
	scan_both(&with, &without, c1, 2, true);
	const char *c2[] = {"val", "name"};
	scan_both(&with, &without, c2, 2, false);
	fixture_close(&with);
	fixture_close(&without);
}

static void page_index_metrics(void **state)
{
	(void)state;
	fixture f;
	make_table(&f, true);
	dl_scan_options o = DL_SCAN_OPTIONS_INIT;
	o.filter = "id BETWEEN 1200 AND 1210";
	dl_batch *b = NULL;
	dl_scan_metrics m;
	assert_int_equal(fixture_scan(&b, f.dir, &o, &m), 0);
	assert_int_equal(b->num_rows, 10); /* 1201 is deleted */
	/* two of the three row groups go by their footer statistics; in the
	 * third, most pages of every column are skipped */
	assert_int_equal(m.row_groups_pruned_stats, 2);
	assert_true(m.pages_skipped > 20);
	dl_batch_free(b);
	fixture_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(page_index_scans_equal),
		cmocka_unit_test(page_index_metrics),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
