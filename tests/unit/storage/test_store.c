/* dl_store: both backends behave the same (get, ranges, put, put-if-absent,
 * sorted listings, delete, stat, missing objects), plus URI and path rules. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "deltalake/store.h"
#include "storage/backend.h"
#include "storage/path.h"
#include "storage/store_mem.h"
#include "util/error.h"

static char g_tmp[256];

static int make_tmp(void **state)
{
	(void)state;
	snprintf(g_tmp, sizeof g_tmp, "/tmp/dl_store_test_XXXXXX");
	return mkdtemp(g_tmp) ? 0 : -1;
}

static int remove_tmp(void **state)
{
	(void)state;
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmp);
	return system(cmd) == 0 ? 0 : -1;
}

static void put_str(dl_store *s, const char *path, const char *text)
{
	assert_int_equal(dl_store_put(s, path, text, strlen(text)), 0);
}

static void assert_content(dl_store *s, const char *path, const char *text)
{
	uint8_t *data = NULL;
	size_t len = 0;
	assert_int_equal(dl_store_get(&data, &len, s, path), 0);
	assert_int_equal(len, strlen(text));
	assert_memory_equal(data, text, len);
	assert_int_equal(data[len], 0);
	dl_free(data);
}

/* The behaviour every backend must have, run against an open store. */
static void exercise(dl_store *s)
{
	uint8_t *data = NULL;
	size_t len = 99;
	assert_int_equal(dl_store_get(&data, &len, s, "_delta_log/00000000000000000000.json"),
	                 DL_ENOTFOUND);
	assert_null(data);
	assert_int_equal(len, 0);
	assert_non_null(strstr(dl_error_last()->message, "00000000000000000000.json"));

	put_str(s, "_delta_log/00000000000000000000.json", "{\"commitInfo\":{}}\n");
	assert_content(s, "_delta_log/00000000000000000000.json", "{\"commitInfo\":{}}\n");
	put_str(s, "_delta_log/00000000000000000000.json", "replaced");
	assert_content(s, "_delta_log/00000000000000000000.json", "replaced");

	/* put_if_absent: first wins, second gets DL_EEXISTS, content unchanged. */
	assert_int_equal(dl_store_put_if_absent(s, "_delta_log/00000000000000000001.json", "one", 3), 0);
	assert_int_equal(dl_store_put_if_absent(s, "_delta_log/00000000000000000001.json", "two", 3),
	                 DL_EEXISTS);
	assert_int_equal(dl_error_last()->code, DL_EEXISTS);
	assert_content(s, "_delta_log/00000000000000000001.json", "one");
	assert_int_equal(dl_store_put_if_absent(s, "deep/er/still/x.bin", "", 0), 0);
	assert_content(s, "deep/er/still/x.bin", "");

	/* Ranges, including short reads at the end and past the end. */
	put_str(s, "part-0.parquet", "0123456789");
	uint8_t buf[16];
	size_t got = 0;
	assert_int_equal(dl_store_get_range(buf, &got, s, "part-0.parquet", 2, 4), 0);
	assert_int_equal(got, 4);
	assert_memory_equal(buf, "2345", 4);
	assert_int_equal(dl_store_get_range(buf, &got, s, "part-0.parquet", 7, 10), 0);
	assert_int_equal(got, 3);
	assert_memory_equal(buf, "789", 3);
	assert_int_equal(dl_store_get_range(buf, &got, s, "part-0.parquet", 50, 10), 0);
	assert_int_equal(got, 0);
	assert_int_equal(dl_store_get_range(buf, &got, s, "part-0.parquet", -1, 10), DL_EINVALID);
	assert_int_equal(dl_store_get_range(buf, &got, s, "missing.parquet", 0, 10), DL_ENOTFOUND);

	/* Listing: sorted by strcmp, not recursive, start_name inclusive. */
	const char *names[] = {"00000000000000000010.checkpoint.parquet", "00000000000000000002.json",
	                       "_last_checkpoint", "00000000000000000010.json",
	                       "00000000000000000003.crc"};
	for (size_t i = 0; i < 5; i++) {
		char p[128];
		snprintf(p, sizeof p, "_delta_log/%s", names[i]);
		put_str(s, p, names[i]);
	}
	put_str(s, "_delta_log/_sidecars/abc.parquet", "sidecar");
	dl_object_list l;
	assert_int_equal(dl_store_list_from(&l, s, "_delta_log", "00000000000000000002"), 0);
	const char *want[] = {"_delta_log/00000000000000000002.json", "_delta_log/00000000000000000003.crc",
	                      "_delta_log/00000000000000000010.checkpoint.parquet",
	                      "_delta_log/00000000000000000010.json", "_delta_log/_last_checkpoint"};
	assert_int_equal(l.count, 5);
	for (size_t i = 0; i < 5; i++) assert_string_equal(l.items[i].path, want[i]);
	assert_int_equal(l.items[0].size, (int64_t)strlen(names[1]));
	assert_true(l.items[0].mtime_ms > 1600000000000LL);
	dl_object_list_free(&l);

	assert_int_equal(dl_store_list_from(&l, s, "_delta_log/", NULL), 0);
	assert_int_equal(l.count, 7);
	assert_string_equal(l.items[0].path, "_delta_log/00000000000000000000.json");
	dl_object_list_free(&l);

	assert_int_equal(dl_store_list_from(&l, s, "", NULL), 0);
	assert_int_equal(l.count, 1);
	assert_string_equal(l.items[0].path, "part-0.parquet");
	dl_object_list_free(&l);

	assert_int_equal(dl_store_list_recursive(&l, s, ""), 0);
	assert_int_equal(l.count, 10);
	for (size_t i = 1; i < l.count; i++) assert_true(strcmp(l.items[i - 1].path, l.items[i].path) < 0);
	assert_string_equal(l.items[l.count - 1].path, "part-0.parquet");
	dl_object_list_free(&l);

	assert_int_equal(dl_store_list_recursive(&l, s, "deep"), 0);
	assert_int_equal(l.count, 1);
	assert_string_equal(l.items[0].path, "deep/er/still/x.bin");
	dl_object_list_free(&l);

	/* A missing directory lists nothing (object-store semantics). */
	assert_int_equal(dl_store_list_from(&l, s, "nope", NULL), 0);
	assert_int_equal(l.count, 0);
	dl_object_list_free(&l);

	dl_object_info info;
	assert_int_equal(dl_store_stat(&info, s, "part-0.parquet"), 0);
	assert_string_equal(info.path, "part-0.parquet");
	assert_int_equal(info.size, 10);
	assert_true(info.mtime_ms > 1600000000000LL);
	dl_object_info_free(&info);
	assert_int_equal(dl_store_stat(&info, s, "nothing"), DL_ENOTFOUND);

	assert_int_equal(dl_store_delete(s, "part-0.parquet"), 0);
	assert_int_equal(dl_store_delete(s, "part-0.parquet"), DL_ENOTFOUND);
	assert_int_equal(dl_store_get(&data, &len, s, "part-0.parquet"), DL_ENOTFOUND);

	/* Invalid object paths are refused before reaching a backend. */
	assert_int_equal(dl_store_put(s, "../escape", "x", 1), DL_EINVALID);
	assert_int_equal(dl_store_put(s, "/abs", "x", 1), DL_EINVALID);
	assert_int_equal(dl_store_put(s, "a//b", "x", 1), DL_EINVALID);
	assert_int_equal(dl_store_put(s, "", "x", 1), DL_EINVALID);
	assert_int_equal(dl_store_list_from(&l, s, "a/../b", NULL), DL_EINVALID);
}

