/* The catalog: schemas and named tables in a warehouse (docs/CATALOG.md).
 *
 *   dl_catalog *cat;
 *   dl_catalog_open(&cat, "/data/warehouse", NULL);
 *   dl_catalog_create_schema(cat, "sales", false);
 *
 *   dl_create_options c = DL_CREATE_OPTIONS_INIT;
 *   c.schema_ddl = "id BIGINT, amount DOUBLE";
 *   dl_catalog_table_options t = DL_CATALOG_TABLE_OPTIONS_INIT;
 *   t.create = &c;                          // managed: /data/warehouse/sales.db/orders
 *   int64_t v;
 *   dl_catalog_create_table(&v, cat, "sales.orders", &t);
 *
 *   char *uri;
 *   dl_catalog_table_uri(&uri, cat, "Sales.Orders");   // names ignore case
 *   ... dl_snapshot_open(&snap, uri, NULL) ...
 *   dl_free(uri);
 *   dl_catalog_drop_table(cat, "sales.orders", false); // deletes its data
 *   dl_catalog_free(cat);
 *
 * Layout as Spark's session catalog lays out a warehouse: managed tables of
 * the schema `default` at <warehouse>/<table>/, of any other schema at
 * <warehouse>/<schema>.db/<table>/. External tables keep their LOCATION.
 * The catalog itself is a log of changes under <warehouse>/_catalog/ (so
 * `_catalog` cannot name a table of `default`), each change one object
 * created with put-if-absent: two processes creating the same table race
 * for the same log version and exactly one wins; the other re-reads and
 * gets TABLE_OR_VIEW_ALREADY_EXISTS.
 *
 * Names are identifiers of letters, digits and '_' (Spark's rule for
 * session catalog names), compared case-insensitively and stored in lower
 * case; a table name is "table", "schema.table" or
 * "spark_catalog.schema.table", parts optionally in backquotes. Errors
 * carry Spark's error class in dl_error_last()->klass:
 * SCHEMA_NOT_FOUND, SCHEMA_ALREADY_EXISTS, SCHEMA_NOT_EMPTY,
 * TABLE_OR_VIEW_NOT_FOUND, TABLE_OR_VIEW_ALREADY_EXISTS,
 * INVALID_SCHEMA_OR_RELATION_NAME, REQUIRES_SINGLE_PART_NAMESPACE,
 * LOCATION_ALREADY_EXISTS, DELTA_CREATE_TABLE_WITH_NON_EMPTY_LOCATION,
 * DELTA_SCHEMA_NOT_PROVIDED.
 *
 * Thread safety: a dl_catalog handle is used by one thread at a time (it
 * caches the catalog's state and holds the current schema). Any number of
 * handles, in any number of threads and processes, may work on the same
 * warehouse at once: every change is validated against the latest state
 * and committed atomically. */
#ifndef DELTALAKE_CATALOG_H
#define DELTALAKE_CATALOG_H
#include "deltalake/common.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "deltalake/store.h"
#include "deltalake/write.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef struct dl_catalog dl_catalog;

#define DL_CATALOG_OPTIONS_VERSION 1
typedef struct dl_catalog_options {
	int version;     /* DL_CATALOG_OPTIONS_VERSION */
	/* The warehouse's store, borrowed (it must outlive the catalog): the
	 * catalog's log and managed tables' data go through it, and its root
	 * is the warehouse URI. NULL: a store is opened on warehouse_uri. */
	dl_store *store;
	/* Options of the stores the catalog opens: the warehouse's (without
	 * `store`) and each table's (managed and external), so credentials and
	 * endpoints reach every table. Borrowed: it must outlive the catalog.
	 * NULL: the defaults. */
	const dl_store_options *store_options;
} dl_catalog_options;
#define DL_CATALOG_OPTIONS_INIT {DL_CATALOG_OPTIONS_VERSION, NULL, NULL}

/* Opens the catalog of the warehouse at `warehouse_uri` (a path, file://
 * or mem:// URI; may be NULL when opts->store is given). Nothing is
 * written: an empty or missing warehouse is a catalog with only the
 * schema `default`. The current schema starts as `default`. opts NULL:
 * the defaults. */
DL_EXTERN(int) dl_catalog_open(dl_catalog **out, const char *warehouse_uri,
                               const dl_catalog_options *opts);
