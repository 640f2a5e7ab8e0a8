/* The planner's insides, shared by plan*.c.
 *
 * The rule everything follows: every column of every plan node has a
 * unique internal name ("#17"), so no two columns anywhere in a plan can be
 * confused, whatever users called them. A scope maps what a query may write
 * (qualifier parts, column name) to internal names; expressions are
 * rewritten to internal names before they are bound (pl_rewrite), and the
 * user-visible names are put back by the last projection only. Plans are
 * built as a tree of plan nodes (pn) first, typed as they are built, and
 * turned into exec operators by pn_open, so EXPLAIN and the output schema
 * need no rows. */
#ifndef DL_SQL_PLAN_INTERNAL_H
#define DL_SQL_PLAN_INTERNAL_H
#include "sql/plan.h"
#include "expr/ast.h"
#include "util/error.h"
#include "util/mem.h"

typedef enum pn_kind {
	PN_SCAN,     /* a resolved relation, renamed to internal names */
	PN_ONEROW,   /* one row, no columns (SELECT without FROM, VALUES) */
	PN_FILTER,
	PN_PROJECT,
	PN_AGG,
	PN_SORT,     /* with an optional limit/offset: top-N */
	PN_LIMIT,
	PN_JOIN,
	PN_DISTINCT,
	PN_SETOP,
	PN_WINDOW,
	PN_EXPAND,   /* grouping sets: exprs/names = keys, gsets = ids, gid_name */
} pn_kind;

typedef struct pn_agg {
	dl_agg_kind kind;
	ex_node *arg;     /* NULL for count(*) */
	ex_node *param;   /* percentile_approx's percentage */
	int64_t accuracy;
	double rsd;
	bool distinct, ignore_nulls;
	const char *name; /* internal output name */
} pn_agg;

typedef struct pn_sort_key {
	ex_node *expr;
	bool desc;
	dl_nulls_order nulls;
} pn_sort_key;

typedef struct pn_win_fn {
	dl_win_kind kind;
	pn_agg agg;           /* DL_WIN_AGG */
	ex_node *arg, *default_value;
	int64_t offset;
	bool ignore_nulls;
	dl_frame_kind frame;
	dl_frame_bound lo, hi;
	ex_node *lo_offset, *hi_offset;
	const char *name;
} pn_win_fn;

typedef struct pn pn;
struct pn {
	pn_kind kind;
	dl_type *schema; /* output columns under internal names (kept by the planner) */
	pn *in[2];
	int64_t est;     /* estimated rows, -1 unknown */
	/* PN_SCAN */
	sql_relation *rel;
	const char **rel_cols; /* relation column of output column i */
	bool pushable;         /* not on the null-supplying side of an outer join */
	ex_node **pushed;      /* conjuncts over internal names */
	int npushed, cappushed;
	/* PN_FILTER: exprs[0]; PN_PROJECT: exprs/names[0..n); PN_AGG: keys */
	ex_node **exprs;
	const char **names;
	int n;
	pn_agg *aggs;
	int naggs;
	/* PN_SORT, PN_WINDOW (order) */
	pn_sort_key *keys;
	int nkeys;
	int64_t limit, offset; /* PN_SORT, PN_LIMIT; limit < 0: none */
	/* PN_JOIN */
	dl_join_kind join;
	ex_node **lk, **rk;
	bool *null_safe;
	int njk;
	ex_node *residual;
	/* PN_SETOP */
	dl_setop_kind setop;
	bool all;
	/* PN_WINDOW: partition in exprs[0..n) */
	pn_win_fn *wfns;
	int nwfns;
	/* PN_EXPAND: one grouping id per set; the id column's name */
	uint64_t *gids;
	int ngids;
	const char *gid_name;
};

/* One column a query may name. */
typedef struct sc_col {
	const char *const *qual; /* qualifier parts ("db", "t" or the alias) */
	int nqual;
	const char *name;        /* as users write it */
	const char *iname;       /* internal */
	bool no_star;            /* not in a plain * (USING duplicates) */
	bool no_unqual;          /* reachable only qualified (USING duplicates) */
} sc_col;

typedef struct scope scope;
struct scope {
	sc_col *cols;
	int n, cap;
	const scope *outer; /* the enclosing query's, for correlated references */
};

/* A planned query: a node and its visible columns in order. */
typedef struct pq {
	pn *node;
	int n;
	const char **names;  /* user-visible */
	const char **inames; /* internal, in node->schema */
} pq;

