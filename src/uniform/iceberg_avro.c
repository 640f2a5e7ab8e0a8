/* Avro object container files (Avro 1.11 spec, "Object Container Files")
 * as Iceberg needs them.
 *
 * Records are encoded by avro-c (avro_value_write). The container framing
 * is written here because avro-c's file writer cannot carry what Iceberg
 * requires: its schema printer drops every non-Avro attribute, so the
 * "field-id" of each field (which Iceberg readers resolve columns by)
 * would be lost, and it has no way to add the file metadata Iceberg puts
 * in the header (schema, partition-spec, format-version, content...). The
 * framing is small: "Obj" 1, a map<bytes> of metadata, a 16-byte sync
 * marker, then blocks of (count, byte size, records, sync). Blocks are
 * flushed at 1 MiB so a manifest of any size streams to the store. */
#include "uniform/iceberg_avro.h"

#include <string.h>

#include "util/error.h"
#include "util/random.h"

#define BLOCK_BYTES (1u << 20)

int dl_ice_avro_error(int code, const char *what)
{
	const char *m = avro_strerror();
	return dl_error_set(code, "%s: %s", what, m && m[0] ? m : "Avro error");
}

/* Avro's long: zig-zag then base-128 varint. */
static int put_long(dl_buf *b, int64_t v)
{
	uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
	uint8_t tmp[10];
	size_t n = 0;
	do {
		uint8_t c = z & 0x7f;
		z >>= 7;
		tmp[n++] = (uint8_t)(c | (z ? 0x80 : 0));
	} while (z);
	return dl_buf_append(b, tmp, n);
}

static int put_bytes(dl_buf *b, const char *s, size_t n)
{
	int rc = put_long(b, (int64_t)n);
	return rc < 0 ? rc : dl_buf_append(b, s, n);
}

int dl_ice_avro_open(dl_ice_avro_writer *w, dl_store *s, const char *path, const char *schema_json,
                     const dl_str_map *meta)
{
	memset(w, 0, sizeof *w);
	w->path = path;
	if (avro_schema_from_json_length(schema_json, strlen(schema_json), &w->schema))
		return dl_ice_avro_error(DL_EINVALID, "Iceberg Avro schema");
	w->iface = avro_generic_class_from_schema(w->schema);
	if (!w->iface) {
		avro_schema_decref(w->schema);
		w->schema = NULL;
		return dl_ice_avro_error(DL_ENOMEM, "Iceberg Avro schema");
	}
	int rc = dl_random_bytes(w->sync, sizeof w->sync);
	dl_buf h = DL_BUF_INIT;
	if (rc == 0) rc = dl_buf_append(&h, "Obj\x01", 4);
	uint32_t n = meta ? meta->n : 0;
	if (rc == 0) rc = put_long(&h, (int64_t)n + 2);
	if (rc == 0) rc = put_bytes(&h, "avro.schema", 11);
	if (rc == 0) rc = put_bytes(&h, schema_json, strlen(schema_json));
	if (rc == 0) rc = put_bytes(&h, "avro.codec", 10);
	if (rc == 0) rc = put_bytes(&h, "null", 4);
	for (uint32_t i = 0; rc == 0 && i < n; i++) {
		rc = put_bytes(&h, meta->items[i].key, strlen(meta->items[i].key));
		const char *v = meta->items[i].value ? meta->items[i].value : "";
		if (rc == 0) rc = put_bytes(&h, v, strlen(v));
	}
	if (rc == 0) rc = put_long(&h, 0);
	if (rc == 0) rc = dl_buf_append(&h, w->sync, sizeof w->sync);
	if (rc == 0) rc = dl_store_writer_open(&w->out, s, path);
	if (rc == 0) rc = dl_store_writer_write(w->out, h.data, h.len);
	dl_buf_free(&h);
	if (rc < 0) dl_ice_avro_abort(w);
	return rc;
}

int dl_ice_avro_new_value(dl_ice_avro_writer *w, avro_value_t *out)
{
	if (avro_generic_value_new(w->iface, out)) return dl_ice_avro_error(DL_ENOMEM, w->path);
	return 0;
}

static int flush_block(dl_ice_avro_writer *w)
{
	if (w->count == 0) return 0;
	dl_buf h = DL_BUF_INIT;
	int rc = put_long(&h, w->count);
	if (rc == 0) rc = put_long(&h, (int64_t)w->block.len);
	if (rc == 0) rc = dl_store_writer_write(w->out, h.data, h.len);
	if (rc == 0) rc = dl_store_writer_write(w->out, w->block.data, w->block.len);
	if (rc == 0) rc = dl_store_writer_write(w->out, w->sync, sizeof w->sync);
	dl_buf_free(&h);
	dl_buf_clear(&w->block);
	w->count = 0;
	return rc;
}

int dl_ice_avro_append(dl_ice_avro_writer *w, avro_value_t *v)
{
	size_t size = 0;
	if (avro_value_sizeof(v, &size)) return dl_ice_avro_error(DL_EINVALID, w->path);
	DL_TRY(dl_buf_reserve(&w->block, size));
	avro_writer_t mw = avro_writer_memory((char *)w->block.data + w->block.len, (int64_t)size);
	if (!mw) return dl_ice_avro_error(DL_ENOMEM, w->path);
	int bad = avro_value_write(mw, v);
	avro_writer_free(mw);
	if (bad) return dl_ice_avro_error(DL_EINVALID, w->path);
	w->block.len += size;
	w->count++;
	w->total++;
	return w->block.len >= BLOCK_BYTES ? flush_block(w) : 0;
}

int dl_ice_avro_close(dl_ice_avro_writer *w, int64_t *size)
{
	int rc = flush_block(w);
	if (rc == 0) {
		*size = dl_store_writer_size(w->out);
		dl_store_writer *o = w->out; /* commit frees it, whatever the outcome */
		w->out = NULL;
		rc = dl_store_writer_commit(o, 1);
	}
	dl_ice_avro_abort(w);
	return rc;
}

void dl_ice_avro_abort(dl_ice_avro_writer *w)
{
	if (w->out) dl_store_writer_abort(w->out);
	w->out = NULL;
	if (w->iface) avro_value_iface_decref(w->iface);
	w->iface = NULL;
	if (w->schema) avro_schema_decref(w->schema);
	w->schema = NULL;
	dl_buf_free(&w->block);
}
