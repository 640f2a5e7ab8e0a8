/* Decoding of FileMetaData and PageHeader from the Thrift compact protocol.
 * Unknown fields are skipped (newer writers add fields); required fields
 * are checked; list sizes are bounded by the bytes left (thrift_read.c). */
#include "parquet/metadata.h"
#include <string.h>
#include "parquet/thrift_read.h"
#include "util/error.h"

typedef struct ctx {
	pq_thrift t;
	dl_arena *arena; /* NULL: binaries point into the input */
} ctx;

static int rd_i32(ctx *c, int type, int32_t *out, const char *f)
{
	if (type == TC_BYTE) {
		int8_t b;
		DL_TRY(pq_thrift_byte(&c->t, &b));
		*out = b;
		return 0;
	}
	DL_TRY(pq_thrift_expect(&c->t, type, TC_I32, f));
	return pq_thrift_i32(&c->t, out);
}

static int rd_i64(ctx *c, int type, int64_t *out, const char *f)
{
	DL_TRY(pq_thrift_expect(&c->t, type, TC_I64, f));
	return pq_thrift_i64(&c->t, out);
}

static int rd_bool(ctx *c, int type, bool *out, const char *f)
{
	DL_TRY(pq_thrift_expect(&c->t, type, TC_TRUE, f));
	return pq_thrift_bool_field(&c->t, type, out);
}

static int rd_bin(ctx *c, int type, pq_bytes *out, const char *f)
{
	const uint8_t *p;
	uint32_t n;
	DL_TRY(pq_thrift_expect(&c->t, type, TC_BINARY, f));
	DL_TRY(pq_thrift_binary(&c->t, &p, &n));
	if (c->arena) {
		uint8_t *copy = dl_arena_alloc(c->arena, n ? n : 1);
		if (!copy) return DL_ENOMEM;
		if (n) memcpy(copy, p, n);
		p = copy;
	}
	out->ptr = p;
	out->len = n;
	return 0;
}

static int rd_str(ctx *c, int type, char **out, const char *f)
{
	const uint8_t *p;
	uint32_t n;
	DL_TRY(pq_thrift_expect(&c->t, type, TC_BINARY, f));
	DL_TRY(pq_thrift_binary(&c->t, &p, &n));
	*out = dl_arena_strndup(c->arena, (const char *)p, n);
	return *out ? 0 : DL_ENOMEM;
}

/* A list header whose elements have wire type `want`; allocates n elements
 * of `size` bytes (zeroed) in the arena. */
static int rd_list(ctx *c, int type, int want, size_t size, void **items, uint32_t *n, const char *f)
{
	int et;
	DL_TRY(pq_thrift_expect(&c->t, type, TC_LIST, f));
	DL_TRY(pq_thrift_list(&c->t, &et, n));
	if (*n && et != want && !(want == TC_I32 && (et == TC_I16 || et == TC_I64)))
		return pq_thrift_corrupt(&c->t, f);
	*items = dl_arena_calloc(c->arena, *n ? *n : 1, size);
	return *items ? 0 : DL_ENOMEM;
}

/* Iterates the fields of a struct: `for` body switches on id. */
#define FIELDS(c)                                                      \
	DL_TRY(pq_thrift_struct_begin(&(c)->t));                           \
	for (int type; ; ) {                                               \
		int16_t id;                                                    \
		DL_TRY(pq_thrift_field(&(c)->t, &type, &id));                  \
		if (type == TC_STOP) break;                                    \
		switch (id)
#define END_FIELDS(c)                                                  \
	}                                                                  \
	pq_thrift_struct_end(&(c)->t)
#define SKIP(c) default: DL_TRY(pq_thrift_skip(&(c)->t, type)); break

static int require(ctx *c, bool ok, const char *what)
{
	if (ok) return 0;
	char msg[128];
	strcpy(msg, "missing required field ");
	strncat(msg, what, sizeof msg - strlen(msg) - 1);
	return pq_thrift_corrupt(&c->t, msg);
}

