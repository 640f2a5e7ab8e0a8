/* Writing the data files of one write, partition by partition (see
 * file_writer.h). */
#include "rewrite/file_writer.h"
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "columnar/void_fields.h"
#include "log/partition_values.h"
#include "log/schema.h"
#include "rewrite/conform.h"
#include "rewrite/stats_write.h"
#include "parquet/codec.h"
#include "parquet/writer.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/mem.h"
#include "util/time.h"
#include "util/uuid.h"

#define DEFAULT_TARGET_FILE_SIZE (INT64_C(128) << 20)

/* One partition's open file and its identity. */
typedef struct part_file {
	char *dir;              /* "a=1/b=x/" or "" */
	dl_kv *values;          /* physical name -> serialized value (NULL: null) */
	pq_writer *pw;
	dl_store_writer *sw;
	pq_sink sink;
	char *path;             /* relative path of the open file */
	int64_t rows;
} part_file;

struct dl_files_writer {
	dl_files_writer_options o;
	dl_type *data_logical;  /* table schema minus partition columns */
	dl_type *data_physical; /* ... physical, plus the hidden columns */
	dl_type *data_view;     /* data_logical plus the hidden columns (or NULL) */
	int *data_cols;         /* table column index of each data column */
	int ndata;
	bool void_fields;       /* a data column's structs have void fields, not written */
	int *part_cols;         /* table column index of each partition column */
	const char **part_phys; /* physical names of the partition columns */
	pq_codec codec;
	dl_strmap parts;        /* key -> part_file* */
	dl_add *adds;
	int64_t *add_rows;       /* rows of each add's file */
	size_t nadds, adds_cap;
	dl_arena arena;         /* strings of the adds */
	int file_no;
	int64_t rows, bytes;
	dl_buf key, val;
	dl_selection *groups;   /* per-batch row groups, reused */
	char **bloom_cols;      /* physical dotted paths of delta.parquet.bloomFilter.columns */
	int nbloom;
	pq_writer_group *group; /* threads > 1: the helpers every open file shares */
};

/* delta.parquet.bloomFilter.columns: comma-separated logical column paths
 * (a.b for a nested field) to the physical paths the Parquet writer
 * matches; names that are no column of the data files (partition
 * columns, typos) are skipped, as Parquet's per-column options are. */
static int bloom_columns(dl_files_writer *w, const char *list)
{
	const char *p = list;
	while (*p) {
		while (*p == ' ' || *p == ',') p++;
		if (!*p) break;
		const char *e = p;
		while (*e && *e != ',') e++;
		const char *q = e;
		while (q > p && q[-1] == ' ') q--;
		const dl_type *lt = w->data_logical, *pt = w->data_physical;
		dl_buf path = DL_BUF_INIT;
		bool ok = true;
		for (const char *seg = p; ok && seg < q;) {
			const char *d = seg;
			while (d < q && *d != '.') d++;
			/* `name` as dataSkippingStatsColumns spells it */
			const char *a = seg, *z = d;
			if (z - a >= 2 && *a == '`' && z[-1] == '`') a++, z--;
			int k = -1;
			for (int i = 0; lt && lt->id == DL_TYPE_STRUCT && i < lt->nchildren && k < 0; i++)
				if (strlen(lt->children[i].name) == (size_t)(z - a) &&
				    strncasecmp(lt->children[i].name, a, (size_t)(z - a)) == 0)
					k = i;
			ok = k >= 0 && pt && pt->id == DL_TYPE_STRUCT && k < pt->nchildren;
			if (ok && ((path.len && dl_buf_putc(&path, '.') < 0) || dl_buf_puts(&path, pt->children[k].name) < 0)) {
				dl_buf_free(&path);
				return DL_ENOMEM;
			}
			if (ok) {
				lt = lt->children[k].type;
				pt = pt->children[k].type;
			}
			seg = d < q ? d + 1 : q;
		}
		if (ok && path.len) {
			char **g = dl_reallocarray(w->bloom_cols, (size_t)w->nbloom + 1, sizeof *g);
			if (!g) {
				dl_buf_free(&path);
				return DL_ENOMEM;
			}
			w->bloom_cols = g;
			w->bloom_cols[w->nbloom++] = dl_buf_detach(&path, NULL);
		}
		dl_buf_free(&path);
		p = e;
	}
	return 0;
}

