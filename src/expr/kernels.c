/* Typed loops for the hot cases: comparisons and + - * / % div on fixed-width
 * numbers (column vs column and column vs constant), and widening casts.
 * Results are written 8 rows per output byte with no branches in the inner
 * loop; overflow and division by zero are detected with a sticky flag and
 * reported only if a valid (non-null) row caused them. */
#include "columnar/bits.h"
#include "expr/eval.h"
#include "util/error.h"
#include "util/mem.h"
#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Validity of a binary result: AND of both inputs (constants broadcast).
 * Returns -1 when a constant input is null (the whole result is null). */
static int merged_validity(uint8_t **out, const ex_vec *a, const ex_vec *b, int64_t n)
{
	*out = NULL;
	const ex_vec *v[2] = {a, b};
	for (int k = 0; k < 2; k++)
		if (v[k] && v[k]->is_const && !dl_array_is_valid(v[k]->a, 0)) return -1;
	const uint8_t *va = a && !a->is_const ? a->a->validity : NULL;
	const uint8_t *vb = b && !b->is_const ? b->a->validity : NULL;
	if (!va && !vb) return 0;
	size_t bytes = (size_t)(n + 7) / 8;
	*out = dl_malloc(bytes ? bytes : 1);
	if (!*out) return DL_ENOMEM;
	for (size_t i = 0; i < bytes; i++) (*out)[i] = (va ? va[i] : 0xFF) & (vb ? vb[i] : 0xFF);
	return 0;
}

static int all_null(ex_vec *out, const dl_type *t)
{
	ex_val v = {.null = true};
	dl_array *a;
	DL_TRY(ex_const_array(&a, t, &v));
	out->a = out->owned = a;
	out->is_const = true;
	return 1;
}

static int swap_op(int op)
{
	switch (op) {
	case OP_LT: return OP_GT;
	case OP_LE: return OP_GE;
	case OP_GT: return OP_LT;
	case OP_GE: return OP_LE;
	default: return op;
	}
}

#define PACK8(expr)                                                     \
	do {                                                                \
		int64_t nfull = n / 8;                                          \
		for (int64_t k = 0; k < nfull; k++) {                           \
			uint8_t byte = 0;                                           \
			for (int j = 0; j < 8; j++) {                               \
				int64_t i = k * 8 + j;                                  \
				byte |= (uint8_t)((expr) ? 1u : 0u) << j;               \
			}                                                           \
			bits[k] = byte;                                             \
		}                                                               \
		for (int64_t i = nfull * 8; i < n; i++)                          \
			if (expr) bits[i >> 3] |= (uint8_t)(1u << (i & 7));          \
	} while (0)

/* bits of x[i] == c (or !=) for BIGINT and INT columns against a
 * constant, eight rows a byte from SSE2 compares (the scalar PACK8 took 9
 * instructions a row: `id % 100 = 7` over every row of a table); the
 * remaining rows, fewer than 8, after. */
static void eq_bits(uint8_t *bits, const void *x, int w, int64_t c, bool ne, int64_t n)
{
	int64_t nfull = n / 8, done = 0;
#if defined(__SSE2__)
	if (w == 8) {
		const int64_t *p = x;
		__m128i cv = _mm_set1_epi64x(c);
		for (int64_t k = 0; k < nfull; k++) {
			int m = 0;
			for (int j = 0; j < 4; j++) {
				__m128i e = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(const void *)(p + 8 * k + 2 * j)), cv);
				/* both halves equal: AND each with its swapped partner */
				e = _mm_and_si128(e, _mm_shuffle_epi32(e, _MM_SHUFFLE(2, 3, 0, 1)));
				m |= _mm_movemask_pd(_mm_castsi128_pd(e)) << (2 * j);
			}
			bits[k] = (uint8_t)(ne ? ~m : m);
		}
		done = nfull * 8;
	} else if (w == 4) {
		const int32_t *p = x;
		__m128i cv = _mm_set1_epi32((int32_t)c);
		for (int64_t k = 0; k < nfull; k++) {
			__m128i e0 = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(const void *)(p + 8 * k)), cv);
			__m128i e1 = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(const void *)(p + 8 * k + 4)), cv);
			int m = _mm_movemask_ps(_mm_castsi128_ps(e0)) | _mm_movemask_ps(_mm_castsi128_ps(e1)) << 4;
			bits[k] = (uint8_t)(ne ? ~m : m);
		}
		done = nfull * 8;
	}
