/* CONVERT TO DELTA parquet.`dir` (Spark's ConvertToDeltaCommand): version
 * 0 of a Delta table written in place over a directory of Parquet files.
 *
 * The steps, as Spark takes them:
 *  1. A directory that already is a Delta table is left alone (version -1).
 *  2. Every file under the directory is listed, except hidden ones: a file
 *     whose name starts with '_' or '.', anything under a directory whose
 *     name starts with '.', or with '_' unless it is a partition directory
 *     ("_c=1": ConvertUtils.hiddenDirNameFilter). No file at all is
 *     DELTA_EMPTY_DIRECTORY.
 *  3. With PARTITIONED BY, each file's directories must be the partition
 *     columns in order ("c1=v/c2=w/"): a different count is
 *     DELTA_UNEXPECTED_NUM_PARTITION_COLUMNS_FROM_FILE_NAME, another name
 *     DELTA_UNEXPECTED_PARTITION_COLUMN_FROM_FILE_NAME, a value that does
 *     not cast to the column's type DELTA_FAILED_CAST_PARTITION_VALUE.
 *     Values are unescaped; __HIVE_DEFAULT_PARTITION__ is null. Without
 *     PARTITIONED BY directories are not interpreted (as Spark).
 *  4. The footers are read on the pool: the schemas are merged
 *     (convert_schema.c), partition columns the data lacks are appended,
 *     and unless NO STATISTICS each file gets stats from its footer.
 *  5. One commit, version 0: protocol for the schema, metaData (new id,
 *     format parquet, no configuration), one add per file (dataChange
 *     true, the listed size and mtime), commitInfo CONVERT with
 *     numFiles, partitionedBy, collectStats, sourceFormat and metric
 *     numConvertedFiles. The put-if-absent of 0.json is the only step that
 *     makes the table, so a failure or a kill leaves the directory as it
 *     was, readable as plain Parquet. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "deltalake/maintenance.h"
#include "expr/expr.h"
#include "json/json.h"
#include "log/partition_values.h"
#include "log/properties.h"
#include "log/schema.h"
#include "log/snapshot.h"
#include "maint/convert_internal.h"
#include "maint/restore_clone.h"
#include "ops/create.h"
#include "ops/ddl.h"
#include "ops/protocol_choose.h"
#include "txn/txn.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/options.h"
#include "util/pool.h"
#include "util/time.h"
#include "util/uuid.h"

static const size_t convert_options_ends[] = {sizeof(dl_convert_options)};
DL_OPTIONS_ENDS_CHECK(convert_options_ends, DL_CONVERT_OPTIONS_VERSION);

#define OP "CONVERT"
#define PROGRESS "convert"

typedef struct conv_file {
	const char *path;          /* relative to the root, decoded */
	int64_t size, mtime;
	const char **part_values;  /* one per partition column (NULL: null) */
	dl_convert_footer footer;
} conv_file;

typedef struct convert_cmd {
	dl_convert_options o;
	dl_store *store;
	bool owns_store;
	dl_arena arena;
	dl_type *part_schema;      /* PARTITIONED BY, or NULL */
	conv_file *files;
	size_t nfiles;
	dl_object_list listing;
	bool stats;
	int indexed_cols;
} convert_cmd;

/* ---- listing ---- */

/* ConvertUtils' hidden file and directory filters over a relative path. */
static bool hidden(const char *path)
{
	const char *seg = path;
	for (;;) {
		const char *slash = strchr(seg, '/');
		if (!slash) return seg[0] == '_' || seg[0] == '.';
		size_t n = (size_t)(slash - seg);
		if (n && (seg[0] == '.' || (seg[0] == '_' && !memchr(seg, '=', n)))) return true;
		seg = slash + 1;
	}
}

