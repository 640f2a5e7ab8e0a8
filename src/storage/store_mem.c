/* In-memory objects: one sorted array of (key, bytes) behind a mutex. Keys
 * are "location/path"; sorting by key keeps listings cheap and ordered.
 * Inserts are O(n) memmoves, which is fine for test-sized tables. */
#include "storage/backend.h"
#include "storage/path.h"
#include "storage/store_mem.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

typedef struct mem_object {
	char *key;
	uint8_t *data;
	size_t len;
	int64_t mtime_ms;
} mem_object;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static mem_object *g_objects;
static size_t g_count, g_cap;

typedef struct mem_store {
	char *location;
} mem_store;

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Index of key, or of where it would be inserted; *found says which. */
static size_t find(const char *key, bool *found)
{
	size_t lo = 0, hi = g_count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(g_objects[mid].key, key);
		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0) lo = mid + 1;
		else hi = mid;
	}
	*found = false;
	return lo;
}

static int ms_open(void **impl, const char *uri, const dl_store_options *opts, void *payload)
{
	(void)payload;
	static const char *const known[] = {NULL};
	DL_TRY(dl_store_options_check_namespace(opts, "mem", known));
	dl_store_uri u;
	DL_TRY(dl_store_uri_parse(&u, uri));
	mem_store *m = dl_calloc(1, sizeof *m);
	if (!m) {
		dl_store_uri_free(&u);
		return DL_ENOMEM;
	}
	m->location = u.location; /* taken */
	*impl = m;
	return 0;
}

static void ms_free(void *impl)
{
	mem_store *m = impl;
	dl_free(m->location);
	dl_free(m);
}

static int key_of(mem_store *m, const char *path, char **key)
{
	return dl_path_join(key, m->location, path);
}

static int missing(const char *key)
{
	return dl_error_set(DL_ENOTFOUND, "mem://%s: no such object", key);
}

static int ms_get(uint8_t **data, size_t *len, void *impl, const char *path)
{
	char *key;
	DL_TRY(key_of(impl, path, &key));
	pthread_mutex_lock(&g_lock);
	bool found;
	size_t i = find(key, &found);
	int rc = 0;
	if (!found) {
		rc = missing(key);
	} else {
		uint8_t *copy = dl_malloc(g_objects[i].len + 1);
		if (!copy) {
			rc = DL_ENOMEM;
		} else {
			memcpy(copy, g_objects[i].data, g_objects[i].len);
			copy[g_objects[i].len] = 0;
			*data = copy;
			*len = g_objects[i].len;
		}
	}
	pthread_mutex_unlock(&g_lock);
	dl_free(key);
	return rc;
}

static int ms_get_range(uint8_t *buf, size_t *got, void *impl, const char *path, int64_t offset,
                        size_t len)
{
	char *key;
	DL_TRY(key_of(impl, path, &key));
	pthread_mutex_lock(&g_lock);
	bool found;
	size_t i = find(key, &found);
	int rc = 0;
	if (!found) {
		rc = missing(key);
	} else if ((uint64_t)offset < g_objects[i].len) {
		size_t avail = g_objects[i].len - (size_t)offset;
		size_t n = len < avail ? len : avail;
		memcpy(buf, g_objects[i].data + offset, n);
		*got = n;
	}
	pthread_mutex_unlock(&g_lock);
	dl_free(key);
	return rc;
}

/* Stores data under key, taking ownership of both (freed on failure);
 * with no_replace, DL_EEXISTS if present. */
