#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>
#include "columnar/arrow_c.h"
#include "columnar/batch_stream.h"
#include "util/error.h"
#include "util/buf.h"
#include "util/mem.h"
#include "sample.h"

static void assert_batches_equal(const dl_batch *a, const dl_batch *b)
{
	assert_int_equal(a->ncols, b->ncols);
	assert_int_equal(a->num_rows, b->num_rows);
	assert_true(dl_type_equals(a->schema, b->schema));
	for (int c = 0; c < a->ncols; c++)
		for (int64_t r = 0; r < a->num_rows; r++)
			if (!dl_array_row_equals(a->cols[c], r, b->cols[c], r))
				fail_msg("column %d row %lld differs", c, (long long)r);
}

static void batch_round_trip(void **state)
{
	(void)state;
	dl_batch *orig = sample_batch(29), *expect = sample_batch(29);
	struct ArrowSchema sch;
	struct ArrowArray arr;
	assert_int_equal(dl_arrow_export_schema(&sch, orig->schema), 0);
	assert_int_equal(dl_arrow_export_batch(&arr, orig), 0);
	assert_string_equal(sch.format, "+s");
	assert_int_equal(sch.n_children, 19);
	assert_string_equal(sch.children[3]->name, "i32");
	assert_int_equal(sch.children[3]->flags & ARROW_FLAG_NULLABLE, 0);
	assert_int_equal(sch.children[0]->flags & ARROW_FLAG_NULLABLE, ARROW_FLAG_NULLABLE);
	const char *fmts[] = {"b", "c", "s", "i", "l", "f", "g", "d:10,2", "u", "z", "tdD", "tsu:UTC", "tsu:",
	                      "+s", "+l", "+m", "+l", "+s", "n"};
	for (int i = 0; i < 19; i++) assert_string_equal(sch.children[i]->format, fmts[i]);
	const struct ArrowSchema *m = sch.children[15];
	assert_string_equal(m->children[0]->name, "entries");
	assert_int_equal(m->children[0]->flags & ARROW_FLAG_NULLABLE, 0);
	assert_int_equal(m->children[0]->children[0]->flags & ARROW_FLAG_NULLABLE, 0);
	assert_string_equal(m->children[0]->children[1]->format, "+l");
	assert_int_equal(arr.length, 29);
	assert_int_equal(arr.n_children, 19);
	assert_int_equal(arr.children[18]->n_buffers, 0);
	assert_int_equal(arr.children[8]->n_buffers, 3);
	assert_int_equal(arr.children[3]->null_count, 0);
	assert_null(arr.children[3]->buffers[0]);

	dl_type *t;
	assert_int_equal(dl_arrow_import_type(&t, &sch), 0);
	assert_true(dl_type_equals(t, expect->schema));
	assert_string_equal(t->children[3].metadata, "{\"comment\":\"id\"}");
	assert_int_equal(t->children[17].type->id, DL_TYPE_VARIANT);
	dl_type_unref(t);
	dl_batch *back;
	assert_int_equal(dl_arrow_import_batch(&back, &arr, &sch), 0);
	assert_null(arr.release); /* moved */
	assert_batches_equal(back, expect);
	/* Zero copy: the imported column points at the exported buffers, kept
	 * alive by the exporter's holder until the batch is freed. */
	assert_non_null(back->cols[3]->owner_release);
	dl_batch_free(back);
	dl_batch_free(expect);
	sch.release(&sch);
	assert_null(sch.release);
}

static void moved_children_outlive_parent(void **state)
{
	(void)state;
	dl_batch *b = sample_batch(10);
	struct ArrowArray arr, child;
	assert_int_equal(dl_arrow_export_batch(&arr, b), 0);
	child = *arr.children[8]; /* move the string column out */
	arr.children[8]->release = NULL;
	arr.release(&arr);
	assert_null(arr.release);
	const int32_t *off = child.buffers[1];
	assert_memory_equal((const char *)child.buffers[2] + off[2], "str2", 4);
	child.release(&child);
	assert_null(child.release);
	/* Schemas too. */
	dl_type *schema = sample_schema();
	struct ArrowSchema sch, cs;
	assert_int_equal(dl_arrow_export_schema(&sch, schema), 0);
	cs = *sch.children[15];
	sch.children[15]->release = NULL;
	sch.release(&sch);
	assert_string_equal(cs.format, "+m");
	cs.release(&cs);
	dl_type_unref(schema);
}

/* ---- a hand-made producer, counting releases ---- */

