/* The statement tree of the SQL layer. Every node, string and expression of
 * a script lives in the script's one arena (the dl_expr that owns the
 * expression nodes), so a binder walks plain pointers and frees nothing.
 * Names keep their spelling (unquoted, case as written); resolving them
 * against the catalog is the binder's job. */
#ifndef DL_SQL_AST_H
#define DL_SQL_AST_H
#include "expr/ast.h"
#include <stdbool.h>
#include <stdint.h>

typedef struct sql_query sql_query;
typedef struct sql_table_ref sql_table_ref;

/* A possibly qualified name: schema.table, or a column path a.b.c. */
typedef struct sql_name {
	char **parts;
	int nparts;
} sql_name;

typedef enum sql_tt_kind { TT_NONE, TT_VERSION, TT_TIMESTAMP } sql_tt_kind;
typedef struct sql_time_travel {
	sql_tt_kind kind;
	ex_node *value; /* the version (integer literal) or timestamp expression */
} sql_time_travel;

typedef enum sql_tref_kind {
	TREF_NAME,     /* catalog name */
	TREF_PATH,     /* format.`path`: delta, parquet, csv, json */
	TREF_FUNCTION, /* table_changes('t', 1, 5) */
	TREF_QUERY,    /* ( query ) */
	TREF_JOIN,
} sql_tref_kind;

typedef enum sql_join_kind {
	JOIN_INNER,
	JOIN_LEFT,
	JOIN_RIGHT,
	JOIN_FULL,
	JOIN_CROSS,
	JOIN_LEFT_SEMI,
	JOIN_LEFT_ANTI,
	JOIN_COMMA, /* FROM a, b: a cross join written as a list */
} sql_join_kind;

struct sql_table_ref {
	sql_tref_kind kind;
	int pos;
	sql_name name;          /* TREF_NAME */
	const char *format;     /* TREF_PATH, lower case */
	const char *path;       /* TREF_PATH */
	sql_time_travel tt;     /* TREF_NAME, TREF_PATH */
	const char *function;   /* TREF_FUNCTION, lower case */
	ex_node **args;
	int nargs;
	sql_query *query;       /* TREF_QUERY */
	sql_join_kind join;     /* TREF_JOIN: left JOIN right ON on | USING (using) */
	bool natural;
	sql_table_ref *left, *right;
	ex_node *on;
	char **using_cols;
	int nusing;
	const char *alias;      /* any kind but TREF_JOIN */
	char **alias_cols;
	int nalias_cols;
};

typedef struct sql_select_item {
	ex_node *expr;    /* NULL for a star */
	bool star;        /* * or qual.* */
	sql_name qual;    /* the qualifier of qual.* */
	const char *alias;
} sql_select_item;

typedef struct sql_select {
	bool distinct;
	sql_select_item *items;
	int nitems;
	sql_table_ref *from; /* NULL without FROM; joins form a left-deep tree */
	ex_node *where;
	ex_node **group_by; /* an integer literal is an ordinal */
	int ngroup;
	/* GROUPING SETS, ROLLUP, CUBE (and WITH ROLLUP / WITH CUBE): the sets
	 * as lists of indexes into group_by, in Spark's order (the cross
	 * product of the GROUP BY elements); ngsets == 0 for a plain GROUP BY,
	 * whose only set is every key. group_by holds each expression as often
	 * as it is written; the planner merges equal ones. */
	int **gsets;
	int *gset_len;
	int ngsets;
	ex_node *having;
} sql_select;

typedef struct sql_cte {
	const char *name;
	char **cols;
	int ncols;
	sql_query *query;
} sql_cte;

typedef enum sql_query_kind { Q_SELECT, Q_VALUES, Q_UNION, Q_INTERSECT, Q_EXCEPT } sql_query_kind;

/* A query expression. Set operations bind left to right, INTERSECT
 * tighter than UNION and EXCEPT, as in Spark. ORDER BY / LIMIT / OFFSET
 * belong to the query they follow (the whole set operation). */
