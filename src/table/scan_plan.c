/* Scan planning: which table columns to read and under which physical names,
 * and which live files may hold matching rows. */
#include <ctype.h>
#include <string.h>
#include <strings.h>
#include "log/partition_values.h"
#include "log/protocol.h"
#include "log/schema.h"
#include "log/stats.h"
#include "table/scan.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/pool.h"

#define ROW_ID_KEY "delta.rowTracking.materializedRowIdColumnName"
#define ROW_CV_KEY "delta.rowTracking.materializedRowCommitVersionColumnName"

static bool is_partition(const dl_scan *s, const char *name)
{
	for (int i = 0; i < s->npart; i++)
		if (strcasecmp(s->part_names[i], name) == 0) return true;
	return false;
}

/* ---- physical request type ---- */

static int physical_type(dl_type **out, const dl_type *t, dl_column_mapping_mode mode, dl_arena *arena);

static int physical_field(dl_field *out, const dl_field *f, dl_column_mapping_mode mode, dl_arena *arena)
{
	memset(out, 0, sizeof *out);
	const char *name = f->name;
	if (mode != DL_CM_NONE) DL_TRY(dl_field_physical_name(f, mode, arena, &name));
	char *meta = "{}";
	int32_t id;
	if (mode == DL_CM_ID && dl_field_column_id(f, &id) == 0) {
		/* the Parquet reader matches requested fields by this key */
		meta = dl_arena_alloc(arena, 40);
		if (!meta) return DL_ENOMEM;
		snprintf(meta, 40, "{\"parquet.field.id\":%d}", (int)id);
	}
	dl_error_clear();
	out->name = (char *)name;
	out->nullable = f->nullable;
	out->metadata = meta;
	return physical_type(&out->type, f->type, mode, arena);
}

static int physical_type(dl_type **out, const dl_type *t, dl_column_mapping_mode mode, dl_arena *arena)
{
	*out = NULL;
	if (mode == DL_CM_NONE || (t->id != DL_TYPE_STRUCT && t->id != DL_TYPE_ARRAY && t->id != DL_TYPE_MAP)) {
		*out = dl_type_ref((dl_type *)t);
		return 0;
	}
	if (t->id == DL_TYPE_ARRAY || t->id == DL_TYPE_MAP) {
		dl_type *c[2] = {NULL, NULL};
		int rc = 0;
		for (int i = 0; i < t->nchildren && rc == 0; i++) rc = physical_type(&c[i], t->children[i].type, mode, arena);
		if (rc == 0) {
			*out = t->id == DL_TYPE_ARRAY ? dl_type_array(c[0], t->children[0].nullable)
			                              : dl_type_map(c[0], c[1], t->children[1].nullable);
			if (!*out) rc = DL_ENOMEM;
		}
		dl_type_unref(c[0]);
		dl_type_unref(c[1]);
		return rc;
	}
	dl_field *fs = dl_calloc(t->nchildren ? (size_t)t->nchildren : 1, sizeof *fs);
	if (!fs) return DL_ENOMEM;
	int rc = 0;
	for (int i = 0; i < t->nchildren && rc == 0; i++) rc = physical_field(&fs[i], &t->children[i], mode, arena);
	if (rc == 0) {
		*out = dl_type_struct(fs, t->nchildren);
		if (!*out) rc = DL_ENOMEM;
	}
	for (int i = 0; i < t->nchildren; i++) dl_type_unref(fs[i].type);
	dl_free(fs);
	return rc;
}

/* ---- columns ---- */

typedef struct col_mark {
	const dl_type *schema;
	bool *need;
} col_mark;

static int mark_column(const char *const *path, int depth, void *payload)
{
	col_mark *m = payload;
	if (depth < 1) return 0;
	int i = dl_schema_find(m->schema, path[0]);
	if (i >= 0) m->need[i] = true;
	return 0;
}

/* Late materialization: the data columns the residual filter does not
 * read are decoded only for the rows it keeps (scan_read.c). Columns that
 * materialized row tracking reads stay early: every row's value is used. */
