/* The catalog's state and its log on the store (rule: catalog_log.c). */
#ifndef DL_CATALOG_CATALOG_LOG_H
#define DL_CATALOG_CATALOG_LOG_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "deltalake/store.h"

#define DL_CAT_LOG_DIR "_catalog/_log"

typedef struct dl_cat_table {
	char *schema;
	char *name;
	char *entry_id;  /* this registration's id (a UUID): one incarnation of the name */
	char *location;  /* managed: relative to the warehouse; external: the URI */
	char *table_id;  /* the Delta metaData.id once active, else NULL */
	bool external;
	bool active;     /* false while being created */
} dl_cat_table;

typedef struct dl_cat_state {
	int64_t version; /* the last log version applied; -1: none */
	char **schemas;  /* besides `default`, which always exists */
	size_t nschemas, schemas_cap;
	dl_cat_table *tables;
	size_t ntables, tables_cap;
} dl_cat_state;

typedef enum dl_cat_op {
	DL_CAT_CREATE_SCHEMA,
	DL_CAT_DROP_SCHEMA,   /* with all its tables */
	DL_CAT_CREATE_TABLE,  /* reserved, not yet active */
	DL_CAT_ACTIVATE_TABLE,
	DL_CAT_DROP_TABLE,
	DL_CAT_RENAME_TABLE,  /* the active entry under a new name, same schema */
	DL_CAT_SET_LOCATION,  /* the active entry pointing at another Delta table */
} dl_cat_op;

/* One change: the content of one log version. Strings borrowed, and not
 * from the state it is applied to (applying a drop frees the entry's). */
typedef struct dl_cat_change {
	dl_cat_op op;
	const char *schema;
	const char *table;
	const char *entry_id;
	const char *location;
	const char *table_id;
	const char *to_table;  /* rename: the new name */
	bool external;
} dl_cat_change;

void dl_cat_state_init(dl_cat_state *st);
void dl_cat_state_free(dl_cat_state *st);
/* Applies the log versions after st->version. */
int dl_cat_refresh(dl_cat_state *st, dl_store *s);

bool dl_cat_has_schema(const dl_cat_state *st, const char *schema);
/* The entry of schema.name (active or not), or NULL. */
const dl_cat_table *dl_cat_find_table(const dl_cat_state *st, const char *schema,
                                      const char *name);

/* Decides the change to commit from the latest state: 0 with *out filled
 * to commit it, 1 when there is nothing to commit, or a negative error
 * (raised). Called again after each lost race, on the newer state. */
typedef int (*dl_cat_change_fn)(dl_cat_change *out, const dl_cat_state *st, void *payload);
/* Refreshes, asks `fn`, writes the next version with put-if-absent; on a
 * lost race refreshes and asks again. 0 committed (st includes it), 1
 * nothing to commit, or an error. */
int dl_cat_commit(dl_cat_state *st, dl_store *s, dl_cat_change_fn fn, void *payload);

#endif
