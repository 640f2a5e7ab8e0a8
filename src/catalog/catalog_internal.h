/* Shared by the catalog's files: the handle, names, error raising. */
#ifndef DL_CATALOG_CATALOG_INTERNAL_H
#define DL_CATALOG_CATALOG_INTERNAL_H
#include <stdbool.h>
#include "catalog/catalog_log.h"
#include "deltalake/catalog.h"

/* Longest schema or table name: a directory name with ".db" must fit the
 * usual 255-byte file name limit. */
#define DL_CAT_NAME_MAX 128

struct dl_catalog {
	dl_store *store;    /* the warehouse */
	bool own_store;
	const dl_store_options *store_options; /* for every store opened (borrowed) */
	char *root;         /* the warehouse URI, no trailing '/' */
	char current[DL_CAT_NAME_MAX + 1];
	dl_cat_state state; /* cached; refreshed by every operation */
};

/* A parsed, validated, lower-cased table name. */
typedef struct dl_cat_name {
	char schema[DL_CAT_NAME_MAX + 1];
	char table[DL_CAT_NAME_MAX + 1];
} dl_cat_name;

/* One identifier (optionally in backquotes) into out, lower case;
 * INVALID_SCHEMA_OR_RELATION_NAME when it is not [A-Za-z0-9_]+. */
int dl_cat_parse_ident(char out[DL_CAT_NAME_MAX + 1], const char *s, size_t n);
/* "t", "s.t" or "spark_catalog.s.t"; unqualified in `current`. */
int dl_cat_parse_name(dl_cat_name *out, const char *name, const char *current);

/* The managed location of a table, relative to the warehouse:
 * "<table>" in `default`, "<schema>.db/<table>" elsewhere. */
int dl_cat_managed_path(char **out, const char *schema, const char *table);
/* root + "/" + rel. */
int dl_cat_join(char **out, const char *root, const char *rel);
/* The URI of an entry's Delta table. */
int dl_cat_entry_uri(char **out, const dl_catalog *c, const dl_cat_table *t);

/* An external LOCATION made absolute (relative paths against the working
 * directory; URIs kept). */
int dl_cat_absolute_location(char **out, const char *p);

/* Deletes the files of a dropped managed table: only when its directory
 * still holds the Delta table the entry recorded (same table id). */
int dl_cat_delete_managed_data(dl_catalog *c, const dl_cat_table *t);
/* Opens the store of a table of the catalog, with the catalog's store options. */
int dl_cat_open_store(dl_store **out, const dl_catalog *c, const char *uri);

/* Spark's errors. */
int dl_cat_schema_not_found(const char *schema);
int dl_cat_table_not_found(const char *schema, const char *table);
int dl_cat_table_exists(const char *schema, const char *table);

#endif
