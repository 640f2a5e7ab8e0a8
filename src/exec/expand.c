/* Expand (exec.h): Spark's Expand, the operator under the aggregate of
 * GROUP BY GROUPING SETS / ROLLUP / CUBE. Each input row leaves once per
 * grouping set, carrying every input column unchanged (the aggregates read
 * those), then the grouping keys with the keys outside the set replaced by
 * NULL, then the set's grouping id. The aggregate above groups by keys and
 * id together, so rows of different sets never share a group even where
 * their keys look alike (a real NULL key and a rolled-up one).
 *
 * The id is Spark's spark_grouping_id: one bit per key, the first key the
 * most significant, set when the key is NOT in the set. The caller passes
 * those ids; the bits also tell which keys to null. The keys are evaluated
 * once per input batch and copied per set; the last set takes the
 * originals, so a single set costs no copy. */
#include "exec/op.h"

typedef struct expand_op {
	dl_batch_stream *in;
	dl_expr **keys;
	int nkeys;
	uint64_t *ids;
	int nsets;
	dl_type *schema;
	dl_exec_ctx ctx;
	dl_batch *cur;      /* the input batch being expanded */
	dl_array **kcols;   /* its evaluated keys */
	int next_set;       /* the set the next output batch is for */
} expand_op;

static const dl_type *e_schema(dl_batch_stream *s)
{
	expand_op *e = s->private_data;
	return e->schema;
}

static void drop_current(expand_op *e)
{
	for (int i = 0; e->kcols && i < e->nkeys; i++) {
		dl_array_free(e->kcols[i]);
		e->kcols[i] = NULL;
	}
	dl_batch_free(e->cur);
	e->cur = NULL;
}

static bool nulled(const expand_op *e, int set, int key)
{
	return (e->ids[set] >> (e->nkeys - 1 - key)) & 1;
}

/* Column c of the output for set s: the original (taken) on the last set,
 * else a copy. */
static dl_array *pass(dl_array **slot, bool last)
{
	if (!last) return dl_array_slice(*slot, 0, (*slot)->length);
	dl_array *a = *slot;
	*slot = NULL;
	return a;
}

static int e_next(dl_batch_stream *s, dl_batch **out)
{
	expand_op *e = s->private_data;
	*out = NULL;
	if (!e->cur) {
		dl_batch *b;
		DL_TRY(dl_batch_stream_next(e->in, &b));
		if (!b) return 0;
		e->cur = b;
		e->next_set = 0;
		int rc = dl_exec_eval_all(e->kcols, e->keys, e->nkeys, b, &e->ctx);
		if (rc < 0) {
			drop_current(e);
			return dl_error_prefix("expand");
		}
	}
	dl_batch *b = e->cur;
	int set = e->next_set++;
	bool last = e->next_set == e->nsets;
	int64_t rows = b->num_rows;
	int nin = b->ncols, n = nin + e->nkeys + 1;
	dl_array **cols = dl_calloc((size_t)n, sizeof *cols);
	int rc = cols ? 0 : dl_error_set(DL_ENOMEM, "out of memory");
	for (int i = 0; rc == 0 && i < nin; i++)
		if (!(cols[i] = pass(&b->cols[i], last))) rc = dl_exec_failed();
	for (int k = 0; rc == 0 && k < e->nkeys; k++) {
		dl_array **slot = &e->kcols[k];
		if (nulled(e, set, k)) cols[nin + k] = dl_array_new_null((*slot)->type, rows);
		else cols[nin + k] = pass(slot, last);
		if (!cols[nin + k]) rc = dl_exec_failed();
	}
	if (rc == 0) {
		dl_type *lt = dl_type_new(DL_TYPE_LONG);
		dl_array *id = lt ? dl_array_new(lt, rows) : NULL;
		dl_type_unref(lt);
		if (!id) rc = dl_exec_failed();
		else
			for (int64_t r = 0; r < rows; r++) ((int64_t *)id->values)[r] = (int64_t)e->ids[set];
		cols[n - 1] = id;
	}
	if (last) drop_current(e);
	if (rc < 0) {
		for (int i = 0; cols && i < n; i++) dl_array_free(cols[i]);
		dl_free(cols);
		return rc;
	}
	*out = dl_exec_batch(e->schema, cols, rows);
	dl_free(cols);
	return *out ? 0 : dl_exec_failed();
}

