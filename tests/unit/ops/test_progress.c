/* The public progress callback (deltalake/progress.h) of dl_write,
 * dl_transaction_write, scans, dl_checkpoint and dl_log_cleanup: what it
 * reports, and that cancelling from it fails with DL_ECANCELLED and leaves
 * the table exactly as it was (every file byte for byte, no stray data
 * files); plus option structs of an older version accepted. */
#define _XOPEN_SOURCE 700
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <time.h>
#include "deltalake.h"
#include "ops_fixture.h"
#include "util/error.h"

/* ---- the whole tree of a table, for "unchanged" ---- */

static dl_buf tree_buf;
static size_t tree_root_len;

static int tree_visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	if (type != FTW_F) return 0;
	FILE *f = fopen(path, "rb");
	if (!f) return 1;
	uint64_t h = 1469598103934665603ull; /* FNV-1a of the content */
	int c;
	while ((c = fgetc(f)) != EOF) h = (h ^ (uint8_t)c) * 1099511628211ull;
	fclose(f);
	dl_buf_printf(&tree_buf, "%s %lld %016llx\n", path + tree_root_len, (long long)st->st_size,
	              (unsigned long long)h);
	return 0;
}

/* Every file under dir with its size and a hash of its bytes, sorted. */
static char *tree(const char *dir)
{
	dl_buf_clear(&tree_buf);
	tree_root_len = strlen(dir);
	assert_int_equal(nftw(dir, tree_visit, 16, FTW_PHYS), 0);
	/* sort the lines */
	char *lines[4096];
	size_t n = 0;
	for (char *p = strtok(tree_buf.data, "\n"); p && n < 4096; p = strtok(NULL, "\n")) lines[n++] = p;
	qsort(lines, n, sizeof *lines, fx_cmp);
	dl_buf out = DL_BUF_INIT;
	dl_buf_puts(&out, "");
	for (size_t i = 0; i < n; i++) dl_buf_printf(&out, "%s\n", lines[i]);
	return out.data;
}

/* ---- a progress callback that records and cancels on call N ---- */

typedef struct recorder {
	int calls;
	int cancel_at;          /* 1-based call that returns non-zero; 0: never */
	char ops[64], phases[256];
	dl_progress_info last;
	int64_t max_bytes;
} recorder;

static int record(const dl_progress_info *p, void *payload)
{
	recorder *r = payload;
	r->calls++;
	snprintf(r->ops, sizeof r->ops, "%s", p->operation);
	if (!strstr(r->phases, p->phase)) {
		size_t n = strlen(r->phases);
		snprintf(r->phases + n, sizeof r->phases - n, "%s%s", n ? "," : "", p->phase);
	}
	r->last = *p;
	if (p->bytes > r->max_bytes) r->max_bytes = p->bytes;
	return r->cancel_at && r->calls >= r->cancel_at;
}

/* An Arrow stream of `nbatches` batches of "id BIGINT, p STRING" rows. */
static void stream_of(struct ArrowArrayStream *out, int nbatches, int rows_each)
{
	dl_batch *bs[16];
	for (int b = 0; b < nbatches; b++) {
		dl_buf rows = DL_BUF_INIT;
		dl_buf_puts(&rows, "");
		for (int r = 0; r < rows_each; r++)
			dl_buf_printf(&rows, "%s%d,%s", r ? ";" : "", b * rows_each + r, r % 2 ? "a" : "b");
		bs[b] = fx_batch("id BIGINT, p STRING", rows.data);
		assert_non_null(bs[b]);
		dl_buf_free(&rows);
	}
	dl_type *t = dl_type_ref(bs[0]->schema);
	dl_batch_stream *s;
	assert_int_equal(dl_batch_stream_from_batches(&s, t, bs, nbatches), 0);
	dl_type_unref(t);
	assert_int_equal(dl_batch_stream_export(out, s), 0);
}

static char *new_table(char **base, const char *props)
{
	*base = fx_tmpdir();
	char *t = fx_table(*base, "t");
	dl_write_options o = DL_WRITE_OPTIONS_INIT;
	const char *parts[] = {"p"};
	o.partition_by = parts;
	o.npartition_by = 1;
	const char *keys[2], *vals[2];
	if (props) {
		keys[0] = "delta.checkpointPolicy";
		vals[0] = props;
		keys[1] = "delta.feature.v2Checkpoint";
		vals[1] = "supported";
		o.property_keys = keys;
		o.property_values = vals;
		o.nproperties = 2;
	}
	struct ArrowArrayStream st;
	stream_of(&st, 1, 4);
	int64_t v;
	assert_int_equal(dl_write(&v, t, &st, &o), 0);
	assert_int_equal(v, 0);
	return t;
}