#endif
	for (int64_t k = done / 8; k < nfull; k++) {
		uint8_t byte = 0;
		for (int j = 0; j < 8; j++) {
			int64_t i = k * 8 + j;
			int64_t v = w == 8 ? ((const int64_t *)x)[i] : ((const int32_t *)x)[i];
			byte |= (uint8_t)((v == c) != ne) << j;
		}
		bits[k] = byte;
	}
	for (int64_t i = nfull * 8; i < n; i++) {
		int64_t v = w == 8 ? ((const int64_t *)x)[i] : ((const int32_t *)x)[i];
		if ((v == c) != ne) bits[i >> 3] |= (uint8_t)(1u << (i & 7));
	}
}

#define CMP_VC(T, x, c)                                         \
	switch (op) {                                               \
	case OP_EQ: PACK8((x)[i] == (c)); break;                    \
	case OP_NE: PACK8((x)[i] != (c)); break;                    \
	case OP_LT: PACK8((x)[i] < (c)); break;                     \
	case OP_LE: PACK8((x)[i] <= (c)); break;                    \
	case OP_GT: PACK8((x)[i] > (c)); break;                     \
	default: PACK8((x)[i] >= (c)); break;                       \
	}

#define CMP_VV(x, y)                                            \
	switch (op) {                                               \
	case OP_EQ: PACK8((x)[i] == (y)[i]); break;                 \
	case OP_NE: PACK8((x)[i] != (y)[i]); break;                 \
	case OP_LT: PACK8((x)[i] < (y)[i]); break;                  \
	case OP_LE: PACK8((x)[i] <= (y)[i]); break;                 \
	case OP_GT: PACK8((x)[i] > (y)[i]); break;                  \
	default: PACK8((x)[i] >= (y)[i]); break;                    \
	}

/* Doubles: NaN is the greatest value and equals itself (Spark). With a
 * non-NaN constant, > and >= are the negations of <= and <. */
#define CMP_DVC(x, c)                                           \
	switch (op) {                                               \
	case OP_EQ: PACK8((x)[i] == (c)); break;                    \
	case OP_NE: PACK8(!((x)[i] == (c))); break;                 \
	case OP_LT: PACK8((x)[i] < (c)); break;                     \
	case OP_LE: PACK8((x)[i] <= (c)); break;                    \
	case OP_GT: PACK8(!((x)[i] <= (c))); break;                 \
	default: PACK8(!((x)[i] < (c))); break;                     \
	}

static inline int dcmp(double a, double b)
{
	if (a < b) return -1;
	if (a > b) return 1;
	if (a == b) return 0;
	return isnan(a) ? (isnan(b) ? 0 : 1) : -1;
}

static inline int bytes_cmp(const uint8_t *a, int64_t an, const uint8_t *b, int64_t bn)
{
	int64_t m = an < bn ? an : bn;
	int c = m ? memcmp(a, b, (size_t)m) : 0;
	if (c) return c;
	return an < bn ? -1 : an > bn;
}

static bool op_holds(int op, int c)
{
	switch (op) {
	case OP_EQ: return c == 0;
	case OP_NE: return c != 0;
	case OP_LT: return c < 0;
	case OP_LE: return c <= 0;
	case OP_GT: return c > 0;
	default: return c >= 0;
	}
}

/* Strings and binaries: unsigned byte order, column against a constant or
 * another column. */
static int cmp_bytes_kernel(ex_vec *out, const ex_node *n_, ex_vec *x, ex_vec *y, int op, ex_run *r)
{
	int64_t n = r->n;
	uint8_t *vld;
	int rc = merged_validity(&vld, x, y, n);
	if (rc == -1) return all_null(out, n_->type);
	if (rc < 0) return rc;
	dl_type *bt = dl_type_new(DL_TYPE_BOOLEAN);
	dl_array *res = bt ? dl_array_new(bt, n) : NULL;
	if (bt) dl_type_unref(bt);
	if (!res) {
		dl_free(vld);
		return DL_ENOMEM;
	}
	uint8_t *bits = res->values;
	static const uint8_t empty[1] = {0};
	const int32_t *xo = x->a->offsets;
	const uint8_t *xd = x->a->data ? x->a->data : empty;
	const int32_t *yo = y->a->offsets;
	const uint8_t *yd = y->a->data ? y->a->data : empty;
	if (y->is_const) {
		const uint8_t *c = yd + yo[0];
		int64_t cn = yo[1] - yo[0];
		if (op == OP_EQ || op == OP_NE) {
			/* length first: most rows differ in length or first bytes */
			bool want = op == OP_EQ;
			PACK8(((xo[i + 1] - xo[i] == cn) && (cn == 0 || memcmp(xd + xo[i], c, (size_t)cn) == 0)) == want);
		} else {
			PACK8(op_holds(op, bytes_cmp(xd + xo[i], xo[i + 1] - xo[i], c, cn)));
		}
	} else {
		PACK8(op_holds(op, bytes_cmp(xd + xo[i], xo[i + 1] - xo[i], yd + yo[i], yo[i + 1] - yo[i])));
	}
	res->validity = vld;
	res->null_count = vld ? -1 : 0;
	out->a = out->owned = res;
	out->is_const = false;
	return 1;
}

