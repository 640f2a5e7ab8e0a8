/* dl_store: argument checks, error context, options and sorted listings
 * over a backend from the registry (deltalake/sys/store_backend.h), and the
 * generic versions of the optional backend functions. */
#include "storage/backend.h"
#include "storage/path.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct dl_store {
	dl_store_backend backend; /* a copy: unregistering cannot pull it away */
	void *impl;
	char *root; /* the URI as given, without trailing '/' */
	dl_store_options opts; /* a private copy; keys/values point into opt_strs */
	char **opt_strs;       /* 2 * noptions strings */
};

/* ---- options ---- */

static const char *const known_keys[] = {
	DL_STORE_OPT_ENDPOINT, DL_STORE_OPT_REGION, DL_STORE_OPT_ACCESS_KEY_ID,
	DL_STORE_OPT_SECRET_ACCESS_KEY, DL_STORE_OPT_SESSION_TOKEN, DL_STORE_OPT_TIMEOUT_MS,
	DL_STORE_OPT_CONNECT_TIMEOUT_MS, DL_STORE_OPT_RETRY_MAX_ATTEMPTS, DL_STORE_OPT_RETRY_BACKOFF_MS,
	DL_STORE_OPT_RETRY_MAX_BACKOFF_MS, NULL,
};
static const char *const numeric_keys[] = {
	DL_STORE_OPT_TIMEOUT_MS, DL_STORE_OPT_CONNECT_TIMEOUT_MS, DL_STORE_OPT_RETRY_MAX_ATTEMPTS,
	DL_STORE_OPT_RETRY_BACKOFF_MS, DL_STORE_OPT_RETRY_MAX_BACKOFF_MS, NULL,
};

static bool in_list(const char *const *l, const char *k)
{
	for (; *l; l++)
		if (strcmp(*l, k) == 0) return true;
	return false;
}

static bool is_count(const char *v)
{
	if (!v || !*v) return false;
	errno = 0;
	char *end;
	long long n = strtoll(v, &end, 10);
	return *end == 0 && errno == 0 && n >= 0;
}

/* Checks what every store shares: the version, the arrays, the well-known
 * keys and their values. Namespaced keys are their backend's. */
static int check_options(const dl_store_options *o)
{
	if (o->version < 1 || o->version > DL_STORE_OPTIONS_VERSION)
		return dl_error_set(DL_EINVALID,
		                    "dl_store_options.version is %d; this library knows versions 1 to %d: "
		                    "initialize options with DL_STORE_OPTIONS_INIT",
		                    o->version, DL_STORE_OPTIONS_VERSION);
	if (o->noptions < 0 || (o->noptions > 0 && (!o->keys || !o->values)))
		return dl_error_set(DL_EINVALID, "dl_store_options: noptions is %d but keys or values is NULL",
		                    o->noptions);
	for (int i = 0; i < o->noptions; i++) {
		const char *k = o->keys[i], *v = o->values[i];
		if (!k || !v) return dl_error_set(DL_EINVALID, "dl_store_options: key or value %d is NULL", i);
		if (strchr(k, '.') && !in_list(known_keys, k)) continue;
		if (!in_list(known_keys, k))
			return dl_error_set(DL_EINVALID,
			                    "unknown store option \"%s\"; known: endpoint, region, access_key_id, "
			                    "secret_access_key, session_token, timeout_ms, connect_timeout_ms, "
			                    "retry.max_attempts, retry.backoff_ms, retry.max_backoff_ms, or "
			                    "<scheme>.<name> for one backend", k);
		if (in_list(numeric_keys, k) && !is_count(v))
			return dl_error_set(DL_EINVALID, "store option %s=\"%s\" must be a whole number >= 0", k, v);
	}
	return 0;
}

static void free_options(dl_store *s)
{
	if (s->opt_strs)
		for (int i = 0; i < 2 * s->opts.noptions; i++) dl_free(s->opt_strs[i]);
	dl_free(s->opt_strs);
	s->opt_strs = NULL;
}

