/* Deletion vectors: descriptors, RoaringBitmapArray (de)serialization and
 * the DV file format. */
#include "log/deletion_vector.h"
#include <inttypes.h>
#include <pthread.h>
#include <roaring/roaring.h>
#include <stdio.h>
#include <string.h>
#include "util/crc32.h"
#include "log/path.h"
#include "util/z85.h"
#include "util/error.h"
#include "util/mem.h"

int dl_dv_unique_id(const dl_dv_descriptor *dv, dl_buf *out)
{
	if (dv->offset >= 0)
		return dl_buf_printf(out, "%c%s@%" PRId64, dv->storage_type, dv->path_or_inline,
		                     dv->offset);
	return dl_buf_printf(out, "%c%s", dv->storage_type, dv->path_or_inline);
}

int dl_dv_file_path(const dl_dv_descriptor *dv, dl_buf *out)
{
	if (dv->storage_type == 'p') {
		dl_arena a = DL_ARENA_INIT;
		const char *p;
		int rc = dl_log_path_decode(&a, dv->path_or_inline, strlen(dv->path_or_inline),
		                            "deletion vector path", &p);
		if (rc == 0) rc = dl_buf_puts(out, p);
		dl_arena_free(&a);
		return rc;
	}
	if (dv->storage_type != 'u')
		return dl_error_set(DL_EINVALID, "an inline deletion vector has no file");
	size_t n = strlen(dv->path_or_inline);
	if (n < 20)
		return dl_error_set(DL_ECORRUPT,
		                    "deletion vector id '%s' is too short: a 'u' id ends with a 20-char "
		                    "Z85 UUID",
		                    dv->path_or_inline);
	uint8_t u[16];
	DL_TRY(dl_z85_decode(u, 16, dv->path_or_inline + n - 20, 20));
	size_t plen = n - 20;
	if (plen) {
		DL_TRY(dl_buf_append(out, dv->path_or_inline, plen));
		DL_TRY(dl_buf_putc(out, '/'));
	}
	return dl_buf_printf(out,
	                     "deletion_vector_%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x"
	                     "%02x%02x%02x.bin",
	                     u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
	                     u[12], u[13], u[14], u[15]);
}

/* ---- RoaringBitmapArray ---- */

static uint32_t rd_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd_le64(const uint8_t *p)
{
	return (uint64_t)rd_le32(p) | (uint64_t)rd_le32(p + 4) << 32;
}

static uint32_t rd_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

void dl_dv_rows_free(dl_dv_rows *rows)
{
	for (uint32_t i = 0; i < rows->nbuckets; i++) roaring_bitmap_free(rows->buckets[i].bitmap);
	dl_free(rows->buckets);
	memset(rows, 0, sizeof *rows);
}

int dl_dv_rows_deserialize(dl_dv_rows *out, const uint8_t *data, size_t len, const char *what)
{
	memset(out, 0, sizeof *out);
	if (len < 12)
		return dl_error_set(DL_ECORRUPT, "%s: deletion vector of %zu bytes is too short", what, len);
	if (rd_le32(data) != DL_DV_MAGIC)
		return dl_error_set(DL_ECORRUPT,
		                    "%s: deletion vector has magic number %" PRIu32 ", expected %u", what,
		                    rd_le32(data), DL_DV_MAGIC);
	uint64_t nb = rd_le64(data + 4);
	size_t pos = 12;
	/* Each bucket takes at least 4 (key) + 8 (empty bitmap) bytes. */
	if (nb > (len - pos) / 12)
		return dl_error_set(DL_ECORRUPT, "%s: deletion vector claims %" PRIu64
		                    " buckets in %zu bytes", what, nb, len);
	out->buckets = dl_calloc(nb ? nb : 1, sizeof *out->buckets);
	if (!out->buckets) return DL_ENOMEM;
	int64_t prev = -1;
	for (uint64_t b = 0; b < nb; b++) {
		if (len - pos < 4) goto truncated;
		uint32_t key = rd_le32(data + pos);
		pos += 4;
		if ((int64_t)key <= prev || key > INT32_MAX) {
			dl_dv_rows_free(out);
			return dl_error_set(DL_ECORRUPT, "%s: deletion vector bucket keys must ascend and be "
			                    "below 2^31 (bucket %" PRIu64 ")", what, b);
		}
		prev = key;
		roaring_bitmap_t *bm =
			roaring_bitmap_portable_deserialize_safe((const char *)data + pos, len - pos);
		if (!bm) goto truncated;
		size_t used = roaring_bitmap_portable_size_in_bytes(bm);
		if (used > len - pos) {
			roaring_bitmap_free(bm);
			goto truncated;
		}
		pos += used;
		out->buckets[out->nbuckets].key = key;
		out->buckets[out->nbuckets].bitmap = bm;
		out->nbuckets++;
		out->cardinality += roaring_bitmap_get_cardinality(bm);
	}
	return 0;
truncated:
	dl_dv_rows_free(out);
	return dl_error_set(DL_ECORRUPT, "%s: deletion vector bitmap is truncated or malformed", what);
}