static int released;

static void count_release(struct ArrowArray *a)
{
	for (int64_t i = 0; i < a->n_children; i++)
		if (a->children[i]->release) a->children[i]->release(a->children[i]);
	released++;
	a->release = NULL;
}

static void child_release(struct ArrowArray *a)
{
	a->release = NULL;
}

static struct ArrowSchema leaf_schema(const char *format, const char *name)
{
	struct ArrowSchema s = {format, name, NULL, ARROW_FLAG_NULLABLE, 0, NULL, NULL, NULL, NULL};
	return s;
}

static void import_converts_offsets_and_units(void **state)
{
	(void)state;
	/* int32 with offset 2 and a null at logical row 1 */
	int32_t vals[] = {9, 9, 10, 11, 12};
	uint8_t valid[] = {0x17}; /* bits 0,1,2,4 set: row 3 (logical 1) null */
	const void *bufs[] = {valid, vals};
	struct ArrowArray a = {3, -1, 2, 2, 0, bufs, NULL, NULL, count_release, NULL};
	struct ArrowSchema s = leaf_schema("i", "x");
	dl_array *out;
	released = 0;
	assert_int_equal(dl_arrow_import_array(&out, &a, &s), 0);
	assert_int_equal(released, 1); /* copied, so released at once */
	assert_int_equal(out->length, 3);
	assert_int_equal(((int32_t *)out->values)[0], 10);
	assert_false(dl_array_is_valid(out, 1));
	assert_true(dl_array_is_valid(out, 2));
	assert_int_equal(dl_array_null_count(out), 1);
	dl_array_free(out);

	/* large_utf8 with offset 1 */
	int64_t loff[] = {0, 2, 5, 9};
	const char *chars = "abcdefghi";
	const void *sb[] = {NULL, loff, chars};
	struct ArrowArray la = {2, 0, 1, 3, 0, sb, NULL, NULL, count_release, NULL};
	s = leaf_schema("U", "s");
	assert_int_equal(dl_arrow_import_array(&out, &la, &s), 0);
	assert_int_equal(out->type->id, DL_TYPE_STRING);
	assert_int_equal(out->offsets[0], 0);
	assert_int_equal(out->offsets[2], 7);
	assert_memory_equal(out->data, "cdefghi", 7);
	dl_array_free(out);

	/* timestamps in seconds with a zone, nanos without, date64 */
	int64_t secs[] = {1, -2};
	const void *tb[] = {NULL, secs};
	struct ArrowArray ta = {2, 0, 0, 2, 0, tb, NULL, NULL, count_release, NULL};
	s = leaf_schema("tss:Europe/Paris", "t");
	assert_int_equal(dl_arrow_import_array(&out, &ta, &s), 0);
	assert_int_equal(out->type->id, DL_TYPE_TIMESTAMP);
	assert_int_equal(((int64_t *)out->values)[1], -2000000);
	dl_array_free(out);
	int64_t nanos[] = {1999, -1};
	tb[1] = nanos;
	ta.release = count_release;
	s = leaf_schema("tsn:", "t");
	assert_int_equal(dl_arrow_import_array(&out, &ta, &s), 0);
	assert_int_equal(out->type->id, DL_TYPE_TIMESTAMP_NTZ);
	assert_int_equal(((int64_t *)out->values)[0], 1);
	assert_int_equal(((int64_t *)out->values)[1], -1);
	dl_array_free(out);
	int64_t ms[] = {86400000LL * 3 + 5, -1};
	tb[1] = ms;
	ta.release = count_release;
	s = leaf_schema("tdm", "d");
	assert_int_equal(dl_arrow_import_array(&out, &ta, &s), 0);
	assert_int_equal(out->type->id, DL_TYPE_DATE);
	assert_int_equal(((int32_t *)out->values)[0], 3);
	assert_int_equal(((int32_t *)out->values)[1], -1);
	dl_array_free(out);
	int64_t big[] = {INT64_MAX / 10, 0};
	tb[1] = big;
	ta.release = count_release;
	s = leaf_schema("tss:", "t");
	assert_int_equal(dl_arrow_import_array(&out, &ta, &s), DL_EINVALID);
	assert_null(out);
	assert_int_equal(released, 6);
}

