/* The public Parquet API (deltalake/parquet.h): a thin layer over the
 * reader, the writer and the footer decoder of this folder. It adds only
 * what a program inspecting files needs on top of them: the footer read on
 * its own (so a file the reader cannot map still shows its schema and
 * metadata), the schema and column chunks as text the way parquet-cli
 * prints them, and Arrow streams in and out. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "columnar/arrow_c.h"
#include "columnar/batch_stream.h"
#include "deltalake/parquet.h"
#include "parquet/codec.h"
#include "parquet/metadata.h"
#include "parquet/reader.h"
#include "parquet/writer.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/pool.h"

struct dl_parquet_file {
	dl_store *own_store;   /* opened by dl_parquet_open, or NULL */
	dl_store *store;       /* borrowed or own_store */
	char *name;            /* object path in the store */
	char *display;         /* the path as given, for messages */
	int64_t size;
	dl_arena arena;        /* footer and everything derived from it */
	pq_file_metadata md;
	/* derived on first use */
	char *schema_text;
	dl_parquet_schema_node *nodes;
	size_t nnodes;
	bool nodes_done;
	const pq_schema_element **leaves;
	uint32_t nleaves;
	bool leaves_done;
	pq_reader *reader;     /* for the Arrow schema */
};

/* Reads and decodes the footer (hostile input: every size checked). */
static int read_footer(dl_parquet_file *f)
{
	const char *path = f->display;
	uint8_t tail[8], *footer = NULL;
	size_t got = 0;
	if (f->size < 12)
		return dl_error_set(DL_ECORRUPT, "%s: %lld bytes is too small for a Parquet file", path, (long long)f->size);
	int rc = dl_store_get_range(tail, &got, f->store, f->name, f->size - 8, 8);
	if (rc == 0 && (got != 8 || memcmp(tail + 4, "PAR1", 4)))
		rc = dl_error_set(DL_ECORRUPT, "%s: no PAR1 magic at the end; not a Parquet file", path);
	if (rc < 0) return rc;
	uint32_t len = (uint32_t)tail[0] | (uint32_t)tail[1] << 8 | (uint32_t)tail[2] << 16 | (uint32_t)tail[3] << 24;
	if ((int64_t)len > f->size - 12)
		return dl_error_set(DL_ECORRUPT, "%s: footer length %u exceeds the file size %lld", path, len,
		                    (long long)f->size);
	footer = dl_malloc(len ? len : 1);
	if (!footer) return DL_ENOMEM;
	rc = dl_store_get_range(footer, &got, f->store, f->name, f->size - 8 - len, len);
	if (rc == 0 && got != len) rc = dl_error_set(DL_ECORRUPT, "%s: short read of the footer", path);
	if (rc == 0) rc = pq_file_metadata_decode(&f->md, &f->arena, footer, len, path);
	dl_free(footer);
	return rc;
}

static int open_common(dl_parquet_file *f)
{
	dl_object_info info = {0};
	int rc = dl_store_stat(&info, f->store, f->name);
	if (rc == 0) f->size = info.size;
	dl_object_info_free(&info);
	if (rc == 0) rc = read_footer(f);
	return rc;
}

int dl_parquet_open_store(dl_parquet_file **out, dl_store *store, const char *path)
{
	*out = NULL;
	if (!store || !path) return dl_error_set(DL_EINVALID, "dl_parquet_open_store needs a store and a path");
	dl_parquet_file *f = dl_calloc(1, sizeof *f);
	if (!f) return DL_ENOMEM;
	f->arena = (dl_arena)DL_ARENA_INIT;
	f->store = store;
	f->name = dl_strdup(path);
	f->display = dl_strdup(path);
	int rc = f->name && f->display ? open_common(f) : DL_ENOMEM;
	if (rc < 0) {
		dl_parquet_free(f);
		return rc;
	}
	*out = f;
	return 0;
}

