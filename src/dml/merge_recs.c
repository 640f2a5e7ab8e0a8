/* The target rows a MERGE acts on, per target file: each record says which
 * row (its position), what clause acts on it and which source row matched
 * it (mg_rec, 32 bytes). There is one per matched pair, so the list grows
 * with the source (and, with NOT MATCHED BY SOURCE, with the target): held
 * in memory under the command's budget (x->mem) while it fits, then every
 * file's records go to their own spill file and each joined batch's new
 * records are appended there. The check sorts one file's records at a time
 * (so memory is the budget plus one file's records) and writes them back
 * sorted, which lets the rewrite engine's callback, that asks for one
 * file's rows in position order, read them back a batch at a time. Spill
 * files are unlinked when created: nothing is left behind on any path. */
#include "dml/merge_recs.h"
#include <stdlib.h>
#include <string.h>
#include "exec/spill.h"
#include "util/error.h"
#include "util/mem.h"

#define REC_BATCH 16384 /* records a spilled batch (512 KB) */
#define REC_COLS 4      /* pos, clause, srow, crow: all LONG */

static int rec_schema(mg_exec *x)
{
	if (x->rec_schema) return 0;
	dl_type *lt = dl_type_new(DL_TYPE_LONG);
	if (!lt) return DL_ENOMEM;
	dl_field f[REC_COLS] = {{(char *)"pos", lt, false, (char *)"{}"},
	                        {(char *)"clause", lt, false, (char *)"{}"},
	                        {(char *)"srow", lt, false, (char *)"{}"},
	                        {(char *)"crow", lt, false, (char *)"{}"}};
	x->rec_schema = dl_type_struct(f, REC_COLS);
	dl_type_unref(lt);
	return x->rec_schema ? 0 : dl_error_last()->code;
}

static void rec_at(const dl_batch *b, int64_t i, mg_rec *o)
{
	const int64_t *p = b->cols[0]->values, *c = b->cols[1]->values, *s = b->cols[2]->values,
	              *k = b->cols[3]->values;
	*o = (mg_rec){(uint64_t)p[i], (int32_t)c[i], s[i], k[i]};
}

/* Appends a[0..n) to r's spill file (opened at its first record). */
static int write_recs(mg_exec *x, mg_file_recs *r, const mg_rec *a, size_t n)
{
	if (!n) return 0;
	DL_TRY(rec_schema(x));
	if (!r->spill) {
		dl_exec_ctx ctx = DL_EXEC_CTX_INIT;
		ctx.mem = &x->mem;
		ctx.temp_dir = x->m->o.temp_dir;
		DL_TRY(dl_spill_open(&r->spill, &ctx, x->rec_schema, "merge touched rows"));
	}
	for (size_t i = 0; i < n;) {
		int64_t m = (int64_t)(n - i < REC_BATCH ? n - i : REC_BATCH);
		dl_batch *b = dl_batch_new(x->rec_schema, m);
		int rc = b ? 0 : dl_error_last()->code;
		for (int c = 0; rc == 0 && c < REC_COLS; c++)
			if (!(b->cols[c] = dl_array_new(x->rec_schema->children[c].type, m))) rc = dl_error_last()->code;
		if (rc == 0) {
			int64_t *p = b->cols[0]->values, *c = b->cols[1]->values, *s = b->cols[2]->values,
			        *k = b->cols[3]->values;
			for (int64_t j = 0; j < m; j++) {
				const mg_rec *e = &a[i + (size_t)j];
				p[j] = (int64_t)e->pos;
				c[j] = e->clause;
				s[j] = e->srow;
				k[j] = e->crow;
			}
			rc = dl_spill_write(r->spill, b);
		}
		dl_batch_free(b);
		DL_TRY(rc);
		i += (size_t)m;
	}
	return 0;
}

static void drop_memory(mg_exec *x, mg_file_recs *r)
{
	dl_free(r->r);
	r->r = NULL;
	r->n = r->cap = 0;
	dl_exec_mem_release(&x->mem, r->charged);
	r->charged = 0;
}

/* The budget is used up: every file's records go to its spill file. */
static int spill_all(mg_exec *x)
{
	x->recs_spilling = true;
	x->recs_dirty = dl_calloc(x->nfiles + 1, sizeof *x->recs_dirty);
	if (!x->recs_dirty) return DL_ENOMEM;
	for (size_t f = 0; f < x->nfiles; f++) {
		mg_file_recs *r = &x->recs[f];
		DL_TRY(write_recs(x, r, r->r, r->n));
		drop_memory(x, r);
	}
	return 0;
}

