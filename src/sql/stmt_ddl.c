/* CREATE [OR REPLACE] TABLE, CREATE/DROP SCHEMA, DROP TABLE, USE: the
 * catalog (deltalake/catalog.h) and the create path (deltalake/write.h).
 * Column definitions go to dl_create_options as Spark DDL text, the one
 * column grammar of the write path (ops/ddl.c): NOT NULL, GENERATED ALWAYS
 * AS, IDENTITY, DEFAULT and COMMENT become Delta's field metadata there. */
#include "sql/session_internal.h"
#include "expr/ast.h"
#include "log/schema.h"
#include "log/snapshot.h"
#include "optimize/clustering.h"
#include "sql/print.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int sql_column_defs_ddl(dl_buf *out, const sql_column_def *cols, int n)
{
	for (int i = 0; i < n; i++) {
		const sql_column_def *c = &cols[i];
		if (i) DL_TRY(dl_buf_puts(out, ", "));
		if (c->name.nparts != 1)
			return dl_error_set_class(DL_EINVALID, "INVALID_COLUMN_NAME", "a column of CREATE TABLE needs a plain name");
		DL_TRY(sqlp_ident(out, c->name.parts[0]));
		if (!c->type) return dl_error_set(DL_EINVALID, "column %s has no type", c->name.parts[0]);
		DL_TRY(sqlp_column_clauses(out, c));
	}
	return dl_buf_putc(out, 0);
}

/* The last part of a schema name (spark_catalog.s -> s). */
static const char *schema_part(const sql_name *n)
{
	return n->nparts ? n->parts[n->nparts - 1] : "";
}

/* COMMENT and DBPROPERTIES of a schema are accepted and not kept (the
 * catalog records names only); a LOCATION would move its tables' data,
 * which the catalog's layout does not do: refused. */
int sql_run_create_schema(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	if (st->location)
		return dl_error_set(DL_EUNSUPPORTED, "CREATE SCHEMA ... LOCATION is not supported yet: managed tables of "
		                                     "schema s live under <warehouse>/s.db/");
	DL_TRY(dl_catalog_create_schema(c->cat, schema_part(&st->schema), st->if_not_exists));
	return sql_empty_result(out);
}

int sql_run_drop_schema(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	DL_TRY(dl_catalog_drop_schema(c->cat, schema_part(&st->schema), st->if_exists, st->cascade));
	return sql_empty_result(out);
}

int sql_run_use(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	DL_TRY(dl_catalog_set_current_schema(c->cat, schema_part(&st->schema)));
	return sql_empty_result(out);
}

int sql_run_drop_table(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	if (st->table->kind != TREF_NAME)
		return dl_error_set_class(DL_EUNSUPPORTED, "UNSUPPORTED_FEATURE.TABLE_OPERATION",
		                          "[UNSUPPORTED_FEATURE.TABLE_OPERATION] DROP TABLE takes a catalog table; a table "
		                          "given by its path is removed by deleting its directory");
	char *name = NULL;
	DL_TRY(sql_ref_name(&name, st->table));
	int rc = dl_catalog_drop_table(c->cat, name, st->if_exists);
	dl_free(name);
	DL_TRY(rc);
	return sql_empty_result(out);
}

/* The create options of a statement; text lives in *ddl, keys/values in
 * the statement's tree. */
typedef struct create_def {
	dl_create_options o;
	dl_buf ddl;
	const char **parts;
	const char **keys, **values;
	char **cluster;       /* CLUSTER BY names as text ("a", "s.b", "`x.y`") */
	int ncluster;
} create_def;

static void create_def_free(create_def *d)
{
	for (int i = 0; i < d->ncluster; i++) dl_free(d->cluster[i]);
	dl_free(d->cluster);
	dl_buf_free(&d->ddl);
	dl_free(d->parts);
	dl_free(d->keys);
	dl_free(d->values);
}

/* A boolean setting as an override: -1 unset (the table decides). */
static int tri_setting(const dl_sql_conn *c, const char *key)
{
	const char *v = sql_setting_get(c, key);
	if (!v) return -1;
	return strcasecmp(v, "true") == 0 ? 1 : 0;
}

