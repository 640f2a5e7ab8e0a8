/* The source columns of the target rows a MERGE updates, captured per
 * target file while the join runs, so that the source itself need not stay
 * in memory until the rewrite engine asks for the new rows (Spark re-reads
 * the source for its second pass; a stream cannot be re-read). Held in
 * memory under the command's budget (x->mem); when a batch does not fit,
 * every file's capture moves to its own spill file, and later captures go
 * there directly. Peak memory is then the budget plus what one file's
 * update callback needs. */
#include "dml/merge_capture.h"
#include <stdlib.h>
#include <string.h>
#include "exec/spill.h"
#include "util/error.h"
#include "util/mem.h"

static int cap_ctx_open(mg_exec *x, mg_capture *c, const dl_type *schema)
{
	dl_exec_ctx ctx = DL_EXEC_CTX_INIT;
	ctx.mem = &x->mem;
	ctx.temp_dir = x->m->o.temp_dir;
	return dl_spill_open(&c->spill, &ctx, schema, "merge updated rows");
}

/* Moves every file's held batches to spill files, releasing their charge. */
static int spill_all(mg_exec *x, const dl_type *schema)
{
	x->cap_spilling = true;
	for (size_t f = 0; f < x->nfiles; f++) {
		mg_capture *c = &x->cap[f];
		if (!c->nb) continue;
		if (!c->spill) DL_TRY(cap_ctx_open(x, c, schema));
		for (int i = 0; i < c->nb; i++) {
			DL_TRY(dl_spill_write(c->spill, c->b[i]));
			dl_batch_free(c->b[i]);
			c->b[i] = NULL;
		}
		c->nb = 0;
		dl_exec_mem_release(&x->mem, c->bytes);
		c->bytes = 0;
	}
	return 0;
}

static int add_one(mg_exec *x, size_t f, dl_batch *b)
{
	mg_capture *c = &x->cap[f];
	int64_t bytes = dl_batch_bytes(b);
	if (!x->cap_spilling && dl_exec_mem_charge(&x->mem, bytes, "merge updated rows") != 0) {
		int rc = spill_all(x, b->schema);
		if (rc < 0) {
			dl_batch_free(b);
			return rc;
		}
	}
	int rc = 0;
	if (x->cap_spilling) {
		if (!c->spill) rc = cap_ctx_open(x, c, b->schema);
		if (rc == 0) rc = dl_spill_write(c->spill, b);
		c->rows += b->num_rows;
		dl_batch_free(b);
		return rc;
	}
	if (c->nb == c->capb) {
		int nc = c->capb ? c->capb * 2 : 8;
		dl_batch **nb = dl_reallocarray(c->b, (size_t)nc, sizeof *nb);
		if (!nb) {
			dl_exec_mem_release(&x->mem, bytes);
			dl_batch_free(b);
			return DL_ENOMEM;
		}
		c->b = nb;
		c->capb = nc;
	}
	c->b[c->nb++] = b;
	c->bytes += bytes;
	c->rows += b->num_rows;
	return 0;
}

typedef struct cap_ref {
	int64_t file;
	uint32_t row;
} cap_ref;

static int cmp_ref(const void *a, const void *b)
{
	const cap_ref *x = a, *y = b;
	if (x->file != y->file) return x->file < y->file ? -1 : 1;
	return (x->row > y->row) - (x->row < y->row);
}

