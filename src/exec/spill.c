/* Spill files (spill.h). The format is the in-memory Arrow layout written
 * buffer by buffer: per batch a header (magic, rows), then per column,
 * recursively per child: the length, whether a validity bitmap follows,
 * the bitmap, the fixed-width or bit-packed values, the offsets, the
 * variable-length data (with its length). The types are not written: the
 * file's schema is known to its reader, which is the process that wrote
 * it. Reading allocates each buffer and reads it in one fread, so a spilled
 * batch costs about what a memcpy of it costs, plus the disk.
 *
 * Files are created with mkstemp and unlinked at once: nothing can be left
 * behind, whatever path the operator takes out. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "exec/keytab.h"
#include "exec/op.h"
#include "exec/spill.h"
#include "util/hash.h"

#define MAGIC 0x4c505344u /* "DSPL" */
#define IOBUF (64 * 1024)

struct dl_spill_file {
	FILE *fp;
	dl_type *schema;
	const char *what;
	int64_t rows, bytes;
	bool reading;
};

int dl_exec_check_interrupt(const dl_exec_ctx *ctx, const char *what)
{
	if (ctx && ctx->interrupt && atomic_load(ctx->interrupt))
		return dl_error_set_class(DL_ECANCELLED, "OPERATION_CANCELED", "[OPERATION_CANCELED] %s: the statement was interrupted",
		                          what);
	return 0;
}

static const char *temp_dir(const dl_exec_ctx *ctx)
{
	if (ctx && ctx->temp_dir && *ctx->temp_dir) return ctx->temp_dir;
	const char *t = getenv("TMPDIR");
	return t && *t ? t : "/tmp";
}

int dl_spill_open(dl_spill_file **out, const dl_exec_ctx *ctx, const dl_type *schema, const char *what)
{
	*out = NULL;
	const char *dir = temp_dir(ctx);
	size_t n = strlen(dir) + 32;
	char *path = dl_malloc(n);
	dl_spill_file *f = dl_calloc(1, sizeof *f);
	if (!path || !f) {
		dl_free(path);
		dl_free(f);
		return dl_error_set(DL_ENOMEM, "out of memory");
	}
	snprintf(path, n, "%s/dl-spill-XXXXXX", dir);
	int fd = mkstemp(path);
	if (fd < 0) {
		int e = errno;
		dl_free(f);
		int rc = dl_error_set(DL_EIO, "%s: cannot create a spill file in %s: %s", what, dir, strerror(e));
		dl_free(path);
		return rc;
	}
	unlink(path); /* gone from the directory now; the data lives until close */
	dl_free(path);
	f->fp = fdopen(fd, "w+b");
	if (!f->fp) {
		close(fd);
		dl_free(f);
		return dl_error_set(DL_EIO, "%s: cannot open a spill file: %s", what, strerror(errno));
	}
	setvbuf(f->fp, NULL, _IOFBF, IOBUF);
	f->schema = dl_type_ref((dl_type *)schema);
	f->what = what;
	*out = f;
	return 0;
}

void dl_spill_free(dl_spill_file *f)
{
	if (!f) return;
	if (f->fp) fclose(f->fp);
	dl_type_unref(f->schema);
	dl_free(f);
}

int64_t dl_spill_rows(const dl_spill_file *f)
{
	return f->rows;
}
int64_t dl_spill_bytes(const dl_spill_file *f)
{
	return f->bytes;
}

static int wr(dl_spill_file *f, const void *p, size_t n)
{
	if (n == 0) return 0;
	if (fwrite(p, 1, n, f->fp) != n)
		return dl_error_set(DL_EIO, "%s: writing a spill file failed: %s", f->what, strerror(errno));
	f->bytes += (int64_t)n;
	return 0;
}

static int rd(dl_spill_file *f, void *p, size_t n)
{
	if (n == 0) return 0;
	if (fread(p, 1, n, f->fp) != n)
		return dl_error_set(DL_EIO, "%s: reading a spill file failed (%s)", f->what,
		                    ferror(f->fp) ? strerror(errno) : "truncated");
	return 0;
}

static bool has_offsets(const dl_type *t)
{
	return t->id == DL_TYPE_STRING || t->id == DL_TYPE_BINARY || t->id == DL_TYPE_ARRAY || t->id == DL_TYPE_MAP;
}

static int64_t values_size(const dl_type *t, int64_t n)
{
	if (t->id == DL_TYPE_BOOLEAN) return (n + 7) / 8;
	int w = dl_type_fixed_width(t);
	return w > 0 ? n * w : 0;
}