static int cmp_kernel(ex_vec *out, const ex_node *n_, ex_vec *args, ex_run *r)
{
	const dl_type *t = args[0].a->type;
	dl_type_id id = t->id;
	int w = dl_type_fixed_width(t);
	if (id == DL_TYPE_STRING || id == DL_TYPE_BINARY) {
		ex_vec *x = &args[0], *y = &args[1];
		int op = n_->op;
		if (x->is_const && y->is_const) return 0;
		if (x->is_const) {
			ex_vec *t2 = x;
			x = y;
			y = t2;
			op = swap_op(op);
		}
		return cmp_bytes_kernel(out, n_, x, y, op, r);
	}
	if (!w || id == DL_TYPE_DECIMAL || id == DL_TYPE_BOOLEAN) return 0;
	ex_vec *x = &args[0], *y = &args[1];
	int op = n_->op;
	if (x->is_const && y->is_const) return 0;
	if (x->is_const) {
		ex_vec *t2 = x;
		x = y;
		y = t2;
		op = swap_op(op);
	}
	int64_t n = r->n;
	uint8_t *vld;
	int rc = merged_validity(&vld, x, y, n);
	if (rc == -1) return all_null(out, n_->type);
	if (rc < 0) return rc;
	dl_type *bt = dl_type_new(DL_TYPE_BOOLEAN);
	dl_array *res = bt ? dl_array_new(bt, n) : NULL;
	if (bt) dl_type_unref(bt);
	if (!res) {
		dl_free(vld);
		return DL_ENOMEM;
	}
	uint8_t *bits = res->values;
	const void *xv = x->a->values, *yv = y->a->values;
	if (y->is_const) {
		switch (id) {
		case DL_TYPE_BYTE: { int8_t c = *(const int8_t *)yv; const int8_t *p = xv; CMP_VC(int8_t, p, c); break; }
		case DL_TYPE_SHORT: { int16_t c = *(const int16_t *)yv; const int16_t *p = xv; CMP_VC(int16_t, p, c); break; }
		case DL_TYPE_INTEGER:
		case DL_TYPE_DATE: {
			int32_t c = *(const int32_t *)yv;
			const int32_t *p = xv;
			if (op == OP_EQ || op == OP_NE) eq_bits(bits, p, 4, c, op == OP_NE, n);
			else CMP_VC(int32_t, p, c);
			break;
		}
		case DL_TYPE_FLOAT:
		case DL_TYPE_DOUBLE: {
			double c = id == DL_TYPE_FLOAT ? *(const float *)yv : *(const double *)yv;
			if (isnan(c)) {
				dl_array_free(res);
				dl_free(vld);
				return 0;
			}
			if (id == DL_TYPE_FLOAT) {
				float cf = (float)c;
				const float *p = xv;
				CMP_DVC(p, cf);
			} else {
				const double *p = xv;
				CMP_DVC(p, c);
			}
			break;
		}
		default: {
			int64_t c = *(const int64_t *)yv;
			const int64_t *p = xv;
			if (w == 8 && (op == OP_EQ || op == OP_NE)) eq_bits(bits, p, 8, c, op == OP_NE, n);
			else CMP_VC(int64_t, p, c);
			break;
		}
		}
	} else {
		switch (id) {
		case DL_TYPE_BYTE: { const int8_t *p = xv, *q = yv; CMP_VV(p, q); break; }
		case DL_TYPE_SHORT: { const int16_t *p = xv, *q = yv; CMP_VV(p, q); break; }
		case DL_TYPE_INTEGER:
		case DL_TYPE_DATE: { const int32_t *p = xv, *q = yv; CMP_VV(p, q); break; }
		case DL_TYPE_FLOAT: {
			const float *p = xv, *q = yv;
			switch (op) {
			case OP_EQ: PACK8(dcmp(p[i], q[i]) == 0); break;
			case OP_NE: PACK8(dcmp(p[i], q[i]) != 0); break;
			case OP_LT: PACK8(dcmp(p[i], q[i]) < 0); break;
			case OP_LE: PACK8(dcmp(p[i], q[i]) <= 0); break;
			case OP_GT: PACK8(dcmp(p[i], q[i]) > 0); break;
			default: PACK8(dcmp(p[i], q[i]) >= 0); break;
			}
			break;
		}
		case DL_TYPE_DOUBLE: {
			const double *p = xv, *q = yv;
			switch (op) {
			case OP_EQ: PACK8(dcmp(p[i], q[i]) == 0); break;
			case OP_NE: PACK8(dcmp(p[i], q[i]) != 0); break;
			case OP_LT: PACK8(dcmp(p[i], q[i]) < 0); break;
			case OP_LE: PACK8(dcmp(p[i], q[i]) <= 0); break;
			case OP_GT: PACK8(dcmp(p[i], q[i]) > 0); break;
			default: PACK8(dcmp(p[i], q[i]) >= 0); break;
			}
			break;
		}
		default: { const int64_t *p = xv, *q = yv; CMP_VV(p, q); break; }
		}
	}
	res->validity = vld;
	res->null_count = vld ? -1 : 0;
	out->a = out->owned = res;
	out->is_const = false;
	return 1;
}