static int partition_error_num(convert_cmd *c, const char *path, int found, const char *found_cols)
{
	dl_buf exp = DL_BUF_INIT;
	dl_buf_putc(&exp, '[');
	for (int i = 0; i < c->part_schema->nchildren; i++)
		dl_buf_printf(&exp, "%s%s", i ? ", " : "", c->part_schema->children[i].name);
	dl_buf_putc(&exp, ']');
	int rc = dl_error_set_class(DL_EINVALID, "DELTA_UNEXPECTED_NUM_PARTITION_COLUMNS_FROM_FILE_NAME",
	                            "[DELTA_UNEXPECTED_NUM_PARTITION_COLUMNS_FROM_FILE_NAME] Expecting %d "
	                            "partition column(s): %s, but found %d partition column(s): [%s] from "
	                            "parsing the file name: %s",
	                            c->part_schema->nchildren, exp.data ? (const char *)exp.data : "[]", found,
	                            found_cols, path);
	dl_buf_free(&exp);
	return rc;
}

/* The partition values of a file from its directories (step 3). */
static int partition_values(convert_cmd *c, conv_file *f)
{
	int np = c->part_schema ? c->part_schema->nchildren : 0;
	if (np == 0) return 0;
	/* the "k=v" directory segments */
	const char *segs[256];
	size_t lens[256];
	int n = 0;
	dl_buf found = DL_BUF_INIT;
	for (const char *s = f->path;;) {
		const char *slash = strchr(s, '/');
		if (!slash) break;
		const char *eq = memchr(s, '=', (size_t)(slash - s));
		if (eq && n < 256) {
			segs[n] = s;
			lens[n] = (size_t)(slash - s);
			dl_buf_printf(&found, "%s%.*s", n ? ", " : "", (int)(eq - s), s);
			n++;
		}
		s = slash + 1;
	}
	if (n != np) {
		int rc = partition_error_num(c, f->path, n, found.data ? (const char *)found.data : "");
		dl_buf_free(&found);
		return rc;
	}
	dl_buf_free(&found);
	f->part_values = dl_arena_calloc(&c->arena, (size_t)np, sizeof *f->part_values);
	if (!f->part_values) return DL_ENOMEM;
	dl_buf name = DL_BUF_INIT, value = DL_BUF_INIT;
	int rc = 0;
	for (int i = 0; i < np && rc == 0; i++) {
		const char *eq = memchr(segs[i], '=', lens[i]);
		dl_buf_clear(&name);
		dl_buf_clear(&value);
		rc = dl_partition_path_unescape(&name, segs[i], (size_t)(eq - segs[i]));
		if (rc == 0) rc = dl_partition_path_unescape(&value, eq + 1, lens[i] - (size_t)(eq - segs[i]) - 1);
		if (rc < 0) break;
		const dl_field *pf = &c->part_schema->children[i];
		const char *nm = name.data ? (const char *)name.data : "";
		if (strcasecmp(nm, pf->name) != 0) {
			rc = dl_error_set_class(DL_EINVALID, "DELTA_UNEXPECTED_PARTITION_COLUMN_FROM_FILE_NAME",
			                        "[DELTA_UNEXPECTED_PARTITION_COLUMN_FROM_FILE_NAME] Expecting partition "
			                        "column %s, but found partition column %s from parsing the file name: %s",
			                        pf->name, nm, f->path);
			break;
		}
		const char *v = value.data ? (const char *)value.data : "";
		if (!*v) {
			/* Spark's PartitionUtils: assert(rawColumnValue.nonEmpty) */
			rc = dl_error_set(DL_EINVALID, "Empty partition column value in '%.*s' (file %s)", (int)lens[i],
			                  segs[i], f->path);
			break;
		}
		if (strcmp(v, DL_HIVE_DEFAULT_PARTITION) == 0) {
			f->part_values[i] = NULL;
			continue;
		}
		dl_scalar sc;
		if (dl_partition_value_parse(&sc, pf->type, v) < 0) {
			char tn[128];
			dl_type_sql(pf->type, tn, sizeof tn);
			rc = dl_error_set_class(DL_EINVALID, "DELTA_FAILED_CAST_PARTITION_VALUE",
			                        "[DELTA_FAILED_CAST_PARTITION_VALUE] Failed to cast partition value `%s` "
			                        "to %s (file %s)",
			                        v, tn, f->path);
			break;
		}
		if (!(f->part_values[i] = dl_arena_strdup(&c->arena, v))) rc = DL_ENOMEM;
	}
	dl_buf_free(&name);
	dl_buf_free(&value);
	return rc;
}

