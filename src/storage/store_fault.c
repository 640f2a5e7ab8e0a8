/* fault://<inner-uri>: a store that forwards to another and fails the calls
 * its options name (store_fault.h). It goes through the public dl_store
 * functions of the inner store, so it wraps any backend, and it counts
 * every call before deciding, so "the nth call" means the same in a
 * counting run and in the failing run that follows it. */
#include "storage/store_fault.h"
#include "storage/backend.h"
#include "util/error.h"
#include "util/mem.h"
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const kind_names[DL_FAULT_NKINDS + 1] = {
	"get", "get_range", "put", "put_if_absent", "list", "delete", "stat", "writer_open",
	"writer_write", "writer_commit", "reader_open", "reader_read", "delete_many", "any",
};

const char *dl_fault_kind_name(dl_fault_kind k)
{
	return (unsigned)k <= DL_FAULT_NKINDS ? kind_names[k] : "?";
}

typedef struct fault_store {
	dl_store *inner;
	char *uri;          /* fault://..., for messages */
	dl_fault_kind kind; /* DL_FAULT_ANY: every call counts */
	int64_t nth;        /* 0: no failures */
	int64_t times;      /* 0: unlimited */
	int code;
	const char *error_name;
	const char *error_text;
	bool torn;
	bool after;         /* fail after the inner call succeeded */
	int64_t latency_ms;
	pthread_mutex_t mu;
	dl_store_fault_counts counts;
} fault_store;

/* ---- options ---- */

static int parse_count(int64_t *out, const dl_store_options *o, const char *key, int64_t def)
{
	const char *v = dl_store_options_get(o, key);
	*out = def;
	if (!v) return 0;
	char *end;
	errno = 0;
	long long n = strtoll(v, &end, 10);
	if (!*v || *end || errno || n < 0)
		return dl_error_set(DL_EINVALID, "store option %s=\"%s\" must be a whole number >= 0", key, v);
	*out = n;
	return 0;
}

static int parse_options(fault_store *fs, const dl_store_options *o)
{
	static const char *const known[] = {"fail_kind", "fail_nth", "fail_times", "error",
	                                    "torn_write", "fail_after", "latency_ms", NULL};
	DL_TRY(dl_store_options_check_namespace(o, "fault", known));
	const char *k = dl_store_options_get(o, "fault.fail_kind");
	fs->kind = DL_FAULT_ANY;
	if (k) {
		int found = -1;
		for (int i = 0; i <= DL_FAULT_NKINDS; i++)
			if (strcmp(k, kind_names[i]) == 0) found = i;
		if (found < 0)
			return dl_error_set(DL_EINVALID, "store option fault.fail_kind=\"%s\" is not one of get, "
			                    "get_range, put, put_if_absent, list, delete, stat, writer_open, "
			                    "writer_write, writer_commit, reader_open, reader_read, any", k);
		fs->kind = (dl_fault_kind)found;
	}
	DL_TRY(parse_count(&fs->nth, o, "fault.fail_nth", 0));
	DL_TRY(parse_count(&fs->times, o, "fault.fail_times", 1));
	DL_TRY(parse_count(&fs->latency_ms, o, "fault.latency_ms", 0));
	const char *e = dl_store_options_get(o, "fault.error");
	static const struct {
		const char *name;
		int code;
		int err;
	} errors[] = {
		{"eio", DL_EIO, EIO}, {"enospc", DL_EIO, ENOSPC}, {"notfound", DL_ENOTFOUND, ENOENT},
		{"exists", DL_EEXISTS, EEXIST}, {"nomem", DL_ENOMEM, ENOMEM},
	};
	fs->code = DL_EIO;
	fs->error_name = "eio";
	fs->error_text = strerror(EIO);
	if (e) {
		size_t i = 0, n = sizeof errors / sizeof errors[0];
		while (i < n && strcmp(errors[i].name, e) != 0) i++;
		if (i == n)
			return dl_error_set(DL_EINVALID, "store option fault.error=\"%s\" is not one of eio, "
			                    "enospc, notfound, exists, nomem", e);
		fs->code = errors[i].code;
		fs->error_name = errors[i].name;
		fs->error_text = strerror(errors[i].err);
	}
	const char *t = dl_store_options_get(o, "fault.torn_write");
	if (t && strcmp(t, "true") != 0 && strcmp(t, "false") != 0)
		return dl_error_set(DL_EINVALID, "store option fault.torn_write=\"%s\" must be true or false", t);
	fs->torn = t && strcmp(t, "true") == 0;
	const char *a = dl_store_options_get(o, "fault.fail_after");
	if (a && strcmp(a, "true") != 0 && strcmp(a, "false") != 0)
		return dl_error_set(DL_EINVALID, "store option fault.fail_after=\"%s\" must be true or false", a);
	fs->after = a && strcmp(a, "true") == 0;
	return 0;
}