/* ---- arithmetic -------------------------------------------------------- */

static bool valid_row(const uint8_t *vld, int64_t i)
{
	return !vld || dl_bit_get(vld, i);
}

/* After a sticky flag: find whether any valid row really failed. */
#define CHECK_ROWS(cond, err)                              \
	for (int64_t i = 0; i < n; i++)                        \
		if (valid_row(vld, i) && (cond)) {                 \
			rc = (err);                                    \
			break;                                         \
		}

#define INT_ARITH(T, BUILTIN, word, tryname)                                                         \
	do {                                                                                             \
		T *o = res->values;                                                                          \
		const T *p = x->a->values, *q = y->a->values;                                                \
		bool ovf = false;                                                                            \
		T tmp;                                                                                       \
		if (xc) {                                                                                    \
			T c = p[0];                                                                              \
			for (int64_t i = 0; i < n; i++) ovf |= BUILTIN(c, q[i], &o[i]);                          \
			if (ovf) CHECK_ROWS(BUILTIN(c, q[i], &tmp), ex_err_overflow(word, tryname));             \
		} else if (yc) {                                                                             \
			T c = q[0];                                                                              \
			for (int64_t i = 0; i < n; i++) ovf |= BUILTIN(p[i], c, &o[i]);                          \
			if (ovf) CHECK_ROWS(BUILTIN(p[i], c, &tmp), ex_err_overflow(word, tryname));             \
		} else {                                                                                     \
			for (int64_t i = 0; i < n; i++) ovf |= BUILTIN(p[i], q[i], &o[i]);                       \
			if (ovf) CHECK_ROWS(BUILTIN(p[i], q[i], &tmp), ex_err_overflow(word, tryname));          \
		}                                                                                            \
	} while (0)

#define DBL_ARITH(T, OPX)                                                  \
	do {                                                                   \
		T *o = res->values;                                                \
		const T *p = x->a->values, *q = y->a->values;                      \
		if (xc) {                                                          \
			T c = p[0];                                                    \
			for (int64_t i = 0; i < n; i++) o[i] = c OPX q[i];             \
		} else if (yc) {                                                   \
			T c = q[0];                                                    \
			for (int64_t i = 0; i < n; i++) o[i] = p[i] OPX c;             \
		} else {                                                           \
			for (int64_t i = 0; i < n; i++) o[i] = p[i] OPX q[i];          \
		}                                                                  \
	} while (0)

static bool add32(int32_t a, int32_t b, int32_t *o) { return __builtin_add_overflow(a, b, o); }
static bool sub32(int32_t a, int32_t b, int32_t *o) { return __builtin_sub_overflow(a, b, o); }
static bool mul32(int32_t a, int32_t b, int32_t *o) { return __builtin_mul_overflow(a, b, o); }
static bool add64(int64_t a, int64_t b, int64_t *o) { return __builtin_add_overflow(a, b, o); }
static bool sub64(int64_t a, int64_t b, int64_t *o) { return __builtin_sub_overflow(a, b, o); }
static bool mul64(int64_t a, int64_t b, int64_t *o) { return __builtin_mul_overflow(a, b, o); }

/* Division of unsigned 64-bit values by a constant d >= 1 without a
 * divide instruction (one costs tens of cycles; `id % 100` over a table
 * is a common DML condition): for d = 2^s a shift, otherwise with
 * s = floor(log2 d) and m = floor(2^(64+s) / d) (below 2^64 as d is not a
 * power of two), q0 = floor(x * m / 2^(64+s)) is the quotient or one less
 * (x * (2^(64+s)/d - m) / 2^(64+s) < x / 2^(64+s) < 2^-s <= 1/2), so one
 * comparison of the remainder with d makes it exact. */
typedef struct udiv_const {
	uint64_t d, m;
	int s;
	bool pow2;
} udiv_const;

static void udiv_init(udiv_const *u, uint64_t d)
{
	__extension__ typedef unsigned __int128 u128;
	u->d = d;
	u->s = 63 - __builtin_clzll(d);
	u->pow2 = (d & (d - 1)) == 0;
	u->m = u->pow2 ? 0 : (uint64_t)(((u128)1 << (64 + u->s)) / d);
}

