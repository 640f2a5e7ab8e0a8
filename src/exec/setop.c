/* DISTINCT, UNION [ALL], INTERSECT [ALL], EXCEPT [ALL] (exec.h), on the
 * key table over whole rows (NULL equal to NULL, as Spark compares rows in
 * set operations).
 *
 *   DISTINCT        a row is output when it gets a new id: ids are handed
 *                   out in row order, so "new" is "id == the count so far".
 *   UNION ALL       a's batches, then b's, relabeled to the output schema;
 *   UNION           DISTINCT over UNION ALL.
 *   INTERSECT/EXCEPT  b is read into a table counting each distinct row;
 *                   a then streams: INTERSECT ALL outputs a row while b's
 *                   count of it lasts (min(m, n) copies), EXCEPT ALL skips a
 *                   row while b's count lasts (max(m - n, 0) copies); the
 *                   distinct forms keep a's rows that are (not) in b, and a
 *                   DISTINCT over them drops the repeats. */
#include <string.h>
#include "exec/keytab.h"
#include "exec/op.h"
#include "exec/spill.h"

typedef struct set_op {
	dl_batch_stream *a, *b;
	dl_exec_ctx ctx;
	int mode;           /* 0 distinct, 1 union all, 2 intersect/except */
	dl_setop_kind kind;
	bool all;
	dl_type *schema;
	dl_keytab *seen;    /* distinct: rows output so far */
	dl_keytab *right;   /* intersect/except: b's rows */
	int64_t *count;     /* per right id */
	int64_t charged;
	bool built, a_done;
	uint32_t *ids, *rids;
	int64_t ids_cap;
	dl_selection sel;
	/* DISTINCT spilling (the section "Spilling" below) */
	int level;
	bool spilling;
	dl_spill_parts parts;
	int next_part;
	dl_batch_stream *child;
	dl_spill_parts aparts; /* INTERSECT/EXCEPT: a's rows, beside parts (b's) */
	bool grace;
} set_op;

static int setop_grace(set_op *o, dl_batch *b);
static int setop_grace_next(set_op *o, dl_batch **out);
static int setop_open(dl_batch_stream **out, dl_batch_stream *a, dl_batch_stream *b, dl_setop_kind kind, bool all,
                      const dl_exec_ctx *ctx, int level);

static int distinct_spill(set_op *o, dl_batch *b, bool *handled);
static int distinct_parts_next(set_op *o, dl_batch **out);
static int distinct_open(dl_batch_stream **out, dl_batch_stream *in, const dl_exec_ctx *ctx, int level);

static const dl_type *st_schema(dl_batch_stream *s)
{
	set_op *o = s->private_data;
	return o->schema;
}

static int grow_ids(set_op *o, int64_t n)
{
	if (n <= o->ids_cap) return 0;
	uint32_t *a = dl_reallocarray(o->ids, (size_t)n, sizeof *a);
	if (a) o->ids = a;
	uint32_t *b = a ? dl_reallocarray(o->rids, (size_t)n, sizeof *b) : NULL;
	if (b) o->rids = b;
	if (!a || !b) return dl_error_set(DL_ENOMEM, "out of memory");
	o->ids_cap = n;
	return 0;
}

static int build_right(set_op *o)
{
	for (;;) {
		dl_batch *b;
		DL_TRY(dl_batch_stream_next(o->b, &b));
		if (!b) return 0;
		dl_exec_memory *m = o->ctx.mem;
		if (m && m->limit > 0 && o->level < DL_SPILL_MAX_LEVEL && dl_keytab_size(o->right) > 0 &&
		    atomic_load(&m->used) + dl_keytab_grow_bytes(o->right, b->num_rows) + dl_batch_bytes(b) +
		            b->num_rows * 8 >
		        m->limit)
			return setop_grace(o, b);
		int64_t before = dl_keytab_size(o->right);
		int rc = grow_ids(o, b->num_rows);
		if (rc == 0) rc = dl_keytab_insert(o->right, b->cols, b->num_rows, o->ids);
		int64_t after = rc == 0 ? dl_keytab_size(o->right) : before;
		if (rc == 0 && after > before) {
			rc = dl_exec_mem_charge(o->ctx.mem, (after - before) * 8, "set operation");
			int64_t *c = rc == 0 ? dl_reallocarray(o->count, (size_t)after, sizeof *c) : NULL;
			if (rc == 0 && !c) rc = dl_error_set(DL_ENOMEM, "out of memory");
			if (rc == 0) {
				o->charged += (after - before) * 8;
				o->count = c;
				memset(c + before, 0, (size_t)(after - before) * sizeof *c);
			}
		}
		for (int64_t i = 0; rc == 0 && i < b->num_rows; i++) o->count[o->ids[i]]++;
		dl_batch_free(b);
		DL_TRY(rc);
	}
}

