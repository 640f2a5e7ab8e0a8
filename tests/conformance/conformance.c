/* The conformance runner: every table of $DL_SHARED_DIR/conformance (see
 * its README.md) read through the public API.
 *
 *   golden tables with expected/: the latest version's rows equal the
 *     expected Parquet rows as multisets;
 *   the negative tables: opening or reading fails with the error the
 *     README names;
 *   every other table: read completely, the row count equals what the log
 *     says (numRecords minus deletion vector cardinalities), plus the check
 *     of the feature the table exists for (features.c).
 *
 * Prints "PASS name" or "FAIL name: reason" per table and ends with
 * "N passed, N failed". With --known-failures FILE (lines "name reason"),
 * exits 0 exactly when the failing tables are the listed ones. With --root
 * URI (s3://bucket/conformance, any store) each table is first copied
 * there (once: an existing copy is reused) and read from the copy; the
 * expected rows stay local. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "conformance.h"
#include "deltalake.h"
#include "table/scan.h"
#include "util/error.h"
#include "util/pool.h"

void fail(verdict *v, const char *fmt, ...)
{
	if (!v->pass) return; /* keep the first reason */
	v->pass = false;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(v->reason, sizeof v->reason, fmt, ap);
	va_end(ap);
	for (char *c = v->reason; *c; c++)
		if (*c == '\n') *c = ' ';
}

void fail_error(verdict *v, const char *what)
{
	fail(v, "%s: %s", what, dl_error_last()->message);
}

typedef struct negative {
	const char *name;
	const char *message;
} negative;

static const negative negatives[] = {
	{"golden/deltalog-invalid-protocol-version", "the table needs reader version 99, which is not supported"},
	{"golden/deltalog-state-reconstruction-without-metadata", "no metaData action"},
	{"golden/deltalog-state-reconstruction-without-protocol", "no protocol action"},
	{"golden/deltalog-state-reconstruction-from-checkpoint-missing-metadata", "no metaData action"},
	{"golden/deltalog-state-reconstruction-from-checkpoint-missing-protocol", "no protocol action"},
	{"golden/versions-not-contiguous", "version 1 is missing from the log"},
	{"golden/no-delta-log-folder", "not a Delta table: no _delta_log"},
	/* only a malformed 0.crc and no commit: there is no version to read */
	{"kernel-data/crc-malformed", "_delta_log has no commit"},
};

static const char *negative_message(const char *name)
{
	for (size_t i = 0; i < sizeof negatives / sizeof negatives[0]; i++)
		if (strcmp(negatives[i].name, name) == 0) return negatives[i].message;
	return NULL;
}

/* Opens the latest snapshot and reads every row into `rows` (when not
 * NULL; its columns default to the table's) and counts them. */
static int read_all(const char *dir, rowset *rows, int64_t *count, const char *skip, int *ncols)
{
	dl_snapshot *snap;
	DL_TRY(dl_snapshot_open(&snap, dir, NULL));
	dl_scan *scan = NULL;
	int rc = dl_scan_open(&scan, snap, NULL);
	dl_batch_stream *bs = NULL;
	if (rc == 0) rc = dl_scan_batches(&bs, scan);
	if (rc == 0 && ncols) *ncols = dl_batch_stream_schema(bs)->nchildren;
	if (rc == 0 && rows && !rows->cols) rc = rowset_set_columns(rows, dl_batch_stream_schema(bs));
	*count = 0;
	dl_batch *b;
	while (rc == 0 && (rc = dl_batch_stream_next(bs, &b)) == 0 && b) {
		*count += b->num_rows;
		if (rows) rc = rowset_add_batch(rows, b, skip);
		dl_batch_free(b);
	}
	dl_batch_stream_free(bs);
	dl_scan_free(scan);
	dl_snapshot_free(snap);
	return rc;
}

static void check_expected(verdict *v, const char *name, const char *dir, const char *expected_dir)
{
	/* README quirk: the expected as_timestamp of this table is known to be
	 * off; the partition string's value is right, so the column is not
	 * compared. */
	const char *skip = strcmp(name, "golden/data-reader-partition-values") == 0 ? "as_timestamp" : NULL;
	rowset want = {0}, got = {0};
	if (rowset_read_parquet_dir(&want, expected_dir, skip) < 0) {
		fail_error(v, "reading expected rows");
		rowset_free(&want);
		return;
	}
	/* the table's rows in the expected file's column order */
	got.cols = calloc((size_t)want.ncols + 1, sizeof *got.cols);
	for (int i = 0; got.cols && i < want.ncols; i++) got.cols[i] = strdup(want.cols[i]);
	got.ncols = got.cols ? want.ncols : 0;
	int64_t n;
	int ncols = 0;
	if (read_all(dir, &got, &n, skip, &ncols) < 0) {
		fail_error(v, "reading the table");
	} else if (ncols != want.ncols) {
		fail(v, "%d columns read, %d expected", ncols, want.ncols);
	} else {
		rowset_sort(&want);
		rowset_sort(&got);
		char why[600];
		if (!rowset_equal(&want, &got, why, sizeof why)) fail(v, "%s", why);
	}
	rowset_free(&want);
	rowset_free(&got);
}

