/* The streaming source, checkpoint and sink (include/deltalake/stream.h)
 * against Spark's DeltaSource semantics: the initial snapshot then the
 * commits, rate limits per batch, starting positions, the rules for
 * deletes and updates, readChangeFeed, resuming from a checkpoint and
 * exactly-once sink writes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <inttypes.h>
#include <stdint.h>
#include <unistd.h>
#include <cmocka.h>
#include "../ops/ops_fixture.h"
#include "deltalake/stream.h"
#include "deltalake/txn.h"
#include "stream/stream_internal.h"
#include "util/error.h"

static char root[64];
static int seq;

static char *new_table(void)
{
	static char path[128];
	snprintf(path, sizeof path, "%s/t%d", root, ++seq);
	return path;
}

static void append(const char *uri, const char *rows)
{
	int64_t v;
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	assert_int_equal(fx_write(&v, uri, "id BIGINT, p STRING", rows, &o), 0);
}

/* The rows of a batch, in order, as "1,a;2,b". */
static char *rows_of(struct ArrowArrayStream *st)
{
	dl_batch_stream *bs;
	assert_int_equal(dl_batch_stream_import(&bs, st), 0);
	dl_buf out = DL_BUF_INIT;
	dl_buf_puts(&out, "");
	dl_batch *b;
	int rc;
	while ((rc = dl_batch_stream_next(bs, &b)) == 0 && b) {
		for (int64_t r = 0; r < b->num_rows; r++) {
			if (out.len) dl_buf_putc(&out, ';');
			for (int c = 0; c < b->ncols; c++) {
				if (c) dl_buf_putc(&out, ',');
				if (!dl_array_is_valid(b->cols[c], r)) dl_buf_puts(&out, "NULL");
				else dl_format_value(&out, b->cols[c], r);
			}
		}
		dl_batch_free(b);
	}
	if (rc < 0) fprintf(stderr, "reading a batch: %s\n", dl_error_last()->message);
	assert_int_equal(rc, 0);
	dl_batch_stream_free(bs);
	return out.data;
}

/* The next batch's rows ("" when there is no batch), committed. */
static char *next_rows(dl_stream *s, dl_stream_offset *end)
{
	struct ArrowArrayStream st;
	int64_t id;
	dl_stream_offset e;
	int rc = dl_stream_next_batch(&st, &e, &id, s);
	if (rc < 0) fprintf(stderr, "next_batch: %s\n", dl_error_last()->message);
	assert_int_equal(rc, 0);
	if (end) *end = e;
	if (!st.release) return dl_strdup("");
	char *r = rows_of(&st);
	assert_int_equal(dl_stream_commit(s, &e), 0);
	return r;
}

static void expect_rows(dl_stream *s, const char *want)
{
	char *got = next_rows(s, NULL);
	if (strcmp(got, want)) fprintf(stderr, "want %s got %s (line %d)\n", want, got, __LINE__);
	assert_string_equal(got, want);
	dl_free(got);
}

static void test_snapshot_then_commits(void **state)
{
	(void)state;
	const char *t = new_table();
	append(t, "1,a;2,a");
	append(t, "3,b");
	dl_stream_options o = DL_STREAM_OPTIONS_INIT;
	o.max_files_per_trigger = 1;
	dl_stream *s;
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	dl_stream_offset end;
	char *r = next_rows(s, &end);
	assert_string_equal(r, "1,a;2,a");
	dl_free(r);
	assert_true(end.is_starting_version);
	assert_int_equal(end.reservoir_version, 1);
	assert_int_equal(end.index, 0);
	expect_rows(s, "3,b");
	expect_rows(s, ""); /* nothing new */
	append(t, "4,c");
	append(t, "5,c");
	r = next_rows(s, &end);
	assert_string_equal(r, "4,c");
	dl_free(r);
	/* commit 2 read whole: the position moves to the start of 3 */
	assert_false(end.is_starting_version);
	assert_int_equal(end.reservoir_version, 3);
	assert_int_equal(end.index, DL_STREAM_BASE_INDEX);
	expect_rows(s, "5,c");
	expect_rows(s, "");
	dl_stream_close(s);

	/* the default (1000 files) takes everything at once */
	o.max_files_per_trigger = 0;
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	expect_rows(s, "1,a;2,a;3,b;4,c;5,c");
	dl_stream_close(s);
}

static void test_max_bytes(void **state)
{
	(void)state;
	const char *t = new_table();
	append(t, "1,a");
	append(t, "2,a");
	append(t, "3,a");
	dl_stream_options o = DL_STREAM_OPTIONS_INIT;
	o.max_bytes_per_trigger = 1; /* soft: one file per batch, never zero */
	o.starting_version = 0;
	dl_stream *s;
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	expect_rows(s, "1,a");
	expect_rows(s, "2,a");
	expect_rows(s, "3,a");
	expect_rows(s, "");
	dl_stream_close(s);
	/* both limits: the files limit stops first; a large byte budget with
	 * no files limit takes every file (the 1000 default is off) */
	o.max_bytes_per_trigger = 1 << 30;
	o.max_files_per_trigger = 2;
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	expect_rows(s, "1,a;2,a");
	expect_rows(s, "3,a");
	dl_stream_close(s);
	o.max_files_per_trigger = 0;
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	expect_rows(s, "1,a;2,a;3,a");
	dl_stream_close(s);
}

