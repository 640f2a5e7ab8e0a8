/* Transactions across processes on a local table: 8 writers appending 50
 * commits each land 400 contiguous versions with every file present (and
 * the automatic checkpoints along the way); racing deletes of one file
 * give one winner and DELTA_CONCURRENT_DELETE_* errors; writers SIGKILLed at
 * random moments never leave a partial or unreadable table and never lose
 * a commit they reported. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "deltalake/snapshot.h"
#include "log/log_segment.h"
#include "log/snapshot.h"
#include "txn/txn.h"
#include "util/error.h"
#include "util/mem.h"

static const char *SCHEMA =
	"{\"type\":\"struct\",\"fields\":[{\"name\":\"x\",\"type\":\"long\",\"nullable\":true,"
	"\"metadata\":{}}]}";

static void rm_rf(const char *dir)
{
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

static char *make_table(const char *interval)
{
	char tmpl[] = "/tmp/dl-txn-conc-XXXXXX";
	char *dir = mkdtemp(tmpl);
	assert_non_null(dir);
	dir = strdup(dir);
	dl_store *s;
	assert_int_equal(dl_store_open(&s, dir, NULL), 0);
	dl_transaction *t;
	dl_txn_options o = DL_TXN_OPTIONS_INIT;
	o.operation = "CREATE TABLE";
	assert_int_equal(dl_txn_begin(&t, s, NULL, &o), 0);
	dl_protocol p = {1, 2, NULL, 0, NULL, 0};
	dl_kv kv = {"delta.checkpointInterval", interval};
	dl_metadata m = {.id = "c0c0c0c0-0000-4000-8000-000000000000", .schema_string = SCHEMA,
	                 .created_time = DL_NONE, .configuration = {&kv, 1}};
	assert_int_equal(dl_txn_set_protocol(t, &p), 0);
	assert_int_equal(dl_txn_set_metadata(t, &m), 0);
	int64_t v;
	assert_int_equal(dl_txn_commit(t, &v), 0);
	dl_txn_free(t);
	dl_store_free(s);
	return dir;
}

/* One blind append of `path` as a writer process would do it: read the
 * latest metadata, add, commit. Returns the version or a negative code. */
static int64_t append_one(dl_store *s, const char *path)
{
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	so.store = s;
	so.metadata_only = true;
	dl_snapshot *snap;
	int rc = dl_snapshot_open(&snap, NULL, &so);
	if (rc < 0) return rc;
	dl_transaction *t;
	dl_txn_options o = DL_TXN_OPTIONS_INIT;
	rc = dl_txn_begin(&t, s, snap, &o);
	if (rc < 0) {
		dl_snapshot_free(snap);
		return rc;
	}
	dl_add a = {.path = path, .size = 10, .modification_time = 1, .data_change = true,
	            .stats = "{\"numRecords\":1}", .stats_len = 16, .base_row_id = DL_NONE,
	            .default_row_commit_version = DL_NONE};
	int64_t v = -1;
	rc = dl_txn_add_file(t, &a);
	if (rc == 0) rc = dl_txn_set_metric(t, "numOutputRows", 1);
	if (rc == 0) rc = dl_txn_commit(t, &v);
	dl_txn_free(t);
	dl_snapshot_free(snap);
	return rc < 0 ? rc : v;
}

static void check_contiguous(dl_store *s, int64_t want_last)
{
	dl_log_file *files;
	size_t n;
	assert_int_equal(dl_log_list_commits(s, &files, &n), 0);
	assert_int_equal((int64_t)n, want_last + 1);
	for (size_t i = 0; i < n; i++) assert_int_equal(files[i].version, (int64_t)i);
	dl_log_files_free(files, n);
}