int dl_mg_capture(mg_exec *x, const dl_batch *V, const uint32_t *rows, int64_t n, int64_t *crow)
{
	if (!n) return 0;
	if (!x->cap) {
		x->cap = dl_calloc(x->nfiles + 1, sizeof *x->cap);
		if (!x->cap) return DL_ENOMEM;
	}
	const int64_t *fv = V->cols[x->nt]->values;
	cap_ref *r = dl_calloc((size_t)n, sizeof *r);
	uint32_t *sel = dl_calloc((size_t)n, sizeof *sel);
	int rc = r && sel ? 0 : DL_ENOMEM;
	for (int64_t k = 0; rc == 0 && k < n; k++) r[k] = (cap_ref){fv[rows[k]], (uint32_t)k};
	if (rc == 0) qsort(r, (size_t)n, sizeof *r, cmp_ref);
	/* the source columns of V: __s0.. and __srow */
	dl_batch src = {NULL, V->num_rows, x->ns + 1, V->cols + x->nt + 2};
	dl_type *ss = rc == 0 ? dl_type_struct(x->canon->children + x->nt + 2, x->ns + 1) : NULL;
	if (rc == 0 && !ss) rc = dl_error_last()->code;
	src.schema = ss;
	for (int64_t i = 0; rc == 0 && i < n;) {
		int64_t j = i;
		size_t f = (size_t)r[i].file;
		int64_t base = x->cap[f].rows;
		for (; j < n && r[j].file == r[i].file; j++) {
			sel[j - i] = rows[r[j].row];
			crow[r[j].row] = base + (j - i);
		}
		dl_batch *b = dl_batch_take(&src, sel, j - i);
		if (!b) rc = dl_error_last()->code;
		if (rc == 0) rc = add_one(x, f, b);
		i = j;
	}
	dl_type_unref(ss);
	dl_free(r);
	dl_free(sel);
	return rc;
}

/* All of file f's captured rows as one batch (under x->cap_lock). */
static int load(mg_exec *x, mg_capture *c)
{
	dl_batch **b = c->b;
	int nb = c->nb;
	dl_batch **read = NULL;
	int nread = 0, capr = 0, rc = 0;
	if (c->spill) {
		rc = dl_spill_rewind(c->spill);
		for (;;) {
			dl_batch *o = NULL;
			if (rc == 0) rc = dl_spill_read(c->spill, &o);
			if (rc < 0 || !o) break;
			if (nread == capr) {
				capr = capr ? capr * 2 : 8;
				dl_batch **nr = dl_reallocarray(read, (size_t)capr, sizeof *nr);
				if (!nr) {
					dl_batch_free(o);
					rc = DL_ENOMEM;
					break;
				}
				read = nr;
			}
			read[nread++] = o;
		}
		dl_spill_free(c->spill);
		c->spill = NULL;
		b = read;
		nb = nread;
	}
	if (rc == 0) {
		c->all = dl_batch_concat(b, nb);
		if (!c->all) rc = dl_error_last()->code;
	}
	for (int i = 0; i < nread; i++) dl_batch_free(read[i]);
	dl_free(read);
	(void)x;
	return rc;
}

int dl_mg_capture_get(mg_exec *x, size_t f, int64_t consumed, dl_batch **all)
{
	*all = NULL;
	if (!x->cap || !x->cap[f].rows) return 0;
	mg_capture *c = &x->cap[f];
	pthread_mutex_lock(&x->cap_lock);
	int rc = c->all ? 0 : load(x, c);
	if (rc == 0) {
		*all = c->all;
		c->used += consumed;
	}
	pthread_mutex_unlock(&x->cap_lock);
	return rc;
}

void dl_mg_capture_done(mg_exec *x, size_t f)
{
	if (!x->cap) return;
	mg_capture *c = &x->cap[f];
	pthread_mutex_lock(&x->cap_lock);
	/* the file's last callback frees what the file needed */
	if (c->all && c->used >= c->rows) {
		dl_batch_free(c->all);
		c->all = NULL;
	}
	pthread_mutex_unlock(&x->cap_lock);
}

void dl_mg_capture_free(mg_exec *x)
{
	for (size_t f = 0; x->cap && f < x->nfiles; f++) {
		mg_capture *c = &x->cap[f];
		for (int i = 0; i < c->nb; i++) dl_batch_free(c->b[i]);
		dl_free(c->b);
		dl_exec_mem_release(&x->mem, c->bytes);
		dl_spill_free(c->spill);
		dl_batch_free(c->all);
	}
	dl_free(x->cap);
	x->cap = NULL;
}
