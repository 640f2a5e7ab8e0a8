/* Checkpoint writing: see checkpoint_write.h for the kinds and guarantees.
 * One ckpt_file per output file holds a builder per top-level column;
 * each action appends one row (its column set, every other column null)
 * and every FLUSH_ROWS rows become a batch for the Parquet writer, which
 * streams row groups into a store writer published at close. The nulls of
 * the other columns are appended lazily in runs (a row touches one column,
 * not the forty-odd leaves of all of them). */
#include "txn/checkpoint_write.h"

#include <stdio.h>
#include <string.h>

#include "columnar/builder.h"
#include "expr/hash.h"
#include "log/log_segment.h"
#include "log/partition_values.h"
#include "log/path.h"
#include "log/protocol.h"
#include "log/schema.h"
#include "log/snapshot.h"
#include "parquet/writer.h"
#include "txn/checkpoint_schema.h"
#include "txn/checkpoint_stats.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/options.h"
#include "util/time.h"
#include "util/uuid.h"

#define FLUSH_ROWS 4096
#define DEFAULT_PART_ACTIONS INT64_C(5000000)

enum { C_TXN, C_ADD, C_REMOVE, C_META, C_PROTO, C_DOMAIN, C_CKMETA, C_SIDECAR, C_N };
static const char *const COL_NAMES[C_N] = {"txn", "add", "remove", "metaData", "protocol",
                                           "domainMetadata", "checkpointMetadata", "sidecar"};

/* What one checkpoint run tracks across its files: the progress callback
 * and the sidecars published so far (deleted again when the run fails:
 * their names are fresh UUIDs, so they are nobody else's). */
typedef struct ckpt_run {
	dl_progress_fn progress;
	void *payload;
	int64_t done, total;   /* actions written / to write at most */
	char **sidecars;
	size_t nsidecars;
} ckpt_run;

typedef struct ckpt_file {
	char *path;
	ckpt_run *run;       /* NULL: no progress (while closing) */
	dl_store_writer *sw;
	pq_sink sink;
	pq_writer *pw;
	dl_type *type;
	dl_builder **cols;   /* one builder per top-level column */
	int64_t *filled;     /* rows of the pending batch each column holds */
	int col[C_N];
	int64_t pending, rows, size;
} ckpt_file;

/* What every add row needs besides the action. */
typedef struct ckpt_ctx {
	dl_store *store;
	const dl_snapshot *snap;
	dl_ckpt_schema_options so;
	const dl_field **part_fields;  /* partition columns, for _parsed */
	const char **part_keys;        /* their physical names */
	int npart;
	dl_ckpt_stats stats;           /* stats_parsed shape when written */
	dl_arena arena;
	dl_buf scratch;
	int64_t cutoff_ms;             /* tombstones at or before it expired */
	bool dv_key;                   /* multi-part keys include the DV id */
	ckpt_run run;
} ckpt_ctx;

/* ---- one output file ---- */

static int file_open(ckpt_file *f, dl_store *store, const char *path, const dl_ckpt_schema_options *so)
{
	memset(f, 0, sizeof *f);
	for (int i = 0; i < C_N; i++) f->col[i] = -1;
	f->path = dl_strdup(path);
	if (!f->path) return DL_ENOMEM;
	DL_TRY(dl_ckpt_schema(&f->type, so));
	for (int i = 0; i < f->type->nchildren; i++)
		for (int k = 0; k < C_N; k++)
			if (strcmp(f->type->children[i].name, COL_NAMES[k]) == 0) f->col[k] = i;
	int n = f->type->nchildren;
	f->cols = dl_calloc((size_t)n, sizeof *f->cols);
	f->filled = dl_calloc((size_t)n, sizeof *f->filled);
	if (!f->cols || !f->filled) return DL_ENOMEM;
	for (int i = 0; i < n; i++) DL_TRY(dl_builder_new(&f->cols[i], f->type->children[i].type));
	DL_TRY(dl_store_writer_open(&f->sw, store, path));
	pq_sink_init_store(&f->sink, f->sw);
	pq_writer_options po = PQ_WRITER_OPTIONS_INIT;
	po.codec = PQ_CODEC_SNAPPY; /* what Spark writes checkpoints with; every reader has it */
	po.root_name = "spark_schema";
	/* Smaller row groups than data files: the writer holds one in memory,
	 * and readers of big checkpoints can stream them. */
	po.row_group_bytes = 16 << 20;
	return pq_writer_open(&f->pw, f->type, &f->sink, &po);
}