int dl_parquet_open(dl_parquet_file **out, const char *path)
{
	*out = NULL;
	if (!path) return dl_error_set(DL_EINVALID, "dl_parquet_open needs a path");
	dl_parquet_file *f = dl_calloc(1, sizeof *f);
	if (!f) return DL_ENOMEM;
	f->arena = (dl_arena)DL_ARENA_INIT;
	/* A store on the file's directory; the name is the last component. */
	const char *slash = strrchr(path, '/');
	char *dir = slash ? dl_strndup(path, (size_t)(slash - path) + (slash == path)) : dl_strdup(".");
	f->name = dl_strdup(slash ? slash + 1 : path);
	f->display = dl_strdup(path);
	int rc = dir && f->name && f->display ? dl_store_open(&f->own_store, dir, NULL) : DL_ENOMEM;
	dl_free(dir);
	f->store = f->own_store;
	if (rc == 0) rc = open_common(f);
	if (rc < 0) {
		dl_parquet_free(f);
		return rc;
	}
	*out = f;
	return 0;
}

void dl_parquet_free(dl_parquet_file *f)
{
	if (!f) return;
	pq_reader_free(f->reader);
	dl_free(f->leaves);
	dl_free(f->nodes);
	dl_arena_free(&f->arena);
	dl_free(f->name);
	dl_free(f->display);
	dl_store_free(f->own_store);
	dl_free(f);
}

void dl_parquet_file_info_get(dl_parquet_file_info *out, const dl_parquet_file *f)
{
	memset(out, 0, sizeof *out);
	out->num_rows = f->md.num_rows;
	out->num_row_groups = (int)f->md.nrow_groups;
	out->version = f->md.version;
	out->created_by = f->md.created_by;
	out->root_name = f->md.nschema ? f->md.schema[0].name : NULL;
	out->nkey_values = f->md.nkey_value_metadata;
	out->size = f->size;
}

void dl_parquet_key_value_at(const char **key, const char **value, const dl_parquet_file *f, size_t i)
{
	*key = *value = NULL;
	if (i >= f->md.nkey_value_metadata) return;
	*key = f->md.key_value_metadata[i].key;
	*value = f->md.key_value_metadata[i].value;
}

/* ---- names of Parquet enums ------------------------------------------- */

static const char *type_name(pq_type t)
{
	static const char *n[] = {"BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE", "BYTE_ARRAY",
	                          "FIXED_LEN_BYTE_ARRAY"};
	return (unsigned)t < 8 ? n[t] : "?";
}

static const char *encoding_name(pq_encoding e)
{
	switch (e) {
	case PQ_ENC_PLAIN: return "PLAIN";
	case PQ_ENC_PLAIN_DICTIONARY: return "PLAIN_DICTIONARY";
	case PQ_ENC_RLE: return "RLE";
	case PQ_ENC_BIT_PACKED: return "BIT_PACKED";
	case PQ_ENC_DELTA_BINARY_PACKED: return "DELTA_BINARY_PACKED";
	case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY: return "DELTA_LENGTH_BYTE_ARRAY";
	case PQ_ENC_DELTA_BYTE_ARRAY: return "DELTA_BYTE_ARRAY";
	case PQ_ENC_RLE_DICTIONARY: return "RLE_DICTIONARY";
	case PQ_ENC_BYTE_STREAM_SPLIT: return "BYTE_STREAM_SPLIT";
	}
	return "?";
}

static const char *converted_name(pq_converted_type c)
{
	static const char *n[] = {"UTF8", "MAP", "MAP_KEY_VALUE", "LIST", "ENUM", "DECIMAL", "DATE",
	                          "TIME_MILLIS", "TIME_MICROS", "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS",
	                          "UINT_8", "UINT_16", "UINT_32", "UINT_64", "INT_8", "INT_16", "INT_32",
	                          "INT_64", "JSON", "BSON", "INTERVAL"};
	return (unsigned)c < sizeof n / sizeof *n ? n[c] : NULL;
}

static const char *unit_name(pq_time_unit u)
{
	return u == PQ_UNIT_MILLIS ? "MILLIS" : u == PQ_UNIT_MICROS ? "MICROS" : "NANOS";
}

