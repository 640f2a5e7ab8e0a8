/* Range reads of a Parquet file from a dl_store or from memory. */
#include "parquet/file_source.h"
#include <string.h>
#include "util/error.h"
#include "util/mem.h"

int pq_source_open_store(pq_source *s, dl_store *store, const char *path, int64_t size)
{
	memset(s, 0, sizeof *s);
	if (!store || !path) return dl_error_set(DL_EINVALID, "parquet: a store and a path are required");
	if (size < 0) {
		dl_object_info info;
		DL_TRY(dl_store_stat(&info, store, path));
		size = info.size;
		dl_object_info_free(&info);
	}
	s->store = store;
	s->size = size;
	s->path = dl_strdup(path);
	s->name = dl_strdup(path);
	if (!s->path || !s->name) {
		pq_source_close(s);
		return DL_ENOMEM;
	}
	return 0;
}

int pq_source_open_memory(pq_source *s, const uint8_t *data, size_t len, const char *name)
{
	memset(s, 0, sizeof *s);
	if (!data && len) return dl_error_set(DL_EINVALID, "parquet: NULL memory image");
	s->mem = data;
	s->size = (int64_t)len;
	s->name = dl_strdup(name ? name : "<memory>");
	return s->name ? 0 : DL_ENOMEM;
}

void pq_source_close(pq_source *s)
{
	dl_free(s->path);
	dl_free(s->name);
	memset(s, 0, sizeof *s);
}

static int check_range(pq_source *s, int64_t off, size_t len)
{
	if (off < 0 || off > s->size || (uint64_t)len > (uint64_t)(s->size - off))
		return dl_error_set(DL_ECORRUPT, "%s: byte range [%lld, +%zu) lies outside the file of %lld bytes",
		                    s->name, (long long)off, len, (long long)s->size);
	return 0;
}

static int read_exact(pq_source *s, int64_t off, size_t len, uint8_t *buf)
{
	size_t got = 0;
	DL_TRY(dl_store_get_range(buf, &got, s->store, s->path, off, len));
	if (got != len)
		return dl_error_set(DL_EIO, "%s: short read (%zu of %zu bytes at %lld); the file changed or was truncated",
		                    s->name, got, len, (long long)off);
	return 0;
}

int pq_source_read(pq_source *s, int64_t off, size_t len, const uint8_t **ptr, uint8_t **owned)
{
	*owned = NULL;
	*ptr = NULL;
	DL_TRY(check_range(s, off, len));
	if (s->mem) {
		*ptr = s->mem + off;
		return 0;
	}
	uint8_t *buf = dl_malloc(len ? len : 1);
	if (!buf) return DL_ENOMEM;
	int rc = read_exact(s, off, len, buf);
	if (rc < 0) {
		dl_free(buf);
		return rc;
	}
	*ptr = buf;
	*owned = buf;
	return 0;
}

int pq_source_read_into(pq_source *s, int64_t off, size_t len, const uint8_t **ptr, uint8_t **buf, size_t *cap)
{
	*ptr = NULL;
	DL_TRY(check_range(s, off, len));
	if (s->mem) {
		*ptr = s->mem + off;
		return 0;
	}
	if (len > *cap || !*buf) {
		uint8_t *b = dl_realloc(*buf, len ? len : 1);
		if (!b) return DL_ENOMEM;
		*buf = b;
		*cap = len;
	}
	DL_TRY(read_exact(s, off, len, *buf));
	*ptr = *buf;
	return 0;
}
