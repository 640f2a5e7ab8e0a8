/* dl_store: argument checks, error context and sorted listings over a
 * backend vtable (backend.h). */
#include "storage/backend.h"
#include "storage/path.h"
#include "util/error.h"
#include "util/mem.h"
#include <stdlib.h>
#include <string.h>

struct dl_store {
	const dl_store_backend *backend;
	void *impl;
	char *root; /* the URI as given, without trailing '/' */
};

static const dl_store_backend *const backends[] = {
	&dl_store_backend_file,
	&dl_store_backend_mem,
};

static const dl_store_backend *find_backend(const char *scheme)
{
	for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++)
		if (strcmp(backends[i]->scheme, scheme) == 0) return backends[i];
	return NULL;
}

int dl_store_open(dl_store **out, const char *uri)
{
	*out = NULL;
	dl_store_uri u;
	DL_TRY(dl_store_uri_parse(&u, uri));
	const dl_store_backend *be = find_backend(u.scheme);
	dl_store *s = dl_calloc(1, sizeof *s);
	char *root = dl_strdup(uri);
	int rc = (s && root) ? 0 : DL_ENOMEM;
	if (rc == 0) {
		size_t n = strlen(root);
		while (n > 1 && root[n - 1] == '/' && root[n - 2] != '/') root[--n] = 0;
		s->backend = be;
		s->root = root;
		rc = be->open(&s->impl, u.location);
	}
	dl_store_uri_free(&u);
	if (rc < 0) {
		dl_free(root);
		dl_free(s);
		return dl_error_prefix("opening store %s", uri);
	}
	*out = s;
	return 0;
}

void dl_store_free(dl_store *s)
{
	if (!s) return;
	s->backend->free(s->impl);
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
	return s->backend->get(s->impl, path, data, len);
}

int dl_store_get_range(uint8_t *buf, size_t *got, dl_store *s,
                       const char *path, int64_t offset, size_t len)
{
	*got = 0;
	DL_TRY(check_path(s, path, false));
	if (offset < 0)
		return dl_error_set(DL_EINVALID, "negative offset %lld reading %s/%s",
		                    (long long)offset, s->root, path);
	return s->backend->get_range(s->impl, path, offset, len, buf, got);
}

int dl_store_put(dl_store *s, const char *path, const void *data, size_t len)
{
	DL_TRY(check_path(s, path, false));
	return s->backend->put(s->impl, path, data, len);
}

int dl_store_put_if_absent(dl_store *s, const char *path, const void *data, size_t len)
{
	DL_TRY(check_path(s, path, false));
	return s->backend->put_if_absent(s->impl, path, data, len);
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

static int list_sorted(dl_store *s, const char *dir, const char *start_name, bool recursive,
                       dl_object_list *out)
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
	int rc = s->backend->list(s->impl, dir, recursive, out);
	if (rc < 0) {
		dl_object_list_free(out);
		return rc;
	}
	if (start_name) filter_from(out, start_name);
	/* Names in one directory sort the same as their full paths. */
	if (out->count > 1) qsort(out->items, out->count, sizeof *out->items, cmp_info_path);
	return 0;
}

int dl_store_list_from(dl_object_list *out, dl_store *s, const char *dir, const char *start_name)
{
	return list_sorted(s, dir, start_name, false, out);
}

int dl_store_list_recursive(dl_object_list *out, dl_store *s, const char *dir)
{
	return list_sorted(s, dir, NULL, true, out);
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
	return s->backend->del(s->impl, path);
}

int dl_store_stat(dl_object_info *out, dl_store *s, const char *path)
{
	out->path = NULL;
	DL_TRY(check_path(s, path, false));
	return s->backend->stat(s->impl, path, out);
}

void dl_object_info_free(dl_object_info *i)
{
	if (!i) return;
	dl_free(i->path);
	i->path = NULL;
}

/* ---- streaming writer ---- */

struct dl_store_writer {
	const dl_store_backend *backend;
	void *state;
	int64_t size;
	bool failed;
};

int dl_store_writer_open(dl_store_writer **out, dl_store *s, const char *path)
{
	*out = NULL;
	DL_TRY(check_path(s, path, false));
	dl_store_writer *w = dl_calloc(1, sizeof *w);
	if (!w) return DL_ENOMEM;
	w->backend = s->backend;
	int rc = s->backend->writer_open(s->impl, path, &w->state);
	if (rc < 0) {
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
	int rc = w->backend->writer_write(w->state, data, len);
	if (rc < 0) w->failed = true;
	else w->size += (int64_t)len;
	return rc;
}

int64_t dl_store_writer_size(const dl_store_writer *w)
{
	return w->size;
}

int dl_store_writer_commit(dl_store_writer *w, int if_absent)
{
	if (w->failed) {
		dl_store_writer_abort(w);
		return dl_error_set(DL_EINVALID, "cannot commit a store writer after a failed write");
	}
	int rc = w->backend->writer_commit(w->state, if_absent != 0);
	dl_free(w);
	return rc;
}

void dl_store_writer_abort(dl_store_writer *w)
{
	if (!w) return;
	w->backend->writer_abort(w->state);
	dl_free(w);
}

/* ---- random-access reader ---- */

struct dl_store_reader {
	const dl_store_backend *backend;
	void *state;
	int64_t size;
	const uint8_t *data;
	char *name; /* root/path, for messages */
};

int dl_store_reader_open(dl_store_reader **out, dl_store *s, const char *path)
{
	*out = NULL;
	DL_TRY(check_path(s, path, false));
	dl_store_reader *r = dl_calloc(1, sizeof *r);
	if (!r) return DL_ENOMEM;
	r->backend = s->backend;
	int rc = dl_path_join(&r->name, s->root, path);
	if (rc == 0) rc = s->backend->reader_open(s->impl, path, &r->state, &r->size, &r->data);
	if (rc < 0) {
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
	return r->backend->reader_read(r->state, offset, len, buf, got);
}

void dl_store_reader_close(dl_store_reader *r)
{
	if (!r) return;
	r->backend->reader_close(r->state);
	dl_free(r->name);
	dl_free(r);
}