/* Tells the progress callback about rows flushed; it may cancel. It runs
 * before a file is published, never after the first part of a classic
 * checkpoint is (parts have fixed names that a racing writer may share),
 * so a cancel leaves no file behind but earlier sidecars, which the run
 * deletes. */
static int report_progress(ckpt_run *run, int64_t rows)
{
	run->done += rows;
	if (!run->progress) return 0;
	dl_progress_info p = {"checkpoint", "writing", "actions", run->done, run->total, -1, -1};
	if (run->progress(&p, run->payload) == 0) return 0;
	return dl_error_set(DL_ECANCELLED, "checkpoint cancelled by the progress callback");
}

static int file_flush(ckpt_file *f)
{
	if (f->pending == 0) return 0;
	int64_t rows = f->pending;
	dl_batch *b = dl_batch_new(f->type, f->pending);
	if (!b) return DL_ENOMEM;
	int rc = 0;
	for (int i = 0; i < b->ncols && rc == 0; i++) {
		rc = dl_builder_append_nulls(f->cols[i], f->pending - f->filled[i]);
		if (rc == 0) rc = dl_builder_finish(&b->cols[i], f->cols[i]);
		f->filled[i] = 0;
	}
	if (rc == 0) rc = pq_writer_write(f->pw, b);
	dl_batch_free(b);
	f->pending = 0;
	if (rc == 0 && f->run) rc = report_progress(f->run, rows);
	return rc;
}

/* Publishes the file; frees its writers either way. */
static int file_close(ckpt_file *f)
{
	/* The last chance to cancel is before the file is published. */
	ckpt_run *run = f->run;
	f->run = NULL;
	int64_t rows = f->pending;
	int rc = file_flush(f);
	if (rc == 0 && run) rc = report_progress(run, rows);
	if (rc == 0) rc = pq_writer_close(f->pw);
	if (rc == 0) f->size = pq_writer_file_size(f->pw);
	pq_writer_free(f->pw);
	f->pw = NULL;
	if (rc == 0) rc = dl_store_writer_commit(f->sw, false);
	else dl_store_writer_abort(f->sw);
	f->sw = NULL;
	return rc;
}

static void file_free(ckpt_file *f)
{
	if (f->pw) pq_writer_free(f->pw);
	if (f->sw) dl_store_writer_abort(f->sw);
	for (int i = 0; f->cols && i < f->type->nchildren; i++) dl_builder_free(f->cols[i]);
	dl_free(f->cols);
	dl_free(f->filled);
	dl_type_unref(f->type);
	dl_free(f->path);
	memset(f, 0, sizeof *f);
}

/* Starts a row whose only non-null column is `slot`; returns its builder. */
static int row_begin(ckpt_file *f, int slot, dl_builder **out)
{
	int c = f->col[slot];
	*out = f->cols[c];
	if (f->filled[c] < f->pending)
		DL_TRY(dl_builder_append_nulls(*out, f->pending - f->filled[c]));
	f->filled[c] = f->pending + 1;
	return dl_builder_begin_struct(*out);
}

static int row_end(ckpt_file *f, dl_builder *b)
{
	DL_TRY(dl_builder_end_struct(b));
	f->rows++;
	if (++f->pending >= FLUSH_ROWS) return file_flush(f);
	return 0;
}

/* ---- values ---- */

#define CH(b, i) dl_builder_child((b), (i))

static int put_str(dl_builder *b, const char *s)
{
	return s ? dl_builder_append_str(b, s) : dl_builder_append_null(b);
}

static int put_long(dl_builder *b, int64_t v)
{
	return v == DL_NONE ? dl_builder_append_null(b) : dl_builder_append_int(b, v);
}

static int put_map(dl_builder *b, const dl_str_map *m, bool null_when_empty)
{
	if (m->n == 0 && null_when_empty) return dl_builder_append_null(b);
	DL_TRY(dl_builder_begin_list(b));
	for (uint32_t i = 0; i < m->n; i++) {
		DL_TRY(dl_builder_append_str(CH(b, 0), m->items[i].key));
		DL_TRY(put_str(CH(b, 1), m->items[i].value));
	}
	return dl_builder_end_list(b);
}

static int put_str_array(dl_builder *b, const char **a, uint32_t n)
{
	if (!a) return dl_builder_append_null(b);
	DL_TRY(dl_builder_begin_list(b));
	for (uint32_t i = 0; i < n; i++) DL_TRY(dl_builder_append_str(CH(b, 0), a[i]));
	return dl_builder_end_list(b);
}

