/* Thrift encoding of FileMetaData and PageHeader (parquet.thrift). Only
 * fields that are set are written; required fields always are. */
#include "parquet/metadata_write.h"
#include "parquet/thrift_write.h"
#include <string.h>

static void put_bytes(pq_tw *w, int16_t id, pq_bytes b)
{
	pq_tw_binary(w, id, b.ptr, b.len);
}

static void put_statistics(pq_tw *w, int16_t id, const pq_statistics *s)
{
	pq_tw_struct_begin(w, id);
	if (s->has_max) put_bytes(w, 1, s->max);
	if (s->has_min) put_bytes(w, 2, s->min);
	if (s->has_null_count) pq_tw_i64(w, 3, s->null_count);
	if (s->has_distinct_count) pq_tw_i64(w, 4, s->distinct_count);
	if (s->has_max_value) put_bytes(w, 5, s->max_value);
	if (s->has_min_value) put_bytes(w, 6, s->min_value);
	if (s->has_is_max_value_exact) pq_tw_bool(w, 7, s->is_max_value_exact);
	if (s->has_is_min_value_exact) pq_tw_bool(w, 8, s->is_min_value_exact);
	if (s->has_nan_count) pq_tw_i64(w, 9, s->nan_count);
	pq_tw_end(w);
}

static void put_key_values(pq_tw *w, int16_t id, const pq_key_value *kv, uint32_t n)
{
	pq_tw_list_begin(w, id, PQ_TT_STRUCT, n);
	for (uint32_t i = 0; i < n; i++) {
		pq_tw_elem_struct_begin(w);
		pq_tw_string(w, 1, kv[i].key);
		if (kv[i].value) pq_tw_string(w, 2, kv[i].value);
		pq_tw_end(w);
	}
}

/* LogicalType is a union of (mostly empty) structs. */
static void put_logical(pq_tw *w, const pq_logical_type *lt)
{
	pq_tw_struct_begin(w, 10);
	pq_tw_struct_begin(w, (int16_t)lt->kind);
	switch (lt->kind) {
	case PQ_LT_DECIMAL:
		pq_tw_i32(w, 1, lt->scale);
		pq_tw_i32(w, 2, lt->precision);
		break;
	case PQ_LT_TIME:
	case PQ_LT_TIMESTAMP:
		pq_tw_bool(w, 1, lt->is_adjusted_to_utc);
		pq_tw_struct_begin(w, 2); /* TimeUnit union */
		pq_tw_struct_begin(w, (int16_t)lt->unit);
		pq_tw_end(w);
		pq_tw_end(w);
		break;
	case PQ_LT_INTEGER:
		pq_tw_i8(w, 1, lt->bit_width);
		pq_tw_bool(w, 2, lt->is_signed);
		break;
	case PQ_LT_GEOMETRY:
	case PQ_LT_GEOGRAPHY:
		if (lt->crs) pq_tw_string(w, 1, lt->crs);
		if (lt->kind == PQ_LT_GEOGRAPHY && lt->has_algorithm) pq_tw_i32(w, 2, lt->algorithm);
		break;
	case PQ_LT_VARIANT:
		if (lt->has_spec_version) pq_tw_i8(w, 1, lt->spec_version);
		break;
	default:
		break;
	}
	pq_tw_end(w);
	pq_tw_end(w);
}

static void put_schema_element(pq_tw *w, const pq_schema_element *e)
{
	pq_tw_elem_struct_begin(w);
	if (e->has_type) pq_tw_i32(w, 1, e->type);
	if (e->has_type_length) pq_tw_i32(w, 2, e->type_length);
	if (e->has_repetition) pq_tw_i32(w, 3, e->repetition);
	pq_tw_string(w, 4, e->name);
	if (e->has_num_children) pq_tw_i32(w, 5, e->num_children);
	if (e->converted_type != PQ_CT_NONE) pq_tw_i32(w, 6, e->converted_type);
	if (e->has_scale) pq_tw_i32(w, 7, e->scale);
	if (e->has_precision) pq_tw_i32(w, 8, e->precision);
	if (e->has_field_id) pq_tw_i32(w, 9, e->field_id);
	if (e->logical.kind != PQ_LT_NONE) put_logical(w, &e->logical);
	pq_tw_end(w);
}