/* Streaming writes: invisible until commit, atomic, if_absent, abort. */
static void exercise_writer(dl_store *s)
{
	size_t total = 3 * 1024 * 1024 + 17;
	uint8_t *data = malloc(total);
	for (size_t i = 0; i < total; i++) data[i] = (uint8_t)(i * 131 + (i >> 13));
	dl_store_writer *w;
	assert_int_equal(dl_store_writer_open(&w, s, "data/a=1/part-0.parquet"), 0);
	size_t off = 0, step = 1;
	while (off < total) {
		size_t n = step < total - off ? step : total - off;
		assert_int_equal(dl_store_writer_write(w, data + off, n), 0);
		off += n;
		step = step * 7 + 3; /* 1, 10, 73, ... up to more than the buffer */
	}
	assert_int_equal(dl_store_writer_size(w), (int64_t)total);
	dl_object_info info;
	assert_int_equal(dl_store_stat(&info, s, "data/a=1/part-0.parquet"), DL_ENOTFOUND);
	dl_object_list l;
	assert_int_equal(dl_store_list_recursive(&l, s, ""), 0);
	assert_int_equal(l.count, 0);
	dl_object_list_free(&l);
	assert_int_equal(dl_store_writer_commit(w, 1), 0);
	uint8_t *got;
	size_t len;
	assert_int_equal(dl_store_get(&got, &len, s, "data/a=1/part-0.parquet"), 0);
	assert_int_equal(len, total);
	assert_memory_equal(got, data, total);
	dl_free(got);

	/* if_absent on an existing object fails and leaves it alone. */
	assert_int_equal(dl_store_writer_open(&w, s, "data/a=1/part-0.parquet"), 0);
	assert_int_equal(dl_store_writer_write(w, "x", 1), 0);
	assert_int_equal(dl_store_writer_commit(w, 1), DL_EEXISTS);
	/* Without if_absent it replaces the object. */
	assert_int_equal(dl_store_writer_open(&w, s, "data/a=1/part-0.parquet"), 0);
	assert_int_equal(dl_store_writer_write(w, "new", 3), 0);
	assert_int_equal(dl_store_writer_commit(w, 0), 0);
	assert_content(s, "data/a=1/part-0.parquet", "new");
	/* Abort leaves nothing behind; empty objects are fine. */
	assert_int_equal(dl_store_writer_open(&w, s, "data/aborted"), 0);
	assert_int_equal(dl_store_writer_write(w, data, 1000), 0);
	dl_store_writer_abort(w);
	assert_int_equal(dl_store_writer_open(&w, s, "data/empty"), 0);
	/* An empty piece may come as (NULL, 0) (UBSan: no memcpy from NULL). */
	assert_int_equal(dl_store_writer_write(w, NULL, 0), 0);
	assert_int_equal(dl_store_writer_commit(w, 0), 0);
	assert_content(s, "data/empty", "");
	assert_int_equal(dl_store_list_recursive(&l, s, ""), 0);
	assert_int_equal(l.count, 2);
	assert_string_equal(l.items[0].path, "data/a=1/part-0.parquet");
	assert_string_equal(l.items[1].path, "data/empty");
	dl_object_list_free(&l);
	assert_int_equal(dl_store_writer_open(&w, s, "../x"), DL_EINVALID);
	free(data);
}