static int put_dv(dl_builder *b, const dl_dv_descriptor *dv)
{
	if (!dv) return dl_builder_append_null(b);
	char st[2] = {dv->storage_type, 0};
	DL_TRY(dl_builder_begin_struct(b));
	DL_TRY(dl_builder_append_str(CH(b, 0), st));
	DL_TRY(dl_builder_append_str(CH(b, 1), dv->path_or_inline));
	DL_TRY(dv->offset >= 0 ? dl_builder_append_int(CH(b, 2), dv->offset)
	                       : dl_builder_append_null(CH(b, 2)));
	DL_TRY(dl_builder_append_int(CH(b, 3), dv->size_in_bytes));
	DL_TRY(dl_builder_append_int(CH(b, 4), dv->cardinality));
	DL_TRY(dv->max_row_index >= 0 ? dl_builder_append_int(CH(b, 5), dv->max_row_index)
	                              : dl_builder_append_null(CH(b, 5)));
	return dl_builder_end_struct(b);
}

/* The log's URI form of a decoded path. */
static int put_path(ckpt_ctx *c, dl_builder *b, const char *path)
{
	dl_buf_clear(&c->scratch);
	DL_TRY(dl_log_path_encode(&c->scratch, path));
	return dl_builder_append_bytes(b, c->scratch.data, c->scratch.len);
}

static int put_scalar(dl_builder *b, const dl_scalar *s)
{
	if (s->is_null) return dl_builder_append_null(b);
	switch (s->type) {
	case DL_TYPE_BOOLEAN: return dl_builder_append_bool(b, s->v.b);
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE: return dl_builder_append_double(b, s->v.f64);
	case DL_TYPE_DECIMAL: return dl_builder_append_decimal(b, s->v.dec);
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY: return dl_builder_append_bytes(b, s->v.str.ptr, s->v.str.len);
	default: return dl_builder_append_int(b, s->v.i64);
	}
}

static int put_partition_parsed(ckpt_ctx *c, dl_builder *b, const dl_str_map *pv)
{
	DL_TRY(dl_builder_begin_struct(b));
	for (int i = 0; i < c->npart; i++) {
		bool found = false;
		const char *v = dl_str_map_get(pv, c->part_keys[i], &found);
		dl_scalar s;
		if (dl_partition_value_parse(&s, c->part_fields[i]->type, v) < 0)
			return dl_error_prefix("checkpoint: partition value of '%s'", c->part_keys[i]);
		DL_TRY(put_scalar(CH(b, i), &s));
	}
	return dl_builder_end_struct(b);
}

/* ---- actions as rows ---- */

static int emit_add(ckpt_ctx *c, ckpt_file *f, const dl_add *a)
{
	dl_builder *b;
	DL_TRY(row_begin(f, C_ADD, &b));
	DL_TRY(put_path(c, CH(b, 0), a->path));
	DL_TRY(put_map(CH(b, 1), &a->partition_values, false));
	DL_TRY(dl_builder_append_int(CH(b, 2), a->size));
	DL_TRY(dl_builder_append_int(CH(b, 3), a->modification_time));
	DL_TRY(dl_builder_append_bool(CH(b, 4), a->data_change));
	DL_TRY(put_map(CH(b, 5), &a->tags, true));
	DL_TRY(put_dv(CH(b, 6), a->dv));
	DL_TRY(put_long(CH(b, 7), a->base_row_id));
	DL_TRY(put_long(CH(b, 8), a->default_row_commit_version));
	int i = 9;
	if (c->so.clustering_provider) DL_TRY(put_str(CH(b, i++), a->clustering_provider));
	if (c->so.stats_json) {
		dl_builder *s = CH(b, i++);
		DL_TRY(a->stats ? dl_builder_append_bytes(s, a->stats, a->stats_len)
		                : dl_builder_append_null(s));
	}
	if (c->so.partition_parsed_json)
		DL_TRY(put_partition_parsed(c, CH(b, i++), &a->partition_values));
	if (c->so.stats_parsed_json) DL_TRY(dl_ckpt_stats_put(CH(b, i++), &c->stats, a));
	return row_end(f, b);
}

static int emit_remove(ckpt_ctx *c, ckpt_file *f, const dl_remove *r)
{
	dl_builder *b;
	DL_TRY(row_begin(f, C_REMOVE, &b));
	DL_TRY(put_path(c, CH(b, 0), r->path));
	DL_TRY(put_long(CH(b, 1), r->deletion_timestamp));
	DL_TRY(dl_builder_append_bool(CH(b, 2), r->data_change));
	DL_TRY(dl_builder_append_bool(CH(b, 3), r->extended_file_metadata));
	DL_TRY(put_map(CH(b, 4), &r->partition_values, !r->extended_file_metadata));
	DL_TRY(put_long(CH(b, 5), r->size));
	DL_TRY(put_dv(CH(b, 6), r->dv));
	DL_TRY(put_long(CH(b, 7), r->base_row_id));
	DL_TRY(put_long(CH(b, 8), r->default_row_commit_version));
	return row_end(f, b);
}

