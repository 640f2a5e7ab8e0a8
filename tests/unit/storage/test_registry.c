/* The store registry and sys/store_backend.h: an application's backend
 * (with only the required functions, so dl_store builds the optional ones),
 * scheme errors, options, credentials; the fault:// wrapper; and the file
 * backend's refusal of FIFOs, devices and /proc files. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "deltalake.h"
#include "deltalake/sys/store_backend.h"
#include "storage/backend.h"
#include "storage/store_fault.h"
#include "storage/store_mem.h"
#include "util/mem.h"

/* ---- an application backend: "kv://name" over mem://app-kv/name ---- */

typedef struct kv {
	dl_store *mem;
	int *opens;
} kv;

static int kv_open(void **impl, const char *uri, const dl_store_options *opts, void *payload)
{
	(void)opts;
	if (strncasecmp(uri, "kv://", 5) != 0) return dl_store_backend_error(DL_EINVALID, "not kv: %s", uri);
	char inner[256];
	snprintf(inner, sizeof inner, "mem://app-kv/%s", uri + 5);
	kv *k = calloc(1, sizeof *k);
	k->opens = payload;
	(*k->opens)++;
	int rc = dl_store_open(&k->mem, inner, NULL);
	if (rc < 0) {
		free(k);
		return rc;
	}
	*impl = k;
	return 0;
}

static void kv_free(void *impl)
{
	kv *k = impl;
	dl_store_free(k->mem);
	free(k);
}

static int kv_get(uint8_t **data, size_t *len, void *impl, const char *path)
{
	uint8_t *d;
	size_t n;
	int rc = dl_store_get(&d, &n, ((kv *)impl)->mem, path);
	if (rc < 0) return rc;
	*data = malloc(n + 1); /* the contract: malloc'd with one spare byte */
	memcpy(*data, d, n);
	*len = n;
	dl_free(d);
	return 0;
}

static int kv_put(void *impl, const char *path, const void *data, size_t len)
{
	return dl_store_put(((kv *)impl)->mem, path, data, len);
}

static int kv_put_if_absent(void *impl, const char *path, const void *data, size_t len)
{
	return dl_store_put_if_absent(((kv *)impl)->mem, path, data, len);
}

static int kv_list(void *impl, const char *dir, int recursive, dl_store_list_fn emit, void *payload)
{
	dl_object_list l;
	int rc = recursive ? dl_store_list_recursive(&l, ((kv *)impl)->mem, dir)
	                   : dl_store_list_from(&l, ((kv *)impl)->mem, dir, NULL);
	/* in reverse, to show dl_store sorts */
	for (size_t i = l.count; rc == 0 && i > 0; i--)
		rc = emit(l.items[i - 1].path, l.items[i - 1].size, l.items[i - 1].mtime_ms, payload);
	dl_object_list_free(&l);
	return rc;
}

static int kv_del(void *impl, const char *path)
{
	return dl_store_delete(((kv *)impl)->mem, path);
}

static int kv_stat(int64_t *size, int64_t *mtime, void *impl, const char *path)
{
	dl_object_info i;
	int rc = dl_store_stat(&i, ((kv *)impl)->mem, path);
	if (rc < 0) return rc;
	*size = i.size;
	*mtime = i.mtime_ms;
	dl_object_info_free(&i);
	return 0;
}

static int kv_opens;
static dl_store_backend kv_backend = {
	.version = DL_STORE_BACKEND_VERSION,
	.scheme = "kv",
	.open = kv_open,
	.free = kv_free,
	.get = kv_get,
	.put = kv_put,
	.put_if_absent = kv_put_if_absent,
	.list = kv_list,
	.del = kv_del,
	.stat = kv_stat,
	.payload = &kv_opens,
};