int dl_array_scalar(dl_scalar *out, const dl_array *a, int64_t row)
{
	memset(out, 0, sizeof *out);
	out->type = a->type->id;
	out->precision = a->type->precision;
	out->scale = a->type->scale;
	if (!dl_array_is_valid(a, row)) {
		out->is_null = true;
		return 0;
	}
	switch (a->type->id) {
	case DL_TYPE_BOOLEAN: out->v.b = dl_bit_get(a->values, row); break;
	case DL_TYPE_BYTE: out->v.i64 = ((const int8_t *)a->values)[row]; break;
	case DL_TYPE_SHORT: out->v.i64 = ((const int16_t *)a->values)[row]; break;
	case DL_TYPE_INTEGER: case DL_TYPE_DATE: out->v.i64 = ((const int32_t *)a->values)[row]; break;
	case DL_TYPE_LONG: case DL_TYPE_TIMESTAMP: case DL_TYPE_TIMESTAMP_NTZ:
		out->v.i64 = ((const int64_t *)a->values)[row];
		break;
	case DL_TYPE_FLOAT: out->v.f64 = ((const float *)a->values)[row]; break;
	case DL_TYPE_DOUBLE: out->v.f64 = ((const double *)a->values)[row]; break;
	case DL_TYPE_DECIMAL: memcpy(&out->v.dec, (const uint8_t *)a->values + 16 * row, 16); break;
	case DL_TYPE_STRING: case DL_TYPE_BINARY:
		out->v.str.ptr = (const char *)a->data + a->offsets[row];
		out->v.str.len = (size_t)(a->offsets[row + 1] - a->offsets[row]);
		break;
	default:
		return dl_error_set(DL_EUNSUPPORTED, "a %s value cannot be a partition value",
		                    dl_type_id_name(a->type->id));
	}
	return 0;
}