/* The serialized size of rows (magic, bucket count, per bucket its key
 * and portable bitmap), the bitmaps run-optimized first as the bytes
 * written are. */
static size_t serialized_size(const dl_dv_rows *rows)
{
	size_t n = 12;
	for (uint32_t b = 0; b < rows->nbuckets; b++) {
		roaring_bitmap_t *bm = rows->buckets[b].bitmap;
		roaring_bitmap_run_optimize(bm);
		n += 4 + roaring_bitmap_portable_size_in_bytes(bm);
	}
	return n;
}

/* Writes the serialized_size(rows) bytes at p. */
static void serialize_to(const dl_dv_rows *rows, uint8_t *p)
{
	uint32_t m = DL_DV_MAGIC;
	uint64_t nb = rows->nbuckets;
	for (int i = 0; i < 4; i++) *p++ = (uint8_t)(m >> (8 * i));
	for (int i = 0; i < 8; i++) *p++ = (uint8_t)(nb >> (8 * i));
	for (uint32_t b = 0; b < rows->nbuckets; b++) {
		const roaring_bitmap_t *bm = rows->buckets[b].bitmap;
		uint32_t key = rows->buckets[b].key;
		for (int i = 0; i < 4; i++) *p++ = (uint8_t)(key >> (8 * i));
		p += roaring_bitmap_portable_serialize(bm, (char *)p);
	}
}

/* Room for n more bytes: exactly n when the buffer is empty (a DV of
 * megabytes is not doubled into a buffer twice its size), else doubling,
 * as appends to a file of many DVs need. */
static int reserve(dl_buf *out, size_t n)
{
	return out->len ? dl_buf_reserve(out, n) : dl_buf_reserve_upto(out, n, n + 1);
}

int dl_dv_rows_serialize(const dl_dv_rows *rows, dl_buf *out)
{
	size_t n = serialized_size(rows);
	DL_TRY(reserve(out, n));
	serialize_to(rows, (uint8_t *)out->data + out->len);
	out->len += n;
	out->data[out->len] = 0;
	return 0;
}