static int emit_metadata(ckpt_file *f, const dl_metadata *m)
{
	dl_builder *b;
	DL_TRY(row_begin(f, C_META, &b));
	DL_TRY(put_str(CH(b, 0), m->id));
	DL_TRY(put_str(CH(b, 1), m->name));
	DL_TRY(put_str(CH(b, 2), m->description));
	dl_builder *fmt = CH(b, 3);
	DL_TRY(dl_builder_begin_struct(fmt));
	DL_TRY(put_str(CH(fmt, 0), m->format_provider ? m->format_provider : "parquet"));
	DL_TRY(put_map(CH(fmt, 1), &m->format_options, false));
	DL_TRY(dl_builder_end_struct(fmt));
	DL_TRY(put_str(CH(b, 4), m->schema_string));
	DL_TRY(put_str_array(CH(b, 5), m->partition_columns ? m->partition_columns : (const char **)"",
	                     m->npartition_columns));
	DL_TRY(put_map(CH(b, 6), &m->configuration, false));
	DL_TRY(put_long(CH(b, 7), m->created_time));
	return row_end(f, b);
}

static int emit_protocol(ckpt_file *f, const dl_protocol *p)
{
	dl_builder *b;
	DL_TRY(row_begin(f, C_PROTO, &b));
	DL_TRY(dl_builder_append_int(CH(b, 0), p->min_reader_version));
	DL_TRY(dl_builder_append_int(CH(b, 1), p->min_writer_version));
	/* Reader 3 / writer 7 need non-null lists; older versions null ones. */
	bool rf = p->min_reader_version >= 3, wf = p->min_writer_version >= 7;
	DL_TRY(rf ? put_str_array(CH(b, 2), p->reader_features ? p->reader_features
	                                                       : (const char **)"",
	                          p->nreader_features)
	          : dl_builder_append_null(CH(b, 2)));
	DL_TRY(wf ? put_str_array(CH(b, 3), p->writer_features ? p->writer_features
	                                                       : (const char **)"",
	                          p->nwriter_features)
	          : dl_builder_append_null(CH(b, 3)));
	return row_end(f, b);
}

static int emit_txn(ckpt_file *f, const dl_txn *t)
{
	dl_builder *b;
	DL_TRY(row_begin(f, C_TXN, &b));
	DL_TRY(dl_builder_append_str(CH(b, 0), t->app_id));
	DL_TRY(dl_builder_append_int(CH(b, 1), t->version));
	DL_TRY(put_long(CH(b, 2), t->last_updated));
	return row_end(f, b);
}

static int emit_domain(ckpt_file *f, const dl_domain_metadata *d)
{
	dl_builder *b;
	DL_TRY(row_begin(f, C_DOMAIN, &b));
	DL_TRY(dl_builder_append_str(CH(b, 0), d->domain));
	DL_TRY(put_str(CH(b, 1), d->configuration ? d->configuration : ""));
	DL_TRY(dl_builder_append_bool(CH(b, 2), false));
	return row_end(f, b);
}

static int emit_ckmeta(ckpt_file *f, int64_t version)
{
	dl_builder *b;
	DL_TRY(row_begin(f, C_CKMETA, &b));
	DL_TRY(dl_builder_append_int(CH(b, 0), version));
	DL_TRY(dl_builder_append_null(CH(b, 1)));
	return row_end(f, b);
}

static int emit_sidecar(ckpt_file *f, const char *name, int64_t size, int64_t mtime)
{
	dl_builder *b;
	DL_TRY(row_begin(f, C_SIDECAR, &b));
	DL_TRY(dl_builder_append_str(CH(b, 0), name));
	DL_TRY(dl_builder_append_int(CH(b, 1), size));
	DL_TRY(dl_builder_append_int(CH(b, 2), mtime));
	DL_TRY(dl_builder_append_null(CH(b, 3)));
	return row_end(f, b);
}

/* The non-file actions of the state, in the order Spark writes them. */
static int emit_non_file(ckpt_file *f, const dl_log_state *st)
{
	DL_TRY(emit_protocol(f, st->protocol));
	DL_TRY(emit_metadata(f, st->metadata));
	for (size_t i = 0; i < st->ntxns; i++) DL_TRY(emit_txn(f, &st->txns[i]));
	for (size_t i = 0; i < st->ndomains; i++)
		if (!st->domains[i].removed) DL_TRY(emit_domain(f, &st->domains[i]));
	return 0;
}

