/* Validating a table definition and building its metaData and protocol
 * (see table_def.h). */
#include "ops/table_def.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "columnar/name_index.h"
#include "expr/expr.h"
#include "json/json.h"
#include "log/table_features.h"
#include "log/schema.h"
#include "ops/column_mapping.h"
#include "uniform/iceberg_nested_ids.h"
#include "uniform/uniform.h"
#include "ops/protocol_choose.h"
#include "optimize/clustering.h"
#include "log/protocol.h"
#include "rewrite/rewrite.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/time.h"
#include "util/uuid.h"

static int validate_level(const dl_type *t, dl_column_mapping_mode mode, int depth)
{
	if (depth > 256) return dl_error_set(DL_ESCHEMA, "the schema is nested too deeply");
	if (t->id == DL_TYPE_VARIANT) return 0;
	if (t->id == DL_TYPE_STRUCT) {
		dl_name_index ix;
		DL_TRY(dl_name_index_init(&ix, t));
		int j, i;
		bool dup = dl_name_index_duplicate(&ix, &j, &i);
		dl_name_index_free(&ix);
		if (dup)
			return dl_error_set(DL_ESCHEMA,
			                    "found duplicate column(s) in the schema: '%s' and '%s' "
			                    "(Delta column names are case-insensitive); rename one",
			                    t->children[j].name, t->children[i].name);
	}
	for (int i = 0; i < t->nchildren; i++) {
		const dl_field *f = &t->children[i];
		if (t->id == DL_TYPE_STRUCT) {
			if (!f->name[0]) return dl_error_set(DL_ESCHEMA, "a column name is empty");
			if (mode == DL_CM_NONE && strpbrk(f->name, " ,;{}()\n\t="))
				return dl_error_set(DL_ESCHEMA,
				                    "column name '%s' contains one of \" ,;{}()\\n\\t=\", which "
				                    "Parquet column names cannot hold; rename it or enable "
				                    "column mapping (delta.columnMapping.mode = name)",
				                    f->name);
		}
		DL_TRY(validate_level(f->type, mode, depth + 1));
	}
	return 0;
}

int dl_ops_validate_schema(const dl_type *schema, dl_column_mapping_mode mode)
{
	if (!schema || schema->id != DL_TYPE_STRUCT)
		return dl_error_set(DL_ESCHEMA, "a table schema must be a struct of columns");
	if (schema->nchildren == 0)
		return dl_error_set(DL_ESCHEMA, "a table needs at least one column");
	return validate_level(schema, mode, 0);
}

/* Parses and binds an expression of a constraint or generated column. */
static int bind_checked(dl_expr **out, const char *sql, const dl_type *schema, const char *what)
{
	int rc = dl_expr_parse(out, sql);
	if (rc == 0) rc = dl_expr_bind(*out, schema);
	if (rc < 0) {
		dl_expr_free(*out);
		*out = NULL;
		return dl_error_prefix("%s", what);
	}
	if (!dl_expr_is_deterministic(*out)) {
		dl_expr_free(*out);
		*out = NULL;
		return dl_error_set(DL_EINVALID, "%s: '%s' is not deterministic", what, sql);
	}
	return 0;
}

typedef struct gen_ref {
	const dl_type *schema;
	const char *column;
	int rc;
} gen_ref;

static int check_gen_ref(const char *const *path, int depth, void *payload)
{
	gen_ref *g = payload;
	(void)depth;
	int i = dl_schema_find(g->schema, path[0]);
	if (i < 0) return 0;
	const dl_field *f = &g->schema->children[i];
	if (strcasecmp(f->name, g->column) == 0 || (f->metadata &&
	                                            strstr(f->metadata, DL_GENERATION_EXPRESSION_KEY)))
		return g->rc = dl_error_set(DL_EINVALID,
		                            "generated column %s cannot refer to itself or to another "
		                            "generated column (%s)",
		                            g->column, f->name);
	return 0;
}