/* EdgeInterpolationAlgorithm of parquet.thrift (absent: SPHERICAL). */
static const char *edge_algorithm_name(int32_t a)
{
	static const char *const n[] = {"SPHERICAL", "VINCENTY", "THOMAS", "ANDOYER", "KARNEY"};
	return a >= 0 && a < 5 ? n[a] : "UNKNOWN";
}

/* The logical type as parquet-cli spells it ("DECIMAL(10,2)"), or "". */
static void logical_text(const pq_logical_type *lt, char *out, size_t cap)
{
	switch (lt->kind) {
	case PQ_LT_NONE: out[0] = 0; return;
	case PQ_LT_STRING: snprintf(out, cap, "STRING"); return;
	case PQ_LT_MAP: snprintf(out, cap, "MAP"); return;
	case PQ_LT_LIST: snprintf(out, cap, "LIST"); return;
	case PQ_LT_ENUM: snprintf(out, cap, "ENUM"); return;
	case PQ_LT_DECIMAL: snprintf(out, cap, "DECIMAL(%d,%d)", lt->precision, lt->scale); return;
	case PQ_LT_DATE: snprintf(out, cap, "DATE"); return;
	case PQ_LT_TIME:
	case PQ_LT_TIMESTAMP:
		snprintf(out, cap, "%s(%s,%s)", lt->kind == PQ_LT_TIME ? "TIME" : "TIMESTAMP", unit_name(lt->unit),
		         lt->is_adjusted_to_utc ? "true" : "false");
		return;
	case PQ_LT_INTEGER: snprintf(out, cap, "INTEGER(%d,%s)", lt->bit_width, lt->is_signed ? "true" : "false"); return;
	case PQ_LT_UNKNOWN: snprintf(out, cap, "UNKNOWN"); return;
	case PQ_LT_JSON: snprintf(out, cap, "JSON"); return;
	case PQ_LT_BSON: snprintf(out, cap, "BSON"); return;
	case PQ_LT_UUID: snprintf(out, cap, "UUID"); return;
	case PQ_LT_FLOAT16: snprintf(out, cap, "FLOAT16"); return;
	case PQ_LT_VARIANT:
		if (lt->has_spec_version) snprintf(out, cap, "VARIANT(%d)", lt->spec_version);
		else snprintf(out, cap, "VARIANT");
		return;
	case PQ_LT_GEOMETRY:
		snprintf(out, cap, "GEOMETRY(%s)", lt->crs ? lt->crs : "OGC:CRS84");
		return;
	case PQ_LT_GEOGRAPHY:
		snprintf(out, cap, "GEOGRAPHY(%s,%s)", lt->crs ? lt->crs : "OGC:CRS84",
		         edge_algorithm_name(lt->has_algorithm ? lt->algorithm : 0));
		return;
	}
	out[0] = 0;
}

static const char *repetition_name(const pq_schema_element *e)
{
	if (!e->has_repetition) return "required";
	return e->repetition == PQ_OPTIONAL ? "optional" : e->repetition == PQ_REPEATED ? "repeated" : "required";
}

/* ---- the schema ------------------------------------------------------- */

typedef struct schema_walk {
	dl_parquet_file *f;
	uint32_t next;
	dl_buf path;
	dl_buf text;
	dl_parquet_schema_node *nodes;
	size_t n;
} schema_walk;