static void import_borrows_and_releases_once(void **state)
{
	(void)state;
	/* list<int32> with the list at offset 0, borrowed; struct parent */
	int32_t elems[] = {1, 2, 3, 4, 5};
	const void *eb[] = {NULL, elems};
	struct ArrowArray e = {5, 0, 0, 2, 0, eb, NULL, NULL, child_release, NULL};
	int32_t loffs[] = {0, 2, 2, 5};
	struct ArrowArray *lc[] = {&e};
	const void *lb[] = {NULL, loffs};
	struct ArrowArray l = {3, 0, 0, 2, 1, lb, lc, NULL, child_release, NULL};
	struct ArrowArray *rc[] = {&l};
	const void *rb[] = {NULL};
	struct ArrowArray root = {3, 0, 0, 1, 1, rb, rc, NULL, count_release, NULL};
	struct ArrowSchema es = leaf_schema("i", "element"), ls = leaf_schema("+l", "xs");
	struct ArrowSchema *esp[] = {&es}, *lsp[] = {&ls};
	ls.n_children = 1;
	ls.children = esp;
	struct ArrowSchema rs = leaf_schema("+s", "");
	rs.n_children = 1;
	rs.children = lsp;
	released = 0;
	dl_batch *b;
	assert_int_equal(dl_arrow_import_batch(&b, &root, &rs), 0);
	assert_int_equal(released, 0); /* buffers still borrowed */
	dl_array *xs = b->cols[0];
	assert_ptr_equal(xs->offsets, loffs);
	assert_ptr_equal(xs->children[0]->values, elems);
	dl_array *keep = dl_array_slice(xs, 2, 1);
	dl_batch_free(b);
	assert_int_equal(released, 1);
	assert_int_equal(keep->offsets[1], 3);
	assert_int_equal(((int32_t *)keep->children[0]->values)[2], 5);
	dl_array_free(keep);
	assert_int_equal(released, 1);
}

static void import_rejects_bad_input(void **state)
{
	(void)state;
	int32_t offs[] = {0, 5, 3};
	const void *sb[] = {NULL, offs, "abcde"};
	struct ArrowArray a = {2, 0, 0, 3, 0, sb, NULL, NULL, count_release, NULL};
	struct ArrowSchema s = leaf_schema("u", "s");
	dl_array *out;
	released = 0;
	assert_int_equal(dl_arrow_import_array(&out, &a, &s), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "offsets decrease"));
	assert_int_equal(released, 1);
	struct ArrowArray v = {2, 0, 0, 3, 0, sb, NULL, NULL, count_release, NULL};
	s = leaf_schema("w:3", "s");
	assert_int_equal(dl_arrow_import_array(&out, &v, &s), DL_EUNSUPPORTED);
	assert_int_equal(released, 2);
	dl_type *t;
	s = leaf_schema("d:5,2,256", "d");
	assert_int_equal(dl_arrow_import_type(&t, &s), DL_EUNSUPPORTED);
	s = leaf_schema("d:5,2,128", "d");
	assert_int_equal(dl_arrow_import_type(&t, &s), 0);
	assert_int_equal(t->precision, 5);
	dl_type_unref(t);
	struct ArrowSchema dict = leaf_schema("u", "c");
	s = leaf_schema("g", "c"); /* indices must be integers */
	s.dictionary = &dict;
	assert_int_equal(dl_arrow_import_type(&t, &s), DL_EINVALID);
}

static void slice_of_export_matches(void **state)
{
	(void)state;
	/* Export an array, re-import it with a non-zero offset set by hand on
	 * the struct: every nested child must be shifted. */
	dl_batch *b = sample_batch(12), *expect = sample_batch(12);
	struct ArrowSchema sch;
	struct ArrowArray arr;
	assert_int_equal(dl_arrow_export_schema(&sch, b->schema), 0);
	assert_int_equal(dl_arrow_export_batch(&arr, b), 0);
	arr.offset = 4;
	arr.length = 8;
	dl_batch *back;
	assert_int_equal(dl_arrow_import_batch(&back, &arr, &sch), 0);
	assert_int_equal(back->num_rows, 8);
	for (int c = 0; c < back->ncols; c++)
		for (int64_t r = 0; r < 8; r++)
			if (!dl_array_row_equals(back->cols[c], r, expect->cols[c], r + 4)) fail_msg("col %d row %lld", c, (long long)r);
	dl_batch_free(back);
	dl_batch_free(expect);
	sch.release(&sch);
}

