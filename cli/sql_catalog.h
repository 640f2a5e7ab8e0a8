/* The warehouse as completion sees it: SHOW TABLES, SHOW SCHEMAS and
 * DESCRIBE run on the shell's connection, their answers kept until the
 * next statement runs (which may create or drop tables). */
#ifndef DL_CLI_SQL_CATALOG_H
#define DL_CLI_SQL_CATALOG_H
#include "sql_complete.h"

typedef struct sql_catalog_cache sql_catalog_cache;

int sql_catalog_cache_new(sql_catalog_cache **out, sql_session *s);
void sql_catalog_cache_free(sql_catalog_cache *c);
/* The callbacks of completion over c (which must outlive them). */
void sql_catalog_of(sql_catalog *out, sql_catalog_cache *c);

#endif