static int schema_node(schema_walk *w, int depth)
{
	const pq_file_metadata *md = &w->f->md;
	if (w->next >= md->nschema || depth > 100)
		return dl_error_set(DL_ECORRUPT, "the schema's num_children do not match its elements");
	const pq_schema_element *e = &md->schema[w->next++];
	size_t plen = w->path.len;
	if (plen) DL_TRY(dl_buf_putc(&w->path, '.'));
	DL_TRY(dl_buf_puts(&w->path, e->name));
	char logical[64], tl[24] = "", phys[48];
	logical_text(&e->logical, logical, sizeof logical);
	const char *conv = converted_name(e->converted_type);
	bool group = e->has_num_children && !e->has_type;
	if (e->has_type_length) snprintf(tl, sizeof tl, "(%d)", e->type_length);
	snprintf(phys, sizeof phys, "%s%s", group ? "group" : type_name(e->type), tl);
	/* the text line */
	DL_TRY(dl_buf_printf(&w->text, "%*s%s %s %s", 2 * depth, "", repetition_name(e), phys, e->name));
	if (logical[0] || conv) DL_TRY(dl_buf_printf(&w->text, " (%s)", logical[0] ? logical : conv));
	if (e->has_field_id) DL_TRY(dl_buf_printf(&w->text, " = %d", e->field_id));
	DL_TRY(dl_buf_puts(&w->text, group ? " {\n" : ";\n"));
	/* the node */
	dl_arena *a = &w->f->arena;
	dl_parquet_schema_node *nd = &w->nodes[w->n++];
	nd->path = dl_arena_strdup(a, w->path.data);
	nd->name = e->name;
	nd->depth = depth;
	nd->repetition = repetition_name(e);
	nd->physical = dl_arena_strdup(a, phys);
	nd->logical = logical[0] ? dl_arena_strdup(a, logical) : NULL;
	nd->converted = conv;
	nd->has_field_id = e->has_field_id;
	nd->field_id = e->field_id;
	nd->is_group = group;
	nd->num_children = group ? e->num_children : 0;
	if (!nd->path || !nd->physical || (logical[0] && !nd->logical)) return DL_ENOMEM;
	if (group)
		for (int32_t i = 0; i < e->num_children; i++) DL_TRY(schema_node(w, depth + 1));
	if (group) DL_TRY(dl_buf_printf(&w->text, "%*s}\n", 2 * depth, ""));
	w->path.len = plen;
	if (w->path.data) w->path.data[plen] = 0;
	return 0;
}

/* Walks the depth-first schema list once, for both the text and the nodes. */
static int load_schema(dl_parquet_file *f)
{
	if (f->nodes_done) return 0;
	const pq_file_metadata *md = &f->md;
	if (md->nschema == 0) return dl_error_set(DL_ECORRUPT, "%s: the schema is empty", f->display);
	schema_walk w = {.f = f, .next = 1, .path = DL_BUF_INIT, .text = DL_BUF_INIT};
	w.nodes = dl_calloc(md->nschema, sizeof *w.nodes);
	int rc = w.nodes ? dl_buf_printf(&w.text, "message %s {\n", md->schema[0].name) : DL_ENOMEM;
	for (int32_t i = 0; rc == 0 && i < md->schema[0].num_children; i++) rc = schema_node(&w, 1);
	if (rc == 0) rc = dl_buf_puts(&w.text, "}\n");
	if (rc == 0) {
		f->schema_text = dl_arena_strdup(&f->arena, w.text.data);
		if (!f->schema_text) rc = DL_ENOMEM;
	}
	dl_buf_free(&w.path);
	dl_buf_free(&w.text);
	if (rc < 0) {
		dl_free(w.nodes);
		return rc;
	}
	f->nodes = w.nodes;
	f->nnodes = w.n;
	f->nodes_done = true;
	return 0;
}

int dl_parquet_schema_text(const char **out, dl_parquet_file *f)
{
	*out = NULL;
	DL_TRY(load_schema(f));
	*out = f->schema_text;
	return 0;
}

int dl_parquet_schema_node_count(size_t *count, dl_parquet_file *f)
{
	*count = 0;
	DL_TRY(load_schema(f));
	*count = f->nnodes;
	return 0;
}

int dl_parquet_schema_node_at(dl_parquet_schema_node *out, dl_parquet_file *f, size_t i)
{
	memset(out, 0, sizeof *out);
	DL_TRY(load_schema(f));
	if (i >= f->nnodes) return dl_error_set(DL_EINVALID, "schema node %zu of %zu", i, f->nnodes);
	*out = f->nodes[i];
	return 0;
}

static int open_reader(pq_reader **out, dl_parquet_file *f)
{
	return pq_reader_open_store(out, f->store, f->name, f->size);
}