static bool tombstone_live(const ckpt_ctx *c, const dl_remove *r)
{
	int64_t ts = r->deletion_timestamp == DL_NONE ? 0 : r->deletion_timestamp;
	return ts > c->cutoff_ms;
}

/* ---- context ---- */

static int partition_parsed_type(ckpt_ctx *c, dl_buf *json)
{
	const dl_metadata *m = c->snap->state.metadata;
	const dl_type *schema = c->snap->schema;
	if (!schema || m->npartition_columns == 0) return 0;
	c->part_fields = dl_arena_calloc(&c->arena, m->npartition_columns, sizeof *c->part_fields);
	c->part_keys = dl_arena_calloc(&c->arena, m->npartition_columns, sizeof *c->part_keys);
	if (!c->part_fields || !c->part_keys) return DL_ENOMEM;
	dl_json_writer w;
	dl_jw_init(&w, json);
	dl_jw_object_begin(&w);
	dl_jw_key(&w, "type");
	dl_jw_string(&w, "struct");
	dl_jw_key(&w, "fields");
	dl_jw_array_begin(&w);
	for (uint32_t i = 0; i < m->npartition_columns; i++) {
		int k = dl_schema_find(schema, m->partition_columns[i]);
		if (k < 0)
			return dl_error_set(DL_ECORRUPT, "partition column '%s' is not in the schema",
			                    m->partition_columns[i]);
		const dl_field *fd = &schema->children[k];
		const char *key = fd->name;
		if (c->snap->props.column_mapping_mode != DL_CM_NONE)
			DL_TRY(dl_field_physical_name(fd, c->snap->props.column_mapping_mode, &c->arena, &key));
		c->part_fields[c->npart] = fd;
		c->part_keys[c->npart++] = key;
		dl_jw_object_begin(&w);
		dl_jw_key(&w, "name");
		dl_jw_string(&w, key);
		dl_jw_key(&w, "type");
		dl_schema_write_type(&w, fd->type);
		dl_jw_key(&w, "nullable");
		dl_jw_bool(&w, true);
		dl_jw_key(&w, "metadata");
		dl_jw_object_begin(&w);
		dl_jw_object_end(&w);
		dl_jw_object_end(&w);
	}
	dl_jw_array_end(&w);
	dl_jw_object_end(&w);
	return dl_jw_finish(&w);
}

static int ctx_init(ckpt_ctx *c, dl_store *store, const dl_snapshot *snap, dl_buf *parsed_json,
                    int64_t now)
{
	memset(c, 0, sizeof *c);
	c->store = store;
	c->snap = snap;
	const dl_table_properties *p = &snap->props;
	c->cutoff_ms = now - p->deleted_file_retention_ms;
	c->dv_key = dl_protocol_has(snap->state.protocol, DL_FEATURE_DELETION_VECTORS);
	c->so.stats_json = p->checkpoint_write_stats_as_json;
	const dl_log_state *st = &snap->state;
	for (size_t i = 0; i < st->nadds && !c->so.clustering_provider; i++)
		if (dl_log_state_add(st, i)->clustering_provider) c->so.clustering_provider = true;
	if (p->checkpoint_write_stats_as_struct) {
		DL_TRY(partition_parsed_type(c, parsed_json));
		if (parsed_json->len) c->so.partition_parsed_json = parsed_json->data;
		DL_TRY(dl_ckpt_stats_init(&c->stats, snap));
		c->so.stats_parsed_json = c->stats.type_json;
	}
	return 0;
}

/* ---- the kinds ---- */

static void name_part(char *buf, size_t cap, int64_t v, int part, int nparts)
{
	if (nparts == 1)
		snprintf(buf, cap, DL_LOG_DIR "/%020lld.checkpoint.parquet", (long long)v);
	else
		snprintf(buf, cap, DL_LOG_DIR "/%020lld.checkpoint.%010d.%010d.parquet", (long long)v,
		         part + 1, nparts);
}

/* Spark's hash partitioning: pmod(murmur3(key, 42), n), the key being the
 * path, then the deletion vector's unique id when the table supports DVs
 * (each hashed with the previous hash as seed); a null key (the non-file
 * actions) hashes to the seed. */
