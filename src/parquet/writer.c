/* Parquet file writer (see writer.h). File layout (parquet-format README):
 *   "PAR1" <row group: column chunks, each [dictionary page] data pages>...
 *   <FileMetaData> <4-byte LE footer length> "PAR1" */
#include "parquet/writer_internal.h"
#include "deltalake.h"
#include "parquet/encoding_write.h"
#include "parquet/metadata_write.h"
#include "util/mem.h"
#include <string.h>
#include <strings.h>


static const uint8_t MAGIC[4] = {'P', 'A', 'R', '1'};

static bool wants_bloom(const pq_writer_options *o, const pq_leaf *l)
{
	if (l->phys == PQ_BOOLEAN) return false;
	for (int k = 0; k < o->nbloom_columns; k++) {
		const char *p = o->bloom_columns[k];
		bool match = true;
		for (int j = 0; j < l->npath && match; j++) {
			size_t n = strlen(l->path[j]);
			match = strncasecmp(p, l->path[j], n) == 0 && (p[n] == (j + 1 < l->npath ? '.' : 0));
			p += n + 1;
		}
		if (match) return true;
	}
	return false;
}

int pq_writer_open(pq_writer **out, dl_type *schema, pq_sink *sink, const pq_writer_options *opts)
{
	*out = NULL;
	pq_writer_options def = PQ_WRITER_OPTIONS_INIT;
	pq_writer *w = dl_calloc(1, sizeof *w);
	if (!w) return DL_ENOMEM;
	w->opt = opts ? *opts : def;
	if (w->opt.page_bytes == 0) w->opt.page_bytes = def.page_bytes;
	if (w->opt.row_group_bytes <= 0) w->opt.row_group_bytes = def.row_group_bytes;
	w->sink = sink;
	int rc = pq_wschema_build(&w->ws, schema, w->opt.root_name);
	if (rc < 0) {
		dl_free(w);
		return rc;
	}
	w->schema = dl_type_ref(schema);
	w->cols = dl_calloc((size_t)w->ws.nleaves, sizeof *w->cols);
	if (!w->cols) {
		pq_writer_free(w);
		return DL_ENOMEM;
	}
	pq_colw_options co = {w->opt.codec, w->opt.level, w->opt.page_bytes, w->opt.dict_bytes, w->opt.dictionary,
	                      w->opt.stats_truncate, w->opt.page_crc, w->opt.page_index};
	for (int i = 0; i < w->ws.nleaves; i++) {
		pq_colw_init(&w->cols[i], &w->ws.leaves[i], &co);
		if (wants_bloom(&w->opt, &w->ws.leaves[i]))
			w->cols[i].bloom.fpp = w->opt.bloom_fpp > 0 && w->opt.bloom_fpp < 1 ? w->opt.bloom_fpp : 0.01;
	}
	rc = pq_wpipe_start(w);
	if (rc == 0) rc = pq_sink_write(sink, MAGIC, 4);
	if (rc < 0) {
		pq_writer_free(w);
		return rc;
	}
	*out = w;
	return 0;
}

void pq_writer_free(pq_writer *w)
{
	if (!w) return;
	pq_wpipe_stop(w);
	if (w->cols)
		for (int i = 0; i < w->ws.nleaves; i++) pq_colw_free(&w->cols[i]);
	dl_free(w->cols);
	pq_wschema_free(&w->ws);
	dl_type_unref(w->schema);
	dl_free(w->rgs);
	dl_free(w->kvs);
	dl_buf_free(&w->ci);
	dl_buf_free(&w->bf);
	dl_buf_free(&w->oi);
	dl_buf_free(&w->emit_scratch);
	dl_arena_free(&w->arena);
	dl_free(w);
}

/* Same type tree (names aside): the walk trusts the arrays' layout. */
static bool same_shape(const dl_type *a, const dl_type *b)
{
	if (a->id != b->id || a->nchildren != b->nchildren) return false;
	if (a->id == DL_TYPE_DECIMAL && (a->precision != b->precision || a->scale != b->scale)) return false;
	for (int i = 0; i < a->nchildren; i++)
		if (!same_shape(a->children[i].type, b->children[i].type)) return false;
	return true;
}