static int write_array(dl_spill_file *f, const dl_array *a)
{
	int64_t n = a->length;
	uint8_t hv = a->validity != NULL && a->type->id != DL_TYPE_NULL;
	DL_TRY(wr(f, &n, sizeof n));
	DL_TRY(wr(f, &hv, 1));
	if (a->type->id == DL_TYPE_NULL) return 0;
	if (hv) DL_TRY(wr(f, a->validity, (size_t)(n + 7) / 8));
	DL_TRY(wr(f, a->values, (size_t)values_size(a->type, n)));
	if (has_offsets(a->type)) DL_TRY(wr(f, a->offsets, (size_t)(n + 1) * 4));
	if (a->type->id == DL_TYPE_STRING || a->type->id == DL_TYPE_BINARY) {
		int64_t dl = a->offsets ? a->offsets[n] : 0;
		DL_TRY(wr(f, &dl, sizeof dl));
		DL_TRY(wr(f, a->data, (size_t)dl));
	}
	for (int c = 0; c < a->nchildren; c++) DL_TRY(write_array(f, a->children[c]));
	return 0;
}

static void *alloc_read(dl_spill_file *f, int64_t n, int *rc)
{
	void *p = dl_malloc((size_t)(n > 0 ? n : 1));
	if (!p) *rc = dl_error_set(DL_ENOMEM, "out of memory reading a spill file");
	else if ((*rc = rd(f, p, (size_t)n)) < 0) {
		dl_free(p);
		p = NULL;
	}
	return p;
}

static int read_array(dl_spill_file *f, dl_type *t, dl_array **out)
{
	*out = NULL;
	int64_t n;
	uint8_t hv;
	DL_TRY(rd(f, &n, sizeof n));
	DL_TRY(rd(f, &hv, 1));
	if (t->id == DL_TYPE_NULL) {
		*out = dl_array_new_null(t, n);
		return *out ? 0 : dl_exec_failed();
	}
	dl_array *a = dl_calloc(1, sizeof *a);
	if (!a) return dl_error_set(DL_ENOMEM, "out of memory");
	a->type = dl_type_ref(t);
	a->length = n;
	a->null_count = -1;
	int rc = 0;
	if (hv) a->validity = alloc_read(f, (n + 7) / 8, &rc);
	int64_t vs = values_size(t, n);
	if (rc == 0 && (vs > 0 || t->id == DL_TYPE_BOOLEAN || dl_type_fixed_width(t) > 0))
		a->values = alloc_read(f, vs, &rc);
	if (rc == 0 && has_offsets(t)) a->offsets = alloc_read(f, (n + 1) * 4, &rc);
	if (rc == 0 && (t->id == DL_TYPE_STRING || t->id == DL_TYPE_BINARY)) {
		int64_t dlen = 0;
		rc = rd(f, &dlen, sizeof dlen);
		if (rc == 0) a->data = alloc_read(f, dlen, &rc);
		a->data_len = dlen;
	}
	if (rc == 0 && t->nchildren > 0) {
		a->children = dl_calloc((size_t)t->nchildren, sizeof *a->children);
		if (!a->children) rc = dl_error_set(DL_ENOMEM, "out of memory");
		else a->nchildren = t->nchildren;
		for (int c = 0; rc == 0 && c < t->nchildren; c++) rc = read_array(f, t->children[c].type, &a->children[c]);
	}
	if (rc < 0) {
		dl_array_free(a);
		return rc;
	}
	*out = a;
	return 0;
}

int dl_spill_write(dl_spill_file *f, const dl_batch *b)
{
	if (b->num_rows == 0) return 0;
	uint32_t m = MAGIC;
	int64_t n = b->num_rows;
	DL_TRY(wr(f, &m, sizeof m));
	DL_TRY(wr(f, &n, sizeof n));
	for (int c = 0; c < b->ncols; c++) DL_TRY(write_array(f, b->cols[c]));
	f->rows += n;
	return 0;
}

int dl_spill_rewind(dl_spill_file *f)
{
	if (fflush(f->fp) != 0 || fseek(f->fp, 0, SEEK_SET) != 0)
		return dl_error_set(DL_EIO, "%s: spill file: %s", f->what, strerror(errno));
	f->reading = true;
	return 0;
}

int dl_spill_read(dl_spill_file *f, dl_batch **out)
{
	*out = NULL;
	uint32_t m;
	size_t got = fread(&m, 1, sizeof m, f->fp);
	if (got == 0 && feof(f->fp)) return 0;
	if (got != sizeof m || m != MAGIC)
		return dl_error_set(DL_EIO, "%s: spill file is damaged (bad batch header)", f->what);
	int64_t n;
	DL_TRY(rd(f, &n, sizeof n));
	dl_batch *b = dl_batch_new(f->schema, n);
	if (!b) return dl_exec_failed();
	for (int c = 0; c < b->ncols; c++) {
		int rc = read_array(f, f->schema->children[c].type, &b->cols[c]);
		if (rc < 0) {
			dl_batch_free(b);
			return rc;
		}
	}
	*out = b;
	return 0;
}

/* ---- a stream over a file -------------------------------------------- */

typedef struct spill_stream {
	dl_spill_file *f;
	dl_exec_ctx ctx;
} spill_stream;

static const dl_type *ss_schema(dl_batch_stream *s)
{
	spill_stream *p = s->private_data;
	return p->f->schema;
}