DL_EXTERN(void) dl_catalog_free(dl_catalog *c);
/* The warehouse URI (no trailing '/'). Borrowed. */
DL_EXTERN(const char *) dl_catalog_warehouse(const dl_catalog *c);

/* The warehouse a program uses, by the CLI's rule: `flag_value`
 * (--warehouse DIR) when not NULL or empty, else the environment variable
 * DELTALAKE_WAREHOUSE when set and not empty, else ./warehouse. A relative
 * path is made absolute against the working directory; URIs (scheme://)
 * are kept as given. *out is freed with dl_free. */
DL_EXTERN(int) dl_catalog_warehouse_resolve(char **out, const char *flag_value);

/* USE schema: later unqualified names resolve in it. SCHEMA_NOT_FOUND
 * when it does not exist. */
DL_EXTERN(int) dl_catalog_set_current_schema(dl_catalog *c, const char *schema);
/* The current schema (lower case). Borrowed, valid until the next USE. */
DL_EXTERN(const char *) dl_catalog_current_schema(const dl_catalog *c);

/* CREATE SCHEMA [IF NOT EXISTS]: SCHEMA_ALREADY_EXISTS (DL_EEXISTS) when
 * it exists, unless if_not_exists. */
DL_EXTERN(int) dl_catalog_create_schema(dl_catalog *c, const char *schema, bool if_not_exists);
/* DROP SCHEMA [IF EXISTS] [CASCADE]: SCHEMA_NOT_FOUND (DL_ENOTFOUND)
 * unless if_exists; SCHEMA_NOT_EMPTY (DL_EINVALID) when it has tables and
 * not cascade; with cascade its tables are dropped with it (managed
 * tables' data deleted). `default` cannot be dropped. A dropped current
 * schema leaves the current schema `default`. */
DL_EXTERN(int) dl_catalog_drop_schema(dl_catalog *c, const char *schema, bool if_exists,
                                      bool cascade);

typedef struct dl_catalog_name_list {
	char **names; /* sorted, lower case */
	size_t count;
} dl_catalog_name_list;
/* SHOW SCHEMAS: every schema, `default` included. */
DL_EXTERN(int) dl_catalog_list_schemas(dl_catalog_name_list *out, dl_catalog *c);
DL_EXTERN(void) dl_catalog_name_list_free(dl_catalog_name_list *l);

typedef enum dl_catalog_table_type {
	DL_CATALOG_MANAGED = 0,  /* data under the warehouse, deleted by DROP TABLE */
	DL_CATALOG_EXTERNAL = 1, /* data at its LOCATION, kept by DROP TABLE */
} dl_catalog_table_type;

typedef struct dl_catalog_table_info {
	char *schema;               /* lower case */
	char *name;                 /* lower case */
	dl_catalog_table_type type;
	char *uri;                  /* where the Delta table is */
	char *table_id;             /* the Delta table's metaData.id when registered */
} dl_catalog_table_info;
DL_EXTERN(void) dl_catalog_table_info_free(dl_catalog_table_info *i);

typedef struct dl_catalog_table_list {
	dl_catalog_table_info *items; /* sorted by name */
	size_t count;
} dl_catalog_table_list;
DL_EXTERN(void) dl_catalog_table_list_free(dl_catalog_table_list *l);

#define DL_CATALOG_TABLE_OPTIONS_VERSION 3
typedef struct dl_catalog_table_options {
	int version;            /* DL_CATALOG_TABLE_OPTIONS_VERSION */
	/* LOCATION of an external table (a path or URI; relative paths are
	 * taken against the working directory). NULL: a managed table. */
	const char *location;
	/* The Delta table to create (columns, partitioning, properties...);
	 * its mode must be DL_CREATE_ERROR_IF_EXISTS. NULL: register the Delta
	 * table that already exists at `location` (external tables only). */
	const dl_create_options *create;
	bool if_not_exists;     /* an existing name is not an error (*version -1) */
	/* since version 2: CREATE TABLE ... AS SELECT. The rows (consumed and
	 * released, also on failure) create the table in one commit through
	 * dl_write with `write` (its mode must be DL_WRITE_ERROR_IF_EXISTS;
	 * partition_by and properties as for a new table; NULL: defaults) and
	 * the schema of the data; `create` must be NULL then. A failure leaves
	 * no table and gives the name back. */
	struct ArrowArrayStream *data;
	const dl_write_options *write;
	/* since version 3: the Delta table is made by the caller's function
	 * at the table's URI (CREATE TABLE ... SHALLOW CLONE, which
	 * dl_shallow_clone commits): it commits version 0 there (*version) or
	 * fails leaving nothing; `create` and `data` must be NULL then. */
	int (*make)(int64_t *version, const char *uri, void *payload);
	void *make_payload;
} dl_catalog_table_options;
#define DL_CATALOG_TABLE_OPTIONS_INIT {DL_CATALOG_TABLE_OPTIONS_VERSION, NULL, NULL, false, NULL, NULL, NULL, NULL}