void sql_write_auto_optimize(dl_write_options *wo, const dl_sql_conn *c)
{
	wo->auto_compact = tri_setting(c, "spark.databricks.delta.autoCompact.enabled");
	wo->optimize_write = tri_setting(c, "spark.databricks.delta.optimizeWrite.enabled");
	/* a bytes conf in MiB units: "512", "64m", "1g", "300k", "4096b" */
	const char *bin = sql_setting_get(c, "spark.databricks.delta.optimizeWrite.binSize");
	if (bin) {
		char *end;
		long long n = strtoll(bin, &end, 10);
		while (*end == ' ') end++;
		int64_t unit = INT64_C(1) << 20;
		if (*end == 'b' || *end == 'B') unit = 1;
		else if (*end == 'k' || *end == 'K') unit = INT64_C(1) << 10;
		else if (*end == 'g' || *end == 'G') unit = INT64_C(1) << 30;
		if (n > 0 && end != bin) wo->optimize_write_bin_size = (int64_t)n * unit;
	}
}

/* CLUSTER BY (a, s.b): each multi-part name as the text the create path
 * resolves (parts joined by '.', backquoted when needed). */
static int create_def_cluster(create_def *d, const sql_stmt *st)
{
	if (st->cluster_none)
		return dl_error_set_class(DL_EINVALID, "PARSE_SYNTAX_ERROR",
		                          "[PARSE_SYNTAX_ERROR] Syntax error at or near 'NONE': CLUSTER BY NONE is a "
		                          "form of ALTER TABLE; CREATE TABLE takes CLUSTER BY (columns)");
	if (!st->ncluster) return 0;
	if (!(d->cluster = dl_calloc((size_t)st->ncluster, sizeof *d->cluster))) return DL_ENOMEM;
	for (int i = 0; i < st->ncluster; i++) {
		dl_buf b = DL_BUF_INIT;
		int rc = dl_column_name_join(&b, (const char *const *)st->cluster_cols[i].parts,
		                             st->cluster_cols[i].nparts);
		if (rc == 0) rc = dl_buf_putc(&b, 0);
		if (rc < 0) {
			dl_buf_free(&b);
			return rc;
		}
		d->cluster[d->ncluster++] = dl_buf_detach(&b, NULL);
	}
	d->o.cluster_by = (const char *const *)d->cluster;
	d->o.ncluster_by = d->ncluster;
	return 0;
}

/* like: CREATE TABLE t LIKE src (its schema, partitioning, properties
 * and description; the statement's TBLPROPERTIES and COMMENT win).
 * Strings are borrowed from the snapshot, which must outlive d. */
static int create_def_init(create_def *d, const sql_stmt *st, const dl_snapshot *like)
{
	memset(d, 0, sizeof *d);
	d->o = (dl_create_options)DL_CREATE_OPTIONS_INIT;
	if (like) {
		d->o.schema_json = dl_snapshot_schema_json(like);
		size_t np = dl_snapshot_partition_column_count(like), nk = dl_snapshot_property_count(like);
		d->parts = dl_calloc(np + 1, sizeof *d->parts);
		d->keys = dl_calloc(nk + (size_t)st->nprops + 1, sizeof *d->keys);
		d->values = dl_calloc(nk + (size_t)st->nprops + 1, sizeof *d->values);
		if (!d->parts || !d->keys || !d->values) return DL_ENOMEM;
		for (size_t i = 0; i < np; i++) d->parts[i] = dl_snapshot_partition_column(like, i);
		d->o.partition_columns = d->parts;
		d->o.npartition_columns = (int)np;
		int n = 0;
		for (size_t i = 0; i < nk; i++) {
			const char *k, *v;
			dl_snapshot_property_at(&k, &v, like, i);
			bool given = false;
			for (int j = 0; j < st->nprops && !given; j++) given = strcmp(st->props[j].key, k) == 0;
			if (!given) d->keys[n] = k, d->values[n++] = v;
		}
		for (int j = 0; j < st->nprops; j++)
			d->keys[n] = st->props[j].key, d->values[n++] = st->props[j].value ? st->props[j].value : "";
		d->o.property_keys = d->keys;
		d->o.property_values = d->values;
		d->o.nproperties = n;
		d->o.description = st->comment ? st->comment : dl_snapshot_table_description(like);
		return 0;
	}
	if (st->ncols) {
		DL_TRY(sql_column_defs_ddl(&d->ddl, st->cols, st->ncols));
		d->o.schema_ddl = (const char *)d->ddl.data;
	}
	if (st->npart) {
		if (!(d->parts = dl_calloc((size_t)st->npart, sizeof *d->parts))) return DL_ENOMEM;
		for (int i = 0; i < st->npart; i++) {
			if (st->part_cols[i].nparts != 1)
				return dl_error_set_class(DL_EINVALID, "DELTA_INVALID_PARTITION_COLUMN",
				                          "[DELTA_INVALID_PARTITION_COLUMN] a partition column must be a top-level "
				                          "column");
			d->parts[i] = st->part_cols[i].parts[0];
		}
		d->o.partition_columns = d->parts;
		d->o.npartition_columns = st->npart;
	}
	if (st->nprops) {
		d->keys = dl_calloc((size_t)st->nprops, sizeof *d->keys);
		d->values = dl_calloc((size_t)st->nprops, sizeof *d->values);
		if (!d->keys || !d->values) return DL_ENOMEM;
		for (int i = 0; i < st->nprops; i++) {
			d->keys[i] = st->props[i].key;
			d->values[i] = st->props[i].value ? st->props[i].value : "";
		}
		d->o.property_keys = d->keys;
		d->o.property_values = d->values;
		d->o.nproperties = st->nprops;
	}
	d->o.description = st->comment;
	return create_def_cluster(d, st);
}