static void put_column_meta(pq_tw *w, const pq_column_meta *m)
{
	pq_tw_struct_begin(w, 3);
	pq_tw_i32(w, 1, m->type);
	pq_tw_list_begin(w, 2, PQ_TT_I32, m->nencodings);
	for (uint32_t i = 0; i < m->nencodings; i++) pq_tw_elem_i32(w, m->encodings[i]);
	pq_tw_list_begin(w, 3, PQ_TT_BINARY, m->npath);
	for (uint32_t i = 0; i < m->npath; i++)
		pq_tw_elem_binary(w, m->path_in_schema[i], strlen(m->path_in_schema[i]));
	pq_tw_i32(w, 4, m->codec);
	pq_tw_i64(w, 5, m->num_values);
	pq_tw_i64(w, 6, m->total_uncompressed_size);
	pq_tw_i64(w, 7, m->total_compressed_size);
	if (m->nkey_value_metadata) put_key_values(w, 8, m->key_value_metadata, m->nkey_value_metadata);
	pq_tw_i64(w, 9, m->data_page_offset);
	if (m->has_index_page_offset) pq_tw_i64(w, 10, m->index_page_offset);
	if (m->has_dictionary_page_offset) pq_tw_i64(w, 11, m->dictionary_page_offset);
	if (m->has_statistics) put_statistics(w, 12, &m->statistics);
	if (m->nencoding_stats) {
		pq_tw_list_begin(w, 13, PQ_TT_STRUCT, m->nencoding_stats);
		for (uint32_t i = 0; i < m->nencoding_stats; i++) {
			pq_tw_elem_struct_begin(w);
			pq_tw_i32(w, 1, m->encoding_stats[i].page_type);
			pq_tw_i32(w, 2, m->encoding_stats[i].encoding);
			pq_tw_i32(w, 3, m->encoding_stats[i].count);
			pq_tw_end(w);
		}
	}
	if (m->has_bloom_filter_offset) pq_tw_i64(w, 14, m->bloom_filter_offset);
	if (m->has_bloom_filter_length) pq_tw_i32(w, 15, m->bloom_filter_length);
	pq_tw_end(w);
}

static void put_column_chunk(pq_tw *w, const pq_column_chunk *c)
{
	pq_tw_elem_struct_begin(w);
	if (c->file_path) pq_tw_string(w, 1, c->file_path);
	pq_tw_i64(w, 2, c->file_offset);
	if (c->has_meta_data) put_column_meta(w, &c->meta_data);
	if (c->has_offset_index_offset) pq_tw_i64(w, 4, c->offset_index_offset);
	if (c->has_offset_index_length) pq_tw_i32(w, 5, c->offset_index_length);
	if (c->has_column_index_offset) pq_tw_i64(w, 6, c->column_index_offset);
	if (c->has_column_index_length) pq_tw_i32(w, 7, c->column_index_length);
	pq_tw_end(w);
}

static void put_row_group(pq_tw *w, const pq_row_group *rg)
{
	pq_tw_elem_struct_begin(w);
	pq_tw_list_begin(w, 1, PQ_TT_STRUCT, rg->ncolumns);
	for (uint32_t i = 0; i < rg->ncolumns; i++) put_column_chunk(w, &rg->columns[i]);
	pq_tw_i64(w, 2, rg->total_byte_size);
	pq_tw_i64(w, 3, rg->num_rows);
	if (rg->nsorting_columns) {
		pq_tw_list_begin(w, 4, PQ_TT_STRUCT, rg->nsorting_columns);
		for (uint32_t i = 0; i < rg->nsorting_columns; i++) {
			pq_tw_elem_struct_begin(w);
			pq_tw_i32(w, 1, rg->sorting_columns[i].column_idx);
			pq_tw_bool(w, 2, rg->sorting_columns[i].descending);
			pq_tw_bool(w, 3, rg->sorting_columns[i].nulls_first);
			pq_tw_end(w);
		}
	}
	if (rg->has_file_offset) pq_tw_i64(w, 5, rg->file_offset);
	if (rg->has_total_compressed_size) pq_tw_i64(w, 6, rg->total_compressed_size);
	if (rg->has_ordinal) pq_tw_i16(w, 7, rg->ordinal);
	pq_tw_end(w);
}

