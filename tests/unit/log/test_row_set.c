/* Row sets (src/log/row_set.h): membership and
 * next-position queries against a plain sorted array over sparse, dense,
 * alternating and full ranges; the memory a set holds (at most about a bit
 * per position of the chunks touched, where the engine held 8 bytes per
 * position before); the DV built from two sets byte-identical to the one
 * dl_dv_rows_from_array builds from their positions (what the engine did
 * before), old DVs with run containers included; the batch selections the
 * scan takes from a DV's set; the charges to a budget; and every
 * allocation failed in turn. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "log/row_set.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/mem_fault.h"

#define OK(expr)                                                                   \
	do {                                                                           \
		int rc_ = (expr);                                                          \
		if (rc_ < 0) fail_msg("%s: %s", #expr, dl_error_last()->message);        \
	} while (0)

typedef struct pos_list {
	uint64_t *v;
	size_t n, cap;
} pos_list;

static void pl_add(pos_list *l, uint64_t v)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 1024;
		l->v = realloc(l->v, l->cap * sizeof *l->v);
		assert_non_null(l->v);
	}
	l->v[l->n++] = v;
}

static uint64_t g_seed = 88172645463325252ull;
static uint64_t rnd(void)
{
	g_seed ^= g_seed << 13;
	g_seed ^= g_seed >> 7;
	g_seed ^= g_seed << 17;
	return g_seed;
}

/* Positions in [from, to): every `step`th, or each with probability
 * 1/odds when step is 0. */
static void fill(pos_list *l, uint64_t from, uint64_t to, uint64_t step, uint64_t odds)
{
	for (uint64_t p = from; p < to; p++)
		if (step ? (p - from) % step == 0 : rnd() % odds == 0) pl_add(l, p);
}

static void build(dl_rowset *s, const pos_list *l)
{
	/* in pieces of varying length, as the engine pushes batch by batch */
	for (size_t i = 0; i < l->n;) {
		size_t m = 1 + rnd() % 5000;
		if (m > l->n - i) m = l->n - i;
		OK(dl_rowset_push(s, l->v + i, m, "test"));
		i += m;
	}
	assert_int_equal(s->count, l->n);
}

/* has() at every position of [0, end) and next() from a random walk agree
 * with the list. */
static void check_queries(const dl_rowset *s, const pos_list *l, uint64_t end)
{
	dl_rowset_cursor c;
	dl_rowset_cursor_init(&c, s);
	size_t k = 0;
	for (uint64_t p = 0; p < end; p++) {
		while (k < l->n && l->v[k] < p) k++;
		bool want = k < l->n && l->v[k] == p;
		if (dl_rowset_has(&c, p) != want) fail_msg("has(%llu) is %d", (unsigned long long)p, !want);
	}
	dl_rowset_cursor_init(&c, s);
	k = 0;
	for (uint64_t p = 0; p < end + 3;) {
		while (k < l->n && l->v[k] < p) k++;
		uint64_t want = k < l->n ? l->v[k] : UINT64_MAX;
		uint64_t got = dl_rowset_next(&c, p);
		if (got != want)
			fail_msg("next(%llu) is %llu, expected %llu", (unsigned long long)p,
			         (unsigned long long)got, (unsigned long long)want);
		p += rnd() % 3 == 0 ? 1 + rnd() % 70000 : 1 + rnd() % 40;
	}
}

/* The position patterns both query tests fill their first chunks with:
 * (step, 0) every step-th position, (0, odds) each position with chance
 * 1/odds. */
static const struct {
	uint64_t step, odds;
} SHAPES[] = {{2, 0}, {0, 3}, {0, 40}, {0, 20000}, {1, 0}, {7, 0}};

static void test_queries(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof SHAPES / sizeof SHAPES[0]; i++) {
		pos_list l = {0};
		fill(&l, 0, 300000, SHAPES[i].step, SHAPES[i].odds);
		fill(&l, 300000, 400000, 1, 0);         /* a full run across chunks */
		fill(&l, 400000, 500000, 0, 2);
		dl_rowset s = DL_ROWSET_INIT;
		build(&s, &l);
		check_queries(&s, &l, 520000);
		dl_rowset_free(&s);
		free(l.v);
	}
}