typedef struct cte_def {
	const sql_cte *cte;
	struct cte_def *prev; /* earlier CTEs (visible to this one) and outer WITHs */
} cte_def;

/* A correlated subquery's WHERE conjuncts that reference the enclosing
 * query: the subquery's SELECT hands them here (rewritten, over its own
 * output and the outer columns) instead of filtering, and the caller
 * joins on them. */
typedef struct corr_sink {
	ex_node **conj;
	int n, cap;
	bool taken;
	bool count_default; /* the value is a count: 0, not NULL, without rows */
} corr_sink;

typedef struct planner {
	const sql_env *env;
	dl_expr *ex;          /* arena of everything the plan holds; keeps its types */
	int next_id;
	const char **display; /* a readable name per internal id, for EXPLAIN */
	int ndisplay, capdisplay;
	sql_relation **rels;
	int nrels, caprels;
	bool execute;         /* scalar subqueries run now (else typed NULL stand-ins) */
	cte_def *ctes;
	int depth;
	int outer_refs;       /* references resolved in an enclosing scope so far */
	corr_sink *sink;      /* for the next SELECT planned (a subquery's) */
	/* EXPLAIN: subqueries that did not run, and the stand-ins (tagged
	 * through ex_node.aux, which copies keep) printed in their place */
	struct pl_subplan *subplans;
	int nsub, capsub;
} planner;

typedef struct pl_subplan {
	pn *node;
	const char *what; /* "scalar-subquery#1" */
} pl_subplan;

/* plan.c */
int pl_query(pq *out, planner *P, const sql_query *q, const scope *outer);
int pl_limit_value(int64_t *out, planner *P, const ex_node *n, const char *what);
int pl_order_limit(pq *out, planner *P, const sql_query *q, pn_sort_key *keys, int nkeys);

/* plan_node.c: building nodes, typing them, opening them. */
void *pl_alloc(planner *P, size_t n);
char *pl_strdup(planner *P, const char *s);
const char *pl_new_name(planner *P, const char *display);
const char *pl_display(const planner *P, const char *iname);
dl_type *pl_keep(planner *P, dl_type *t);
pn *pn_new(planner *P, pn_kind kind, pn *a, pn *b);
/* Types the node (its schema) by building its operator over empty inputs. */
int pn_finish(planner *P, pn *n);
int pn_open(dl_batch_stream **out, planner *P, pn *root);
/* A project of the node's columns plus extras (names[i] = exprs[i]). */
int pn_project_over(pn **out, planner *P, pn *in, ex_node *const *exprs, const char *const *names, int n,
                    bool keep_input);
/* The type of an internal-name expression over a schema (a new reference). */
int pl_type_of(dl_type **out, planner *P, const ex_node *e, const dl_type *schema);
const dl_type *pn_col_type(const pn *n, const char *iname);
int pl_common_type(dl_type **out, planner *P, const dl_type *a, const dl_type *b, const char *what);
ex_node *pl_col(planner *P, const char *iname);
ex_node *pl_cast(planner *P, ex_node *e, const dl_type *to);
ex_node *pl_call(planner *P, const char *name, ex_node *a, ex_node *b);
ex_node *pl_op(planner *P, int op, ex_node *a, ex_node *b);
ex_node *pl_lit_bool(planner *P, bool v);
ex_node *pl_copy(planner *P, const ex_node *n); /* shallow: args array copied */
int pl_print(dl_buf *out, const ex_node *n);
/* Calls fn for each internal column name the tree references. */
int pl_walk_cols(const ex_node *n, int (*fn)(const char *iname, void *payload), void *payload);
bool pl_refs_only(const ex_node *n, const dl_type *schema);
bool pl_deterministic(const ex_node *n);
/* Conjuncts of an AND tree appended to a list. */
int pl_conjuncts(planner *P, ex_node *n, ex_node ***list, int *len, int *cap);
int pl_push(planner *P, void *list_ptr, int *len, int *cap, size_t elem, const void *item);
ex_node *pl_and_all(planner *P, ex_node *const *list, int n);