/* CREATE [OR REPLACE] TABLE ... AS SELECT: the table and its rows in one
 * commit. A new table is created by the write (dl_write, or the catalog
 * with the rows); an existing one (OR REPLACE) is overwritten with the
 * query's schema (overwrite_schema), its history kept. The query is
 * planned only when rows are to be written (IF NOT EXISTS on an existing
 * table runs nothing). */
static int ctas_rows(struct ArrowArrayStream *out, dl_sql_conn *c, const sql_stmt *st)
{
	sql_env env;
	sql_session_env(&env, c);
	dl_batch_stream *q = NULL;
	DL_TRY(sql_plan_query(&q, &env, st->query));
	return dl_batch_stream_export(out, q);
}

static int run_ctas(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	create_def d;
	DL_TRY(create_def_init(&d, st, NULL));
	dl_write_options wo = DL_WRITE_OPTIONS_INIT;
	wo.partition_by = d.o.partition_columns;
	wo.npartition_by = d.o.npartition_columns;
	wo.property_keys = d.o.property_keys;
	wo.property_values = d.o.property_values;
	wo.nproperties = d.o.nproperties;
	wo.cluster_by = d.o.cluster_by;
	wo.ncluster_by = d.o.ncluster_by;
	sql_write_auto_optimize(&wo, c);
	wo.store_options = c->store_options;
	wo.description = st->comment;
	char *name = NULL;
	char *uri = NULL;
	bool exists = false;
	bool info_external = false; /* an existing catalog table's type */
	int rc = 0;
	if (st->table->kind == TREF_PATH) {
		if (strcmp(st->table->format, "delta") != 0)
			rc = dl_error_set_class(DL_EUNSUPPORTED, "UNSUPPORTED_DATASOURCE",
			                        "[UNSUPPORTED_DATASOURCE] CREATE TABLE %s.`...`: only delta.`path` tables are "
			                        "created",
			                        st->table->format);
		if (rc == 0 && !(uri = dl_strdup(st->table->path))) rc = DL_ENOMEM;
		dl_snapshot *snap = NULL;
		dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
		so.metadata_only = true;
		so.store_options = c->store_options;
		if (rc == 0) {
			int sr = dl_snapshot_open(&snap, uri, &so);
			if (sr == 0) exists = true;
			else if (sr != DL_ENOTFOUND) rc = sr;
			dl_snapshot_free(snap);
		}
		if (rc == 0 && exists && !st->or_replace && !st->replace_only && !st->if_not_exists)
			rc = dl_error_set_class(DL_EEXISTS, "DELTA_TABLE_ALREADY_EXISTS",
			                        "[DELTA_TABLE_ALREADY_EXISTS] Table delta.`%s` already exists.", uri);
	} else {
		rc = sql_ref_name(&name, st->table);
		dl_catalog_table_info info;
		int lr = rc == 0 ? dl_catalog_lookup_table(&info, c->cat, name) : rc;
		if (lr == 0) {
			exists = true;
			info_external = info.type == DL_CATALOG_EXTERNAL;
			if (!(uri = dl_strdup(info.uri))) rc = DL_ENOMEM;
			dl_catalog_table_info_free(&info);
			if (rc == 0 && !st->or_replace && !st->replace_only && !st->if_not_exists)
				rc = dl_error_set_class(DL_EEXISTS, "TABLE_OR_VIEW_ALREADY_EXISTS",
				                        "[TABLE_OR_VIEW_ALREADY_EXISTS] Cannot create table or view %s because it "
				                        "already exists.",
				                        name);
		} else if (lr != DL_ENOTFOUND) {
			rc = lr;
		}
	}
	if (rc == 0 && !exists && st->replace_only)
		rc = dl_error_set_class(DL_ENOTFOUND, "DELTA_CANNOT_REPLACE_MISSING_TABLE",
		                        "[DELTA_CANNOT_REPLACE_MISSING_TABLE] Table %s cannot be replaced as it does not "
		                        "exist. Use CREATE OR REPLACE TABLE to create the table.",
		                        name ? name : uri);
	if (rc == 0 && exists && (st->or_replace || st->replace_only) && (d.o.nproperties || st->location))
		rc = dl_error_set(DL_EUNSUPPORTED, "CREATE OR REPLACE TABLE ... %s ... AS SELECT on an existing table is "
		                                   "not supported yet",
		                  st->location ? "LOCATION" : "TBLPROPERTIES");
	struct ArrowArrayStream rows;
	memset(&rows, 0, sizeof rows);
	int64_t version = -1;
	if (rc == 0 && exists && st->if_not_exists && !st->or_replace) {
		/* nothing to do */
	} else if (rc == 0 && exists) {
		wo.mode = DL_WRITE_OVERWRITE;
		wo.overwrite_schema = true;
		wo.create_operation = st->replace_only ? "REPLACE TABLE AS SELECT" : "CREATE OR REPLACE TABLE AS SELECT";
		wo.is_managed = st->table->kind != TREF_PATH && !info_external;
		if ((rc = ctas_rows(&rows, c, st)) == 0) rc = dl_write(&version, uri, &rows, &wo);
	} else if (rc == 0 && st->table->kind == TREF_PATH) {
		wo.mode = DL_WRITE_ERROR_IF_EXISTS;
		wo.create_operation = "CREATE TABLE AS SELECT";
		if ((rc = ctas_rows(&rows, c, st)) == 0) rc = dl_write(&version, uri, &rows, &wo);
	} else if (rc == 0) {
		dl_catalog_table_options to = DL_CATALOG_TABLE_OPTIONS_INIT;
		to.location = st->location;
		to.if_not_exists = st->if_not_exists;
		wo.mode = DL_WRITE_ERROR_IF_EXISTS;
		wo.create_operation = "CREATE TABLE AS SELECT";
		wo.is_managed = !st->location;
		wo.store_options = NULL;
		to.write = &wo;
		if ((rc = ctas_rows(&rows, c, st)) == 0) {
			to.data = &rows;
			rc = dl_catalog_create_table(&version, c->cat, name, &to);
		}
	}
	if (rows.release) rows.release(&rows);
	dl_free(name);
	dl_free(uri);
	create_def_free(&d);
	DL_TRY(rc);
	return sql_empty_result(out);
}