static void application_backend(void **state)
{
	(void)state;
	dl_store *s;
	assert_int_equal(dl_store_open(&s, "kv://t", NULL), DL_EINVALID);
	const char *msg = dl_error_last()->message;
	assert_non_null(strstr(msg, "\"kv\""));
	assert_non_null(strstr(msg, "fault, file, mem"));

	assert_int_equal(dl_store_backend_register(&kv_backend), 0);
	assert_int_equal(dl_store_backend_register(&kv_backend), DL_EEXISTS);
	assert_int_equal(dl_store_open(&s, "KV://t", NULL), 0); /* schemes ignore case */
	assert_int_equal(kv_opens, 1);
	assert_int_equal(dl_store_put(s, "b", "2", 1), 0);
	assert_int_equal(dl_store_put_if_absent(s, "a", "hello", 5), 0);
	assert_int_equal(dl_store_put_if_absent(s, "a", "x", 1), DL_EEXISTS);
	/* generic get_range from get */
	uint8_t buf[8];
	size_t got;
	assert_int_equal(dl_store_get_range(buf, &got, s, "a", 1, 3), 0);
	assert_int_equal(got, 3);
	assert_memory_equal(buf, "ell", 3);
	/* generic writer from put_if_absent */
	dl_store_writer *w;
	assert_int_equal(dl_store_writer_open(&w, s, "c"), 0);
	assert_int_equal(dl_store_writer_write(w, "ab", 2), 0);
	assert_int_equal(dl_store_writer_write(w, "cd", 2), 0);
	assert_int_equal(dl_store_writer_commit(w, 1), 0);
	assert_int_equal(dl_store_writer_open(&w, s, "c"), 0);
	assert_int_equal(dl_store_writer_commit(w, 1), DL_EEXISTS);
	/* generic reader from get */
	dl_store_reader *r;
	assert_int_equal(dl_store_reader_open(&r, s, "c"), 0);
	assert_int_equal(dl_store_reader_size(r), 4);
	assert_int_equal(dl_store_reader_read(buf, &got, r, 2, 8), 0);
	assert_int_equal(got, 2);
	assert_memory_equal(buf, "cd", 2);
	dl_store_reader_close(r);
	/* listings come back sorted */
	dl_object_list l;
	assert_int_equal(dl_store_list_from(&l, s, "", NULL), 0);
	assert_int_equal(l.count, 3);
	assert_string_equal(l.items[0].path, "a");
	assert_string_equal(l.items[2].path, "c");
	dl_object_list_free(&l);
	dl_object_info info;
	assert_int_equal(dl_store_stat(&info, s, "a"), 0);
	assert_int_equal(info.size, 5);
	dl_object_info_free(&info);

	/* unregistering affects later opens; the open store keeps working */
	assert_int_equal(dl_store_backend_unregister("kv"), 0);
	assert_int_equal(dl_store_backend_unregister("kv"), DL_ENOTFOUND);
	assert_int_equal(dl_store_put(s, "d", "x", 1), 0);
	dl_store *again;
	assert_int_equal(dl_store_open(&again, "kv://t", NULL), DL_EINVALID);
	dl_store_free(s);
	dl_store_mem_drop("app-kv");
}

static void registration_errors(void **state)
{
	(void)state;
	dl_store_backend b = kv_backend;
	b.version = 0;
	assert_int_equal(dl_store_backend_register(&b), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "dl_store_backend.version"));
	b.version = DL_STORE_BACKEND_VERSION + 1;
	assert_int_equal(dl_store_backend_register(&b), DL_EINVALID);
	b = kv_backend;
	b.scheme = "k";
	assert_int_equal(dl_store_backend_register(&b), DL_EINVALID);
	b.scheme = "k v";
	assert_int_equal(dl_store_backend_register(&b), DL_EINVALID);
	b = kv_backend;
	b.stat = NULL;
	assert_int_equal(dl_store_backend_register(&b), DL_EINVALID);
	b = kv_backend;
	b.scheme = "file";
	assert_int_equal(dl_store_backend_register(&b), DL_EEXISTS);
	assert_int_equal(dl_store_backend_unregister("file"), DL_EINVALID);
	assert_int_equal(dl_store_backend_unregister("mem"), DL_EINVALID);
}

/* A version 5 backend declares its limits; a version 4 one has none
 * (whatever lies past its struct), and neither do the built-ins. */