static int check_constraint(const char *name, const char *expression, void *payload)
{
	const dl_type *schema = payload;
	dl_expr *e;
	char what[300];
	snprintf(what, sizeof what, "CHECK constraint %s", name);
	DL_TRY(bind_checked(&e, expression, schema, what));
	bool ok = dl_expr_type(e)->id == DL_TYPE_BOOLEAN;
	dl_expr_free(e);
	if (!ok)
		return dl_error_set(DL_EINVALID, "CHECK constraint %s: '%s' is not a boolean expression",
		                    name, expression);
	return 0;
}

int dl_ops_validate_expressions(const dl_type *schema, const dl_str_map *configuration)
{
	DL_TRY(dl_table_constraints_each(configuration, check_constraint, (void *)schema));
	dl_arena a = DL_ARENA_INIT;
	int rc = 0;
	for (int i = 0; i < schema->nchildren && rc == 0; i++) {
		const dl_field *f = &schema->children[i];
		const char *gen = NULL, *def = NULL;
		rc = dl_field_generation_expression(f, &a, &gen);
		if (rc == 0) rc = dl_field_default_expression(f, &a, &def);
		char what[300];
		dl_expr *e = NULL;
		if (rc == 0 && gen) {
			snprintf(what, sizeof what, "generated column %s", f->name);
			rc = bind_checked(&e, gen, schema, what);
			gen_ref g = {schema, f->name, 0};
			if (rc == 0) rc = dl_expr_columns(e, check_gen_ref, &g);
			if (rc == 0) rc = g.rc;
			dl_expr_free(e);
			e = NULL;
		}
		if (rc == 0 && def) {
			snprintf(what, sizeof what, "default value of column %s", f->name);
			/* Defaults are constants: bound against an empty schema. */
			dl_type *none = dl_type_struct(NULL, 0);
			rc = none ? dl_expr_parse(&e, def) : DL_ENOMEM;
			if (rc == 0) rc = dl_expr_bind(e, none);
			if (rc < 0) rc = dl_error_prefix("%s", what);
			dl_expr_free(e);
			dl_type_unref(none);
		}
	}
	dl_arena_free(&a);
	return rc;
}

static int resolve_partitions(dl_table_plan *p, dl_arena *arena, const dl_table_def *def)
{
	const dl_type *s = p->schema;
	p->metadata.partition_columns =
		dl_arena_calloc(arena, (size_t)def->npartition_columns + 1, sizeof(char *));
	if (!p->metadata.partition_columns) return DL_ENOMEM;
	for (int i = 0; i < def->npartition_columns; i++) {
		int k = dl_schema_find(s, def->partition_columns[i]);
		if (k < 0)
			return dl_error_set(DL_ESCHEMA, "partition column %s is not a column of the schema",
			                    def->partition_columns[i]);
		const dl_field *f = &s->children[k];
		if (!dl_type_is_primitive(f->type) || f->type->id == DL_TYPE_NULL)
			return dl_error_set(DL_ESCHEMA,
			                    "partition column %s has type %s; partition columns must be "
			                    "of a primitive type",
			                    f->name, dl_type_id_name(f->type->id));
		dl_identity_info id;
		DL_TRY(dl_field_identity(f, &id));
		if (id.is_identity)
			return dl_error_set_class(DL_ESCHEMA, "DELTA_IDENTITY_COLUMNS_PARTITION_NOT_SUPPORTED",
			                          "[DELTA_IDENTITY_COLUMNS_PARTITION_NOT_SUPPORTED] PARTITIONED BY IDENTITY "
			                          "column %s is not supported.",
			                          f->name);
		for (int j = 0; j < i; j++)
			if (strcasecmp(p->metadata.partition_columns[j], f->name) == 0)
				return dl_error_set(DL_ESCHEMA, "partition column %s is given twice", f->name);
		p->metadata.partition_columns[i] = f->name;
	}
	if (def->npartition_columns && def->npartition_columns >= s->nchildren)
		return dl_error_set(DL_ESCHEMA,
		                    "cannot use all columns for partition columns: a table needs at "
		                    "least one data column");
	p->metadata.npartition_columns = (uint32_t)def->npartition_columns;
	return 0;
}