static int plan_late(dl_scan *s)
{
	int nr = s->read_schema->nchildren, np = s->phys_request->nchildren;
	bool *fneed = dl_calloc((size_t)nr + 1, 1);
	s->late_data = dl_calloc((size_t)np + 1, 1);
	if (!fneed || !s->late_data) {
		dl_free(fneed);
		return DL_ENOMEM;
	}
	col_mark m = {s->read_schema, fneed};
	int rc = dl_expr_columns(s->residual, mark_column, &m);
	bool any = false;
	for (int i = 0; rc == 0 && i < nr; i++) {
		const dl_scan_col *c = &s->cols[i];
		if (c->kind != DL_SCOL_DATA || fneed[i] || c->data_index == s->mat_row_id || c->data_index == s->mat_row_cv)
			continue;
		s->late_data[c->data_index] = true;
		any = true;
	}
	dl_free(fneed);
	if (!any) {
		dl_free(s->late_data);
		s->late_data = NULL;
	}
	return rc;
}

static int bind_filter(dl_expr **out, const char *sql, const dl_type *schema)
{
	DL_TRY(dl_expr_parse(out, sql));
	int rc = dl_expr_bind(*out, schema);
	if (rc == 0) {
		const dl_type *t = dl_expr_type(*out);
		if (!t || (t->id != DL_TYPE_BOOLEAN && t->id != DL_TYPE_NULL))
			rc = dl_error_set(DL_EINVALID, "the filter '%s' is not a condition (it gives %s); write a "
			                  "predicate such as \"col > 1\"", sql, t ? dl_type_id_name(t->id) : "nothing");
	}
	if (rc < 0) {
		dl_expr_free(*out);
		*out = NULL;
		return dl_error_prefix("filter '%s'", sql);
	}
	return 0;
}

typedef struct req_col {
	int kind;  /* -1 table field, DL_SCOL_ROW_ID, DL_SCOL_ROW_COMMIT_VERSION */
	int field;
} req_col;

static int parse_requests(dl_scan *s, const dl_scan_options *o, req_col *req, int *nreq)
{
	const dl_type *schema = dl_snapshot_schema(s->snap);
	int n = 0;
	if (!o->columns) {
		for (int i = 0; i < schema->nchildren; i++) req[n++] = (req_col){-1, i};
		*nreq = n;
		return 0;
	}
	for (int k = 0; k < o->ncolumns; k++) {
		const char *name = o->columns[k];
		req_col r = {-1, -1};
		if (strcasecmp(name, DL_SCAN_ROW_ID) == 0) r.kind = DL_SCOL_ROW_ID;
		else if (strcasecmp(name, DL_SCAN_ROW_COMMIT_VERSION) == 0) r.kind = DL_SCOL_ROW_COMMIT_VERSION;
		else if ((r.field = dl_schema_find(schema, name)) < 0)
			return dl_error_set(DL_EINVALID, "no column '%s' in the table; run 'deltalake schema' to see "
			                    "the columns", name);
		if (r.kind >= 0 && !dl_protocol_has(s->snap->state.protocol, DL_FEATURE_ROW_TRACKING))
			return dl_error_set(DL_EUNSUPPORTED, "'%s' needs row tracking, which the table does not have "
			                    "(table feature rowTracking)", name);
		for (int j = 0; j < n; j++)
			if (req[j].kind == r.kind && req[j].field == r.field)
				return dl_error_set(DL_EINVALID, "column '%s' is requested twice", name);
		req[n++] = r;
	}
	*nreq = n;
	return 0;
}

static int add_field(dl_field *fields, int *n, const char *name, dl_type *t, bool nullable, const char *meta)
{
	fields[*n] = (dl_field){(char *)name, t, nullable, (char *)(meta ? meta : "{}")};
	(*n)++;
	return 0;
}

/* The materialized row-tracking column `key` names, as an extra long
 * field of the physical request; -1 when the table has none. */
static int add_materialized(dl_scan *s, dl_field *pf, int *np, const char *key, dl_type *long_t, int *index)
{
	*index = -1;
	const char *name = dl_snapshot_property(s->snap, key);
	if (!name) return 0;
	*index = *np;
	/* pf's types are references released after building (like physical_field's) */
	return add_field(pf, np, name, dl_type_ref(long_t), true, NULL);
}