static void test_starting_positions(void **state)
{
	(void)state;
	const char *t = new_table();
	append(t, "1,a");
	append(t, "2,a");
	dl_stream_options o = DL_STREAM_OPTIONS_INIT;
	o.starting_version = 1;
	dl_stream *s;
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	expect_rows(s, "2,a");
	dl_stream_close(s);
	o.starting_version = DL_STREAM_LATEST;
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	expect_rows(s, "");
	append(t, "3,a");
	expect_rows(s, "3,a");
	dl_stream_close(s);
	/* Spark's option checks */
	o.starting_version = 1;
	o.starting_timestamp_ms = 0;
	assert_int_equal(dl_stream_open(&s, t, &o), DL_EINVALID);
	assert_string_equal(dl_error_last()->klass, "DELTA_STARTING_VERSION_AND_TIMESTAMP_BOTH_SET");
	o.starting_timestamp_ms = DL_NO_TIMESTAMP;
	/* Spark's checkVersionExists: the latest is fine, beyond it is not */
	o.starting_version = 2;
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	expect_rows(s, "3,a");
	dl_stream_close(s);
	o.starting_version = 3;
	assert_int_equal(dl_stream_open(&s, t, &o), DL_ENOTFOUND);
	assert_string_equal(dl_error_last()->klass, "DELTA_VERSION_NOT_FOUND");
	assert_non_null(strstr(dl_error_last()->message, "Available versions: [0, 2]"));
	o.starting_version = DL_STREAM_NO_VERSION;
	o.max_files_per_trigger = -1;
	assert_int_equal(dl_stream_open(&s, t, &o), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "maxFilesPerTrigger"));
	/* a timestamp: the first commit at or after it (all of them here) */
	o.max_files_per_trigger = 0;
	o.starting_timestamp_ms = 0;
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	expect_rows(s, "1,a;2,a;3,a");
	dl_stream_close(s);
	o.starting_timestamp_ms = dl_now_millis() + 3600 * 1000;
	assert_int_equal(dl_stream_open(&s, t, &o), DL_EINVALID);
	assert_string_equal(dl_error_last()->klass, "DELTA_TIMESTAMP_GREATER_THAN_COMMIT");
}

/* Removes the live files of partition p (a partition delete) or, with
 * rows, replaces them by those rows (an update). */
static void rewrite_partition(const char *t, const char *p, const char *rows, const char *operation)
{
	dl_transaction_options to = DL_TRANSACTION_OPTIONS_INIT;
	to.operation = operation;
	dl_transaction *x;
	assert_int_equal(dl_transaction_begin(&x, t, &to), 0);
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, t, NULL), 0);
	for (size_t i = 0; i < dl_snapshot_file_count(snap); i++) {
		dl_file_info f;
		assert_int_equal(dl_snapshot_file_at(&f, snap, i), 0);
		const char *k, *v;
		assert_int_equal(dl_snapshot_file_partition_value(&k, &v, snap, i, 0), 0);
		if (strcmp(v, p) == 0) assert_int_equal(dl_transaction_remove_file(x, f.path, true), 0);
	}
	dl_snapshot_free(snap);
	if (rows) {
		dl_batch *b = fx_batch("id BIGINT, p STRING", rows);
		dl_batch_stream *bs;
		dl_type *ty = dl_type_ref(b->schema);
		assert_int_equal(dl_batch_stream_from_batches(&bs, ty, &b, 1), 0);
		dl_type_unref(ty);
		struct ArrowArrayStream st;
		assert_int_equal(dl_batch_stream_export(&st, bs), 0);
		assert_int_equal(dl_transaction_write(x, &st, NULL), 0);
	}
	int64_t v;
	assert_int_equal(dl_transaction_commit(&v, x), 0);
	dl_transaction_free(x);
}

static const char *partitioned_table(void)
{
	const char *t = new_table();
	int64_t v;
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	const char *parts[] = {"p"};
	o.partition_by = parts;
	o.npartition_by = 1;
	assert_int_equal(fx_write(&v, t, "id BIGINT, p STRING", "1,a;2,b", &o), 0);
	return t;
}

/* A commit of two files splits over two batches at index 0. */
static void test_split_commit(void **state)
{
	(void)state;
	const char *t = partitioned_table();
	int64_t v;
	dl_write_options w = fx_opts(DL_WRITE_APPEND);
	assert_int_equal(fx_write(&v, t, "id BIGINT, p STRING", "3,x;4,y", &w), 0);
	dl_stream_options o = DL_STREAM_OPTIONS_INIT;
	o.starting_version = 1;
	o.max_files_per_trigger = 1;
	dl_stream *s;
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	dl_stream_offset end;
	char *a = next_rows(s, &end);
	assert_int_equal(end.reservoir_version, 1);
	assert_int_equal(end.index, 0);
	char *b = next_rows(s, &end);
	assert_int_equal(end.reservoir_version, 2);
	assert_int_equal(end.index, DL_STREAM_BASE_INDEX);
	char both[32];
	snprintf(both, sizeof both, "%s;%s", a, b);
	assert_true(strcmp(both, "3,x;4,y") == 0 || strcmp(both, "4,y;3,x") == 0);
	dl_free(a);
	dl_free(b);
	expect_rows(s, "");
	dl_stream_close(s);
}

static void test_ignore_deletes(void **state)
{
	(void)state;
	const char *t = partitioned_table();
	dl_stream_options o = DL_STREAM_OPTIONS_INIT;
	dl_stream *s;
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	expect_rows(s, "1,a;2,b");
	rewrite_partition(t, "a", NULL, "DELETE");
	append(t, "3,b");
	struct ArrowArrayStream st;
	dl_stream_offset end;
	int64_t id;
	assert_int_equal(dl_stream_next_batch(&st, &end, &id, s), DL_EUNSUPPORTED);
	assert_string_equal(dl_error_last()->klass, "DELTA_SOURCE_IGNORE_DELETE");
	assert_non_null(strstr(dl_error_last()->message, "at version 1"));
	dl_stream_close(s);
	o.ignore_deletes = true;
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	/* the snapshot at open has no partition a; the delete is before it */
	expect_rows(s, "2,b;3,b");
	dl_stream_close(s);
	o.starting_version = 0;
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	expect_rows(s, "1,a;2,b;3,b");
	dl_stream_close(s);
	/* ignoreDeletes does not cover updates */
	rewrite_partition(t, "b", "2,B;3,B", "UPDATE");
	/* the batch that reaches the update fails whole, as Spark's
	 * latestOffset: versions 0..2 are not delivered before the error */
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	assert_int_equal(dl_stream_next_batch(&st, &end, &id, s), DL_EUNSUPPORTED);
	assert_string_equal(dl_error_last()->klass, "DELTA_SOURCE_TABLE_IGNORE_CHANGES");
	assert_non_null(strstr(dl_error_last()->message, "at version 3 (operation UPDATE)"));
	assert_non_null(strstr(dl_error_last()->message, "for example p=b/"));
	assert_null(st.release);
	dl_stream_close(s);
	/* a batch limit that ends before reaching it delivers them (ending at
	 * the last file before it is not enough: the listing reads the next
	 * commit to find the end, as Spark's takeWhile does) */
	o.max_files_per_trigger = 2;
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	expect_rows(s, "1,a;2,b");
	assert_int_equal(dl_stream_next_batch(&st, &end, &id, s), DL_EUNSUPPORTED);
	dl_stream_close(s);
}

