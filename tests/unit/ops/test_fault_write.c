/* The whole write/commit path over a failing store (fault://): a write is
 * run once to count its store calls, then again from the same table with
 * call N failing, for every N and each kind of failure (EIO, ENOSPC, a torn
 * write). Afterwards the table is either committed completely (the new
 * version exists, is readable and has all rows, and the write reported
 * success: failures after the commit - checksum, checkpoint - do not fail
 * it, see write.h) or exactly as it was: every file under the table
 * directory, hidden temp files included, byte-identical, and the write
 * reported the failure. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "ops_fixture.h"
#include "deltalake/write.h"
#include "storage/store_fault.h"
#include "util/error.h"

/* ---- the bytes of a directory tree ---- */

typedef struct file_copy {
	char *path; /* relative */
	char *data;
	size_t len;
} file_copy;

typedef struct tree {
	file_copy *files;
	size_t n;
} tree;

static void tree_add(tree *t, const char *root, const char *rel)
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
			tree_add(t, root, sub);
		}
		closedir(d);
		return;
	}
	FILE *f = fopen(full, "rb");
	assert_non_null(f);
	dl_buf b = DL_BUF_INIT;
	char chunk[8192];
	size_t k;
	while ((k = fread(chunk, 1, sizeof chunk, f)) > 0) dl_buf_append(&b, chunk, k);
	fclose(f);
	t->files = realloc(t->files, (t->n + 1) * sizeof *t->files);
	t->files[t->n].path = strdup(rel);
	t->files[t->n].len = b.len;
	t->files[t->n].data = b.data;
	t->n++;
}

static int cmp_file(const void *a, const void *b)
{
	return strcmp(((const file_copy *)a)->path, ((const file_copy *)b)->path);
}

static tree tree_read(const char *root)
{
	tree t = {NULL, 0};
	tree_add(&t, root, "");
	qsort(t.files, t.n, sizeof *t.files, cmp_file);
	return t;
}

static void tree_free(tree *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->files[i].path);
		dl_free(t->files[i].data);
	}
	free(t->files);
}

/* NULL when equal, else the first difference (static text). */
static const char *tree_diff(const tree *a, const tree *b)
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
		if (a->files[i].len != b->files[j].len ||
		    (a->files[i].len && memcmp(a->files[i].data, b->files[j].data, a->files[i].len) != 0)) {
			snprintf(why, sizeof why, "%s changed", a->files[i].path);
			return why;
		}
		i++, j++;
	}
	return NULL;
}

static void run_cmd(const char *fmt, const char *a, const char *b)
{
	char cmd[4096];
	snprintf(cmd, sizeof cmd, fmt, a, b);
	assert_int_equal(system(cmd), 0);
}

/* ---- the scenarios ---- */

typedef struct scenario {
	const char *name;
	const char *properties; /* "k=v" or NULL */
	dl_write_mode mode;
	const char *rows;       /* written by the operation */
	const char *expected;   /* all rows after it */
} scenario;

static const char *ddl = "id BIGINT, p STRING";

/* The table before the operation: version 0 (create) and 1 (one append). */
static void make_base(const char *dir, const scenario *sc)
{
	dl_create_options co = DL_CREATE_OPTIONS_INIT;
	co.schema_ddl = ddl;
	const char *parts[] = {"p"};
	co.partition_columns = parts;
	co.npartition_columns = 1;
	char key[128] = "", value[128] = "";
	const char *keys[1] = {key}, *values[1] = {value};
	if (sc->properties) {
		const char *eq = strchr(sc->properties, '=');
		snprintf(key, sizeof key, "%.*s", (int)(eq - sc->properties), sc->properties);
		snprintf(value, sizeof value, "%s", eq + 1);
		co.property_keys = keys;
		co.property_values = values;
		co.nproperties = 1;
	}
	int64_t v;
	assert_int_equal(dl_create_table(&v, dir, &co), 0);
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	assert_int_equal(fx_write(&v, dir, ddl, "1,a;2,b", &o), 0);
	assert_int_equal(v, 1);
}

/* The operation over fault://file://dir with the given fault options;
 * returns the write's result. */
static int operate(const char *dir, const scenario *sc, const char *const *kv, int nkv,
                   dl_store_fault_counts *counts)
{
	char uri[1200];
	snprintf(uri, sizeof uri, "fault://file://%s", dir);
	const char *keys[8], *values[8];
	for (int i = 0; i < nkv; i++) keys[i] = kv[2 * i], values[i] = kv[2 * i + 1];
	dl_store_options so = DL_STORE_OPTIONS_INIT;
	so.keys = keys, so.values = values, so.noptions = nkv;
	dl_store *st;
	assert_int_equal(dl_store_open(&st, uri, &so), 0);
	dl_write_options o = fx_opts(sc->mode);
	o.store = st;
	int64_t v = -1;
	int rc = fx_write(&v, NULL, ddl, sc->rows, &o);
	if (rc == 0) assert_int_equal(v, 2);
	if (counts) assert_int_equal(dl_store_fault_counts_get(counts, st), 0);
	dl_store_free(st);
	return rc;
}