/* What a set holds: the engine's 8 bytes per position are gone. */
static void test_memory(void **state)
{
	(void)state;
	/* every other row of 10M (the worst case for runs): bitmaps, 1 bit per row */
	pos_list l = {0};
	fill(&l, 0, 10000000, 2, 0);
	dl_rowset s = DL_ROWSET_INIT;
	build(&s, &l);
	assert_true(s.bytes <= 153 * 8192 + 256 * 24);
	assert_true(s.bytes * 30 < l.n * sizeof(uint64_t));
	check_queries(&s, &l, 300000);
	dl_rowset_free(&s);
	/* every row of 10M: full chunks, nothing but their headers */
	l.n = 0;
	fill(&l, 0, 10000000, 1, 0);
	build(&s, &l);
	assert_true(s.bytes <= 256 * 24 + 8192); /* the last chunk is partial */
	dl_rowset_free(&s);
	/* sparse: one row in 1000, 2 bytes a row plus the chunk headers */
	l.n = 0;
	fill(&l, 0, 10000000, 1000, 0);
	build(&s, &l);
	assert_true(s.bytes <= 10000 * 2 + 10000 * 2 + 256 * 24);
	dl_rowset_free(&s);
	free(l.v);
}

/* The set of l as the scan and MERGE build it: l as a DV, serialized (run
 * containers), parsed and turned into a set. */
static void build_via_dv(dl_rowset *s, const pos_list *l)
{
	dl_dv_rows o, back;
	dl_buf ob = DL_BUF_INIT;
	OK(dl_dv_rows_from_array(&o, l->v, l->n));
	OK(dl_dv_rows_serialize(&o, &ob));
	OK(dl_dv_rows_deserialize(&back, (const uint8_t *)ob.data, ob.len, "test"));
	OK(dl_rowset_from_dv(s, &back));
	assert_int_equal(s->count, l->n);
	if (l->n) assert_int_equal(s->last, l->v[l->n - 1]);
	dl_dv_rows_free(&o);
	dl_dv_rows_free(&back);
	dl_buf_free(&ob);
}

/* select() over ascending batches (as a scan reads a file, row groups
 * skipped now and then) and rank() agree with the list. */
static void check_select(const dl_rowset *s, const pos_list *l, uint64_t end)
{
	uint32_t *idx = malloc(70000 * sizeof *idx);
	assert_non_null(idx);
	for (int in = 0; in < 2; in++) {
		dl_rowset_cursor c;
		dl_rowset_cursor_init(&c, s);
		size_t k = 0;
		for (uint64_t first = 0; first < end;) {
			uint32_t n = (uint32_t)(rnd() % 4 == 0 ? 1 + rnd() % 70000 : 1 + rnd() % 9000);
			size_t got = dl_rowset_select(&c, first, n, in, idx);
			while (k < l->n && l->v[k] < first) k++;
			size_t want = 0, kk = k;
			for (uint32_t j = 0; j < n; j++) {
				bool listed = kk < l->n && l->v[kk] == first + j;
				if (listed) kk++;
				if (listed != (bool)in) continue;
				if (want >= got || idx[want] != j)
					fail_msg("select(%llu, %u, %d): entry %zu is not %u", (unsigned long long)first, n, in,
					         want, j);
				want++;
			}
			assert_int_equal(got, want);
			first += n + (rnd() % 5 == 0 ? rnd() % 100000 : 0);
		}
	}
	free(idx);
	size_t k = 0;
	for (uint64_t p = 0; p < end; p += 1 + rnd() % 30000) {
		while (k < l->n && l->v[k] < p) k++;
		assert_int_equal(dl_rowset_rank(s, p), k);
	}
	assert_int_equal(dl_rowset_rank(s, UINT64_MAX), l->n - (l->n && l->v[l->n - 1] == UINT64_MAX));
}