static int rd_statistics(ctx *c, pq_statistics *s)
{
	memset(s, 0, sizeof *s);
	FIELDS(c) {
	case 1: DL_TRY(rd_bin(c, type, &s->max, "Statistics.max")); s->has_max = true; break;
	case 2: DL_TRY(rd_bin(c, type, &s->min, "Statistics.min")); s->has_min = true; break;
	case 3: DL_TRY(rd_i64(c, type, &s->null_count, "null_count")); s->has_null_count = true; break;
	case 4: DL_TRY(rd_i64(c, type, &s->distinct_count, "distinct_count")); s->has_distinct_count = true; break;
	case 5: DL_TRY(rd_bin(c, type, &s->max_value, "max_value")); s->has_max_value = true; break;
	case 6: DL_TRY(rd_bin(c, type, &s->min_value, "min_value")); s->has_min_value = true; break;
	case 7: DL_TRY(rd_bool(c, type, &s->is_max_value_exact, "is_max_value_exact")); s->has_is_max_value_exact = true; break;
	case 8: DL_TRY(rd_bool(c, type, &s->is_min_value_exact, "is_min_value_exact")); s->has_is_min_value_exact = true; break;
	case 9: DL_TRY(rd_i64(c, type, &s->nan_count, "nan_count")); s->has_nan_count = true; break;
	SKIP(c);
	}
	END_FIELDS(c);
	return 0;
}

static int rd_time_unit(ctx *c, pq_time_unit *u)
{
	*u = 0;
	FIELDS(c) {
	case 1: *u = PQ_UNIT_MILLIS; DL_TRY(pq_thrift_skip(&c->t, type)); break;
	case 2: *u = PQ_UNIT_MICROS; DL_TRY(pq_thrift_skip(&c->t, type)); break;
	case 3: *u = PQ_UNIT_NANOS; DL_TRY(pq_thrift_skip(&c->t, type)); break;
	SKIP(c);
	}
	END_FIELDS(c);
	return 0;
}

/* DecimalType, TimestampType/TimeType, IntType bodies. */
static int rd_logical_body(ctx *c, pq_logical_type *lt)
{
	FIELDS(c) {
	case 1:
		if (lt->kind == PQ_LT_DECIMAL) DL_TRY(rd_i32(c, type, &lt->scale, "DecimalType.scale"));
		else if (lt->kind == PQ_LT_INTEGER) {
			int32_t w;
			DL_TRY(rd_i32(c, type, &w, "IntType.bitWidth"));
			lt->bit_width = (int8_t)w;
		} else if (lt->kind == PQ_LT_TIMESTAMP || lt->kind == PQ_LT_TIME)
			DL_TRY(rd_bool(c, type, &lt->is_adjusted_to_utc, "isAdjustedToUTC"));
		else if (lt->kind == PQ_LT_GEOMETRY || lt->kind == PQ_LT_GEOGRAPHY)
			DL_TRY(rd_str(c, type, &lt->crs, "GeometryType/GeographyType.crs"));
		else if (lt->kind == PQ_LT_VARIANT) {
			int32_t v;
			DL_TRY(rd_i32(c, type, &v, "VariantType.specification_version"));
			lt->spec_version = (int8_t)v;
			lt->has_spec_version = true;
		} else DL_TRY(pq_thrift_skip(&c->t, type));
		break;
	case 2:
		if (lt->kind == PQ_LT_DECIMAL) DL_TRY(rd_i32(c, type, &lt->precision, "DecimalType.precision"));
		else if (lt->kind == PQ_LT_INTEGER) DL_TRY(rd_bool(c, type, &lt->is_signed, "IntType.isSigned"));
		else if (lt->kind == PQ_LT_TIMESTAMP || lt->kind == PQ_LT_TIME) {
			DL_TRY(pq_thrift_expect(&c->t, type, TC_STRUCT, "unit"));
			DL_TRY(rd_time_unit(c, &lt->unit));
		} else if (lt->kind == PQ_LT_GEOGRAPHY) {
			DL_TRY(rd_i32(c, type, &lt->algorithm, "GeographyType.algorithm"));
			lt->has_algorithm = true;
		} else DL_TRY(pq_thrift_skip(&c->t, type));
		break;
	SKIP(c);
	}
	END_FIELDS(c);
	return 0;
}

