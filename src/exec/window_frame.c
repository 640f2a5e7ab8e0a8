/* Window frames (window.h): which rows of its partition each row's
 * function sees. Spark's rules (windowExpressions.scala,
 * WindowFunctionFrame.scala):
 *
 * - DEFAULT: with ORDER BY, RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT
 *   ROW (the row's peers are in the frame); without, the whole partition.
 * - ROWS: offsets count rows from the current one, clipped to the partition.
 * - RANGE: CURRENT ROW means the row's peers (equal ORDER BY key); an
 *   offset bound is the key's value plus or minus the offset, so RANGE
 *   offsets need exactly one ORDER BY key. The bound values are computed
 *   with the expression engine ("key - offset", "key + offset"), so numbers,
 *   decimals and intervals over dates and timestamps follow the library's
 *   (Spark's) arithmetic. Descending keys flip the direction: n PRECEDING
 *   means larger keys. A row with a NULL key has the NULL rows (its peers)
 *   as its offset bounds; rows with a key never reach NULL rows through an
 *   offset, only through UNBOUNDED.
 *
 * Frames are found per row by binary search on the sorted keys: O(n log n)
 * over a partition, whatever the frame's size. */
#include <stdio.h>
#include "exec/window.h"
#include "expr/eval.h"

static dl_expr *parse_bound(const char *key, const char *op, const char *off, int *rc)
{
	dl_buf t = DL_BUF_INIT;
	dl_buf_printf(&t, "(%s) %s (%s)", key, op, off);
	dl_expr *e = NULL;
	*rc = t.data ? dl_expr_parse(&e, t.data) : dl_error_set(DL_ENOMEM, "out of memory");
	dl_buf_free(&t);
	return e;
}

static int rows_offset(int64_t *out, dl_expr *e, const dl_type *schema, const dl_exec_ctx *ctx, const char *what)
{
	DL_TRY(dl_exec_bind(e, schema, ctx, what));
	dl_scalar s;
	if (!dl_type_is_integral(dl_expr_type(e)) || dl_expr_eval_scalar(&s, e, ctx ? &ctx->eval : NULL) < 0 ||
	    s.is_null)
		return dl_error_set(DL_EINVALID, "%s: a ROWS frame offset must be a constant integer", what);
	*out = s.v.i64;
	return 0;
}

