/* Range ids and space-filling curve keys (see curve.h). */
#include "optimize/curve.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/mem.h"

int dl_curve_bits(int n, int64_t ranges)
{
	int bits = 1;
	while (bits < 31 && ((int64_t)1 << bits) < ranges) bits++;
	if (n < 1) n = 1;
	while (bits > 1 && n * bits > 63) bits--;
	return bits;
}

uint64_t dl_zorder_key(const uint32_t *ids, int n, int bits)
{
	uint64_t k = 0;
	for (int q = bits - 1; q >= 0; q--)
		for (int i = 0; i < n; i++) k = (k << 1) | ((ids[i] >> q) & 1u);
	return k;
}

/* ---- Spark's Hilbert index (HilbertIndex.scala, HilbertStates.java) ----
 *
 * Spark does not use a closed formula: it builds, per dimension n, a state
 * machine from its generator table (x2 Gray codes, one "matrix" per row:
 * a mask of negated columns x2 and a rotation dy), and walks it bit plane
 * by bit plane. Another Hilbert curve (Skilling's, say) has the same
 * locality but other indexes, and files clustered by Spark and by us would
 * then interleave differently; so the same construction is built here, in
 * the same order, so that states get the same numbers and every point the
 * same index. */

typedef struct hmat {
	uint32_t x2;
	int dy;
} hmat;

static uint32_t rotl(int n, uint32_t i, int s)
{
	uint32_t m = (1u << n) - 1;
	return s == 0 ? i & m : ((i << s) | (i >> (n - s))) & m;
}

static uint32_t rotr(int n, uint32_t i, int s)
{
	uint32_t m = (1u << n) - 1;
	return s == 0 ? i & m : ((i >> s) | (i << (n - s))) & m;
}

static uint32_t hmat_transform(int n, hmat m, uint32_t e) { return rotl(n, e ^ m.x2, m.dy); }

static hmat hmat_multiply(int n, hmat a, hmat b)
{
	return (hmat){rotr(n, a.x2, b.dy) ^ b.x2, (a.dy + b.dy) % n};
}

/* getX2GrayCodes(n): 2^(n+1) values. */
static uint32_t *x2_gray_codes(int n)
{
	size_t len = (size_t)4;
	uint32_t *r = dl_malloc(((size_t)2 << n) * sizeof *r);
	if (!r) return NULL;
	r[0] = 0, r[1] = 1, r[2] = 0, r[3] = 1;
	for (int d = 2; d <= n; d++) {
		uint32_t mask = 1u << (d - 1);
		r[len - 1] = r[len - 2] + mask;
		for (size_t i = 0; i < len; i++) r[2 * len - 1 - i] = r[i] ^ mask;
		len *= 2;
	}
	return r;
}

struct dl_hilbert_table {
	int n;
	int nstates;
	/* state * 2^n + point -> (index digit << 32) | next state, as
	 * HilbertCompactStateList */
	uint64_t *map;
};