static void backend_limits(void **state)
{
	(void)state;
	dl_store *s;
	assert_int_equal(dl_store_open(&s, "mem://limits-builtin", NULL), 0);
	assert_true(dl_store_lists_commits(s));
	dl_store_free(s);
	dl_store_mem_drop("limits-builtin");

	dl_store_backend b = kv_backend;
	b.limits = DL_STORE_LIMIT_UNLISTED_COMMITS;
	assert_int_equal(dl_store_backend_register(&b), 0);
	assert_int_equal(dl_store_open(&s, "kv://limits", NULL), 0);
	assert_false(dl_store_lists_commits(s));
	dl_store_free(s);
	assert_int_equal(dl_store_backend_unregister("kv"), 0);

	b.version = 4;
	assert_int_equal(dl_store_backend_register(&b), 0);
	assert_int_equal(dl_store_open(&s, "kv://limits", NULL), 0);
	assert_true(dl_store_lists_commits(s));
	dl_store_free(s);
	assert_int_equal(dl_store_backend_unregister("kv"), 0);
	dl_store_mem_drop("app-kv");
}

static int creds_cb(dl_store_credentials *out, const char *uri, void *payload)
{
	(void)uri;
	(*(int *)payload)++;
	out->access_key_id = "AKID";
	out->secret_access_key = "SECRET";
	out->expires_at_ms = 42;
	return 0;
}

static void options(void **state)
{
	(void)state;
	dl_store *s;
	dl_store_options o = DL_STORE_OPTIONS_INIT;
	const char *k1[] = {"endpont"}, *v1[] = {"x"};
	o.keys = k1, o.values = v1, o.noptions = 1;
	assert_int_equal(dl_store_open(&s, "mem://opts", &o), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "endpont"));
	const char *k2[] = {"timeout_ms"}, *v2[] = {"soon"};
	o.keys = k2, o.values = v2;
	assert_int_equal(dl_store_open(&s, "mem://opts", &o), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "timeout_ms"));
	const char *k3[] = {"fault.fial_nth"}, *v3[] = {"1"};
	o.keys = k3, o.values = v3;
	assert_int_equal(dl_store_open(&s, "fault://mem://opts", &o), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "fault.fial_nth"));
	/* another backend's namespace is not mem's business */
	assert_int_equal(dl_store_open(&s, "mem://opts", &o), 0);
	dl_store_free(s);
	o.version = 0;
	assert_int_equal(dl_store_open(&s, "mem://opts", &o), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "dl_store_options"));
	o.version = DL_STORE_OPTIONS_VERSION + 1;
	assert_int_equal(dl_store_open(&s, "mem://opts", &o), DL_EINVALID);

	const char *k4[] = {"region", "access_key_id", "secret_access_key", "region", "retry.max_attempts"};
	const char *v4[] = {"eu-west-1", "K", "S", "us-east-2", "3"};
	o = (dl_store_options)DL_STORE_OPTIONS_INIT;
	o.keys = k4, o.values = v4, o.noptions = 5;
	assert_string_equal(dl_store_options_get(&o, "region"), "us-east-2"); /* the last wins */
	assert_null(dl_store_options_get(&o, "endpoint"));
	dl_store_credentials c;
	assert_int_equal(dl_store_backend_credentials(&c, &o, "s3://b/t"), 0);
	assert_string_equal(c.access_key_id, "K");
	assert_string_equal(c.secret_access_key, "S");
	assert_null(c.session_token);
	int calls = 0;
	o.credentials = creds_cb;
	o.payload = &calls;
	assert_int_equal(dl_store_backend_credentials(&c, &o, "s3://b/t"), 0);
	assert_int_equal(calls, 1);
	assert_string_equal(c.access_key_id, "AKID");
	assert_int_equal(c.expires_at_ms, 42);
	dl_store_options none = DL_STORE_OPTIONS_INIT;
	assert_int_equal(dl_store_backend_credentials(&c, &none, "s3://b/t"), DL_ENOTFOUND);
	assert_int_equal(dl_store_open(&s, "mem://opts", &o), 0); /* well-known keys are fine anywhere */
	dl_store_free(s);
}

