/* The definition of a table as a writer commits it: a validated schema,
 * partition columns, configuration, and the metaData and protocol actions
 * that follow from them. Shared by CREATE TABLE, writes that create a table,
 * create-or-replace and overwriteSchema. */
#ifndef DL_OPS_TABLE_DEF_H
#define DL_OPS_TABLE_DEF_H
#include "columnar/types.h"
#include "log/actions.h"
#include "log/properties.h"
#include "util/arena.h"

typedef struct dl_table_def {
	const dl_type *schema;                /* logical schema (a struct) */
	const char *const *partition_columns; /* resolved case-insensitively */
	int npartition_columns;
	dl_str_map configuration;             /* properties incl. delta.constraints.* */
	const char *name, *description;
	const char *table_id;                 /* kept by a replace; NULL: a new id */
	const dl_protocol *existing_protocol; /* never downgraded; NULL: new table */
	int64_t created_time;                 /* DL_NONE: now */
	/* Liquid clustering (CLUSTER BY): logical column names, validated as
	 * Spark does (optimize/clustering.h); the plan then carries the
	 * delta.clustering domain and the protocol the clustering and
	 * domainMetadata features. */
	const char *const *cluster_by;
	int ncluster_by;
} dl_table_def;

typedef struct dl_table_plan {
	dl_metadata metadata;                 /* strings in the plan's arena */
	dl_protocol protocol;
	dl_type *schema;                      /* final schema (column mapping keys added) */
	dl_column_mapping_mode mode;
	/* A clustered definition: the delta.clustering domain configuration
	 * ({"clusteringColumns":[["phys"],...]}) and operationParameters
	 * clusterBy (a JSON array of the logical names); both NULL otherwise. */
	const char *clustering_domain;
	const char *cluster_by_json;
} dl_table_plan;

/* Validates the definition and builds the actions (strings in `arena`).
 * DL_EINVALID / DL_ESCHEMA with a message naming the offending column,
 * property or constraint. Free with dl_table_plan_free. */
int dl_table_plan_build(dl_table_plan *out, dl_arena *arena, const dl_table_def *def);
void dl_table_plan_free(dl_table_plan *p);

/* Schema rules of every write: names unique case-insensitively at each
 * level; without column mapping no " ,;{}()\n\t=" in names. */
int dl_ops_validate_schema(const dl_type *schema, dl_column_mapping_mode mode);
/* CHECK constraints and generation expressions parse, bind to `schema`,
 * are deterministic and have the right type. */
int dl_ops_validate_expressions(const dl_type *schema, const dl_str_map *configuration);

#endif