static int build_columns(dl_scan *s, const req_col *req, int nreq, const bool *need, bool want_id, bool want_cv)
{
	const dl_type *schema = dl_snapshot_schema(s->snap);
	int nf = schema->nchildren;
	size_t cap = (size_t)nf + 4;
	dl_field *rf = dl_calloc(cap, sizeof *rf);
	dl_field *pf = dl_calloc(cap, sizeof *pf);
	s->cols = dl_calloc(cap, sizeof *s->cols);
	dl_type *long_t = dl_type_new(DL_TYPE_LONG);
	int rc = (!rf || !pf || !s->cols || !long_t) ? DL_ENOMEM : 0;
	int nr = 0, np = 0;
	int *read_of_field = dl_calloc((size_t)nf + 1, sizeof *read_of_field);
	if (!read_of_field) rc = DL_ENOMEM;
	for (int i = 0; i < nf && rc == 0; i++) {
		if (!need[i]) continue;
		const dl_field *f = &schema->children[i];
		dl_scan_col *c = &s->cols[nr];
		read_of_field[i] = nr;
		c->type = f->type;
		if (is_partition(s, f->name)) {
			c->kind = DL_SCOL_PARTITION;
			rc = dl_field_physical_name(f, s->mode, &s->arena, &c->part_key);
		} else {
			c->kind = DL_SCOL_DATA;
			c->data_index = np;
			rc = physical_field(&pf[np], f, s->mode, &s->arena);
			if (rc == 0) np++;
		}
		if (rc == 0) add_field(rf, &nr, f->name, f->type, f->nullable, f->metadata);
	}
	int id_read = -1, cv_read = -1;
	if (rc == 0 && want_id) {
		s->cols[nr] = (dl_scan_col){DL_SCOL_ROW_ID, 0, NULL, long_t};
		id_read = nr;
		add_field(rf, &nr, DL_SCAN_ROW_ID, long_t, true, NULL);
		add_materialized(s, pf, &np, ROW_ID_KEY, long_t, &s->mat_row_id);
	}
	if (rc == 0 && want_cv) {
		s->cols[nr] = (dl_scan_col){DL_SCOL_ROW_COMMIT_VERSION, 0, NULL, long_t};
		cv_read = nr;
		add_field(rf, &nr, DL_SCAN_ROW_COMMIT_VERSION, long_t, true, NULL);
		add_materialized(s, pf, &np, ROW_CV_KEY, long_t, &s->mat_row_cv);
	}
	if (rc == 0) {
		s->read_schema = dl_type_struct(rf, nr);
		s->phys_request = dl_type_struct(pf, np);
		if (!s->read_schema || !s->phys_request) rc = DL_ENOMEM;
	}
	/* types of the read columns, now owned by read_schema */
	for (int i = 0; rc == 0 && i < nr; i++) s->cols[i].type = s->read_schema->children[i].type;
	/* output columns in the order asked */
	dl_field *of = dl_calloc((size_t)nreq + 1, sizeof *of);
	s->out_cols = dl_calloc((size_t)nreq + 1, sizeof *s->out_cols);
	if (rc == 0 && (!of || !s->out_cols)) rc = DL_ENOMEM;
	for (int k = 0; rc == 0 && k < nreq; k++) {
		int r = req[k].kind == DL_SCOL_ROW_ID ? id_read
		        : req[k].kind == DL_SCOL_ROW_COMMIT_VERSION ? cv_read : read_of_field[req[k].field];
		s->out_cols[k] = r;
		of[k] = s->read_schema->children[r];
	}
	if (rc == 0) {
		s->nout = nreq;
		s->out_schema = dl_type_struct(of, nreq);
		if (!s->out_schema) rc = DL_ENOMEM;
	}
	for (int i = 0; i < np; i++) dl_type_unref(pf[i].type);
	dl_free(of);
	dl_free(rf);
	dl_free(pf);
	dl_free(read_of_field);
	dl_type_unref(long_t);
	return rc;
}

/* Columns whose statistics may be used: delta.dataSkippingStatsColumns, or
 * the first delta.dataSkippingNumIndexedCols leaf columns of the data
 * schema (writers collect stats only for those). */
