/* `deltalake parquet ...`: inspect and rewrite Parquet files.
 *   schema FILE     the Parquet schema (message tree, or rows with --format)
 *   meta FILE       row groups and column chunks: encodings, codecs, sizes, stats
 *   cat FILE        the rows (table, csv, jsonl, json, or an Arrow IPC stream)
 *   rewrite IN OUT  the same rows and types re-encoded by our writer */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "deltalake.h"
#include "columnar/types.h"
#include "parquet/codec.h"
#include "columnar/ipc_writer.h"
#include "parquet/metadata.h"
#include "parquet/reader.h"
#include "parquet/writer.h"
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/pool.h"

DL_CLI_GROUP(parquet, "parquet", "inspect, print and rewrite Parquet files");

/* A local file opened as a store on its directory (the reader's input). */
typedef struct pq_file {
	dl_store *store;
	char *name;
	int64_t size;
} pq_file;

static void pq_file_close(pq_file *f)
{
	dl_store_free(f->store);
	dl_free(f->name);
	memset(f, 0, sizeof *f);
}

static int pq_file_open(pq_file *f, const char *path)
{
	memset(f, 0, sizeof *f);
	const char *slash = strrchr(path, '/');
	char *dir = slash ? dl_strndup(path, (size_t)(slash - path) + (slash == path)) : dl_strdup(".");
	f->name = dl_strdup(slash ? slash + 1 : path);
	if (!dir || !f->name) {
		dl_free(dir);
		pq_file_close(f);
		return DL_ENOMEM;
	}
	int rc = dl_store_open(&f->store, dir, NULL);
	dl_free(dir);
	dl_object_info info = {0};
	if (rc == 0) rc = dl_store_stat(&info, f->store, f->name);
	if (rc == 0) f->size = info.size;
	dl_object_info_free(&info);
	if (rc < 0) pq_file_close(f);
	return rc;
}