static int hilbert_build(dl_hilbert_table *t, int n)
{
	size_t len = (size_t)1 << n;
	size_t maxstates = (size_t)n * len; /* one per distinct (x2, dy) */
	uint32_t *x2s = x2_gray_codes(n);
	hmat *mats = dl_calloc(maxstates, sizeof *mats);
	int *by_mat = dl_malloc(maxstates * sizeof *by_mat); /* (x2, dy) -> state */
	uint32_t *init_x1 = dl_calloc(len, sizeof *init_x1);
	int *init_state = dl_calloc(len, sizeof *init_state);
	uint32_t *y_of_x1 = dl_calloc(len, sizeof *y_of_x1);
	t->map = dl_calloc(maxstates * len, sizeof *t->map);
	int rc = 0;
	if (!x2s || !mats || !by_mat || !init_x1 || !init_state || !y_of_x1 || !t->map) {
		rc = DL_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < maxstates; i++) by_mat[i] = -1;
#define MAT_SLOT(m) ((size_t)(m).x2 * (size_t)n + (size_t)(m).dy)
	int nstates = 1;
	mats[0] = (hmat){0, 0}; /* the initial state: identity */
	by_mat[MAT_SLOT(mats[0])] = 0;
	/* the generator table's rows, and the initial state's point states */
	for (size_t y = 0; y < len; y++) {
		uint32_t x21 = x2s[y << 1], x22 = x2s[(y << 1) + 1];
		uint32_t dy = x21 ^ x22;
		hmat m = {x21, n - 1 - __builtin_ctz(dy)};
		init_x1[y] = (uint32_t)(y ^ (y >> 1));
		y_of_x1[init_x1[y]] = (uint32_t)y;
		int s = by_mat[MAT_SLOT(m)];
		if (s < 0) {
			s = nstates++;
			mats[s] = m;
			by_mat[MAT_SLOT(m)] = s;
		}
		init_state[y] = s;
	}
	for (size_t y = 0; y < len; y++)
		t->map[init_x1[y]] = ((uint64_t)y << 32) | (uint32_t)init_state[y];
	/* states are processed in the order they were found (Spark's queue) */
	for (int cur = 1; cur < nstates; cur++) {
		hmat cm = mats[cur];
		for (size_t i = 0; i < len; i++) {
			uint32_t j = hmat_transform(n, cm, (uint32_t)i);
			uint32_t py = y_of_x1[j];
			hmat tm = hmat_multiply(n, mats[init_state[py]], cm);
			int s = by_mat[MAT_SLOT(tm)];
			if (s < 0) {
				s = nstates++;
				mats[s] = tm;
				by_mat[MAT_SLOT(tm)] = s;
			}
			/* point state py of this state: x1 = i */
			t->map[(size_t)cur * len + i] = ((uint64_t)py << 32) | (uint32_t)s;
		}
	}
#undef MAT_SLOT
	t->n = n;
	t->nstates = nstates;
out:
	if (rc) {
		dl_free(t->map);
		t->map = NULL;
	}
	dl_free(x2s);
	dl_free(mats);
	dl_free(by_mat);
	dl_free(init_x1);
	dl_free(init_state);
	dl_free(y_of_x1);
	return rc;
}

/* Built once per dimension, shared by all threads, never freed (as
 * Spark's HilbertStates holders). */
static dl_hilbert_table *_Atomic tables[DL_HILBERT_MAX_DIMS + 1];
static pthread_mutex_t tables_lock = PTHREAD_MUTEX_INITIALIZER;

int dl_hilbert_table_get(const dl_hilbert_table **out, int n)
{
	*out = NULL;
	if (n < 2 || n > DL_HILBERT_MAX_DIMS) {
		return dl_error_set(DL_EINVALID,
		             "Cannot perform hilbert clustering on fewer than 2 or more than 9 dimensions; got %d dimensions",
		             n);
	}
	dl_hilbert_table *t = atomic_load(&tables[n]);
	if (t) {
		*out = t;
		return 0;
	}
	pthread_mutex_lock(&tables_lock);
	t = atomic_load(&tables[n]);
	if (!t) {
		t = dl_calloc(1, sizeof *t);
		if (t && hilbert_build(t, n) != 0) {
			dl_free(t);
			t = NULL;
		}
		if (t) atomic_store(&tables[n], t);
	}
	pthread_mutex_unlock(&tables_lock);
	if (!t) return dl_error_set(DL_ENOMEM, "out of memory building the %d-dimensional Hilbert states", n);
	*out = t;
	return 0;
}

uint64_t dl_hilbert_index(const dl_hilbert_table *t, const uint32_t *point, int k)
{
	int n = t->n;
	uint64_t r = 0;
	uint32_t state = 0;
	for (int i = 0; i < k; i++) {
		uint32_t z = 0;
		for (int j = 0; j < n; j++) z = (z << 1) | ((point[j] >> (k - 1 - i)) & 1u);
		uint64_t v = t->map[((size_t)state << n) + z];
		r = (r << n) | (v >> 32);
		state = (uint32_t)v;
	}
	return r;
}

uint64_t dl_hilbert_key(const dl_hilbert_table *t, const uint32_t *ids, int n, int bits)
{
	if (n == 1) return ids[0];
	return dl_hilbert_index(t, ids, bits);
}