int sql_run_create_table(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	if (st->using && strcmp(st->using, "delta") != 0)
		return dl_error_set_class(DL_EUNSUPPORTED, "UNSUPPORTED_DATASOURCE",
		                          "[UNSUPPORTED_DATASOURCE] CREATE TABLE ... USING %s: only Delta tables are created "
		                          "(USING DELTA)",
		                          st->using);
	if (st->ncluster && st->npart)
		return dl_error_set_class(DL_EINVALID, "DELTA_CLUSTER_BY_WITH_PARTITIONED_BY",
		                          "Clustering and partitioning cannot both be specified. Please remove "
		                          "PARTITIONED BY if you want to create a Delta table with clustering.");
	if (st->query && st->ncols)
		return dl_error_set_class(DL_EINVALID, "_LEGACY_ERROR_TEMP_0035",
		                          "[_LEGACY_ERROR_TEMP_0035] Operation not allowed: Schema may not be specified in a "
		                          "Create Table As Select (CTAS) statement.");
	if (st->query) return run_ctas(out, c, st);
	dl_snapshot *like = NULL;
	sql_target lt;
	memset(&lt, 0, sizeof lt);
	if (st->like) {
		if (st->npart || st->ncols)
			return dl_error_set_class(DL_EINVALID, "PARSE_SYNTAX_ERROR",
			                          "CREATE TABLE ... LIKE takes its columns and partitioning from the source");
		DL_TRY(sql_target_snapshot(&like, &lt, c, st->source, true));
	}
	create_def d;
	int rc = create_def_init(&d, st, like);
	bool have_schema = st->ncols || like;
	int64_t version = -1;
	char *uri = NULL;
	if (rc == 0 && st->table->kind == TREF_PATH) {
		if (strcmp(st->table->format, "delta") != 0)
			rc = dl_error_set_class(DL_EUNSUPPORTED, "UNSUPPORTED_DATASOURCE",
			                        "[UNSUPPORTED_DATASOURCE] CREATE TABLE %s.`...`: only delta.`path` tables are "
			                        "created",
			                        st->table->format);
		else if (!have_schema)
			rc = dl_error_set_class(DL_EINVALID, "DELTA_SCHEMA_NOT_PROVIDED",
			                        "[DELTA_SCHEMA_NOT_PROVIDED] Table schema is not provided. Please provide the "
			                        "schema (column definition) of the table when using REPLACE table and an AS "
			                        "SELECT query is not provided.");
		else {
			d.o.mode = st->or_replace ? DL_CREATE_OR_REPLACE
			           : st->if_not_exists ? DL_CREATE_IF_NOT_EXISTS
			                               : DL_CREATE_ERROR_IF_EXISTS;
			d.o.store_options = c->store_options;
			rc = dl_create_table(&version, st->table->path, &d.o);
			if (rc == DL_EEXISTS)
				rc = dl_error_set_class(DL_EEXISTS, "DELTA_TABLE_ALREADY_EXISTS",
				                        "[DELTA_TABLE_ALREADY_EXISTS] Table delta.`%s` already exists.",
				                        st->table->path);
			if (rc == 0 && !(uri = dl_strdup(st->table->path))) rc = DL_ENOMEM;
		}
	} else if (rc == 0) {
		char *name = NULL;
		rc = sql_ref_name(&name, st->table);
		dl_catalog_table_info info;
		memset(&info, 0, sizeof info);
		bool exists = false;
		if (rc == 0 && (st->or_replace || st->replace_only)) {
			int lr = dl_catalog_lookup_table(&info, c->cat, name);
			if (lr == 0) exists = true;
			else if (lr != DL_ENOTFOUND) rc = lr;
			if (rc == 0 && !exists && st->replace_only)
				rc = dl_error_set_class(DL_ENOTFOUND, "DELTA_CANNOT_REPLACE_MISSING_TABLE",
				                        "[DELTA_CANNOT_REPLACE_MISSING_TABLE] Table %s cannot be replaced as it does "
				                        "not exist. Use CREATE OR REPLACE TABLE to create the table.",
				                        name);
		}
		if (rc == 0 && exists) {
			/* a new version of the table in place: schema, properties and
			 * data replaced, the history kept (Delta's REPLACE) */
			if (!have_schema)
				rc = dl_error_set_class(DL_EINVALID, "DELTA_SCHEMA_NOT_PROVIDED",
				                        "[DELTA_SCHEMA_NOT_PROVIDED] Table schema is not provided. Please provide the "
				                        "schema (column definition) of the table when using REPLACE table and an AS "
				                        "SELECT query is not provided.");
			if (rc == 0 && st->location)
				rc = dl_error_set(DL_EUNSUPPORTED, "CREATE OR REPLACE TABLE %s LOCATION: changing a catalog table's "
				                                   "location is not supported yet",
				                  name);
			d.o.mode = DL_CREATE_OR_REPLACE;
			d.o.store_options = c->store_options;
			if (rc == 0) rc = dl_create_table(&version, info.uri, &d.o);
			if (rc == 0 && !(uri = dl_strdup(info.uri))) rc = DL_ENOMEM;
		} else if (rc == 0 && !have_schema && !st->location) {
			rc = dl_error_set_class(DL_EINVALID, "DELTA_SCHEMA_NOT_PROVIDED",
			                        "[DELTA_SCHEMA_NOT_PROVIDED] Table schema is not provided. Please provide the "
			                        "schema (column definition) of the table when using REPLACE table and an AS "
			                        "SELECT query is not provided.");
		} else if (rc == 0) {
			dl_catalog_table_options to = DL_CATALOG_TABLE_OPTIONS_INIT;
			to.location = st->location;
			to.create = have_schema ? &d.o : NULL;
			to.if_not_exists = st->if_not_exists;
			rc = dl_catalog_create_table(&version, c->cat, name, &to);
			if (rc == 0 && version >= 0) {
				dl_catalog_table_info ni;
				if ((rc = dl_catalog_lookup_table(&ni, c->cat, name)) == 0) {
					if (!(uri = dl_strdup(ni.uri))) rc = DL_ENOMEM;
					dl_catalog_table_info_free(&ni);
				}
			}
		}
		if (exists) dl_catalog_table_info_free(&info);
		dl_free(name);
	}
	create_def_free(&d);
	dl_free(uri);
	dl_snapshot_free(like);
	sql_target_free(&lt);
	DL_TRY(rc);
	return sql_empty_result(out);
}
