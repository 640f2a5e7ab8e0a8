/* Internals of vectorized evaluation. A node evaluates to an ex_vec: an
 * array of the batch's length, or a one-row constant that stands for every
 * row. Kernels specialize hot operator/type pairs; everything else runs
 * through the row driver, which calls a function's row callback in a tight
 * loop over the batch with no per-row allocation. */
#ifndef DL_EXPR_EVAL_H
#define DL_EXPR_EVAL_H
#include "columnar/builder.h"
#include "expr/ast.h"
#include "util/tz.h"

__extension__ typedef unsigned __int128 ex_u128;

typedef struct ex_vec {
	const dl_array *a;
	dl_array *owned; /* == a when owned */
	bool is_const;   /* a has one row standing for all */
} ex_vec;

typedef struct ex_run {
	const dl_batch *batch;
	int64_t n;
	const dl_tz *tz;
	int64_t now_us;
	dl_expr *e;
	bool ctx_ok;
} ex_run;

/* A value of one row. */
typedef struct ex_val {
	bool null;
	union {
		bool b;
		int64_t i;  /* integral, DATE, TIMESTAMP(_NTZ) */
		double d;   /* FLOAT, DOUBLE */
		dl_i128 dec;
		struct {
			const char *p;
			int64_t n;
		} s;        /* STRING, BINARY */
		struct {
			const dl_array *a;
			int64_t row;
		} ref;      /* nested: the array and row holding it */
	} v;
} ex_val;

/* What a row callback sees. */
typedef struct ex_row {
	ex_run *run;
	const ex_node *node;
	dl_buf *buf;   /* scratch for string results (cleared per row) */
	int nargs;
	const dl_type *const *argt; /* argument types */
} ex_row;

typedef int (*ex_row_fn)(ex_row *r, ex_val *out, const ex_val *args);
typedef int (*ex_vec_fn)(ex_vec *out, const ex_node *n, ex_vec *args, ex_run *r);

enum {
	FN_DET = 1,      /* deterministic */
	FN_NULLX = 2,    /* any NULL argument gives NULL without calling */
	FN_LAZY = 4,     /* evaluates its own arguments (if, coalesce...) */
	FN_PER_ROW = 8,  /* a new value per row even without arguments (uuid) */
};

struct ex_bind;
typedef struct ex_func {
	const char *name;
	int min_args, max_args; /* max -1: variadic */
	int flags;
	const char *argspec;    /* per argument (last repeats): see binder.c */
	char result;            /* result type code, or 0 when bind decides */
	int (*bind)(struct ex_bind *b, ex_node *n);
	ex_row_fn row;
	ex_vec_fn vec;
} ex_func;

const ex_func *ex_func_lookup(const char *name);
/* The i-th registered function, NULL past the end (tests, docs). */
const ex_func *ex_func_at(size_t i);

int ex_eval_node(ex_vec *out, const ex_node *n, ex_run *r);
void ex_vec_release(ex_vec *v);
/* Makes a the result of out (owned); is_const: a one-row constant. */
static inline int ex_vec_set(ex_vec *out, dl_array *a, bool is_const)
{
	out->a = out->owned = a;
	out->is_const = is_const;
	return 0;
}
/* A fixed-width array of n rows with uninitialized values and no validity,
 * recycled from a small per-thread pool of released intermediates (fresh
 * large allocations cost page faults on every batch). */
dl_array *ex_alloc_fixed(const dl_type *t, int64_t n);
static inline int64_t ex_row_of(const ex_vec *v, int64_t i)
{
	return v->is_const ? 0 : i;
}
void ex_val_load(ex_val *out, const dl_array *a, int64_t row);
int ex_builder_put(dl_builder *b, const ex_val *v);
/* Calls fn for every row; nulls short-circuit when null_intolerant. */
int ex_eval_rows(ex_vec *out, const ex_node *n, ex_vec *args, int nargs, ex_run *r, ex_row_fn fn,
                 bool null_intolerant);

/* Casting one value (cast.c). out strings go to buf. */
int ex_cast_val(ex_val *out, const ex_val *in, const dl_type *from, const dl_type *to, bool try_cast,
                const dl_tz *tz, dl_buf *buf);