int dl_parquet_arrow_schema(struct ArrowSchema *out, dl_parquet_file *f)
{
	memset(out, 0, sizeof *out);
	if (!f->reader) DL_TRY(open_reader(&f->reader, f));
	return dl_arrow_export_schema(out, pq_reader_output_schema(f->reader));
}

/* ---- column chunks ------------------------------------------------------ */

/* The leaf SchemaElement of each column, in order. */
static int load_leaves(dl_parquet_file *f)
{
	if (f->leaves_done) return 0;
	const pq_file_metadata *md = &f->md;
	f->leaves = dl_calloc(md->nschema ? md->nschema : 1, sizeof *f->leaves);
	if (!f->leaves) return DL_ENOMEM;
	uint32_t n = 0;
	for (uint32_t i = 1; i < md->nschema; i++) {
		const pq_schema_element *e = &md->schema[i];
		if (e->has_num_children && !e->has_type) continue;
		f->leaves[n++] = e;
	}
	for (uint32_t g = 0; g < md->nrow_groups; g++) {
		if (md->row_groups[g].ncolumns != n)
			return dl_error_set(DL_ECORRUPT, "%s: row group %u has %u columns but the schema %u leaves", f->display,
			                    g, md->row_groups[g].ncolumns, n);
	}
	f->nleaves = n;
	f->leaves_done = true;
	return 0;
}

int dl_parquet_column_count(int *count, dl_parquet_file *f)
{
	*count = 0;
	DL_TRY(load_leaves(f));
	*count = (int)f->nleaves;
	return 0;
}

static void put_unscaled(char *out, size_t cap, dl_i128 v, int scale)
{
	char tmp[64];
	int n = 0;
	bool neg = v < 0;
	do {
		int d = (int)(v % 10);
		tmp[n++] = (char)('0' + (d < 0 ? -d : d));
		v /= 10;
	} while ((v || n <= scale) && n < 60);
	size_t k = 0;
	if (neg && k + 1 < cap) out[k++] = '-';
	for (int i = n - 1; i >= 0 && k + 2 < cap; i--) {
		out[k++] = tmp[i];
		if (i == scale && scale > 0) out[k++] = '.';
	}
	out[k] = 0;
}