int dl_dv_rows_from_array(dl_dv_rows *out, const uint64_t *rows, size_t n)
{
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < n; i++) {
		uint32_t key = (uint32_t)(rows[i] >> 32);
		if (key > INT32_MAX) {
			dl_dv_rows_free(out);
			return dl_error_set(DL_EINVALID, "row index %" PRIu64 " is too large for a DV", rows[i]);
		}
		dl_dv_bucket *bk = NULL;
		for (uint32_t b = 0; b < out->nbuckets; b++)
			if (out->buckets[b].key == key) bk = &out->buckets[b];
		if (!bk) {
			dl_dv_bucket *nbk = dl_reallocarray(out->buckets, out->nbuckets + 1, sizeof *nbk);
			if (!nbk) {
				dl_dv_rows_free(out);
				return DL_ENOMEM;
			}
			out->buckets = nbk;
			/* keep buckets sorted by key */
			uint32_t at = out->nbuckets;
			while (at > 0 && out->buckets[at - 1].key > key) {
				out->buckets[at] = out->buckets[at - 1];
				at--;
			}
			out->buckets[at].key = key;
			out->buckets[at].bitmap = roaring_bitmap_create();
			out->nbuckets++;
			if (!out->buckets[at].bitmap) {
				dl_dv_rows_free(out);
				return dl_error_set(DL_ENOMEM, "out of memory building a deletion vector");
			}
			bk = &out->buckets[at];
		}
		roaring_bitmap_add(bk->bitmap, (uint32_t)rows[i]);
	}
	out->cardinality = 0;
	for (uint32_t b = 0; b < out->nbuckets; b++)
		out->cardinality += roaring_bitmap_get_cardinality(out->buckets[b].bitmap);
	return 0;
}

bool dl_dv_rows_contains(const dl_dv_rows *rows, uint64_t row)
{
	uint32_t key = (uint32_t)(row >> 32);
	uint32_t lo = 0, hi = rows->nbuckets;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (rows->buckets[mid].key < key) lo = mid + 1;
		else hi = mid;
	}
	return lo < rows->nbuckets && rows->buckets[lo].key == key &&
	       roaring_bitmap_contains(rows->buckets[lo].bitmap, (uint32_t)row);
}

int dl_dv_rows_to_array(const dl_dv_rows *rows, uint64_t **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (!rows->cardinality) return 0;
	/* A few bytes of run containers can claim billions of rows: refuse to
	 * materialize what no data file holds (use dl_dv_rows_contains). */
	if (rows->cardinality > DL_DV_MAX_ARRAY_ROWS)
		return dl_error_set(DL_ENOMEM, "deletion vector of %" PRIu64 " rows is too large to list "
		                    "(limit %llu)", rows->cardinality, (unsigned long long)DL_DV_MAX_ARRAY_ROWS);
	uint64_t *a = dl_reallocarray(NULL, rows->cardinality, sizeof *a);
	uint32_t *tmp = NULL;
	if (!a) return DL_ENOMEM;
	size_t k = 0;
	for (uint32_t b = 0; b < rows->nbuckets; b++) {
		uint64_t c = roaring_bitmap_get_cardinality(rows->buckets[b].bitmap);
		uint32_t *t = dl_reallocarray(tmp, c ? c : 1, sizeof *t);
		if (!t) {
			dl_free(tmp);
			dl_free(a);
			return DL_ENOMEM;
		}
		tmp = t;
		roaring_bitmap_to_uint32_array(rows->buckets[b].bitmap, tmp);
		for (uint64_t i = 0; i < c; i++) a[k++] = (uint64_t)rows->buckets[b].key << 32 | tmp[i];
	}
	dl_free(tmp);
	*out = a;
	*n = k;
	return 0;
}

/* ---- DV files ---- */

/* One stored DV at `p` (avail bytes from there): 4-byte BE size, data,
 * 4-byte BE CRC-32. */
static int parse_entry(dl_dv_rows *out, const uint8_t *p, size_t avail, int64_t offset,
                       int32_t expected_size, const char *what)
{
	if (avail < 8)
		return dl_error_set(DL_ECORRUPT, "%s: deletion vector offset %" PRId64
		                    " leaves too few bytes of the file for a deletion vector", what, offset);
	uint32_t size = rd_be32(p);
	if (expected_size >= 0 && size != (uint32_t)expected_size)
		return dl_error_set(DL_ECORRUPT, "%s: deletion vector at offset %" PRId64 " has %" PRIu32
		                    " bytes but the log says %d", what, offset, size, expected_size);
	if (size > avail - 8)
		return dl_error_set(DL_ECORRUPT, "%s: deletion vector at offset %" PRId64
		                    " of %" PRIu32 " bytes runs past the end of the file", what, offset, size);
	uint32_t want = rd_be32(p + 4 + size);
	uint32_t got = dl_crc32(0, p + 4, size);
	if (want != got)
		return dl_error_set(DL_ECORRUPT, "%s: deletion vector at offset %" PRId64
		                    " fails its CRC-32 check (stored %08" PRIx32 ", computed %08" PRIx32 ")",
		                    what, offset, want, got);
	return dl_dv_rows_deserialize(out, p + 4, size, what);
}