int dl_mg_rec_push(mg_exec *x, int64_t file, uint64_t pos, int32_t clause, int64_t srow, int64_t crow)
{
	mg_file_recs *r = &x->recs[file];
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		if (!x->recs_spilling) {
			int64_t more = (int64_t)((cap - r->cap) * sizeof *r->r);
			if (dl_exec_mem_charge(&x->mem, more, "merge touched rows") == 0) {
				r->charged += more;
			} else {
				dl_error_clear();
				DL_TRY(spill_all(x));
				cap = 64; /* r was emptied */
			}
		}
		mg_rec *nr = dl_reallocarray(r->r, cap, sizeof *nr);
		if (!nr) return DL_ENOMEM;
		r->r = nr;
		r->cap = cap;
	}
	if (x->recs_spilling && !r->dirty) {
		r->dirty = true;
		x->recs_dirty[x->ndirty++] = (size_t)file;
	}
	r->r[r->n++] = (mg_rec){pos, clause, srow, crow};
	return 0;
}

int dl_mg_recs_flush(mg_exec *x)
{
	/* unflushed records are one joined batch's: not charged, freed here */
	for (size_t i = 0; i < x->ndirty; i++) {
		mg_file_recs *r = &x->recs[x->recs_dirty[i]];
		DL_TRY(write_recs(x, r, r->r, r->n));
		drop_memory(x, r);
		r->dirty = false;
	}
	x->ndirty = 0;
	return 0;
}

/* ---- the check ---- */

static int cmp_rec(const void *a, const void *b)
{
	const mg_rec *x = a, *y = b;
	if (x->pos != y->pos) return x->pos < y->pos ? -1 : 1;
	return x->srow < y->srow ? -1 : x->srow > y->srow;
}

static int multiple_matches(void)
{
	return dl_error_set_class(DL_EINVALID, "DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE",
	                          "[DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE] Cannot perform "
	                          "Merge as multiple source rows matched and attempted to modify the same "
	                          "target row in the Delta table in possibly conflicting ways. By SQL "
	                          "semantics of Merge, when multiple source rows match on the same target "
	                          "row, the result may be ambiguous as it is unclear which source row "
	                          "should be used to update or delete the matching target row. You can "
	                          "preprocess the source table to eliminate the possibility of multiple "
	                          "matches.");
}

/* Sorts a[0..n), checks it and keeps in a[0..*kept) the rows a clause acts
 * on (matched rows no clause acts on are copied: not touched). */
static int check_file(mg_exec *x, mg_rec *a, size_t n, size_t *kept)
{
	if (n > 1) qsort(a, n, sizeof *a, cmp_rec);
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		if (w > 0 && a[w - 1].pos == a[i].pos) {
			if (!x->single_uncond_delete) return multiple_matches();
			continue;
		}
		a[w++] = a[i];
	}
	size_t k = 0;
	for (size_t i = 0; i < w; i++)
		if (a[i].clause >= 0) {
			x->m->cl[a[i].clause].rows++;
			a[k++] = a[i];
		}
	*kept = k;
	return 0;
}

/* A spilled file: its records read back, checked, written to a new spill
 * file in position order. */
static int check_spilled(mg_exec *x, mg_file_recs *r)
{
	size_t total = (size_t)dl_spill_rows(r->spill);
	int64_t bytes = (int64_t)(total * sizeof(mg_rec));
	/* one file's records, whatever the budget (as one file's captured rows
	 * for the update callback) */
	dl_exec_mem_force(&x->mem, bytes);
	mg_rec *a = dl_malloc(total * sizeof *a + 1);
	int rc = a ? dl_spill_rewind(r->spill) : DL_ENOMEM;
	size_t n = 0;
	while (rc == 0) {
		dl_batch *b;
		rc = dl_spill_read(r->spill, &b);
		if (rc < 0 || !b) break;
		if (n + (size_t)b->num_rows > total)
			rc = dl_error_set(DL_EIO, "merge touched rows: the spill file holds more rows than written");
		for (int64_t j = 0; rc == 0 && j < b->num_rows; j++) rec_at(b, j, &a[n++]);
		dl_batch_free(b);
	}
	size_t kept = 0;
	if (rc == 0) rc = check_file(x, a, n, &kept);
	dl_spill_free(r->spill);
	r->spill = NULL;
	if (rc == 0) rc = write_recs(x, r, a, kept);
	if (rc == 0 && r->spill) rc = dl_spill_rewind(r->spill);
	dl_free(a);
	dl_exec_mem_release(&x->mem, bytes);
	r->n = kept;
	return rc;
}