/* Readers: size, in-place data, ranges, a snapshot that outlives deletes. */
static void exercise_reader(dl_store *s)
{
	put_str(s, "r/file.bin", "0123456789abcdef");
	dl_store_reader *r;
	assert_int_equal(dl_store_reader_open(&r, s, "r/file.bin"), 0);
	assert_int_equal(dl_store_reader_size(r), 16);
	const uint8_t *all = dl_store_reader_data(r);
	assert_non_null(all);
	assert_memory_equal(all, "0123456789abcdef", 16);
	uint8_t buf[32];
	size_t got;
	assert_int_equal(dl_store_reader_read(buf, &got, r, 10, 4), 0);
	assert_int_equal(got, 4);
	assert_memory_equal(buf, "abcd", 4);
	assert_int_equal(dl_store_reader_read(buf, &got, r, 12, 32), 0);
	assert_int_equal(got, 4);
	assert_memory_equal(buf, "cdef", 4);
	assert_int_equal(dl_store_reader_read(buf, &got, r, 16, 1), 0);
	assert_int_equal(got, 0);
	assert_int_equal(dl_store_reader_read(buf, &got, r, -1, 1), DL_EINVALID);
	/* Deleting the object does not pull the bytes from under the reader. */
	assert_int_equal(dl_store_delete(s, "r/file.bin"), 0);
	assert_memory_equal(dl_store_reader_data(r), "0123456789abcdef", 16);
	assert_int_equal(dl_store_reader_read(buf, &got, r, 0, 3), 0);
	assert_memory_equal(buf, "012", 3);
	dl_store_reader_close(r);
	assert_int_equal(dl_store_reader_open(&r, s, "r/file.bin"), DL_ENOTFOUND);
	assert_null(r);
	/* Empty objects have size 0 and reads return nothing. */
	put_str(s, "r/empty", "");
	assert_int_equal(dl_store_reader_open(&r, s, "r/empty"), 0);
	assert_int_equal(dl_store_reader_size(r), 0);
	assert_int_equal(dl_store_reader_read(buf, &got, r, 0, 8), 0);
	assert_int_equal(got, 0);
	dl_store_reader_close(r);
	assert_int_equal(dl_store_delete(s, "r/empty"), 0);
}

