/* Failure walks, as SQLite tests itself: a command runs once to count its
 * allocations (util/mem_fault.h) or its store calls (fault://), then again
 * from the same table with the 1st, 2nd, ... nth of them failing, until
 * past the last. After every run:
 *  - no crash (and, under ASan, no leak: LeakSanitizer checks at exit);
 *  - when the failure hit before the command's commit: it returned the
 *    injected error (DL_ENOMEM, or the store's DL_EIO) and every file under
 *    the table directory is byte-identical to before, with no stray file:
 *    not even the store's hidden temporaries (".<name>.<random>.tmp", which
 *    the file store removes when a write fails), the only temporaries the
 *    protocol's writers make;
 *  - when it hit after the commit (checksum, checkpoint, _last_checkpoint:
 *    post-commit work): the command succeeded and the table holds its
 *    result (the command's check).
 * A command whose effect is not one commit (VACUUM: START, deletes, END)
 * names the partial states it allows (fw_cmd.partial_ok).
 *
 * `make test` walks a bounded sample of the failure points (every store
 * call, and up to FW_SAMPLE allocations spread over the whole command);
 * DL_TORTURE=1 (`make torture`) walks every one. */
#ifndef DL_TEST_FAIL_WALK_H
#define DL_TEST_FAIL_WALK_H
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "ops_fixture.h"
#include "deltalake/store.h"
#include "storage/store_fault.h"
#include "util/error.h"
#include "util/mem_fault.h"

#define FW_SAMPLE 120

/* ---- the bytes of a directory tree ---- */

typedef struct fw_file {
	char *path; /* relative */
	char *data;
	size_t len;
} fw_file;

typedef struct fw_tree {
	fw_file *files;
	size_t n;
} fw_tree;

static inline void fw_tree_add(fw_tree *t, const char *root, const char *rel)
{
	char full[2048];
	snprintf(full, sizeof full, "%s/%s", root, rel);
	DIR *d = opendir(full);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d))) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
			char sub[2048];
			snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
			fw_tree_add(t, root, sub);
		}
		closedir(d);
		return;
	}
	FILE *f = fopen(full, "rb");
	assert_non_null(f);
	char *data = NULL;
	size_t len = 0, cap = 0, k;
	char chunk[8192];
	while ((k = fread(chunk, 1, sizeof chunk, f)) > 0) {
		if (len + k > cap) data = realloc(data, cap = (len + k) * 2);
		memcpy(data + len, chunk, k);
		len += k;
	}
	fclose(f);
	t->files = realloc(t->files, (t->n + 1) * sizeof *t->files);
	t->files[t->n].path = strdup(rel);
	t->files[t->n].len = len;
	t->files[t->n].data = data;
	t->n++;
}

static inline int fw_cmp_file(const void *a, const void *b)
{
	return strcmp(((const fw_file *)a)->path, ((const fw_file *)b)->path);
}

/* Plain malloc: the harness's own memory is never counted or failed. */
static inline fw_tree fw_tree_read(const char *root)
{
	fw_tree t = {NULL, 0};
	fw_tree_add(&t, root, "");
	if (t.n) qsort(t.files, t.n, sizeof *t.files, fw_cmp_file);
	return t;
}

static inline void fw_tree_free(fw_tree *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->files[i].path);
		free(t->files[i].data);
	}
	free(t->files);
	t->files = NULL;
	t->n = 0;
}

static inline const fw_file *fw_tree_find(const fw_tree *t, const char *path)
{
	fw_file key = {(char *)path, NULL, 0};
	return t->n ? bsearch(&key, t->files, t->n, sizeof *t->files, fw_cmp_file) : NULL;
}

static inline bool fw_file_same(const fw_file *a, const fw_file *b)
{
	return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

/* NULL when equal, else the first difference (static text). */
static inline const char *fw_tree_diff(const fw_tree *a, const fw_tree *b)
{
	static char why[2200];
	size_t i = 0, j = 0;
	while (i < a->n || j < b->n) {
		int c = i == a->n ? 1 : j == b->n ? -1 : strcmp(a->files[i].path, b->files[j].path);
		if (c < 0) {
			snprintf(why, sizeof why, "%s is gone", a->files[i].path);
			return why;
		}
		if (c > 0) {
			snprintf(why, sizeof why, "stray file %s", b->files[j].path);
			return why;
		}
		if (!fw_file_same(&a->files[i], &b->files[j])) {
			snprintf(why, sizeof why, "%s changed", a->files[i].path);
			return why;
		}
		i++, j++;
	}
	return NULL;
}

static inline void fw_sh(const char *fmt, const char *a, const char *b)
{
	char cmd[4096];
	snprintf(cmd, sizeof cmd, fmt, a, b);
	assert_int_equal(system(cmd), 0);
}

/* The newest N.json in dir/_delta_log, read from the directory itself (not
 * through the library: the walk judges the library). -1: none. */
static inline int64_t fw_log_version(const char *dir)
{
	char p[2048];
	snprintf(p, sizeof p, "%s/_delta_log", dir);
	DIR *d = opendir(p);
	if (!d) return -1;
	int64_t v = -1;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n != 25 || strcmp(e->d_name + 20, ".json") != 0) continue;
		int64_t x = strtoll(e->d_name, NULL, 10);
		if (x > v) v = x;
	}
	closedir(d);
	return v;
}