static inline uint64_t udiv_q(const udiv_const *u, uint64_t x, uint64_t *rem)
{
	__extension__ typedef unsigned __int128 u128;
	if (u->pow2) {
		*rem = x & (u->d - 1);
		return x >> u->s;
	}
	uint64_t q = (uint64_t)(((u128)x * u->m) >> 64) >> u->s;
	uint64_t r = x - q * u->d;
	uint64_t fix = r >= u->d;
	*rem = r - fix * u->d;
	return q + fix;
}

/* The same for dividends and a divisor d (not a power of two) below 2^32
 * and 2^31: with m = floor(2^(32+s) / d) < 2^32, q0 = floor(x * m / 2^(32+s))
 * is the quotient or one less, by the argument above with 32 for 64. Its
 * 32 x 32 -> 64-bit multiply, unlike the 128-bit one, vectorizes (the
 * callers run it over groups of 8 rows, a fixed count, and take udiv_q for
 * a group with a larger magnitude): most columns' values fit (ids,
 * counters), and `id % 100` over 10M rows took 24 instructions a row. */
typedef struct udiv32 {
	uint64_t m;
	uint32_t d;
	int sh;
} udiv32;

static udiv32 udiv32_init(uint64_t d, int s)
{
	udiv32 v = {((uint64_t)1 << (32 + s)) / d, (uint32_t)d, 32 + s};
	return v;
}

static inline uint32_t udiv32_q(udiv32 v, uint32_t x, uint32_t *rem)
{
	uint32_t q = (uint32_t)(((uint64_t)x * v.m) >> v.sh);
	uint32_t r = x - q * v.d;
	uint32_t fix = r >= v.d;
	*rem = r - (fix ? v.d : 0);
	return q + fix;
}

#if defined(__SSE2__)
/* Eight int64 dividends, when all are in [0, 2^32), by a divisor d below
 * 2^30 (then r < 2d fits a signed 32-bit compare): udiv32_q two rows per
 * instruction. The compiler does not vectorize the scalar loop (SSE2 has
 * no 32-bit multiply, and the group's fallback is a branch); this takes
 * `id % 100` from ~20 to ~4 instructions a row. Returns false, having
 * written nothing, for a group with another value. */
static bool udiv32_group8(const int64_t *p, int64_t *o, udiv32 v, bool mod)
{
	__m128i x[4], all = _mm_setzero_si128();
	for (int k = 0; k < 4; k++) {
		x[k] = _mm_loadu_si128((const __m128i *)(const void *)(p + 2 * k));
		all = _mm_or_si128(all, x[k]);
	}
	__m128i high = _mm_srli_epi64(all, 32);
	if (_mm_movemask_epi8(_mm_cmpeq_epi32(high, _mm_setzero_si128())) != 0xFFFF) return false;
	__m128i m = _mm_set1_epi64x((int64_t)v.m), d = _mm_set1_epi64x(v.d), dm1 = _mm_set1_epi64x(v.d - 1);
	__m128i sh = _mm_cvtsi32_si128(v.sh);
	for (int k = 0; k < 4; k++) {
		__m128i q = _mm_srl_epi64(_mm_mul_epu32(x[k], m), sh);
		__m128i r = _mm_sub_epi64(x[k], _mm_mul_epu32(q, d));
		__m128i fix = _mm_cmpgt_epi32(r, dm1); /* low halves: r >= d; high halves 0 */
		__m128i out = mod ? _mm_sub_epi64(r, _mm_and_si128(fix, d)) : _mm_add_epi64(q, _mm_srli_epi64(fix, 31));
		_mm_storeu_si128((__m128i *)(void *)(o + 2 * k), out);
	}
	return true;
}
#define UDIV32_GROUP8(p, o, v, mod) udiv32_group8(p, o, v, mod)
#else
#define UDIV32_GROUP8(p, o, v, mod) false
#endif

/* o[i] = p[i] % c or p[i] div c (truncating, the remainder with the
 * dividend's sign) for a constant c other than 0 and -1, on the
 * magnitudes: |MIN| = 2^63 fits the unsigned range. */