static void file_backend(void **state)
{
	(void)state;
	char uri[300];
	snprintf(uri, sizeof uri, "file://%s/table/", g_tmp);
	dl_store *s;
	assert_int_equal(dl_store_open(&s, uri, NULL), 0);
	snprintf(uri, sizeof uri, "file://%s/table", g_tmp);
	assert_string_equal(dl_store_root(s), uri);
	exercise(s);
	dl_store_free(s);
	snprintf(uri, sizeof uri, "%s/writer", g_tmp);
	assert_int_equal(dl_store_open(&s, uri, NULL), 0);
	exercise_writer(s);
	exercise_reader(s);
	dl_store_free(s);

	/* The same objects through a plain path and file:/ form. */
	char path[300];
	snprintf(path, sizeof path, "%s/table", g_tmp);
	assert_int_equal(dl_store_open(&s, path, NULL), 0);
	assert_content(s, "_delta_log/00000000000000000001.json", "one");
	dl_store_free(s);
	snprintf(uri, sizeof uri, "file:%s/table", g_tmp);
	assert_int_equal(dl_store_open(&s, uri, NULL), 0);
	assert_content(s, "_delta_log/00000000000000000001.json", "one");

	/* A get_range on a directory is a missing object, not a crash. */
	uint8_t b1[4];
	size_t got;
	assert_int_equal(dl_store_get_range(b1, &got, s, "_delta_log", 0, 4), DL_ENOTFOUND);
	uint8_t *whole;
	size_t whole_len;
	assert_int_equal(dl_store_get(&whole, &whole_len, s, "_delta_log"), DL_ENOTFOUND);
	assert_int_equal(dl_store_stat(&(dl_object_info){0}, s, "_delta_log"), DL_ENOTFOUND);

	/* An abandoned temp file of a crashed writer is not listed as an object;
	 * a user file that merely looks similar is. */
	char tmp[400];
	snprintf(tmp, sizeof tmp, "%s/table/_delta_log/.00000000000000000005.json.0123456789abcdef.tmp", g_tmp);
	FILE *f = fopen(tmp, "w");
	assert_non_null(f);
	fclose(f);
	put_str(s, "_delta_log/.x.tmp", "user file");

	/* A symlink to an ancestor does not make recursive listing endless. */
	char link_path[400], target[400];
	snprintf(link_path, sizeof link_path, "%s/table/deep/loop", g_tmp);
	snprintf(target, sizeof target, "%s/table", g_tmp);
	assert_int_equal(symlink(target, link_path), 0);
	dl_object_list deep;
	assert_int_equal(dl_store_list_recursive(&deep, s, "deep"), 0);
	assert_int_equal(deep.count, 1);
	dl_object_list_free(&deep);
	unlink(link_path);

	/* No temp files are left behind by the writes above. */
	dl_object_list l;
	assert_int_equal(dl_store_list_recursive(&l, s, ""), 0);
	size_t user_tmp = 0;
	for (size_t i = 0; i < l.count; i++) {
		assert_null(strstr(l.items[i].path, "0123456789abcdef"));
		user_tmp += strcmp(l.items[i].path, "_delta_log/.x.tmp") == 0;
	}
	assert_int_equal(user_tmp, 1);
	dl_object_list_free(&l);
	dl_store_free(s);
}