/* Whether CAST(from AS to) is allowed (ANSI rules); ex_cast_check raises
 * DATATYPE_MISMATCH when not. */
bool ex_castable(const dl_type *from, const dl_type *to);
int ex_cast_check(const dl_type *from, const dl_type *to);
/* Casts one value (any type, nested recursively) into a builder. */
int ex_cast_into(dl_builder *b, const ex_val *in, const dl_type *from, const dl_type *to, bool try_cast,
                 const dl_tz *tz, dl_buf *buf);
/* CAST of the evaluated `arg` (taken) to n->type, try_cast when n->flag
 * (eval.c; the store-assignment casts of fn_nested.c share it). */
int ex_cast_vec(ex_vec *out, const ex_node *n, ex_vec *arg, ex_run *r);
/* Spark's store assignment in ANSI mode (CheckOverflowInTableWrite /
 * CheckOverflowInTableInsert): after a failed cast of a value of `from`
 * stored into a column `col` of type `to`, an overflow (CAST_OVERFLOW,
 * NUMERIC_VALUE_OUT_OF_RANGE) becomes DELTA_CAST_OVERFLOW_IN_TABLE_WRITE
 * (UPDATE, MERGE) or CAST_OVERFLOW_IN_TABLE_INSERT (insert) naming the
 * column, when `to` holds an integral or decimal type; other errors stay.
 * Returns rc. */
int ex_store_overflow(int rc, const dl_type *from, const dl_type *to, const char *col, bool insert);
/* Store assignment by name (UPDATE and MERGE): struct fields paired by
 * name at every level (through arrays and maps), missing ones NULL, other
 * values an ANSI CAST; whether `from` can be stored into `to` that way.
 * An overflow names `col` (or the innermost struct field holding the
 * value), as ex_store_overflow. */
int ex_store_into(dl_builder *b, const ex_val *in, const dl_type *from, const dl_type *to, const dl_tz *tz,
                  dl_buf *buf, const char *col);
bool ex_storable(const dl_type *from, const dl_type *to);
/* The value of a scalar / into a scalar. */
void ex_val_from_scalar(ex_val *out, const dl_scalar *s);
void ex_scalar_from_val(dl_scalar *out, const ex_val *v, const dl_type *t);
/* Total order used by comparisons (NaN greatest, -0.0 == 0.0). Both
 * values non-null, same type. */
int ex_val_cmp(const ex_val *a, const ex_val *b, const dl_type *t);
bool ex_val_eq(const ex_val *a, const ex_val *b, const dl_type *t);

/* Builds a dl_array holding one scalar row. */
int ex_const_array(dl_array **out, const dl_type *t, const ex_val *v);

/* Spark-style errors. */
int ex_err_overflow(const char *what, const char *try_fn);
int ex_err_divzero(void);
int ex_err_cast(const ex_val *v, const dl_type *from, const dl_type *to);

/* Kernels (kernels.c): return 1 when handled, 0 when not applicable. */
int ex_kernel_op(ex_vec *out, const ex_node *n, ex_vec *args, ex_run *r);

/* Decimal helpers (decimal.c). */
dl_i128 ex_pow10(int k);
/* Rescales with HALF_UP rounding; false on overflow of precision. */
bool ex_dec_rescale(dl_i128 v, int from_scale, int to_scale, int to_precision, dl_i128 *out);
bool ex_dec_fits(dl_i128 v, int precision);
int ex_dec_to_text(char *out, dl_i128 v, int scale);
/* Java's Double.toString / Float.toString of d (cast.c); the length. */
int ex_format_double(char *out, double d, bool is_float);
double ex_dec_to_double(dl_i128 v, int scale);
/* a * b with drop_digits digits rounded away HALF_UP, through 256 bits;
 * false when the result exceeds `precision` digits. */
bool ex_dec_mul_wide(dl_i128 a, dl_i128 b, int drop_digits, int precision, dl_i128 *out);
/* floor(a * 10^shift / b) through 256 bits; false when it overflows. */
bool ex_dec_div_wide(dl_i128 a, int shift, dl_i128 b, dl_i128 *out);

/* Sets *tz from the context (UTC default). */
int ex_run_init(ex_run *r, dl_expr *e, const dl_batch *b, const dl_eval_ctx *ctx);

#endif