static int split_schema(dl_files_writer *w)
{
	const dl_type *s = w->o.schema;
	int np = w->o.npartition_columns;
	/* Spark's dropNullTypeColumns: arrays and maps holding a NullType
	 * cannot be written */
	DL_TRY(dl_void_check_complex(s));
	w->data_cols = dl_calloc((size_t)s->nchildren + 1, sizeof(int));
	w->part_cols = dl_calloc((size_t)np + 1, sizeof(int));
	w->part_phys = dl_calloc((size_t)np + 1, sizeof(char *));
	dl_field *fs = dl_calloc((size_t)s->nchildren + 1, sizeof *fs);
	if (!w->data_cols || !w->part_cols || !w->part_phys || !fs) {
		dl_free(fs);
		return DL_ENOMEM;
	}
	for (int p = 0; p < np; p++) {
		int k = dl_schema_find(s, w->o.partition_columns[p]);
		if (k < 0) {
			dl_free(fs);
			return dl_error_set(DL_ESCHEMA, "partition column %s is not in the schema",
			                    w->o.partition_columns[p]);
		}
		w->part_cols[p] = k;
		int rc = dl_field_physical_name(&s->children[k], w->o.props->column_mapping_mode,
		                                &w->arena, &w->part_phys[p]);
		/* the name may be the schema's own string; the adds' partition
		 * values keep it as their key and outlive the schema (MERGE reads
		 * its inserted files back for change data after the write) */
		if (rc == 0 && !(w->part_phys[p] = dl_arena_strdup(&w->arena, w->part_phys[p]))) rc = DL_ENOMEM;
		if (rc < 0) {
			dl_free(fs);
			return rc;
		}
	}
	for (int i = 0; i < s->nchildren; i++) {
		bool is_part = false;
		for (int p = 0; p < np; p++) is_part |= w->part_cols[p] == i;
		/* NullType columns stay in the schema only: Parquet cannot hold
		 * them, and readers fill NULL for a column a file lacks. */
		if (is_part || s->children[i].type->id == DL_TYPE_NULL) continue;
		w->data_cols[w->ndata] = i;
		fs[w->ndata] = s->children[i];
		/* and nested void fields stay in the schema only, like top-level
		 * ones: the files' structs lack them */
		if (dl_void_has_fields(s->children[i].type)) {
			dl_type *t;
			int rc = dl_void_drop_fields(&t, s->children[i].type, s->children[i].name);
			if (rc < 0) {
				for (int k = 0; k < w->ndata; k++)
					if (fs[k].type != s->children[w->data_cols[k]].type) dl_type_unref(fs[k].type);
				dl_free(fs);
				return rc;
			}
			fs[w->ndata].type = t;
			w->void_fields = true;
		}
		w->ndata++;
	}
	w->data_logical = dl_type_struct(fs, w->ndata);
	for (int k = 0; k < w->ndata; k++)
		if (fs[k].type != s->children[w->data_cols[k]].type) dl_type_unref(fs[k].type);
	dl_free(fs);
	if (!w->data_logical) return DL_ENOMEM;
	dl_type *phys;
	DL_TRY(dl_schema_to_physical(&phys, w->data_logical, w->o.props->column_mapping_mode));
	if (w->o.nhidden == 0) {
		w->data_physical = phys;
		return 0;
	}
	int n = phys->nchildren + w->o.nhidden;
	dl_field *all = dl_calloc((size_t)n, sizeof *all);
	if (!all) {
		dl_type_unref(phys);
		return DL_ENOMEM;
	}
	memcpy(all, phys->children, (size_t)phys->nchildren * sizeof *all);
	memcpy(all + phys->nchildren, w->o.hidden, (size_t)w->o.nhidden * sizeof *all);
	w->data_physical = dl_type_struct(all, n);
	memcpy(all, w->data_logical->children, (size_t)w->ndata * sizeof *all);
	w->data_view = dl_type_struct(all, n);
	dl_free(all);
	dl_type_unref(phys);
	return w->data_physical && w->data_view ? 0 : DL_ENOMEM;
}

int dl_files_writer_open(dl_files_writer **out, const dl_files_writer_options *o)
{
	dl_files_writer *w = dl_calloc(1, sizeof *w);
	if (!w) return DL_ENOMEM;
	w->o = *o;
	if (w->o.target_file_size <= 0) w->o.target_file_size = DEFAULT_TARGET_FILE_SIZE;
	dl_strmap_init(&w->parts, true);
	w->codec = PQ_CODEC_ZSTD;
	int rc = 0;
	if (o->props->parquet_compression_codec)
		rc = pq_codec_parse(o->props->parquet_compression_codec, &w->codec);
	if (rc == 0) rc = split_schema(w);
	if (rc == 0 && o->props->parquet_bloom_filter_columns)
		rc = bloom_columns(w, o->props->parquet_bloom_filter_columns);
	/* one set of helpers for the open files (a partitioned write has one
	 * per partition), not threads - 1 more for each */
	if (rc == 0 && o->threads > 1) rc = pq_writer_group_new(&w->group, o->threads);
	if (rc < 0) {
		dl_files_writer_free(w);
		return rc;
	}
	*out = w;
	return 0;
}