static void file_uri_is_percent_decoded(void **state)
{
	(void)state;
	char uri[300], path[300];
	snprintf(uri, sizeof uri, "file://%s/my%%20table", g_tmp);
	dl_store *s;
	assert_int_equal(dl_store_open(&s, uri, NULL), 0);
	put_str(s, "x", "y");
	dl_store_free(s);
	snprintf(path, sizeof path, "%s/my table/x", g_tmp);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
}

static void mem_backend(void **state)
{
	(void)state;
	dl_store *s;
	assert_int_equal(dl_store_open(&s, "mem://store_test/table", NULL), 0);
	assert_string_equal(dl_store_root(s), "mem://store_test/table");
	exercise(s);

	/* Process-global: a second open sees the objects, also from the parent. */
	dl_store *s2, *parent;
	assert_int_equal(dl_store_open(&s2, "mem://store_test/table/", NULL), 0);
	assert_content(s2, "_delta_log/00000000000000000001.json", "one");
	assert_int_equal(dl_store_open(&parent, "mem://store_test", NULL), 0);
	assert_content(parent, "table/_delta_log/00000000000000000001.json", "one");
	dl_object_list l;
	assert_int_equal(dl_store_list_from(&l, parent, "", NULL), 0);
	assert_int_equal(l.count, 0);
	dl_object_list_free(&l);
	dl_store_free(parent);

	/* A sibling name with a common prefix is not mixed in. */
	dl_store *other;
	assert_int_equal(dl_store_open(&other, "mem://store_test/table-2", NULL), 0);
	put_str(other, "_delta_log/x", "x");
	assert_int_equal(dl_store_list_recursive(&l, s, ""), 0);
	assert_int_equal(l.count, 9);
	dl_object_list_free(&l);
	dl_store_free(other);

	assert_true(dl_store_mem_drop("store_test/table") == 9);
	assert_int_equal(dl_store_list_recursive(&l, s2, ""), 0);
	assert_int_equal(l.count, 0);
	dl_object_list_free(&l);
	dl_store_free(s);
	dl_store_free(s2);
	assert_true(dl_store_mem_drop("store_test") == 1);
	assert_int_equal(dl_store_open(&s, "mem://store_test/writer", NULL), 0);
	exercise_writer(s);
	exercise_reader(s);
	dl_store_free(s);
	assert_true(dl_store_mem_drop("store_test") == 2);
}