int dl_win_frame_prepare(win_range *r, dl_exec_frame *f, const dl_exec_sort_key *order, int norder,
                         const dl_type *schema, const dl_exec_ctx *ctx, const char *what)
{
	memset(r, 0, sizeof *r);
	if ((int)f->kind < 0 || f->kind > DL_FRAME_RANGE || (int)f->lo < 0 || f->lo > DL_FRAME_UNBOUNDED_FOLLOWING ||
	    (int)f->hi < 0 || f->hi > DL_FRAME_UNBOUNDED_FOLLOWING)
		return dl_error_set(DL_EINVALID, "%s: unknown frame", what);
	if (f->kind == DL_FRAME_DEFAULT) return 0;
	if (f->lo == DL_FRAME_UNBOUNDED_FOLLOWING || f->hi == DL_FRAME_UNBOUNDED_PRECEDING)
		return dl_error_set_class(DL_EINVALID, "INVALID_WINDOW_SPEC_FOR_AGGREGATION_FUNC",
		                          "%s: a frame cannot start at UNBOUNDED FOLLOWING nor end at UNBOUNDED PRECEDING",
		                          what);
	bool lo_off = f->lo == DL_FRAME_PRECEDING || f->lo == DL_FRAME_FOLLOWING;
	bool hi_off = f->hi == DL_FRAME_PRECEDING || f->hi == DL_FRAME_FOLLOWING;
	if ((lo_off && !f->lo_offset) || (hi_off && !f->hi_offset))
		return dl_error_set(DL_EINVALID, "%s: a PRECEDING/FOLLOWING frame bound needs its offset", what);
	if (f->kind == DL_FRAME_ROWS) {
		if (lo_off) DL_TRY(rows_offset(&r->lo_rows, f->lo_offset, schema, ctx, what));
		if (hi_off) DL_TRY(rows_offset(&r->hi_rows, f->hi_offset, schema, ctx, what));
		if (f->lo == DL_FRAME_PRECEDING) r->lo_rows = -r->lo_rows;
		if (f->hi == DL_FRAME_PRECEDING) r->hi_rows = -r->hi_rows;
		/* Spark rejects a frame whose start is after its end */
		bool lo_fixed = lo_off || f->lo == DL_FRAME_CURRENT_ROW, hi_fixed = hi_off || f->hi == DL_FRAME_CURRENT_ROW;
		if (lo_fixed && hi_fixed && r->lo_rows > r->hi_rows)
			return dl_error_set_class(DL_EINVALID, "DATATYPE_MISMATCH.SPECIFIED_WINDOW_FRAME_WRONG_COMPARISON",
			                          "%s: the lower bound of a window frame must be less than or equal to the upper "
			                          "bound",
			                          what);
		return 0;
	}
	if (!lo_off && !hi_off) return 0;
	if (norder != 1)
		return dl_error_set_class(DL_EINVALID, "DATATYPE_MISMATCH.RANGE_FRAME_MULTI_ORDER",
		                          "%s: a RANGE frame with offsets needs exactly one ORDER BY key (got %d)", what,
		                          norder);
	r->desc = order[0].descending;
	dl_buf key = DL_BUF_INIT, off = DL_BUF_INIT;
	int rc = dl_expr_sql(order[0].expr, &key);
	for (int side = 0; side < 2 && rc == 0; side++) {
		dl_frame_bound b = side ? f->hi : f->lo;
		if (b != DL_FRAME_PRECEDING && b != DL_FRAME_FOLLOWING) continue;
		dl_buf_clear(&off);
		rc = dl_expr_sql(side ? f->hi_offset : f->lo_offset, &off);
		if (rc < 0) break;
		/* ascending: PRECEDING subtracts; descending keys run the other way */
		bool minus = (b == DL_FRAME_PRECEDING) != r->desc;
		dl_expr *e = parse_bound(key.data, minus ? "-" : "+", off.data, &rc);
		if (side) r->hi = e;
		else r->lo = e;
		if (rc == 0) rc = dl_exec_bind(e, schema, ctx, what);
	}
	/* the key itself must be orderable by value: "string - 1" binds too */
	const dl_type *kt = rc == 0 ? dl_expr_type(order[0].expr) : NULL;
	if (rc == 0 && !dl_type_is_numeric(kt) && kt->id != DL_TYPE_DATE && kt->id != DL_TYPE_TIMESTAMP &&
	    kt->id != DL_TYPE_TIMESTAMP_NTZ)
		rc = dl_error_set_class(DL_EINVALID, "DATATYPE_MISMATCH.RANGE_FRAME_INVALID_TYPE",
		                        "%s: a RANGE frame with offsets needs a numeric, date or timestamp ORDER BY key", what);
	for (int side = 0; side < 2 && rc == 0; side++) {
		dl_expr *bound = side ? r->hi : r->lo;
		if (!bound) continue;
		/* compare the key in the bound's type (int key + decimal offset,
		 * date + hours...) */
		char tn[128];
		dl_type_sql(dl_expr_type(bound), tn, sizeof tn);
		dl_buf t = DL_BUF_INIT;
		dl_buf_printf(&t, "CAST((%s) AS %s)", key.data, tn);
		dl_expr *e = NULL;
		rc = t.data ? dl_expr_parse(&e, t.data) : dl_error_set(DL_ENOMEM, "out of memory");
		dl_buf_free(&t);
		if (side) r->key_hi = e;
		else r->key_lo = e;
		if (rc == 0) rc = dl_exec_bind(e, schema, ctx, what);
	}
	dl_buf_free(&key);
	dl_buf_free(&off);
	return rc;
}