static void import_decodes_dictionaries_and_views(void **state)
{
	(void)state;
	/* dictionary<int8 -> utf8>, at offset 1 */
	int32_t doffs[] = {0, 1, 3, 4};
	const void *db[] = {NULL, doffs, "abbc"};
	struct ArrowArray dict = {3, 0, 0, 3, 0, db, NULL, NULL, child_release, NULL};
	int8_t idx[] = {9, 1, 5, 0, 2};
	uint8_t valid[] = {0x1B}; /* rows 0,1,3,4 valid; row 2 null */
	const void *ib[] = {valid, idx};
	struct ArrowArray a = {4, 1, 1, 2, 0, ib, NULL, &dict, count_release, NULL};
	struct ArrowSchema ds = leaf_schema("u", NULL), s = leaf_schema("c", "cat");
	s.dictionary = &ds;
	dl_type *t;
	assert_int_equal(dl_arrow_import_type(&t, &s), 0);
	assert_int_equal(t->id, DL_TYPE_STRING);
	dl_type_unref(t);
	dl_array *out;
	released = 0;
	assert_int_equal(dl_arrow_import_array(&out, &a, &s), 0);
	assert_int_equal(released, 1);
	assert_int_equal(out->length, 4);
	dl_buf txt = DL_BUF_INIT;
	for (int i = 0; i < 4; i++) {
		if (!dl_array_is_valid(out, i)) {
			dl_buf_puts(&txt, "NULL,");
			continue;
		}
		dl_buf_append(&txt, out->data + out->offsets[i], (size_t)(out->offsets[i + 1] - out->offsets[i]));
		dl_buf_putc(&txt, ',');
	}
	assert_string_equal(txt.data, "bb,NULL,a,c,");
	assert_int_equal(dl_array_null_count(out), 1);
	dl_array_free(out);
	idx[4] = 3; /* out of the dictionary */
	dict.release = child_release;
	struct ArrowArray bad = {4, 1, 1, 2, 0, ib, NULL, &dict, count_release, NULL};
	assert_int_equal(dl_arrow_import_array(&out, &bad, &s), DL_EINVALID);
	assert_int_equal(released, 2);

	/* zero-row list and string without offsets buffers get offsets */
	const void *nob[] = {NULL, NULL, NULL};
	struct ArrowArray zs = {0, 0, 0, 3, 0, nob, NULL, NULL, count_release, NULL};
	s = leaf_schema("u", "z");
	assert_int_equal(dl_arrow_import_array(&out, &zs, &s), 0);
	assert_non_null(out->offsets);
	assert_int_equal(out->offsets[0], 0);
	dl_array_free(out);
	released -= 1;

	/* string views: inline, null, out-of-line */
	const char *big = "xxa long string over 12 bytes";
	uint8_t views[3 * 16] = {0};
	int32_t n0 = 5, n2 = 27, buf = 0, at = 2;
	memcpy(views, &n0, 4);
	memcpy(views + 4, "short", 5);
	memcpy(views + 32, &n2, 4);
	memcpy(views + 36, big + 2, 4);
	memcpy(views + 40, &buf, 4);
	memcpy(views + 44, &at, 4);
	int64_t sizes[] = {29};
	uint8_t vvalid[] = {0x05};
	const void *vb[] = {vvalid, views, big, sizes};
	struct ArrowArray v = {3, 1, 0, 4, 0, vb, NULL, NULL, count_release, NULL};
	s = leaf_schema("vu", "sv");
	assert_int_equal(dl_arrow_import_array(&out, &v, &s), 0);
	assert_int_equal(out->type->id, DL_TYPE_STRING);
	assert_int_equal(out->offsets[1], 5);
	assert_int_equal(out->offsets[2], 5);
	assert_int_equal(out->offsets[3], 32);
	assert_memory_equal(out->data, "shorta long string over 12 bytes", 32);
	assert_false(dl_array_is_valid(out, 1));
	dl_array_free(out);
	sizes[0] = 20; /* the view now points past its buffer */
	struct ArrowArray v2 = {3, 1, 0, 4, 0, vb, NULL, NULL, count_release, NULL};
	assert_int_equal(dl_arrow_import_array(&out, &v2, &s), DL_EINVALID);
	assert_int_equal(released, 4);
	dl_buf_free(&txt);
}

/* A stream that fails on its second batch. */
static const dl_type *fail_schema(dl_batch_stream *s)
{
	return s->private_data;
}
static int fail_calls;
static int fail_next(dl_batch_stream *s, dl_batch **out)
{
	*out = NULL;
	if (fail_calls++ == 0) {
		dl_type *t = s->private_data;
		*out = dl_batch_new(t, 0);
		(*out)->cols[0] = dl_array_new(t->children[0].type, 0);
		return 0;
	}
	return dl_error_set(DL_ECORRUPT, "file x.parquet: bad page");
}
static void fail_release(dl_batch_stream *s)
{
	dl_type_unref(s->private_data);
	dl_free(s);
}