/* The key grouping rows of one partition, and the serialized values. */
static int row_key(dl_files_writer *w, const dl_batch *b, int64_t row)
{
	dl_buf_clear(&w->key);
	for (int p = 0; p < w->o.npartition_columns; p++) {
		dl_scalar sc;
		DL_TRY(dl_array_scalar(&sc, b->cols[w->part_cols[p]], row));
		bool is_null = sc.is_null;
		size_t before = w->key.len;
		if (!is_null) DL_TRY(dl_partition_value_format(&w->key, &sc, &is_null));
		if (is_null) {
			w->key.len = before;
			DL_TRY(dl_buf_putc(&w->key, '\x02')); /* null marker: no value holds it */
		}
		DL_TRY(dl_buf_putc(&w->key, '\x01'));
	}
	return 0;
}

static int new_part(dl_files_writer *w, part_file **out)
{
	part_file *pf = dl_calloc(1, sizeof *pf);
	if (!pf) return DL_ENOMEM;
	int np = w->o.npartition_columns;
	pf->values = dl_arena_calloc(&w->arena, (size_t)np + 1, sizeof *pf->values);
	const char **names = dl_calloc((size_t)np + 1, sizeof(char *));
	const char **vals = dl_calloc((size_t)np + 1, sizeof(char *));
	int rc = pf->values && names && vals ? 0 : DL_ENOMEM;
	const char *k = w->key.data;
	for (int p = 0; p < np && rc == 0; p++) {
		const char *e = strchr(k, '\x01');
		pf->values[p].key = w->part_phys[p];
		if (!(e == k + 1 && *k == '\x02')) {
			pf->values[p].value = dl_arena_strndup(&w->arena, k, (size_t)(e - k));
			if (!pf->values[p].value) rc = DL_ENOMEM;
		}
		names[p] = w->part_phys[p];
		vals[p] = pf->values[p].value;
		k = e + 1;
	}
	dl_buf dir = DL_BUF_INIT;
	if (rc == 0 && np) rc = dl_partition_dir(&dir, names, vals, np);
	if (rc == 0) {
		pf->dir = dir.data ? dl_buf_detach(&dir, NULL) : dl_strdup("");
		if (!pf->dir) rc = DL_ENOMEM;
	}
	dl_buf_free(&dir);
	dl_free(names);
	dl_free(vals);
	if (rc < 0) {
		dl_free(pf);
		return rc;
	}
	*out = pf;
	return 0;
}

static int open_file(dl_files_writer *w, part_file *pf)
{
	char uuid[DL_UUID_TEXT_LEN + 1];
	DL_TRY(dl_uuid_v4(uuid));
	char codec[16] = "";
	if (w->codec != PQ_CODEC_UNCOMPRESSED) {
		snprintf(codec, sizeof codec, "%s", pq_codec_name(w->codec));
		for (char *c = codec; *c; c++)
			if (*c >= 'A' && *c <= 'Z') *c = (char)(*c - 'A' + 'a');
	}
	dl_buf name = DL_BUF_INIT;
	int no = w->file_no++ % 100000;
	int rc = w->o.change_data
	             ? dl_buf_printf(&name, "_change_data/%scdc-%05d-%s.c000%s%s.parquet", pf->dir, no,
	                             uuid, *codec ? "." : "", codec)
	             : dl_buf_printf(&name, "%spart-%05d-%s-c000%s%s.parquet", pf->dir, no, uuid,
	                             *codec ? "." : "", codec);
	if (rc < 0) {
		dl_buf_free(&name);
		return rc;
	}
	pf->path = dl_buf_detach(&name, NULL);
	DL_TRY(dl_store_writer_open(&pf->sw, w->o.store, pf->path));
	pq_sink_init_store(&pf->sink, pf->sw);
	pq_writer_options po = PQ_WRITER_OPTIONS_INIT;
	po.codec = w->codec;
	po.root_name = "spark_schema";
	po.threads = w->o.threads;
	po.group = w->group;
	if (w->o.target_file_size < po.row_group_bytes) po.row_group_bytes = w->o.target_file_size;
	po.bloom_columns = (const char *const *)w->bloom_cols;
	po.nbloom_columns = w->nbloom;
	po.bloom_fpp = w->o.props->parquet_bloom_filter_fpp;
	pf->rows = 0;
	return pq_writer_open(&pf->pw, w->data_physical, &pf->sink, &po);
}