void dl_interleave_bits(uint8_t *out, const int32_t *in, int n)
{
	/* InterleaveBits: output bit 0 (the most significant of byte 0) is bit 31
	 * of input 0, then bit 31 of input 1, ..., then bit 30 of input 0 ... */
	memset(out, 0, (size_t)n * 4);
	size_t o = 0;
	for (int b = 31; b >= 0; b--)
		for (int i = 0; i < n; i++, o++)
			if (((uint32_t)in[i] >> b) & 1u) out[o >> 3] |= (uint8_t)(0x80u >> (o & 7));
}

static uint64_t double_key(double d)
{
	if (d != d) return UINT64_MAX; /* NaN above every number, as Spark sorts it */
	if (d == 0) d = 0;           /* -0.0 = 0.0 */
	uint64_t u;
	memcpy(&u, &d, sizeof u);
	return (u & 0x8000000000000000ull) ? ~u : u | 0x8000000000000000ull;
}

static int valid(const dl_array *a, int64_t row)
{
	return !a->validity || (a->validity[row >> 3] >> (row & 7)) & 1;
}

uint64_t dl_curve_value_key(const dl_array *a, int64_t row, int *null)
{
	*null = 0;
	if (a->type->id == DL_TYPE_NULL || !valid(a, row)) {
		*null = 1;
		return 0;
	}
	int64_t i;
	switch (a->type->id) {
	case DL_TYPE_BOOLEAN:
		return (((const uint8_t *)a->values)[row >> 3] >> (row & 7)) & 1;
	case DL_TYPE_BYTE: i = ((const int8_t *)a->values)[row]; break;
	case DL_TYPE_SHORT: i = ((const int16_t *)a->values)[row]; break;
	case DL_TYPE_INTEGER:
	case DL_TYPE_DATE: i = ((const int32_t *)a->values)[row]; break;
	case DL_TYPE_LONG:
	case DL_TYPE_TIMESTAMP:
	case DL_TYPE_TIMESTAMP_NTZ: i = ((const int64_t *)a->values)[row]; break;
	case DL_TYPE_FLOAT: return double_key(((const float *)a->values)[row]);
	case DL_TYPE_DOUBLE: return double_key(((const double *)a->values)[row]);
	case DL_TYPE_DECIMAL: {
		dl_i128 v;
		memcpy(&v, (const uint8_t *)a->values + 16 * row, sizeof v);
		double d = (double)v;
		for (int s = 0; s < a->type->scale; s++) d /= 10;
		return double_key(d);
	}
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY: {
		const uint8_t *p = a->data + a->offsets[row];
		int32_t len = a->offsets[row + 1] - a->offsets[row];
		uint64_t k = 0;
		for (int b = 0; b < 8; b++) k = (k << 8) | (b < len ? p[b] : 0);
		return k;
	}
	default:
		*null = 1; /* no order: everything in range 0 */
		return 0;
	}
	return (uint64_t)i ^ 0x8000000000000000ull;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int dl_curve_ranges_from_sample(dl_curve_ranges *out, uint64_t *sample, size_t n, int64_t ranges)
{
	out->bounds = NULL;
	out->n = 0;
	if (n == 0 || ranges <= 1) return 0;
	qsort(sample, n, sizeof *sample, cmp_u64);
	size_t want = (size_t)ranges - 1;
	out->bounds = dl_calloc(want, sizeof *out->bounds);
	if (!out->bounds) return DL_ENOMEM;
	/* RangePartitioner.determineBounds with every sample of weight 1: a
	 * bound where the cumulative weight reaches the next multiple of
	 * n/ranges; a duplicate of the previous bound is skipped and the target
	 * stays, so the next greater key takes it. */
	double step = (double)n / (double)ranges, target = step, cum = 0;
	for (size_t i = 0; i < n && out->n < want; i++) {
		cum += 1;
		if (cum >= target && (out->n == 0 || sample[i] > out->bounds[out->n - 1])) {
			out->bounds[out->n++] = sample[i];
			target += step;
		}
	}
	return 0;
}

uint32_t dl_curve_range_id(const dl_curve_ranges *r, uint64_t key, int null)
{
	if (null) return 0;
	size_t lo = 0, hi = r->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (r->bounds[mid] < key) lo = mid + 1;
		else hi = mid;
	}
	return (uint32_t)lo;
}

void dl_curve_ranges_free(dl_curve_ranges *r)
{
	dl_free(r->bounds);
	r->bounds = NULL;
	r->n = 0;
}