static int refuse(const pq_writer *w)
{
	if (w->failed)
		return dl_error_set(w->failed, "an earlier write failed, so this Parquet file is incomplete; discard it");
	return dl_error_set(DL_EINVALID, "the Parquet writer is closed");
}

/* Remembers a failure of the steps that leave pages or row groups half done. */
static int fail(pq_writer *w, int rc)
{
	if (rc < 0 && !w->failed) w->failed = rc;
	return rc;
}

/* The checks every batch passes before it is queued. */
static int check_batch(pq_writer *w, const dl_batch *b)
{
	if (w->closed || w->failed) return refuse(w);
	if (b->ncols != w->schema->nchildren)
		return dl_error_set(DL_ESCHEMA, "batch has %d columns but the Parquet schema has %d", b->ncols,
		                    w->schema->nchildren);
	for (int i = 0; i < b->ncols; i++) {
		const dl_array *a = b->cols[i];
		if (!same_shape(a->type, w->schema->children[i].type) || a->length < b->num_rows)
			return dl_error_set(DL_ESCHEMA, "batch column %d ('%s') does not match the Parquet schema's type %s",
			                    i, w->schema->children[i].name, dl_type_id_name(w->schema->children[i].type->id));
	}
	return 0;
}

int pq_writer_write(pq_writer *w, const dl_batch *b)
{
	DL_TRY(check_batch(w, b));
	return fail(w, pq_wpipe_write(w, (dl_batch *)b, false));
}

int pq_writer_write_owned(pq_writer *w, dl_batch *b)
{
	int rc = check_batch(w, b);
	if (rc < 0) {
		dl_batch_free(b);
		return rc;
	}
	return fail(w, pq_wpipe_write(w, b, true));
}

int pq_writer_end_row_group(pq_writer *w)
{
	if (w->closed || w->failed) return refuse(w);
	return fail(w, pq_wpipe_drain(w));
}

int pq_writer_size_estimate(pq_writer *w, int64_t *bytes)
{
	if (w->closed || w->failed) return refuse(w);
	return fail(w, pq_wpipe_estimate(w, bytes));
}

int pq_writer_add_metadata(pq_writer *w, const char *key, const char *value)
{
	if (w->closed || w->failed) return refuse(w);
	if (w->nkvs == w->cap_kvs) {
		uint32_t cap = w->cap_kvs ? w->cap_kvs * 2 : 4;
		pq_key_value *k = dl_reallocarray(w->kvs, cap, sizeof *k);
		if (!k) return DL_ENOMEM;
		w->kvs = k;
		w->cap_kvs = cap;
	}
	pq_key_value *kv = &w->kvs[w->nkvs];
	kv->key = dl_arena_strdup(&w->arena, key);
	kv->value = value ? dl_arena_strdup(&w->arena, value) : NULL;
	if (!kv->key || (value && !kv->value)) return DL_ENOMEM;
	w->nkvs++;
	return 0;
}