static void check_negative(verdict *v, const char *dir, const char *message)
{
	int64_t n;
	int rc = read_all(dir, NULL, &n, NULL, NULL);
	if (rc == 0) {
		fail(v, "read %lld rows, but the table must fail with \"%s\"", (long long)n, message);
		return;
	}
	if (!strstr(dl_error_last()->message, message))
		fail(v, "failed with \"%s\", which does not say \"%s\"", dl_error_last()->message, message);
}

/* ---- known failures ---- */

typedef struct known {
	char **names;
	bool *seen;
	size_t n;
} known;

static int load_known(known *k, const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		return -1;
	}
	char line[1024];
	while (fgets(line, sizeof line, f)) {
		if (line[0] == '#' || line[0] == '\n') continue;
		line[strcspn(line, " \t\n")] = 0;
		if (!line[0]) continue;
		k->names = realloc(k->names, (k->n + 1) * sizeof *k->names);
		k->seen = realloc(k->seen, (k->n + 1) * sizeof *k->seen);
		k->names[k->n] = strdup(line);
		k->seen[k->n] = false;
		k->n++;
	}
	fclose(f);
	return 0;
}

static int known_index(const known *k, const char *name)
{
	for (size_t i = 0; i < k->n; i++)
		if (strcmp(k->names[i], name) == 0) return (int)i;
	return -1;
}

/* ---- the inventory ---- */

typedef struct tally {
	int passed, failed;
	int unexpected; /* failures not listed + listed passes */
	const known *k;
	bool *k_seen;
	const char *only;
	const char *root; /* --root URI: the tables are read from copies there */
} tally;

/* Copies the local table directory `dir` (every object under it but the
 * hidden ones: the .crc checksums a local Hadoop file system writes, which
 * S3A never has) to `uri` on any store, unless a copy is there already: the
 * conformance tables over S3 (issue 14) are the same bytes. Objects go up
 * on a pool of 8 threads (network latency, not CPU). */
typedef struct upload_job {
	dl_store *src, *dst;
	const dl_object_list *all;
} upload_job;

static bool hidden(const char *path)
{
	const char *b = strrchr(path, '/');
	return (b ? b[1] : path[0]) == '.';
}

static int upload_range(void *ctx, size_t begin, size_t end)
{
	upload_job *j = ctx;
	for (size_t i = begin; i < end; i++) {
		const char *path = j->all->items[i].path;
		if (hidden(path)) continue;
		uint8_t *data = NULL;
		size_t len = 0;
		int rc = dl_store_get(&data, &len, j->src, path);
		if (rc == 0) rc = dl_store_put(j->dst, path, data, len);
		free(data);
		if (rc < 0) return rc;
	}
	return 0;
}

static int upload_table(const char *dir, const char *uri)
{
	dl_store *src = NULL, *dst = NULL;
	dl_object_list have = {0}, all = {0};
	static dl_pool *pool;
	int rc = pool ? 0 : dl_pool_create(&pool, 8);
	if (rc == 0) rc = dl_store_open(&dst, uri, NULL);
	if (rc == 0) rc = dl_store_list_recursive(&have, dst, "");
	if (rc == 0 && have.count > 0) goto done;
	if (rc == 0) rc = dl_store_open(&src, dir, NULL);
	if (rc == 0) rc = dl_store_list_recursive(&all, src, "");
	upload_job j = {src, dst, &all};
	if (rc == 0) rc = dl_parallel_for(pool, all.count, 1, upload_range, &j);
done:
	dl_object_list_free(&have);
	dl_object_list_free(&all);
	dl_store_free(src);
	dl_store_free(dst);
	return rc;
}

static void report(tally *t, const char *name, const verdict *v)
{
	int ki = t->k ? known_index(t->k, name) : -1;
	if (v->pass) {
		t->passed++;
		printf("PASS %s\n", name);
		if (ki >= 0) {
			t->unexpected++;
			printf("  (listed in known_failures.txt but passes now: remove it from the list)\n");
		}
	} else {
		t->failed++;
		printf("FAIL %s: %s\n", name, v->reason);
		if (t->k && ki < 0) t->unexpected++;
	}
	if (ki >= 0) t->k_seen[ki] = true;
	fflush(stdout);
}

