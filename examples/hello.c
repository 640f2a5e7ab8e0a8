/* hello.c: the smallest program on libdeltalake.
 *
 * It shows the conventions every call follows: functions return 0 or a
 * negative dl_error_code, results come back through out-parameters, handles
 * you receive are yours to free, and dl_error_last() says what went wrong
 * and what to do. It uses the storage layer's commit primitive,
 * put-if-absent, which is how two writers agree on who wrote version N of a
 * Delta table's log.
 *
 * Build:  cc hello.c $(pkg-config --cflags --libs deltalake) -o hello
 * Run:    ./hello [DIRECTORY]          (default: a new directory in /tmp) */
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

int main(int argc, char **argv)
{
	char tmpl[] = "/tmp/deltalake-hello-XXXXXX";
	const char *dir = argc > 1 ? argv[1] : mkdtemp(tmpl);
	if (!dir) {
		perror("mkdtemp");
		return 1;
	}
	printf("libdeltalake %s\n", dl_version());

	dl_store *store;
	if (dl_store_open(&store, dir) < 0) return fail("opening the store");

	/* The first writer of a log entry wins... */
	const char commit[] = "{\"commitInfo\":{\"operation\":\"HELLO\"}}\n";
	const char *path = "_delta_log/00000000000000000000.json";
	if (dl_store_put_if_absent(store, path, commit, strlen(commit)) < 0) {
		dl_store_free(store);
		return fail("writing the first commit");
	}
	/* ...and the second one is told so, without overwriting anything. */
	int rc = dl_store_put_if_absent(store, path, commit, strlen(commit));
	printf("second writer: %s\n", rc == DL_EEXISTS ? "DL_EEXISTS, as the protocol requires" : "unexpected");

	dl_object_list list;
	if (dl_store_list_from(store, "_delta_log", NULL, &list) < 0) {
		dl_store_free(store);
		return fail("listing the log");
	}
	for (size_t i = 0; i < list.count; i++)
		printf("%s  %lld bytes\n", list.items[i].path, (long long)list.items[i].size);
	dl_object_list_free(&list);
	dl_store_free(store);
	return rc == DL_EEXISTS ? 0 : 1;
}