int dl_mg_recs_check(mg_exec *x)
{
	DL_TRY(dl_mg_recs_flush(x));
	for (size_t f = 0; f < x->nfiles; f++) {
		mg_file_recs *r = &x->recs[f];
		if (x->recs_spilling) {
			if (r->spill) DL_TRY(check_spilled(x, r));
			continue;
		}
		size_t kept;
		DL_TRY(check_file(x, r->r, r->n, &kept));
		r->n = kept;
	}
	return 0;
}

/* ---- reading back ---- */

/* Touched positions handed to the rewrite engine a batch at a time: the
 * engine keeps them as a row set (about a bit per row at most), so the
 * list of 8-byte positions is never whole in memory. */
#define POS_BATCH 4096

int dl_mg_recs_touch(mg_exec *x, size_t f, dl_rewrite *rw)
{
	mg_file_recs *r = &x->recs[f];
	const dl_add *file = x->files[f];
	DL_TRY(dl_rewrite_touch_rows(rw, file, NULL, 0));
	if (!x->recs_spilling) {
		uint64_t p[POS_BATCH];
		for (size_t k = 0; k < r->n;) {
			size_t m = r->n - k < POS_BATCH ? r->n - k : POS_BATCH;
			for (size_t j = 0; j < m; j++) p[j] = r->r[k + j].pos;
			DL_TRY(dl_rewrite_touch_rows_more(rw, file, p, m));
			k += m;
		}
		return 0;
	}
	int rc = r->spill ? dl_spill_rewind(r->spill) : dl_error_set(DL_EINVALID, "merge: touched rows gone");
	size_t k = 0;
	while (rc == 0 && k < r->n) {
		dl_batch *b;
		rc = dl_spill_read(r->spill, &b);
		if (rc < 0 || !b) break;
		/* the records' positions, a LONG column (never negative) */
		size_t m = (size_t)b->num_rows < r->n - k ? (size_t)b->num_rows : r->n - k;
		rc = dl_rewrite_touch_rows_more(rw, file, (const uint64_t *)b->cols[0]->values, m);
		k += m;
		dl_batch_free(b);
	}
	/* the update callback reads them again from the start */
	if (rc == 0) rc = dl_spill_rewind(r->spill);
	if (rc == 0 && k != r->n)
		rc = dl_error_set(DL_EIO, "merge touched rows: the spill file of %s holds %zu of %zu rows",
		                  file->path, k, r->n);
	return rc;
}

int dl_mg_recs_find(mg_exec *x, size_t f, uint64_t pos, mg_rec *out, bool *found)
{
	mg_file_recs *r = &x->recs[f];
	*found = false;
	if (!x->recs_spilling) {
		size_t lo = 0, hi = r->n;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (r->r[mid].pos < pos) lo = mid + 1;
			else hi = mid;
		}
		if (lo < r->n && r->r[lo].pos == pos) {
			*out = r->r[lo];
			*found = true;
		}
		return 0;
	}
	while (r->spill) {
		if (!r->cur || r->cur_i >= r->cur->num_rows) {
			dl_batch_free(r->cur);
			r->cur = NULL;
			r->cur_i = 0;
			DL_TRY(dl_spill_read(r->spill, &r->cur));
			if (!r->cur) return 0;
		}
		const int64_t *p = r->cur->cols[0]->values;
		uint64_t at = (uint64_t)p[r->cur_i];
		if (at < pos) {
			r->cur_i++;
			continue;
		}
		if (at > pos) return 0;
		rec_at(r->cur, r->cur_i++, out);
		*found = true;
		/* the file's last touched row: its records are done with */
		if (++r->found == r->n) {
			dl_batch_free(r->cur);
			r->cur = NULL;
			dl_spill_free(r->spill);
			r->spill = NULL;
		}
		return 0;
	}
	return 0;
}

void dl_mg_recs_free(mg_exec *x)
{
	for (size_t f = 0; x->recs && f < x->nfiles; f++) {
		mg_file_recs *r = &x->recs[f];
		dl_free(r->r);
		dl_exec_mem_release(&x->mem, r->charged);
		dl_spill_free(r->spill);
		dl_batch_free(r->cur);
	}
	dl_free(x->recs);
	x->recs = NULL;
	dl_free(x->recs_dirty);
	x->recs_dirty = NULL;
	dl_type_unref(x->rec_schema);
	x->rec_schema = NULL;
}