static int part_of(ckpt_ctx *c, const char *path, const dl_dv_descriptor *dv, int n)
{
	if (n == 1) return 0;
	int32_t h = 42;
	if (path) {
		dl_buf_clear(&c->scratch);
		if (dl_log_path_encode(&c->scratch, path) == 0)
			h = ex_murmur3_bytes(c->scratch.data, c->scratch.len, 42);
		else
			dl_error_clear();
	}
	if (dv && c->dv_key) {
		dl_buf_clear(&c->scratch);
		if (dl_dv_unique_id(dv, &c->scratch) == 0)
			h = ex_murmur3_bytes(c->scratch.data, c->scratch.len, h);
		else
			dl_error_clear();
	}
	int m = (int)(h % n);
	return m < 0 ? m + n : m;
}

static int write_classic(ckpt_ctx *c, dl_checkpoint_result *res, int nparts)
{
	const dl_log_state *st = &c->snap->state;
	int64_t v = st->version;
	ckpt_file *files = dl_calloc((size_t)nparts, sizeof *files);
	if (!files) return DL_ENOMEM;
	int rc = 0;
	char path[128];
	for (int i = 0; i < nparts && rc == 0; i++) {
		name_part(path, sizeof path, v, i, nparts);
		rc = file_open(&files[i], c->store, path, &c->so);
		files[i].run = &c->run;
	}
	ckpt_file *first = &files[part_of(c, NULL, NULL, nparts)];
	if (rc == 0) rc = emit_non_file(first, st);
	/* The few non-file actions get a row group of their own: in the row
	 * groups of the adds their columns are then null throughout, which the
	 * chunk statistics tell a reader (checkpoint_read.c), so loading the
	 * snapshot does not decode them beside every add, and a metadata-only
	 * load reads just that first row group. */
	if (rc == 0 && (st->nadds || st->nremoves)) rc = file_flush(first);
	if (rc == 0 && (st->nadds || st->nremoves)) rc = pq_writer_end_row_group(first->pw);
	for (size_t i = 0; i < st->nadds && rc == 0; i++) {
		const dl_add *a = dl_log_state_add(st, i);
		rc = emit_add(c, &files[part_of(c, a->path, a->dv, nparts)], a);
	}
	for (size_t i = 0; i < st->nremoves && rc == 0; i++) {
		const dl_remove *r = &st->removes[i];
		if (tombstone_live(c, r)) rc = emit_remove(c, &files[part_of(c, r->path, r->dv, nparts)], r);
	}
	/* Cancelling stays possible until part 0 is published, not after. */
	for (int i = 1; i < nparts; i++) files[i].run = NULL;
	for (int i = 0; i < nparts && rc == 0; i++) {
		rc = file_close(&files[i]);
		res->actions += files[i].rows;
		res->size_bytes += files[i].size;
	}
	for (int i = 0; i < nparts; i++) file_free(&files[i]);
	dl_free(files);
	res->parts = nparts;
	return rc;
}

static int remember_sidecar(ckpt_run *run, const char *path)
{
	char **grown = dl_reallocarray(run->sidecars, run->nsidecars + 1, sizeof *grown);
	if (!grown) return DL_ENOMEM;
	run->sidecars = grown;
	if (!(grown[run->nsidecars] = dl_strdup(path))) return DL_ENOMEM;
	run->nsidecars++;
	return 0;
}

/* After a failed run: deletes the sidecars it published (nothing
 * references them), keeping the failure's message. */
static void drop_sidecars(ckpt_ctx *c, int rc)
{
	if (c->run.nsidecars == 0) return;
	dl_error saved = *dl_error_last();
	char *msg = dl_strdup(saved.message);
	for (size_t i = 0; i < c->run.nsidecars; i++) (void)dl_store_delete(c->store, c->run.sidecars[i]);
	if (msg) dl_error_set(rc, "%s", msg);
	dl_free(msg);
}

/* Writes the file actions into sidecars of at most part_actions rows and
 * records them in the main file. */