void dl_win_range_free(win_range *r)
{
	dl_expr_free(r->key_lo);
	dl_expr_free(r->key_hi);
	dl_expr_free(r->lo);
	dl_expr_free(r->hi);
	memset(r, 0, sizeof *r);
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* i + off, saturating (offsets may be any int64). */
static int64_t add_sat(int64_t i, int64_t off)
{
	int64_t r;
	if (__builtin_add_overflow(i, off, &r)) return off > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* The first row j of [a, b) whose key is past v (past_eq: or equal) in the
 * sort direction; the keys of [a, b) are non-null and sorted. */
static int64_t search(const dl_array *key, int64_t a, int64_t b, const ex_val *v, bool desc, bool past_eq)
{
	const dl_type *t = key->type;
	while (a < b) {
		int64_t m = a + (b - a) / 2;
		ex_val x;
		ex_val_load(&x, key, m);
		int c = ex_val_cmp(&x, v, t);
		if (desc) c = -c;
		if (past_eq ? c >= 0 : c > 0) b = m;
		else a = m + 1;
	}
	return a;
}

static int range_bounds(int64_t *lo, int64_t *hi, const dl_exec_frame *f, const win_range *r, const win_rows *w)
{
	dl_array *keys[2] = {NULL, NULL}, *lov = NULL, *hiv = NULL;
	const dl_eval_ctx *ec = w->ctx ? &w->ctx->eval : NULL;
	int rc = 0;
	if (r->lo) rc = dl_expr_eval(&keys[0], r->key_lo, w->sorted, ec);
	if (rc == 0 && r->hi) rc = dl_expr_eval(&keys[1], r->key_hi, w->sorted, ec);
	if (rc == 0 && r->lo) rc = dl_expr_eval(&lov, r->lo, w->sorted, ec);
	if (rc == 0 && r->hi) rc = dl_expr_eval(&hiv, r->hi, w->sorted, ec);
	const dl_array *key = keys[0] ? keys[0] : keys[1]; /* NULLs are NULLs in either */
	for (int64_t p = 0; rc == 0 && p < w->nparts; p++) {
		int64_t ps = w->part[p], pe = w->part[p + 1];
		/* the rows with a key: NULLs are one peer group at either end */
		int64_t a = ps, b = pe;
		if (a < b && !dl_array_is_valid(key, a)) a = w->peer_hi[a];
		if (a < b && !dl_array_is_valid(key, b - 1)) b = w->peer_lo[b - 1];
		for (int64_t i = ps; i < pe; i++) {
			bool null_key = !dl_array_is_valid(key, i);
			for (int side = 0; side < 2; side++) {
				dl_frame_bound bd = side ? f->hi : f->lo;
				const dl_array *bv = side ? hiv : lov;
				int64_t j;
				if (bd == DL_FRAME_UNBOUNDED_PRECEDING) j = ps;
				else if (bd == DL_FRAME_UNBOUNDED_FOLLOWING) j = pe;
				else if (bd == DL_FRAME_CURRENT_ROW || null_key) j = side ? w->peer_hi[i] : w->peer_lo[i];
				else if (!dl_array_is_valid(bv, i)) j = side ? ps : pe; /* no such key: empty */
				else {
					ex_val v;
					ex_val_load(&v, bv, i);
					/* lo: the first row not before v; hi: the first row past v */
					j = search(keys[side], a, b, &v, r->desc, side == 0);
				}
				if (side) hi[i] = j;
				else lo[i] = j;
			}
			if (hi[i] < lo[i]) hi[i] = lo[i];
		}
	}
	dl_array_free(keys[0]);
	dl_array_free(keys[1]);
	dl_array_free(lov);
	dl_array_free(hiv);
	return rc;
}

int dl_win_frame_bounds(int64_t *lo, int64_t *hi, const dl_exec_frame *f, const win_range *r, const win_rows *w)
{
	if (f->kind == DL_FRAME_RANGE && (r->lo || r->hi)) return range_bounds(lo, hi, f, r, w);
	for (int64_t p = 0; p < w->nparts; p++) {
		int64_t ps = w->part[p], pe = w->part[p + 1];
		for (int64_t i = ps; i < pe; i++) {
			int64_t l, h;
			if (f->kind == DL_FRAME_DEFAULT) {
				/* without ORDER BY the whole partition is one peer group */
				l = ps;
				h = w->peer_hi[i];
			} else {
				bool rows = f->kind == DL_FRAME_ROWS;
				switch (f->lo) {
				case DL_FRAME_UNBOUNDED_PRECEDING: l = ps; break;
				case DL_FRAME_CURRENT_ROW: l = rows ? i : w->peer_lo[i]; break;
				default: l = add_sat(i, r->lo_rows); break;
				}
				switch (f->hi) {
				case DL_FRAME_UNBOUNDED_FOLLOWING: h = pe; break;
				case DL_FRAME_CURRENT_ROW: h = rows ? i + 1 : w->peer_hi[i]; break;
				default: h = add_sat(add_sat(i, r->hi_rows), 1); break;
				}
			}
			lo[i] = clamp(l, ps, pe);
			hi[i] = clamp(h, ps, pe);
			if (hi[i] < lo[i]) hi[i] = lo[i];
		}
	}
	return 0;
}
