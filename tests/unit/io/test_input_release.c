/* The CSV and JSON lines readers give back the mapped pages behind the
 * batches they have parsed (dl_io_input_release), so a large input does
 * not stay resident whole: measured as the resident size of the file's
 * own mapping in /proc/self/smaps (the kernel's page accounting, no
 * timing). A second pass over released bytes (type widening reads the
 * whole file before the first batch) still reads every value right. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "columnar/array.h"
#include "columnar/batch_stream.h"
#include "columnar/types.h"
#include "io/input.h"

#define ROWS 600000
#define PAD 72 /* bytes of text per row: a 48 MB file */

static char dir[64];

/* The resident kB of the mapping that contains p, from /proc/self/smaps. */
static long mapping_rss_kb(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	assert_non_null(f);
	char line[512];
	int in = 0;
	long rss = -1;
	while (fgets(line, sizeof line, f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
			continue;
		}
		if (in && strncmp(line, "Rss:", 4) == 0) {
			rss = strtol(line + 4, NULL, 10);
			break;
		}
	}
	fclose(f);
	assert_true(rss >= 0);
	return rss;
}

/* Rows "id,text": id = i, except the last row's, 3000000000 (past INT,
 * for the widening test). */
static const char *write_input(const char *name, int jsonl)
{
	static char path[128];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	char pad[PAD + 1];
	memset(pad, 'x', PAD);
	pad[PAD] = 0;
	if (!jsonl) fputs("id,text\n", f);
	for (long i = 0; i < ROWS; i++) {
		long long id = i == ROWS - 1 ? 3000000000LL : i;
		if (jsonl)
			fprintf(f, "{\"id\":%lld,\"text\":\"%s\"}\n", id, pad);
		else
			fprintf(f, "%lld,%s\n", id, pad);
	}
	fclose(f);
	return path;
}

/* Streams the whole input, checking every id and the text lengths, and
 * returns the largest resident size of the mapping seen after a batch. */
static long stream_all(dl_batch_stream *s, const void *map)
{
	long most = 0, row = 0;
	for (;;) {
		dl_batch *b;
		assert_int_equal(s->next(s, &b), 0);
		if (!b) break;
		const dl_array *id = b->cols[0], *text = b->cols[1];
		assert_int_equal(id->type->id, DL_TYPE_LONG);
		for (int64_t r = 0; r < b->num_rows; r++, row++) {
			long long want = row == ROWS - 1 ? 3000000000LL : row;
			assert_int_equal(((const int64_t *)id->values)[r], want);
			assert_int_equal(text->offsets[r + 1] - text->offsets[r], PAD);
		}
		dl_batch_free(b);
		long rss = mapping_rss_kb(map);
		if (rss > most) most = rss;
	}
	assert_int_equal(row, ROWS);
	return most;
}

/* The bound: the release step twice plus a batch of rows, far below the
 * 48 MB a mapping that is never released ends up holding. */
static const long BOUND_KB = (2 * DL_IO_RELEASE_STEP + 8192L * (PAD + 30)) / 1024 + 1024;

static void csv_releases_what_it_parsed(void **state)
{
	(void)state;
	for (int widen = 0; widen <= 1; widen++) {
		dl_io_input *in;
		assert_int_equal(dl_io_input_open(&in, write_input("in.csv", 0)), 0);
		const void *map = in->data;
		/* widening: the table's INT id becomes BIGINT in a pass over the
		 * whole file, before the first batch */
		dl_field fs[1] = {{(char *)"id", dl_type_new(widen ? DL_TYPE_INTEGER : DL_TYPE_LONG), true, (char *)"{}"}};
		dl_type *table = dl_type_struct(fs, 1);
		dl_batch_stream *s;
		assert_int_equal(dl_io_csv_stream(&s, in, table, NULL, 8192, widen), 0);
		long most = stream_all(s, map);
		print_message("csv (widen %d): the 48 MB mapping held at most %ld kB after a batch\n", widen, most);
		assert_true(most < BOUND_KB);
		dl_batch_stream_free(s);
		dl_type_unref(table);
		dl_type_unref(fs[0].type);
	}
}

static void jsonl_releases_what_it_parsed(void **state)
{
	(void)state;
	for (int widen = 0; widen <= 1; widen++) {
		dl_io_input *in;
		assert_int_equal(dl_io_input_open(&in, write_input("in.jsonl", 1)), 0);
		const void *map = in->data;
		dl_field fs[1] = {{(char *)"id", dl_type_new(widen ? DL_TYPE_INTEGER : DL_TYPE_LONG), true, (char *)"{}"}};
		dl_type *table = dl_type_struct(fs, 1);
		dl_batch_stream *s;
		assert_int_equal(dl_io_jsonl_stream(&s, in, table, 8192, widen), 0);
		long most = stream_all(s, map);
		print_message("jsonl (widen %d): the mapping held at most %ld kB after a batch\n", widen, most);
		assert_true(most < BOUND_KB + 8192L * 20 / 1024);
		dl_batch_stream_free(s);
		dl_type_unref(table);
		dl_type_unref(fs[0].type);
	}
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/dl-input-release-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(csv_releases_what_it_parsed),
		cmocka_unit_test(jsonl_releases_what_it_parsed),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