static int grow_adds(dl_files_writer *w)
{
	if (w->nadds < w->adds_cap) return 0;
	size_t cap = w->adds_cap ? w->adds_cap * 2 : 16;
	dl_add *a = dl_reallocarray(w->adds, cap, sizeof *a);
	if (!a) return DL_ENOMEM;
	w->adds = a;
	int64_t *r = dl_reallocarray(w->add_rows, cap, sizeof *r);
	if (!r) return DL_ENOMEM;
	w->add_rows = r;
	w->adds_cap = cap;
	return 0;
}

/* Closes the partition's file, publishes it and records its add. */
static int close_file(dl_files_writer *w, part_file *pf)
{
	if (!pf->pw) return 0;
	int rc = pq_writer_close(pf->pw);
	if (rc == 0) rc = grow_adds(w);
	bool published = false;
	if (rc == 0) {
		dl_store_writer *sw = pf->sw;
		pf->sw = NULL;
		rc = dl_store_writer_commit(sw, 1);
		/* A failed commit may still have published the file (the store
		 * contract allows it); only DL_EEXISTS says it did not. */
		published = rc != DL_EEXISTS;
	}
	dl_buf stats = DL_BUF_INIT;
	if (rc == 0) rc = dl_stats_json(&stats, pf->pw, w->data_logical, w->o.props, w->o.nhidden);
	if (rc == 0) {
		dl_add *a = &w->adds[w->nadds];
		memset(a, 0, sizeof *a);
		a->path = dl_arena_strdup(&w->arena, pf->path);
		a->partition_values.items = pf->values;
		a->partition_values.n = (uint32_t)w->o.npartition_columns;
		a->size = pq_writer_file_size(pf->pw);
		a->modification_time = dl_now_millis();
		a->stats = dl_arena_strdup(&w->arena, stats.data);
		a->stats_len = (uint32_t)stats.len;
		a->data_change = w->o.data_change;
		a->base_row_id = a->default_row_commit_version = DL_NONE;
		if (!a->path || !a->stats) rc = DL_ENOMEM;
		else {
			w->add_rows[w->nadds] = pq_writer_num_rows(pf->pw);
			w->nadds++;
			w->rows += pq_writer_num_rows(pf->pw);
			w->bytes += a->size;
		}
	}
	dl_buf_free(&stats);
	if (rc < 0 && published) {
		/* not recorded, so discard would not find it: delete it here (the
		 * name is fresh, so nothing else can be lost), keeping the error */
		dl_error saved = *dl_error_last();
		char msg[1024];
		snprintf(msg, sizeof msg, "%s", saved.message);
		(void)dl_store_delete(w->o.store, pf->path);
		dl_error_set(saved.code, "%s", msg);
	}
	if (pf->sw) dl_store_writer_abort(pf->sw);
	pf->sw = NULL;
	pq_writer_free(pf->pw);
	pf->pw = NULL;
	dl_free(pf->path);
	pf->path = NULL;
	return rc;
}

/* Whether the partition's file reached the target size: by the writer's
 * estimate, which depends on the rows alone, so files roll at the same rows
 * whatever the thread count and however far the columns encode ahead (the
 * bytes in the store so far would depend on both). */
static int file_full(dl_files_writer *w, part_file *pf, bool *full)
{
	*full = w->o.max_records_per_file > 0 && pf->rows >= w->o.max_records_per_file;
	if (*full) return 0;
	int64_t est;
	DL_TRY(pq_writer_size_estimate(pf->pw, &est));
	*full = est >= w->o.target_file_size;
	return 0;
}

/* Writes rows of one partition, rolling files at the limits. `b` holds the
 * data columns only (physical shape); owned: the writer takes it over (and
 * frees it, also on failure), so its columns encode while the caller makes
 * the next batch. */