static void e_free(expand_op *e)
{
	drop_current(e);
	dl_batch_stream_free(e->in);
	for (int i = 0; i < e->nkeys; i++) dl_expr_free(e->keys[i]);
	dl_free(e->keys);
	dl_free(e->kcols);
	dl_free(e->ids);
	dl_type_unref(e->schema);
	dl_free(e);
}

static void e_release(dl_batch_stream *s)
{
	e_free(s->private_data);
	dl_free(s);
}

int dl_exec_expand(dl_batch_stream **out, dl_batch_stream *in, dl_expr *const *keys, const char *const *key_names,
                   int nkeys, const uint64_t *ids, int nsets, const char *id_name, const dl_exec_ctx *ctx)
{
	*out = NULL;
	expand_op *e = dl_calloc(1, sizeof *e);
	dl_expr **kx = dl_calloc((size_t)nkeys + 1, sizeof *kx);
	uint64_t *id = dl_calloc((size_t)nsets + 1, sizeof *id);
	dl_array **kc = dl_calloc((size_t)nkeys + 1, sizeof *kc);
	if (!e || !kx || !id || !kc) {
		dl_free(e);
		dl_free(kx);
		dl_free(id);
		dl_free(kc);
		dl_batch_stream_free(in);
		for (int i = 0; i < nkeys; i++) dl_expr_free(keys[i]);
		return dl_error_set(DL_ENOMEM, "out of memory");
	}
	e->in = in;
	e->keys = kx;
	e->nkeys = nkeys;
	e->kcols = kc;
	e->ids = id;
	e->nsets = nsets;
	for (int i = 0; i < nkeys; i++) kx[i] = keys[i];
	for (int i = 0; i < nsets; i++) id[i] = ids[i];
	if (ctx) e->ctx = *ctx;
	int rc = 0;
	if (nsets < 1 || nkeys > 64)
		rc = dl_error_set(DL_EINVALID, "expand: %d grouping sets over %d keys (1 set and at most 64 keys)", nsets, nkeys);
	const dl_type *is = dl_batch_stream_schema(in);
	for (int i = 0; i < nkeys && rc == 0; i++) rc = dl_exec_bind(kx[i], is, ctx, "expand");
	int nin = is->nchildren, n = nin + nkeys + 1;
	const char **nm = rc == 0 ? dl_calloc((size_t)n, sizeof *nm) : NULL;
	dl_type **ty = rc == 0 ? dl_calloc((size_t)n, sizeof *ty) : NULL;
	bool *nullable = rc == 0 ? dl_calloc((size_t)n, sizeof *nullable) : NULL;
	dl_type *lt = rc == 0 ? dl_type_new(DL_TYPE_LONG) : NULL;
	if (rc == 0 && (!nm || !ty || !nullable || !lt)) rc = dl_error_set(DL_ENOMEM, "out of memory");
	for (int i = 0; rc == 0 && i < nin; i++) {
		nm[i] = is->children[i].name;
		ty[i] = is->children[i].type;
		nullable[i] = is->children[i].nullable;
	}
	for (int k = 0; rc == 0 && k < nkeys; k++) {
		nm[nin + k] = key_names[k];
		ty[nin + k] = (dl_type *)dl_expr_type(kx[k]);
		nullable[nin + k] = true;
	}
	if (rc == 0) {
		nm[n - 1] = id_name;
		ty[n - 1] = lt;
		if (!(e->schema = dl_exec_struct(nm, ty, nullable, n))) rc = dl_exec_failed();
	}
	dl_type_unref(lt);
	dl_free(nm);
	dl_free(ty);
	dl_free(nullable);
	if (rc == 0 && !(*out = dl_exec_stream_new(e, e_schema, e_next, e_release))) rc = dl_exec_failed();
	if (rc < 0) e_free(e);
	return rc;
}
