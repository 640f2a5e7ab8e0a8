/* dl_type_widens_to against PROTOCOL.md's "Type Widening" table, pair by
 * pair: every listed change is accepted and the near misses (a decimal with
 * fewer integral digits than the protocol's Decimal(10 + k1, k2) /
 * Decimal(20 + k1, k2), long to double, narrowing) are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "columnar/types.h"
#include "rewrite/conform.h"

typedef struct {
	dl_type_id from;
	int fp, fs; /* the from decimal's precision/scale (DL_TYPE_DECIMAL) */
	dl_type_id to;
	int tp, ts;
	bool widens;
} pair;

static dl_type *mk(dl_type_id id, int p, int s)
{
	return id == DL_TYPE_DECIMAL ? dl_type_decimal(p, s) : dl_type_new(id);
}

static void test_protocol_table(void **state)
{
	(void)state;
	const dl_type_id B = DL_TYPE_BYTE, S = DL_TYPE_SHORT, I = DL_TYPE_INTEGER, L = DL_TYPE_LONG;
	static const pair pairs[] = {
	    {DL_TYPE_BYTE, 0, 0, DL_TYPE_SHORT, 0, 0, true},
	    {DL_TYPE_BYTE, 0, 0, DL_TYPE_INTEGER, 0, 0, true},
	    {DL_TYPE_BYTE, 0, 0, DL_TYPE_LONG, 0, 0, true},
	    {DL_TYPE_SHORT, 0, 0, DL_TYPE_LONG, 0, 0, true},
	    {DL_TYPE_INTEGER, 0, 0, DL_TYPE_LONG, 0, 0, true},
	    {DL_TYPE_FLOAT, 0, 0, DL_TYPE_DOUBLE, 0, 0, true},
	    {DL_TYPE_BYTE, 0, 0, DL_TYPE_DOUBLE, 0, 0, true},
	    {DL_TYPE_SHORT, 0, 0, DL_TYPE_DOUBLE, 0, 0, true},
	    {DL_TYPE_INTEGER, 0, 0, DL_TYPE_DOUBLE, 0, 0, true},
	    {DL_TYPE_LONG, 0, 0, DL_TYPE_DOUBLE, 0, 0, false},
	    {DL_TYPE_DATE, 0, 0, DL_TYPE_TIMESTAMP_NTZ, 0, 0, true},
	    {DL_TYPE_DATE, 0, 0, DL_TYPE_TIMESTAMP, 0, 0, false},
	    {DL_TYPE_LONG, 0, 0, DL_TYPE_INTEGER, 0, 0, false},
	    {DL_TYPE_DOUBLE, 0, 0, DL_TYPE_FLOAT, 0, 0, false},
	    {DL_TYPE_INTEGER, 0, 0, DL_TYPE_FLOAT, 0, 0, false},
	};
	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		dl_type *f = mk(pairs[i].from, pairs[i].fp, pairs[i].fs);
		dl_type *t = mk(pairs[i].to, pairs[i].tp, pairs[i].ts);
		if (dl_type_widens_to(f, t) != pairs[i].widens)
			fail_msg("pair %zu: %s -> %s should be %s", i, dl_type_id_name(pairs[i].from),
			         dl_type_id_name(pairs[i].to), pairs[i].widens ? "allowed" : "refused");
		dl_type_unref(f);
		dl_type_unref(t);
	}
	/* Integers to decimals: Decimal(10 + k1, k2) for byte, short and int
	 * (byte and short included: no smaller decimal), Decimal(20 + k1, k2)
	 * for long, k1 >= k2 >= 0. */
	struct { dl_type_id from; int p, s; bool widens; } dec[] = {
	    {B, 10, 0, true},  {B, 3, 0, false},  {B, 5, 0, false}, {B, 9, 0, false},
	    {S, 10, 0, true},  {S, 5, 0, false},  {S, 12, 2, true}, {S, 12, 3, false},
	    {I, 10, 0, true},  {I, 11, 1, true},  {I, 11, 2, false}, {I, 9, 0, false},
	    {L, 20, 0, true},  {L, 21, 1, true},  {L, 19, 0, false}, {L, 21, 2, false},
	};
	for (size_t i = 0; i < sizeof dec / sizeof dec[0]; i++) {
		dl_type *f = dl_type_new(dec[i].from);
		dl_type *t = dl_type_decimal(dec[i].p, dec[i].s);
		if (dl_type_widens_to(f, t) != dec[i].widens)
			fail_msg("%s -> decimal(%d,%d) should be %s", dl_type_id_name(dec[i].from), dec[i].p,
			         dec[i].s, dec[i].widens ? "allowed" : "refused");
		dl_type_unref(f);
		dl_type_unref(t);
	}
	/* Decimal(p, s) -> Decimal(p + k1, s + k2), k1 >= k2 >= 0. */
	struct { int fp, fs, tp, ts; bool widens; } dd[] = {
	    {10, 2, 20, 2, true}, {10, 2, 20, 5, true}, {10, 1, 12, 3, true}, {10, 1, 11, 3, false},
	    {10, 2, 10, 2, true}, {10, 2, 9, 2, false}, {10, 2, 12, 1, false},
	};
	for (size_t i = 0; i < sizeof dd / sizeof dd[0]; i++) {
		dl_type *f = dl_type_decimal(dd[i].fp, dd[i].fs);
		dl_type *t = dl_type_decimal(dd[i].tp, dd[i].ts);
		if (dl_type_widens_to(f, t) != dd[i].widens)
			fail_msg("decimal(%d,%d) -> decimal(%d,%d) should be %s", dd[i].fp, dd[i].fs, dd[i].tp,
			         dd[i].ts, dd[i].widens ? "allowed" : "refused");
		dl_type_unref(f);
		dl_type_unref(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_protocol_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