static int check_file_version(const uint8_t *file, size_t file_len, const char *what)
{
	if (file_len < 1 || file[0] != 1)
		return dl_error_set(DL_ECORRUPT,
		                    "%s: unsupported deletion vector file format version %d (expected 1)",
		                    what, file_len ? file[0] : -1);
	return 0;
}

int dl_dv_parse_file(dl_dv_rows *out, const uint8_t *file, size_t file_len, int64_t offset,
                     int32_t expected_size, const char *what)
{
	memset(out, 0, sizeof *out);
	DL_TRY(check_file_version(file, file_len, what));
	if (offset < 1 || (uint64_t)offset > file_len || file_len - (size_t)offset < 8)
		return dl_error_set(DL_ECORRUPT, "%s: deletion vector offset %" PRId64
		                    " is outside the file of %zu bytes", what, offset, file_len);
	return parse_entry(out, file + offset, file_len - (size_t)offset, offset, expected_size, what);
}

/* ---- DV files, each opened once (dl_dv_files) ----
 *
 * Spark packs the DVs of one command into one file, so a scan meets the
 * same DV file for many data files: its reader is opened on first use and
 * kept until the scan ends, and each DV is one ranged read of it (or none,
 * when the store maps the file). */

typedef struct dv_file {
	char *path;
	dl_store_reader *r;
} dv_file;

struct dl_dv_files {
	dl_store_resolver *res;
	pthread_mutex_t mu;
	dv_file *files;
	size_t n, cap;
};

int dl_dv_files_new(dl_dv_files **out, dl_store_resolver *res)
{
	dl_dv_files *f = dl_calloc(1, sizeof *f);
	if (!f) return DL_ENOMEM;
	f->res = res;
	pthread_mutex_init(&f->mu, NULL);
	*out = f;
	return 0;
}

void dl_dv_files_free(dl_dv_files *f)
{
	if (!f) return;
	for (size_t i = 0; i < f->n; i++) {
		dl_store_reader_close(f->files[i].r);
		dl_free(f->files[i].path);
	}
	dl_free(f->files);
	pthread_mutex_destroy(&f->mu);
	dl_free(f);
}

size_t dl_dv_files_count(const dl_dv_files *f)
{
	return f->n;
}

/* The reader of a DV file, opened (and its format version checked) on
 * first use. Called with f->mu held. */
static int dv_reader(dl_store_reader **out, dl_dv_files *f, const char *path)
{
	for (size_t i = 0; i < f->n; i++)
		if (strcmp(f->files[i].path, path) == 0) {
			*out = f->files[i].r;
			return 0;
		}
	if (f->n == f->cap) {
		size_t nc = f->cap ? f->cap * 2 : 4;
		dv_file *p = dl_reallocarray(f->files, nc, sizeof *p);
		if (!p) return DL_ENOMEM;
		f->files = p;
		f->cap = nc;
	}
	dl_store *st;
	const char *rel;
	DL_TRY(dl_store_resolve(&st, &rel, f->res, path, "deletion vector file"));
	dl_store_reader *r;
	DL_TRY(dl_store_reader_open(&r, st, rel));
	uint8_t v = 0;
	size_t got = 0;
	int rc = dl_store_reader_read(&v, &got, r, 0, 1);
	if (rc == 0) rc = check_file_version(&v, got, path);
	char *copy = rc == 0 ? dl_strdup(path) : NULL;
	if (rc == 0 && !copy) rc = DL_ENOMEM;
	if (rc < 0) {
		dl_store_reader_close(r);
		return rc;
	}
	f->files[f->n++] = (dv_file){copy, r};
	*out = r;
	return 0;
}