static int store_object(char *key, uint8_t *copy, size_t len, bool no_replace)
{
	pthread_mutex_lock(&g_lock);
	bool found;
	size_t i = find(key, &found);
	int rc = 0;
	if (found && no_replace) {
		rc = dl_error_set(DL_EEXISTS, "mem://%s already exists (another writer created it first)", key);
	} else if (found) {
		dl_free(g_objects[i].data);
		g_objects[i].data = copy;
		g_objects[i].len = len;
		g_objects[i].mtime_ms = now_ms();
		copy = NULL;
	} else {
		if (g_count == g_cap) {
			size_t nc = g_cap ? g_cap * 2 : 64;
			mem_object *p = dl_reallocarray(g_objects, nc, sizeof *p);
			if (!p) rc = DL_ENOMEM;
			else g_objects = p, g_cap = nc;
		}
		if (rc == 0) {
			memmove(g_objects + i + 1, g_objects + i, (g_count - i) * sizeof *g_objects);
			g_objects[i] = (mem_object){key, copy, len, now_ms()};
			g_count++;
			key = NULL;
			copy = NULL;
		}
	}
	pthread_mutex_unlock(&g_lock);
	dl_free(copy);
	dl_free(key);
	return rc;
}

static int put_copy(mem_store *m, const char *path, const void *data, size_t len, bool no_replace)
{
	char *key;
	DL_TRY(key_of(m, path, &key));
	uint8_t *copy = dl_malloc(len);
	if (!copy) {
		dl_free(key);
		return DL_ENOMEM;
	}
	if (len) memcpy(copy, data, len);
	return store_object(key, copy, len, no_replace);
}

static int ms_put(void *impl, const char *path, const void *data, size_t len)
{
	return put_copy(impl, path, data, len, false);
}

static int ms_put_if_absent(void *impl, const char *path, const void *data, size_t len)
{
	return put_copy(impl, path, data, len, true);
}

/* A streaming write gathers the bytes privately and stores them at commit. */
typedef struct mem_writer {
	char *key;
	dl_buf buf;
} mem_writer;

static int mw_open(void **state, void *impl, const char *path)
{
	mem_writer *w = dl_calloc(1, sizeof *w);
	if (!w) return DL_ENOMEM;
	int rc = key_of(impl, path, &w->key);
	if (rc < 0) {
		dl_free(w);
		return rc;
	}
	*state = w;
	return 0;
}

static int mw_write(void *state, const void *data, size_t len)
{
	return dl_buf_append(&((mem_writer *)state)->buf, data, len);
}

static int mw_commit(void *state, int if_absent)
{
	mem_writer *w = state;
	size_t len = 0;
	uint8_t *data = (uint8_t *)dl_buf_detach(&w->buf, &len);
	int rc = data ? store_object(w->key, data, len, if_absent != 0) : DL_ENOMEM;
	if (!data) dl_free(w->key);
	dl_free(w);
	return rc;
}

static void mw_abort(void *state)
{
	mem_writer *w = state;
	dl_buf_free(&w->buf);
	dl_free(w->key);
	dl_free(w);
}

/* Listed entries are copied out under the lock and emitted after it, so a
 * callback may call back into the store. */
static int ms_list(void *impl, const char *dir, int recursive, dl_store_list_fn emit, void *payload)
{
	dl_object_list out = {0};
	mem_store *m = impl;
	char *prefix;
	DL_TRY(key_of(m, dir, &prefix));
	size_t root_len = strlen(m->location) + 1; /* strip "location/" from keys */
	size_t pl = strlen(prefix);
	size_t cap = 0;
	int rc = 0;
	pthread_mutex_lock(&g_lock);
	bool found;
	for (size_t i = find(prefix, &found); i < g_count && rc == 0; i++) {
		const char *k = g_objects[i].key;
		if (strncmp(k, prefix, pl) != 0) break;
		if (k[pl] != '/') continue; /* "ab" is not under "a" */
		const char *deeper = recursive ? NULL : strchr(k + pl + 1, '/');
		if (deeper) {
			/* "dir/x/..." makes x a directory of this listing: one entry of
			 * size -1 (the backend contract), keys under x being adjacent */
			size_t n = (size_t)(deeper - (k + root_len));
			const char *last = out.count ? out.items[out.count - 1].path : NULL;
			if (last && strlen(last) == n && memcmp(last, k + root_len, n) == 0) continue;
			char *sub = dl_strndup(k + root_len, n);
			rc = sub ? dl_object_list_push(&out, &cap, sub, -1, 0) : DL_ENOMEM;
			dl_free(sub);
			continue;
		}
		rc = dl_object_list_push(&out, &cap, k + root_len, (int64_t)g_objects[i].len,
		                         g_objects[i].mtime_ms);
	}
	pthread_mutex_unlock(&g_lock);
	dl_free(prefix);
	for (size_t i = 0; rc == 0 && i < out.count; i++)
		rc = emit(out.items[i].path, out.items[i].size, out.items[i].mtime_ms, payload);
	dl_object_list_free(&out);
	return rc;
}