static void test_select_and_rank(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof SHAPES / sizeof SHAPES[0]; i++) {
		pos_list l = {0};
		fill(&l, 0, 300000, SHAPES[i].step, SHAPES[i].odds);
		fill(&l, 300000, 400000, 1, 0);         /* a full run across chunks */
		fill(&l, 400000, 500000, 0, 2);
		fill(&l, 700000, 700001, 1, 0);         /* past empty chunks */
		for (int via_dv = 0; via_dv < 2; via_dv++) {
			dl_rowset s = DL_ROWSET_INIT;
			if (via_dv) build_via_dv(&s, &l);
			else build(&s, &l);
			check_select(&s, &l, 800000);
			if (via_dv) check_queries(&s, &l, 520000);
			dl_rowset_free(&s);
		}
		free(l.v);
	}
	/* a DV across the 2^32 bucket boundary */
	pos_list l = {0};
	fill(&l, (1ull << 32) - 100000, (1ull << 32) + 100000, 0, 3);
	dl_rowset s = DL_ROWSET_INIT;
	build_via_dv(&s, &l);
	dl_rowset_cursor c;
	dl_rowset_cursor_init(&c, &s);
	uint32_t *idx = malloc(200000 * sizeof *idx);
	size_t got = dl_rowset_select(&c, (1ull << 32) - 100000, 200000, true, idx);
	assert_int_equal(got, l.n);
	for (size_t k = 0; k < l.n; k++) assert_int_equal(idx[k], l.v[k] - ((1ull << 32) - 100000));
	free(idx);
	dl_rowset_free(&s);
	free(l.v);
}

/* A budget that counts what is charged and refuses past its limit. */
typedef struct count_budget {
	int64_t used, limit, refused;
} count_budget;

static int budget_charge(void *payload, int64_t bytes)
{
	count_budget *b = payload;
	if (bytes > 0 && b->limit && b->used + bytes > b->limit) {
		b->refused++;
		return dl_error_set(DL_ENOMEM, "test budget of %lld bytes exceeded", (long long)b->limit);
	}
	b->used += bytes;
	assert_true(b->used >= 0);
	return 0;
}

/* What a set holds is charged before it is allocated and released when
 * freed; a refused charge fails the push (the budget's error), the set
 * holding no more than was charged. */
static void test_budget(void **state)
{
	(void)state;
	pos_list l = {0};
	fill(&l, 0, 300000, 0, 3);
	fill(&l, 300000, 500000, 1, 0);
	fill(&l, 500000, 900000, 1000, 0);
	count_budget tb = {0, 0, 0};
	dl_rowset_budget b = {budget_charge, &tb};
	for (int via_dv = 0; via_dv < 2; via_dv++) {
		dl_rowset s = DL_ROWSET_INIT;
		s.budget = &b;
		if (via_dv) build_via_dv(&s, &l);
		else build(&s, &l);
		assert_true(s.bytes > 5 * 8192);
		assert_int_equal(tb.used, (int64_t)s.bytes);
		dl_rowset_free(&s);
		assert_int_equal(tb.used, 0);
		assert_ptr_equal(s.budget, &b); /* kept for reuse */
	}
	/* under a limit */
	tb.limit = 3 * 8192;
	dl_rowset s = DL_ROWSET_INIT;
	s.budget = &b;
	int rc = dl_rowset_push(&s, l.v, l.n, "t");
	assert_int_equal(rc, DL_ENOMEM);
	assert_non_null(strstr(dl_error_last()->message, "test budget"));
	dl_error_clear();
	assert_true(tb.refused > 0);
	assert_int_equal(tb.used, (int64_t)s.bytes);
	assert_true(tb.used <= tb.limit);
	/* what it holds is a prefix of the positions */
	dl_rowset_cursor c;
	dl_rowset_cursor_init(&c, &s);
	for (size_t k = 0; k < s.count; k += 97) assert_true(dl_rowset_has(&c, l.v[k]));
	dl_rowset_free(&s);
	assert_int_equal(tb.used, 0);
	/* from a DV: nothing is left charged after the refusal */
	dl_dv_rows o;
	OK(dl_dv_rows_from_array(&o, l.v, l.n));
	assert_int_equal(dl_rowset_from_dv(&s, &o), DL_ENOMEM);
	dl_error_clear();
	assert_int_equal(s.count, 0);
	assert_int_equal(tb.used, 0);
	dl_dv_rows_free(&o);
	free(l.v);
}