static int add_indexed(dl_scan *s, const char *path)
{
	char **n = dl_reallocarray(s->indexed, s->nindexed + 1, sizeof *n);
	if (!n) return DL_ENOMEM;
	s->indexed = n;
	char *p = dl_arena_strdup(&s->arena, path);
	if (!p) return DL_ENOMEM;
	for (char *c = p; *c; c++) *c = (char)tolower((unsigned char)*c);
	s->indexed[s->nindexed++] = p;
	return 0;
}

static int leaves(dl_scan *s, const dl_type *t, dl_buf *prefix, int64_t *left)
{
	for (int i = 0; i < t->nchildren && *left != 0; i++) {
		const dl_field *f = &t->children[i];
		if (prefix->len == 0 && is_partition(s, f->name)) continue;
		size_t keep = prefix->len;
		if (keep) DL_TRY(dl_buf_putc(prefix, '.'));
		DL_TRY(dl_buf_puts(prefix, f->name));
		if (f->type->id == DL_TYPE_STRUCT) {
			DL_TRY(leaves(s, f->type, prefix, left));
		} else {
			DL_TRY(add_indexed(s, prefix->data));
			(*left)--;
		}
		prefix->len = keep;
		prefix->data[keep] = 0;
	}
	return 0;
}

static int plan_indexed(dl_scan *s)
{
	const dl_table_properties *p = dl_snapshot_props(s->snap);
	if (p->data_skipping_stats_columns) {
		dl_buf b = DL_BUF_INIT;
		const char *c = p->data_skipping_stats_columns;
		int rc = 0;
		while (*c && rc == 0) {
			const char *e = strchr(c, ',');
			size_t n = e ? (size_t)(e - c) : strlen(c);
			dl_buf_clear(&b);
			for (size_t i = 0; i < n && rc == 0; i++)
				if (c[i] != '`' && !isspace((unsigned char)c[i])) rc = dl_buf_putc(&b, c[i]);
			if (rc == 0 && b.len) rc = add_indexed(s, b.data);
			c += n + (e ? 1 : 0);
		}
		dl_buf_free(&b);
		if (rc == 0 && !s->indexed) rc = add_indexed(s, "");
		return rc;
	}
	if (p->data_skipping_num_indexed_cols < 0) return 0;
	int64_t left = p->data_skipping_num_indexed_cols;
	dl_buf prefix = DL_BUF_INIT;
	DL_TRY(dl_buf_reserve(&prefix, 64));
	int rc = leaves(s, dl_snapshot_schema(s->snap), &prefix, &left);
	dl_buf_free(&prefix);
	if (rc == 0 && !s->indexed) rc = add_indexed(s, ""); /* no column has stats */
	return rc;
}

/* A filter on the base column of a generated partition column (ts for day
 * GENERATED ALWAYS AS (CAST(ts AS DATE))) says nothing about the partition
 * values by itself; the derived filter (expr/prune_generated.c) does, and it
 * is implied by the filter, so a file it rules out holds no matching row.
 * Deriving is only an optimization: a generation expression it cannot use
 * prunes nothing rather than failing the scan. */
static int derive_generated(dl_scan *s, const dl_type *schema)
{
	if (s->npart <= 0) return 0;
	int rc = dl_expr_derive_partition_filter(&s->prune_generated, s->prune, schema, s->part_names,
	                                         s->npart);
	if (rc == DL_ENOMEM) return rc;
	if (rc < 0) {
		dl_error_clear();
		s->prune_generated = NULL;
	}
	return 0;
}