static int write_part(dl_files_writer *w, part_file *pf, dl_batch *b, bool owned)
{
	int64_t done = 0, rows = b->num_rows;
	int rc = 0;
	while (rc == 0 && done < rows) {
		if (!pf->pw && (rc = open_file(w, pf)) < 0) break;
		int64_t n = rows - done;
		if (w->o.max_records_per_file > 0 && n > w->o.max_records_per_file - pf->rows)
			n = w->o.max_records_per_file - pf->rows;
		if (done == 0 && n == rows) {
			rc = owned ? pq_writer_write_owned(pf->pw, b) : pq_writer_write(pf->pw, b);
			owned = false; /* taken over: b is gone */
		} else {
			/* a copy of the rows: the writer can take it over */
			dl_batch *s = dl_batch_slice(b, done, n);
			rc = s ? pq_writer_write_owned(pf->pw, s) : dl_error_last()->code;
		}
		if (rc < 0) break;
		pf->rows += n;
		done += n;
		bool full;
		rc = file_full(w, pf, &full);
		if (rc == 0 && full) rc = close_file(w, pf);
	}
	if (owned) dl_batch_free(b);
	return rc;
}

static int part_for_key(dl_files_writer *w, part_file **out)
{
	void **slot;
	bool inserted;
	DL_TRY(dl_strmap_upsert(&w->parts, w->key.data ? w->key.data : "", w->key.len, &slot,
	                        &inserted));
	if (inserted) {
		*slot = NULL;
		DL_TRY(new_part(w, (part_file **)slot));
	}
	*out = *slot;
	return 0;
}

/* The data columns of b as a batch view borrowing them. */
static void data_batch(dl_files_writer *w, const dl_batch *b, dl_batch *view, dl_array **cols)
{
	for (int i = 0; i < w->ndata; i++) cols[i] = b->cols[w->data_cols[i]];
	for (int k = 0; k < w->o.nhidden; k++) cols[w->ndata + k] = b->cols[w->o.schema->nchildren + k];
	view->schema = w->data_view ? w->data_view : w->data_logical;
	view->num_rows = b->num_rows;
	view->ncols = w->ndata + w->o.nhidden;
	view->cols = cols;
}

/* The data columns of b moved into a batch of their own; b is freed (with
 * the partition columns) either way. */
static dl_batch *take_data(dl_files_writer *w, dl_batch *b)
{
	dl_batch *d = dl_batch_new(w->data_view ? w->data_view : w->data_logical, b->num_rows);
	if (d) {
		for (int i = 0; i < w->ndata; i++) {
			d->cols[i] = b->cols[w->data_cols[i]];
			b->cols[w->data_cols[i]] = NULL;
		}
		for (int k = 0; k < w->o.nhidden; k++) {
			d->cols[w->ndata + k] = b->cols[w->o.schema->nchildren + k];
			b->cols[w->o.schema->nchildren + k] = NULL;
		}
	}
	dl_batch_free(b);
	return d;
}

/* Whether every row of b is in one partition. */
static bool one_partition(const dl_files_writer *w, const dl_batch *b)
{
	for (int p = 0; p < w->o.npartition_columns; p++) {
		const dl_array *a = b->cols[w->part_cols[p]];
		for (int64_t r = 1; r < b->num_rows; r++)
			if (!dl_array_row_equals(a, 0, a, r)) return false;
	}
	return true;
}

/* Rows of several partitions: grouped by partition, each group's rows
 * copied out and handed over. */
