/* Liquid clustering's table state (Spark's ClusteredTableUtils,
 * ClusteringColumn, ClusteringMetadataDomain): the clustering columns of a
 * table live in the `delta.clustering` domain metadata as
 *
 *   {"clusteringColumns":[["a"],["s","b"]]}
 *
 * one array of PHYSICAL name parts per column (the names data files and
 * stats use, so renames under column mapping keep the clustering). A table
 * is clustered when that domain is present, even with an empty list
 * (CLUSTER BY NONE keeps the domain with []). Files written by clustering
 * carry add.clusteringProvider = "liquid".
 *
 * Validation follows Spark: at most 4 columns
 * (DELTA_CLUSTER_BY_INVALID_NUM_COLUMNS), each must exist
 * (DELTA_COLUMN_NOT_FOUND_IN_SCHEMA) and be a column whose min/max stats the
 * table collects: within delta.dataSkippingNumIndexedCols or named by
 * delta.dataSkippingStatsColumns, and of a skipping-eligible type (numbers,
 * decimal, string, date, timestamps; not boolean, binary, struct, array,
 * map, variant): DELTA_CLUSTERING_COLUMN_MISSING_STATS. Clustering and
 * partitioning exclude each other (DELTA_CLUSTER_BY_WITH_PARTITIONED_BY). */
#ifndef DL_OPTIMIZE_CLUSTERING_H
#define DL_OPTIMIZE_CLUSTERING_H
#include <stdbool.h>
#include "columnar/types.h"
#include "deltalake/snapshot.h"
#include "log/properties.h"
#include "util/buf.h"

#define DL_CLUSTERING_DOMAIN "delta.clustering"
#define DL_CLUSTERING_PROVIDER "liquid"
#define DL_CLUSTERING_MAX_COLUMNS 4
/* The domain of a clustered table without columns (CLUSTER BY NONE, a
 * REPLACE without CLUSTER BY): ClusteringMetadataDomain(Seq()) as JSON */
#define DL_CLUSTERING_NO_COLUMNS "{\"clusteringColumns\":[]}" /* spark.databricks.delta.clustering.numClusteringColumnsLimit */

typedef struct dl_clustering_column {
	char **physical;   /* name parts as the domain stores them */
	char **logical;    /* the same parts with the schema's logical names */
	int nparts;
	char *name;        /* logical name as Spark prints it: a.b, `x y`.c */
	const dl_type *type; /* the leaf's type (borrowed from the schema) */
} dl_clustering_column;

typedef struct dl_clustering {
	dl_clustering_column *cols;
	int n;
} dl_clustering;

void dl_clustering_free(dl_clustering *c);

/* The clustering of a snapshot: *present false (and c empty) when the table
 * has no delta.clustering domain. Physical names are resolved against the
 * snapshot's schema; DL_ECORRUPT naming the version when the domain is not
 * the JSON above or names a column the schema lacks. */
int dl_clustering_from_snapshot(dl_clustering *out, bool *present, const dl_snapshot *snap);

/* The same from a domain configuration text, a logical schema and the
 * column mapping mode (for callers holding metadata not yet committed). */
int dl_clustering_parse(dl_clustering *out, const char *configuration, const dl_type *schema,
                        dl_column_mapping_mode mode);

/* Resolves logical column names ("a", "s.b", "`x.y`") against `schema`:
 * the columns in the order given. DL_EINVALID DELTA_COLUMN_NOT_FOUND_IN_SCHEMA
 * for a name the schema lacks (case-insensitive match as Spark's resolver);
 * DL_EINVALID DELTA_DUPLICATE_COLUMNS_FOUND for a column named twice. */
int dl_clustering_resolve(dl_clustering *out, const char *const *names, int n,
                          const dl_type *schema, dl_column_mapping_mode mode);

/* The domain configuration JSON for `c` (appended to out). */
int dl_clustering_domain_json(dl_buf *out, const dl_clustering *c);

/* Spark's checks for CLUSTER BY (create, replace, ALTER TABLE CLUSTER BY)
 * with the table's properties and partition columns as they will be. */
int dl_clustering_validate(const dl_clustering *c, const dl_type *schema,
                           const dl_table_properties *props, const char *const *partition_columns,
                           int npartition_columns);

/* Whether statistics (min/max) are collected for the column at logical
 * path parts[0..n): the test behind DELTA_CLUSTERING_COLUMN_MISSING_STATS and
 * Z-order's DELTA_ZORDERING_ON_COLUMN_WITHOUT_STATS. */
bool dl_column_has_stats(const dl_type *schema, const dl_table_properties *props,
                         const char *const *partition_columns, int npartition_columns,
                         const char *const *parts, int n);

/* Splits a column reference into name parts as Spark's FieldReference does:
 * '.' separates parts outside backquotes; `` inside backquotes is one `.
 * The parts are malloc'd (free each and the array). DL_EINVALID for an
 * unterminated quote or an empty part. */
int dl_column_name_split(char ***parts, int *n, const char *name);
/* The inverse: parts joined with '.', each backquoted when it is not a plain
 * identifier (letters, digits, underscores, not starting with a digit). */
int dl_column_name_join(dl_buf *out, const char *const *parts, int n);

/* Spark's StructType.treeString of `schema` ("root\n |-- a: integer
 * (nullable = true)\n"), as the clustering and Z-order errors print it. */
int dl_schema_tree_string(dl_buf *out, const dl_type *schema);

#endif