static void test_eight_writers(void **state)
{
	(void)state;
	enum { WRITERS = 8, COMMITS = 50 };
	char *dir = make_table("10");
	pid_t pids[WRITERS];
	for (int w = 0; w < WRITERS; w++) {
		pids[w] = fork();
		assert_true(pids[w] >= 0);
		if (pids[w] == 0) {
			dl_store *s;
			if (dl_store_open(&s, dir, NULL) < 0) _exit(2);
			for (int i = 0; i < COMMITS; i++) {
				char path[64];
				snprintf(path, sizeof path, "w%d-%02d.parquet", w, i);
				if (append_one(s, path) < 0) {
					fprintf(stderr, "writer %d: %s\n", w, dl_error_last()->message);
					_exit(1);
				}
			}
			dl_store_free(s);
			_exit(0);
		}
	}
	for (int w = 0; w < WRITERS; w++) {
		int st;
		assert_int_equal(waitpid(pids[w], &st, 0), pids[w]);
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 0);
	}
	dl_store *s;
	assert_int_equal(dl_store_open(&s, dir, NULL), 0);
	check_contiguous(s, WRITERS * COMMITS);
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	so.store = s;
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, NULL, &so), 0);
	assert_int_equal(dl_snapshot_version(snap), WRITERS * COMMITS);
	assert_int_equal(dl_snapshot_file_count(snap), WRITERS * COMMITS);
	/* every writer's every file, once */
	static char seen[WRITERS][COMMITS];
	memset(seen, 0, sizeof seen);
	for (size_t i = 0; i < dl_snapshot_file_count(snap); i++) {
		dl_file_info f;
		assert_int_equal(dl_snapshot_file_at(&f, snap, i), 0);
		int w, c;
		assert_int_equal(sscanf(f.path, "w%d-%d.parquet", &w, &c), 2);
		assert_false(seen[w][c]);
		seen[w][c] = 1;
	}
	/* the newest automatic checkpoint is the last multiple of 10 */
	assert_int_equal(snap->segment.checkpoint_version, WRITERS * COMMITS);
	dl_snapshot_free(snap);
	dl_last_checkpoint lc;
	assert_int_equal(dl_last_checkpoint_read(s, &lc), 0);
	assert_int_equal(lc.version, WRITERS * COMMITS);
	assert_int_equal(lc.num_of_add_files, WRITERS * COMMITS);
	dl_store_free(s);
	rm_rf(dir);
	free(dir);
}

/* Four processes delete the same file after reading it: one wins, the
 * others fail with a DELTA_CONCURRENT_DELETE_* class and change nothing. */
static void test_racing_deletes(void **state)
{
	(void)state;
	enum { RACERS = 4 };
	char *dir = make_table("100");
	dl_store *s;
	assert_int_equal(dl_store_open(&s, dir, NULL), 0);
	assert_int_equal(append_one(s, "victim.parquet"), 1);
	dl_store_free(s);
	/* pipefd releases the racers; readyfd tells the parent each one has read
	 * version 1 (a racer that only opened its snapshot after another's
	 * delete landed would not be racing at all). */
	int pipefd[2], readyfd[2];
	assert_int_equal(pipe(pipefd), 0);
	assert_int_equal(pipe(readyfd), 0);
	pid_t pids[RACERS];
	for (int r = 0; r < RACERS; r++) {
		pids[r] = fork();
		assert_true(pids[r] >= 0);
		if (pids[r] != 0) continue;
		close(pipefd[1]);
		close(readyfd[0]);
		dl_store *cs;
		dl_snapshot *snap;
		dl_transaction *t;
		dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
		if (dl_store_open(&cs, dir, NULL) < 0) _exit(2);
		so.store = cs;
		if (dl_snapshot_open(&snap, NULL, &so) < 0 || dl_txn_begin(&t, cs, snap, NULL) < 0) _exit(2);
		dl_txn_read_file(t, "victim.parquet");
		dl_remove rm = {.path = "victim.parquet", .deletion_timestamp = 5, .data_change = true,
		                .size = 10, .base_row_id = DL_NONE, .default_row_commit_version = DL_NONE};
		dl_txn_remove_file(t, &rm);
		char c = 'r';
		if (write(readyfd[1], &c, 1) != 1) _exit(2);
		if (read(pipefd[0], &c, 1) != 0) _exit(2); /* start together */
		int64_t v;
		int rc = dl_txn_commit(t, &v);
		if (rc == 0) _exit(0);
		const char *k = dl_error_last()->klass;
		_exit(rc == DL_ECONFLICT && (strcmp(k, "DELTA_CONCURRENT_DELETE_READ") == 0 ||
		                             strcmp(k, "DELTA_CONCURRENT_DELETE_DELETE") == 0) ? 10 : 1);
	}
	close(pipefd[0]);
	close(readyfd[1]);
	for (int r = 0; r < RACERS; r++) {
		char c;
		assert_int_equal(read(readyfd[0], &c, 1), 1);
	}
	close(readyfd[0]);
	close(pipefd[1]); /* releases all racers at once */
	int won = 0, lost = 0;
	for (int r = 0; r < RACERS; r++) {
		int st;
		assert_int_equal(waitpid(pids[r], &st, 0), pids[r]);
		assert_true(WIFEXITED(st));
		if (WEXITSTATUS(st) == 0) won++;
		else if (WEXITSTATUS(st) == 10) lost++;
	}
	assert_int_equal(won, 1);
	assert_int_equal(lost, RACERS - 1);
	assert_int_equal(dl_store_open(&s, dir, NULL), 0);
	check_contiguous(s, 2);
	dl_store_free(s);
	rm_rf(dir);
	free(dir);
}