int pq_file_metadata_encode(dl_buf *out, const pq_file_metadata *md)
{
	pq_tw w;
	pq_tw_init(&w, out);
	pq_tw_i32(&w, 1, md->version);
	pq_tw_list_begin(&w, 2, PQ_TT_STRUCT, md->nschema);
	for (uint32_t i = 0; i < md->nschema; i++) put_schema_element(&w, &md->schema[i]);
	pq_tw_i64(&w, 3, md->num_rows);
	pq_tw_list_begin(&w, 4, PQ_TT_STRUCT, md->nrow_groups);
	for (uint32_t i = 0; i < md->nrow_groups; i++) put_row_group(&w, &md->row_groups[i]);
	if (md->nkey_value_metadata) put_key_values(&w, 5, md->key_value_metadata, md->nkey_value_metadata);
	if (md->created_by) pq_tw_string(&w, 6, md->created_by);
	if (md->ncolumn_orders) {
		/* ColumnOrder is a union; TYPE_ORDER (1) is the empty TypeDefinedOrder. */
		pq_tw_list_begin(&w, 7, PQ_TT_STRUCT, md->ncolumn_orders);
		for (uint32_t i = 0; i < md->ncolumn_orders; i++) {
			pq_tw_elem_struct_begin(&w);
			if (md->column_orders[i] != PQ_ORDER_UNKNOWN) {
				pq_tw_struct_begin(&w, (int16_t)md->column_orders[i]);
				pq_tw_end(&w);
			}
			pq_tw_end(&w);
		}
	}
	return pq_tw_finish(&w);
}

static void put_data_page_header(pq_tw *w, const pq_data_page_header *d)
{
	pq_tw_struct_begin(w, 5);
	pq_tw_i32(w, 1, d->num_values);
	pq_tw_i32(w, 2, d->encoding);
	pq_tw_i32(w, 3, d->definition_level_encoding);
	pq_tw_i32(w, 4, d->repetition_level_encoding);
	if (d->has_statistics) put_statistics(w, 5, &d->statistics);
	pq_tw_end(w);
}

static void put_data_page_header_v2(pq_tw *w, const pq_data_page_header_v2 *d)
{
	pq_tw_struct_begin(w, 8);
	pq_tw_i32(w, 1, d->num_values);
	pq_tw_i32(w, 2, d->num_nulls);
	pq_tw_i32(w, 3, d->num_rows);
	pq_tw_i32(w, 4, d->encoding);
	pq_tw_i32(w, 5, d->definition_levels_byte_length);
	pq_tw_i32(w, 6, d->repetition_levels_byte_length);
	pq_tw_bool(w, 7, d->is_compressed);
	if (d->has_statistics) put_statistics(w, 8, &d->statistics);
	pq_tw_end(w);
}

int pq_page_header_encode(dl_buf *out, const pq_page_header *h)
{
	pq_tw w;
	pq_tw_init(&w, out);
	pq_tw_i32(&w, 1, h->type);
	pq_tw_i32(&w, 2, h->uncompressed_page_size);
	pq_tw_i32(&w, 3, h->compressed_page_size);
	if (h->has_crc) pq_tw_i32(&w, 4, h->crc);
	if (h->has_data_page_header) put_data_page_header(&w, &h->data_page_header);
	if (h->has_dictionary_page_header) {
		pq_tw_struct_begin(&w, 7);
		pq_tw_i32(&w, 1, h->dictionary_page_header.num_values);
		pq_tw_i32(&w, 2, h->dictionary_page_header.encoding);
		if (h->dictionary_page_header.has_is_sorted)
			pq_tw_bool(&w, 3, h->dictionary_page_header.is_sorted);
		pq_tw_end(&w);
	}
	if (h->has_data_page_header_v2) put_data_page_header_v2(&w, &h->data_page_header_v2);
	return pq_tw_finish(&w);
}