struct sql_query {
	sql_query_kind kind;
	int pos;
	sql_cte *ctes;
	int nctes;
	sql_select *select;   /* Q_SELECT */
	ex_node ***rows;      /* Q_VALUES: rows[i][0..rowlen[i]) */
	int *rowlen;
	int nrows;
	bool all;             /* set operations: UNION ALL... */
	sql_query *left, *right;
	ex_sort_item *order_by;
	int norder;
	ex_node *limit;
	ex_node *offset;
};

typedef struct sql_prop {
	const char *key;
	const char *value; /* NULL for a key alone (UNSET, SHOW TBLPROPERTIES t (k)) */
} sql_prop;

typedef enum sql_col_place { PLACE_NONE, PLACE_FIRST, PLACE_AFTER } sql_col_place;

typedef struct sql_column_def {
	sql_name name;
	dl_type *type;           /* NULL where a form allows omitting it */
	bool not_null;
	ex_node *generated;      /* GENERATED ALWAYS AS (expr) */
	bool identity;           /* GENERATED {ALWAYS | BY DEFAULT} AS IDENTITY */
	bool identity_always;
	bool has_start, has_step;
	int64_t start, step;
	ex_node *default_value;
	const char *comment;
	sql_col_place place;
	sql_name after;
} sql_column_def;

typedef struct sql_assign {
	sql_name column;
	ex_node *value;
} sql_assign;

typedef enum sql_merge_match { MERGE_MATCHED, MERGE_NOT_MATCHED, MERGE_NOT_MATCHED_BY_SOURCE } sql_merge_match;
typedef enum sql_merge_action {
	MERGE_UPDATE,
	MERGE_UPDATE_STAR,
	MERGE_DELETE,
	MERGE_INSERT,
	MERGE_INSERT_STAR,
} sql_merge_action;

typedef struct sql_merge_clause {
	sql_merge_match match;
	ex_node *cond;
	sql_merge_action action;
	sql_assign *sets;     /* UPDATE SET */
	int nsets;
	sql_name *cols;       /* INSERT (cols) */
	int ncols;
	ex_node **values;     /* INSERT VALUES (...) */
	int nvalues;
} sql_merge_clause;

typedef enum sql_alter_kind {
	ALTER_ADD_COLUMNS,
	ALTER_DROP_COLUMNS,
	ALTER_RENAME_COLUMN,
	ALTER_ALTER_COLUMN, /* see alter_col_* */
	ALTER_CHANGE_COLUMN,
	ALTER_REPLACE_COLUMNS,
	ALTER_SET_PROPERTIES,
	ALTER_UNSET_PROPERTIES,
	ALTER_ADD_CONSTRAINT,
	ALTER_DROP_CONSTRAINT,
	ALTER_DROP_FEATURE,
	ALTER_CLUSTER_BY,
	ALTER_SET_LOCATION,
	ALTER_RENAME_TABLE,
} sql_alter_kind;

typedef enum sql_alter_col_kind {
	ALTCOL_TYPE,
	ALTCOL_COMMENT,
	ALTCOL_SET_NOT_NULL,
	ALTCOL_DROP_NOT_NULL,
	ALTCOL_POSITION,
	ALTCOL_SET_DEFAULT,
	ALTCOL_DROP_DEFAULT,
	ALTCOL_SYNC_IDENTITY,
} sql_alter_col_kind;

typedef enum sql_stmt_kind {
	ST_QUERY,
	ST_CREATE_TABLE,
	ST_CLONE,
	ST_INSERT,
	ST_DELETE,
	ST_UPDATE,
	ST_MERGE,
	ST_OPTIMIZE,
	ST_REORG,
	ST_VACUUM,
	ST_RESTORE,
	ST_CONVERT,
	ST_GENERATE,
	ST_FSCK,
	ST_ALTER_TABLE,
	ST_DESCRIBE_TABLE,
	ST_DESCRIBE_HISTORY,
	ST_DESCRIBE_DETAIL,
	ST_SHOW_TABLES,
	ST_SHOW_SCHEMAS,
	ST_SHOW_COLUMNS,
	ST_SHOW_TBLPROPERTIES,
	ST_SHOW_CREATE_TABLE,
	ST_CREATE_SCHEMA,
	ST_DROP_SCHEMA,
	ST_DROP_TABLE,
	ST_USE,
	ST_EXPLAIN,
	ST_SET,
	ST_RESET,
} sql_stmt_kind;