static void test_update_rules(void **state)
{
	(void)state;
	const char *t = partitioned_table();
	rewrite_partition(t, "b", "2,B", "UPDATE");
	append(t, "3,c");
	dl_stream_options o = DL_STREAM_OPTIONS_INIT;
	o.starting_version = 0;
	o.skip_change_commits = true;
	dl_stream *s;
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	expect_rows(s, "1,a;2,b;3,c"); /* the UPDATE's rows are not seen */
	dl_stream_close(s);
	o.skip_change_commits = false;
	o.ignore_changes = true;
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	expect_rows(s, "1,a;2,b;2,B;3,c"); /* rewritten files again */
	dl_stream_close(s);
	/* skipChangeCommits also covers deletes */
	rewrite_partition(t, "c", NULL, "DELETE");
	append(t, "4,d");
	o.ignore_changes = false;
	o.skip_change_commits = true;
	o.starting_version = 2;
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	expect_rows(s, "3,c;4,d");
	dl_stream_close(s);
}

static void test_exclude_filter_columns(void **state)
{
	(void)state;
	const char *t = partitioned_table();
	append(t, "3,a;4,b");
	dl_stream_options o = DL_STREAM_OPTIONS_INIT;
	o.exclude_regex = "p=b";
	dl_stream *s;
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	expect_rows(s, "1,a;3,a");
	dl_stream_close(s);
	o.exclude_regex = NULL;
	o.filter = "id >= 2";
	const char *cols[] = {"id"};
	o.columns = cols;
	o.ncolumns = 1;
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	expect_rows(s, "2;3;4");
	dl_stream_close(s);
	o.exclude_regex = "([";
	assert_int_equal(dl_stream_open(&s, t, &o), DL_EINVALID);
	assert_string_equal(dl_error_last()->klass, "DELTA_REGEX_OPT_SYNTAX_ERROR");
	assert_non_null(strstr(dl_error_last()->message, "'(['"));
}

/* A commit cleaned up past the stream's position is Spark's
 * failOnDataLossException, naming the expected and the earliest version. */
static void test_missing_commit(void **state)
{
	(void)state;
	const char *t = new_table();
	append(t, "1,a");
	append(t, "2,a");
	append(t, "3,a");
	dl_stream_options o = DL_STREAM_OPTIONS_INIT;
	o.starting_version = 1;
	dl_stream *s;
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	char path[256];
	snprintf(path, sizeof path, "%s/_delta_log/%020d.json", t, 1);
	assert_int_equal(unlink(path), 0);
	struct ArrowArrayStream st;
	dl_stream_offset end;
	int64_t id;
	assert_int_equal(dl_stream_next_batch(&st, &end, &id, s), DL_ENOTFOUND);
	assert_string_equal(dl_error_last()->klass, "DELTA_MISSING_FILES_UNEXPECTED_VERSION");
	assert_non_null(strstr(dl_error_last()->message, "expecting process data from version 1, but the earliest "
	                                                 "available version in the _delta_log directory is 2"));
	dl_stream_close(s);
}

static void test_read_change_feed(void **state)
{
	(void)state;
	const char *t = new_table();
	int64_t v;
	dl_write_options w = fx_opts(DL_WRITE_APPEND);
	const char *parts[] = {"p"};
	w.partition_by = parts;
	w.npartition_by = 1;
	const char *k[] = {"delta.enableChangeDataFeed"}, *val[] = {"true"};
	w.property_keys = k;
	w.property_values = val;
	w.nproperties = 1;
	assert_int_equal(fx_write(&v, t, "id BIGINT, p STRING", "1,a;2,b", &w), 0);
	dl_stream_options o = DL_STREAM_OPTIONS_INIT;
	o.read_change_feed = true;
	const char *cols[] = {"id", "_change_type", "_commit_version"};
	o.columns = cols;
	o.ncolumns = 3;
	dl_stream *s;
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	expect_rows(s, "1,insert,0;2,insert,0");
	rewrite_partition(t, "a", NULL, "DELETE");
	append(t, "3,c");
	expect_rows(s, "1,delete,1;3,insert,2");
	dl_stream_close(s);
	o.filter = "_change_type = 'delete'";
	o.starting_version = 0;
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	expect_rows(s, "1,delete,1");
	dl_stream_close(s);
	/* not on a table without the feed */
	const char *plain = partitioned_table();
	o.filter = NULL;
	assert_int_equal(dl_stream_open(&s, plain, &o), DL_EINVALID);
}