static int write_sidecars(ckpt_ctx *c, dl_checkpoint_result *res, ckpt_file *main_file,
                          int64_t part_actions)
{
	const dl_log_state *st = &c->snap->state;
	dl_ckpt_schema_options so = c->so;
	so.sidecar_file = true;
	size_t ai = 0, ri = 0;
	int rc = 0;
	while (rc == 0 && (ai < st->nadds || ri < st->nremoves)) {
		char uuid[DL_UUID_TEXT_LEN + 1], name[64], path[128];
		DL_TRY(dl_uuid_v4(uuid));
		snprintf(name, sizeof name, "%s.parquet", uuid);
		snprintf(path, sizeof path, DL_LOG_DIR "/_sidecars/%s", name);
		ckpt_file f;
		rc = file_open(&f, c->store, path, &so);
		f.run = &c->run;
		while (rc == 0 && f.rows < part_actions && ai < st->nadds)
			rc = emit_add(c, &f, dl_log_state_add(st, ai++));
		while (rc == 0 && f.rows < part_actions && ri < st->nremoves) {
			const dl_remove *r = &st->removes[ri++];
			if (tombstone_live(c, r)) rc = emit_remove(c, &f, r);
		}
		if (rc == 0 && f.rows == 0) {
			file_free(&f); /* only expired tombstones were left */
			break;
		}
		if (rc == 0) rc = file_close(&f);
		if (rc == 0) rc = remember_sidecar(&c->run, path);
		dl_object_info info = {0};
		if (rc == 0) rc = dl_store_stat(&info, c->store, path);
		if (rc == 0) rc = emit_sidecar(main_file, name, f.size, info.mtime_ms);
		dl_object_info_free(&info);
		res->actions += f.rows;
		res->size_bytes += f.size;
		res->sidecars++;
		file_free(&f);
	}
	return rc;
}

static int write_v2(ckpt_ctx *c, dl_checkpoint_result *res, int64_t part_actions)
{
	const dl_log_state *st = &c->snap->state;
	char uuid[DL_UUID_TEXT_LEN + 1], path[160];
	DL_TRY(dl_uuid_v4(uuid));
	snprintf(path, sizeof path, DL_LOG_DIR "/%020lld.checkpoint.%s.parquet", (long long)st->version,
	         uuid);
	c->so.v2 = true;
	ckpt_file f;
	int rc = file_open(&f, c->store, path, &c->so);
	f.run = &c->run;
	if (rc == 0) rc = emit_ckmeta(&f, st->version);
	if (rc == 0) rc = emit_non_file(&f, st);
	if (rc == 0) rc = write_sidecars(c, res, &f, part_actions);
	if (rc == 0) rc = file_close(&f);
	res->actions += f.rows;
	res->size_bytes += f.size;
	res->parts = 1;
	res->v2 = true;
	file_free(&f);
	return rc;
}

/* ---- _last_checkpoint ---- */

static int write_last_checkpoint(dl_store *store, const dl_checkpoint_result *res)
{
	dl_last_checkpoint cur;
	if (dl_last_checkpoint_read(store, &cur) == 0 && cur.version > res->version) return 0;
	dl_error_clear();
	dl_buf b = DL_BUF_INIT;
	dl_json_writer w;
	dl_jw_init(&w, &b);
	dl_jw_object_begin(&w);
	dl_jw_key(&w, "version");
	dl_jw_int(&w, res->version);
	dl_jw_key(&w, "size");
	dl_jw_int(&w, res->actions);
	if (res->parts > 1) {
		dl_jw_key(&w, "parts");
		dl_jw_int(&w, res->parts);
	}
	dl_jw_key(&w, "sizeInBytes");
	dl_jw_int(&w, res->size_bytes);
	dl_jw_key(&w, "numOfAddFiles");
	dl_jw_int(&w, res->add_files);
	dl_jw_object_end(&w);
	int rc = dl_jw_finish(&w);
	dl_arena a = DL_ARENA_INIT;
	dl_json *doc = NULL;
	char sum[33];
	if (rc == 0) rc = dl_json_parse(&a, b.data, b.len, "_last_checkpoint", &doc);
	if (rc == 0) rc = dl_json_checksum(sum, doc);
	if (rc == 0) {
		b.len--; /* reopen the object to append the checksum */
		rc = dl_buf_printf(&b, ",\"checksum\":\"%s\"}", sum);
	}
	if (rc == 0) rc = dl_store_put(store, DL_LOG_DIR "/_last_checkpoint", b.data, b.len);
	dl_arena_free(&a);
	dl_buf_free(&b);
	return rc;
}

/* ---- entry points ---- */