static int write_footer(pq_writer *w)
{
	pq_file_metadata md;
	memset(&md, 0, sizeof md);
	md.version = 1;
	md.schema = w->ws.elems;
	md.nschema = w->ws.nelems;
	md.num_rows = w->num_rows;
	md.row_groups = w->rgs;
	md.nrow_groups = w->nrgs;
	md.key_value_metadata = w->kvs;
	md.nkey_value_metadata = w->nkvs;
	char created[96];
	snprintf(created, sizeof created, "deltalake version %s (build libdeltalake)", dl_version());
	md.created_by = (char *)(w->opt.created_by ? w->opt.created_by : created);
	pq_column_order *orders = dl_arena_alloc(&w->arena, sizeof *orders * (size_t)w->ws.nleaves);
	if (!orders) return DL_ENOMEM;
	for (int i = 0; i < w->ws.nleaves; i++) orders[i] = PQ_ORDER_TYPE_DEFINED;
	md.column_orders = orders;
	md.ncolumn_orders = (uint32_t)w->ws.nleaves;
	dl_buf footer = DL_BUF_INIT;
	int rc = pq_file_metadata_encode(&footer, &md);
	if (rc == 0 && footer.len > UINT32_MAX) rc = dl_error_set(DL_ENOMEM, "Parquet footer exceeds 4 GiB");
	if (rc == 0) {
		uint8_t tail[8];
		pq_store_le32(tail, (uint32_t)footer.len);
		memcpy(tail + 4, MAGIC, 4);
		rc = pq_sink_write(w->sink, footer.data, footer.len);
		if (rc == 0) rc = pq_sink_write(w->sink, tail, 8);
	}
	dl_buf_free(&footer);
	return rc;
}

/* The Bloom filters go right after the last row group (before the page
 * indexes, as Arrow lays them out); their offsets become file offsets. */
static int write_bloom_filters(pq_writer *w)
{
	if (!w->bf.len) return 0;
	int64_t base = w->sink->pos;
	DL_TRY(pq_sink_write(w->sink, w->bf.data, w->bf.len));
	for (uint32_t g = 0; g < w->nrgs; g++)
		for (uint32_t i = 0; i < w->rgs[g].ncolumns; i++) {
			pq_column_meta *m = &w->rgs[g].columns[i].meta_data;
			if (m->has_bloom_filter_offset) m->bloom_filter_offset += base;
		}
	return 0;
}

/* The page indexes go between the last row group and the footer (all
 * column indexes, then all offset indexes, as parquet-mr lays them out);
 * the chunks' offsets into the buffers become file offsets. */
static int write_page_indexes(pq_writer *w)
{
	if (!w->opt.page_index) return 0;
	int64_t ci_base = w->sink->pos;
	DL_TRY(pq_sink_write(w->sink, w->ci.data, w->ci.len));
	int64_t oi_base = w->sink->pos;
	DL_TRY(pq_sink_write(w->sink, w->oi.data, w->oi.len));
	for (uint32_t g = 0; g < w->nrgs; g++) {
		for (uint32_t i = 0; i < w->rgs[g].ncolumns; i++) {
			pq_column_chunk *c = &w->rgs[g].columns[i];
			if (c->has_column_index_offset) c->column_index_offset += ci_base;
			if (c->has_offset_index_offset) c->offset_index_offset += oi_base;
		}
	}
	return 0;
}

int pq_writer_close(pq_writer *w)
{
	if (w->failed) return refuse(w);
	if (w->closed) return 0;
	DL_TRY(fail(w, pq_wpipe_drain(w)));
	DL_TRY(fail(w, write_bloom_filters(w)));
	DL_TRY(fail(w, write_page_indexes(w)));
	DL_TRY(fail(w, write_footer(w)));
	w->closed = true;
	return 0;
}

int64_t pq_writer_num_rows(const pq_writer *w)
{
	return w->rows_in;
}

int64_t pq_writer_file_size(const pq_writer *w)
{
	return w->sink->pos;
}

size_t pq_writer_memory(const pq_writer *w)
{
	size_t n = w->ci.cap + w->oi.cap;
	for (int i = 0; i < w->ws.nleaves; i++) n += pq_colw_memory(&w->cols[i]);
	return n + pq_wpipe_memory((pq_writer *)w); /* locks the pipeline */
}

int pq_writer_num_leaves(const pq_writer *w)
{
	return w->ws.nleaves;
}

const pq_leaf *pq_writer_leaf(const pq_writer *w, int i)
{
	return &w->ws.leaves[i];
}

const pq_stats *pq_writer_leaf_stats(const pq_writer *w, int i)
{
	return &w->cols[i].file_stats;
}

const pq_wschema *pq_writer_schema(const pq_writer *w)
{
	return &w->ws;
}