static void drop_table(char *base, char *t)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
	assert_int_equal(system(cmd), 0);
	dl_free(t);
	dl_free(base);
}

/* ---- writes ---- */

static void write_reports_rows_then_commit(void **state)
{
	(void)state;
	char *base, *t = new_table(&base, NULL);
	recorder r = {0};
	dl_write_options o = DL_WRITE_OPTIONS_INIT;
	o.mode = DL_WRITE_APPEND;
	o.progress = record;
	o.progress_payload = &r;
	struct ArrowArrayStream st;
	stream_of(&st, 3, 5);
	int64_t v;
	assert_int_equal(dl_write(&v, t, &st, &o), 0);
	assert_int_equal(v, 1);
	assert_int_equal(r.calls, 4); /* a call per batch, then before the commit */
	assert_string_equal(r.ops, "write");
	assert_string_equal(r.phases, "writing,committing");
	assert_string_equal(r.last.unit, "files");
	assert_int_equal(r.last.done, 2); /* two partitions */
	assert_int_equal(r.last.total, 2);
	assert_int_equal(r.last.rows, 15);
	assert_true(r.max_bytes > 0);
	drop_table(base, t);
}

/* Cancelling at each call in turn: DL_ECANCELLED, nothing committed, no
 * data file left, every file of the table as before. */
static void cancelled_write_leaves_the_table_unchanged(void **state)
{
	(void)state;
	char *base, *t = new_table(&base, NULL);
	char *before = tree(t);
	int parquet = fx_count_parquet(t);
	for (int at = 1; at <= 4; at++) {
		recorder r = {.cancel_at = at};
		dl_write_options o = DL_WRITE_OPTIONS_INIT;
		o.mode = at % 2 ? DL_WRITE_APPEND : DL_WRITE_OVERWRITE;
		o.progress = record;
		o.progress_payload = &r;
		struct ArrowArrayStream st;
		stream_of(&st, 3, 5);
		int64_t v;
		assert_int_equal(dl_write(&v, t, &st, &o), DL_ECANCELLED);
		assert_int_equal(v, -1);
		assert_non_null(strstr(dl_error_last()->message, "cancelled by the progress callback"));
		assert_int_equal(r.calls, at);
		char *after = tree(t);
		assert_string_equal(before, after);
		dl_free(after);
		assert_int_equal(fx_count_parquet(t), parquet);
	}
	assert_int_equal(fx_version(t), 0);
	dl_free(before);
	drop_table(base, t);
}

static void cancelled_transaction_write_joins_nothing(void **state)
{
	(void)state;
	char *base, *t = new_table(&base, NULL);
	char *before = tree(t);
	dl_transaction *txn;
	assert_int_equal(dl_transaction_begin(&txn, t, NULL), 0);
	recorder r = {.cancel_at = 2};
	dl_transaction_write_options w = DL_TRANSACTION_WRITE_OPTIONS_INIT;
	w.progress = record;
	w.progress_payload = &r;
	struct ArrowArrayStream st;
	stream_of(&st, 3, 5);
	assert_int_equal(dl_transaction_write(txn, &st, &w), DL_ECANCELLED);
	assert_string_equal(r.ops, "transaction write");
	char *after = tree(t);
	assert_string_equal(before, after); /* its files deleted */
	dl_free(after);
	/* the transaction is as before: another write commits alone */
	recorder ok = {0};
	w.progress_payload = &ok;
	stream_of(&st, 1, 3);
	assert_int_equal(dl_transaction_write(txn, &st, &w), 0);
	assert_int_equal(ok.calls, 1); /* no committing phase: the commit is the caller's */
	int64_t v;
	assert_int_equal(dl_transaction_commit(&v, txn), 0);
	assert_int_equal(v, 1);
	dl_transaction_free(txn);
	char *rows = fx_read(t, -1, "id");
	assert_string_equal(rows, "0;0;1;1;2;2;3");
	dl_free(rows);
	dl_free(before);
	drop_table(base, t);
}

/* An old caller's dl_write_options (version 1: no progress fields) in a
 * buffer of exactly that size. */