static void test_refuses_unsorted(void **state)
{
	(void)state;
	dl_rowset s = DL_ROWSET_INIT;
	uint64_t a[] = {5, 9}, b[] = {9, 10}, c[] = {12, 11};
	OK(dl_rowset_push(&s, a, 2, "t"));
	assert_int_equal(dl_rowset_push(&s, b, 2, "t"), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "not sorted"));
	dl_error_clear();
	dl_rowset_free(&s);
	assert_int_equal(dl_rowset_push(&s, c, 2, "t"), DL_EINVALID);
	dl_error_clear();
	dl_rowset_free(&s);
	/* refused inside a bitmap chunk: the set holds the positions before it */
	pos_list l = {0};
	fill(&l, 0, 5000, 1, 0);
	fill(&l, 6000, 6011, 1, 0);
	pl_add(&l, 6005);
	OK(dl_rowset_push(&s, l.v, 5000, "t"));
	assert_int_equal(dl_rowset_push(&s, l.v + 5000, l.n - 5000, "t"), DL_EINVALID);
	dl_error_clear();
	assert_int_equal(s.count, 5011);
	dl_rowset_cursor cur;
	dl_rowset_cursor_init(&cur, &s);
	assert_true(dl_rowset_has(&cur, 4999));
	assert_false(dl_rowset_has(&cur, 5000));
	assert_true(dl_rowset_has(&cur, 6010));
	assert_int_equal(dl_rowset_next(&cur, 6011), UINT64_MAX);
	dl_rowset_free(&s);
	free(l.v);
}

/* The serialized DV of a ∪ b equals the one built from their positions. */
static void check_union(const pos_list *la, const pos_list *lb, bool old_via_dv)
{
	pos_list all = {0};
	size_t i = 0, j = 0;
	while (i < la->n || j < lb->n)
		pl_add(&all, j == lb->n || (i < la->n && la->v[i] < lb->v[j]) ? la->v[i++] : lb->v[j++]);
	dl_dv_rows want;
	OK(dl_dv_rows_from_array(&want, all.v, all.n));
	dl_buf wb = DL_BUF_INIT, gb = DL_BUF_INIT;
	OK(dl_dv_rows_serialize(&want, &wb));
	dl_rowset a = DL_ROWSET_INIT, b = DL_ROWSET_INIT;
	if (old_via_dv) {
		/* an old DV as read from a DV file: serialized (run containers),
		 * parsed, then turned into a set */
		dl_dv_rows o, back;
		dl_buf ob = DL_BUF_INIT;
		OK(dl_dv_rows_from_array(&o, la->v, la->n));
		OK(dl_dv_rows_serialize(&o, &ob));
		OK(dl_dv_rows_deserialize(&back, (const uint8_t *)ob.data, ob.len, "test"));
		OK(dl_rowset_from_dv(&a, &back));
		assert_int_equal(a.count, la->n);
		dl_dv_rows_free(&o);
		dl_dv_rows_free(&back);
		dl_buf_free(&ob);
	} else {
		build(&a, la);
	}
	build(&b, lb);
	dl_dv_rows got;
	OK(dl_rowset_union_dv(&got, &a, &b));
	assert_int_equal(got.cardinality, all.n);
	assert_int_equal(got.nbuckets, want.nbuckets);
	OK(dl_dv_rows_serialize(&got, &gb));
	assert_int_equal(gb.len, wb.len);
	assert_memory_equal(gb.data, wb.data, wb.len);
	dl_dv_rows_free(&want);
	dl_dv_rows_free(&got);
	dl_rowset_free(&a);
	dl_rowset_free(&b);
	dl_buf_free(&wb);
	dl_buf_free(&gb);
	free(all.v);
}