static int copy_options(dl_store *s, const dl_store_options *o)
{
	s->opts = *o;
	s->opts.version = DL_STORE_OPTIONS_VERSION;
	s->opts.keys = s->opts.values = NULL;
	int n = o->noptions;
	s->opts.noptions = 0;
	if (n == 0) return 0;
	s->opt_strs = dl_calloc((size_t)n * 2, sizeof *s->opt_strs);
	if (!s->opt_strs) return DL_ENOMEM;
	s->opts.noptions = n;
	for (int i = 0; i < n; i++) {
		s->opt_strs[i] = dl_strdup(o->keys[i]);
		s->opt_strs[n + i] = dl_strdup(o->values[i]);
		if (!s->opt_strs[i] || !s->opt_strs[n + i]) return DL_ENOMEM;
	}
	s->opts.keys = (const char *const *)s->opt_strs;
	s->opts.values = (const char *const *)s->opt_strs + n;
	return 0;
}

const char *dl_store_options_get(const dl_store_options *o, const char *key)
{
	if (!o || !key) return NULL;
	for (int i = o->noptions - 1; i >= 0; i--)
		if (o->keys[i] && strcmp(o->keys[i], key) == 0) return o->values[i];
	return NULL;
}

int dl_store_options_check_namespace(const dl_store_options *o, const char *ns,
                                     const char *const *known)
{
	size_t nl = strlen(ns);
	for (int i = 0; i < o->noptions; i++) {
		const char *k = o->keys[i];
		if (strncmp(k, ns, nl) != 0 || k[nl] != '.') continue;
		if (in_list(known, k + nl + 1)) continue;
		dl_buf b = DL_BUF_INIT;
		for (const char *const *p = known; *p; p++) dl_buf_printf(&b, "%s%s.%s", p == known ? "" : ", ", ns, *p);
		int rc = dl_error_set(DL_EINVALID, "unknown store option \"%s\" for the %s backend; known: %s", k,
		                      ns, b.data ? b.data : "none");
		dl_buf_free(&b);
		return rc;
	}
	return 0;
}

int dl_store_backend_credentials(dl_store_credentials *out, const dl_store_options *o, const char *uri)
{
	*out = (dl_store_credentials){DL_STORE_CREDENTIALS_VERSION, NULL, NULL, NULL, INT64_MAX};
	if (o && o->credentials) {
		int rc = o->credentials(out, uri, o->payload);
		out->version = DL_STORE_CREDENTIALS_VERSION;
		if (rc < 0) return dl_error_prefix("the credentials callback for %s", uri);
		return 0;
	}
	out->access_key_id = dl_store_options_get(o, DL_STORE_OPT_ACCESS_KEY_ID);
	out->secret_access_key = dl_store_options_get(o, DL_STORE_OPT_SECRET_ACCESS_KEY);
	out->session_token = dl_store_options_get(o, DL_STORE_OPT_SESSION_TOKEN);
	if (!out->access_key_id && !out->secret_access_key && !out->session_token)
		return dl_error_set(DL_ENOTFOUND,
		                    "no credentials for %s: set the store options access_key_id and "
		                    "secret_access_key, or a credentials callback", uri);
	return 0;
}

const dl_store_options *dl_store_options_of(const dl_store *s)
{
	return &s->opts;
}

void *dl_store_impl_of(const dl_store *s, const dl_store_backend *be)
{
	return s && s->backend.open == be->open ? s->impl : NULL;
}

bool dl_store_is_local(const dl_store *s)
{
	return s && (s->backend.open == dl_store_backend_file.open || s->backend.open == dl_store_backend_mem.open);
}

const char *dl_store_scheme(const dl_store *s)
{
	return s->backend.scheme;
}

bool dl_store_lists_commits(const dl_store *s)
{
	return !(s->backend.limits & DL_STORE_LIMIT_UNLISTED_COMMITS);
}

/* ---- open ---- */

/* "PROFILE#share.schema.table" with PROFILE an existing regular file: a
 * Delta Sharing table (include/deltalake/sharing.h). The backend lives in
 * src/sharing, above this layer, so it is found by its scheme in the
 * registry (dl_sharing_register), never called directly. A directory whose
 * name holds '#' stays a plain path: the profile must be a file. */