#define CONST_DIVMOD(T, IS_MOD)                                                                   \
	do {                                                                                          \
		udiv_const u;                                                                             \
		udiv_init(&u, c < 0 ? 0 - (uint64_t)(int64_t)c : (uint64_t)(int64_t)c);                   \
		int64_t i = 0;                                                                            \
		if (!u.pow2 && u.d < ((uint64_t)1 << 31)) {                                               \
			udiv32 v = udiv32_init(u.d, u.s);                                                     \
			T tmp[8];                                                                             \
			bool wide = sizeof(T) == 8 && u.d < ((uint64_t)1 << 30) && (IS_MOD || c > 0);        \
			for (; i + 8 <= n; i += 8) {                                                          \
				if (wide && UDIV32_GROUP8((const int64_t *)(const void *)(p + i),                 \
				                          (int64_t *)(void *)(o + i), v, IS_MOD))                 \
					continue;                                                                     \
				uint64_t hi = 0;                                                                  \
				for (int k = 0; k < 8; k++) {                                                     \
					int64_t a = p[i + k];                                                         \
					uint64_t ua = a < 0 ? 0 - (uint64_t)a : (uint64_t)a;                          \
					hi |= ua;                                                                     \
					uint32_t r, qu = udiv32_q(v, (uint32_t)ua, &r);                               \
					if (IS_MOD) tmp[k] = (T)(a < 0 ? -(int64_t)r : (int64_t)r);                   \
					else tmp[k] = (T)((a < 0) != (c < 0) ? -(int64_t)qu : (int64_t)qu);           \
				}                                                                                 \
				if (hi >> 32) break; /* this group and the rest: udiv_q */                        \
				memcpy(o + i, tmp, sizeof tmp);                                                   \
			}                                                                                     \
		}                                                                                         \
		for (; i < n; i++) {                                                                      \
			int64_t a = p[i];                                                                     \
			uint64_t ua = a < 0 ? 0 - (uint64_t)a : (uint64_t)a, r;                               \
			uint64_t qu = udiv_q(&u, ua, &r);                                                     \
			if (IS_MOD) o[i] = (T)(a < 0 ? (int64_t)(0 - r) : (int64_t)r);                        \
			else o[i] = (T)((a < 0) != (c < 0) ? 0 - qu : qu);                                    \
		}                                                                                         \
	} while (0)

/* % and div on integers, as ex_int_arith does them row by row: the
 * remainder takes the dividend's sign (C and Java agree), MIN % -1 is 0,
 * MIN div -1 overflows, a zero divisor in a valid row raises DIVIDE_BY_ZERO.
 * Divisors 0 and -1 are replaced by 1 in the loop so that no row, not even
 * a null one, traps; the rows they occur in are fixed up afterwards. The
 * first failing valid row decides which error is reported, as in the row
 * path. */
#define INT_DIVMOD(T, TMIN, IS_MOD)                                                                  \
	do {                                                                                             \
		T *o = res->values;                                                                          \
		const T *p = x->a->values, *q = y->a->values;                                                \
		bool bad = false;                                                                            \
		if (yc) {                                                                                    \
			T c = q[0];                                                                              \
			if (c == 0) {                                                                            \
				CHECK_ROWS(true, ex_err_divzero());                                                  \
				if (rc == 0) memset(o, 0, (size_t)n * sizeof(T));                                    \
			} else if (c == -1) {                                                                    \
				for (int64_t i = 0; i < n; i++) {                                                    \
					bad |= p[i] == TMIN;                                                             \
					o[i] = IS_MOD ? 0 : (T)(0 - (uint64_t)p[i]);                                     \
				}                                                                                    \
				if (!IS_MOD && bad) CHECK_ROWS(p[i] == TMIN, ex_err_overflow("long", "try_divide")); \
			} else {                                                                                 \
				CONST_DIVMOD(T, IS_MOD);                                                             \
			}                                                                                        \
		} else {                                                                                     \
			for (int64_t i = 0; i < n; i++) {                                                        \
				T a = xc ? p[0] : p[i], d = q[i];                                                    \
				bool z = d == 0, m1 = d == -1;                                                       \
				T dd = (z | m1) ? 1 : d;                                                             \
				T v = IS_MOD ? a % dd : a / dd;                                                      \
				T neg = (T)(0 - (uint64_t)a);                                                        \
				o[i] = m1 ? (IS_MOD ? 0 : neg) : v;                                                  \
				bad |= z | (!IS_MOD && m1 && a == TMIN);                                             \
			}                                                                                        \
			if (bad)                                                                                 \
				for (int64_t i = 0; i < n; i++) {                                                    \
					if (!valid_row(vld, i)) continue;                                                \
					T a = xc ? p[0] : p[i];                                                          \
					if (q[i] == 0) {                                                                 \
						rc = ex_err_divzero();                                                       \
						break;                                                                       \
					}                                                                                \
					if (!IS_MOD && q[i] == -1 && a == TMIN) {                                        \
						rc = ex_err_overflow("long", "try_divide");                                  \
						break;                                                                       \
					}                                                                                \
				}                                                                                    \
		}                                                                                            \
	} while (0)

/* Doubles: fmod, with the row path's zero check (ANSI: x % 0.0 fails). */
static int dbl_mod(double *o, const double *p, const double *q, bool xc, bool yc, int64_t n, const uint8_t *vld)
{
	int rc = 0;
	if (yc && q[0] == 0) {
		CHECK_ROWS(true, ex_err_divzero());
		if (rc == 0) memset(o, 0, (size_t)n * sizeof *o);
		return rc;
	}
	if (!yc) CHECK_ROWS(q[i] == 0, ex_err_divzero());
	if (rc < 0) return rc;
	for (int64_t i = 0; i < n; i++) o[i] = fmod(xc ? p[0] : p[i], yc ? q[0] : q[i]);
	return 0;
}

