/* hello.c: the smallest program on libdeltalake.
 *
 *   ./hello TABLE     prints what the log of a Delta table says (version,
 *                     schema, protocol, files); when TABLE has no log yet,
 *                     first creates an empty table there (version 0)
 *   ./hello           the same on a new table in /tmp
 *
 * It shows the conventions every call follows: functions return 0 or a
 * negative dl_error_code, results come back through out-parameters that come
 * first, handles you receive are yours to free, strings from a handle are
 * borrowed from it, and dl_error_last() says what went wrong and what to do.
 * Creating the table uses the commit primitive of the Delta protocol,
 * put-if-absent: of two writers of version N, exactly one succeeds.
 *
 * Build:  cc hello.c $(pkg-config --cflags --libs deltalake) -o hello */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <deltalake.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what)
{
	const dl_error *e = dl_error_last();
	fprintf(stderr, "hello: %s: %s (%s)\n", what, e->message, dl_error_code_name(e->code));
	return 1;
}

/* Version 0 of a table with two columns: a protocol and a metaData action,
 * one JSON object per line, as PROTOCOL.md specifies. */
static const char first_commit[] =
	"{\"commitInfo\":{\"timestamp\":1700000000000,\"operation\":\"CREATE TABLE\"}}\n"
	"{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n"
	"{\"metaData\":{\"id\":\"5f0a2b84-93f4-4a56-8d1e-2f7c4f0b6a11\",\"format\":{\"provider\":\"parquet\","
	"\"options\":{}},\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":["
	"{\\\"name\\\":\\\"id\\\",\\\"type\\\":\\\"long\\\",\\\"nullable\\\":false,\\\"metadata\\\":{}},"
	"{\\\"name\\\":\\\"greeting\\\",\\\"type\\\":\\\"string\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\","
	"\"partitionColumns\":[],\"configuration\":{},\"createdTime\":1700000000000}}\n";

/* Commits version 0 of a new table in dir. */
static int create_table(const char *dir)
{
	dl_store *store;
	if (dl_store_open(&store, dir, NULL) < 0) return fail("opening the store");
	const char *path = "_delta_log/00000000000000000000.json";
	int rc = dl_store_put_if_absent(store, path, first_commit, strlen(first_commit));
	if (rc == 0) {
		printf("created version 0 of %s\n", dir);
		/* A second writer of version 0 is told so and overwrites nothing. */
		rc = dl_store_put_if_absent(store, path, first_commit, strlen(first_commit));
		printf("a second writer of version 0 gets %s\n", dl_error_code_name(rc));
		rc = rc == DL_EEXISTS ? 0 : 1;
	} else {
		rc = fail("committing version 0");
	}
	dl_store_free(store);
	return rc;
}

static void print_snapshot(const dl_snapshot *snap)
{
	printf("table %s\n", dl_snapshot_table_root(snap));
	printf("version %lld\n", (long long)dl_snapshot_version(snap));
	printf("protocol reader %d writer %d\n", dl_snapshot_min_reader_version(snap),
	       dl_snapshot_min_writer_version(snap));
	const char *schema = dl_snapshot_schema_json(snap);
	printf("schema %s\n", schema ? schema : "(none)");
	printf("files %zu, %lld bytes\n", dl_snapshot_file_count(snap), (long long)dl_snapshot_total_size(snap));
	for (size_t i = 0; i < dl_snapshot_file_count(snap) && i < 5; i++) {
		dl_file_info f;
		if (dl_snapshot_file_at(&f, snap, i) == 0) printf("  %s  %lld bytes\n", f.path, (long long)f.size);
	}
}

int main(int argc, char **argv)
{
	char tmpl[] = "/tmp/deltalake-hello-XXXXXX";
	const char *table = argc > 1 ? argv[1] : mkdtemp(tmpl);
	if (!table) {
		perror("mkdtemp");
		return 1;
	}
	printf("libdeltalake %s\n", dl_version());

	dl_snapshot *snap;
	int rc = dl_snapshot_open(&snap, table, NULL);
	if (rc == DL_ENOTFOUND) { /* not a Delta table yet: make it one */
		if (create_table(table) != 0) return 1;
		rc = dl_snapshot_open(&snap, table, NULL);
	}
	if (rc < 0) return fail("reading the table");
	print_snapshot(snap);
	dl_snapshot_free(snap);
	return 0;
}