static bool is_shared_table_path(const char *uri)
{
	const char *h = strrchr(uri, '#');
	if (!h || h == uri) return false;
	const char *d1 = strchr(h + 1, '.'), *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
	if (!d1 || !d2 || strchr(d2 + 1, '.') || d1 == h + 1 || d2 == d1 + 1 || !d2[1]) return false;
	char *profile = dl_strndup(uri, (size_t)(h - uri));
	struct stat st;
	bool ok = profile && stat(profile, &st) == 0 && S_ISREG(st.st_mode);
	dl_free(profile);
	return ok;
}

int dl_store_open(dl_store **out, const char *uri, const dl_store_options *opts)
{
	static const dl_store_options defaults = DL_STORE_OPTIONS_INIT;
	*out = NULL;
	if (!opts) opts = &defaults;
	DL_TRY(check_options(opts));
	if (!uri || !uri[0])
		return dl_error_set(DL_EINVALID, "empty table location; pass a path or a URI (file:///path)");
	size_t sl = dl_uri_scheme_len(uri);
	dl_store *s = dl_calloc(1, sizeof *s);
	char *root = dl_strdup(uri);
	int rc = (s && root) ? 0 : DL_ENOMEM;
	if (rc == 0 && sl) rc = dl_store_registry_find(&s->backend, uri, sl, uri);
	else if (rc == 0 && is_shared_table_path(uri)) {
		rc = dl_store_registry_find(&s->backend, "delta-sharing", 13, uri);
		if (rc < 0)
			dl_error_set(rc, "%s names a Delta Sharing table (PROFILE#share.schema.table) but no "
			             "delta-sharing backend is registered: call dl_sharing_register()", uri);
	} else if (rc == 0) rc = dl_store_registry_find(&s->backend, "file", 4, uri);
	if (rc == 0) rc = copy_options(s, opts);
	if (rc == 0) {
		size_t n = strlen(root);
		while (n > 1 && root[n - 1] == '/' && root[n - 2] != '/') root[--n] = 0;
		s->root = root;
		root = NULL;
		rc = s->backend.open(&s->impl, uri, &s->opts, s->backend.payload);
		if (rc < 0) s->impl = NULL;
	}
	if (rc < 0) {
		dl_free(root);
		if (s) {
			free_options(s);
			dl_free(s->root);
		}
		dl_free(s);
		return dl_error_prefix("opening store %s", uri);
	}
	*out = s;
	return 0;
}

void dl_store_free(dl_store *s)
{
	if (!s) return;
	s->backend.free(s->impl);
	free_options(s);
	dl_free(s->root);
	dl_free(s);
}

const char *dl_store_root(const dl_store *s)
{
	return s->root;
}

static int check_path(const dl_store *s, const char *path, bool allow_empty)
{
	if (dl_path_is_valid_relative(path, allow_empty)) return 0;
	return dl_error_set(DL_EINVALID,
	                    "invalid object path \"%s\" in store %s: paths are relative to the store "
	                    "root, without leading '/', empty, '.' or '..' segments",
	                    path ? path : "(null)", s->root);
}

int dl_store_get(uint8_t **data, size_t *len, dl_store *s, const char *path)
{
	*data = NULL;
	*len = 0;
	DL_TRY(check_path(s, path, false));
	uint8_t *d = NULL;
	size_t n = 0;
	DL_TRY(s->backend.get(&d, &n, s->impl, path));
	if (d) d[n] = 0; /* backends allocate one byte more */
	else if (!(d = dl_calloc(1, 1))) return DL_ENOMEM;
	*data = d;
	*len = n;
	return 0;
}

/* get_range for backends without one: the whole object, then the slice. */
static int range_from_get(dl_store *s, const char *path, int64_t offset, size_t len, uint8_t *buf,
                          size_t *got)
{
	uint8_t *d = NULL;
	size_t n = 0;
	DL_TRY(s->backend.get(&d, &n, s->impl, path));
	if ((uint64_t)offset < n) {
		size_t k = n - (size_t)offset < len ? n - (size_t)offset : len;
		memcpy(buf, d + offset, k);
		*got = k;
	}
	dl_free(d);
	return 0;
}