static int write_groups(dl_files_writer *w, const dl_batch *b, const dl_batch *view)
{
	int rc = 0;
	part_file *pf;
	dl_strmap groups;
	dl_strmap_init(&groups, true);
	dl_selection *sels = NULL;
	size_t nsel = 0, cap = 0;
	for (int64_t r = 0; r < b->num_rows && rc == 0; r++) {
		rc = row_key(w, b, r);
		if (rc < 0) break;
		void **slot;
		bool inserted;
		rc = dl_strmap_upsert(&groups, w->key.data, w->key.len, &slot, &inserted);
		if (rc < 0) break;
		if (inserted) {
			if (nsel == cap) {
				cap = cap ? cap * 2 : 8;
				dl_selection *ns = dl_reallocarray(sels, cap, sizeof *ns);
				if (!ns) { rc = DL_ENOMEM; break; }
				sels = ns;
			}
			memset(&sels[nsel], 0, sizeof sels[nsel]);
			*slot = (void *)(uintptr_t)(nsel + 1);
			nsel++;
		}
		dl_selection *s = &sels[(uintptr_t)*slot - 1];
		if ((rc = dl_selection_reserve(s, s->count + 1)) < 0) break;
		s->idx[s->count++] = (uint32_t)r;
	}
	size_t it = 0;
	const dl_strmap_slot *gs;
	while (rc == 0 && dl_strmap_next(&groups, &it, &gs)) {
		dl_selection *s = &sels[(uintptr_t)gs->value - 1];
		dl_buf_clear(&w->key);
		rc = dl_buf_append(&w->key, gs->key, gs->klen);
		if (rc == 0) rc = part_for_key(w, &pf);
		if (rc < 0) break;
		dl_batch *t = dl_batch_take(view, s->idx, s->count);
		rc = t ? write_part(w, pf, t, true) : dl_error_last()->code;
	}
	for (size_t i = 0; i < nsel; i++) dl_selection_free(&sels[i]);
	dl_free(sels);
	dl_strmap_free(&groups);
	return rc;
}

/* b is freed when owned (also on failure). */
static int files_write(dl_files_writer *w, dl_batch *b, bool owned)
{
	if (b->num_rows == 0) {
		if (owned) dl_batch_free(b);
		return 0;
	}
	part_file *pf = NULL;
	int rc;
	/* Unpartitioned, or a batch of one partition (sorted or
	 * single-partition input, the common case): written as it is, without
	 * a key per row. */
	if (w->o.npartition_columns == 0 || one_partition(w, b)) {
		if (w->o.npartition_columns == 0) {
			dl_buf_clear(&w->key);
			rc = 0;
		} else {
			rc = row_key(w, b, 0);
		}
		if (rc == 0) rc = part_for_key(w, &pf);
		if (owned) {
			if (rc < 0) {
				dl_batch_free(b);
				return rc;
			}
			dl_batch *d = take_data(w, b);
			return d ? write_part(w, pf, d, true) : dl_error_last()->code;
		}
		dl_array **cols = dl_calloc((size_t)(w->ndata + w->o.nhidden) + 1, sizeof *cols);
		if (!cols) return DL_ENOMEM;
		dl_batch view;
		data_batch(w, b, &view, cols);
		if (rc == 0) rc = write_part(w, pf, &view, false);
		dl_free(cols);
		return rc;
	}
	dl_array **cols = dl_calloc((size_t)(w->ndata + w->o.nhidden) + 1, sizeof *cols);
	if (!cols) rc = DL_ENOMEM;
	else {
		dl_batch view;
		data_batch(w, b, &view, cols);
		rc = write_groups(w, b, &view);
	}
	dl_free(cols);
	if (owned) dl_batch_free(b);
	return rc;
}

/* The batch with its columns holding void fields conformed to their types
 * without them (split_schema), then written; b stays the caller's. */