/* ---- the decision ---- */

static void sleep_ms(int64_t ms)
{
	struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {}
}

/* Counts a call of `kind`; 1 when it is to fail. */
static bool hit(fault_store *fs, dl_fault_kind kind)
{
	if (fs->latency_ms > 0) sleep_ms(fs->latency_ms);
	pthread_mutex_lock(&fs->mu);
	int64_t n = ++fs->counts.calls[kind];
	int64_t total = ++fs->counts.total;
	bool fail = false;
	if (fs->nth > 0 && (fs->kind == DL_FAULT_ANY || fs->kind == kind)) {
		int64_t i = fs->kind == DL_FAULT_ANY ? total : n;
		fail = i >= fs->nth && (fs->times == 0 || i < fs->nth + fs->times);
	}
	if (fail) fs->counts.injected++;
	pthread_mutex_unlock(&fs->mu);
	return fail;
}

static int injected(fault_store *fs, dl_fault_kind kind, const char *path)
{
	return dl_error_set(fs->code, "%s: %s of %s failed: %s (fault injected: fault.error=%s)", fs->uri,
	                    kind_names[kind], path && *path ? path : "(root)", fs->error_text, fs->error_name);
}

#define FAULT(fs, kind, path) \
	do { \
		if (hit(fs, kind)) return injected(fs, kind, path); \
	} while (0)

/* ---- the backend ---- */

static int f_open(void **impl, const char *uri, const dl_store_options *opts, void *payload)
{
	(void)payload;
	const char *inner = uri + strlen("fault:");
	if (strncmp(inner, "//", 2) != 0 || !inner[2])
		return dl_error_set(DL_EINVALID, "fault store URI %s needs an inner store: write "
		                    "fault://file:///path or fault://mem://name", uri);
	inner += 2;
	fault_store *fs = dl_calloc(1, sizeof *fs);
	if (!fs) return DL_ENOMEM;
	pthread_mutex_init(&fs->mu, NULL);
	fs->uri = dl_strdup(uri);
	int rc = fs->uri ? parse_options(fs, opts) : DL_ENOMEM;
	if (rc == 0) rc = dl_store_open(&fs->inner, inner, opts);
	if (rc < 0) {
		pthread_mutex_destroy(&fs->mu);
		dl_free(fs->uri);
		dl_free(fs);
		return rc;
	}
	*impl = fs;
	return 0;
}

static void f_free(void *impl)
{
	fault_store *fs = impl;
	dl_store_free(fs->inner);
	pthread_mutex_destroy(&fs->mu);
	dl_free(fs->uri);
	dl_free(fs);
}

static int f_get(uint8_t **data, size_t *len, void *impl, const char *path)
{
	FAULT(impl, DL_FAULT_GET, path);
	fault_store *fs = impl;
	return dl_store_get(data, len, fs->inner, path);
}

static int f_get_range(uint8_t *buf, size_t *got, void *impl, const char *path, int64_t offset,
                       size_t len)
{
	FAULT(impl, DL_FAULT_GET_RANGE, path);
	return dl_store_get_range(buf, got, ((fault_store *)impl)->inner, path, offset, len);
}

/* A torn put: half the bytes reach a streamed (hidden, temporary) object of
 * the inner store, then the write fails and the temp goes away, as the
 * file backend's temp file does when the disk fills up. */
static int torn_put(fault_store *fs, dl_fault_kind kind, const char *path, const void *data, size_t len)
{
	dl_store_writer *w;
	if (dl_store_writer_open(&w, fs->inner, path) == 0) {
		(void)dl_store_writer_write(w, data, len / 2);
		dl_store_writer_abort(w);
	}
	return injected(fs, kind, path);
}