int dl_store_get_range(uint8_t *buf, size_t *got, dl_store *s,
                       const char *path, int64_t offset, size_t len)
{
	*got = 0;
	DL_TRY(check_path(s, path, false));
	if (offset < 0)
		return dl_error_set(DL_EINVALID, "negative offset %lld reading %s/%s",
		                    (long long)offset, s->root, path);
	if (!s->backend.get_range) return range_from_get(s, path, offset, len, buf, got);
	return s->backend.get_range(buf, got, s->impl, path, offset, len);
}

int dl_store_put(dl_store *s, const char *path, const void *data, size_t len)
{
	DL_TRY(check_path(s, path, false));
	return s->backend.put(s->impl, path, data, len);
}

int dl_store_put_if_absent(dl_store *s, const char *path, const void *data, size_t len)
{
	DL_TRY(check_path(s, path, false));
	return s->backend.put_if_absent(s->impl, path, data, len);
}

static int cmp_info_path(const void *a, const void *b)
{
	return strcmp(((const dl_object_info *)a)->path, ((const dl_object_info *)b)->path);
}

/* Drops entries whose name sorts before start_name, keeping order. */
static void filter_from(dl_object_list *l, const char *start_name)
{
	size_t k = 0;
	for (size_t i = 0; i < l->count; i++) {
		if (strcmp(dl_path_basename(l->items[i].path), start_name) >= 0) l->items[k++] = l->items[i];
		else dl_object_info_free(&l->items[i]);
	}
	l->count = k;
}

typedef struct list_acc {
	dl_object_list *out;
	size_t cap;
	dl_store *s;
	bool entries; /* keep the non-objects (size -1) too */
} list_acc;

static int list_emit(const char *path, int64_t size, int64_t mtime_ms, void *payload)
{
	list_acc *a = payload;
	if (!dl_path_is_valid_relative(path, false))
		return dl_error_set(DL_ECORRUPT, "the backend of store %s listed an invalid object path \"%s\"",
		                    a->s->root, path ? path : "(null)");
	if (size < 0 && !a->entries) return 0;
	return dl_object_list_push(a->out, &a->cap, path, size, mtime_ms);
}

static int list_sorted(dl_store *s, const char *dir, const char *start_name, bool recursive,
                       bool entries, dl_object_list *out)
{
	out->items = NULL;
	out->count = 0;
	if (!dir) dir = "";
	/* "_delta_log/" names the same directory as "_delta_log". */
	char trimmed[1024];
	size_t dl = strlen(dir);
	if (dl > 1 && dir[dl - 1] == '/' && dl < sizeof trimmed) {
		memcpy(trimmed, dir, dl - 1);
		trimmed[dl - 1] = 0;
		dir = trimmed;
	}
	DL_TRY(check_path(s, dir, true));
	list_acc acc = {out, 0, s, entries};
	/* an object store lists from the middle; the rest list all and filter */
	int rc = !recursive && start_name && *start_name && s->backend.list_from
	             ? s->backend.list_from(s->impl, dir, start_name, list_emit, &acc)
	             : s->backend.list(s->impl, dir, recursive, list_emit, &acc);
	if (rc < 0) {
		dl_object_list_free(out);
		return rc;
	}
	if (start_name) filter_from(out, start_name);
	/* Names in one directory sort the same as their full paths. */
	if (out->count > 1) qsort(out->items, out->count, sizeof *out->items, cmp_info_path);
	return 0;
}

int dl_store_version_at_timestamp(int64_t *version, dl_store *s, int64_t ts_ms, int mode,
                                  bool after_latest_ok)
{
	if (!s->backend.version_at_timestamp) return 0;
	int rc = s->backend.version_at_timestamp(version, s->impl, ts_ms, mode, after_latest_ok);
	return rc < 0 ? rc : 1;
}

int dl_store_list_from(dl_object_list *out, dl_store *s, const char *dir, const char *start_name)
{
	return list_sorted(s, dir, start_name, false, false, out);
}

int dl_store_list_entries_from(dl_object_list *out, dl_store *s, const char *dir, const char *start_name)
{
	return list_sorted(s, dir, start_name, false, true, out);
}

int dl_store_list_recursive(dl_object_list *out, dl_store *s, const char *dir)
{
	return list_sorted(s, dir, NULL, true, false, out);
}