static int rd_logical_type(ctx *c, pq_logical_type *lt)
{
	memset(lt, 0, sizeof *lt);
	FIELDS(c) {
	default:
		if (type != TC_STRUCT || id < 1 || id > 19) {
			DL_TRY(pq_thrift_skip(&c->t, type));
			break;
		}
		/* Unknown future annotations stay PQ_LT_NONE-like but recorded. */
		lt->kind = (pq_logical_kind)id;
		DL_TRY(rd_logical_body(c, lt));
		break;
	}
	END_FIELDS(c);
	return 0;
}

static int rd_schema_element(ctx *c, pq_schema_element *e)
{
	memset(e, 0, sizeof *e);
	e->converted_type = PQ_CT_NONE;
	int32_t v;
	FIELDS(c) {
	case 1: DL_TRY(rd_i32(c, type, &v, "type")); e->type = (pq_type)v; e->has_type = true; break;
	case 2: DL_TRY(rd_i32(c, type, &e->type_length, "type_length")); e->has_type_length = true; break;
	case 3: DL_TRY(rd_i32(c, type, &v, "repetition_type")); e->repetition = (pq_repetition)v; e->has_repetition = true; break;
	case 4: DL_TRY(rd_str(c, type, &e->name, "name")); break;
	case 5: DL_TRY(rd_i32(c, type, &e->num_children, "num_children")); e->has_num_children = true; break;
	case 6: DL_TRY(rd_i32(c, type, &v, "converted_type")); e->converted_type = (pq_converted_type)v; break;
	case 7: DL_TRY(rd_i32(c, type, &e->scale, "scale")); e->has_scale = true; break;
	case 8: DL_TRY(rd_i32(c, type, &e->precision, "precision")); e->has_precision = true; break;
	case 9: DL_TRY(rd_i32(c, type, &e->field_id, "field_id")); e->has_field_id = true; break;
	case 10:
		DL_TRY(pq_thrift_expect(&c->t, type, TC_STRUCT, "logicalType"));
		DL_TRY(rd_logical_type(c, &e->logical));
		break;
	SKIP(c);
	}
	END_FIELDS(c);
	return require(c, e->name != NULL, "SchemaElement.name");
}

static int rd_key_value(ctx *c, pq_key_value *kv)
{
	memset(kv, 0, sizeof *kv);
	FIELDS(c) {
	case 1: DL_TRY(rd_str(c, type, &kv->key, "KeyValue.key")); break;
	case 2: DL_TRY(rd_str(c, type, &kv->value, "KeyValue.value")); break;
	SKIP(c);
	}
	END_FIELDS(c);
	return require(c, kv->key != NULL, "KeyValue.key");
}

static int rd_key_values(ctx *c, int type, pq_key_value **out, uint32_t *n)
{
	DL_TRY(rd_list(c, type, TC_STRUCT, sizeof **out, (void **)out, n, "key_value_metadata"));
	for (uint32_t i = 0; i < *n; i++) DL_TRY(rd_key_value(c, &(*out)[i]));
	return 0;
}

static int rd_encoding_stats(ctx *c, pq_page_encoding_stats *s)
{
	int32_t v;
	FIELDS(c) {
	case 1: DL_TRY(rd_i32(c, type, &v, "page_type")); s->page_type = (pq_page_type)v; break;
	case 2: DL_TRY(rd_i32(c, type, &v, "encoding")); s->encoding = (pq_encoding)v; break;
	case 3: DL_TRY(rd_i32(c, type, &s->count, "count")); break;
	SKIP(c);
	}
	END_FIELDS(c);
	return 0;
}