static void test_schema_change(void **state)
{
	(void)state;
	const char *t = new_table();
	append(t, "1,a");
	dl_stream_options o = DL_STREAM_OPTIONS_INIT;
	o.starting_version = DL_STREAM_LATEST;
	dl_stream *s;
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	/* an added column is fine */
	int64_t v;
	dl_write_options w = fx_opts(DL_WRITE_APPEND);
	w.merge_schema = true;
	assert_int_equal(fx_write(&v, t, "id BIGINT, p STRING, x INT", "2,b,7", &w), 0);
	expect_rows(s, "2,b");
	/* a type change is not */
	w = fx_opts(DL_WRITE_OVERWRITE);
	w.overwrite_schema = true;
	assert_int_equal(fx_write(&v, t, "id STRING, p STRING", "x,c", &w), 0);
	struct ArrowArrayStream st;
	dl_stream_offset end;
	int64_t id;
	assert_int_equal(dl_stream_next_batch(&st, &end, &id, s), DL_ESCHEMA);
	assert_string_equal(dl_error_last()->klass, "DELTA_SCHEMA_CHANGED_WITH_VERSION");
	assert_non_null(strstr(dl_error_last()->message, "version 2"));
	dl_stream_close(s);
}


/* ---- commits written by hand (what Spark writes for OPTIMIZE, a no-op
 * MERGE, a blind append that is not) ---- */

/* The path and size of t's first live file. */
static void live_file(const char *t, char *path, size_t cap, int64_t *size)
{
	dl_snapshot *snap;
	int rc = dl_snapshot_open(&snap, t, NULL);
	if (rc < 0) fprintf(stderr, "%s\n", dl_error_last()->message);
	assert_int_equal(rc, 0);
	assert_true(dl_snapshot_file_count(snap) > 0);
	dl_file_info f;
	assert_int_equal(dl_snapshot_file_at(&f, snap, 0), 0);
	snprintf(path, cap, "%s", f.path);
	*size = f.size;
	dl_snapshot_free(snap);
}

/* Commits the next version of t: a commitInfo of `operation` (with
 * `extra` members), then, unless remove_dc < 0, a remove (dataChange
 * remove_dc) and, unless add_dc < 0, an add (dataChange add_dc) of its
 * first live file. */
static int64_t raw_commit(const char *t, const char *operation, const char *extra, int remove_dc, int add_dc)
{
	char file[512];
	int64_t size;
	live_file(t, file, sizeof file, &size);
	int64_t v = fx_version(t) + 1, now = dl_now_millis();
	/* the add is a copy: a commit holds one action per file */
	char copy[600], src[800], dst[800];
	snprintf(copy, sizeof copy, "c%" PRId64 "-%s", v, file);
	snprintf(src, sizeof src, "%s/%s", t, file);
	snprintf(dst, sizeof dst, "%s/%s", t, copy);
	if (add_dc >= 0) {
		FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
		assert_non_null(in);
		assert_non_null(out);
		char buf[8192];
		size_t n;
		while ((n = fread(buf, 1, sizeof buf, in)) > 0) assert_int_equal(fwrite(buf, 1, n, out), n);
		fclose(in);
		fclose(out);
	}
	char path[256];
	snprintf(path, sizeof path, "%s/_delta_log/%020" PRId64 ".json", t, v);
	FILE *f = fopen(path, "wx");
	assert_non_null(f);
	fprintf(f, "{\"commitInfo\":{\"timestamp\":%" PRId64 ",\"operation\":\"%s\",\"operationParameters\":{}%s%s}}\n",
	        now, operation, extra ? "," : "", extra ? extra : "");
	if (remove_dc >= 0)
		fprintf(f, "{\"remove\":{\"path\":\"%s\",\"deletionTimestamp\":%" PRId64 ",\"dataChange\":%s,"
		        "\"extendedFileMetadata\":true,\"partitionValues\":{},\"size\":%" PRId64 "}}\n",
		        file, now, remove_dc ? "true" : "false", size);
	if (add_dc >= 0)
		fprintf(f, "{\"add\":{\"path\":\"%s\",\"partitionValues\":{},\"size\":%" PRId64 ",\"modificationTime\":%"
		        PRId64 ",\"dataChange\":%s}}\n", copy, size, now, add_dc ? "true" : "false");
	fclose(f);
	return v;
}

static void expect_position(dl_stream *s, int64_t version, int64_t index, bool initial)
{
	dl_stream_offset p;
	dl_stream_position(&p, s);
	if (p.reservoir_version != version || p.index != index || p.is_starting_version != initial)
		fprintf(stderr, "position (%" PRId64 ", %" PRId64 ", %d), want (%" PRId64 ", %" PRId64 ", %d)\n",
		        p.reservoir_version, p.index, p.is_starting_version, version, index, initial);
	assert_int_equal(p.reservoir_version, version);
	assert_int_equal(p.index, index);
	assert_int_equal(p.is_starting_version, initial);
}

/* The last batch of checkpoint cp: its id, whether committed, its offset. */
static void last_batch(const char *cp, int64_t *batch, bool *committed, dl_stream_offset *o)
{
	dl_stream_checkpoint *c;
	assert_int_equal(dl_stream_checkpoint_open(&c, cp, NULL), 0);
	char *text;
	assert_int_equal(dl_stream_checkpoint_last(batch, &text, committed, c), 0);
	assert_non_null(text);
	assert_int_equal(dl_stream_offset_from_json(o, text, strlen(text)), 0);
	dl_free(text);
	dl_stream_checkpoint_free(c);
}

static void expect_checkpoint(const char *cp, int64_t batch, int64_t version, int64_t index)
{
	int64_t last;
	bool committed;
	dl_stream_offset o;
	last_batch(cp, &last, &committed, &o);
	assert_int_equal(last, batch);
	assert_true(committed);
	assert_int_equal(o.reservoir_version, version);
	assert_int_equal(o.index, index);
	assert_false(o.is_starting_version);
}

/* Commits that change no data (OPTIMIZE: dataChange false; a commit of
 * only commitInfo) give no rows and do not stop the stream; the offset
 * moves onto them as Spark's does, (v, -1), as an empty batch recorded in
 * the checkpoint, so a restart reads neither them nor the rows before
 * them again, and skips nothing after them. */