/* Reads and decodes the footer (hostile input: every size checked). */
static int read_footer(pq_file_metadata *md, dl_arena *arena, const char *path)
{
	pq_file f;
	DL_TRY(pq_file_open(&f, path));
	int rc = 0;
	uint8_t tail[8], *footer = NULL;
	size_t got = 0;
	if (f.size < 12) {
		rc = dl_error_set(DL_ECORRUPT, "%s: %lld bytes is too small for a Parquet file", path, (long long)f.size);
		goto out;
	}
	rc = dl_store_get_range(tail, &got, f.store, f.name, f.size - 8, 8);
	if (rc == 0 && (got != 8 || memcmp(tail + 4, "PAR1", 4)))
		rc = dl_error_set(DL_ECORRUPT, "%s: no PAR1 magic at the end; not a Parquet file", path);
	if (rc < 0) goto out;
	uint32_t len = (uint32_t)tail[0] | (uint32_t)tail[1] << 8 | (uint32_t)tail[2] << 16 | (uint32_t)tail[3] << 24;
	if ((int64_t)len > f.size - 12) {
		rc = dl_error_set(DL_ECORRUPT, "%s: footer length %u exceeds the file size %lld", path, len,
		                  (long long)f.size);
		goto out;
	}
	footer = dl_malloc(len ? len : 1);
	if (!footer) {
		rc = DL_ENOMEM;
		goto out;
	}
	rc = dl_store_get_range(footer, &got, f.store, f.name, f.size - 8 - len, len);
	if (rc == 0 && got != len) rc = dl_error_set(DL_ECORRUPT, "%s: short read of the footer", path);
	if (rc == 0) rc = pq_file_metadata_decode(md, arena, footer, len, path);
out:
	dl_free(footer);
	pq_file_close(&f);
	return rc;
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
	case PQ_LT_VARIANT: snprintf(out, cap, "VARIANT"); return;
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

/* ---- parquet schema --------------------------------------------------- */

typedef struct schema_args {
	const char *file;
} schema_args;

static const dl_cli_opt schema_opts[] = {
	DL_CLI_ARG(schema_args, file, "FILE", "the Parquet file"),
	DL_CLI_END,
};

/* Walks the depth-first schema list; `path` accumulates dotted names. */
typedef struct schema_walk {
	const pq_file_metadata *md;
	uint32_t next;
	dl_out *o;     /* rows mode */
	FILE *fp;      /* tree mode */
	dl_buf path;
} schema_walk;

static int schema_node(schema_walk *w, int depth)
{
	if (w->next >= w->md->nschema || depth > 100)
		return dl_error_set(DL_ECORRUPT, "the schema's num_children do not match its elements");
	const pq_schema_element *e = &w->md->schema[w->next++];
	size_t plen = w->path.len;
	if (plen) DL_TRY(dl_buf_putc(&w->path, '.'));
	DL_TRY(dl_buf_puts(&w->path, e->name));
	char logical[64], fid[24] = "", tl[24] = "";
	logical_text(&e->logical, logical, sizeof logical);
	const char *conv = converted_name(e->converted_type);
	if (e->has_field_id) snprintf(fid, sizeof fid, "%d", e->field_id);
	bool group = e->has_num_children && !e->has_type;
	if (e->has_type_length) snprintf(tl, sizeof tl, "(%d)", e->type_length);
	if (w->fp) {
		fprintf(w->fp, "%*s%s %s%s%s %s", 2 * depth, "", repetition_name(e),
		        group ? "group" : type_name(e->type), group ? "" : "", tl, e->name);
		if (logical[0] || conv) fprintf(w->fp, " (%s)", logical[0] ? logical : conv);
		if (fid[0]) fprintf(w->fp, " = %s", fid);
		fprintf(w->fp, group ? " {\n" : ";\n");
	} else {
		char phys[48];
		snprintf(phys, sizeof phys, "%s%s", group ? "group" : type_name(e->type), tl);
		const char *row[6] = {w->path.data, repetition_name(e), phys, logical[0] ? logical : NULL, conv,
		                      fid[0] ? fid : NULL};
		DL_TRY(dl_out_row(w->o, row));
	}
	if (group)
		for (int32_t i = 0; i < e->num_children; i++) DL_TRY(schema_node(w, depth + 1));
	if (group && w->fp) fprintf(w->fp, "%*s}\n", 2 * depth, "");
	w->path.len = plen;
	if (w->path.data) w->path.data[plen] = 0;
	return 0;
}

static int schema_run(dl_cli *cli, const void *args)
{
	const schema_args *a = args;
	dl_arena arena = DL_ARENA_INIT;
	pq_file_metadata md;
	int rc = read_footer(&md, &arena, a->file);
	schema_walk w = {.md = &md, .path = DL_BUF_INIT};
	if (rc == 0 && md.nschema == 0) rc = dl_error_set(DL_ECORRUPT, "%s: the schema is empty", a->file);
	if (rc == 0 && !cli->format_set) {
		const pq_schema_element *root = &md.schema[0];
		fprintf(cli->out, "message %s {\n", root->name);
		w.fp = cli->out;
		w.next = 1;
		for (int32_t i = 0; rc == 0 && i < root->num_children; i++) rc = schema_node(&w, 1);
		fprintf(cli->out, "}\n");
	} else if (rc == 0) {
		static const dl_out_column cols[] = {{"column", DL_OUT_STRING}, {"repetition", DL_OUT_STRING},
		                                     {"physical", DL_OUT_STRING}, {"logical", DL_OUT_STRING},
		                                     {"converted", DL_OUT_STRING}, {"field_id", DL_OUT_NUMBER}};
		rc = dl_cli_out_begin(&w.o, cli, cols, 6);
		w.next = 1;
		for (int32_t i = 0; rc == 0 && i < md.schema[0].num_children; i++) rc = schema_node(&w, 1);
		if (rc == 0) rc = dl_out_end(w.o);
		else dl_out_free(w.o);
	}
	dl_buf_free(&w.path);
	dl_arena_free(&arena);
	return rc;
}

DL_CLI_COMMAND(parquet_schema, .name = "parquet schema", .summary = "show the schema of a Parquet file",
               .description = "Prints the schema as a Parquet message (repetition, physical type,\n"
                              "logical or converted type, = field id). With --format, one row per\n"
                              "schema node with its dotted path.",
               .examples = "  deltalake parquet schema part-0.parquet\n"
                           "  deltalake parquet schema part-0.parquet --format csv",
               .opts = schema_opts, .args_size = sizeof(schema_args), .run = schema_run);

/* ---- parquet meta ----------------------------------------------------- */

typedef struct meta_args {
	const char *file;
} meta_args;

static const dl_cli_opt meta_opts[] = {
	DL_CLI_ARG(meta_args, file, "FILE", "the Parquet file"),
	DL_CLI_END,
};

/* The leaf SchemaElement of each column, in order. */
static int collect_leaves(const pq_file_metadata *md, const pq_schema_element **leaves, uint32_t cap, uint32_t *n)
{
	*n = 0;
	for (uint32_t i = 1; i < md->nschema; i++) {
		const pq_schema_element *e = &md->schema[i];
		if (e->has_num_children && !e->has_type) continue;
		if (*n == cap) return dl_error_set(DL_ECORRUPT, "more leaf columns than column chunks");
		leaves[(*n)++] = e;
	}
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

static int meta_chunk_row(dl_out *o, int rg, const pq_schema_element *e, const pq_column_chunk *c)
{
	const pq_column_meta *m = &c->meta_data;
	char srg[16], path[512] = "", enc[160] = "", vals[24], comp[24], unc[24], nulls[24] = "", mn[256], mx[256];
	char logical[64];
	snprintf(srg, sizeof srg, "%d", rg);
	for (uint32_t i = 0; i < m->npath; i++) {
		size_t l = strlen(path);
		snprintf(path + l, sizeof path - l, "%s%s", i ? "." : "", m->path_in_schema[i]);
	}
	for (uint32_t i = 0; i < m->nencodings; i++) {
		size_t l = strlen(enc);
		snprintf(enc + l, sizeof enc - l, "%s%s", i ? "," : "", encoding_name(m->encodings[i]));
	}
	snprintf(vals, sizeof vals, "%" PRId64, m->num_values);
	snprintf(comp, sizeof comp, "%" PRId64, m->total_compressed_size);
	snprintf(unc, sizeof unc, "%" PRId64, m->total_uncompressed_size);
	const pq_statistics *s = &m->statistics;
	bool has = m->has_statistics;
	if (has && s->has_null_count) snprintf(nulls, sizeof nulls, "%" PRId64, s->null_count);
	mn[0] = mx[0] = 0;
	if (has && s->has_min_value) stat_text(e, s->min_value, mn, sizeof mn);
	else if (has && s->has_min) stat_text(e, s->min, mn, sizeof mn);
	if (has && s->has_max_value) stat_text(e, s->max_value, mx, sizeof mx);
	else if (has && s->has_max) stat_text(e, s->max, mx, sizeof mx);
	logical_text(&e->logical, logical, sizeof logical);
	const char *conv = converted_name(e->converted_type);
	const char *row[12] = {srg, path, type_name(m->type), logical[0] ? logical : conv,
	                       pq_codec_name(m->codec), enc, vals, nulls[0] ? nulls : NULL, comp, unc,
	                       (has && (s->has_min_value || s->has_min)) ? mn : NULL,
	                       (has && (s->has_max_value || s->has_max)) ? mx : NULL};
	return dl_out_row(o, row);
}

static int meta_summary(dl_cli *cli, const char *file, const pq_file_metadata *md)
{
	dl_out *o;
	DL_TRY(dl_cli_out_begin(&o, cli, dl_out_kv_columns, 2));
	char rows[24], rgs[24], ver[16];
	snprintf(rows, sizeof rows, "%" PRId64, md->num_rows);
	snprintf(rgs, sizeof rgs, "%u", md->nrow_groups);
	snprintf(ver, sizeof ver, "%d", md->version);
	int rc = dl_out_kv(o, "file", file);
	if (rc == 0) rc = dl_out_kv(o, "rows", rows);
	if (rc == 0) rc = dl_out_kv(o, "row_groups", rgs);
	if (rc == 0) rc = dl_out_kv(o, "version", ver);
	if (rc == 0) rc = dl_out_kv(o, "created_by", md->created_by);
	for (uint32_t i = 0; rc == 0 && i < md->nkey_value_metadata; i++) {
		char key[256];
		snprintf(key, sizeof key, "kv:%s", md->key_value_metadata[i].key);
		/* Long values (Spark's schema JSON) are cut for the table. */
		const char *v = md->key_value_metadata[i].value;
		char cut[200];
		if (v && strlen(v) > 160) {
			snprintf(cut, sizeof cut, "%.157s...", v);
			v = cut;
		}
		rc = dl_out_kv(o, key, v);
	}
	if (rc < 0) {
		dl_out_free(o);
		return rc;
	}
	DL_TRY(dl_out_end(o));
	fputc('\n', cli->out);
	return 0;
}

static int meta_run(dl_cli *cli, const void *args)
{
	const meta_args *a = args;
	dl_arena arena = DL_ARENA_INIT;
	pq_file_metadata md;
	const pq_schema_element **leaves = NULL;
	dl_out *o = NULL;
	int rc = read_footer(&md, &arena, a->file);
	if (rc == 0 && cli->format == DL_OUT_TABLE) rc = meta_summary(cli, a->file, &md);
	uint32_t nleaves = 0;
	if (rc == 0) {
		leaves = dl_calloc(md.nschema ? md.nschema : 1, sizeof *leaves);
		rc = leaves ? collect_leaves(&md, leaves, md.nschema, &nleaves) : DL_ENOMEM;
	}
	static const dl_out_column cols[] = {
		{"row_group", DL_OUT_NUMBER}, {"column", DL_OUT_STRING}, {"physical", DL_OUT_STRING},
		{"logical", DL_OUT_STRING}, {"codec", DL_OUT_STRING}, {"encodings", DL_OUT_STRING},
		{"values", DL_OUT_NUMBER}, {"nulls", DL_OUT_NUMBER}, {"compressed", DL_OUT_NUMBER},
		{"uncompressed", DL_OUT_NUMBER}, {"min", DL_OUT_STRING}, {"max", DL_OUT_STRING}};
	if (rc == 0) rc = dl_cli_out_begin(&o, cli, cols, 12);
	for (uint32_t g = 0; rc == 0 && g < md.nrow_groups; g++) {
		const pq_row_group *rg = &md.row_groups[g];
		if (rg->ncolumns != nleaves) {
			rc = dl_error_set(DL_ECORRUPT, "%s: row group %u has %u columns but the schema %u leaves", a->file, g,
			                  rg->ncolumns, nleaves);
			break;
		}
		for (uint32_t c = 0; rc == 0 && c < rg->ncolumns; c++)
			rc = meta_chunk_row(o, (int)g, leaves[c], &rg->columns[c]);
	}
	if (o) {
		if (rc == 0) rc = dl_out_end(o);
		else dl_out_free(o);
	}
	dl_free(leaves);
	dl_arena_free(&arena);
	return rc;
}

DL_CLI_COMMAND(parquet_meta, .name = "parquet meta",
               .summary = "show the row groups and column chunks of a Parquet file",
               .description = "For each row group and leaf column: physical and logical type, codec,\n"
                              "encodings, value and null counts, compressed and uncompressed bytes and\n"
                              "the min/max statistics. The table format starts with a file summary\n"
                              "(rows, row groups, created_by, key/value metadata).",
               .examples = "  deltalake parquet meta part-0.parquet\n"
                           "  deltalake parquet meta part-0.parquet --format jsonl",
               .opts = meta_opts, .args_size = sizeof(meta_args), .run = meta_run);

/* ---- parquet cat ------------------------------------------------------ */

typedef struct cat_args {
	const char *file;
	dl_cli_list columns;
	int64_t limit;
	const char *format;
} cat_args;

static const dl_cli_opt cat_opts[] = {
	DL_CLI_ARG(cat_args, file, "FILE", "the Parquet file"),
	DL_CLI_NAMES(cat_args, columns, 'c', "columns", "A,B", "only these top-level columns, in this order"),
	DL_CLI_INT(cat_args, limit, 'n', "limit", "N", "-1", "print at most N rows"),
	DL_CLI_STRING(cat_args, format, 0, "format", "FMT", NULL, "table (default), csv, jsonl, json or arrow"),
	DL_CLI_END,
};

static int open_reader(pq_reader **r, pq_file *f, const char *path)
{
	DL_TRY(pq_file_open(f, path));
	int rc = pq_reader_open_store(r, f->store, f->name, f->size);
	if (rc < 0) pq_file_close(f);
	return rc;
}

/* The first n rows of b as a new batch (for --limit in Arrow output). */
static int head_batch(dl_batch **out, const dl_batch *b, int64_t n)
{
	dl_batch *h = dl_batch_new(b->schema, n);
	if (!h) return DL_ENOMEM;
	for (int i = 0; i < b->ncols; i++) {
		h->cols[i] = dl_array_slice(b->cols[i], 0, n);
		if (!h->cols[i]) {
			dl_batch_free(h);
			return DL_ENOMEM;
		}
	}
	*out = h;
	return 0;
}

/* Batches through either sink; `left` counts down the limit (< 0: none). */
static int cat_batches(pq_reader *r, dl_out *o, dl_ipc_writer *ipc, int64_t left)
{
	for (;;) {
		if (left == 0) return 0;
		dl_batch *b;
		int64_t first;
		DL_TRY(pq_reader_next(r, &b, &first));
		if (!b) return 0;
		int rc = 0;
		int64_t n = left >= 0 && left < b->num_rows ? left : b->num_rows;
		if (o) {
			int64_t keep = b->num_rows;
			b->num_rows = n; /* dl_out_batch prints num_rows rows */
			rc = dl_out_batch(o, b);
			b->num_rows = keep;
		} else if (n < b->num_rows) {
			dl_batch *h;
			rc = head_batch(&h, b, n);
			if (rc == 0) rc = dl_ipc_writer_write(ipc, h);
			if (rc == 0) dl_batch_free(h);
		} else {
			rc = dl_ipc_writer_write(ipc, b);
		}
		dl_batch_free(b);
		if (rc < 0) return rc;
		if (left > 0) left -= n;
	}
}

static int cat_run(dl_cli *cli, const void *args)
{
	const cat_args *a = args;
	dl_out_format fmt = cli->format;
	bool arrow = a->format && !strcmp(a->format, "arrow");
	if (a->format && !arrow && dl_out_format_parse(&fmt, a->format) < 0)
		return dl_cli_usage_error(cli, "--format must be table, csv, jsonl, json or arrow, not '%s'", a->format);
	if (a->limit < -1) return dl_cli_usage_error(cli, "--limit must be >= 0");
	pq_file f;
	pq_reader *r;
	DL_TRY(open_reader(&r, &f, a->file));
	int rc = 0;
	if (a->columns.n) rc = pq_reader_select_columns(r, a->columns.items, a->columns.n);
	dl_out *o = NULL;
	dl_ipc_writer *ipc = NULL;
	if (rc == 0 && arrow) rc = dl_ipc_writer_new_file(&ipc, pq_reader_output_schema(r), cli->out);
	else if (rc == 0) rc = dl_out_begin_schema(&o, cli->out, fmt, pq_reader_output_schema(r));
	if (rc == 0) rc = cat_batches(r, o, ipc, a->limit);
	if (rc == 0 && o) rc = dl_out_end(o);
	else dl_out_free(o);
	if (rc == 0 && ipc) rc = dl_ipc_writer_finish(ipc);
	if (ipc) dl_ipc_writer_free(ipc);
	if (rc == 0 && fflush(cli->out) != 0) rc = dl_error_set(DL_EIO, "writing the output failed: %s", strerror(errno));
	pq_reader_free(r);
	pq_file_close(&f);
	return rc;
}

DL_CLI_COMMAND(parquet_cat, .name = "parquet cat", .summary = "print the rows of a Parquet file",
               .description = "Streams the rows batch by batch. --format arrow writes an Arrow IPC\n"
                              "stream (pyarrow.ipc.open_stream, DuckDB, arrow-js read it).",
               .examples = "  deltalake parquet cat part-0.parquet --limit 10\n"
                           "  deltalake parquet cat part-0.parquet --columns id,name --format csv\n"
                           "  deltalake parquet cat part-0.parquet --format arrow > rows.arrows",
               .opts = cat_opts, .args_size = sizeof(cat_args), .run = cat_run);

/* ---- parquet rewrite -------------------------------------------------- */

typedef struct rewrite_args {
	const char *in;
	const char *out;
	const char *compression;
	int64_t level;
	int64_t row_group_rows;
	int64_t threads;
} rewrite_args;

static const dl_cli_opt rewrite_opts[] = {
	DL_CLI_ARG(rewrite_args, in, "IN", "the Parquet file to read"),
	DL_CLI_ARG(rewrite_args, out, "OUT", "the Parquet file to write (replaced atomically)"),
	DL_CLI_STRING(rewrite_args, compression, 0, "compression", "CODEC", "zstd",
	              "zstd, snappy, gzip, lz4_raw, brotli or none"),
	DL_CLI_INT(rewrite_args, level, 0, "level", "N", "0", "compression level (0: the codec's default)"),
	DL_CLI_INT(rewrite_args, row_group_rows, 0, "row-group-rows", "N", "0",
	           "rows per row group (0: by size, 128 MiB uncompressed)"),
	DL_CLI_INT(rewrite_args, threads, 't', "threads", "N", "0",
	           "threads encoding columns (0: DL_THREADS or the CPU count)"),
	DL_CLI_END,
};

/* Carries the input's key/value metadata over, except Arrow's schema,
 * which describes the input's encoding choices rather than the data. */
static int copy_metadata(pq_writer *w, const pq_file_metadata *md)
{
	for (uint32_t i = 0; i < md->nkey_value_metadata; i++) {
		const pq_key_value *kv = &md->key_value_metadata[i];
		if (!strcmp(kv->key, "ARROW:schema")) continue;
		DL_TRY(pq_writer_add_metadata(w, kv->key, kv->value));
	}
	return 0;
}

static int rewrite_stream(pq_reader *r, int fd, const rewrite_args *a, pq_codec codec)
{
	pq_sink sink;
	pq_sink_init_fd(&sink, fd);
	pq_writer_options opt = PQ_WRITER_OPTIONS_INIT;
	opt.codec = codec;
	opt.level = (int)a->level;
	opt.row_group_rows = a->row_group_rows;
	opt.threads = a->threads > 0 ? (int)a->threads : dl_default_threads();
	const pq_file_metadata *md = pq_reader_metadata(r);
	if (md->nschema) opt.root_name = md->schema[0].name; /* "spark_schema" stays */
	pq_writer *w;
	DL_TRY(pq_writer_open(&w, (dl_type *)pq_reader_output_schema(r), &sink, &opt));
	int rc = copy_metadata(w, pq_reader_metadata(r));
	while (rc == 0) {
		dl_batch *b;
		int64_t first;
		rc = pq_reader_next(r, &b, &first);
		if (rc < 0 || !b) break;
		rc = pq_writer_write(w, b);
		dl_batch_free(b);
	}
	if (rc == 0) rc = pq_writer_close(w);
	pq_writer_free(w);
	return rc;
}

static int rewrite_run(dl_cli *cli, const void *args)
{
	const rewrite_args *a = args;
	pq_codec codec;
	if (pq_codec_parse(a->compression, &codec) < 0 || codec == PQ_CODEC_LZO || codec == PQ_CODEC_LZ4)
		return dl_cli_usage_error(cli, "--compression must be zstd, snappy, gzip, lz4_raw, brotli or none, not '%s'",
		                          a->compression);
	if (a->row_group_rows < 0) return dl_cli_usage_error(cli, "--row-group-rows must be >= 0");
	if (a->threads < 0 || a->threads > 1024) return dl_cli_usage_error(cli, "--threads must be 0..1024");
	pq_file f;
	pq_reader *r;
	DL_TRY(open_reader(&r, &f, a->in));
	/* Write a temporary next to OUT and rename it over OUT on success, so a
	 * failure never leaves half a file (and IN may equal OUT). */
	size_t n = strlen(a->out) + 32;
	char *tmp = dl_malloc(n);
	int rc = tmp ? 0 : DL_ENOMEM, fd = -1;
	if (rc == 0) {
		snprintf(tmp, n, "%s.tmp-%ld", a->out, (long)getpid());
		fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0) rc = dl_error_errno("cannot create the output file", tmp);
	}
	if (rc == 0) rc = rewrite_stream(r, fd, a, codec);
	if (fd >= 0 && close(fd) != 0 && rc == 0) rc = dl_error_errno("closing the output file", tmp);
	if (rc == 0 && rename(tmp, a->out) != 0) rc = dl_error_errno("cannot rename the output into place", a->out);
	if (rc < 0 && fd >= 0) unlink(tmp);
	dl_free(tmp);
	pq_reader_free(r);
	pq_file_close(&f);
	return rc;
}

DL_CLI_COMMAND(parquet_rewrite, .name = "parquet rewrite",
               .summary = "rewrite a Parquet file with our writer (same rows and types)",
               .description = "Streams IN batch by batch through the reader and the writer: memory\n"
                              "holds one row group whatever the file size. Keeps field ids and the\n"
                              "key/value metadata (except ARROW:schema).",
               .examples = "  deltalake parquet rewrite in.parquet out.parquet\n"
                           "  deltalake parquet rewrite in.parquet out.parquet --compression snappy",
               .opts = rewrite_opts, .args_size = sizeof(rewrite_args), .run = rewrite_run);