static int rd_column_meta(ctx *c, pq_column_meta *m)
{
	bool seen[10] = {0};
	int32_t v;
	uint32_t n;
	void *items;
	FIELDS(c) {
	case 1: DL_TRY(rd_i32(c, type, &v, "ColumnMetaData.type")); m->type = (pq_type)v; seen[1] = true; break;
	case 2:
		DL_TRY(rd_list(c, type, TC_I32, sizeof(pq_encoding), &items, &n, "encodings"));
		m->encodings = items;
		m->nencodings = n;
		for (uint32_t i = 0; i < n; i++) {
			DL_TRY(pq_thrift_i32(&c->t, &v));
			m->encodings[i] = (pq_encoding)v;
		}
		break;
	case 3:
		DL_TRY(rd_list(c, type, TC_BINARY, sizeof(char *), &items, &n, "path_in_schema"));
		m->path_in_schema = items;
		m->npath = n;
		for (uint32_t i = 0; i < n; i++) DL_TRY(rd_str(c, TC_BINARY, &m->path_in_schema[i], "path_in_schema"));
		seen[3] = true;
		break;
	case 4: DL_TRY(rd_i32(c, type, &v, "codec")); m->codec = (pq_codec)v; seen[4] = true; break;
	case 5: DL_TRY(rd_i64(c, type, &m->num_values, "num_values")); seen[5] = true; break;
	case 6: DL_TRY(rd_i64(c, type, &m->total_uncompressed_size, "total_uncompressed_size")); break;
	case 7: DL_TRY(rd_i64(c, type, &m->total_compressed_size, "total_compressed_size")); seen[7] = true; break;
	case 8: DL_TRY(rd_key_values(c, type, &m->key_value_metadata, &m->nkey_value_metadata)); break;
	case 9: DL_TRY(rd_i64(c, type, &m->data_page_offset, "data_page_offset")); seen[9] = true; break;
	case 10: DL_TRY(rd_i64(c, type, &m->index_page_offset, "index_page_offset")); m->has_index_page_offset = true; break;
	case 11: DL_TRY(rd_i64(c, type, &m->dictionary_page_offset, "dictionary_page_offset")); m->has_dictionary_page_offset = true; break;
	case 12:
		DL_TRY(pq_thrift_expect(&c->t, type, TC_STRUCT, "statistics"));
		DL_TRY(rd_statistics(c, &m->statistics));
		m->has_statistics = true;
		break;
	case 13:
		DL_TRY(rd_list(c, type, TC_STRUCT, sizeof(pq_page_encoding_stats), &items, &n, "encoding_stats"));
		m->encoding_stats = items;
		m->nencoding_stats = n;
		for (uint32_t i = 0; i < n; i++) DL_TRY(rd_encoding_stats(c, &m->encoding_stats[i]));
		break;
	case 14: DL_TRY(rd_i64(c, type, &m->bloom_filter_offset, "bloom_filter_offset")); m->has_bloom_filter_offset = true; break;
	case 15: DL_TRY(rd_i32(c, type, &m->bloom_filter_length, "bloom_filter_length")); m->has_bloom_filter_length = true; break;
	SKIP(c);
	}
	END_FIELDS(c);
	DL_TRY(require(c, seen[1], "ColumnMetaData.type"));
	DL_TRY(require(c, seen[3], "ColumnMetaData.path_in_schema"));
	DL_TRY(require(c, seen[4], "ColumnMetaData.codec"));
	DL_TRY(require(c, seen[5], "ColumnMetaData.num_values"));
	DL_TRY(require(c, seen[7], "ColumnMetaData.total_compressed_size"));
	return require(c, seen[9], "ColumnMetaData.data_page_offset");
}

static int rd_column_chunk(ctx *c, pq_column_chunk *cc)
{
	FIELDS(c) {
	case 1: DL_TRY(rd_str(c, type, &cc->file_path, "file_path")); break;
	case 2: DL_TRY(rd_i64(c, type, &cc->file_offset, "file_offset")); break;
	case 3:
		DL_TRY(pq_thrift_expect(&c->t, type, TC_STRUCT, "meta_data"));
		DL_TRY(rd_column_meta(c, &cc->meta_data));
		cc->has_meta_data = true;
		break;
	case 4: DL_TRY(rd_i64(c, type, &cc->offset_index_offset, "offset_index_offset")); cc->has_offset_index_offset = true; break;
	case 5: DL_TRY(rd_i32(c, type, &cc->offset_index_length, "offset_index_length")); cc->has_offset_index_length = true; break;
	case 6: DL_TRY(rd_i64(c, type, &cc->column_index_offset, "column_index_offset")); cc->has_column_index_offset = true; break;
	case 7: DL_TRY(rd_i32(c, type, &cc->column_index_length, "column_index_length")); cc->has_column_index_length = true; break;
	case 8:
	case 9: cc->encrypted = true; DL_TRY(pq_thrift_skip(&c->t, type)); break;
	SKIP(c);
	}
	END_FIELDS(c);
	return 0;
}