static void test_empty_commits(void **state)
{
	(void)state;
	const char *t = new_table();
	append(t, "1,a");
	char cp[160];
	snprintf(cp, sizeof cp, "%s/cp%d", root, seq);
	dl_stream_options o = DL_STREAM_OPTIONS_INIT;
	o.checkpoint_location = cp;
	dl_stream *s;
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	expect_rows(s, "1,a");
	/* the snapshot's last file does not end its version (Spark's isLast) */
	expect_position(s, 0, 0, true);
	raw_commit(t, "OPTIMIZE", NULL, 0, 0);
	expect_rows(s, "");
	expect_position(s, 1, DL_STREAM_BASE_INDEX, false);
	expect_checkpoint(cp, 1, 1, DL_STREAM_BASE_INDEX);
	/* nothing new: no batch */
	expect_rows(s, "");
	expect_checkpoint(cp, 1, 1, DL_STREAM_BASE_INDEX);
	raw_commit(t, "SET TBLPROPERTIES", NULL, -1, -1);
	raw_commit(t, "OPTIMIZE", NULL, 0, 0);
	expect_rows(s, "");
	expect_position(s, 3, DL_STREAM_BASE_INDEX, false);
	dl_stream_close(s);
	/* a restart across the empty commits */
	append(t, "2,a");
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	expect_position(s, 3, DL_STREAM_BASE_INDEX, false);
	expect_rows(s, "2,a");
	expect_position(s, 5, DL_STREAM_BASE_INDEX, false);
	raw_commit(t, "OPTIMIZE", NULL, 0, 0);
	dl_stream_close(s);
	/* the empty commit is the last thing: a restart sees it, then the next */
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	expect_rows(s, "");
	expect_position(s, 5, DL_STREAM_BASE_INDEX, false);
	dl_stream_close(s);
	append(t, "3,a");
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	expect_rows(s, "3,a");
	expect_rows(s, "");
	dl_stream_close(s);
	/* an empty commit planned but not committed (a crash between the
	 * offset and the commit file) is finished by the restart */
	int64_t v = raw_commit(t, "OPTIMIZE", NULL, 0, 0);
	int64_t last;
	bool committed;
	dl_stream_offset e;
	last_batch(cp, &last, &committed, &e);
	assert_true(committed);
	e.reservoir_version = v;
	e.index = DL_STREAM_BASE_INDEX;
	char *json;
	assert_int_equal(dl_stream_offset_to_json(&json, &e), 0);
	dl_stream_checkpoint *c;
	assert_int_equal(dl_stream_checkpoint_open(&c, cp, NULL), 0);
	assert_int_equal(dl_stream_checkpoint_write_offset(c, last + 1, json), 0);
	dl_stream_checkpoint_free(c);
	dl_free(json);
	append(t, "4,a");
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	expect_rows(s, "");            /* the replayed empty batch, committed */
	expect_checkpoint(cp, last + 1, v, DL_STREAM_BASE_INDEX);
	expect_rows(s, "4,a");
	dl_stream_close(s);
}

static const char *cdf_table(const char *rows, bool partitioned)
{
	const char *t = new_table();
	int64_t v;
	dl_write_options w = fx_opts(DL_WRITE_APPEND);
	const char *parts[] = {"p"};
	if (partitioned) {
		w.partition_by = parts;
		w.npartition_by = 1;
	}
	const char *k[] = {"delta.enableChangeDataFeed"}, *val[] = {"true"};
	w.property_keys = k;
	w.property_values = val;
	w.nproperties = 1;
	assert_int_equal(fx_write(&v, t, "id BIGINT, p STRING", rows, &w), 0);
	return t;
}

/* readChangeFeed over commits that change no data: OPTIMIZE
 * (dataChange false), a commit of only commitInfo, and a MERGE that
 * rewrote a file but whose metrics say no row changed (Spark's
 * CDCReader.shouldSkipFileActionsInCommit). None gives rows or stops the
 * stream; the offset moves onto each as (v, -1), and a restart from the
 * checkpoint reads only what came after. */
static void test_cdf_empty_commits(void **state)
{
	(void)state;
	const char *t = cdf_table("1,a;2,b", false);
	char cp[160];
	snprintf(cp, sizeof cp, "%s/cp%d", root, seq);
	dl_stream_options o = DL_STREAM_OPTIONS_INIT;
	o.read_change_feed = true;
	o.checkpoint_location = cp;
	const char *cols[] = {"id", "_change_type", "_commit_version"};
	o.columns = cols;
	o.ncolumns = 3;
	dl_stream *s;
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	expect_rows(s, "1,insert,0;2,insert,0");
	expect_position(s, 0, 0, true);
	raw_commit(t, "OPTIMIZE", NULL, 0, 0);
	expect_rows(s, "");
	expect_position(s, 1, DL_STREAM_BASE_INDEX, false);
	static const char noop[] = "\"operationMetrics\":{\"numTargetRowsInserted\":\"0\",\"numTargetRowsUpdated\":\"0\","
	                           "\"numTargetRowsDeleted\":\"0\",\"numTargetFilesAdded\":\"1\"}";
	raw_commit(t, "MERGE", noop, 1, 1);
	raw_commit(t, "UPDATE", "\"operationMetrics\":{\"numUpdatedRows\":\"0\"}", -1, -1);
	expect_rows(s, "");
	expect_position(s, 3, DL_STREAM_BASE_INDEX, false);
	expect_checkpoint(cp, 2, 3, DL_STREAM_BASE_INDEX);
	dl_stream_close(s);
	/* restart across them */
	append(t, "3,c");
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	expect_rows(s, "3,insert,4");
	expect_rows(s, "");
	dl_stream_close(s);
	/* a MERGE whose metrics say it changed rows is read: the rewritten
	 * file's rows as deletes, its copy's as inserts */
	raw_commit(t, "MERGE", "\"operationMetrics\":{\"numTargetRowsInserted\":\"0\",\"numTargetRowsUpdated\":\"2\","
	                          "\"numTargetRowsDeleted\":\"0\"}", 1, 1);
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	char *r = next_rows(s, NULL);
	assert_non_null(strstr(r, ",delete,5"));
	assert_non_null(strstr(r, ",insert,5"));
	dl_free(r);
	dl_stream_close(s);
}