/* The same rule for a directory: any hidden segment. */
static bool hidden_dir(const char *rel)
{
	for (const char *seg = rel; *seg;) {
		const char *slash = strchr(seg, '/');
		size_t n = slash ? (size_t)(slash - seg) : strlen(seg);
		if (n && (seg[0] == '.' || (seg[0] == '_' && !memchr(seg, '=', n)))) return true;
		if (!slash) break;
		seg = slash + 1;
	}
	return false;
}

static int list_files(convert_cmd *c)
{
	DL_TRY(dl_maint_progress(c->o.progress, c->o.progress_payload, PROGRESS, "listing", "files", 0, -1));
	dl_pool *pool = NULL;
	if (c->o.threads > 0) DL_TRY(dl_pool_create(&pool, c->o.threads));
	int rc = dl_convert_list(&c->listing, c->store, pool, hidden_dir);
	if (pool) dl_pool_free(pool);
	if (rc == DL_ENOTFOUND) {
		return dl_error_set_class(DL_ENOTFOUND, "DELTA_PATH_DOES_NOT_EXIST",
		                          "[DELTA_PATH_DOES_NOT_EXIST] %s doesn't exist", dl_store_root(c->store));
	}
	if (rc < 0) return rc;
	c->files = dl_calloc(c->listing.count ? c->listing.count : 1, sizeof *c->files);
	if (!c->files) return DL_ENOMEM;
	for (size_t i = 0; i < c->listing.count; i++) {
		const dl_object_info *o = &c->listing.items[i];
		if (hidden(o->path)) continue;
		conv_file *f = &c->files[c->nfiles++];
		f->path = o->path;
		f->size = o->size;
		f->mtime = o->mtime_ms;
		DL_TRY(partition_values(c, f));
	}
	if (c->nfiles == 0)
		return dl_error_set_class(DL_ENOTFOUND, "DELTA_EMPTY_DIRECTORY",
		                          "[DELTA_EMPTY_DIRECTORY] No file found in the directory: %s.",
		                          dl_store_root(c->store));
	return 0;
}

/* ---- footers, in parallel ---- */

static int read_footers(void *ctx, size_t begin, size_t end)
{
	convert_cmd *c = ctx;
	for (size_t i = begin; i < end; i++) {
		conv_file *f = &c->files[i];
		DL_TRY(dl_convert_read_footer(&f->footer, c->store, f->path, f->size, c->stats, c->indexed_cols));
	}
	return 0;
}

static int footers(convert_cmd *c)
{
	dl_pool *pool = NULL;
	bool own = false;
	if (c->o.threads > 0) {
		DL_TRY(dl_pool_create(&pool, c->o.threads));
		own = true;
	}
	/* rounds of 1024 files (chunks of 16 on the pool), with a progress
	 * report between rounds on this thread (the callback must not run on
	 * the pool) */
	int rc = 0;
	size_t step = 1024;
	for (size_t done = 0; done < c->nfiles && rc == 0; done += step) {
		size_t n = c->nfiles - done < step ? c->nfiles - done : step;
		rc = dl_maint_progress(c->o.progress, c->o.progress_payload, PROGRESS, "footers", "files",
		                       (int64_t)done, (int64_t)c->nfiles);
		if (rc == 0) {
			convert_cmd sub = *c;
			sub.files = c->files + done;
			rc = dl_parallel_for(pool, n, 16, read_footers, &sub);
		}
	}
	if (own) dl_pool_free(pool);
	return rc;
}

/* ---- the table ---- */