/* Decimals of one scale (inputs and result): the remainder is exact and
 * no larger than either input, so it always fits the result type. */
static int dec_mod(void *o, const void *p, const void *q, bool xc, bool yc, int64_t n, const uint8_t *vld)
{
	int rc = 0;
	dl_i128 c = 0;
	if (yc) {
		memcpy(&c, q, 16);
		if (c == 0) {
			CHECK_ROWS(true, ex_err_divzero());
			if (rc == 0) memset(o, 0, (size_t)n * 16);
			return rc;
		}
	} else {
		for (int64_t i = 0; i < n; i++) {
			dl_i128 d;
			memcpy(&d, (const char *)q + 16 * i, 16);
			if (d == 0 && valid_row(vld, i)) return ex_err_divzero();
		}
	}
	for (int64_t i = 0; i < n; i++) {
		dl_i128 a, d = c, v = 0;
		memcpy(&a, (const char *)p + (xc ? 0 : 16 * i), 16);
		if (!yc) memcpy(&d, (const char *)q + 16 * i, 16);
		if (d != 0) v = a % d; /* d == 0 only in null rows */
		memcpy((char *)o + 16 * i, &v, 16);
	}
	return 0;
}

static int divmod_kernel(ex_vec *out, const ex_node *nd, ex_vec *args, ex_run *r)
{
	const dl_type *t = nd->type, *ta = args[0].a->type, *tb = args[1].a->type;
	dl_type_id id = t->id;
	int op = nd->op;
	if (ta->id != id || tb->id != id) return 0;
	if (op == OP_IDIV && id != DL_TYPE_LONG) return 0; /* decimal div: row path */
	if (id == DL_TYPE_DECIMAL && (ta->scale != t->scale || tb->scale != t->scale)) return 0;
	if (id != DL_TYPE_INTEGER && id != DL_TYPE_LONG && id != DL_TYPE_DOUBLE && id != DL_TYPE_DECIMAL) return 0;
	ex_vec *x = &args[0], *y = &args[1];
	bool xc = x->is_const, yc = y->is_const;
	if (xc && yc) return 0;
	int64_t n = r->n;
	uint8_t *vld;
	int rc = merged_validity(&vld, x, y, n);
	if (rc == -1) return all_null(out, t);
	if (rc < 0) return rc;
	dl_array *res = ex_alloc_fixed(t, n);
	if (!res) {
		dl_free(vld);
		return DL_ENOMEM;
	}
	if (id == DL_TYPE_INTEGER) INT_DIVMOD(int32_t, INT32_MIN, true);
	else if (id == DL_TYPE_LONG && op == OP_MOD) INT_DIVMOD(int64_t, INT64_MIN, true);
	else if (id == DL_TYPE_LONG) INT_DIVMOD(int64_t, INT64_MIN, false);
	else if (id == DL_TYPE_DOUBLE) rc = dbl_mod(res->values, x->a->values, y->a->values, xc, yc, n, vld);
	else rc = dec_mod(res->values, x->a->values, y->a->values, xc, yc, n, vld);
	if (rc < 0) {
		dl_array_free(res);
		dl_free(vld);
		return rc;
	}
	res->validity = vld;
	res->null_count = vld ? -1 : 0;
	out->a = out->owned = res;
	out->is_const = false;
	return 1;
}