int dl_checkpoint_write(dl_checkpoint_result *out, dl_store *store, dl_snapshot *snap,
                        const dl_ckpt_write_options *opts)
{
	dl_ckpt_write_options def = DL_CKPT_WRITE_OPTIONS_INIT;
	if (!opts) opts = &def;
	memset(out, 0, sizeof *out);
	const dl_log_state *st = &snap->state;
	DL_TRY(dl_log_state_validate(st));
	if (st->metadata_only || snap->metadata_only)
		return dl_error_set(DL_EINVALID, "cannot checkpoint a metadata-only snapshot: open it "
		                    "with its files");
	if (snap->without_tombstones)
		return dl_error_set(DL_EINVALID, "cannot checkpoint a snapshot opened without its "
		                    "tombstones (skip_tombstones): they belong in the checkpoint");
	int64_t now = opts->now_ms != INT64_MIN ? opts->now_ms : dl_now_millis();
	int64_t part_actions = opts->part_actions > 0 ? opts->part_actions : DEFAULT_PART_ACTIONS;
	bool v2 = opts->kind == DL_CHECKPOINT_KIND_V2 ||
	          (opts->kind == DL_CHECKPOINT_AUTO &&
	           snap->props.checkpoint_policy == DL_CHECKPOINT_V2 &&
	           dl_protocol_has(st->protocol, DL_FEATURE_V2_CHECKPOINT));
	if (v2 && !dl_protocol_has(st->protocol, DL_FEATURE_V2_CHECKPOINT))
		return dl_error_set(DL_EINVALID, "V2 checkpoints need the v2Checkpoint table feature, "
		                    "which this table's protocol does not list");
	dl_buf parsed = DL_BUF_INIT;
	ckpt_ctx c;
	int rc = ctx_init(&c, store, snap, &parsed, now);
	int64_t total = 2 + (int64_t)(st->ntxns + st->ndomains + st->nadds + st->nremoves);
	c.run = (ckpt_run){opts->progress, opts->progress_payload, 0, total + (v2 ? 1 : 0), NULL, 0};
	out->version = st->version;
	out->add_files = (int64_t)st->nadds;
	if (rc == 0) {
		if (v2) {
			rc = write_v2(&c, out, part_actions);
		} else {
			int64_t n = (total + part_actions - 1) / part_actions;
			if (n > 100000) n = 100000;
			rc = write_classic(&c, out, (int)(n < 1 ? 1 : n));
		}
	}
	if (rc == 0) rc = write_last_checkpoint(store, out);
	if (rc < 0) drop_sidecars(&c, rc);
	if (rc == 0 && c.run.progress) { /* done: too late to cancel */
		dl_progress_info p = {"checkpoint", "writing", "actions", out->actions, out->actions, -1,
		                      out->size_bytes};
		(void)c.run.progress(&p, c.run.payload);
	}
	for (size_t i = 0; i < c.run.nsidecars; i++) dl_free(c.run.sidecars[i]);
	dl_free(c.run.sidecars);
	dl_buf_free(&parsed);
	dl_ckpt_stats_free(&c.stats);
	dl_buf_free(&c.scratch);
	dl_arena_free(&c.arena);
	if (rc < 0) dl_error_prefix("writing the checkpoint of version %lld", (long long)st->version);
	return rc;
}

int dl_checkpoint_write_version(dl_checkpoint_result *out, dl_store *store, int64_t version,
                                const dl_ckpt_write_options *opts)
{
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	so.store = store;
	so.as_of_version = version;
	dl_snapshot *snap = NULL;
	DL_TRY(dl_snapshot_open(&snap, NULL, &so));
	int rc = dl_checkpoint_write(out, store, snap, opts);
	dl_snapshot_free(snap);
	return rc;
}

/* ---- the public entry point (deltalake/maintenance.h) ---- */

int dl_checkpoint(dl_checkpoint_result *out, dl_snapshot *snap, const dl_checkpoint_options *opts)
{
	static const size_t ends[] = {
		DL_OPTIONS_END(dl_checkpoint_options, progress_payload), /* 1 */
	};
	DL_OPTIONS_ENDS_CHECK(ends, DL_CHECKPOINT_OPTIONS_VERSION);
	memset(out, 0, sizeof *out);
	if (!snap) return dl_error_set(DL_EINVALID, "dl_checkpoint needs a snapshot");
	dl_checkpoint_options o = DL_CHECKPOINT_OPTIONS_INIT;
	DL_TRY(dl_options_load(&o, opts, ends, DL_CHECKPOINT_OPTIONS_VERSION, "dl_checkpoint_options",
	                       "DL_CHECKPOINT_OPTIONS_INIT"));
	if (o.part_actions < 0)
		return dl_error_set(DL_EINVALID, "dl_checkpoint_options.part_actions is %lld: give a "
		                    "positive number of actions, or 0 for the default",
		                    (long long)o.part_actions);
	dl_ckpt_write_options wo = DL_CKPT_WRITE_OPTIONS_INIT;
	wo.part_actions = o.part_actions;
	wo.progress = o.progress;
	wo.progress_payload = o.progress_payload;
	return dl_checkpoint_write(out, dl_snapshot_store(snap), snap, &wo);
}