/* Rows of b to output, into o->sel. */
static int select_rows(set_op *o, dl_batch *b)
{
	int64_t n = b->num_rows;
	DL_TRY(grow_ids(o, n));
	DL_TRY(dl_selection_reserve(&o->sel, n));
	o->sel.count = 0;
	if (o->mode == 2) DL_TRY(dl_keytab_find(o->right, b->cols, n, o->rids));
	int64_t next_new = 0;
	if (o->seen) {
		next_new = dl_keytab_size(o->seen);
		DL_TRY(dl_keytab_insert(o->seen, b->cols, n, o->ids));
	}
	for (int64_t i = 0; i < n; i++) {
		/* without a table of a's rows (INTERSECT/EXCEPT: a DISTINCT over
		 * this operator removes the repeats) every row counts as first */
		bool first = o->seen ? o->ids[i] == next_new : true;
		if (first) next_new++;
		bool out;
		if (o->mode == 0) {
			out = first;
		} else {
			uint32_t r = o->rids[i];
			bool in_b = r != DL_KEYTAB_NONE && o->count[r] > 0;
			if (o->all) {
				out = o->kind == DL_SETOP_INTERSECT ? in_b : !in_b;
				if (in_b) o->count[r]--;
			} else {
				out = first && (o->kind == DL_SETOP_INTERSECT ? in_b : !in_b);
			}
		}
		if (out) o->sel.idx[o->sel.count++] = (uint32_t)i;
	}
	return 0;
}

static int st_next(dl_batch_stream *s, dl_batch **out)
{
	set_op *o = s->private_data;
	*out = NULL;
	if (o->mode == 2 && !o->built) {
		DL_TRY(build_right(o));
		o->built = true;
	}
	if (o->grace) return setop_grace_next(o, out);
	for (;;) {
		dl_batch *b = NULL;
		if (!o->a_done) {
			DL_TRY(dl_batch_stream_next(o->a, &b));
			if (!b) o->a_done = true;
		}
		if (!b && o->mode == 1 && o->b) DL_TRY(dl_batch_stream_next(o->b, &b));
		if (!b) return o->parts.n ? distinct_parts_next(o, out) : 0;
		int rc = dl_exec_check_interrupt(&o->ctx, "set operation");
		if (rc < 0) {
			dl_batch_free(b);
			return rc;
		}
		if (o->mode == 1) {
			rc = dl_batch_set_schema(b, o->schema);
			if (rc < 0) dl_batch_free(b);
			else *out = b;
			return rc;
		}
		bool handled = false;
		if (o->mode == 0 && (rc = distinct_spill(o, b, &handled)) < 0) {
			dl_batch_free(b);
			return dl_error_prefix("distinct");
		}
		if (handled) {
			dl_batch_free(b);
			continue;
		}
		rc = select_rows(o, b);
		if (rc == 0 && o->sel.count > 0) {
			*out = o->sel.count == b->num_rows ? b : dl_exec_take(b, o->sel.idx, o->sel.count, o->schema);
			if (*out == b) b = NULL;
			if (!*out) rc = dl_exec_failed();
			else if ((rc = dl_batch_set_schema(*out, o->schema)) < 0) {
				dl_batch_free(*out);
				*out = NULL;
			}
		}
		dl_batch_free(b);
		if (rc < 0 || *out) return rc < 0 ? dl_error_prefix("set operation") : 0;
	}
}

static void st_free(set_op *o)
{
	dl_batch_stream_free(o->a);
	dl_batch_stream_free(o->b);
	dl_batch_stream_free(o->child);
	dl_spill_parts_free(&o->parts);
	dl_spill_parts_free(&o->aparts);
	dl_type_unref(o->schema);
	dl_keytab_free(o->seen);
	dl_keytab_free(o->right);
	dl_free(o->count);
	dl_free(o->ids);
	dl_free(o->rids);
	dl_selection_free(&o->sel);
	dl_exec_mem_release(o->ctx.mem, o->charged);
	dl_free(o);
}

static void st_release(dl_batch_stream *s)
{
	st_free(s->private_data);
	dl_free(s);
}

static dl_type **col_types(const dl_type *t)
{
	dl_type **ty = dl_calloc((size_t)(t->nchildren ? t->nchildren : 1), sizeof *ty);
	for (int i = 0; ty && i < t->nchildren; i++) ty[i] = t->children[i].type;
	if (!ty) dl_error_set(DL_ENOMEM, "out of memory");
	return ty;
}