/* excludeRegex applies to the change feed as to appends (Spark's
 * noMatchesRegex in DeltaSourceCDCSupport.filterFiles): the initial
 * snapshot's files, removed files and added files whose path matches give
 * no change rows. Without readChangeFeed an excluded file still counts
 * toward maxFilesPerTrigger (Spark drops it only when reading the batch). */
static void test_exclude_changes(void **state)
{
	(void)state;
	const char *t = cdf_table("1,a;2,b", true);
	dl_stream_options o = DL_STREAM_OPTIONS_INIT;
	o.read_change_feed = true;
	o.exclude_regex = "p=a/";
	const char *cols[] = {"id", "_change_type", "_commit_version"};
	o.columns = cols;
	o.ncolumns = 3;
	dl_stream *s;
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	expect_rows(s, "2,insert,0");
	rewrite_partition(t, "a", NULL, "DELETE");      /* v1: only p=a: nothing */
	rewrite_partition(t, "b", "5,b", "UPDATE");     /* v2: remove p=b, add p=b */
	int64_t v;
	dl_write_options w = fx_opts(DL_WRITE_APPEND);
	assert_int_equal(fx_write(&v, t, "id BIGINT, p STRING", "6,a;7,b", &w), 0); /* v3 */
	expect_rows(s, "2,delete,2;5,insert,2;7,insert,3");
	dl_stream_close(s);
	/* split file by file, the same rows */
	o.starting_version = 1;
	o.max_files_per_trigger = 1;
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	char all[128] = "";
	for (int i = 0; i < 8; i++) {
		char *r = next_rows(s, NULL);
		if (*r) snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s", *all ? ";" : "", r);
		dl_free(r);
	}
	assert_string_equal(all, "2,delete,2;5,insert,2;7,insert,3");
	dl_stream_close(s);

	/* without the feed: the excluded file takes the batch's one file */
	const char *u = new_table();
	append(u, "1,a");
	append(u, "2,a");
	char file[512];
	int64_t size;
	live_file(u, file, sizeof file, &size);
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, u, NULL), 0);
	dl_file_info f0;
	int64_t first_version_file = -1;
	for (size_t i = 0; i < dl_snapshot_file_count(snap); i++) {
		assert_int_equal(dl_snapshot_file_at(&f0, snap, i), 0);
		char *c0 = fx_commit(u, 0);
		if (strstr(c0, f0.path)) {
			snprintf(file, sizeof file, "%.8s", strstr(f0.path, "-") + 1);
			first_version_file = (int64_t)i;
		}
		dl_free(c0);
	}
	dl_snapshot_free(snap);
	assert_true(first_version_file >= 0);
	dl_stream_options p = DL_STREAM_OPTIONS_INIT;
	p.starting_version = 0;
	p.max_files_per_trigger = 1;
	p.exclude_regex = file;
	assert_int_equal(dl_stream_open(&s, u, &p), 0);
	expect_rows(s, "");
	expect_position(s, 1, DL_STREAM_BASE_INDEX, false);
	expect_rows(s, "2,a");
	dl_stream_close(s);
}

/* Spark's DeltaSource does not read commitInfo.isBlindAppend: the
 * actions decide. A commit claiming to be a blind append that removes
 * data still stops the stream. */
static void test_blind_append_flag(void **state)
{
	(void)state;
	const char *t = new_table();
	append(t, "1,a");
	dl_stream_options o = DL_STREAM_OPTIONS_INIT;
	o.starting_version = DL_STREAM_LATEST;
	dl_stream *s;
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	raw_commit(t, "WRITE", "\"isBlindAppend\":true", 1, -1);
	struct ArrowArrayStream st;
	dl_stream_offset end;
	int64_t id;
	assert_int_equal(dl_stream_next_batch(&st, &end, &id, s), DL_EUNSUPPORTED);
	assert_string_equal(dl_error_last()->klass, "DELTA_SOURCE_IGNORE_DELETE");
	dl_stream_close(s);
	/* and one that says it is not, with only an add, is read */
	const char *u = new_table();
	append(u, "2,b");
	assert_int_equal(dl_stream_open(&s, u, &o), 0);
	raw_commit(u, "WRITE", "\"isBlindAppend\":false", -1, 1);
	expect_rows(s, "2,b");
	dl_stream_close(s);
}

/* readChangeFeed reads its rows in the stream's schema (fixed at open), so
 * the commits before an incompatible schema change are delivered; and it
 * stops listing once the batch is full (Spark's getFileChangesForCDC
 * takeWhile(hasCapacity)), so the change fails only the batch that
 * reaches it. */
static void test_cdf_schema_change_after_open(void **state)
{
	(void)state;
	const char *ddls[] = {"id STRING, p STRING", "id BIGINT"}; /* a type change, a dropped column */
	const char *rows[] = {"x,c", "9"};
	for (int k = 0; k < 2; k++) {
		const char *t = cdf_table("1,a", false);
		append(t, "2,b");
		dl_stream_options o = DL_STREAM_OPTIONS_INIT;
		o.read_change_feed = true;
		o.starting_version = 0;
		o.max_files_per_trigger = 1;
		const char *cols[] = {"id", "_change_type"};
		o.columns = cols;
		o.ncolumns = 2;
		dl_stream *s;
		assert_int_equal(dl_stream_open(&s, t, &o), 0);
		int64_t v;
		dl_write_options w = fx_opts(DL_WRITE_OVERWRITE);
		w.overwrite_schema = true;
		assert_int_equal(fx_write(&v, t, ddls[k], rows[k], &w), 0);
		dl_stream_offset end;
		char *r = next_rows(s, &end);
		assert_string_equal(r, "1,insert");
		dl_free(r);
		r = next_rows(s, &end);
		assert_string_equal(r, "2,insert");
		dl_free(r);
		assert_int_equal(end.reservoir_version, 2);
		assert_int_equal(end.index, DL_STREAM_BASE_INDEX);
		struct ArrowArrayStream st;
		int64_t id;
		assert_int_equal(dl_stream_next_batch(&st, &end, &id, s), DL_ESCHEMA);
		assert_string_equal(dl_error_last()->klass, "DELTA_SCHEMA_CHANGED_WITH_VERSION");
		assert_non_null(strstr(dl_error_last()->message, "version 2"));
		dl_stream_close(s);
	}
}