/* ---- the command ---- */

typedef struct fw_cmd {
	const char *name;
	/* Builds the table the command starts from (no faults). */
	void (*setup)(const char *dir);
	/* The command's input, made before each run outside the walk (NULL
	 * function: none) and released after it. */
	void *(*prepare)(void);
	void (*release)(void *input);
	/* The command on the table at dir through `store` (a store of dir:
	 * file:// or fault://file://). Returns its result. */
	int (*run)(const char *dir, dl_store *store, void *input);
	/* After a success: the table holds the command's result (fail_msg
	 * otherwise, naming `what`). */
	void (*check_done)(const char *dir, const char *what);
	/* The version a success commits; -1: the command commits nothing (the
	 * table stays at its version, e.g. CHECKPOINT). */
	int64_t done_version;
	/* A partial state a failure may leave, for a command that is not one
	 * commit: NULL when `after` is one, else why not. NULL function: none. */
	const char *(*partial_ok)(const fw_tree *before, const fw_tree *done, const fw_tree *after,
	                          const char *dir);
	/* A read (snapshot open, scan): it changes nothing, so a success with
	 * the table unchanged is right; its run checks what it read. */
	bool read_only;
} fw_cmd;

typedef enum { FW_ALLOC, FW_STORE } fw_mode;

typedef struct fw_stats {
	int64_t points;    /* failure points the command has (counted) */
	int64_t walked;    /* runs with a failure injected */
	int64_t refused;   /* the command failed and changed nothing */
	int64_t committed; /* the failure was after the commit */
	int64_t partial;   /* an allowed partial state (partial_ok) */
} fw_stats;

static inline bool fw_torture(void)
{
	const char *t = getenv("DL_TORTURE");
	return t && *t && strcmp(t, "0") != 0;
}

/* One run of the command in dir. nth 0: count only. */
static inline int fw_run_once(const fw_cmd *c, fw_mode mode, const char *dir, int64_t nth,
                              int64_t *calls, int64_t *injected)
{
	char uri[1200];
	dl_store_options so = DL_STORE_OPTIONS_INIT;
	char n[32];
	snprintf(n, sizeof n, "%lld", (long long)nth);
	const char *keys[] = {"fault.fail_nth", "fault.error"};
	const char *values[] = {n, "eio"};
	if (mode == FW_STORE) {
		snprintf(uri, sizeof uri, "fault://file://%s", dir);
		so.keys = keys, so.values = values, so.noptions = 2;
	} else {
		snprintf(uri, sizeof uri, "file://%s", dir);
	}
	dl_store *st;
	assert_int_equal(dl_store_open(&st, uri, &so), 0);
	if (mode == FW_STORE) assert_int_equal(dl_store_fault_counts_reset(st), 0);
	void *input = c->prepare ? c->prepare() : NULL;
	dl_error_clear();
	if (mode == FW_ALLOC) dl_mem_fault_arm(nth, 1);
	int rc = c->run(dir, st, input);
	if (mode == FW_ALLOC) {
		dl_mem_fault_disarm(calls, injected);
	} else {
		dl_store_fault_counts fc;
		assert_int_equal(dl_store_fault_counts_get(&fc, st), 0);
		*calls = fc.total;
		*injected = fc.injected;
	}
	char keep[1024];
	snprintf(keep, sizeof keep, "%s", dl_error_last()->message);
	if (c->release) c->release(input);
	dl_store_free(st);
	dl_error_set(rc, "%s", keep); /* the command's error, for the report */
	return rc;
}

/* The failure points to walk: all of 1..total+2 (a failure can add calls:
 * cleanup), or under make test a sample: the first and last 20 and an
 * even spread between. */
static inline bool fw_pick(int64_t n, int64_t total)
{
	if (fw_torture() || total + 2 <= FW_SAMPLE) return true;
	if (n <= 20 || n > total - 20) return true;
	int64_t stride = (total - 40) / (FW_SAMPLE - 40) + 1;
	return (n - 20) % stride == 0;
}