static int rd_sorting_column(ctx *c, pq_sorting_column *s)
{
	FIELDS(c) {
	case 1: DL_TRY(rd_i32(c, type, &s->column_idx, "column_idx")); break;
	case 2: DL_TRY(rd_bool(c, type, &s->descending, "descending")); break;
	case 3: DL_TRY(rd_bool(c, type, &s->nulls_first, "nulls_first")); break;
	SKIP(c);
	}
	END_FIELDS(c);
	return 0;
}

static int rd_row_group(ctx *c, pq_row_group *rg)
{
	bool seen_cols = false, seen_rows = false;
	uint32_t n;
	void *items;
	int32_t v;
	FIELDS(c) {
	case 1:
		DL_TRY(rd_list(c, type, TC_STRUCT, sizeof(pq_column_chunk), &items, &n, "RowGroup.columns"));
		rg->columns = items;
		rg->ncolumns = n;
		for (uint32_t i = 0; i < n; i++) DL_TRY(rd_column_chunk(c, &rg->columns[i]));
		seen_cols = true;
		break;
	case 2: DL_TRY(rd_i64(c, type, &rg->total_byte_size, "total_byte_size")); break;
	case 3: DL_TRY(rd_i64(c, type, &rg->num_rows, "RowGroup.num_rows")); seen_rows = true; break;
	case 4:
		DL_TRY(rd_list(c, type, TC_STRUCT, sizeof(pq_sorting_column), &items, &n, "sorting_columns"));
		rg->sorting_columns = items;
		rg->nsorting_columns = n;
		for (uint32_t i = 0; i < n; i++) DL_TRY(rd_sorting_column(c, &rg->sorting_columns[i]));
		break;
	case 5: DL_TRY(rd_i64(c, type, &rg->file_offset, "RowGroup.file_offset")); rg->has_file_offset = true; break;
	case 6: DL_TRY(rd_i64(c, type, &rg->total_compressed_size, "RowGroup.total_compressed_size")); rg->has_total_compressed_size = true; break;
	case 7: DL_TRY(rd_i32(c, type, &v, "ordinal")); rg->ordinal = (int16_t)v; rg->has_ordinal = true; break;
	SKIP(c);
	}
	END_FIELDS(c);
	DL_TRY(require(c, seen_cols, "RowGroup.columns"));
	return require(c, seen_rows, "RowGroup.num_rows");
}

static int rd_column_order(ctx *c, pq_column_order *o)
{
	*o = PQ_ORDER_UNKNOWN;
	FIELDS(c) {
	default:
		if (id >= 1 && id <= 3) *o = (pq_column_order)id;
		DL_TRY(pq_thrift_skip(&c->t, type));
		break;
	}
	END_FIELDS(c);
	return 0;
}

int pq_file_metadata_decode(pq_file_metadata *out, dl_arena *arena, const uint8_t *p, size_t len,
                            const char *what)
{
	ctx cx, *c = &cx;
	pq_thrift_init(&c->t, p, len, what);
	c->arena = arena;
	memset(out, 0, sizeof *out);
	bool seen_schema = false, seen_rows = false, seen_rgs = false;
	uint32_t n;
	void *items;
	FIELDS(c) {
	case 1: DL_TRY(rd_i32(c, type, &out->version, "version")); break;
	case 2:
		DL_TRY(rd_list(c, type, TC_STRUCT, sizeof(pq_schema_element), &items, &n, "schema"));
		out->schema = items;
		out->nschema = n;
		for (uint32_t i = 0; i < n; i++) DL_TRY(rd_schema_element(c, &out->schema[i]));
		seen_schema = true;
		break;
	case 3: DL_TRY(rd_i64(c, type, &out->num_rows, "FileMetaData.num_rows")); seen_rows = true; break;
	case 4:
		DL_TRY(rd_list(c, type, TC_STRUCT, sizeof(pq_row_group), &items, &n, "row_groups"));
		out->row_groups = items;
		out->nrow_groups = n;
		for (uint32_t i = 0; i < n; i++) DL_TRY(rd_row_group(c, &out->row_groups[i]));
		seen_rgs = true;
		break;
	case 5: DL_TRY(rd_key_values(c, type, &out->key_value_metadata, &out->nkey_value_metadata)); break;
	case 6: DL_TRY(rd_str(c, type, &out->created_by, "created_by")); break;
	case 7:
		DL_TRY(rd_list(c, type, TC_STRUCT, sizeof(pq_column_order), &items, &n, "column_orders"));
		out->column_orders = items;
		out->ncolumn_orders = n;
		for (uint32_t i = 0; i < n; i++) DL_TRY(rd_column_order(c, &out->column_orders[i]));
		break;
	case 8: out->encrypted = true; DL_TRY(pq_thrift_skip(&c->t, type)); break;
	SKIP(c);
	}
	END_FIELDS(c);
	DL_TRY(require(c, seen_schema, "FileMetaData.schema"));
	DL_TRY(require(c, seen_rows, "FileMetaData.num_rows"));
	return require(c, seen_rgs, "FileMetaData.row_groups");
}