typedef struct sql_stmt sql_stmt;

/* One statement. The fields a kind uses are listed by kind; the rest are
 * zero. Flags are shared where the keyword is (IF EXISTS...). */
struct sql_stmt {
	sql_stmt_kind kind;
	int pos;                 /* offset of the first token in the script */
	size_t start, end;       /* the statement's text span in the script */
	sql_table_ref *table;    /* the target (most kinds); CLONE: the new table */
	sql_query *query;        /* QUERY; CREATE ... AS; INSERT source */
	ex_node *where;          /* DELETE, UPDATE, OPTIMIZE, REORG; INSERT REPLACE WHERE */
	bool if_exists, if_not_exists, or_replace, dry_run, extended, cascade;
	/* CREATE TABLE / CLONE */
	sql_column_def *cols;    /* also ALTER ADD/REPLACE COLUMNS, CONVERT PARTITIONED BY */
	int ncols;
	bool has_columns;
	const char *using;       /* USING format, lower case */
	sql_name *part_cols;     /* PARTITIONED BY; also OPTIMIZE ZORDER BY, CLUSTER BY */
	int npart;
	sql_name *cluster_cols;
	int ncluster;
	bool cluster_none;       /* CLUSTER BY NONE / () */
	const char *location;    /* LOCATION; ALTER SET LOCATION */
	sql_prop *props;         /* TBLPROPERTIES; ALTER SET/UNSET; SHOW TBLPROPERTIES key */
	int nprops;
	sql_prop *options;       /* CREATE TABLE ... OPTIONS (k v, ...) */
	int noptions;
	const char *comment;
	bool shallow;            /* CLONE */
	bool replace_only;       /* REPLACE TABLE (the table must exist) */
	bool like;               /* CREATE TABLE t LIKE source */
	bool schema_evolution;   /* MERGE / INSERT WITH SCHEMA EVOLUTION */
	sql_table_ref *source;   /* CLONE / LIKE source; MERGE source; VACUUM USING INVENTORY */
	/* INSERT */
	bool overwrite;
	sql_name *insert_cols;
	int ninsert_cols;
	/* UPDATE SET / MERGE */
	sql_assign *sets;
	int nsets;
	ex_node *on;
	sql_merge_clause *clauses;
	int nclauses;
	/* OPTIMIZE */
	sql_name *zorder;
	int nzorder;
	bool full;               /* OPTIMIZE FULL, VACUUM FULL */
	/* REORG: APPLY (PURGE) or APPLY (UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION = n)) */
	bool purge;
	int iceberg_compat_version;
	/* VACUUM */
	ex_node *retain_hours;
	bool lite;
	/* RESTORE */
	sql_time_travel tt;
	/* CONVERT TO DELTA */
	bool no_statistics;
	/* GENERATE mode FOR TABLE t */
	const char *mode;
	/* ALTER TABLE */
	sql_alter_kind alter;
	sql_alter_col_kind alter_col;
	sql_name column;         /* RENAME/ALTER/CHANGE COLUMN subject */
	sql_name new_name;       /* RENAME COLUMN ... TO; RENAME TO (table) */
	sql_name *drop_cols;
	int ndrop;
	const char *constraint;  /* ADD/DROP CONSTRAINT name */
	ex_node *check;          /* ADD CONSTRAINT name CHECK (expr) */
	const char *check_text;  /* ... its text as written */
	const char *feature;     /* DROP FEATURE */
	bool truncate_history;
	/* DESCRIBE HISTORY t LIMIT n; SHOW TABLES LIKE */
	ex_node *limit;
	sql_name schema;         /* SHOW TABLES IN s; CREATE/DROP SCHEMA; USE */
	const char *pattern;     /* SHOW ... LIKE 'pattern' */
	/* EXPLAIN */
	const char *explain_mode; /* NULL, "extended", "formatted", "codegen", "cost" */
	sql_stmt *inner;
	/* SET key = value (raw text, trimmed), SET key, SET, RESET [key] */
	const char *key;
	const char *value;
};

#endif
