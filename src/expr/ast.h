/* The expression tree shared by the parser, printer, binder, evaluator and
 * pruner. Nodes live in the owning dl_expr's arena. */
#ifndef DL_EXPR_AST_H
#define DL_EXPR_AST_H
#include "expr/expr.h"
#include "util/arena.h"

typedef enum ex_kind {
	EX_LIT,      /* lit */
	EX_INTERVAL, /* months/days/micros */
	EX_COL,      /* path[npath]; bound: colidx[] */
	EX_OP,       /* op over args (unary or binary) */
	EX_CALL,     /* name(args) */
	EX_CAST,     /* CAST(args[0] AS to); try_cast when flag */
	EX_CASE,     /* operand? (WHEN c THEN v)* ELSE? -- see case_* fields */
	EX_IN,       /* args[0] [NOT] IN (args[1..]) */
	EX_BETWEEN,  /* args[0] [NOT] BETWEEN args[1] AND args[2] */
	EX_LIKE,     /* args[0] [NOT] LIKE/ILIKE/RLIKE args[1] [ESCAPE c] */
	EX_IS,       /* args[0] IS [NOT] NULL/TRUE/FALSE */
	EX_INDEX,    /* args[0][args[1]] */
	EX_FIELD,    /* args[0].name (on a computed struct) */
	EX_SUBQUERY, /* op ex_subquery_kind over query (SQL layer); IN: args[0] */
	EX_PARAM,    /* ? (SQL layer only): a prepared statement's parameter, made
	              * an EX_LIT before planning (see dl_expr.params) */
} ex_kind;

typedef enum ex_subquery_kind { SQ_SCALAR, SQ_EXISTS, SQ_IN } ex_subquery_kind;

typedef enum ex_op {
	OP_NEG, OP_POS, OP_NOT, OP_BITNOT,                 /* unary */
	OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_IDIV,   /* arithmetic */
	OP_CONCAT, OP_BITAND, OP_BITOR, OP_BITXOR,
	OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_NSEQ, /* comparisons */
	OP_AND, OP_OR,
} ex_op;

typedef enum ex_like_kind { LIKE_LIKE, LIKE_ILIKE, LIKE_RLIKE } ex_like_kind;
typedef enum ex_is_kind { IS_NULL, IS_TRUE, IS_FALSE } ex_is_kind;

struct ex_func;
typedef struct ex_node ex_node;

/* One ORDER BY item (window specs here; the SQL layer's ORDER BY too). */
typedef enum ex_nulls { NULLS_DEFAULT, NULLS_FIRST, NULLS_LAST } ex_nulls;
typedef struct ex_sort_item {
	ex_node *expr;
	bool desc;
	ex_nulls nulls;
} ex_sort_item;

typedef enum ex_frame_kind { FRAME_NONE, FRAME_ROWS, FRAME_RANGE } ex_frame_kind;
typedef enum ex_bound_kind {
	BOUND_UNBOUNDED_PRECEDING,
	BOUND_PRECEDING, /* offset PRECEDING */
	BOUND_CURRENT_ROW,
	BOUND_FOLLOWING, /* offset FOLLOWING */
	BOUND_UNBOUNDED_FOLLOWING,
} ex_bound_kind;
typedef struct ex_frame_bound {
	ex_bound_kind kind;
	ex_node *offset;
} ex_frame_bound;

/* fn(...) OVER (PARTITION BY ... ORDER BY ... [ROWS|RANGE frame]). A
 * frame given as a single bound has hi = CURRENT ROW, as in Spark. */
typedef struct ex_window {
	ex_node **partition;
	int npartition;
	ex_sort_item *order;
	int norder;
	ex_frame_kind frame;
	ex_frame_bound lo, hi;
} ex_window;

/* How expressions reach the SQL grammar: a subquery inside an expression
 * is parsed (and printed) by the SQL layer through these. */
typedef struct ex_sql_hooks {
	/* Parses a query whose first token starts at *pos; sets *pos to the
	 * offset of the token after it. depth is the nesting so far, so one
	 * limit bounds expressions and queries nested in each other. */
	int (*parse_query)(void *payload, size_t *pos, int depth, void **query);
	int (*print_query)(dl_buf *out, const void *query);
	void *payload;
	int depth; /* nesting at the start of ex_parse_expr_at */
} ex_sql_hooks;