int dl_scan_plan_columns(dl_scan *s, const dl_scan_options *o)
{
	const dl_type *schema = dl_snapshot_schema(s->snap);
	if (!schema)
		return dl_error_set(DL_EUNSUPPORTED, "the table's metadata has no schema, so it has no columns to read");
	const dl_metadata *md = dl_snapshot_state(s->snap)->metadata;
	s->part_names = md->partition_columns;
	s->npart = (int)md->npartition_columns;
	s->mode = dl_snapshot_props(s->snap)->column_mapping_mode;
	s->by_field_id = s->mode == DL_CM_ID;
	s->mat_row_id = s->mat_row_cv = -1;
	int nf = schema->nchildren;
	req_col *req = dl_calloc((size_t)(o->columns ? o->ncolumns : nf) + 1, sizeof *req);
	bool *need = dl_calloc((size_t)nf + 1, sizeof *need);
	int rc = (!req || !need) ? DL_ENOMEM : 0;
	int nreq = 0;
	bool want_id = false, want_cv = false;
	if (rc == 0) rc = parse_requests(s, o, req, &nreq);
	for (int k = 0; rc == 0 && k < nreq; k++) {
		if (req[k].kind == DL_SCOL_ROW_ID) want_id = true;
		else if (req[k].kind == DL_SCOL_ROW_COMMIT_VERSION) want_cv = true;
		else need[req[k].field] = true;
	}
	if (rc == 0 && o->filter && *o->filter) {
		rc = bind_filter(&s->prune, o->filter, schema);
		col_mark m = {schema, need};
		bool *fneed = dl_calloc((size_t)nf + 1, sizeof *fneed);
		if (rc == 0 && !fneed) rc = DL_ENOMEM;
		col_mark fm = {schema, fneed};
		if (rc == 0) rc = dl_expr_columns(s->prune, mark_column, &m);
		if (rc == 0) rc = dl_expr_columns(s->prune, mark_column, &fm);
		for (int i = 0; rc == 0 && i < nf; i++)
			if (fneed[i] && !is_partition(s, schema->children[i].name)) s->prune_data_cols = true;
		dl_free(fneed);
	}
	if (rc == 0 && s->prune) rc = derive_generated(s, schema);
	if (rc == 0) rc = build_columns(s, req, nreq, need, want_id, want_cv);
	if (rc == 0 && s->prune) rc = bind_filter(&s->residual, o->filter, s->read_schema);
	if (rc == 0 && s->residual) rc = plan_late(s);
	if (rc == 0) rc = plan_indexed(s);
	dl_free(req);
	dl_free(need);
	return rc;
}

/* ---- files ---- */

static bool indexed(const dl_scan *s, const char *const *path, int depth)
{
	if (!s->indexed) return true;
	char buf[512];
	size_t n = 0;
	for (int i = 0; i < depth; i++) {
		for (const char *c = path[i]; *c; c++)
			if (n + 2 < sizeof buf) buf[n++] = (char)tolower((unsigned char)*c);
		if (i + 1 < depth && n + 2 < sizeof buf) buf[n++] = '.';
	}
	buf[n] = 0;
	for (size_t k = 0; k < s->nindexed; k++) {
		size_t m = strlen(s->indexed[k]);
		if (m && strncmp(buf, s->indexed[k], m) == 0 && (buf[m] == 0 || buf[m] == '.')) return true;
	}
	return false;
}

typedef struct file_provider {
	const dl_scan *s;
	const dl_add *add;
	dl_stats_provider inner; /* stats (NULL column fn: partitions only) */
} file_provider;

static int provider_column(void *payload, const char *const *path, int depth, dl_col_stats *out)
{
	file_provider *fp = payload;
	const dl_scan *s = fp->s;
	memset(out, 0, sizeof *out);
	bool part = depth == 1 && is_partition(s, path[0]);
	if (part && !fp->inner.column) {
		const dl_type *schema = dl_snapshot_schema(s->snap);
		int i = dl_schema_find(schema, path[0]);
		if (i < 0) return 0;
		const dl_field *f = &schema->children[i];
		const char *key = f->name;
		dl_arena tmp = DL_ARENA_INIT;
		if (s->mode != DL_CM_NONE && dl_field_physical_name(f, s->mode, &tmp, &key) < 0) {
			dl_error_clear();
			dl_arena_free(&tmp);
			return 0;
		}
		bool found;
		const char *v = dl_str_map_get(&fp->add->partition_values, key, &found);
		dl_arena_free(&tmp);
		dl_scalar sc;
		if (dl_partition_value_parse(&sc, f->type, v) < 0) {
			dl_error_clear(); /* an unparsable value prunes nothing */
			return 0;
		}
		if (sc.is_null) {
			out->all_null = true;
			return 0;
		}
		out->has_min = out->has_max = true;
		out->min = out->max = sc;
		out->has_null_count = true;
		out->null_count = 0;
		return 0;
	}
	if (!fp->inner.column) return 0;
	if (!part && !indexed(s, path, depth)) return 0;
	return fp->inner.column(fp->inner.payload, path, depth, out);
}