static int rd_data_page_header(ctx *c, pq_data_page_header *h)
{
	int32_t v;
	FIELDS(c) {
	case 1: DL_TRY(rd_i32(c, type, &h->num_values, "num_values")); break;
	case 2: DL_TRY(rd_i32(c, type, &v, "encoding")); h->encoding = (pq_encoding)v; break;
	case 3: DL_TRY(rd_i32(c, type, &v, "definition_level_encoding")); h->definition_level_encoding = (pq_encoding)v; break;
	case 4: DL_TRY(rd_i32(c, type, &v, "repetition_level_encoding")); h->repetition_level_encoding = (pq_encoding)v; break;
	case 5:
		DL_TRY(pq_thrift_expect(&c->t, type, TC_STRUCT, "statistics"));
		DL_TRY(rd_statistics(c, &h->statistics));
		h->has_statistics = true;
		break;
	SKIP(c);
	}
	END_FIELDS(c);
	return 0;
}

static int rd_dict_page_header(ctx *c, pq_dictionary_page_header *h)
{
	int32_t v;
	FIELDS(c) {
	case 1: DL_TRY(rd_i32(c, type, &h->num_values, "num_values")); break;
	case 2: DL_TRY(rd_i32(c, type, &v, "encoding")); h->encoding = (pq_encoding)v; break;
	case 3: DL_TRY(rd_bool(c, type, &h->is_sorted, "is_sorted")); h->has_is_sorted = true; break;
	SKIP(c);
	}
	END_FIELDS(c);
	return 0;
}

static int rd_data_page_header_v2(ctx *c, pq_data_page_header_v2 *h)
{
	int32_t v;
	h->is_compressed = true;
	FIELDS(c) {
	case 1: DL_TRY(rd_i32(c, type, &h->num_values, "num_values")); break;
	case 2: DL_TRY(rd_i32(c, type, &h->num_nulls, "num_nulls")); break;
	case 3: DL_TRY(rd_i32(c, type, &h->num_rows, "num_rows")); break;
	case 4: DL_TRY(rd_i32(c, type, &v, "encoding")); h->encoding = (pq_encoding)v; break;
	case 5: DL_TRY(rd_i32(c, type, &h->definition_levels_byte_length, "definition_levels_byte_length")); break;
	case 6: DL_TRY(rd_i32(c, type, &h->repetition_levels_byte_length, "repetition_levels_byte_length")); break;
	case 7: DL_TRY(rd_bool(c, type, &h->is_compressed, "is_compressed")); break;
	case 8:
		DL_TRY(pq_thrift_expect(&c->t, type, TC_STRUCT, "statistics"));
		DL_TRY(rd_statistics(c, &h->statistics));
		h->has_statistics = true;
		break;
	SKIP(c);
	}
	END_FIELDS(c);
	return 0;
}