/* Writers commit in a loop and report each committed version and file on
 * a pipe; they are killed at random moments (during commits, .crc writes,
 * checkpoints every 3 versions). Afterwards every version is readable,
 * contiguous, and holds every reported file. */
static void test_sigkill(void **state)
{
	(void)state;
	enum { ROUNDS = 12, WRITERS = 3, MAX_REPORTS = 4096 };
	char *dir = make_table("3");
	static char reported[MAX_REPORTS][48];
	int nreported = 0;
	srand((unsigned)time(NULL));
	for (int round = 0; round < ROUNDS; round++) {
		int pipefd[2];
		assert_int_equal(pipe(pipefd), 0);
		pid_t pids[WRITERS];
		for (int w = 0; w < WRITERS; w++) {
			pids[w] = fork();
			assert_true(pids[w] >= 0);
			if (pids[w] != 0) continue;
			close(pipefd[0]);
			dl_store *s;
			if (dl_store_open(&s, dir, NULL) < 0) _exit(2);
			for (int i = 0;; i++) {
				char path[48], line[96];
				snprintf(path, sizeof path, "r%02d-w%d-%04d.parquet", round, w, i);
				int64_t v = append_one(s, path);
				if (v < 0) _exit(1);
				int n = snprintf(line, sizeof line, "%lld %s\n", (long long)v, path);
				if (write(pipefd[1], line, (size_t)n) != n) _exit(3);
			}
		}
		close(pipefd[1]);
		struct timespec ts = {0, (long)(5 + rand() % 60) * 1000000L};
		nanosleep(&ts, NULL);
		for (int w = 0; w < WRITERS; w++) {
			struct timespec gap = {0, (long)(rand() % 3000) * 1000L};
			nanosleep(&gap, NULL);
			kill(pids[w], SIGKILL);
		}
		for (int w = 0; w < WRITERS; w++) {
			int st;
			assert_int_equal(waitpid(pids[w], &st, 0), pids[w]);
			/* killed, never failed on its own */
			assert_true(WIFSIGNALED(st) || (WIFEXITED(st) && WEXITSTATUS(st) == 0));
		}
		FILE *f = fdopen(pipefd[0], "r");
		char line[96];
		while (fgets(line, sizeof line, f) && nreported < MAX_REPORTS) {
			long long v;
			char path[48];
			if (sscanf(line, "%lld %47s", &v, path) == 2) /* a torn last line is not a report */
				snprintf(reported[nreported++], sizeof reported[0], "%s", path);
		}
		fclose(f);
	}
	assert_true(nreported > 0);
	dl_store *s;
	assert_int_equal(dl_store_open(&s, dir, NULL), 0);
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	so.store = s;
	dl_snapshot *snap;
	int rc = dl_snapshot_open(&snap, NULL, &so);
	if (rc < 0) fprintf(stderr, "%s\n", dl_error_last()->message);
	assert_int_equal(rc, 0);
	int64_t last = dl_snapshot_version(snap);
	check_contiguous(s, last);
	/* every file in the table was reported or belongs to a commit whose
	 * writer died before reporting it; every reported one is there */
	assert_true((int64_t)dl_snapshot_file_count(snap) >= nreported);
	assert_int_equal((int64_t)dl_snapshot_file_count(snap), last);
	for (int i = 0; i < nreported; i++) {
		bool found = false;
		for (size_t j = 0; j < dl_snapshot_file_count(snap) && !found; j++) {
			dl_file_info fi;
			dl_snapshot_file_at(&fi, snap, j);
			found = strcmp(fi.path, reported[i]) == 0;
		}
		if (!found) fprintf(stderr, "reported commit of %s is missing\n", reported[i]);
		assert_true(found);
	}
	dl_snapshot_free(snap);
	/* every version opens (from whatever checkpoint precedes it) */
	for (int64_t v = 0; v <= last; v++) {
		dl_snapshot_options vo = DL_SNAPSHOT_OPTIONS_INIT;
		vo.store = s;
		vo.as_of_version = v;
		rc = dl_snapshot_open(&snap, NULL, &vo);
		if (rc < 0) fprintf(stderr, "version %lld: %s\n", (long long)v, dl_error_last()->message);
		assert_int_equal(rc, 0);
		assert_int_equal((int64_t)dl_snapshot_file_count(snap), v);
		dl_snapshot_free(snap);
	}
	fprintf(stderr, "sigkill: %d reported commits, %lld versions after %d rounds\n", nreported,
	        (long long)last, ROUNDS);
	dl_store_free(s);
	rm_rf(dir);
	free(dir);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eight_writers),
		cmocka_unit_test(test_racing_deletes),
		cmocka_unit_test(test_sigkill),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
