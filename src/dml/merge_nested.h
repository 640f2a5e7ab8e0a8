/* MERGE's nested struct fields (merge_nested.c): assignments to nested
 * fields, store assignment of structs by name, and schema evolution of
 * nested fields, as Spark's UpdateExpressionsSupport and
 * ResolveDeltaMergeInto. */
#ifndef DL_DML_MERGE_NESTED_H
#define DL_DML_MERGE_NESTED_H
#include "dml/merge_internal.h"

/* Splits a target column as the caller wrote it ("t.s.x", "`a.b`.c")
 * into name parts (in x->arena), the target alias dropped. */
int dl_mg_target_path(mg_exec *x, const char *col, char ***parts, int *np);

/* The target column type `t` evolved with the source column type `s` at
 * `path` (depth parts): fields of source structs the MERGE writes (every
 * one with a * clause, else those assigned or under an assignment) that
 * the target lacks are appended, recursively (inside arrays and maps
 * too). New reference in *out. */
int dl_mg_evolve_type(mg_exec *x, const dl_type *t, const dl_type *s, char **path, int depth,
                      dl_type **out);

/* c->set[w] = sql (naming the sides at/as allow) stored into column w of
 * the written schema; structs are stored by name (orig_sql: the target's
 * old value of the column whose target-only fields are kept, or NULL). */
int dl_mg_set_stored(mg_exec *x, mg_clause *c, int w, const char *sql, bool at, bool as,
                     const char *orig_sql, const char *what);

/* An UPDATE clause's explicit assignments, some of them to nested fields:
 * each assigned top-level column's struct rebuilt with the assigned fields
 * replaced. */
int dl_mg_update_nested(mg_exec *x, mg_clause *c, bool at, bool as, const char *what);

/* For an UPDATE clause: columns not assigned whose struct type evolved get
 * their old value stored into the evolved type. */
int dl_mg_evolved_defaults(mg_exec *x, mg_clause *c, const char *what);

#endif