/* plan_scope.c */
int sc_add(planner *P, scope *s, const char *const *qual, int nqual, const char *name, const char *iname);
int sc_append(planner *P, scope *dst, const scope *src);
typedef struct rw_ctx rw_ctx;
typedef struct agg_ctx agg_ctx;
typedef struct win_ctx win_ctx;
struct rw_ctx {
	planner *P;
	const scope *sc;
	agg_ctx *agg;   /* post-aggregation: keys and aggregates substitute */
	win_ctx *win;   /* window calls substitute */
	bool no_agg;    /* an aggregate here is an error (WHERE, GROUP BY, ON) */
	const char *clause;
	/* correlated references to outer scopes are collected here */
	bool correlated;
	/* Spark's lateral column aliases: earlier select items by alias */
	const char *const *lateral_names;
	ex_node *const *lateral_posts;
	int nlateral;
	/* a correlated scalar subquery may join into this plan */
	pn **input;
	scope *input_scope;
};
int pl_rewrite(ex_node **out, rw_ctx *c, const ex_node *n);
int pl_resolve_col(ex_node **out, rw_ctx *c, const ex_node *n);
int pl_unresolved(const scope *sc, const char *const *path, int npath);

/* plan_from.c */
typedef struct prel {
	pn *node;
	scope sc;
} prel;
int pl_from(prel *out, planner *P, const sql_table_ref *ref, const scope *outer);
void pl_set_unpushable(pn *n);
/* left JOIN right ON on (rewritten; may be NULL) of an exec kind. */
int pl_join(pn **out, planner *P, dl_join_kind kind, pn *left, pn *right, ex_node *on);
/* WHERE equalities across an inner/cross join become its keys. */
int pl_where_keys(planner *P, pn *from, ex_node *const *conj, int n);

/* plan_select.c / plan_aggregate.c */
int pl_select(pq *out, planner *P, const sql_query *q, const scope *outer);
bool pl_is_agg_call(const ex_node *n);
bool pl_has_agg(const ex_node *n);
bool pl_has_window(const ex_node *n);
struct agg_ctx {
	const char **key_text;
	const char **key_iname;
	int nkeys;
	pn_agg *aggs;
	const char **agg_text;
	int naggs, capaggs;
	bool grouped; /* GROUP BY present (else MISSING_GROUP_BY wording) */
	/* GROUPING SETS / ROLLUP / CUBE: the grouping id column (Spark's
	 * spark_grouping_id) that grouping() and grouping_id() read; NULL for
	 * a plain GROUP BY */
	const char *gid_iname;
};
int pl_agg_call(ex_node **out, rw_ctx *c, const ex_node *n);
/* grouping(e), grouping_id(...) after a grouping-sets aggregate */
bool pl_is_grouping_call(const ex_node *n);
int pl_grouping_call(ex_node **out, rw_ctx *c, const ex_node *n);
int pl_agg_of(pn_agg *a, rw_ctx *argc, const ex_node *n);
int pl_const_arg(dl_scalar *out, planner *P, const ex_node *n, const char *fn);

/* plan_window.c */
struct win_ctx {
	pn_win_fn *fns;
	ex_node ***part;    /* rewritten PARTITION BY per fn */
	int *npart;
	pn_sort_key **order; /* rewritten ORDER BY per fn */
	int *norder;
	const char **spec;  /* partition and order as text: one operator each */
	const char **text;  /* the whole call, to share equal ones */
	int n, cap;
};
int pl_window_call(ex_node **out, rw_ctx *c, const ex_node *n);
int pl_windows(pn **node, planner *P, win_ctx *w);

/* plan_subquery.c */
int pl_subquery_expr(ex_node **out, rw_ctx *c, const ex_node *n);
/* WHERE conjuncts that are [NOT] EXISTS / [NOT] IN (subquery): joins. */
int pl_where_subquery(ex_node **out, planner *P, prel *r, const ex_node *conj);

/* plan_pushdown.c: conjuncts into relations' filters (also applied above) */
int pl_push_filter(planner *P, pn *node, ex_node *conj);
/* An ON conjunct over one side of a join (before its own sides are marked),
 * into that side when the join does not preserve it. */
int pl_push_on(planner *P, pn *join_left, pn *join_right, dl_join_kind kind, ex_node *conj);

/* plan_names.c: Spark's names for unnamed select items */
int pl_auto_name(dl_buf *out, const ex_node *n);

/* plan_explain.c */
/* Tags stand-in e of a subquery that did not run (EXPLAIN, schema). */
int pl_subplan_tag(planner *P, ex_node *e, pn *node, const char *kind);
int pn_explain(dl_buf *out, planner *P, const pn *n, int depth);

#endif