static inline fw_stats fw_walk(const fw_cmd *c, fw_mode mode)
{
	const char *mname = mode == FW_ALLOC ? "allocation" : "store call";
	char tmpl[] = "/dev/shm/dl-fail-walk-XXXXXX";
	char *tmp = access("/dev/shm", W_OK) == 0 && mkdtemp(tmpl) ? strdup(tmpl) : NULL;
	if (!tmp) {
		char *t = fx_tmpdir();
		tmp = strdup(t);
		dl_free(t);
	}
	char base[1024], work[1024];
	snprintf(base, sizeof base, "%s/base", tmp);
	snprintf(work, sizeof work, "%s/work", tmp);
	c->setup(base);
	int64_t v0 = fw_log_version(base);
	fw_tree before = fw_tree_read(base);

	/* counting run */
	fw_sh("cp -a '%s' '%s'", base, work);
	int64_t total = 0, inj = 0;
	int rc = fw_run_once(c, mode, work, 0, &total, &inj);
	if (rc < 0) fail_msg("%s: the command without faults failed: %s", c->name, dl_error_last()->message);
	c->check_done(work, c->name);
	fw_tree done = fw_tree_read(work);
	assert_true(total > 0);
	if (c->read_only && fw_tree_diff(&before, &done))
		fail_msg("%s: a read changed the table: %s", c->name, fw_tree_diff(&before, &done));

	fw_stats s = {total, 0, 0, 0, 0};
	bool dirty = true;
	for (int64_t n = 1; n <= total + 2; n++) {
		if (!fw_pick(n, total)) continue;
		if (dirty) {
			fw_sh("rm -rf '%s'%s", work, "");
			fw_sh("cp -a '%s' '%s'", base, work);
			dirty = false;
		}
		int64_t calls = 0;
		rc = fw_run_once(c, mode, work, n, &calls, &inj);
		char what[512], err[1100];
		snprintf(err, sizeof err, "%s", rc < 0 ? dl_error_last()->message : "(success)");
		snprintf(what, sizeof what, "%s, %s %lld of %lld failing", c->name, mname, (long long)n,
		         (long long)total);
		if (inj == 0) {
			/* past the last point: a run like the counting one */
			if (rc < 0) fail_msg("%s: failed with nothing injected: %s", what, err);
			c->check_done(work, what);
			dirty = true;
			continue;
		}
		s.walked++;
		int64_t v = fw_log_version(work);
		fw_tree after = fw_tree_read(work);
		const char *diff = fw_tree_diff(&before, &after);
		if (!diff && rc >= 0 && c->read_only) {
			s.committed++; /* a failure the read recovered from (a retry, a fallback) */
		} else if (!diff) {
			if (rc >= 0) fail_msg("%s: reported success but did nothing", what);
			int want = mode == FW_ALLOC ? DL_ENOMEM : DL_EIO;
			if (rc != want)
				fail_msg("%s: returned %d, not the injected error %d: %s", what, rc, want, err);
			s.refused++;
		} else if (rc >= 0) {
			/* committed; a failure of the post-commit work is not the
			 * command's failure (it is a warning) */
			if (c->done_version >= 0 && v != c->done_version)
				fail_msg("%s: succeeded at version %lld, not %lld", what, (long long)v,
				         (long long)c->done_version);
			c->check_done(work, what);
			s.committed++;
			dirty = true;
		} else if (!c->partial_ok && v == c->done_version) {
			fail_msg("%s: committed version %lld but failed: %s", what, (long long)v, err);
		} else {
			const char *why = c->partial_ok ? c->partial_ok(&before, &done, &after, work) : diff;
			if (why) fail_msg("%s (%s) left the table changed: %s (at version %lld, started at %lld)",
			                  what, err, why, (long long)v, (long long)v0);
			s.partial++;
			dirty = true;
		}
		fw_tree_free(&after);
	}
	fprintf(stderr, "%s: %lld %ss, %lld walked: %lld refused, %lld committed, %lld partial\n",
	        c->name, (long long)total, mname, (long long)s.walked, (long long)s.refused,
	        (long long)s.committed, (long long)s.partial);
	assert_true(s.refused > 0);
	fw_tree_free(&before);
	fw_tree_free(&done);
	fw_sh("rm -rf '%s'%s", tmp, "");
	free(tmp);
	return s;
}

/* Both walks of a command. */
static inline void fw_walk_both(const fw_cmd *c)
{
	fw_walk(c, FW_STORE);
	fw_walk(c, FW_ALLOC);
}

/* One thread: "the nth allocation" must be the same call in every run. */
static inline void fw_init(void)
{
	setenv("DL_THREADS", "1", 1);
}

#endif