static int ms_del(void *impl, const char *path)
{
	char *key;
	DL_TRY(key_of(impl, path, &key));
	pthread_mutex_lock(&g_lock);
	bool found;
	size_t i = find(key, &found);
	int rc = 0;
	if (!found) {
		rc = missing(key);
	} else {
		dl_free(g_objects[i].key);
		dl_free(g_objects[i].data);
		memmove(g_objects + i, g_objects + i + 1, (g_count - i - 1) * sizeof *g_objects);
		g_count--;
	}
	pthread_mutex_unlock(&g_lock);
	dl_free(key);
	return rc;
}

static int ms_stat(int64_t *size, int64_t *mtime, void *impl, const char *path)
{
	char *key;
	DL_TRY(key_of(impl, path, &key));
	int rc = 0;
	pthread_mutex_lock(&g_lock);
	bool found;
	size_t i = find(key, &found);
	if (!found) {
		rc = missing(key);
	} else {
		*size = (int64_t)g_objects[i].len;
		*mtime = g_objects[i].mtime_ms;
	}
	pthread_mutex_unlock(&g_lock);
	dl_free(key);
	return rc;
}

long dl_store_mem_drop(const char *location)
{
	size_t ll = strlen(location);
	long removed = 0;
	pthread_mutex_lock(&g_lock);
	size_t k = 0;
	for (size_t i = 0; i < g_count; i++) {
		const char *key = g_objects[i].key;
		if (strncmp(key, location, ll) == 0 && key[ll] == '/') {
			dl_free(g_objects[i].key);
			dl_free(g_objects[i].data);
			removed++;
		} else {
			g_objects[k++] = g_objects[i];
		}
	}
	g_count = k;
	pthread_mutex_unlock(&g_lock);
	return removed;
}

/* A reader holds a snapshot of the object, so later puts and deletes
 * cannot change or free bytes the caller is decoding. */
typedef struct mem_reader {
	uint8_t *data;
	size_t len;
} mem_reader;

static int mr_open(void **state, int64_t *size, const uint8_t **data, void *impl, const char *path)
{
	mem_reader *r = dl_calloc(1, sizeof *r);
	if (!r) return DL_ENOMEM;
	int rc = ms_get(&r->data, &r->len, impl, path);
	if (rc < 0) {
		dl_free(r);
		return rc;
	}
	*state = r;
	*size = (int64_t)r->len;
	*data = r->data;
	return 0;
}

/* store.c serves reads from the snapshot directly; this is the same copy
 * for completeness of the interface. */
static int mr_read(uint8_t *buf, size_t *got, void *state, int64_t offset, size_t len)
{
	mem_reader *r = state;
	size_t n = (uint64_t)offset < r->len ? r->len - (size_t)offset : 0;
	if (len < n) n = len;
	if (n) memcpy(buf, r->data + offset, n);
	*got = n;
	return 0;
}

static void mr_close(void *state)
{
	mem_reader *r = state;
	dl_free(r->data);
	dl_free(r);
}

const dl_store_backend dl_store_backend_mem = {
	.version = DL_STORE_BACKEND_VERSION,
	.scheme = "mem",
	.open = ms_open,
	.free = ms_free,
	.get = ms_get,
	.get_range = ms_get_range,
	.put = ms_put,
	.put_if_absent = ms_put_if_absent,
	.list = ms_list,
	.del = ms_del,
	.stat = ms_stat,
	.writer_open = mw_open,
	.writer_write = mw_write,
	.writer_commit = mw_commit,
	.writer_abort = mw_abort,
	.reader_open = mr_open,
	.reader_read = mr_read,
	.reader_close = mr_close,
};