static int write_without_void(dl_files_writer *w, const dl_batch *b)
{
	dl_batch c = *b;
	c.cols = dl_calloc((size_t)b->ncols + 1, sizeof *c.cols);
	bool *owned = dl_calloc((size_t)b->ncols + 1, sizeof *owned);
	int rc = c.cols && owned ? 0 : DL_ENOMEM;
	if (rc == 0) memcpy(c.cols, b->cols, (size_t)b->ncols * sizeof *c.cols);
	for (int i = 0; rc == 0 && i < w->ndata; i++) {
		int k = w->data_cols[i];
		dl_type *t = w->data_logical->children[i].type;
		if (t == w->o.schema->children[k].type) continue;
		rc = dl_array_conform(&c.cols[k], b->cols[k], t);
		owned[k] = rc == 0;
		if (rc < 0) c.cols[k] = NULL;
	}
	if (rc == 0) rc = files_write(w, &c, false);
	for (int k = 0; owned && c.cols && k < b->ncols; k++)
		if (owned[k]) dl_array_free(c.cols[k]);
	dl_free(owned);
	dl_free(c.cols);
	return rc;
}

int dl_files_writer_write(dl_files_writer *w, const dl_batch *b)
{
	if (w->void_fields && b->num_rows) return write_without_void(w, b);
	return files_write(w, (dl_batch *)b, false);
}

int dl_files_writer_write_owned(dl_files_writer *w, dl_batch *b)
{
	/* void fields dropped in place: b's columns are ours to replace */
	for (int i = 0; w->void_fields && b->num_rows && i < w->ndata; i++) {
		int k = w->data_cols[i];
		dl_type *t = w->data_logical->children[i].type;
		if (t == w->o.schema->children[k].type) continue;
		dl_array *c = NULL;
		int rc = dl_array_conform(&c, b->cols[k], t);
		if (rc < 0) {
			dl_batch_free(b);
			return rc;
		}
		dl_array_free(b->cols[k]);
		b->cols[k] = c;
	}
	return files_write(w, b, true);
}

int dl_files_writer_finish(dl_files_writer *w)
{
	size_t it = 0;
	const dl_strmap_slot *s;
	int rc = 0;
	while (dl_strmap_next(&w->parts, &it, &s)) {
		int r = close_file(w, s->value);
		if (r < 0 && rc == 0) rc = r;
	}
	return rc;
}

size_t dl_files_writer_count(const dl_files_writer *w) { return w->nadds; }
const dl_add *dl_files_writer_add(const dl_files_writer *w, size_t i) { return &w->adds[i]; }
int64_t dl_files_writer_rows(const dl_files_writer *w) { return w->rows; }
int64_t dl_files_writer_file_rows(const dl_files_writer *w, size_t i) { return w->add_rows[i]; }
int64_t dl_files_writer_bytes(const dl_files_writer *w) { return w->bytes; }

void dl_files_writer_discard(dl_files_writer *w)
{
	for (size_t i = 0; i < w->nadds; i++) (void)dl_store_delete(w->o.store, w->adds[i].path);
	w->nadds = 0;
}

void dl_files_writer_free(dl_files_writer *w)
{
	if (!w) return;
	size_t it = 0;
	const dl_strmap_slot *s;
	while (dl_strmap_next(&w->parts, &it, &s)) {
		part_file *pf = s->value;
		if (!pf) continue;
		if (pf->sw) dl_store_writer_abort(pf->sw);
		pq_writer_free(pf->pw);
		dl_free(pf->path);
		dl_free(pf->dir);
		dl_free(pf);
	}
	dl_strmap_free(&w->parts);
	pq_writer_group_free(w->group); /* after its writers */
	dl_type_unref(w->data_logical);
	dl_type_unref(w->data_physical);
	dl_type_unref(w->data_view);
	for (int i = 0; i < w->nbloom; i++) dl_free(w->bloom_cols[i]);
	dl_free(w->bloom_cols);
	dl_free(w->data_cols);
	dl_free(w->part_cols);
	dl_free(w->part_phys);
	dl_free(w->adds);
	dl_free(w->add_rows);
	dl_buf_free(&w->key);
	dl_buf_free(&w->val);
	dl_arena_free(&w->arena);
	dl_free(w);
}