static int table_schema(dl_type **out, convert_cmd *c)
{
	*out = NULL;
	dl_type *acc = NULL;
	const char *acc_file = NULL;
	for (size_t i = 0; i < c->nfiles; i++) {
		int rc = dl_convert_merge_schema(&acc, c->files[i].footer.schema, acc_file ? acc_file : c->files[i].path,
		                                 c->files[i].path);
		if (rc < 0) {
			if (acc) dl_type_unref(acc);
			return rc;
		}
		if (!acc_file) acc_file = c->files[i].path;
	}
	/* constructTableSchema: partition columns the data lacks go last */
	int np = c->part_schema ? c->part_schema->nchildren : 0;
	dl_field *f = dl_calloc((size_t)acc->nchildren + (size_t)np + 1, sizeof *f);
	if (!f) {
		dl_type_unref(acc);
		return DL_ENOMEM;
	}
	int n = 0;
	for (int i = 0; i < acc->nchildren; i++) f[n++] = acc->children[i];
	for (int i = 0; i < np; i++) {
		if (dl_type_field_index(acc, c->part_schema->children[i].name) >= 0) continue;
		f[n] = c->part_schema->children[i];
		f[n].nullable = true;
		f[n].metadata = NULL;
		n++;
	}
	*out = dl_type_struct(f, n);
	dl_free(f);
	dl_type_unref(acc);
	return *out ? 0 : DL_ENOMEM;
}

static int partition_names(const char ***names, uint32_t *n, convert_cmd *c, const dl_type *schema)
{
	*names = NULL;
	*n = 0;
	if (!c->part_schema) return 0;
	int np = c->part_schema->nchildren;
	*names = dl_arena_calloc(&c->arena, (size_t)np + 1, sizeof **names);
	if (!*names) return DL_ENOMEM;
	for (int i = 0; i < np; i++) {
		/* the table's spelling of the column */
		int j = dl_type_field_index(schema, c->part_schema->children[i].name);
		(*names)[i] = schema->children[j].name;
	}
	*n = (uint32_t)np;
	return 0;
}

static int commit(convert_cmd *c, dl_convert_metrics *m)
{
	dl_type *schema;
	DL_TRY(table_schema(&schema, c));
	dl_buf sj = DL_BUF_INIT, pj = DL_BUF_INIT;
	dl_transaction *t = NULL;
	int rc = dl_schema_to_json(&sj, schema);
	if (rc == 0) rc = dl_buf_putc(&sj, 0);
	dl_metadata md;
	memset(&md, 0, sizeof md);
	char id[DL_UUID_TEXT_LEN + 1];
	if (rc == 0) rc = dl_uuid_v4(id);
	md.id = id;
	md.format_provider = "parquet";
	md.schema_string = (const char *)sj.data;
	md.created_time = dl_now_millis();
	if (rc == 0) rc = partition_names(&md.partition_columns, &md.npartition_columns, c, schema);
	dl_protocol proto;
	if (rc == 0) rc = dl_ops_choose_protocol(&proto, &c->arena, schema, &md.configuration, NULL);
	dl_txn_options to = DL_TXN_OPTIONS_INIT;
	to.operation = OP;
	to.user_metadata = c->o.user_metadata;
	if (rc == 0) rc = dl_txn_begin(&t, c->store, NULL, &to);
	if (rc == 0) rc = dl_txn_set_protocol(t, &proto);
	if (rc == 0) rc = dl_txn_set_metadata(t, &md);
	uint32_t np = md.npartition_columns;
	dl_kv *pv = np ? dl_arena_calloc(&c->arena, np, sizeof *pv) : NULL;
	if (rc == 0 && np && !pv) rc = DL_ENOMEM;
	for (size_t i = 0; i < c->nfiles && rc == 0; i++) {
		conv_file *f = &c->files[i];
		dl_add a;
		memset(&a, 0, sizeof a);
		a.path = f->path;
		for (uint32_t k = 0; k < np; k++) pv[k] = (dl_kv){md.partition_columns[k], f->part_values[k]};
		a.partition_values = (dl_str_map){pv, np};
		a.size = f->size;
		a.modification_time = f->mtime;
		a.data_change = true;
		a.stats = f->footer.stats;
		a.stats_len = f->footer.stats ? (uint32_t)strlen(f->footer.stats) : 0;
		a.base_row_id = DL_NONE;
		a.default_row_commit_version = DL_NONE;
		rc = dl_txn_add_file(t, &a);
	}
	/* DeltaOperations.Convert */
	char num[32];
	snprintf(num, sizeof num, "%zu", c->nfiles);
	if (rc == 0) rc = dl_txn_set_parameter_json(t, "numFiles", num);
	if (rc == 0) rc = dl_ops_partition_by_json(&pj, md.partition_columns, np);
	if (rc == 0) rc = dl_buf_putc(&pj, 0);
	if (rc == 0) rc = dl_txn_set_parameter(t, "partitionedBy", (const char *)pj.data);
	if (rc == 0) rc = dl_txn_set_parameter_json(t, "collectStats", c->stats ? "true" : "false");
	if (rc == 0) rc = dl_txn_set_parameter(t, "sourceFormat", "parquet");
	if (rc == 0) rc = dl_txn_set_metric(t, "numConvertedFiles", (int64_t)c->nfiles);
	if (rc == 0)
		rc = dl_maint_progress(c->o.progress, c->o.progress_payload, PROGRESS, "committing", "files",
		                       (int64_t)c->nfiles, (int64_t)c->nfiles);
	if (rc == 0) rc = dl_txn_commit(t, &m->version);
	if (rc == 0) m->numConvertedFiles = (int64_t)c->nfiles;
	dl_txn_free(t);
	dl_buf_free(&sj);
	dl_buf_free(&pj);
	dl_type_unref(schema);
	return rc;
}