/* With fail_after, a write that succeeded still reports the failure: what
 * a caller sees when the directory sync after a rename fails, or a network
 * store's reply is lost. */
static int after(fault_store *fs, dl_fault_kind kind, const char *path, int rc)
{
	return rc < 0 ? rc : injected(fs, kind, path);
}

static int f_put(void *impl, const char *path, const void *data, size_t len)
{
	fault_store *fs = impl;
	if (!hit(fs, DL_FAULT_PUT)) return dl_store_put(fs->inner, path, data, len);
	if (fs->after) return after(fs, DL_FAULT_PUT, path, dl_store_put(fs->inner, path, data, len));
	return fs->torn ? torn_put(fs, DL_FAULT_PUT, path, data, len) : injected(fs, DL_FAULT_PUT, path);
}

static int f_put_if_absent(void *impl, const char *path, const void *data, size_t len)
{
	fault_store *fs = impl;
	if (!hit(fs, DL_FAULT_PUT_IF_ABSENT)) return dl_store_put_if_absent(fs->inner, path, data, len);
	if (fs->after)
		return after(fs, DL_FAULT_PUT_IF_ABSENT, path, dl_store_put_if_absent(fs->inner, path, data, len));
	return fs->torn ? torn_put(fs, DL_FAULT_PUT_IF_ABSENT, path, data, len)
	                : injected(fs, DL_FAULT_PUT_IF_ABSENT, path);
}

static int f_list(void *impl, const char *dir, int recursive, dl_store_list_fn emit, void *payload)
{
	fault_store *fs = impl;
	FAULT(fs, DL_FAULT_LIST, dir);
	dl_object_list l;
	/* entries that are not objects (size -1) pass through: the log refuses
	 * a directory named like a commit under fault:// too */
	int rc = recursive ? dl_store_list_recursive(&l, fs->inner, dir)
	                   : dl_store_list_entries_from(&l, fs->inner, dir, NULL);
	for (size_t i = 0; rc == 0 && i < l.count; i++)
		rc = emit(l.items[i].path, l.items[i].size, l.items[i].mtime_ms, payload);
	dl_object_list_free(&l);
	return rc;
}

static int f_del(void *impl, const char *path)
{
	fault_store *fs = impl;
	if (!hit(fs, DL_FAULT_DELETE)) return dl_store_delete(fs->inner, path);
	if (fs->after) return after(fs, DL_FAULT_DELETE, path, dl_store_delete(fs->inner, path));
	return injected(fs, DL_FAULT_DELETE, path);
}

/* A batch is counted once as delete_many (and can fail whole there), then
 * each path goes through f_del, so a test counts the batches an operation
 * sends and can still fail its nth single delete. */
static int f_delete_many(size_t *deleted, void *impl, const char *const *paths, size_t n)
{
	fault_store *fs = impl;
	*deleted = 0;
	if (hit(fs, DL_FAULT_DELETE_MANY)) return injected(fs, DL_FAULT_DELETE_MANY, n ? paths[0] : "");
	for (size_t i = 0; i < n; i++) {
		int rc = f_del(impl, paths[i]);
		if (rc == DL_ENOTFOUND) {
			dl_error_clear();
			continue;
		}
		if (rc < 0) return rc;
		(*deleted)++;
	}
	return 0;
}

static int f_stat(int64_t *size, int64_t *mtime, void *impl, const char *path)
{
	FAULT(impl, DL_FAULT_STAT, path);
	dl_object_info info;
	DL_TRY(dl_store_stat(&info, ((fault_store *)impl)->inner, path));
	*size = info.size;
	*mtime = info.mtime_ms;
	dl_object_info_free(&info);
	return 0;
}

typedef struct fault_writer {
	fault_store *fs;
	dl_store_writer *w;
	char *path;
} fault_writer;

static int fw_open(void **state, void *impl, const char *path)
{
	fault_store *fs = impl;
	FAULT(fs, DL_FAULT_WRITER_OPEN, path);
	fault_writer *w = dl_calloc(1, sizeof *w);
	if (!w) return DL_ENOMEM;
	w->fs = fs;
	w->path = dl_strdup(path);
	int rc = w->path ? dl_store_writer_open(&w->w, fs->inner, path) : DL_ENOMEM;
	if (rc < 0) {
		dl_free(w->path);
		dl_free(w);
		return rc;
	}
	*state = w;
	return 0;
}