static void run_table(tally *t, const char *shared, const char *set, const char *rel, const char *features,
                      bool has_expected)
{
	char name[512], dir[1024], expected[1024];
	/* golden/<name>/delta -> golden/<name>; kernel-data/<name> as is */
	snprintf(name, sizeof name, "%s/%s", set, rel);
	size_t n = strlen(name);
	if (n > 6 && strcmp(name + n - 6, "/delta") == 0) name[n - 6] = 0;
	if (t->only && !strstr(name, t->only)) return;
	snprintf(dir, sizeof dir, "%s/conformance/%s/%s", shared, set, rel);
	verdict v = {true, ""};
	if (t->root) {
		char uri[1024];
		snprintf(uri, sizeof uri, "%s/%s/%s", t->root, set, rel);
		if (upload_table(dir, uri) < 0) {
			fail(&v, "copying the table to %s: %s", uri, dl_error_last()->message);
			dl_error_clear();
			report(t, name, &v);
			return;
		}
		snprintf(dir, sizeof dir, "%s", uri);
	}
	const char *neg = negative_message(name);
	if (neg) {
		check_negative(&v, dir, neg);
	} else if (has_expected) {
		snprintf(expected, sizeof expected, "%s/conformance/%s/%.*s/expected", shared, set,
		         (int)(strlen(rel) - 6), rel);
		check_expected(&v, name, dir, expected);
		if (v.pass) check_features(&v, name, dir, features);
	} else {
		check_features(&v, name, dir, features);
	}
	dl_error_clear();
	report(t, name, &v);
}

static int run_inventory(tally *t, const char *shared, const char *set)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/conformance/%s/INVENTORY.tsv", shared, set);
	FILE *f = fopen(path, "r");
	if (!f) {
		printf("FAIL %s: cannot open %s\n", set, path);
		t->failed++;
		t->unexpected++;
		return -1;
	}
	char line[2048];
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		char *fields[8] = {0};
		int nf = 0;
		for (char *p = line; p && nf < 8;) {
			fields[nf++] = p;
			char *tab = strchr(p, '\t');
			if (tab) *tab++ = 0;
			p = tab;
		}
		if (nf < 2 || !fields[0][0]) continue;
		/* the 300k-file benchmark log has no data files: not a table to read */
		if (strstr(fields[0], "300k-add-files")) continue;
		const char *features = nf > 3 ? fields[3] : "";
		bool has_expected = nf > 6 && strcmp(fields[6], "expected") == 0;
		run_table(t, shared, set, fields[0], features, has_expected);
	}
	fclose(f);
	/* no-delta-log-folder has no log, so it is not in the inventory */
	if (strcmp(set, "golden") == 0) run_table(t, shared, set, "no-delta-log-folder/delta", "", false);
	return 0;
}

int main(int argc, char **argv)
{
	const char *known_path = NULL, *only = NULL, *root = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--known-failures") == 0 && i + 1 < argc) known_path = argv[++i];
		else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
		else if (strcmp(argv[i], "--root") == 0 && i + 1 < argc) root = argv[++i];
		else {
			fprintf(stderr, "usage: %s [--known-failures FILE] [--only SUBSTRING] [--root URI]\n", argv[0]);
			return 2;
		}
	}
	const char *shared = getenv("DL_SHARED_DIR");
	if (!shared || !*shared) shared = DL_SHARED_DIR;
	known k = {0};
	if (known_path && load_known(&k, known_path) < 0) return 2;
	tally t = {0, 0, 0, known_path ? &k : NULL, k.seen, only, root};
	run_inventory(&t, shared, "golden");
	run_inventory(&t, shared, "kernel-data");
	if (known_path && !only) {
		for (size_t i = 0; i < k.n; i++)
			if (!k.seen[i]) {
				printf("known_failures.txt lists %s, which is not a conformance table\n", k.names[i]);
				t.unexpected++;
			}
	}
	if (known_path)
		printf("%d unexpected result(s) against known_failures.txt\n", t.unexpected);
	printf("%d passed, %d failed\n", t.passed, t.failed);
	for (size_t i = 0; i < k.n; i++) free(k.names[i]);
	free(k.names);
	free(k.seen);
	if (known_path) return t.unexpected ? 1 : 0;
	return t.failed ? 1 : 0;
}