static dl_store *fault_open(const char *inner, const char *const *kv, int n)
{
	char uri[256];
	snprintf(uri, sizeof uri, "fault://%s", inner);
	const char *keys[8], *values[8];
	for (int i = 0; i < n; i++) keys[i] = kv[2 * i], values[i] = kv[2 * i + 1];
	dl_store_options o = DL_STORE_OPTIONS_INIT;
	o.keys = keys, o.values = values, o.noptions = n;
	dl_store *s = NULL;
	assert_int_equal(dl_store_open(&s, uri, &o), 0);
	return s;
}

static void fault_counts_and_failures(void **state)
{
	(void)state;
	dl_store *s = fault_open("mem://fault-test", NULL, 0);
	assert_string_equal(dl_store_root(s), "fault://mem://fault-test");
	assert_int_equal(dl_store_put(s, "a", "1234", 4), 0);
	uint8_t *d;
	size_t n;
	assert_int_equal(dl_store_get(&d, &n, s, "a"), 0);
	dl_free(d);
	dl_store_fault_counts c;
	assert_int_equal(dl_store_fault_counts_get(&c, s), 0);
	assert_int_equal(c.calls[DL_FAULT_PUT], 1);
	assert_int_equal(c.calls[DL_FAULT_GET], 1);
	assert_int_equal(c.total, 2);
	assert_int_equal(c.injected, 0);
	dl_store_free(s);

	/* the 2nd put fails with ENOSPC, as DL_EIO naming the path and fault */
	const char *o1[] = {"fault.fail_kind", "put", "fault.fail_nth", "2", "fault.error", "enospc"};
	s = fault_open("mem://fault-test", o1, 3);
	assert_int_equal(dl_store_get(&d, &n, s, "a"), 0);
	dl_free(d);
	assert_int_equal(dl_store_put(s, "b", "x", 1), 0);
	assert_int_equal(dl_store_put(s, "c", "x", 1), DL_EIO);
	const char *msg = dl_error_last()->message;
	assert_non_null(strstr(msg, "put of c"));
	assert_non_null(strstr(msg, "No space left on device"));
	assert_non_null(strstr(msg, "fault injected"));
	assert_int_equal(dl_store_put(s, "d", "x", 1), 0); /* fail_times 1 */
	dl_object_info info;
	assert_int_equal(dl_store_stat(&info, s, "c"), DL_ENOTFOUND); /* the failed put wrote nothing */
	assert_int_equal(dl_store_fault_counts_get(&c, s), 0);
	assert_int_equal(c.injected, 1);
	dl_store_free(s);

	/* any kind, nth among all calls, repeated */
	const char *o2[] = {"fault.fail_nth", "2", "fault.fail_times", "2", "fault.error", "notfound"};
	s = fault_open("mem://fault-test", o2, 3);
	assert_int_equal(dl_store_stat(&info, s, "a"), 0);
	dl_object_info_free(&info);
	dl_object_list l;
	assert_int_equal(dl_store_list_from(&l, s, "", NULL), DL_ENOTFOUND);
	assert_int_equal(dl_store_delete(s, "a"), DL_ENOTFOUND);
	assert_int_equal(dl_store_delete(s, "a"), 0);
	dl_store_free(s);

	/* torn streamed write: half reaches the temp, nothing is published */
	char dir[] = "/tmp/dl_fault_XXXXXX";
	assert_non_null(mkdtemp(dir));
	char inner[64];
	snprintf(inner, sizeof inner, "file://%s", dir);
	const char *o3[] = {"fault.fail_kind", "writer_write", "fault.fail_nth", "2", "fault.torn_write", "true"};
	s = fault_open(inner, o3, 3);
	dl_store_writer *w;
	assert_int_equal(dl_store_writer_open(&w, s, "x/obj"), 0);
	assert_int_equal(dl_store_writer_write(w, "abcd", 4), 0);
	assert_int_equal(dl_store_writer_write(w, "efgh", 4), DL_EIO);
	assert_int_equal(dl_store_writer_commit(w, 0), DL_EINVALID); /* after a failed write */
	const char *o4[] = {"fault.fail_kind", "put_if_absent", "fault.fail_nth", "1", "fault.torn_write", "true"};
	dl_store *s2 = fault_open(inner, o4, 3);
	assert_int_equal(dl_store_put_if_absent(s2, "x/p", "12345678", 8), DL_EIO);
	assert_int_equal(dl_store_put_if_absent(s2, "x/p", "12345678", 8), 0);
	dl_store_free(s2);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "test \"$(ls -A %s/x)\" = p", dir);
	assert_int_equal(system(cmd), 0); /* no temp files, no torn object */
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	dl_store_free(s);

	/* latency, and bad options */
	const char *o5[] = {"fault.latency_ms", "1"};
	s = fault_open("mem://fault-test", o5, 1);
	assert_int_equal(dl_store_get(&d, &n, s, "b"), 0);
	dl_free(d);
	dl_store_free(s);
	const char *keys[] = {"fault.error"}, *values[] = {"ebusy"};
	dl_store_options o = DL_STORE_OPTIONS_INIT;
	o.keys = keys, o.values = values, o.noptions = 1;
	assert_int_equal(dl_store_open(&s, "fault://mem://x", &o), DL_EINVALID);
	assert_int_equal(dl_store_open(&s, "fault://", NULL), DL_EINVALID);
	dl_store *m;
	assert_int_equal(dl_store_open(&m, "mem://x", NULL), 0);
	assert_int_equal(dl_store_fault_counts_get(&c, m), DL_EINVALID);
	dl_store_free(m);
	dl_store_mem_drop("fault-test");
}