/* The configuration to store: protocol-only keys dropped, maxColumnId set. */
static int build_configuration(dl_table_plan *p, dl_arena *arena, const dl_str_map *in,
                               int64_t max_id)
{
	dl_kv *items = dl_arena_calloc(arena, (size_t)in->n + 1, sizeof *items);
	if (!items) return DL_ENOMEM;
	uint32_t n = 0;
	bool has_max = false;
	for (uint32_t i = 0; i < in->n; i++) {
		if (dl_ops_is_protocol_property(in->items[i].key)) continue;
		items[n] = in->items[i];
		if (strcmp(items[n].key, "delta.columnMapping.maxColumnId") == 0) {
			has_max = true;
			if (p->mode != DL_CM_NONE) {
				char num[24];
				snprintf(num, sizeof num, "%lld", (long long)max_id);
				items[n].value = dl_arena_strdup(arena, num);
				if (!items[n].value) return DL_ENOMEM;
			}
		}
		n++;
	}
	if (p->mode != DL_CM_NONE && !has_max) {
		char num[24];
		snprintf(num, sizeof num, "%lld", (long long)max_id);
		items[n].key = "delta.columnMapping.maxColumnId";
		items[n].value = dl_arena_strdup(arena, num);
		if (!items[n++].value) return DL_ENOMEM;
	}
	p->metadata.configuration.items = items;
	p->metadata.configuration.n = n;
	return 0;
}

static int plan_schema(dl_table_plan *p, const dl_table_def *def, int64_t *max_id)
{
	if (p->mode == DL_CM_NONE) {
		p->schema = dl_type_ref((dl_type *)def->schema);
		return 0;
	}
	bool found;
	const char *m = dl_str_map_get(&def->configuration, "delta.columnMapping.maxColumnId", &found);
	*max_id = m ? strtoll(m, NULL, 10) : 0;
	DL_TRY(dl_cm_assign(&p->schema, def->schema, max_id));
	if (!dl_ice_compat_v2_enabled(&def->configuration)) return 0;
	/* Files written with the table (CTAS) carry the nested ids too. */
	dl_type *nested;
	bool changed;
	DL_TRY(dl_ice_assign_nested_ids(&nested, p->schema, max_id, &changed));
	dl_type_unref(p->schema);
	p->schema = nested;
	return 0;
}

/* CLUSTER BY (Spark's ClusteredTableUtils): the user may not ask for the
 * clustering feature through TBLPROPERTIES, with or without CLUSTER BY
 * (validateExistingTableFeatureProperties); the columns are resolved
 * against the final schema (physical names under column mapping), checked
 * (count, partitioning, statistics) and recorded as the delta.clustering
 * domain; the feature is then asked for as Spark's
 * getTableFeatureProperties does (delta.feature.clustering = supported),
 * which brings domainMetadata with it. *config is the configuration the
 * protocol is chosen from. */