int pq_page_header_decode(pq_page_header *out, const uint8_t *p, size_t len, size_t *header_len,
                          const char *what)
{
	ctx cx, *c = &cx;
	pq_thrift_init(&c->t, p, len, what);
	c->arena = NULL;
	memset(out, 0, sizeof *out);
	bool seen[4] = {0};
	int32_t v;
	FIELDS(c) {
	case 1: DL_TRY(rd_i32(c, type, &v, "PageHeader.type")); out->type = (pq_page_type)v; seen[1] = true; break;
	case 2: DL_TRY(rd_i32(c, type, &out->uncompressed_page_size, "uncompressed_page_size")); seen[2] = true; break;
	case 3: DL_TRY(rd_i32(c, type, &out->compressed_page_size, "compressed_page_size")); seen[3] = true; break;
	case 4: DL_TRY(rd_i32(c, type, &out->crc, "crc")); out->has_crc = true; break;
	case 5:
		DL_TRY(pq_thrift_expect(&c->t, type, TC_STRUCT, "data_page_header"));
		DL_TRY(rd_data_page_header(c, &out->data_page_header));
		out->has_data_page_header = true;
		break;
	case 7:
		DL_TRY(pq_thrift_expect(&c->t, type, TC_STRUCT, "dictionary_page_header"));
		DL_TRY(rd_dict_page_header(c, &out->dictionary_page_header));
		out->has_dictionary_page_header = true;
		break;
	case 8:
		DL_TRY(pq_thrift_expect(&c->t, type, TC_STRUCT, "data_page_header_v2"));
		DL_TRY(rd_data_page_header_v2(c, &out->data_page_header_v2));
		out->has_data_page_header_v2 = true;
		break;
	SKIP(c);
	}
	END_FIELDS(c);
	DL_TRY(require(c, seen[1] && seen[2] && seen[3], "PageHeader type/sizes"));
	if (out->uncompressed_page_size < 0 || out->compressed_page_size < 0)
		return pq_thrift_corrupt(&c->t, "negative page size");
	*header_len = pq_thrift_pos(&c->t);
	return 0;
}

/* ---- page index (PageIndex.md) and Bloom filter headers (BloomFilter.md) ---- */

static int rd_page_location(ctx *c, pq_page_loc *l)
{
	bool seen[4] = {0};
	FIELDS(c) {
	case 1: DL_TRY(rd_i64(c, type, &l->offset, "PageLocation.offset")); seen[1] = true; break;
	case 2: DL_TRY(rd_i32(c, type, &l->size, "compressed_page_size")); seen[2] = true; break;
	case 3: DL_TRY(rd_i64(c, type, &l->first_row, "first_row_index")); seen[3] = true; break;
	SKIP(c);
	}
	END_FIELDS(c);
	return require(c, seen[1] && seen[2] && seen[3], "PageLocation offset/size/first_row_index");
}

int pq_offset_index_decode(pq_offset_index *out, dl_arena *arena, const uint8_t *p, size_t len, const char *what)
{
	ctx cx, *c = &cx;
	pq_thrift_init(&c->t, p, len, what);
	c->arena = arena;
	memset(out, 0, sizeof *out);
	bool seen = false;
	FIELDS(c) {
	case 1: {
		uint32_t n;
		DL_TRY(rd_list(c, type, TC_STRUCT, sizeof *out->pages, (void **)&out->pages, &n, "page_locations"));
		for (uint32_t i = 0; i < n; i++) DL_TRY(rd_page_location(c, &out->pages[i]));
		out->n = (int)n;
		seen = true;
		break;
	}
	SKIP(c);
	}
	END_FIELDS(c);
	DL_TRY(require(c, seen, "OffsetIndex.page_locations"));
	/* Pages in row order, each starting after the previous one: the reader
	 * aligns columns by first_row_index and jumps by offset. */
	for (int i = 0; i < out->n; i++) {
		const pq_page_loc *l = &out->pages[i];
		if (l->offset < 0 || l->size <= 0 || l->first_row < 0 ||
		    (i == 0 ? l->first_row != 0 : (l->first_row <= out->pages[i - 1].first_row ||
		                                   l->offset < out->pages[i - 1].offset + out->pages[i - 1].size)))
			return pq_thrift_corrupt(&c->t, "page locations out of order");
	}
	return 0;
}