static int run(convert_cmd *c, dl_convert_metrics *m, const char *uri)
{
	DL_TRY(dl_maint_store(&c->store, &c->owns_store, c->o.store, c->o.store_options, uri, "CONVERT TO DELTA"));
	dl_snapshot *existing = NULL;
	DL_TRY(dl_ops_open_latest(&existing, c->store));
	if (existing) {
		/* ConvertToDeltaCommand: "The table you are trying to convert is
		 * already a delta table" -- nothing to do */
		dl_snapshot_free(existing);
		return 0;
	}
	if (c->o.partition_schema_ddl && *c->o.partition_schema_ddl) {
		int rc = dl_ddl_parse_schema(&c->part_schema, c->o.partition_schema_ddl);
		if (rc < 0) return dl_error_prefix("CONVERT TO DELTA: PARTITIONED BY (%s)", c->o.partition_schema_ddl);
	}
	dl_table_properties props;
	dl_table_properties_defaults(&props);
	c->stats = !c->o.no_statistics;
	c->indexed_cols = props.data_skipping_num_indexed_cols;
	DL_TRY(list_files(c));
	DL_TRY(footers(c));
	return commit(c, m);
}

int dl_convert_to_delta(dl_convert_metrics *metrics, const char *uri, const dl_convert_options *opts)
{
	if (!metrics) return dl_error_set(DL_EINVALID, "dl_convert_to_delta: metrics missing");
	metrics->version = -1;
	metrics->numConvertedFiles = 0;
	convert_cmd c;
	memset(&c, 0, sizeof c);
	dl_convert_options d = DL_CONVERT_OPTIONS_INIT;
	c.o = d;
	DL_TRY(dl_options_load(&c.o, opts, convert_options_ends, DL_CONVERT_OPTIONS_VERSION, "dl_convert_options",
	                       "DL_CONVERT_OPTIONS_INIT"));
	c.arena = (dl_arena)DL_ARENA_INIT;
	int rc = run(&c, metrics, uri);
	if (rc < 0) {
		metrics->version = -1;
		metrics->numConvertedFiles = 0;
	}
	for (size_t i = 0; i < c.nfiles; i++) dl_convert_footer_free(&c.files[i].footer);
	dl_free(c.files);
	dl_object_list_free(&c.listing);
	if (c.part_schema) dl_type_unref(c.part_schema);
	dl_arena_free(&c.arena);
	if (c.owns_store) dl_store_free(c.store);
	return rc;
}
