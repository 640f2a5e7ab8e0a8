/* Ending a column chunk (see column_writer.h): sealing it on the column's
 * thread, then emitting it into the file in order.
 *
 * Sealing does the work that needs the column's state - the last page,
 * the dictionary page (compressed like any other), moving the pages,
 * statistics, page index and Bloom hashes out - and resets the column for
 * the next row group. Emitting does what needs the file's order: the
 * chunk's offsets, the footer's ColumnMetaData (in the writer's arena), the
 * page index and Bloom filter buffers and the file's statistics. */
#include "parquet/column_page.h"
#include "parquet/sink.h"
#include "util/mem.h"
#include <string.h>

static int seal_dictionary_page(pq_colw *c, pq_sealed_chunk *out)
{
	dl_buf_clear(&c->scr->body);
	DL_TRY(dl_buf_append(&c->scr->body, c->dict.data.data, c->dict.data.len));
	pq_page_header h;
	memset(&h, 0, sizeof h);
	h.type = PQ_PAGE_DICTIONARY;
	h.has_dictionary_page_header = true;
	h.dictionary_page_header.num_values = (int32_t)c->dict.count;
	h.dictionary_page_header.encoding = PQ_ENC_PLAIN;
	return pq_colw_put_page(c, &h, &out->dict_page);
}

static int seal(pq_colw *c, pq_sealed_chunk *out)
{
	DL_TRY(pq_colw_flush_page(c));
	if (c->dict_pages > 0) DL_TRY(seal_dictionary_page(c, out));
	/* moved, not copied: the next row group's pages start from nothing,
	 * and the peak is one row group */
	out->pagev = c->pagev;
	out->npages = c->npages;
	c->pagev = NULL;
	c->npages = c->cap_pages = 0;
	out->num_values = c->num_values;
	out->dict_pages = c->dict_pages;
	out->plain_pages = c->plain_pages;
	out->stats = c->stats;
	pq_stats_init(&c->stats, c->stats.kind);
	out->pidx = c->pidx;
	memset(&c->pidx, 0, sizeof c->pidx);
	out->bloom = c->bloom;
	c->bloom.h = NULL;
	c->bloom.n = c->bloom.cap = 0;
	/* Ready for the next row group: the dictionary starts afresh. */
	c->chunk_rows = c->page_rows = 0;
	pq_colw_dict_release(c);
	c->dict_on = c->opt.dictionary && c->leaf->phys != PQ_BOOLEAN && c->leaf->type->id != DL_TYPE_NULL;
	c->pstats_live = c->opt.page_index && !c->dict_on;
	pq_stats_reset(&c->pstats);
	c->fallback = false;
	c->dict_pages = c->plain_pages = 0;
	c->num_values = 0;
	return 0;
}

int pq_colw_seal(pq_colw *c, pq_colw_scratch *scr, pq_sealed_chunk *out)
{
	memset(out, 0, sizeof *out);
	pq_stats_init(&out->stats, c->stats.kind);
	c->scr = scr;
	int rc = seal(c, out);
	c->scr = NULL;
	return rc;
}

void pq_sealed_chunk_free(pq_sealed_chunk *s)
{
	pq_wpage_free(s->dict_page);
	for (size_t k = 0; k < s->npages; k++) pq_wpage_free(s->pagev[k]);
	dl_free(s->pagev);
	pq_stats_free(&s->stats);
	pq_page_index_free(&s->pidx);
	pq_bloom_builder_free(&s->bloom);
	memset(s, 0, sizeof *s);
}