static void version_1_options_are_read_as_far_as_they_go(void **state)
{
	(void)state;
	char *base, *t = new_table(&base, NULL);
	dl_write_options cur = DL_WRITE_OPTIONS_INIT;
	cur.version = 1;
	cur.mode = DL_WRITE_APPEND;
	size_t v1 = offsetof(dl_write_options, nproperties) + sizeof cur.nproperties;
	void *old = malloc(v1);
	memcpy(old, &cur, v1);
	struct ArrowArrayStream st;
	stream_of(&st, 1, 2);
	int64_t v;
	assert_int_equal(dl_write(&v, t, &st, old), 0);
	assert_int_equal(v, 1);
	free(old);
	dl_scan_options sc = DL_SCAN_OPTIONS_INIT;
	sc.version = 1;
	sc.batch_rows = 1;
	size_t s1 = offsetof(dl_scan_options, max_queued_batches) + sizeof sc.max_queued_batches;
	void *olds = malloc(s1);
	memcpy(olds, &sc, s1);
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, t, NULL), 0);
	dl_scan *scan;
	assert_int_equal(dl_scan_open(&scan, snap, olds), 0);
	assert_int_equal(scan->batch_rows, 1);
	assert_null(scan->progress);
	dl_scan_free(scan);
	free(olds);
	/* a version from the future is refused, naming the struct */
	sc.version = DL_SCAN_OPTIONS_VERSION + 1;
	assert_int_equal(dl_scan_open(&scan, snap, &sc), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "dl_scan_options.version"));
	dl_snapshot_free(snap);
	dl_write_options zero = {0};
	stream_of(&st, 1, 2);
	assert_int_equal(dl_write(&v, t, &st, &zero), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "dl_write_options.version is 0"));
	drop_table(base, t);
}

/* ---- scans ---- */

static void scan_reports_files_and_cancels(void **state)
{
	(void)state;
	char *base, *t = new_table(&base, NULL);
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, t, NULL), 0);
	recorder r = {0};
	dl_scan_options o = DL_SCAN_OPTIONS_INIT;
	o.progress = record;
	o.progress_payload = &r;
	dl_scan *scan;
	assert_int_equal(dl_scan_open(&scan, snap, &o), 0);
	struct ArrowArrayStream st;
	assert_int_equal(dl_scan_to_arrow(&st, scan), 0);
	struct ArrowArray a;
	int64_t rows = 0;
	while (st.get_next(&st, &a) == 0 && a.release) {
		rows += a.length;
		a.release(&a);
	}
	st.release(&st);
	assert_int_equal(rows, 4);
	assert_string_equal(r.ops, "scan");
	assert_string_equal(r.last.unit, "files");
	assert_int_equal(r.last.done, 2);
	assert_int_equal(r.last.total, 2);
	assert_int_equal(r.last.rows, 4);
	/* cancelled at the first batch: the stream ends with an error */
	recorder c = {.cancel_at = 1};
	scan->progress_payload = &c;
	assert_int_equal(dl_scan_to_arrow(&st, scan), 0);
	assert_int_not_equal(st.get_next(&st, &a), 0);
	assert_non_null(strstr(st.get_last_error(&st), "cancelled"));
	assert_int_not_equal(st.get_next(&st, &a), 0); /* and stays ended */
	st.release(&st);
	dl_scan_free(scan);
	dl_snapshot_free(snap);
	drop_table(base, t);
}

/* ---- maintenance ---- */

/* Moves the modification time of every commit file `days` into the past. */
static void age_log(const char *t, int days)
{
	for (int v = 0;; v++) {
		char p[1024];
		snprintf(p, sizeof p, "%s/_delta_log/%020d.json", t, v);
		struct stat st;
		if (stat(p, &st) != 0) break;
		struct timespec ts[2] = {{time(NULL) - days * 86400 - 100 + v, 0},
		                         {time(NULL) - days * 86400 - 100 + v, 0}};
		assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
	}
}