void dl_object_list_free(dl_object_list *l)
{
	if (!l) return;
	for (size_t i = 0; i < l->count; i++) dl_free(l->items[i].path);
	dl_free(l->items);
	l->items = NULL;
	l->count = 0;
}

int dl_object_list_push(dl_object_list *l, size_t *cap, const char *path, int64_t size,
                        int64_t mtime_ms)
{
	if (l->count == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		dl_object_info *p = dl_reallocarray(l->items, nc, sizeof *p);
		if (!p) return DL_ENOMEM;
		l->items = p;
		*cap = nc;
	}
	char *copy = dl_strdup(path);
	if (!copy) return DL_ENOMEM;
	l->items[l->count++] = (dl_object_info){copy, size, mtime_ms};
	return 0;
}

int dl_store_delete(dl_store *s, const char *path)
{
	DL_TRY(check_path(s, path, false));
	return s->backend.del(s->impl, path);
}

/* The backend's batch delete takes at most this many paths (S3's
 * DeleteObjects limit); longer lists go in slices. */
#define DELETE_BATCH 1000

int dl_store_delete_many(size_t *deleted, dl_store *s, const char *const *paths, size_t n)
{
	*deleted = 0;
	for (size_t i = 0; i < n; i++) DL_TRY(check_path(s, paths[i], false));
	for (size_t i = 0; i < n;) {
		size_t k = n - i < DELETE_BATCH ? n - i : DELETE_BATCH;
		if (s->backend.delete_many) {
			size_t d = 0;
			int rc = s->backend.delete_many(&d, s->impl, paths + i, k);
			*deleted += d;
			if (rc < 0) return rc;
		} else {
			for (size_t j = i; j < i + k; j++) {
				int rc = s->backend.del(s->impl, paths[j]);
				if (rc == DL_ENOTFOUND) {
					dl_error_clear();
					continue;
				}
				if (rc < 0) return rc;
				(*deleted)++;
			}
		}
		i += k;
	}
	return 0;
}

int dl_store_stat(dl_object_info *out, dl_store *s, const char *path)
{
	out->path = NULL;
	DL_TRY(check_path(s, path, false));
	int64_t size = 0, mtime = 0;
	DL_TRY(s->backend.stat(&size, &mtime, s->impl, path));
	out->path = dl_strdup(path);
	if (!out->path) return DL_ENOMEM;
	out->size = size;
	out->mtime_ms = mtime;
	return 0;
}

void dl_object_info_free(dl_object_info *i)
{
	if (!i) return;
	dl_free(i->path);
	i->path = NULL;
}

/* ---- streaming writer ---- */

/* Writers and readers keep their own copy of the backend, so one that
 * outlives its store (which the contract does not allow, but old callers
 * did with the built-in backends) still finds its functions. */
struct dl_store_writer {
	dl_store_backend be;
	void *impl;
	void *state;     /* the backend's, or NULL when gathering into buf */
	char *path;      /* gathering: where commit puts the bytes */
	dl_buf buf;
	int64_t size;
	bool failed;
};

int dl_store_writer_open(dl_store_writer **out, dl_store *s, const char *path)
{
	*out = NULL;
	DL_TRY(check_path(s, path, false));
	dl_store_writer *w = dl_calloc(1, sizeof *w);
	if (!w) return DL_ENOMEM;
	w->be = s->backend;
	w->impl = s->impl;
	int rc;
	if (s->backend.writer_open) {
		rc = s->backend.writer_open(&w->state, s->impl, path);
	} else {
		w->path = dl_strdup(path);
		rc = w->path ? 0 : DL_ENOMEM;
	}
	if (rc < 0) {
		dl_free(w->path);
		dl_free(w);
		return rc;
	}
	*out = w;
	return 0;
}

int dl_store_writer_write(dl_store_writer *w, const void *data, size_t len)
{
	if (w->failed)
		return dl_error_set(DL_EINVALID, "write after a failed write: abort the store writer");
	int rc = w->be.writer_open ? w->be.writer_write(w->state, data, len)
	                                       : dl_buf_append(&w->buf, data, len);
	if (rc < 0) w->failed = true;
	else w->size += (int64_t)len;
	return rc;
}

