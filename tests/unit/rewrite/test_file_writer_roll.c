/* Where the file writer rolls files at the target size depends on the rows
 * alone: the same batches written borrowed or handed over, at 1, 2 and 3
 * encoding threads, give the same files byte for byte (count, rows, bytes),
 * unpartitioned and partitioned. A roll decided on the bytes in the store
 * so far would differ between borrowed batches (every column done with a
 * batch before the call returns) and owned ones (columns still encoding
 * it), and with owned ones between thread counts. The open files of a
 * partitioned write share threads - 1 helpers, not threads - 1 each. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "columnar/builder.h"
#include "deltalake/store.h"
#include "log/properties.h"
#include "rewrite/file_writer.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

#define BATCH 1000
#define BATCHES 200

static char g_dir[64];

static dl_type *schema_of(void)
{
	dl_type *l = dl_type_new(DL_TYPE_LONG), *s = dl_type_new(DL_TYPE_STRING), *d = dl_type_new(DL_TYPE_DOUBLE),
	        *i = dl_type_new(DL_TYPE_INTEGER);
	dl_field f[] = {{(char *)"id", l, true, (char *)"{}"},
	                {(char *)"s", s, true, (char *)"{}"},
	                {(char *)"d", d, true, (char *)"{}"},
	                {(char *)"p", i, true, (char *)"{}"}};
	dl_type *t = dl_type_struct(f, 4);
	dl_type_unref(l);
	dl_type_unref(s);
	dl_type_unref(d);
	dl_type_unref(i);
	return t;
}

/* Batch k: ids, strings of ~5k distinct values, doubles, and p in 0..2
 * (mixed within the batch, so a partitioned write groups its rows). */
static dl_batch *make_batch(dl_type *schema, int k)
{
	dl_builder *b[4];
	for (int c = 0; c < 4; c++) assert_int_equal(dl_builder_new(&b[c], schema->children[c].type), 0);
	uint64_t r = (uint64_t)k * 0x9E3779B97F4A7C15ULL + 11;
	for (int64_t i = 0; i < BATCH; i++) {
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		assert_int_equal(dl_builder_append_int(b[0], (int64_t)k * BATCH + i), 0);
		char s[32];
		int n = snprintf(s, sizeof s, "value_%llu", (unsigned long long)(r % 5000));
		assert_int_equal(dl_builder_append_bytes(b[1], s, (size_t)n), 0);
		assert_int_equal(dl_builder_append_double(b[2], (double)(r >> 11) / 9007199254740992.0), 0);
		assert_int_equal(dl_builder_append_int(b[3], (int64_t)(r % 3)), 0);
	}
	dl_batch *out = dl_batch_new(schema, BATCH);
	assert_non_null(out);
	for (int c = 0; c < 4; c++) {
		assert_int_equal(dl_builder_finish(&out->cols[c], b[c]), 0);
		dl_builder_free(b[c]);
	}
	return out;
}

typedef struct files {
	int n;
	char *path[256]; /* partition directory + file contents, for comparison */
	dl_buf bytes[256];
	int64_t rows[256];
	int extra_threads; /* threads the writer added, every file open */
} files;

static int threads_now(void)
{
	DIR *d = opendir("/proc/self/task");
	assert_non_null(d);
	int n = 0;
	for (struct dirent *e; (e = readdir(d));) n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void files_free(files *f)
{
	for (int i = 0; i < f->n; i++) {
		dl_free(f->path[i]);
		dl_buf_free(&f->bytes[i]);
	}
	f->n = 0;
}

static void read_whole(const char *path, dl_buf *out)
{
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0) assert_int_equal(dl_buf_append(out, chunk, n), 0);
	fclose(fp);
}