static void test_checkpoint_resume(void **state)
{
	(void)state;
	const char *t = new_table();
	append(t, "1,a");
	append(t, "2,a");
	append(t, "3,a");
	char cp[160];
	snprintf(cp, sizeof cp, "%s/cp%d", root, seq);
	dl_stream_options o = DL_STREAM_OPTIONS_INIT;
	o.max_files_per_trigger = 1;
	o.checkpoint_location = cp;
	dl_stream *s;
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	expect_rows(s, "1,a");
	/* batch 1 planned but not committed: a crash */
	struct ArrowArrayStream st;
	dl_stream_offset end, end2;
	int64_t id, id2;
	assert_int_equal(dl_stream_next_batch(&st, &end, &id, s), 0);
	assert_int_equal(id, 1);
	st.release(&st);
	dl_stream_close(s);
	/* more data, and a larger limit: the replay is still batch 1 exactly */
	append(t, "4,a");
	o.max_files_per_trigger = 10;
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	assert_int_equal(dl_stream_next_batch(&st, &end2, &id2, s), 0);
	assert_int_equal(id2, 1);
	assert_true(dl_stream_offset_cmp(&end, &end2) == 0);
	char *r = rows_of(&st);
	assert_string_equal(r, "2,a");
	dl_free(r);
	assert_int_equal(dl_stream_commit(s, &end2), 0);
	expect_rows(s, "3,a;4,a");
	dl_stream_close(s);
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	expect_rows(s, "");
	append(t, "5,a");
	expect_rows(s, "5,a");
	dl_stream_close(s);
	/* the checkpoint's files are Spark's */
	dl_stream_checkpoint *c;
	assert_int_equal(dl_stream_checkpoint_open(&c, cp, NULL), 0);
	int64_t last;
	char *text;
	bool committed;
	assert_int_equal(dl_stream_checkpoint_last(&last, &text, &committed, c), 0);
	assert_int_equal(last, 3);
	assert_true(committed);
	assert_non_null(strstr(text, "\"sourceVersion\":1"));
	dl_free(text);
	assert_int_equal(dl_stream_checkpoint_write_offset(c, 3, "{\"other\":1}"), DL_ECONFLICT);
	assert_int_equal(strlen(dl_stream_checkpoint_id(c)), 36);
	dl_stream_checkpoint_free(c);
	/* another table on this checkpoint is refused */
	const char *t2 = new_table();
	append(t2, "1,a");
	assert_int_equal(dl_stream_open(&s, t2, &o), DL_EINVALID);
	assert_string_equal(dl_error_last()->klass, "DIFFERENT_DELTA_TABLE_READ_BY_STREAMING_SOURCE");
}

static struct ArrowArrayStream batch_of(const char *rows)
{
	dl_batch *b = fx_batch("id BIGINT, p STRING", rows);
	dl_batch_stream *bs;
	dl_type *ty = dl_type_ref(b->schema);
	assert_int_equal(dl_batch_stream_from_batches(&bs, ty, &b, 1), 0);
	dl_type_unref(ty);
	struct ArrowArrayStream st;
	assert_int_equal(dl_batch_stream_export(&st, bs), 0);
	return st;
}

/* Any store: the table and the checkpoint on mem://. */
static void test_mem_store(void **state)
{
	(void)state;
	const char *t = "mem://stream-test/table";
	append(t, "1,a");
	dl_stream_options o = DL_STREAM_OPTIONS_INIT;
	o.checkpoint_location = "mem://stream-test/cp";
	dl_stream *s;
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	expect_rows(s, "1,a");
	append(t, "2,b");
	dl_stream_close(s);
	assert_int_equal(dl_stream_open(&s, t, &o), 0);
	expect_rows(s, "2,b");
	expect_rows(s, "");
	dl_stream_close(s);
	dl_stream_sink_options so = DL_STREAM_SINK_OPTIONS_INIT;
	so.checkpoint_location = "mem://stream-test/cp";
	dl_stream_sink *k;
	assert_int_equal(dl_stream_sink_open(&k, t, &so), 0);
	int64_t v;
	struct ArrowArrayStream st = batch_of("3,c");
	assert_int_equal(dl_stream_sink_write(&v, k, 5, &st), 0);
	assert_int_equal(v, 2);
	st = batch_of("3,c");
	assert_int_equal(dl_stream_sink_write(&v, k, 5, &st), 0);
	assert_int_equal(v, -1);
	dl_stream_sink_free(k);
	char *r = fx_read(t, -1, NULL);
	assert_string_equal(r, "1,a;2,b;3,c");
	dl_free(r);
}