static void on_alarm(int sig)
{
	(void)sig;
	static const char msg[] = "a special file blocked the store: regression\n";
	if (write(2, msg, sizeof msg - 1) < 0) {}
	_exit(3);
}

/* FIFOs block an open for reading until a writer comes; devices and /proc
 * files never end or have no size. None of them is an object. */
static void special_files_refused(void **state)
{
	(void)state;
	signal(SIGALRM, on_alarm);
	alarm(10);
	char dir[] = "/tmp/dl_fifo_XXXXXX";
	assert_non_null(mkdtemp(dir));
	char fifo[64];
	snprintf(fifo, sizeof fifo, "%s/pipe", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	dl_store *s;
	assert_int_equal(dl_store_open(&s, dir, NULL), 0);
	uint8_t *d;
	size_t n;
	assert_int_equal(dl_store_get(&d, &n, s, "pipe"), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "not a regular file"));
	assert_non_null(strstr(dl_error_last()->message, "FIFO"));
	dl_store_reader *r;
	assert_int_equal(dl_store_reader_open(&r, s, "pipe"), DL_EINVALID);
	uint8_t buf[16];
	size_t got;
	assert_int_equal(dl_store_get_range(buf, &got, s, "pipe", 0, 16), DL_EINVALID);
	dl_object_info info;
	assert_int_equal(dl_store_stat(&info, s, "pipe"), DL_EINVALID);
	dl_store_free(s);

	assert_int_equal(dl_store_open(&s, "/", NULL), 0);
	assert_int_equal(dl_store_reader_open(&r, s, "dev/zero"), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "character device"));
	assert_int_equal(dl_store_get(&d, &n, s, "dev/zero"), DL_EINVALID);
	assert_int_equal(dl_store_get_range(buf, &got, s, "proc/self/status", 0, 16), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "not a regular file"));
	assert_int_equal(dl_store_reader_open(&r, s, "proc/self/status"), DL_EINVALID);
	dl_store_free(s);
	char cmd[64];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	alarm(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(application_backend),
		cmocka_unit_test(registration_errors),
		cmocka_unit_test(backend_limits),
		cmocka_unit_test(options),
		cmocka_unit_test(fault_counts_and_failures),
		cmocka_unit_test(special_files_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