static int make(dl_batch_stream **out, set_op *o)
{
	if (!(*out = dl_exec_stream_new(o, st_schema, st_next, st_release))) {
		int rc = dl_exec_failed();
		st_free(o);
		return rc;
	}
	return 0;
}

int dl_exec_distinct(dl_batch_stream **out, dl_batch_stream *in, const dl_exec_ctx *ctx)
{
	return distinct_open(out, in, ctx, 0);
}

static int distinct_open(dl_batch_stream **out, dl_batch_stream *in, const dl_exec_ctx *ctx, int level)
{
	*out = NULL;
	set_op *o = dl_calloc(1, sizeof *o);
	if (!o) {
		dl_batch_stream_free(in);
		return dl_error_set(DL_ENOMEM, "out of memory");
	}
	o->a = in;
	if (ctx) o->ctx = *ctx;
	o->level = level;
	o->schema = dl_type_ref((dl_type *)dl_batch_stream_schema(in));
	dl_type **ty = col_types(o->schema);
	int rc = ty ? dl_keytab_new(&o->seen, ty, o->schema->nchildren, o->ctx.mem, "distinct") : dl_exec_failed();
	dl_free(ty);
	if (rc < 0) {
		st_free(o);
		return rc;
	}
	return make(out, o);
}

int dl_exec_setop(dl_batch_stream **out, dl_batch_stream *a, dl_batch_stream *b, dl_setop_kind kind, bool all,
                  const dl_exec_ctx *ctx)
{
	return setop_open(out, a, b, kind, all, ctx, 0);
}

static int setop_open(dl_batch_stream **out, dl_batch_stream *a, dl_batch_stream *b, dl_setop_kind kind, bool all,
                      const dl_exec_ctx *ctx, int level)
{
	*out = NULL;
	set_op *o = dl_calloc(1, sizeof *o);
	if (!o) {
		dl_batch_stream_free(a);
		dl_batch_stream_free(b);
		return dl_error_set(DL_ENOMEM, "out of memory");
	}
	o->a = a;
	o->b = b;
	if (ctx) o->ctx = *ctx;
	o->level = level;
	o->kind = kind;
	o->all = all;
	o->mode = kind == DL_SETOP_UNION ? 1 : 2;
	static const char *const names[] = {"UNION", "INTERSECT", "EXCEPT"};
	const dl_type *ta = dl_batch_stream_schema(a), *tb = dl_batch_stream_schema(b);
	int rc = 0;
	if ((int)kind < 0 || kind > DL_SETOP_EXCEPT) rc = dl_error_set(DL_EINVALID, "unknown set operation %d", (int)kind);
	else if (ta->nchildren != tb->nchildren)
		rc = dl_error_set(DL_ESCHEMA, "%s: the inputs have %d and %d columns", names[kind], ta->nchildren, tb->nchildren);
	for (int i = 0; rc == 0 && i < ta->nchildren; i++)
		if (!dl_type_equals(ta->children[i].type, tb->children[i].type)) {
			char x[64], y[64];
			dl_type_sql(ta->children[i].type, x, sizeof x);
			dl_type_sql(tb->children[i].type, y, sizeof y);
			rc = dl_error_set(DL_ESCHEMA, "%s: column %d (%s) is %s on the left and %s on the right; cast one side",
			                  names[kind], i + 1, ta->children[i].name, x, y);
		}
	if (rc == 0) {
		dl_field *f = dl_calloc((size_t)(ta->nchildren ? ta->nchildren : 1), sizeof *f);
		for (int i = 0; f && i < ta->nchildren; i++) {
			f[i] = ta->children[i];
			f[i].nullable = ta->children[i].nullable || tb->children[i].nullable;
		}
		o->schema = f ? dl_type_struct(f, ta->nchildren) : NULL;
		dl_free(f);
		if (!o->schema) rc = dl_error_set(DL_ENOMEM, "out of memory");
	}
	dl_type **ty = rc == 0 ? col_types(o->schema) : NULL;
	if (rc == 0 && !ty) rc = dl_exec_failed();
	if (rc == 0 && o->mode == 2) rc = dl_keytab_new(&o->right, ty, o->schema->nchildren, o->ctx.mem, names[kind]);
	dl_free(ty);
	if (rc < 0) {
		st_free(o);
		return rc;
	}
	if (!all) {
		/* the distinct forms: the ALL-less filter, then DISTINCT, which
		 * spills on its own */
		dl_batch_stream *u;
		DL_TRY(make(&u, o));
		return dl_exec_distinct(out, u, ctx);
	}
	return make(out, o);
}