static void cancelled_checkpoint_leaves_the_log_unchanged(void **state)
{
	(void)state;
	const char *policies[] = {NULL, "v2"};
	for (int k = 0; k < 2; k++) {
		char *base, *t = new_table(&base, policies[k]);
		for (int i = 0; i < 3; i++) {
			dl_write_options o = DL_WRITE_OPTIONS_INIT;
			o.mode = DL_WRITE_APPEND;
			struct ArrowArrayStream st;
			stream_of(&st, 1, 4);
			int64_t v;
			assert_int_equal(dl_write(&v, t, &st, &o), 0);
		}
		char *before = tree(t);
		dl_snapshot *snap;
		assert_int_equal(dl_snapshot_open(&snap, t, NULL), 0);
		/* one action per part / sidecar: every sidecar flushes, so the
		 * callback runs while earlier sidecars are already published */
		int cancelled = 0;
		for (int at = 1; at <= 3; at++) {
			recorder r = {.cancel_at = at};
			dl_checkpoint_options o = DL_CHECKPOINT_OPTIONS_INIT;
			o.part_actions = 1;
			o.progress = record;
			o.progress_payload = &r;
			dl_checkpoint_result res;
			int rc = dl_checkpoint(&res, snap, &o);
			if (rc == 0) break; /* fewer flushes than `at` */
			assert_int_equal(rc, DL_ECANCELLED);
			cancelled++;
			char *after = tree(t);
			assert_string_equal(before, after);
			dl_free(after);
		}
		/* classic: before part 0 is published (after the row group of its
		 * non-file actions, and at its close); V2: after sidecars were too */
		assert_int_equal(cancelled, k == 0 ? 2 : 3);
		recorder r = {0};
		dl_checkpoint_options o = DL_CHECKPOINT_OPTIONS_INIT;
		o.progress = record;
		o.progress_payload = &r;
		dl_checkpoint_result res;
		assert_int_equal(dl_checkpoint(&res, snap, &o), 0);
		assert_int_equal(res.version, 3);
		assert_int_equal(res.v2, k == 1);
		assert_string_equal(r.ops, "checkpoint");
		assert_int_equal(r.last.done, res.actions);
		assert_int_equal(r.last.total, res.actions);
		dl_snapshot_free(snap);
		/* snapshots without files or tombstones cannot be checkpointed */
		dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
		so.skip_tombstones = true;
		assert_int_equal(dl_snapshot_open(&snap, t, &so), 0);
		assert_int_equal(dl_checkpoint(&res, snap, NULL), DL_EINVALID);
		dl_snapshot_free(snap);
		so = (dl_snapshot_options)DL_SNAPSHOT_OPTIONS_INIT;
		so.metadata_only = true;
		assert_int_equal(dl_snapshot_open(&snap, t, &so), 0);
		assert_int_equal(dl_checkpoint(&res, snap, NULL), DL_EINVALID);
		/* cleanup: cancelled before its first deletion changes nothing */
		/* commits made three days ago, kept for no time: all expired */
		age_log(t, 3);
		char *ck = tree(t);
		recorder c = {.cancel_at = 1};
		dl_log_cleanup_options lo = DL_LOG_CLEANUP_OPTIONS_INIT;
		lo.retention_ms = 0;
		lo.progress = record;
		lo.progress_payload = &c;
		dl_log_cleanup_result cr;
		assert_int_equal(dl_log_cleanup(&cr, snap, &lo), DL_ECANCELLED);
		char *after = tree(t);
		assert_string_equal(ck, after);
		dl_free(after);
		recorder all = {0};
		lo.progress_payload = &all;
		assert_int_equal(dl_log_cleanup(&cr, snap, &lo), 0);
		assert_int_equal(cr.cutoff_checkpoint, 3);
		assert_int_equal(cr.deleted_commits, 3);
		assert_string_equal(all.ops, "log cleanup");
		assert_int_equal(all.last.done, all.last.total);
		assert_true(all.last.total >= 3);
		lo.retention = "a fortnight";
		assert_int_equal(dl_log_cleanup(&cr, snap, &lo), DL_EINVALID);
		assert_non_null(strstr(dl_error_last()->message, "a fortnight"));
		dl_snapshot_free(snap);
		dl_free(ck);
		dl_free(before);
		drop_table(base, t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(write_reports_rows_then_commit),
		cmocka_unit_test(cancelled_write_leaves_the_table_unchanged),
		cmocka_unit_test(cancelled_transaction_write_joins_nothing),
		cmocka_unit_test(version_1_options_are_read_as_far_as_they_go),
		cmocka_unit_test(scan_reports_files_and_cancels),
		cmocka_unit_test(cancelled_checkpoint_leaves_the_log_unchanged),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	dl_buf_free(&tree_buf);
	return rc;
}