static void test_offset_json(void **state)
{
	(void)state;
	dl_stream_offset o = {"abc", 7, DL_STREAM_BASE_INDEX, true}, p;
	char *j;
	assert_int_equal(dl_stream_offset_to_json(&j, &o), 0);
	assert_string_equal(j, "{\"sourceVersion\":1,\"reservoirId\":\"abc\",\"reservoirVersion\":7,\"index\":-1,"
	                    "\"isStartingVersion\":true}");
	assert_int_equal(dl_stream_offset_from_json(&p, j, strlen(j)), 0);
	assert_true(dl_stream_offset_equal(&o, &p));
	dl_free(j);
	const char *v3 = "{\"sourceVersion\":3,\"reservoirId\":\"x\",\"reservoirVersion\":2,\"index\":-100,"
	                 "\"isStartingVersion\":false}";
	assert_int_equal(dl_stream_offset_from_json(&p, v3, strlen(v3)), 0);
	assert_int_equal(p.index, DL_STREAM_BASE_INDEX);
	const char *bad[] = {
		"{\"sourceVersion\":2,\"reservoirId\":\"x\",\"reservoirVersion\":2,\"index\":1,\"isStartingVersion\":false}",
		"{\"sourceVersion\":4,\"reservoirId\":\"x\",\"reservoirVersion\":2,\"index\":1,\"isStartingVersion\":false}",
		"{\"sourceVersion\":1,\"reservoirVersion\":2,\"index\":1,\"isStartingVersion\":false}",
		"{\"sourceVersion\":1,\"reservoirId\":\"x\",\"reservoirVersion\":2,\"index\":1}",
		"[1]", "{", "",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		assert_int_equal(dl_stream_offset_from_json(&p, bad[i], strlen(bad[i])), DL_EINVALID);
}

static void test_sink(void **state)
{
	(void)state;
	const char *t = new_table();
	char cp[160];
	snprintf(cp, sizeof cp, "%s/sinkcp%d", root, seq);
	dl_stream_sink_options so = DL_STREAM_SINK_OPTIONS_INIT;
	so.checkpoint_location = cp;
	dl_stream_sink *k;
	assert_int_equal(dl_stream_sink_open(&k, t, &so), 0);
	int64_t v;
	struct ArrowArrayStream st = batch_of("1,a;2,a");
	assert_int_equal(dl_stream_sink_write(&v, k, 0, &st), 0); /* creates the table */
	assert_int_equal(v, 0);
	st = batch_of("3,a");
	assert_int_equal(dl_stream_sink_write(&v, k, 1, &st), 0);
	assert_int_equal(v, 1);
	st = batch_of("3,a");
	assert_int_equal(dl_stream_sink_write(&v, k, 1, &st), 0); /* a replay */
	assert_int_equal(v, -1);
	st = batch_of("9,z");
	assert_int_equal(dl_stream_sink_write(&v, k, 0, &st), 0);
	assert_int_equal(v, -1);
	char *r = fx_read(t, -1, NULL);
	assert_string_equal(r, "1,a;2,a;3,a");
	dl_free(r);
	/* every batch, the one that created the table too, is Spark's
	 * StreamingUpdate with DeltaOperationMetrics.STREAMING_UPDATE */
	for (int64_t ver = 0; ver <= 1; ver++) {
		char *commit = fx_commit(t, ver);
		char want[256];
		assert_non_null(strstr(commit, "\"operation\":\"STREAMING UPDATE\""));
		snprintf(want, sizeof want, "\"operationParameters\":{\"outputMode\":\"Append\",\"queryId\":\"%s\","
		         "\"epochId\":\"%lld\"}", dl_stream_sink_app_id(k), (long long)ver);
		if (!strstr(commit, want)) fail_msg("version %lld lacks %s: %s", (long long)ver, want, commit);
		snprintf(want, sizeof want, "{\"txn\":{\"appId\":\"%s\",\"version\":%lld", dl_stream_sink_app_id(k),
		         (long long)ver);
		if (!strstr(commit, want)) fail_msg("version %lld lacks %s", (long long)ver, want);
		assert_non_null(strstr(commit, "\"numAddedFiles\":\"1\""));
		assert_non_null(strstr(commit, "\"numRemovedFiles\":\"0\""));
		assert_non_null(strstr(commit, ver == 0 ? "\"numOutputRows\":\"2\"" : "\"numOutputRows\":\"1\""));
		assert_non_null(strstr(commit, "\"numOutputBytes\":\""));
		assert_null(strstr(commit, "\"numFiles\""));
		dl_free(commit);
	}
	/* the app id is the checkpoint's query id */
	dl_stream_checkpoint *c;
	assert_int_equal(dl_stream_checkpoint_open(&c, cp, NULL), 0);
	assert_string_equal(dl_stream_sink_app_id(k), dl_stream_checkpoint_id(c));
	dl_stream_checkpoint_free(c);
	dl_stream_sink_free(k);
	/* complete mode replaces the table */
	so.mode = DL_STREAM_COMPLETE;
	so.checkpoint_location = NULL;
	so.app_id = "agg";
	assert_int_equal(dl_stream_sink_open(&k, t, &so), 0);
	st = batch_of("7,c");
	assert_int_equal(dl_stream_sink_write(&v, k, 0, &st), 0);
	assert_int_equal(v, 2);
	r = fx_read(t, -1, NULL);
	assert_string_equal(r, "7,c");
	dl_free(r);
	dl_stream_sink_free(k);
	so.app_id = NULL;
	assert_int_equal(dl_stream_sink_open(&k, t, &so), DL_EINVALID);
}

int main(void)
{
	snprintf(root, sizeof root, "/tmp/dl_stream_XXXXXX");
	if (!mkdtemp(root)) return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snapshot_then_commits),
		cmocka_unit_test(test_max_bytes),
		cmocka_unit_test(test_starting_positions),
		cmocka_unit_test(test_split_commit),
		cmocka_unit_test(test_ignore_deletes),
		cmocka_unit_test(test_update_rules),
		cmocka_unit_test(test_exclude_filter_columns),
		cmocka_unit_test(test_read_change_feed),
		cmocka_unit_test(test_schema_change),
		cmocka_unit_test(test_empty_commits),
		cmocka_unit_test(test_missing_commit),
		cmocka_unit_test(test_cdf_empty_commits),
		cmocka_unit_test(test_cdf_schema_change_after_open),
		cmocka_unit_test(test_exclude_changes),
		cmocka_unit_test(test_blind_append_flag),
		cmocka_unit_test(test_checkpoint_resume),
		cmocka_unit_test(test_mem_store),
		cmocka_unit_test(test_offset_json),
		cmocka_unit_test(test_sink),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", root);
	if (system(cmd) != 0) rc = rc ? rc : 1;
	return rc;
}