/* A statistics value as text, decoded by physical and logical type. */
static void stat_text(const pq_schema_element *e, pq_bytes b, char *out, size_t cap)
{
	const uint8_t *p = b.ptr;
	bool dec = e->logical.kind == PQ_LT_DECIMAL || e->converted_type == PQ_CT_DECIMAL;
	int scale = e->logical.kind == PQ_LT_DECIMAL ? e->logical.scale : e->scale;
	out[0] = 0;
	switch (e->type) {
	case PQ_BOOLEAN:
		if (b.len >= 1) snprintf(out, cap, "%s", p[0] ? "true" : "false");
		return;
	case PQ_INT32:
		if (b.len == 4) {
			int32_t v = (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
			if (dec) put_unscaled(out, cap, v, scale);
			else snprintf(out, cap, "%" PRId32, v);
		}
		return;
	case PQ_INT64:
		if (b.len == 8) {
			int64_t v;
			memcpy(&v, p, 8);
			if (dec) put_unscaled(out, cap, v, scale);
			else snprintf(out, cap, "%" PRId64, v);
		}
		return;
	case PQ_FLOAT:
		if (b.len == 4) {
			float v;
			memcpy(&v, p, 4);
			snprintf(out, cap, "%.9g", v);
		}
		return;
	case PQ_DOUBLE:
		if (b.len == 8) {
			double v;
			memcpy(&v, p, 8);
			snprintf(out, cap, "%.17g", v);
		}
		return;
	default:
		break;
	}
	if (dec && b.len >= 1 && b.len <= 16) {
		/* Big-endian two's complement: shift in bytes over the sign. */
		dl_i128 v = (p[0] & 0x80) ? -1 : 0;
		for (uint32_t i = 0; i < b.len; i++) v = v * 256 + p[i]; /* (-1)*256 + 0xFB = -5 */
		put_unscaled(out, cap, v, scale);
		return;
	}
	bool text = e->logical.kind == PQ_LT_STRING || e->converted_type == PQ_CT_UTF8 ||
	            e->logical.kind == PQ_LT_JSON || e->converted_type == PQ_CT_JSON;
	size_t k = 0;
	for (uint32_t i = 0; i < b.len && k + 4 < cap; i++) {
		if (text) {
			out[k++] = (char)p[i];
		} else {
			snprintf(out + k, cap - k, "%02x", p[i]);
			k += 2;
		}
	}
	out[k] = 0;
}

int dl_parquet_column_chunk_at(dl_parquet_column_chunk *out, dl_parquet_file *f, int row_group, int column)
{
	memset(out, 0, sizeof *out);
	DL_TRY(load_leaves(f));
	if (row_group < 0 || (uint32_t)row_group >= f->md.nrow_groups || column < 0 || (uint32_t)column >= f->nleaves)
		return dl_error_set(DL_EINVALID, "%s: no column %d in row group %d (%u row groups of %u columns)", f->display,
		                    column, row_group, f->md.nrow_groups, f->nleaves);
	const pq_schema_element *e = f->leaves[column];
	const pq_column_meta *m = &f->md.row_groups[row_group].columns[column].meta_data;
	dl_arena *a = &f->arena;
	dl_buf path = DL_BUF_INIT, enc = DL_BUF_INIT;
	int rc = 0;
	for (uint32_t i = 0; rc == 0 && i < m->npath; i++) rc = dl_buf_printf(&path, "%s%s", i ? "." : "", m->path_in_schema[i]);
	for (uint32_t i = 0; rc == 0 && i < m->nencodings; i++)
		rc = dl_buf_printf(&enc, "%s%s", i ? "," : "", encoding_name(m->encodings[i]));
	out->path = rc == 0 ? dl_arena_strdup(a, path.data ? path.data : "") : NULL;
	out->encodings = rc == 0 ? dl_arena_strdup(a, enc.data ? enc.data : "") : NULL;
	dl_buf_free(&path);
	dl_buf_free(&enc);
	if (rc < 0) return rc;
	if (!out->path || !out->encodings) return DL_ENOMEM;
	char logical[64];
	logical_text(&e->logical, logical, sizeof logical);
	const char *conv = converted_name(e->converted_type);
	out->physical_type = type_name(m->type);
	out->logical_type = logical[0] ? dl_arena_strdup(a, logical) : conv;
	out->codec = pq_codec_name(m->codec);
	out->num_values = m->num_values;
	out->compressed_size = m->total_compressed_size;
	out->uncompressed_size = m->total_uncompressed_size;
	const pq_statistics *s = &m->statistics;
	bool has = m->has_statistics;
	out->null_count = has && s->has_null_count ? s->null_count : -1;
	char mn[256], mx[256];
	if (has && (s->has_min_value || s->has_min)) {
		stat_text(e, s->has_min_value ? s->min_value : s->min, mn, sizeof mn);
		out->min = dl_arena_strdup(a, mn);
	}
	if (has && (s->has_max_value || s->has_max)) {
		stat_text(e, s->has_max_value ? s->max_value : s->max, mx, sizeof mx);
		out->max = dl_arena_strdup(a, mx);
	}
	return 0;
}

/* ---- reading -------------------------------------------------------------- */

static const dl_type *rs_schema(dl_batch_stream *s)
{
	return pq_reader_output_schema(s->private_data);
}

static int rs_next(dl_batch_stream *s, dl_batch **out)
{
	int64_t first;
	return pq_reader_next(s->private_data, out, &first);
}

static void rs_release(dl_batch_stream *s)
{
	pq_reader_free(s->private_data);
	dl_free(s);
}

int dl_parquet_read(struct ArrowArrayStream *out, dl_parquet_file *f, const dl_parquet_read_options *opts)
{
	memset(out, 0, sizeof *out);
	dl_parquet_read_options defaults = DL_PARQUET_READ_OPTIONS_INIT;
	if (!opts) opts = &defaults;
	if (opts->version < 1 || opts->version > DL_PARQUET_READ_OPTIONS_VERSION)
		return dl_error_set(DL_EINVALID, "dl_parquet_read_options version %d is not 1..%d", opts->version,
		                    DL_PARQUET_READ_OPTIONS_VERSION);
	pq_reader *r;
	DL_TRY(open_reader(&r, f));
	int rc = 0;
	if (opts->ncolumns > 0) rc = pq_reader_select_columns(r, opts->columns, opts->ncolumns);
	if (rc == 0 && opts->batch_rows > 0) rc = pq_reader_set_batch_size(r, opts->batch_rows);
	dl_batch_stream *s = rc == 0 ? dl_calloc(1, sizeof *s) : NULL;
	if (!s) {
		pq_reader_free(r);
		return rc < 0 ? rc : DL_ENOMEM;
	}
	s->private_data = r;
	s->schema = rs_schema;
	s->next = rs_next;
	s->release = rs_release;
	return dl_batch_stream_export(out, s);
}

/* ---- writing -------------------------------------------------------------- */

bool dl_parquet_codec_supported(const char *name)
{
	pq_codec c;
	if (!name || pq_codec_parse(name, &c) < 0) {
		dl_error_clear();
		return false;
	}
	return c != PQ_CODEC_LZO && c != PQ_CODEC_LZ4; /* the writer emits LZ4_RAW, never the legacy framing */
}

int dl_parquet_write_stream(FILE *out, struct ArrowArrayStream *data, const dl_parquet_write_options *opts)
{
	dl_parquet_write_options defaults = DL_PARQUET_WRITE_OPTIONS_INIT;
	if (!opts) opts = &defaults;
	if (opts->version < 1 || opts->version > DL_PARQUET_WRITE_OPTIONS_VERSION) {
		dl_arrow_stream_release(data);
		return dl_error_set(DL_EINVALID, "dl_parquet_write_options version %d is not 1..%d", opts->version,
		                    DL_PARQUET_WRITE_OPTIONS_VERSION);
	}
	pq_writer_options po = PQ_WRITER_OPTIONS_INIT;
	const char *codec = opts->compression ? opts->compression : "zstd";
	if (!dl_parquet_codec_supported(codec)) {
		dl_arrow_stream_release(data);
		return dl_error_set(DL_EINVALID, "unknown compression '%s'; use zstd, snappy, gzip, lz4_raw, brotli or none",
		                    codec);
	}
	pq_codec_parse(codec, &po.codec);
	po.level = opts->level;
	po.row_group_rows = opts->row_group_rows > 0 ? opts->row_group_rows : 0;
	if (opts->row_group_bytes > 0) po.row_group_bytes = opts->row_group_bytes;
	if (opts->page_bytes > 0) po.page_bytes = (size_t)opts->page_bytes;
	po.dictionary = opts->dictionary;
	if (opts->statistics_truncate > 0) po.stats_truncate = (size_t)opts->statistics_truncate;
	else if (opts->statistics_truncate < 0) po.stats_truncate = 0;
	po.threads = opts->threads > 0 ? opts->threads : dl_default_threads();
	po.root_name = opts->root_name;
	dl_batch_stream *s;
	DL_TRY(dl_batch_stream_import(&s, data));
	pq_sink sink;
	pq_sink_init_file(&sink, out);
	pq_writer *w = NULL;
	int rc = pq_writer_open(&w, (dl_type *)dl_batch_stream_schema(s), &sink, &po);
	for (int i = 0; rc == 0 && i < opts->nmetadata; i++)
		rc = pq_writer_add_metadata(w, opts->metadata_keys[i], opts->metadata_values ? opts->metadata_values[i] : NULL);
	while (rc == 0) {
		dl_batch *b;
		rc = dl_batch_stream_next(s, &b);
		if (rc < 0 || !b) break;
		/* handed over: the columns encode it while the next one is read */
		rc = pq_writer_write_owned(w, b);
	}
	if (rc == 0) rc = pq_writer_close(w);
	if (rc == 0 && fflush(out) != 0) rc = dl_error_set(DL_EIO, "writing the Parquet file failed: %s", strerror(errno));
	pq_writer_free(w);
	dl_batch_stream_free(s);
	return rc;
}