static int plan_clustering(dl_table_plan *p, dl_arena *arena, const dl_table_def *def,
                           const dl_table_properties *props, dl_str_map *config)
{
	*config = def->configuration;
	for (uint32_t i = 0; i < def->configuration.n; i++)
		if (strcasecmp(def->configuration.items[i].key, "delta.feature.clustering") == 0)
			return dl_error_set_class(DL_EINVALID,
			                          "DELTA_CREATE_TABLE_SET_CLUSTERING_TABLE_FEATURE_NOT_ALLOWED",
			                          "Cannot enable clustering table feature using TBLPROPERTIES. "
			                          "Please use CREATE OR REPLACE TABLE CLUSTER BY to create a Delta "
			                          "table with clustering.");
	if (def->ncluster_by < 0 || (def->ncluster_by > 0 && !def->cluster_by))
		return dl_error_set(DL_EINVALID, "cluster_by: %d columns given without names", def->ncluster_by);
	if (def->ncluster_by == 0) return 0;
	dl_clustering c;
	memset(&c, 0, sizeof c);
	int rc = dl_clustering_resolve(&c, def->cluster_by, def->ncluster_by, p->schema, p->mode);
	if (rc == 0)
		rc = dl_clustering_validate(&c, p->schema, props, def->partition_columns,
		                            def->npartition_columns);
	dl_buf dom = DL_BUF_INIT, names = DL_BUF_INIT;
	if (rc == 0) rc = dl_clustering_domain_json(&dom, &c);
	if (rc == 0) {
		dl_json_writer w;
		dl_jw_init(&w, &names);
		dl_jw_array_begin(&w);
		for (int i = 0; i < c.n; i++) dl_jw_string(&w, c.cols[i].name);
		dl_jw_array_end(&w);
		rc = dl_jw_finish(&w);
	}
	if (rc == 0) {
		p->clustering_domain = dl_arena_strdup(arena, dom.data ? dom.data : "");
		p->cluster_by_json = dl_arena_strdup(arena, names.data ? names.data : "[]");
		if (!p->clustering_domain || !p->cluster_by_json) rc = DL_ENOMEM;
	}
	dl_buf_free(&dom);
	dl_buf_free(&names);
	dl_clustering_free(&c);
	DL_TRY(rc);
	dl_kv *items = dl_arena_calloc(arena, (size_t)config->n + 1, sizeof *items);
	if (!items) return DL_ENOMEM;
	if (config->n) memcpy(items, config->items, config->n * sizeof *items);
	items[config->n].key = "delta.feature.clustering";
	items[config->n].value = "supported";
	config->items = items;
	config->n++;
	return 0;
}

int dl_table_plan_build(dl_table_plan *p, dl_arena *arena, const dl_table_def *def)
{
	memset(p, 0, sizeof *p);
	/* UniForm Iceberg needs column mapping: turned on when not asked for. */
	dl_table_def with_cm = *def;
	bool cm_added;
	DL_TRY(dl_uniform_required_properties(&with_cm.configuration, arena, &def->configuration, &cm_added));
	def = &with_cm;
	dl_table_properties props;
	DL_TRY(dl_table_properties_parse(&props, &def->configuration, true));
	p->mode = props.column_mapping_mode;
	DL_TRY(dl_ops_validate_schema(def->schema, p->mode));
	int64_t max_id = 0;
	DL_TRY(plan_schema(p, def, &max_id));
	DL_TRY(dl_ops_validate_expressions(p->schema, &def->configuration));
	DL_TRY(resolve_partitions(p, arena, def));
	DL_TRY(build_configuration(p, arena, &def->configuration, max_id));
	dl_str_map config;
	DL_TRY(plan_clustering(p, arena, def, &props, &config));
	DL_TRY(dl_ops_choose_protocol(&p->protocol, arena, p->schema, &config, def->existing_protocol));
	/* Spark names the materialized row-tracking columns whenever the
	 * protocol supports row tracking (a replaced table keeps its names). */
	bool named;
	DL_TRY(dl_rewrite_row_tracking_names(&p->metadata.configuration, &named, arena,
	                                     &p->metadata.configuration,
	                                     dl_protocol_has(&p->protocol, DL_FEATURE_ROW_TRACKING)));
	dl_buf sj = DL_BUF_INIT;
	int rc = dl_schema_to_json(&sj, p->schema);
	p->metadata.schema_string = rc == 0 ? dl_arena_strdup(arena, sj.data) : NULL;
	dl_buf_free(&sj);
	if (rc < 0) return rc;
	if (!p->metadata.schema_string) return DL_ENOMEM;
	char id[DL_UUID_TEXT_LEN + 1];
	if (!def->table_id) DL_TRY(dl_uuid_v4(id));
	p->metadata.id = dl_arena_strdup(arena, def->table_id ? def->table_id : id);
	p->metadata.name = def->name ? dl_arena_strdup(arena, def->name) : NULL;
	p->metadata.description = def->description ? dl_arena_strdup(arena, def->description) : NULL;
	p->metadata.format_provider = "parquet";
	p->metadata.created_time = def->created_time != DL_NONE ? def->created_time : dl_now_millis();
	if (!p->metadata.id) return DL_ENOMEM;
	return 0;
}

void dl_table_plan_free(dl_table_plan *p)
{
	dl_type_unref(p->schema);
	p->schema = NULL;
}