/* ---- Spilling (DISTINCT, and so UNION) ----------------------------------
 *
 * As the hash aggregate's: when the rows seen would pass the memory limit,
 * later rows already seen are dropped as before and the others go to one
 * of DL_SPILL_PARTS files by row hash; after the input, the table is freed
 * and each partition gets a DISTINCT of its own, one level deeper. A row
 * value is either in the table (output once, when first seen) or never
 * was, and then all its copies are in one partition. INTERSECT and EXCEPT
 * spill as a grace hash join does (below). */

static int distinct_spill(set_op *o, dl_batch *b, bool *handled)
{
	*handled = false;
	dl_exec_memory *m = o->ctx.mem;
	if (!m || m->limit <= 0 || o->level >= DL_SPILL_MAX_LEVEL) return 0;
	int64_t n = b->num_rows;
	if (!o->spilling) {
		int64_t need = dl_keytab_grow_bytes(o->seen, n) + dl_batch_bytes(b);
		if (dl_keytab_size(o->seen) == 0 || atomic_load(&m->used) + need <= m->limit) return 0;
		DL_TRY(dl_spill_parts_open(&o->parts, &o->ctx, o->schema, o->level, "distinct"));
		o->spilling = true;
	}
	*handled = true;
	DL_TRY(grow_ids(o, n));
	DL_TRY(dl_keytab_find(o->seen, b->cols, n, o->ids));
	DL_TRY(dl_selection_reserve(&o->sel, n));
	o->sel.count = 0;
	for (int64_t i = 0; i < n; i++)
		if (o->ids[i] == DL_KEYTAB_NONE) o->sel.idx[o->sel.count++] = (uint32_t)i;
	if (o->sel.count == 0) return 0;
	dl_batch *t = o->sel.count == n ? NULL : dl_batch_take(b, o->sel.idx, o->sel.count);
	if (o->sel.count != n && !t) return dl_exec_failed();
	const dl_batch *w = t ? t : b;
	int rc = dl_spill_parts_write(&o->parts, w, w->cols, w->ncols);
	dl_batch_free(t);
	return rc;
}

static int distinct_parts_next(set_op *o, dl_batch **out)
{
	*out = NULL;
	if (o->seen) {
		dl_keytab_free(o->seen);
		o->seen = NULL;
	}
	for (;;) {
		if (o->child) {
			DL_TRY(dl_batch_stream_next(o->child, out));
			if (*out) {
				int rc = dl_batch_set_schema(*out, o->schema);
				if (rc < 0) {
					dl_batch_free(*out);
					*out = NULL;
				}
				return rc;
			}
			dl_batch_stream_free(o->child);
			o->child = NULL;
		}
		if (o->next_part >= o->parts.n) return 0;
		dl_spill_file *f;
		DL_TRY(dl_spill_parts_take(&f, &o->parts, o->next_part++));
		if (!f) continue;
		dl_batch_stream *src;
		DL_TRY(dl_spill_stream(&src, f, &o->ctx));
		DL_TRY(distinct_open(&o->child, src, &o->ctx, o->level + 1));
	}
}

/* INTERSECT / EXCEPT [ALL] over the limit: b's table so far goes back to
 * rows (each distinct row as many times as b had it), and with the rest of
 * b and then all of a is partitioned by row hash; each pair of partitions
 * gets the same set operation, one level deeper. All copies of a row value,
 * on both sides, meet in one pair, so the counts (min(m, n), max(m - n, 0))
 * and the distinct forms come out exactly. */