static int arith_kernel(ex_vec *out, const ex_node *nd, ex_vec *args, ex_run *r)
{
	dl_type_id id = nd->type->id;
	int op = nd->op;
	if (op == OP_MOD || op == OP_IDIV) return divmod_kernel(out, nd, args, r);
	if (args[0].a->type->id != id || args[1].a->type->id != id) return 0;
	if (id != DL_TYPE_INTEGER && id != DL_TYPE_LONG && id != DL_TYPE_DOUBLE) return 0;
	if (op != OP_ADD && op != OP_SUB && op != OP_MUL && !(op == OP_DIV && id == DL_TYPE_DOUBLE)) return 0;
	ex_vec *x = &args[0], *y = &args[1];
	bool xc = x->is_const, yc = y->is_const;
	if (xc && yc) return 0;
	int64_t n = r->n;
	uint8_t *vld;
	int rc = merged_validity(&vld, x, y, n);
	if (rc == -1) return all_null(out, nd->type);
	if (rc < 0) return rc;
	dl_array *res = ex_alloc_fixed(nd->type, n);
	if (!res) {
		dl_free(vld);
		return DL_ENOMEM;
	}
	static const char *const tryn[] = {[OP_ADD] = "try_add", [OP_SUB] = "try_subtract", [OP_MUL] = "try_multiply"};
	if (id == DL_TYPE_INTEGER) {
		if (op == OP_ADD) INT_ARITH(int32_t, add32, "integer", tryn[op]);
		else if (op == OP_SUB) INT_ARITH(int32_t, sub32, "integer", tryn[op]);
		else INT_ARITH(int32_t, mul32, "integer", tryn[op]);
	} else if (id == DL_TYPE_LONG) {
		if (op == OP_ADD) INT_ARITH(int64_t, add64, "long", tryn[op]);
		else if (op == OP_SUB) INT_ARITH(int64_t, sub64, "long", tryn[op]);
		else INT_ARITH(int64_t, mul64, "long", tryn[op]);
	} else {
		if (op == OP_ADD) DBL_ARITH(double, +);
		else if (op == OP_SUB) DBL_ARITH(double, -);
		else if (op == OP_MUL) DBL_ARITH(double, *);
		else {
			const double *q = y->a->values;
			if (yc && q[0] == 0) rc = ex_err_divzero();
			if (!yc) CHECK_ROWS(q[i] == 0, ex_err_divzero());
			if (rc == 0) DBL_ARITH(double, /);
		}
	}
	if (rc < 0) {
		dl_array_free(res);
		dl_free(vld);
		return rc;
	}
	res->validity = vld;
	res->null_count = vld ? -1 : 0;
	out->a = out->owned = res;
	out->is_const = false;
	return 1;
}

int ex_kernel_op(ex_vec *out, const ex_node *n, ex_vec *args, ex_run *r)
{
	switch (n->op) {
	case OP_EQ:
	case OP_NE:
	case OP_LT:
	case OP_LE:
	case OP_GT:
	case OP_GE: return cmp_kernel(out, n, args, r);
	case OP_ADD:
	case OP_SUB:
	case OP_MUL:
	case OP_DIV:
	case OP_MOD:
	case OP_IDIV: return arith_kernel(out, n, args, r);
	default: return 0;
	}
}

/* Widening numeric casts that cannot fail. */
int ex_kernel_cast(ex_vec *out, const ex_node *n, ex_vec *arg, ex_run *r)
{
	dl_type_id f = arg->a->type->id, t = n->type->id;
	if (arg->is_const) return 0;
	bool ok = (t == DL_TYPE_LONG && (f == DL_TYPE_INTEGER || f == DL_TYPE_SHORT || f == DL_TYPE_BYTE)) ||
	          (t == DL_TYPE_DOUBLE && (f == DL_TYPE_INTEGER || f == DL_TYPE_LONG || f == DL_TYPE_FLOAT ||
	                                   f == DL_TYPE_SHORT || f == DL_TYPE_BYTE)) ||
	          (t == DL_TYPE_INTEGER && (f == DL_TYPE_SHORT || f == DL_TYPE_BYTE));
	if (!ok) return 0;
	int64_t n_ = r->n;
	dl_array *res = ex_alloc_fixed(n->type, n_);
	if (!res) return DL_ENOMEM;
	const void *src = arg->a->values;
#define WIDEN(TO, FROM)                                                                      \
	do {                                                                                     \
		TO *o = res->values;                                                                 \
		const FROM *p = src;                                                                 \
		for (int64_t i = 0; i < n_; i++) o[i] = (TO)p[i];                                    \
	} while (0)
	if (t == DL_TYPE_LONG) {
		if (f == DL_TYPE_INTEGER) WIDEN(int64_t, int32_t);
		else if (f == DL_TYPE_SHORT) WIDEN(int64_t, int16_t);
		else WIDEN(int64_t, int8_t);
	} else if (t == DL_TYPE_INTEGER) {
		if (f == DL_TYPE_SHORT) WIDEN(int32_t, int16_t);
		else WIDEN(int32_t, int8_t);
	} else {
		if (f == DL_TYPE_INTEGER) WIDEN(double, int32_t);
		else if (f == DL_TYPE_LONG) WIDEN(double, int64_t);
		else if (f == DL_TYPE_FLOAT) WIDEN(double, float);
		else if (f == DL_TYPE_SHORT) WIDEN(double, int16_t);
		else WIDEN(double, int8_t);
	}
#undef WIDEN
	if (arg->a->validity) {
		size_t bytes = (size_t)(n_ + 7) / 8;
		res->validity = dl_malloc(bytes ? bytes : 1);
		if (!res->validity) {
			dl_array_free(res);
			return DL_ENOMEM;
		}
		memcpy(res->validity, arg->a->validity, bytes);
		res->null_count = -1;
	}
	out->a = out->owned = res;
	out->is_const = false;
	return 1;
}