static int ss_next(dl_batch_stream *s, dl_batch **out)
{
	spill_stream *p = s->private_data;
	*out = NULL;
	DL_TRY(dl_exec_check_interrupt(&p->ctx, p->f->what));
	return dl_spill_read(p->f, out);
}

static void ss_release(dl_batch_stream *s)
{
	spill_stream *p = s->private_data;
	dl_spill_free(p->f);
	dl_free(p);
	dl_free(s);
}

int dl_spill_stream(dl_batch_stream **out, dl_spill_file *f, const dl_exec_ctx *ctx)
{
	*out = NULL;
	int rc = dl_spill_rewind(f);
	spill_stream *p = rc == 0 ? dl_calloc(1, sizeof *p) : NULL;
	if (rc == 0 && !p) rc = dl_error_set(DL_ENOMEM, "out of memory");
	if (p) {
		p->f = f;
		if (ctx) p->ctx = *ctx;
		if (!(*out = dl_exec_stream_new(p, ss_schema, ss_next, ss_release))) {
			rc = dl_exec_failed();
			dl_free(p);
		}
	}
	if (rc < 0) dl_spill_free(f);
	return rc;
}

/* ---- partitions ------------------------------------------------------ */

int dl_spill_part_of(uint64_t hash, int level)
{
	/* the key table uses the hash's low bits and top 32: re-mix with the
	 * level so each level splits on bits independent of those and of the
	 * levels above */
	uint64_t h = dl_hash_mix64(hash + 0x9e3779b97f4a7c15ull * (uint64_t)(level + 1));
	return (int)(h >> 60) & (DL_SPILL_PARTS - 1);
}

int dl_spill_parts_open(dl_spill_parts *p, const dl_exec_ctx *ctx, const dl_type *schema, int level,
                        const char *what)
{
	memset(p, 0, sizeof *p);
	p->n = DL_SPILL_PARTS;
	p->level = level;
	if (ctx) p->ctx = *ctx;
	p->schema = dl_type_ref((dl_type *)schema);
	p->what = what;
	return 0;
}

void dl_spill_parts_free(dl_spill_parts *p)
{
	for (int i = 0; i < DL_SPILL_PARTS; i++) {
		dl_spill_free(p->f[i]);
		p->f[i] = NULL;
	}
	dl_free(p->h);
	dl_free(p->sel);
	dl_type_unref(p->schema);
	p->schema = NULL;
	p->h = NULL;
	p->sel = NULL;
	p->cap = 0;
}

int dl_spill_parts_write(dl_spill_parts *p, const dl_batch *b, dl_array *const *keys, int nkeys)
{
	int64_t n = b->num_rows;
	if (n == 0) return 0;
	if (n > p->cap) {
		dl_free(p->h);
		dl_free(p->sel);
		p->h = dl_malloc((size_t)n * sizeof *p->h);
		p->sel = dl_malloc((size_t)n * sizeof *p->sel);
		p->cap = p->h && p->sel ? n : 0;
		if (!p->cap) return dl_error_set(DL_ENOMEM, "out of memory");
	}
	dl_keys_hash(p->h, keys, nkeys, n);
	/* a counting sort of the rows by partition: sel holds partition 0's
	 * rows, then 1's... each in input order */
	int64_t cnt[DL_SPILL_PARTS + 1] = {0};
	uint8_t *part = (uint8_t *)p->h; /* reuse: part[i] written after h[i] read */
	for (int64_t i = 0; i < n; i++) {
		int q = dl_spill_part_of(p->h[i], p->level);
		part[i] = (uint8_t)q;
		cnt[q + 1]++;
	}
	for (int q = 0; q < DL_SPILL_PARTS; q++) cnt[q + 1] += cnt[q];
	int64_t pos[DL_SPILL_PARTS];
	memcpy(pos, cnt, sizeof pos);
	for (int64_t i = 0; i < n; i++) p->sel[pos[part[i]]++] = (uint32_t)i;
	for (int q = 0; q < DL_SPILL_PARTS; q++) {
		int64_t m = cnt[q + 1] - cnt[q];
		if (m == 0) continue;
		if (!p->f[q]) DL_TRY(dl_spill_open(&p->f[q], &p->ctx, p->schema, p->what));
		int rc = 0;
		if (m == n) {
			rc = dl_spill_write(p->f[q], b);
		} else {
			dl_batch *t = dl_batch_take(b, p->sel + cnt[q], m);
			if (!t) return dl_exec_failed();
			rc = dl_spill_write(p->f[q], t);
			dl_batch_free(t);
		}
		DL_TRY(rc);
	}
	return 0;
}

int dl_spill_parts_take(dl_spill_file **out, dl_spill_parts *p, int i)
{
	*out = NULL;
	dl_spill_file *f = p->f[i];
	p->f[i] = NULL;
	if (!f) return 0;
	if (f->rows == 0) {
		dl_spill_free(f);
		return 0;
	}
	int rc = dl_spill_rewind(f);
	if (rc < 0) {
		dl_spill_free(f);
		return rc;
	}
	*out = f;
	return 0;
}