static int dump_right(set_op *o)
{
	const dl_type *bs = dl_batch_stream_schema(o->b);
	int nc = bs->nchildren, rc = 0;
	int64_t n = dl_keytab_size(o->right), chunk = 4096;
	dl_array **cols = dl_calloc((size_t)(nc ? nc : 1), sizeof *cols);
	if (!cols) return dl_error_set(DL_ENOMEM, "out of memory");
	for (int64_t at = 0; rc == 0 && at < n; at += chunk) {
		int64_t m = n - at < chunk ? n - at : chunk, reps = 0;
		for (int64_t i = 0; i < m; i++) reps += o->count[at + i];
		uint32_t *sel = dl_malloc((size_t)(reps ? reps : 1) * sizeof *sel);
		if (!sel) rc = dl_error_set(DL_ENOMEM, "out of memory");
		int64_t r = 0;
		for (int64_t i = 0; rc == 0 && i < m; i++)
			for (int64_t c = 0; c < o->count[at + i]; c++) sel[r++] = (uint32_t)i;
		for (int k = 0; rc == 0 && k < nc; k++) {
			dl_array *keys = NULL;
			rc = dl_keytab_keys(&keys, o->right, k, at, m);
			if (rc == 0 && !(cols[k] = dl_array_take(keys, sel, reps))) rc = dl_exec_failed();
			dl_array_free(keys);
		}
		dl_batch *rows = NULL;
		if (rc == 0) {
			rows = dl_exec_batch((dl_type *)bs, cols, reps);
			memset(cols, 0, (size_t)nc * sizeof *cols);
			if (!rows) rc = dl_exec_failed();
		}
		if (rc == 0) rc = dl_spill_parts_write(&o->parts, rows, rows->cols, rows->ncols);
		dl_batch_free(rows);
		for (int k = 0; k < nc; k++) {
			dl_array_free(cols[k]);
			cols[k] = NULL;
		}
		dl_free(sel);
	}
	dl_free(cols);
	return rc;
}

static int setop_grace(set_op *o, dl_batch *b)
{
	o->grace = true;
	int rc = dl_spill_parts_open(&o->parts, &o->ctx, dl_batch_stream_schema(o->b), o->level, "set operation");
	if (rc == 0) rc = dl_spill_parts_open(&o->aparts, &o->ctx, dl_batch_stream_schema(o->a), o->level, "set operation");
	if (rc == 0) rc = dump_right(o);
	dl_keytab_free(o->right);
	o->right = NULL;
	dl_keytab_free(o->seen);
	o->seen = NULL;
	dl_free(o->count);
	o->count = NULL;
	dl_exec_mem_release(o->ctx.mem, o->charged);
	o->charged = 0;
	while (rc == 0 && b) {
		rc = dl_spill_parts_write(&o->parts, b, b->cols, b->ncols);
		dl_batch_free(b);
		b = NULL;
		if (rc == 0) rc = dl_exec_check_interrupt(&o->ctx, "set operation");
		if (rc == 0) rc = dl_batch_stream_next(o->b, &b);
	}
	dl_batch_free(b);
	return rc < 0 ? dl_error_prefix("set operation") : 0;
}

static int part_stream(dl_batch_stream **out, dl_spill_file *f, const dl_type *schema, const dl_exec_ctx *ctx)
{
	if (f) return dl_spill_stream(out, f, ctx);
	return dl_batch_stream_from_batches(out, (dl_type *)schema, NULL, 0);
}

static int setop_grace_next(set_op *o, dl_batch **out)
{
	*out = NULL;
	while (!o->a_done) {
		dl_batch *b;
		DL_TRY(dl_exec_check_interrupt(&o->ctx, "set operation"));
		DL_TRY(dl_batch_stream_next(o->a, &b));
		if (!b) {
			o->a_done = true;
			break;
		}
		int rc = dl_spill_parts_write(&o->aparts, b, b->cols, b->ncols);
		dl_batch_free(b);
		if (rc < 0) return dl_error_prefix("set operation");
	}
	for (;;) {
		if (o->child) {
			DL_TRY(dl_batch_stream_next(o->child, out));
			if (*out) {
				int rc = dl_batch_set_schema(*out, o->schema);
				if (rc < 0) {
					dl_batch_free(*out);
					*out = NULL;
				}
				return rc;
			}
			dl_batch_stream_free(o->child);
			o->child = NULL;
		}
		if (o->next_part >= DL_SPILL_PARTS) return 0;
		int p = o->next_part++;
		dl_spill_file *af, *bf;
		DL_TRY(dl_spill_parts_take(&af, &o->aparts, p));
		int rc = dl_spill_parts_take(&bf, &o->parts, p);
		if (rc < 0) {
			dl_spill_free(af);
			return rc;
		}
		/* nothing of a: no output; nothing of b: INTERSECT has none */
		if (!af || (!bf && o->kind == DL_SETOP_INTERSECT)) {
			dl_spill_free(af);
			dl_spill_free(bf);
			continue;
		}
		dl_batch_stream *as = NULL, *bs = NULL;
		rc = part_stream(&as, af, dl_batch_stream_schema(o->a), &o->ctx);
		if (rc == 0) rc = part_stream(&bs, bf, dl_batch_stream_schema(o->b), &o->ctx);
		else dl_spill_free(bf);
		if (rc < 0) {
			dl_batch_stream_free(as);
			return rc;
		}
		DL_TRY(setop_open(&o->child, as, bs, o->kind, o->all, &o->ctx, o->level + 1));
	}
}