static void test_union_dv(void **state)
{
	(void)state;
	for (int old_via_dv = 0; old_via_dv < 2; old_via_dv++) {
		/* a: runs, every 3rd, sparse; b: what a lacks, in other shapes;
		 * both across the 2^32 bucket boundary */
		pos_list a = {0}, b = {0};
		uint64_t base[] = {0, (1ull << 32) - 200000};
		for (int k = 0; k < 2; k++) {
			uint64_t o = base[k];
			for (uint64_t p = o; p < o + 400000; p++) {
				uint64_t r = p - o;
				bool in_a = r < 70000 || (r >= 140000 && r < 200000 && r % 3 == 0) ||
				            (r >= 300000 && r % 997 == 0);
				bool in_b = !in_a && ((r >= 70000 && r < 80000 && r % 2 == 0) ||
				                      (r >= 200000 && r < 270000) || rnd() % 50 == 0);
				if (in_a) pl_add(&a, p);
				else if (in_b) pl_add(&b, p);
			}
		}
		check_union(&a, &b, old_via_dv);
		pos_list none = {0};
		check_union(&a, &none, old_via_dv);
		check_union(&none, &b, old_via_dv);
		free(a.v);
		free(b.v);
	}
}

static void test_too_large_for_dv(void **state)
{
	(void)state;
	dl_rowset a = DL_ROWSET_INIT, b = DL_ROWSET_INIT;
	uint64_t big[] = {1, (uint64_t)INT32_MAX << 32 | 5, ((uint64_t)INT32_MAX + 1) << 32};
	OK(dl_rowset_push(&b, big, 3, "t"));
	dl_dv_rows out;
	assert_int_equal(dl_rowset_union_dv(&out, &a, &b), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "too large for a DV"));
	dl_error_clear();
	assert_int_equal(out.nbuckets, 0);
	dl_rowset_free(&b);
}

/* Each allocation of building, converting and merging fails in turn: the
 * failure is reported (DL_ENOMEM), nothing is left half-built. */
static void test_each_allocation_fails(void **state)
{
	(void)state;
	pos_list l = {0};
	fill(&l, 0, 140000, 0, 3);
	fill(&l, 140000, 270000, 1, 0);
	dl_dv_rows old;
	OK(dl_dv_rows_from_array(&old, l.v, 5000));
	for (int64_t nth = 1;; nth++) {
		dl_rowset a = DL_ROWSET_INIT, b = DL_ROWSET_INIT;
		dl_dv_rows out = {0};
		dl_mem_fault_arm(nth, 1);
		int rc = dl_rowset_from_dv(&a, &old);
		if (rc == 0) rc = dl_rowset_push(&b, l.v + 5000, l.n - 5000, "t");
		if (rc == 0) rc = dl_rowset_union_dv(&out, &a, &b);
		int64_t calls, injected;
		dl_mem_fault_disarm(&calls, &injected);
		if (!injected) {
			OK(rc);
			assert_int_equal(out.cardinality, l.n);
			dl_dv_rows_free(&out);
			dl_rowset_free(&a);
			dl_rowset_free(&b);
			assert_true(nth > 10);
			break;
		}
		assert_int_equal(rc, DL_ENOMEM);
		dl_error_clear();
		assert_int_equal(out.nbuckets, 0);
		dl_rowset_free(&a);
		dl_rowset_free(&b);
	}
	dl_dv_rows_free(&old);
	free(l.v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_queries),
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_select_and_rank),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_refuses_unsorted),
		cmocka_unit_test(test_union_dv),
		cmocka_unit_test(test_too_large_for_dv),
		cmocka_unit_test(test_each_allocation_fails),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