#define EX_MAX_DEPTH 200
/* The most levels an expression tree may have, counted from its root to
 * its deepest leaf (DuckDB's max_expression_depth and SQLite's
 * SQLITE_MAX_EXPR_DEPTH are 1000 too): every walk of a tree recurses a
 * level at a time. AND and OR chains are balanced (parser.c), so only the
 * other operators' chains come near it. */
#define EX_MAX_HEIGHT 1000

struct ex_node {
	ex_kind kind;
	int op;        /* ex_op, ex_like_kind or ex_is_kind */
	bool negated;  /* NOT IN / NOT BETWEEN / NOT LIKE / IS NOT */
	bool flag;     /* CAST: try_cast; CASE: has operand; CALL: star arg */
	bool has_else; /* CASE */
	int pos;       /* byte offset in the source text */
	int nargs;
	ex_node **args;
	dl_scalar lit;       /* EX_LIT */
	char **path;         /* EX_COL (names), EX_FIELD (path[0]) */
	int npath;
	const char *name;    /* EX_CALL: function name as written (lowercased) */
	dl_type *to;         /* EX_CAST target (a reference) */
	int32_t months;      /* EX_INTERVAL */
	int32_t days;
	int64_t micros;
	int escape;          /* EX_LIKE escape char, -1 for none */
	bool distinct;       /* EX_CALL: f(DISTINCT ...) */
	ex_window *over;     /* EX_CALL: window function */
	void *query;         /* EX_SUBQUERY: the SQL layer's query */
	int (*print_query)(dl_buf *out, const void *query); /* EX_SUBQUERY */
	/* Bound state. */
	dl_type *type;       /* result type (a reference) */
	int *colidx;         /* EX_COL: field index per path step */
	const struct ex_func *fn; /* EX_CALL */
	void *aux;           /* per-node precompiled state (regex, like pattern) */
};

/* Owner of every node of an expression. */
struct dl_expr {
	dl_arena arena;
	ex_node *root;       /* as parsed (printing) */
	ex_node *bound;      /* after dl_expr_bind, NULL before */
	dl_type *schema;     /* the bound schema (a reference) */
	dl_buf scratch;      /* eval_scalar string storage */
	_Atomic int64_t now_us; /* current_timestamp() when the context gives none */
	const struct dl_tz *bind_tz; /* the session zone at bind (zones live for the process) */
	/* references to release on free */
	dl_type **types;
	size_t ntypes, captypes;
	void **auxs;
	void (**aux_free)(void *);
	size_t naux, capaux;
	/* Every EX_PARAM node parsed, in parse order. A statement parser that
	 * backtracks may parse one `?` twice: nodes of one `?` share its pos,
	 * and the SQL session numbers parameters by distinct pos. */
	ex_node **params;
	size_t nparams, capparams;
};

ex_node *ex_node_new(dl_expr *e, ex_kind kind, int pos);
int ex_node_set_args(dl_expr *e, ex_node *n, int nargs);
/* Registers a type reference owned by e (released in dl_expr_free);
 * returns t, or NULL (DL_ENOMEM, t released) on failure. */
dl_type *ex_keep_type(dl_expr *e, dl_type *t);
int ex_keep_aux(dl_expr *e, void *aux, void (*free_fn)(void *));
dl_expr *ex_expr_new(void);
ex_node *ex_copy_tree(dl_expr *dst, const ex_node *n);

/* Parses an expression from src[*pos..len) into e's arena, stopping
 * before the first token that cannot continue it; *pos is then that
 * token's offset (on error: the offending token's). hooks may be NULL
 * (subqueries are then a syntax error). */
int ex_parse_expr_at(dl_expr *e, const char *src, size_t len, size_t *pos, const ex_sql_hooks *hooks,
                     ex_node **out);

/* The precedence level of a binary operator in the parser's grammar
 * (parser.c `levels`), tightest first; the operators of a level are
 * left-associative. AND and OR come after the comparisons. */
int ex_binary_level(int op);

/* Printing a node (printer.c). */
int ex_print(dl_buf *out, const ex_node *n);
/* ORDER BY items: "a DESC NULLS LAST, b". */
int ex_print_sort_items(dl_buf *out, const ex_sort_item *items, int n);
/* Printing a scalar as a SQL literal. */
int ex_print_scalar(dl_buf *out, const dl_scalar *s);

#endif
