/* range(end), range(start, end [, step [, numPartitions]]): Spark's
 * table-valued function of consecutive BIGINTs in one column `id`, from
 * start (default 0) up to end exclusive by step (default 1; negative steps
 * count down; 0 is an error). numPartitions only shapes Spark's tasks: it
 * is checked and otherwise ignored. Rows are generated batch by batch, so
 * range(0, 1e10) streams. */
#include "sql/resolve_internal.h"
#include "columnar/builder.h"
#include "exec/op.h"
#include "util/error.h"
#include "util/mem.h"
#include <string.h>

#define RANGE_BATCH 65536

typedef struct range_rel {
	sql_relation r;
	int64_t start, end, step;
} range_rel;

typedef struct range_stream {
	dl_type *schema;
	int64_t next, end, step; /* next value; end exclusive */
	bool done;
	const _Atomic bool *interrupt;
} range_stream;

/* Values left from v to end by step (0 when none). */
static int64_t remaining(int64_t v, int64_t end, int64_t step)
{
	if (step > 0 ? v >= end : v <= end) return 0;
	/* the distance fits in an unsigned 64-bit value */
	uint64_t dist = step > 0 ? (uint64_t)end - (uint64_t)v : (uint64_t)v - (uint64_t)end;
	uint64_t s = step > 0 ? (uint64_t)step : (uint64_t)0 - (uint64_t)step;
	uint64_t n = (dist - 1) / s + 1;
	return n > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)n;
}

static const dl_type *rs_schema(dl_batch_stream *s)
{
	return ((range_stream *)s->private_data)->schema;
}

static int rs_next(dl_batch_stream *s, dl_batch **out)
{
	range_stream *r = s->private_data;
	*out = NULL;
	if (r->interrupt && atomic_load(r->interrupt)) return sql_cancelled();
	int64_t left = r->done ? 0 : remaining(r->next, r->end, r->step);
	if (left == 0) return 0;
	int64_t n = left < RANGE_BATCH ? left : RANGE_BATCH;
	dl_builder *b;
	DL_TRY(dl_builder_new(&b, r->schema->children[0].type));
	int rc = dl_builder_reserve(b, n, 0);
	int64_t v = r->next;
	for (int64_t i = 0; i < n && rc == 0; i++) {
		rc = dl_builder_append_int(b, v);
		if (i + 1 < n) v += r->step;
	}
	dl_array *col = NULL;
	if (rc == 0) rc = dl_builder_finish(&col, b);
	dl_builder_free(b);
	if (rc < 0) return rc;
	/* the value after the last one may overflow: then the range is done */
	if (__builtin_add_overflow(v, r->step, &r->next)) r->done = true;
	dl_array *cols[1] = {col};
	*out = dl_exec_batch(r->schema, cols, n);
	return *out ? 0 : dl_exec_failed();
}

static void rs_release(dl_batch_stream *s)
{
	range_stream *r = s->private_data;
	dl_type_unref(r->schema);
	dl_free(r);
	dl_free(s);
}

static int range_open(dl_batch_stream **out, sql_relation *rel, const char *const *cols, int ncols,
                      dl_expr *filter, const dl_exec_ctx *ctx)
{
	(void)cols;
	range_rel *rr = rel->impl;
	dl_expr_free(filter);
	*out = NULL;
	range_stream *r = dl_calloc(1, sizeof *r);
	dl_batch_stream *s = dl_calloc(1, sizeof *s);
	if (!r || !s) {
		dl_free(r);
		dl_free(s);
		return dl_error_set(DL_ENOMEM, "out of memory");
	}
	/* zero columns asked (count(*)): still one column, the planner only counts rows */
	(void)ncols;
	r->schema = dl_type_ref((dl_type *)rel->schema);
	r->next = rr->start;
	r->end = rr->end;
	r->step = rr->step;
	r->interrupt = ctx ? ctx->interrupt : NULL;
	*s = (dl_batch_stream){rs_schema, rs_next, rs_release, r};
	*out = s;
	return 0;
}

static int range_explain(dl_buf *out, sql_relation *rel, const char *const *cols, int ncols, const dl_expr *filter,
                         const dl_exec_ctx *ctx)
{
	(void)cols, (void)ncols, (void)filter, (void)ctx;
	range_rel *rr = rel->impl;
	return dl_buf_printf(out, "%lld rows", (long long)remaining(rr->start, rr->end, rr->step));
}

static void range_release(sql_relation *rel)
{
	range_rel *rr = rel->impl;
	if (rel->schema) dl_type_unref((dl_type *)rel->schema);
	dl_free((char *)rel->display);
	dl_free(rr);
}

int sql_range_relation(sql_relation **out, dl_sql_conn *c, const sql_table_ref *ref, const dl_exec_ctx *ctx)
{
	(void)c;
	*out = NULL;
	dl_exec_ctx dctx = DL_EXEC_CTX_INIT;
	if (!ctx) ctx = &dctx;
	if (ref->nargs < 1 || ref->nargs > 4)
		return dl_error_set_class(DL_EINVALID, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
		                          "[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `range` requires [1, 2, 3, 4] "
		                          "parameters but the actual number is %d.",
		                          ref->nargs);
	int64_t v[4] = {0, 0, 1, 1};
	for (int i = 0; i < ref->nargs; i++) {
		dl_scalar s;
		dl_expr *h = NULL;
		int rc = sql_eval_const(&s, &h, ref->args[i], "BIGINT", ctx);
		if (rc == 0 && s.is_null) rc = dl_error_set(DL_EINVALID, "range: argument %d is NULL", i + 1);
		if (rc == 0) v[ref->nargs == 1 ? 1 : i] = s.v.i64;
		dl_expr_free(h);
		if (rc < 0) return *dl_error_last()->klass ? rc : dl_error_prefix("range");
	}
	if (v[2] == 0) return dl_error_set(DL_EINVALID, "range: the step must not be 0");
	if (v[3] <= 0) return dl_error_set(DL_EINVALID, "range: numPartitions must be positive, not %lld", (long long)v[3]);
	range_rel *rr = dl_calloc(1, sizeof *rr);
	dl_type *id = dl_type_new(DL_TYPE_LONG);
	const char *name = "id";
	bool nullable = false;
	dl_type *schema = id ? dl_exec_struct(&name, &id, &nullable, 1) : NULL;
	dl_type_unref(id);
	dl_buf d = DL_BUF_INIT;
	int rc = rr && schema ? 0 : dl_error_set(DL_ENOMEM, "out of memory");
	if (rc == 0)
		rc = dl_buf_printf(&d, "range(%lld, %lld, %lld)%c", (long long)v[0], (long long)v[1], (long long)v[2], 0);
	if (rc < 0) {
		dl_free(rr);
		dl_type_unref(schema);
		dl_buf_free(&d);
		return rc;
	}
	rr->start = v[0];
	rr->end = v[1];
	rr->step = v[2];
	rr->r.schema = schema;
	rr->r.display = (char *)d.data;
	rr->r.est_rows = remaining(v[0], v[1], v[2]);
	rr->r.open = range_open;
	rr->r.explain = range_explain;
	rr->r.release = range_release;
	rr->r.impl = rr;
	*out = &rr->r;
	return 0;
}