int64_t dl_store_writer_size(const dl_store_writer *w)
{
	return w->size;
}

static void writer_release(dl_store_writer *w)
{
	dl_buf_free(&w->buf);
	dl_free(w->path);
	dl_free(w);
}

int dl_store_writer_commit(dl_store_writer *w, int if_absent)
{
	if (w->failed) {
		dl_store_writer_abort(w);
		return dl_error_set(DL_EINVALID, "cannot commit a store writer after a failed write");
	}
	const dl_store_backend *be = &w->be;
	int rc;
	if (be->writer_open) rc = be->writer_commit(w->state, if_absent != 0);
	else if (if_absent) rc = be->put_if_absent(w->impl, w->path, w->buf.data, w->buf.len);
	else rc = be->put(w->impl, w->path, w->buf.data, w->buf.len);
	writer_release(w);
	return rc;
}

void dl_store_writer_abort(dl_store_writer *w)
{
	if (!w) return;
	if (w->be.writer_open) w->be.writer_abort(w->state);
	writer_release(w);
}

/* ---- random-access reader ---- */

struct dl_store_reader {
	dl_store_backend be;
	void *state;        /* the backend's, or NULL when read whole */
	int64_t size;
	const uint8_t *data;
	uint8_t *owned;     /* read whole (backends without readers or get_range) */
	void *impl;         /* backends with get_range but no reader: */
	char *path;         /* ... ranged reads of this path */
	char *name;         /* root/path, for messages */
};

int dl_store_reader_open(dl_store_reader **out, dl_store *s, const char *path)
{
	*out = NULL;
	DL_TRY(check_path(s, path, false));
	dl_store_reader *r = dl_calloc(1, sizeof *r);
	if (!r) return DL_ENOMEM;
	r->be = s->backend;
	int rc = dl_path_join(&r->name, s->root, path);
	if (rc == 0 && s->backend.reader_open) {
		rc = s->backend.reader_open(&r->state, &r->size, &r->data, s->impl, path);
	} else if (rc == 0 && s->backend.get_range) {
		/* a remote object: its size now, its bytes by ranged reads */
		int64_t mtime;
		rc = s->backend.stat(&r->size, &mtime, s->impl, path);
		if (rc == 0) {
			r->impl = s->impl;
			r->path = dl_strdup(path);
			if (!r->path) rc = DL_ENOMEM;
		}
	} else if (rc == 0) {
		size_t n = 0;
		rc = s->backend.get(&r->owned, &n, s->impl, path);
		r->size = (int64_t)n;
		r->data = r->owned;
	}
	if (rc < 0) {
		dl_free(r->path);
		dl_free(r->name);
		dl_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

int64_t dl_store_reader_size(const dl_store_reader *r)
{
	return r->size;
}

const uint8_t *dl_store_reader_data(const dl_store_reader *r)
{
	return r->data;
}

void dl_store_reader_release(dl_store_reader *r, int64_t upto)
{
	if (r && r->data && !r->owned && r->be.reader_release && upto > 0)
		r->be.reader_release(r->state, upto < r->size ? upto : r->size);
}

int dl_store_reader_read(uint8_t *buf, size_t *got, dl_store_reader *r, int64_t offset, size_t len)
{
	*got = 0;
	if (offset < 0)
		return dl_error_set(DL_EINVALID, "negative offset %lld reading %s", (long long)offset, r->name);
	if (offset >= r->size) return 0;
	if ((uint64_t)len > (uint64_t)(r->size - offset)) len = (size_t)(r->size - offset);
	if (r->data) {
		memcpy(buf, r->data + offset, len);
		*got = len;
		return 0;
	}
	if (r->path) return r->be.get_range(buf, got, r->impl, r->path, offset, len);
	return r->be.reader_read(buf, got, r->state, offset, len);
}

void dl_store_reader_close(dl_store_reader *r)
{
	if (!r) return;
	if (r->be.reader_open) r->be.reader_close(r->state);
	dl_free(r->owned);
	dl_free(r->path);
	dl_free(r->name);
	dl_free(r);
}