static void uris_and_paths(void **state)
{
	(void)state;
	dl_store_uri u;
	assert_int_equal(dl_store_uri_parse(&u, "file:///tmp/a%20b/"), 0);
	assert_string_equal(u.scheme, "file");
	assert_string_equal(u.location, "/tmp/a b");
	dl_store_uri_free(&u);
	assert_int_equal(dl_store_uri_parse(&u, "file:/tmp/x"), 0);
	assert_string_equal(u.location, "/tmp/x");
	dl_store_uri_free(&u);
	assert_int_equal(dl_store_uri_parse(&u, "file://localhost/tmp/x"), 0);
	assert_string_equal(u.location, "/tmp/x");
	dl_store_uri_free(&u);
	assert_int_equal(dl_store_uri_parse(&u, "/tmp/100%"), 0); /* plain paths are literal */
	assert_string_equal(u.location, "/tmp/100%");
	dl_store_uri_free(&u);
	assert_int_equal(dl_store_uri_parse(&u, "rel/dir//"), 0);
	assert_string_equal(u.location, "rel/dir");
	dl_store_uri_free(&u);
	assert_int_equal(dl_store_uri_parse(&u, "/"), 0);
	assert_string_equal(u.location, "/");
	dl_store_uri_free(&u);
	assert_int_equal(dl_store_uri_parse(&u, "mem://n/t"), 0);
	assert_string_equal(u.scheme, "mem");
	assert_string_equal(u.location, "n/t");
	dl_store_uri_free(&u);

	assert_int_equal(dl_store_uri_parse(&u, "s3://bucket/t"), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "s3"));
	assert_int_equal(dl_store_uri_parse(&u, "file://otherhost/t"), DL_EUNSUPPORTED);
	assert_int_equal(dl_store_uri_parse(&u, "mem://"), DL_EINVALID);
	assert_int_equal(dl_store_uri_parse(&u, ""), DL_EINVALID);
	assert_int_equal(dl_store_uri_parse(&u, "file:///bad%zz"), DL_EINVALID);
	dl_store *s;
	assert_int_equal(dl_store_open(&s, "gs://b/t", NULL), DL_EINVALID);
	assert_null(s);

	char *j;
	assert_int_equal(dl_path_join(&j, "a/", "/b"), 0);
	assert_string_equal(j, "a/b");
	free(j);
	assert_int_equal(dl_path_join(&j, "", "b"), 0);
	assert_string_equal(j, "b");
	free(j);
	assert_int_equal(dl_path_join(&j, "a", ""), 0);
	assert_string_equal(j, "a");
	free(j);
	assert_int_equal(dl_path_join(&j, "/", "b"), 0);
	assert_string_equal(j, "/b");
	free(j);
	assert_true(dl_path_is_valid_relative("a/b.c/.hidden", false));
	assert_false(dl_path_is_valid_relative("a/./b", false));
	assert_false(dl_path_is_valid_relative("a/", false));
	assert_true(dl_path_is_valid_relative("", true));
	assert_false(dl_path_is_valid_relative("", false));
	assert_string_equal(dl_path_basename("a/b/c.json"), "c.json");
	assert_int_equal(dl_path_dirname_len("a/b/c.json"), 3);
	assert_int_equal(dl_path_dirname_len("c.json"), 0);
}

/* A directory of a non-recursive listing (a file store's directory, keys
 * under "x/" in the mem store) is an entry of size -1: dl_store_list_from
 * leaves it out, dl_store_list_entries_from (the log's) keeps it, also
 * through fault:// (issue 17 item 8). */
static void check_directory_entry(const char *uri)
{
	dl_store *s;
	assert_int_equal(dl_store_open(&s, uri, NULL), 0);
	put_str(s, "_delta_log/00000000000000000001.json", "one");
	put_str(s, "_delta_log/00000000000000000002.json/a", "a");
	put_str(s, "_delta_log/00000000000000000002.json/b", "b");
	dl_object_list l;
	assert_int_equal(dl_store_list_from(&l, s, "_delta_log", NULL), 0);
	assert_int_equal(l.count, 1);
	assert_string_equal(l.items[0].path, "_delta_log/00000000000000000001.json");
	dl_object_list_free(&l);
	assert_int_equal(dl_store_list_entries_from(&l, s, "_delta_log", NULL), 0);
	assert_int_equal(l.count, 2);
	assert_string_equal(l.items[1].path, "_delta_log/00000000000000000002.json");
	assert_int_equal(l.items[1].size, -1);
	assert_int_equal(l.items[0].size, 3);
	dl_object_list_free(&l);
	dl_store_free(s);
}

static void directories_are_entries(void **state)
{
	(void)state;
	char uri[300];
	snprintf(uri, sizeof uri, "file://%s/dirs", g_tmp);
	check_directory_entry(uri);
	snprintf(uri, sizeof uri, "fault://file://%s/dirs", g_tmp);
	check_directory_entry(uri);
	check_directory_entry("mem://store_test/dirs");
	assert_true(dl_store_mem_drop("store_test/dirs") == 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(file_backend),
		cmocka_unit_test(file_uri_is_percent_decoded),
		cmocka_unit_test(mem_backend),
		cmocka_unit_test(uris_and_paths),
		cmocka_unit_test(directories_are_entries),
	};
	return cmocka_run_group_tests(tests, make_tmp, remove_tmp);
}