/* Reads exactly len bytes at off (DL_ECORRUPT when the file is shorter). */
static int read_exact(dl_store_reader *r, int64_t off, uint8_t *buf, size_t len, const char *what)
{
	size_t got = 0;
	DL_TRY(dl_store_reader_read(buf, &got, r, off, len));
	if (got < len)
		return dl_error_set(DL_ECORRUPT, "%s: deletion vector at offset %" PRId64
		                    " runs past the end of the file of %" PRId64 " bytes", what, off,
		                    dl_store_reader_size(r));
	return 0;
}

static int load_from_file(dl_dv_rows *out, dl_dv_files *f, const dl_dv_descriptor *dv, const char *path)
{
	pthread_mutex_lock(&f->mu);
	dl_store_reader *r = NULL;
	int rc = dv_reader(&r, f, path);
	pthread_mutex_unlock(&f->mu);
	DL_TRY(rc);
	int64_t offset = dv->offset < 0 ? 1 : dv->offset;
	int64_t size = dl_store_reader_size(r);
	const uint8_t *all = dl_store_reader_data(r);
	if (all) return dl_dv_parse_file(out, all, (size_t)size, offset, dv->size_in_bytes, path);
	if (offset < 1 || offset > size || size - offset < 8)
		return dl_error_set(DL_ECORRUPT, "%s: deletion vector offset %" PRId64
		                    " is outside the file of %" PRId64 " bytes", path, offset, size);
	uint8_t hdr[4];
	DL_TRY(read_exact(r, offset, hdr, 4, path));
	uint32_t n = rd_be32(hdr);
	if ((int64_t)n > size - offset - 8)
		return parse_entry(out, hdr, 4, offset, dv->size_in_bytes, path); /* says what is wrong */
	uint8_t *buf = dl_malloc((size_t)n + 8);
	if (!buf) return DL_ENOMEM;
	memcpy(buf, hdr, 4);
	rc = read_exact(r, offset + 4, buf + 4, (size_t)n + 4, path);
	if (rc == 0) rc = parse_entry(out, buf, (size_t)n + 8, offset, dv->size_in_bytes, path);
	dl_free(buf);
	return rc;
}

int dl_dv_write_file(const dl_dv_rows *rows, dl_buf *out, int64_t *offset, int32_t *size)
{
	/* the entry (the file's version byte first) written in place: 4-byte BE
	 * size, the data, its CRC-32 (BE) */
	size_t n = serialized_size(rows);
	if (n > INT32_MAX) return dl_error_set(DL_ENOMEM, "deletion vector too large");
	size_t start = out->len, head = start ? 4 : 5;
	DL_TRY(reserve(out, head + n + 4));
	uint8_t *p = (uint8_t *)out->data + start;
	if (!start) *p++ = 1;
	for (int i = 3; i >= 0; i--) *p++ = (uint8_t)(n >> (8 * i));
	serialize_to(rows, p);
	uint32_t c = dl_crc32(0, p, n);
	p += n;
	for (int i = 3; i >= 0; i--) *p++ = (uint8_t)(c >> (8 * i));
	out->len += head + n + 4;
	out->data[out->len] = 0;
	*offset = start ? (int64_t)start : 1;
	*size = (int32_t)n;
	return 0;
}

/* Z85 as Delta's Base85Codec.decodeBytes does it: each group's value is
 * truncated to 32 bits (Long.toInt), and the groups are not checked for
 * overflow. Spark-compatible writers have produced inline DVs whose padding
 * group overflows (kernel-data/cdf-table-with-dv), so the strict util/z85.h
 * decoder would refuse DVs that Delta itself reads. Characters are still
 * checked against the alphabet. */
