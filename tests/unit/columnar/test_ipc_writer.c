/* Arrow IPC writer. The unit tests check the framing; the values are read
 * back by arrow-js in tests/integration/arrow_ipc.sh, which runs this binary
 * with --write <path> to produce the sample stream. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "columnar/arrow_c.h"
#include "columnar/batch_stream.h"
#include "columnar/flatbuf.h"
#include "columnar/ipc_writer.h"
#include "util/error.h"
#include "sample.h"

/* The sample stream: batches of 29, 0 and 7 rows. */
static const int64_t sample_sizes[] = {29, 0, 7};

static void write_sample(dl_ipc_writer *w)
{
	for (size_t i = 0; i < sizeof sample_sizes / sizeof *sample_sizes; i++) {
		dl_batch *b = sample_batch(sample_sizes[i]);
		assert_int_equal(dl_ipc_writer_write(w, b), 0);
		dl_batch_free(b);
	}
	assert_int_equal(dl_ipc_writer_finish(w), 0);
}

static uint32_t u32_at(const char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* Reads a flatbuffer table's field: the vtable entry for `field`, 0 if absent. */
static const char *fb_field(const char *table, int field)
{
	int32_t soff;
	memcpy(&soff, table, 4);
	const char *vt = table - soff;
	uint16_t vsize, off;
	memcpy(&vsize, vt, 2);
	if (4 + 2 * field >= vsize) return NULL;
	memcpy(&off, vt + 4 + 2 * field, 2);
	return off ? table + off : NULL;
}

static void framing_is_valid(void **state)
{
	(void)state;
	dl_type *schema = sample_schema();
	dl_buf out = DL_BUF_INIT;
	dl_ipc_writer *w;
	assert_int_equal(dl_ipc_writer_new_buf(&w, schema, &out), 0);
	write_sample(w);
	dl_ipc_writer_free(w);
	/* Walk the messages: each is 8-aligned, has a Message root with V5, and
	 * its body length is a multiple of 8. */
	size_t pos = 0;
	int messages = 0;
	uint8_t kinds[8];
	for (;;) {
		assert_true(pos + 8 <= out.len);
		assert_int_equal(u32_at(out.data + pos), 0xFFFFFFFFu);
		uint32_t mlen = u32_at(out.data + pos + 4);
		if (mlen == 0) {
			pos += 8;
			break;
		}
		assert_int_equal((8 + mlen) % 8, 0);
		const char *fbuf = out.data + pos + 8;
		const char *msg = fbuf + u32_at(fbuf);
		const char *ver = fb_field(msg, 0), *ht = fb_field(msg, 1), *bl = fb_field(msg, 3);
		assert_non_null(ver);
		assert_int_equal(*(const int16_t *)(const void *)ver, 4);
		assert_non_null(ht);
		kinds[messages++] = (uint8_t)*ht;
		int64_t body = 0;
		if (bl) memcpy(&body, bl, 8);
		assert_int_equal(body % 8, 0);
		pos += 8 + mlen + (size_t)body;
	}
	assert_int_equal(pos, out.len);
	assert_int_equal(messages, 4);
	assert_int_equal(kinds[0], 1); /* Schema */
	assert_int_equal(kinds[1], 3); /* RecordBatch */
	/* The schema message names every column. */
	assert_non_null(memmem(out.data, 600 < out.len ? out.len : 600, "deep", 4));
	dl_buf_free(&out);
	dl_type_unref(schema);
}

static void flatbuffer_tables_and_vectors(void **state)
{
	(void)state;
	dl_fb fb;
	dl_fb_init(&fb);
	dl_fb_ref s = dl_fb_string(&fb, "hello", 5);
	int64_t pairs[4] = {1, 2, 3, 4};
	dl_fb_ref v = dl_fb_vector_structs(&fb, pairs, 16, 2, 8);
	dl_fb_table_start(&fb);
	dl_fb_add_u8(&fb, 0, 7);
	dl_fb_add_ref(&fb, 2, s);
	dl_fb_add_i64(&fb, 3, -5);
	dl_fb_add_ref(&fb, 4, v);
	dl_fb_ref t = dl_fb_table_end(&fb);
	const uint8_t *data;
	size_t len;
	assert_int_equal(dl_fb_finish(&fb, t, &data, &len), 0);
	const char *buf = (const char *)data, *root = buf + u32_at(buf);
	assert_int_equal(*fb_field(root, 0), 7);
	assert_null(fb_field(root, 1));
	const char *sf = fb_field(root, 2), *str = sf + u32_at(sf);
	assert_int_equal(u32_at(str), 5);
	assert_memory_equal(str + 4, "hello", 6);
	int64_t x;
	memcpy(&x, fb_field(root, 3), 8);
	assert_int_equal(x, -5);
	const char *vf = fb_field(root, 4), *vec = vf + u32_at(vf);
	assert_int_equal(u32_at(vec), 2);
	assert_int_equal(((uintptr_t)(vec + 4) - (uintptr_t)buf) % 8, 0);
	memcpy(&x, vec + 4 + 24, 8);
	assert_int_equal(x, 4);
	assert_null(fb_field(root, 9));
	dl_fb_free(&fb);
}

static void public_stream_entry_point(void **state)
{
	(void)state;
	dl_batch *bs[2] = {sample_batch(3), sample_batch(4)};
	dl_type *schema = dl_type_ref(bs[0]->schema);
	dl_batch_stream *src;
	assert_int_equal(dl_batch_stream_from_batches(&src, schema, bs, 2), 0);
	struct ArrowArrayStream st;
	assert_int_equal(dl_batch_stream_export(&st, src), 0);
	char *mem = NULL;
	size_t memlen = 0;
	FILE *f = open_memstream(&mem, &memlen);
	assert_int_equal(dl_arrow_ipc_write_stream(f, &st), 0);
	fclose(f);
	assert_null(st.release);
	assert_true(memlen > 64);
	assert_int_equal(u32_at(mem + memlen - 8), 0xFFFFFFFFu);
	assert_int_equal(u32_at(mem + memlen - 4), 0);
	free(mem);
	/* A batch of another schema is refused. */
	dl_field fld = {"x", schema->children[0].type, true, NULL};
	dl_type *other = dl_type_struct(&fld, 1);
	dl_buf out = DL_BUF_INIT;
	dl_ipc_writer *w;
	assert_int_equal(dl_ipc_writer_new_buf(&w, other, &out), 0);
	dl_batch *b = sample_batch(1);
	assert_int_equal(dl_ipc_writer_write(w, b), DL_ESCHEMA);
	dl_batch_free(b);
	dl_ipc_writer_free(w);
	dl_buf_free(&out);
	dl_type_unref(other);
	dl_type_unref(schema);
}

static int write_file(const char *path)
{
	FILE *f = fopen(path, "wb");
	if (!f) return 1;
	dl_type *schema = sample_schema();
	dl_ipc_writer *w;
	if (dl_ipc_writer_new_file(&w, schema, f) < 0) return 1;
	write_sample(w);
	dl_ipc_writer_free(w);
	dl_type_unref(schema);
	return fclose(f) != 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--write") == 0) return write_file(argv[2]);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(flatbuffer_tables_and_vectors),
		cmocka_unit_test(framing_is_valid),
		cmocka_unit_test(public_stream_entry_point),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