/* A stream from elsewhere: one int column, get_next fails. */
static bool foreign_released;
static int foreign_schema(struct ArrowArrayStream *st, struct ArrowSchema *out)
{
	(void)st;
	dl_field f = {"a", dl_type_new(DL_TYPE_INTEGER), true, NULL};
	dl_type *t = dl_type_struct(&f, 1);
	int rc = dl_arrow_export_schema(out, t);
	dl_type_unref(t);
	dl_type_unref(f.type);
	return rc ? EINVAL : 0;
}
static int foreign_next(struct ArrowArrayStream *st, struct ArrowArray *out)
{
	(void)st;
	(void)out;
	return EIO;
}
static const char *foreign_error(struct ArrowArrayStream *st)
{
	(void)st;
	return "the producer broke";
}
static void foreign_release(struct ArrowArrayStream *st)
{
	foreign_released = true;
	st->release = NULL;
}

static void streams_round_trip(void **state)
{
	(void)state;
	dl_batch *bs[3] = {sample_batch(5), sample_batch(0), sample_batch(17)};
	dl_type *schema = dl_type_ref(bs[0]->schema);
	dl_batch_stream *src;
	assert_int_equal(dl_batch_stream_from_batches(&src, schema, bs, 3), 0);
	struct ArrowArrayStream st;
	assert_int_equal(dl_batch_stream_export(&st, src), 0);
	dl_batch_stream *in;
	assert_int_equal(dl_batch_stream_import(&in, &st), 0);
	assert_null(st.release);
	assert_true(dl_type_equals(dl_batch_stream_schema(in), schema));
	int64_t sizes[] = {5, 0, 17};
	for (int i = 0; i < 3; i++) {
		dl_batch *b, *expect = sample_batch(sizes[i]);
		assert_int_equal(dl_batch_stream_next(in, &b), 0);
		assert_non_null(b);
		assert_batches_equal(b, expect);
		dl_batch_free(b);
		dl_batch_free(expect);
	}
	dl_batch *end;
	assert_int_equal(dl_batch_stream_next(in, &end), 0);
	assert_null(end);
	dl_batch_stream_free(in);

	/* Errors cross the interface with their message. */
	dl_field f = {"a", schema->children[3].type, true, NULL};
	dl_batch_stream *fs = dl_calloc(1, sizeof(*fs));
	fs->private_data = dl_type_struct(&f, 1);
	fs->schema = fail_schema;
	fs->next = fail_next;
	fs->release = fail_release;
	fail_calls = 0;
	assert_int_equal(dl_batch_stream_export(&st, fs), 0);
	struct ArrowArray a;
	assert_int_equal(st.get_next(&st, &a), 0);
	assert_non_null(a.release);
	a.release(&a);
	assert_int_equal(st.get_next(&st, &a), EIO);
	assert_string_equal(st.get_last_error(&st), "file x.parquet: bad page");
	/* Our own export imported back is the stream itself: the error keeps
	 * its code and message. */
	fail_calls = 1;
	assert_int_equal(dl_batch_stream_import(&in, &st), 0);
	assert_int_equal(dl_batch_stream_next(in, &end), DL_ECORRUPT);
	assert_string_equal(dl_error_last()->message, "file x.parquet: bad page");
	dl_batch_stream_free(in);

	/* A foreign producer's failure is DL_EIO with its get_last_error text. */
	struct ArrowArrayStream foreign = {foreign_schema, foreign_next, foreign_error, foreign_release, NULL};
	assert_int_equal(dl_batch_stream_import(&in, &foreign), 0);
	assert_int_equal(dl_batch_stream_next(in, &end), DL_EIO);
	assert_non_null(strstr(dl_error_last()->message, "the producer broke"));
	dl_batch_stream_free(in);
	assert_true(foreign_released);
	dl_type_unref(schema);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(batch_round_trip),
		cmocka_unit_test(moved_children_outlive_parent),
		cmocka_unit_test(import_converts_offsets_and_units),
		cmocka_unit_test(import_borrows_and_releases_once),
		cmocka_unit_test(import_rejects_bad_input),
		cmocka_unit_test(import_decodes_dictionaries_and_views),
		cmocka_unit_test(slice_of_export_matches),
		cmocka_unit_test(streams_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