static int describe(const pq_colw *c, const pq_sealed_chunk *s, dl_arena *arena, dl_buf *scratch,
                    pq_column_meta *m)
{
	const pq_leaf *l = c->leaf;
	bool has_dict = s->dict_page != NULL;
	m->type = l->phys;
	m->codec = c->opt.codec;
	m->npath = (uint32_t)l->npath;
	m->path_in_schema = l->path; /* lives as long as the writer's schema */
	m->num_values = s->num_values;
	pq_encoding *enc = dl_arena_alloc(arena, 4 * sizeof *enc);
	pq_page_encoding_stats *es = dl_arena_alloc(arena, 3 * sizeof *es);
	if (!enc || !es) return DL_ENOMEM;
	uint32_t ne = 0, ns = 0;
	if (has_dict) {
		enc[ne++] = PQ_ENC_PLAIN; /* the dictionary page */
		es[ns++] = (pq_page_encoding_stats){PQ_PAGE_DICTIONARY, PQ_ENC_PLAIN, 1};
	}
	if (s->dict_pages) {
		enc[ne++] = PQ_ENC_RLE_DICTIONARY;
		es[ns++] = (pq_page_encoding_stats){PQ_PAGE_DATA, PQ_ENC_RLE_DICTIONARY, s->dict_pages};
	}
	if (s->plain_pages) {
		if (!has_dict) enc[ne++] = PQ_ENC_PLAIN;
		es[ns++] = (pq_page_encoding_stats){PQ_PAGE_DATA, PQ_ENC_PLAIN, s->plain_pages};
	}
	enc[ne++] = PQ_ENC_RLE; /* levels */
	m->encodings = enc;
	m->nencodings = ne;
	m->encoding_stats = es;
	m->nencoding_stats = ns;
	pq_statistics st;
	DL_TRY(pq_stats_to_thrift(&s->stats, l->phys, l->type_length, c->opt.stats_truncate, l->utf8, scratch, &st));
	uint8_t *copy = dl_arena_alloc(arena, scratch->len);
	if (!copy && scratch->len) return DL_ENOMEM;
	if (scratch->len) memcpy(copy, scratch->data, scratch->len);
	/* into the arena: the scratch buffer serves the next chunk */
	const uint8_t *base = (const uint8_t *)scratch->data;
	if (st.has_min_value) {
		st.min_value.ptr = copy + (st.min_value.ptr - base);
		st.max_value.ptr = copy + (st.max_value.ptr - base);
	}
	if (st.has_min) {
		st.min.ptr = copy + (st.min.ptr - base);
		st.max.ptr = copy + (st.max.ptr - base);
	}
	m->has_statistics = true;
	m->statistics = st;
	return 0;
}

/* The chunk's page index into ci/oi (offsets relative to those buffers). */
static int emit_page_index(const pq_sealed_chunk *s, pq_column_chunk *out, dl_buf *ci, dl_buf *oi)
{
	if (!s->pidx.no_values && s->pidx.n) {
		size_t at = ci->len;
		DL_TRY(pq_page_index_encode_column(ci, &s->pidx));
		out->has_column_index_offset = out->has_column_index_length = true;
		out->column_index_offset = (int64_t)at;
		out->column_index_length = (int32_t)(ci->len - at);
	}
	size_t at = oi->len;
	DL_TRY(pq_page_index_encode_offsets(oi, &s->pidx, out->meta_data.data_page_offset));
	out->has_offset_index_offset = out->has_offset_index_length = true;
	out->offset_index_offset = (int64_t)at;
	out->offset_index_length = (int32_t)(oi->len - at);
	return 0;
}

static int emit(pq_colw *c, pq_sealed_chunk *s, pq_sink *sink, dl_arena *arena, dl_buf *scratch,
                pq_column_chunk *out, dl_buf *ci, dl_buf *oi, dl_buf *bf)
{
	memset(out, 0, sizeof *out);
	out->has_meta_data = true;
	pq_column_meta *m = &out->meta_data;
	int64_t start = sink->pos;
	if (s->dict_page) {
		m->has_dictionary_page_offset = true;
		m->dictionary_page_offset = start;
		DL_TRY(pq_sink_write(sink, s->dict_page->data, s->dict_page->len));
		m->total_uncompressed_size += s->dict_page->uncompressed;
	}
	m->data_page_offset = sink->pos;
	/* the page index's offsets and sizes are known now, as compressed */
	if (c->opt.page_index && s->pidx.n != s->npages)
		return dl_error_set(DL_ERROR, "column '%s': %zu page index records for %zu pages", c->leaf->path[0],
		                    s->pidx.n, s->npages);
	for (size_t k = 0; k < s->npages; k++) {
		const pq_wpage *p = s->pagev[k];
		if (c->opt.page_index) {
			s->pidx.pages[k].offset = sink->pos - m->data_page_offset;
			s->pidx.pages[k].size = (int32_t)p->len;
		}
		DL_TRY(pq_sink_write(sink, p->data, p->len));
		m->total_uncompressed_size += p->uncompressed;
	}
	m->total_compressed_size = sink->pos - start;
	out->file_offset = start;
	DL_TRY(describe(c, s, arena, scratch, m));
	if (c->opt.page_index && ci && oi) DL_TRY(emit_page_index(s, out, ci, oi));
	if (s->bloom.fpp > 0 && bf) {
		int64_t at = (int64_t)bf->len;
		DL_TRY(pq_bloom_builder_flush(&s->bloom, bf, &m->bloom_filter_length));
		if (m->bloom_filter_length > 0) {
			m->has_bloom_filter_offset = m->has_bloom_filter_length = true;
			m->bloom_filter_offset = at;
		}
	}
	return pq_stats_merge(&c->file_stats, &s->stats);
}

int pq_colw_emit(pq_colw *c, pq_sealed_chunk *s, pq_sink *sink, dl_arena *arena, dl_buf *scratch,
                 pq_column_chunk *out, dl_buf *ci, dl_buf *oi, dl_buf *bf)
{
	int rc = emit(c, s, sink, arena, scratch, out, ci, oi, bf);
	pq_sealed_chunk_free(s);
	return rc;
}