static void check_committed(const char *dir, const scenario *sc, const char *what)
{
	char *rows = fx_read(dir, -1, "id,p");
	if (!rows || strcmp(rows, sc->expected) != 0)
		fail_msg("%s: version 2 exists but reads as \"%s\" (%s), expected \"%s\"", what,
		         rows ? rows : "(error)", rows ? "" : dl_error_last()->message, sc->expected);
	dl_free(rows);
}

static void run_scenario(const scenario *sc)
{
	/* tmpfs when there is one: hundreds of runs, each with fsyncs */
	char tmpl[] = "/dev/shm/dl-fault-write-XXXXXX";
	char *tmp = access("/dev/shm", W_OK) == 0 && mkdtemp(tmpl) ? dl_strdup(tmpl) : fx_tmpdir();
	char base[1024], work[1024];
	snprintf(base, sizeof base, "%s/base", tmp);
	snprintf(work, sizeof work, "%s/work", tmp);
	make_base(base, sc);
	tree before = tree_read(base);

	/* counting run */
	run_cmd("cp -a '%s' '%s'", base, work);
	dl_store_fault_counts c;
	int rc = operate(work, sc, NULL, 0, &c);
	if (rc < 0) fail_msg("%s: the write without faults failed: %s", sc->name, dl_error_last()->message);
	check_committed(work, sc, sc->name);
	assert_true(c.total > 5);
	assert_true(c.calls[DL_FAULT_PUT_IF_ABSENT] >= 1);
	run_cmd("rm -rf '%s'%s", work, "");

	/* error; ENOSPC; a torn write; a write that happened but reports EIO;
	 * that and the next call failing too (the read-back of the commit) */
	static const char *const modes[][6] = {
		{"fault.error", "eio", "fault.torn_write", "false", "fault.fail_times", "1"},
		{"fault.error", "enospc", "fault.torn_write", "false", "fault.fail_times", "1"},
		{"fault.error", "enospc", "fault.torn_write", "true", "fault.fail_times", "1"},
		{"fault.error", "eio", "fault.fail_after", "true", "fault.fail_times", "1"},
		{"fault.error", "eio", "fault.fail_after", "true", "fault.fail_times", "2"},
	};
	int committed = 0, refused = 0;
	/* a few calls more than counted: a failure can add calls (cleanup) */
	for (int64_t n = 1; n <= c.total + 2; n++) {
		for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
			char nth[32];
			snprintf(nth, sizeof nth, "%lld", (long long)n);
			const char *kv[] = {modes[m][0], modes[m][1], modes[m][2], modes[m][3],
			                    modes[m][4], modes[m][5], "fault.fail_nth", nth};
			run_cmd("cp -a '%s' '%s'", base, work);
			dl_store_fault_counts fc;
			rc = operate(work, sc, kv, 4, &fc);
			char what[256], err[1024];
			snprintf(err, sizeof err, "%s", dl_error_last()->message);
			snprintf(what, sizeof what, "%s, call %lld failing (%s %s=%s, %s times)", sc->name, (long long)n,
			         modes[m][1], modes[m][2], modes[m][3], modes[m][5]);
			int64_t v = fx_version(work);
			if (v == 2) {
				/* committed: it must say so (or, when even reading the
				 * commit back failed, say that it may have) and hold
				 * everything */
				if (rc < 0 && !strstr(err, "may have been committed"))
					fail_msg("%s: version 2 was committed but the write failed: %s", what, err);
				check_committed(work, sc, what);
				committed++;
			} else {
				if (v != 1) fail_msg("%s: the table is at version %lld", what, (long long)v);
				if (rc == 0) fail_msg("%s: the write reported success but nothing was committed", what);
				if (fc.injected == 0) fail_msg("%s: failed without an injected fault: %s", what, err);
				tree after = tree_read(work);
				const char *diff = tree_diff(&before, &after);
				if (diff) fail_msg("%s: the failed write left the table changed: %s", what, diff);
				tree_free(&after);
				refused++;
			}
			run_cmd("rm -rf '%s'%s", work, "");
		}
	}
	fprintf(stderr, "%s: %lld calls, %d committed, %d refused\n", sc->name, (long long)c.total, committed, refused);
	/* both outcomes were seen: the loop covered the commit and after it */
	assert_true(committed > 0);
	assert_true(refused > 0);
	tree_free(&before);
	run_cmd("rm -rf '%s'%s", tmp, "");
	dl_free(tmp);
}

static void append_two_partitions(void **state)
{
	(void)state;
	scenario sc = {"append", NULL, DL_WRITE_APPEND, "3,a;4,c", "1,a;2,b;3,a;4,c"};
	run_scenario(&sc);
}

/* Version 2 is a checkpoint version: checksum, checkpoint and
 * _last_checkpoint run after the commit. */
static void append_with_checkpoint(void **state)
{
	(void)state;
	scenario sc = {"append+checkpoint", "delta.checkpointInterval=2", DL_WRITE_APPEND, "3,a;4,c",
	               "1,a;2,b;3,a;4,c"};
	run_scenario(&sc);
}

static void overwrite(void **state)
{
	(void)state;
	scenario sc = {"overwrite", NULL, DL_WRITE_OVERWRITE, "5,z", "5,z"};
	run_scenario(&sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(append_two_partitions),
		cmocka_unit_test(append_with_checkpoint),
		cmocka_unit_test(overwrite),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