static int fw_write(void *state, const void *data, size_t len)
{
	fault_writer *w = state;
	if (hit(w->fs, DL_FAULT_WRITER_WRITE)) {
		if (w->fs->torn && len / 2) (void)dl_store_writer_write(w->w, data, len / 2);
		return injected(w->fs, DL_FAULT_WRITER_WRITE, w->path);
	}
	return dl_store_writer_write(w->w, data, len);
}

static void fw_release(fault_writer *w)
{
	dl_free(w->path);
	dl_free(w);
}

static int fw_commit(void *state, int if_absent)
{
	fault_writer *w = state;
	int rc;
	if (!hit(w->fs, DL_FAULT_WRITER_COMMIT)) {
		rc = dl_store_writer_commit(w->w, if_absent);
	} else if (w->fs->after) {
		rc = after(w->fs, DL_FAULT_WRITER_COMMIT, w->path, dl_store_writer_commit(w->w, if_absent));
	} else {
		dl_store_writer_abort(w->w);
		rc = injected(w->fs, DL_FAULT_WRITER_COMMIT, w->path);
	}
	fw_release(w);
	return rc;
}

static void fw_abort(void *state)
{
	fault_writer *w = state;
	dl_store_writer_abort(w->w);
	fw_release(w);
}

typedef struct fault_reader {
	fault_store *fs;
	dl_store_reader *r;
	char *path;
} fault_reader;

/* No mapped data is passed up: every read goes through reader_read, where
 * it is counted and can fail. */
static int fr_open(void **state, int64_t *size, const uint8_t **data, void *impl, const char *path)
{
	fault_store *fs = impl;
	FAULT(fs, DL_FAULT_READER_OPEN, path);
	fault_reader *r = dl_calloc(1, sizeof *r);
	if (!r) return DL_ENOMEM;
	r->fs = fs;
	r->path = dl_strdup(path);
	int rc = r->path ? dl_store_reader_open(&r->r, fs->inner, path) : DL_ENOMEM;
	if (rc < 0) {
		dl_free(r->path);
		dl_free(r);
		return rc;
	}
	*size = dl_store_reader_size(r->r);
	*data = NULL;
	*state = r;
	return 0;
}

static int fr_read(uint8_t *buf, size_t *got, void *state, int64_t offset, size_t len)
{
	fault_reader *r = state;
	FAULT(r->fs, DL_FAULT_READER_READ, r->path);
	return dl_store_reader_read(buf, got, r->r, offset, len);
}

static void fr_close(void *state)
{
	fault_reader *r = state;
	dl_store_reader_close(r->r);
	dl_free(r->path);
	dl_free(r);
}

const dl_store_backend dl_store_backend_fault = {
	.version = DL_STORE_BACKEND_VERSION,
	.scheme = "fault",
	.open = f_open,
	.free = f_free,
	.get = f_get,
	.get_range = f_get_range,
	.put = f_put,
	.put_if_absent = f_put_if_absent,
	.list = f_list,
	.del = f_del,
	.stat = f_stat,
	.writer_open = fw_open,
	.writer_write = fw_write,
	.writer_commit = fw_commit,
	.writer_abort = fw_abort,
	.reader_open = fr_open,
	.reader_read = fr_read,
	.reader_close = fr_close,
	.delete_many = f_delete_many,
};

int dl_store_fault_counts_get(dl_store_fault_counts *out, const dl_store *s)
{
	fault_store *fs = dl_store_impl_of(s, &dl_store_backend_fault);
	if (!fs) return dl_error_set(DL_EINVALID, "%s is not a fault:// store", s ? dl_store_root(s) : "(null)");
	pthread_mutex_lock(&fs->mu);
	*out = fs->counts;
	pthread_mutex_unlock(&fs->mu);
	return 0;
}

int dl_store_fault_counts_reset(dl_store *s)
{
	fault_store *fs = dl_store_impl_of(s, &dl_store_backend_fault);
	if (!fs) return dl_error_set(DL_EINVALID, "%s is not a fault:// store", s ? dl_store_root(s) : "(null)");
	pthread_mutex_lock(&fs->mu);
	memset(&fs->counts, 0, sizeof fs->counts);
	pthread_mutex_unlock(&fs->mu);
	return 0;
}