int pq_column_index_decode(pq_column_index *out, dl_arena *arena, const uint8_t *p, size_t len, const char *what)
{
	ctx cx, *c = &cx;
	pq_thrift_init(&c->t, p, len, what);
	c->arena = arena;
	memset(out, 0, sizeof *out);
	uint32_t nn = 0, nmin = 0, nmax = 0, nnc = 0;
	bool seen[5] = {0};
	int32_t v;
	FIELDS(c) {
	case 1:
	{
		/* list<bool>: elements typed 1 (as Java's Thrift writes) or 2 */
		int et;
		DL_TRY(pq_thrift_expect(&c->t, type, TC_LIST, "null_pages"));
		DL_TRY(pq_thrift_list(&c->t, &et, &nn));
		if (nn && et != TC_TRUE && et != TC_FALSE) return pq_thrift_corrupt(&c->t, "null_pages");
		out->null_pages = dl_arena_calloc(c->arena, nn ? nn : 1, sizeof *out->null_pages);
		if (!out->null_pages) return DL_ENOMEM;
	}
		for (uint32_t i = 0; i < nn; i++) DL_TRY(pq_thrift_bool_elem(&c->t, &out->null_pages[i]));
		seen[1] = true;
		break;
	case 2:
		DL_TRY(rd_list(c, type, TC_BINARY, sizeof *out->min, (void **)&out->min, &nmin, "min_values"));
		for (uint32_t i = 0; i < nmin; i++) DL_TRY(rd_bin(c, TC_BINARY, &out->min[i], "min_values"));
		seen[2] = true;
		break;
	case 3:
		DL_TRY(rd_list(c, type, TC_BINARY, sizeof *out->max, (void **)&out->max, &nmax, "max_values"));
		for (uint32_t i = 0; i < nmax; i++) DL_TRY(rd_bin(c, TC_BINARY, &out->max[i], "max_values"));
		seen[3] = true;
		break;
	case 4: DL_TRY(rd_i32(c, type, &v, "boundary_order")); out->boundary_order = v; seen[4] = true; break;
	case 5:
		DL_TRY(rd_list(c, type, TC_I64, sizeof *out->null_counts, (void **)&out->null_counts, &nnc, "null_counts"));
		for (uint32_t i = 0; i < nnc; i++) DL_TRY(pq_thrift_i64(&c->t, &out->null_counts[i]));
		out->has_null_counts = true;
		break;
	SKIP(c);
	}
	END_FIELDS(c);
	DL_TRY(require(c, seen[1] && seen[2] && seen[3] && seen[4], "ColumnIndex null_pages/min/max/boundary_order"));
	if (nmin != nn || nmax != nn || (out->has_null_counts && nnc != nn))
		return pq_thrift_corrupt(&c->t, "ColumnIndex lists of different lengths");
	out->n = (int)nn;
	return 0;
}

/* BloomFilterHeader { 1: i32 numBytes, 2: BloomFilterAlgorithm (union:
 * 1: SplitBlockAlgorithm {}), 3: BloomFilterHash (1: XxHash {}),
 * 4: BloomFilterCompression (1: Uncompressed {}) }: the union members are
 * recorded as the field id of the one set (0 when another, unknown, is). */
static int rd_union_member(ctx *c, int type, int *member, const char *f)
{
	DL_TRY(pq_thrift_expect(&c->t, type, TC_STRUCT, f));
	*member = 0;
	FIELDS(c) {
	case 1:
		DL_TRY(pq_thrift_expect(&c->t, type, TC_STRUCT, f));
		*member = 1;
		DL_TRY(pq_thrift_skip(&c->t, type));
		break;
	SKIP(c);
	}
	END_FIELDS(c);
	return 0;
}

int pq_bloom_header_decode(pq_bloom_header *out, const uint8_t *p, size_t len, size_t *header_len, const char *what)
{
	ctx cx, *c = &cx;
	pq_thrift_init(&c->t, p, len, what);
	c->arena = NULL;
	memset(out, 0, sizeof *out);
	bool seen[5] = {0};
	FIELDS(c) {
	case 1: DL_TRY(rd_i32(c, type, &out->num_bytes, "BloomFilterHeader.numBytes")); seen[1] = true; break;
	case 2: DL_TRY(rd_union_member(c, type, &out->algorithm, "algorithm")); seen[2] = true; break;
	case 3: DL_TRY(rd_union_member(c, type, &out->hash, "hash")); seen[3] = true; break;
	case 4: DL_TRY(rd_union_member(c, type, &out->compression, "compression")); seen[4] = true; break;
	SKIP(c);
	}
	END_FIELDS(c);
	DL_TRY(require(c, seen[1] && seen[2] && seen[3] && seen[4], "BloomFilterHeader numBytes/algorithm/hash/compression"));
	*header_len = pq_thrift_pos(&c->t);
	return 0;
}