/* Variant path bounds come from the file's statistics only (a partition
 * column is never a variant). */
static int provider_variant_path(void *payload, const char *const *path, int depth, const char *jpath,
                                 dl_col_stats *out)
{
	file_provider *fp = payload;
	memset(out, 0, sizeof *out);
	if (!fp->inner.variant_path || !indexed(fp->s, path, depth)) return 0;
	return fp->inner.variant_path(fp->inner.payload, path, depth, jpath, out);
}

int dl_scan_partitions_may_match(bool *may, const dl_scan *s, const dl_str_map *partition_values)
{
	*may = true;
	if (!s->prune) return 0;
	if (s->prune_data_cols || s->npart == 0)
		return dl_error_set(DL_EINVALID, "the filter reads columns that are not partition columns");
	dl_add a;
	memset(&a, 0, sizeof a);
	a.partition_values = *partition_values;
	file_provider fp = {s, &a, {-1, NULL, NULL, NULL, NULL}};
	dl_stats_provider p = {-1, provider_column, &fp, provider_variant_path, NULL};
	DL_TRY(dl_expr_may_match(may, s->prune, &p));
	if (*may && s->prune_generated) DL_TRY(dl_expr_may_match(may, s->prune_generated, &p));
	return 0;
}

typedef struct prune_ctx {
	dl_scan *s;
	uint8_t *keep;      /* 0 pruned by partitions, 1 by stats, 2 kept */
} prune_ctx;

static int prune_range(void *ctx, size_t begin, size_t end)
{
	prune_ctx *pc = ctx;
	dl_scan *s = pc->s;
	const dl_log_state *st = dl_snapshot_state(s->snap);
	dl_file_skipping fs;
	memset(&fs, 0, sizeof fs);
	int rc = 0;
	for (size_t i = begin; i < end && rc == 0; i++) {
		const dl_add *add = dl_log_state_add(st, i);
		file_provider fp = {s, add, {-1, NULL, NULL, NULL, NULL}};
		dl_stats_provider p = {-1, provider_column, &fp, provider_variant_path, NULL};
		bool may = true;
		if (s->npart > 0) rc = dl_expr_may_match(&may, s->prune, &p);
		if (rc == 0 && may && s->prune_generated)
			rc = dl_expr_may_match(&may, s->prune_generated, &p);
		if (rc == 0 && !may) {
			pc->keep[i] = 0;
			continue;
		}
		if (rc == 0 && s->prune_data_cols && add->stats) {
			rc = dl_file_skipping_init(&fs, &fp.inner, dl_snapshot_schema(s->snap), s->mode,
			                           s->part_names, s->npart, add);
			p.num_records = fp.inner.num_records;
			if (rc == 0) rc = dl_expr_may_match(&may, s->prune, &p);
		}
		pc->keep[i] = may ? 2 : 1;
	}
	dl_file_skipping_free(&fs);
	return rc;
}

int dl_scan_plan_files(dl_scan *s)
{
	const dl_log_state *st = dl_snapshot_state(s->snap);
	size_t n = st->nadds;
	s->metrics.files_total = n;
	s->files = dl_calloc(n ? n : 1, sizeof *s->files);
	if (!s->files) return DL_ENOMEM;
	if (!s->prune) {
		for (size_t i = 0; i < n; i++) s->files[i] = i;
		s->nfiles = n;
		return 0;
	}
	prune_ctx pc = {s, dl_malloc(n ? n : 1)};
	if (!pc.keep) return DL_ENOMEM;
	int rc = n > 4096 ? dl_parallel_for(NULL, n, 2048, prune_range, &pc) : prune_range(&pc, 0, n);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		if (pc.keep[i] == 2) s->files[s->nfiles++] = i;
		else if (pc.keep[i] == 1) s->metrics.files_pruned_stats++;
		else s->metrics.files_pruned_partitions++;
	}
	dl_free(pc.keep);
	return rc;
}