/* The files of one write into a fresh directory. */
static void write_files(files *out, bool partitioned, bool owned, int threads, int64_t target)
{
	static int run;
	char dir[128];
	snprintf(dir, sizeof dir, "%s/run%d", g_dir, run++);
	dl_store *st;
	assert_int_equal(dl_store_open(&st, dir, NULL), 0);
	dl_type *schema = schema_of();
	dl_table_properties props;
	dl_table_properties_defaults(&props);
	const char *parts[] = {"p"};
	dl_files_writer_options o;
	memset(&o, 0, sizeof o);
	o.store = st;
	o.schema = schema;
	o.partition_columns = parts;
	o.npartition_columns = partitioned ? 1 : 0;
	o.props = &props;
	o.target_file_size = target;
	o.data_change = true;
	o.threads = threads;
	dl_files_writer *w;
	int before = threads_now();
	assert_int_equal(dl_files_writer_open(&w, &o), 0);
	for (int k = 0; k < BATCHES; k++) {
		dl_batch *b = make_batch(schema, k);
		if (owned) {
			assert_int_equal(dl_files_writer_write_owned(w, b), 0);
		} else {
			assert_int_equal(dl_files_writer_write(w, b), 0);
			dl_batch_free(b);
		}
	}
	out->extra_threads = threads_now() - before;
	assert_int_equal(dl_files_writer_finish(w), 0);
	out->n = (int)dl_files_writer_count(w);
	assert_true(out->n <= 256);
	int64_t rows = 0;
	for (int i = 0; i < out->n; i++) {
		const dl_add *a = dl_files_writer_add(w, i);
		const char *slash = strrchr(a->path, '/');
		out->path[i] = dl_strndup(a->path, slash ? (size_t)(slash - a->path) : 0);
		out->bytes[i] = (dl_buf)DL_BUF_INIT;
		char full[512];
		snprintf(full, sizeof full, "%s/%s", dir, a->path);
		read_whole(full, &out->bytes[i]);
		assert_int_equal((int64_t)out->bytes[i].len, a->size);
		out->rows[i] = dl_files_writer_file_rows(w, i);
		rows += out->rows[i];
	}
	assert_int_equal(rows, (int64_t)BATCH * BATCHES);
	dl_files_writer_free(w);
	dl_type_unref(schema);
	dl_store_free(st);
}

static void assert_same(const files *a, const files *b, const char *what)
{
	if (a->n != b->n) fail_msg("%s: %d files, the reference %d", what, b->n, a->n);
	for (int i = 0; i < a->n; i++) {
		assert_string_equal(a->path[i], b->path[i]);
		if (a->rows[i] != b->rows[i])
			fail_msg("%s: file %d has %lld rows, the reference %lld", what, i, (long long)b->rows[i],
			         (long long)a->rows[i]);
		assert_int_equal(a->bytes[i].len, b->bytes[i].len);
		assert_memory_equal(a->bytes[i].data, b->bytes[i].data, a->bytes[i].len);
	}
}

static void same_files(bool partitioned, int64_t target, int min_files)
{
	files ref, got;
	write_files(&ref, partitioned, false, 1, target);
	if (ref.n < min_files) fail_msg("only %d files: the target size does not roll them", ref.n);
	static const struct {
		bool owned;
		int threads;
		const char *what;
	} runs[] = {{true, 1, "owned, 1 thread"}, {true, 2, "owned, 2 threads"}, {true, 3, "owned, 3 threads"},
	            {false, 2, "borrowed, 2 threads"}};
	for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
		write_files(&got, partitioned, runs[i].owned, runs[i].threads, target);
		assert_same(&ref, &got, runs[i].what);
		files_free(&got);
	}
	files_free(&ref);
}

static void test_unpartitioned(void **state)
{
	(void)state;
	same_files(false, 400 << 10, 5);
}

static void test_partitioned(void **state)
{
	(void)state;
	same_files(true, 200 << 10, 6);
}

/* Three partitions open at once, 3 threads: 2 helpers for all of them
 * (they had 2 each, and before that a partitioned write had none). */
static void test_partitions_share_helpers(void **state)
{
	(void)state;
	files f;
	write_files(&f, true, true, 3, 64 << 20);
	assert_int_equal(f.n, 3);
	if (f.extra_threads != 2) fail_msg("the write added %d threads for 3 open files at 3 threads", f.extra_threads);
	files_free(&f);
}

/* Every batch rolls at a target of one byte: one file per batch. */
static void test_tiny_target(void **state)
{
	(void)state;
	files f;
	write_files(&f, false, true, 2, 1);
	assert_int_equal(f.n, BATCHES);
	files_free(&f);
}

int main(void)
{
	snprintf(g_dir, sizeof g_dir, "/tmp/dl_roll_XXXXXX");
	if (!mkdtemp(g_dir)) return 1;
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_unpartitioned),
	    cmocka_unit_test(test_partitioned),
	    cmocka_unit_test(test_partitions_share_helpers),
	    cmocka_unit_test(test_tiny_target),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
	if (system(cmd) != 0) return 1;
	return rc;
}