/* CREATE TABLE [IF NOT EXISTS] name ... [LOCATION loc]. The name is
 * reserved in the catalog first (exactly one of racing creates of one name
 * gets it; the others fail with TABLE_OR_VIEW_ALREADY_EXISTS, DL_EEXISTS),
 * then the Delta table is created (or, without `create`, the one at the
 * location is opened), then the entry is made visible with the table's id.
 * A failure after the reservation gives the name back and leaves no files
 * of its own. A managed table's directory must be empty
 * (LOCATION_ALREADY_EXISTS otherwise, as Spark). An external location
 * holding files but no Delta table is
 * DELTA_CREATE_TABLE_WITH_NON_EMPTY_LOCATION; no Delta table there and no
 * `create` is DELTA_SCHEMA_NOT_PROVIDED; giving `create` for a location
 * that already holds a Delta table is DL_EUNSUPPORTED (not supported yet:
 * register it without `create`). *version is the version created (0),
 * -1 when nothing was created (an existing table registered, or
 * if_not_exists found the name taken). */
DL_EXTERN(int) dl_catalog_create_table(int64_t *version, dl_catalog *c, const char *name,
                                       const dl_catalog_table_options *opts);
/* The table a name resolves to (unqualified names in the current schema).
 * TABLE_OR_VIEW_NOT_FOUND (DL_ENOTFOUND) when it does not exist or is
 * still being created. Free with dl_catalog_table_info_free. */
DL_EXTERN(int) dl_catalog_lookup_table(dl_catalog_table_info *out, dl_catalog *c,
                                       const char *name);
/* Just the URI of dl_catalog_lookup_table; free with dl_free. */
DL_EXTERN(int) dl_catalog_table_uri(char **uri, dl_catalog *c, const char *name);
/* SHOW TABLES [IN schema]: the tables of `schema` (NULL: the current one).
 * SCHEMA_NOT_FOUND when it does not exist. */
DL_EXTERN(int) dl_catalog_list_tables(dl_catalog_table_list *out, dl_catalog *c,
                                      const char *schema);
/* DROP TABLE [IF EXISTS]: the entry goes first (atomically: from then on
 * the name is free), then a managed table's files are deleted, those of
 * the Delta table the entry recorded (checked by its table id), so a
 * concurrent re-creation is never deleted. An external table's files are
 * kept. TABLE_OR_VIEW_NOT_FOUND unless if_exists. */
DL_EXTERN(int) dl_catalog_drop_table(dl_catalog *c, const char *name, bool if_exists);
/* ALTER TABLE name RENAME TO new_name: the entry moves to the new name in
 * one catalog change (its data, id and location stay as they are; see
 * docs/CATALOG.md). new_name unqualified or in the same schema
 * (_LEGACY_ERROR_TEMP_1073 otherwise, as Spark); a taken name is
 * TABLE_OR_VIEW_ALREADY_EXISTS (DL_EEXISTS), a missing one
 * TABLE_OR_VIEW_NOT_FOUND. */
DL_EXTERN(int) dl_catalog_rename_table(dl_catalog *c, const char *name, const char *new_name);
/* ALTER TABLE name SET LOCATION 'location': the entry points at the Delta
 * table there (made absolute) from then on; nothing is copied. The new
 * location must hold a Delta table (DELTA_MISSING_DELTA_TABLE) with the
 * same schema and partitioning (DELTA_SET_LOCATION_SCHEMA_MISMATCH), as
 * Spark's AlterTableSetLocationDeltaCommand. The table keeps its type: a
 * managed table's DROP then deletes the new location's table. */
DL_EXTERN(int) dl_catalog_set_table_location(dl_catalog *c, const char *name, const char *location);

#ifdef __cplusplus
}
#endif
#endif
