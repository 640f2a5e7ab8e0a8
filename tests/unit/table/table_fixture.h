/* Test helper: small Delta tables built by hand in a temporary directory
 * (Parquet files from our writer, commits as JSON lines). */
#ifndef DL_TEST_TABLE_FIXTURE_H
#define DL_TEST_TABLE_FIXTURE_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "columnar/builder.h"
#include "deltalake.h"
#include "log/deletion_vector.h"
#include "parquet/writer.h"
#include "util/mem.h"
#include "util/z85.h"

typedef struct fixture {
	char dir[256];
	dl_store *store;
} fixture;

static inline int fixture_open(fixture *f)
{
	snprintf(f->dir, sizeof f->dir, "/tmp/dl_table_test_XXXXXX");
	if (!mkdtemp(f->dir)) return -1;
	return dl_store_open(&f->store, f->dir, NULL);
}

static inline void fixture_close(fixture *f)
{
	dl_object_list l = {0};
	if (dl_store_list_recursive(&l, f->store, "") == 0)
		for (size_t i = 0; i < l.count; i++) dl_store_delete(f->store, l.items[i].path);
	dl_object_list_free(&l);
	dl_store_free(f->store);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
	if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", f->dir);
}

static inline int fixture_put(fixture *f, const char *path, const char *text)
{
	return dl_store_put(f->store, path, text, strlen(text));
}

/* Writes commit `version` from lines joined with '\n'. */
static inline int fixture_commit(fixture *f, int version, const char *const *lines, int n)
{
	dl_buf b = DL_BUF_INIT;
	for (int i = 0; i < n; i++) {
		dl_buf_puts(&b, lines[i]);
		dl_buf_putc(&b, '\n');
	}
	char path[64];
	snprintf(path, sizeof path, "_delta_log/%020d.json", version);
	int rc = dl_store_put(f->store, path, b.data, b.len);
	dl_buf_free(&b);
	return rc;
}

/* A batch with one long column `name` holding v[0..n) and optionally a
 * string column "name" with "n<i>". */
static inline dl_batch *fixture_batch(const char *long_name, const int64_t *v, int n, bool with_name,
                                      dl_type_id id_type)
{
	dl_type *lt = dl_type_new(id_type), *st = dl_type_new(DL_TYPE_STRING);
	dl_field fs[2] = {{(char *)long_name, lt, true, "{}"}, {"name", st, true, "{}"}};
	dl_type *schema = dl_type_struct(fs, with_name ? 2 : 1);
	dl_batch *b = dl_batch_new(schema, n);
	dl_builder *bl;
	dl_builder_new(&bl, lt);
	for (int i = 0; i < n; i++) dl_builder_append_int(bl, v[i]);
	dl_builder_finish(&b->cols[0], bl);
	dl_builder_free(bl);
	if (with_name) {
		dl_builder_new(&bl, st);
		for (int i = 0; i < n; i++) {
			char s[32];
			snprintf(s, sizeof s, "n%lld", (long long)v[i]);
			dl_builder_append_bytes(bl, s, strlen(s));
		}
		dl_builder_finish(&b->cols[1], bl);
		dl_builder_free(bl);
	}
	dl_type_unref(lt);
	dl_type_unref(st);
	dl_type_unref(schema);
	return b;
}

static inline int fixture_parquet(fixture *f, const char *path, dl_batch *b, int64_t *size)
{
	dl_buf buf = DL_BUF_INIT;
	pq_sink sink;
	pq_sink_init_buf(&sink, &buf);
	pq_writer_options o = PQ_WRITER_OPTIONS_INIT;
	o.row_group_rows = 4; /* several row groups, for row-group pruning */
	pq_writer *w;
	int rc = pq_writer_open(&w, b->schema, &sink, &o);
	if (rc == 0) rc = pq_writer_write(w, b);
	if (rc == 0) rc = pq_writer_close(w);
	pq_writer_free(w);
	if (rc == 0) rc = dl_store_put(f->store, path, buf.data, buf.len);
	*size = (int64_t)buf.len;
	dl_buf_free(&buf);
	dl_batch_free(b);
	return rc;
}

/* Writes a DV file deleting rows[0..n) at the table root; *json gets the
 * deletionVector descriptor object. */
static inline int fixture_dv(fixture *f, const uint64_t *rows, size_t n, dl_buf *json, uint8_t seed)
{
	dl_dv_rows r;
	int rc = dl_dv_rows_from_array(&r, rows, n);
	dl_buf file = DL_BUF_INIT, id = DL_BUF_INIT, path = DL_BUF_INIT;
	int64_t off = 0;
	int32_t size = 0;
	uint8_t uuid[16] = {0xd2, 0xc6, 0x39, 0xaa, 0x88, 0x16, 0x43, 0x1a, 0xaa, 0xf6, 0xd3, 0xfe, 0x25, 0x12, 0xff, 0x61};
	uuid[15] = seed;
	if (rc == 0) rc = dl_dv_write_file(&r, &file, &off, &size);
	if (rc == 0) rc = dl_z85_encode(&id, uuid, 16);
	dl_dv_descriptor d = {'u', id.data, off, size, (int64_t)n, -1};
	if (rc == 0) rc = dl_dv_file_path(&d, &path);
	if (rc == 0) rc = dl_store_put(f->store, path.data, file.data, file.len);
	if (rc == 0)
		rc = dl_buf_printf(json, "{\"storageType\":\"u\",\"pathOrInlineDv\":\"%s\",\"offset\":%lld,"
		                   "\"sizeInBytes\":%d,\"cardinality\":%zu}", id.data, (long long)off, (int)size, n);
	dl_dv_rows_free(&r);
	dl_buf_free(&file);
	dl_buf_free(&id);
	dl_buf_free(&path);
	return rc;
}

/* Reads every row of a scan of the table's latest version; the batches
 * are concatenated into one (NULL when empty). */
static inline int fixture_scan(dl_batch **out, const char *dir, const dl_scan_options *o, dl_scan_metrics *m)
{
	*out = NULL;
	dl_snapshot *snap;
	int rc = dl_snapshot_open(&snap, dir, NULL);
	if (rc < 0) return rc;
	dl_scan *scan = NULL;
	rc = dl_scan_open(&scan, snap, o);
	struct ArrowArrayStream st = {0};
	dl_batch_stream *bs = NULL;
	if (rc == 0) rc = dl_scan_batches(&bs, scan);
	dl_batch *all[4096];
	int n = 0;
	dl_batch *b;
	while (rc == 0 && (rc = dl_batch_stream_next(bs, &b)) == 0 && b && n < 4096) all[n++] = b;
	if (rc == 0 && n) *out = dl_batch_concat(all, n);
	for (int i = 0; i < n; i++) dl_batch_free(all[i]);
	if (m && scan) dl_scan_get_metrics(m, scan);
	(void)st;
	dl_batch_stream_free(bs);
	dl_scan_free(scan);
	dl_snapshot_free(snap);
	return rc;
}

static inline int64_t col_i64(const dl_batch *b, int col, int64_t row)
{
	const dl_array *a = b->cols[col];
	if (a->type->id == DL_TYPE_INTEGER) return ((const int32_t *)a->values)[row];
	return ((const int64_t *)a->values)[row];
}

#endif