static int z85_decode_delta(const char *s, size_t n, uint8_t *out)
{
	static const char alphabet[] =
		"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";
	for (size_t i = 0; i < n; i += 5) {
		uint64_t v = 0;
		for (int k = 0; k < 5; k++) {
			const char *p = s[i + k] ? strchr(alphabet, s[i + k]) : NULL;
			if (!p)
				return dl_error_set(DL_ECORRUPT, "inline deletion vector: invalid Z85 character "
				                    "at offset %zu", i + (size_t)k);
			v = v * 85 + (uint64_t)(p - alphabet);
		}
		uint32_t w = (uint32_t)v;
		uint8_t *o = out + i / 5 * 4;
		o[0] = (uint8_t)(w >> 24);
		o[1] = (uint8_t)(w >> 16);
		o[2] = (uint8_t)(w >> 8);
		o[3] = (uint8_t)w;
	}
	return 0;
}

static int load_inline(dl_dv_rows *out, const dl_dv_descriptor *dv)
{
	size_t n = strlen(dv->path_or_inline);
	if (n % 5 || dv->size_in_bytes < 0 || (size_t)dv->size_in_bytes > n / 5 * 4)
		return dl_error_set(DL_ECORRUPT,
		                    "inline deletion vector of %zu characters cannot hold %d bytes", n,
		                    dv->size_in_bytes);
	uint8_t *bytes = dl_malloc(n / 5 * 4 + 1);
	if (!bytes) return DL_ENOMEM;
	int rc = z85_decode_delta(dv->path_or_inline, n, bytes);
	if (rc == 0)
		rc = dl_dv_rows_deserialize(out, bytes, (size_t)dv->size_in_bytes, "inline deletion vector");
	dl_free(bytes);
	return rc;
}

static int check_cardinality(dl_dv_rows *out, const dl_dv_descriptor *dv)
{
	if (dv->cardinality >= 0 && out->cardinality != (uint64_t)dv->cardinality) {
		uint64_t got = out->cardinality;
		dl_dv_rows_free(out);
		return dl_error_set(DL_ECORRUPT,
		                    "deletion vector %c%s holds %" PRIu64 " rows but the log says %" PRId64,
		                    dv->storage_type, dv->path_or_inline, got, dv->cardinality);
	}
	return 0;
}

int dl_dv_load_from(dl_dv_rows *out, dl_dv_files *f, const dl_dv_descriptor *dv)
{
	memset(out, 0, sizeof *out);
	int rc;
	if (dv->storage_type == 'i') {
		rc = load_inline(out, dv);
	} else {
		dl_buf path = DL_BUF_INIT;
		rc = dl_dv_file_path(dv, &path);
		if (rc == 0) {
			rc = load_from_file(out, f, dv, path.data);
			if (rc < 0 && rc != DL_EPERM) dl_error_prefix("reading deletion vector file %s", path.data);
		}
		dl_buf_free(&path);
	}
	if (rc < 0) return rc;
	return check_cardinality(out, dv);
}

/* Relative DV paths are read through the table's store; absolute ones
 * ('p' descriptors: "/data/t/dv.bin", "file:/...", "s3://...") through the
 * store the registry gives for their scheme, without a path policy. */
int dl_dv_load(dl_dv_rows *out, dl_store *table_store, const dl_dv_descriptor *dv)
{
	memset(out, 0, sizeof *out);
	if (dv->storage_type == 'i') {
		DL_TRY(load_inline(out, dv));
		return check_cardinality(out, dv);
	}
	dl_store_resolver res;
	DL_TRY(dl_store_resolver_init(&res, table_store, NULL));
	dl_dv_files *f;
	int rc = dl_dv_files_new(&f, &res);
	if (rc == 0) {
		rc = dl_dv_load_from(out, f, dv);
		dl_dv_files_free(f);
	}
	dl_store_resolver_free(&res);
	return rc;
}
