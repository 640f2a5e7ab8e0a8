/* Reading one touched file (see rewrite.h): its rows batch by batch through
 * the scan's file reader (existing deletion vector applied), each row's
 * position in the file reconstructed from the old DV (the reader yields the
 * rows it keeps in file order), the deleted rows selected by the predicate
 * or the caller's positions, and both halves sent to the outputs. */
#include "rewrite/rewrite_internal.h"
#include <string.h>
#include "util/error.h"
#include "util/mem.h"

typedef struct read_ctx {
	dl_rewrite *rw;
	rw_file *f;
	const dl_expr *pred; /* the engine's predicate, bound to the scan read */
	uint32_t *keep;   /* unmatched rows of the batch */
	size_t keep_cap;
	uint64_t *mpos;   /* positions of the matched rows */
	size_t mpos_cap;
} read_ctx;

static int reserve(void **p, size_t *cap, size_t n, size_t size)
{
	if (n <= *cap) return 0;
	size_t c = *cap ? *cap : 1024;
	while (c < n) c *= 2;
	void *np = dl_reallocarray(*p, c, size);
	if (!np) return DL_ENOMEM;
	*p = np;
	*cap = c;
	return 0;
}

/* Positions of the batch's rows: the next ones the old DV keeps. When the
 * old DV deletes none of them they are consecutive, f->bbase onwards, and
 * are not listed (only the matched rows' are ever looked up). */
static int batch_positions(rw_file *f, int64_t n)
{
	if (f->old_next >= (uint64_t)(f->pos + n)) {
		f->bbase = f->pos;
		f->pos += n;
		return 0;
	}
	f->bbase = -1;
	DL_TRY(reserve((void **)&f->bpos, &f->bpos_cap, (size_t)n + 1, sizeof *f->bpos));
	for (int64_t j = 0; j < n; j++) {
		while (f->old_next == (uint64_t)f->pos) f->old_next = dl_rowset_next(&f->old_c, (uint64_t)++f->pos);
		f->bpos[j] = (uint64_t)f->pos++;
	}
	return 0;
}

/* Position in the file of row j of the current batch. */
static inline uint64_t row_pos(const rw_file *f, int64_t j)
{
	return f->bbase >= 0 ? (uint64_t)(f->bbase + j) : f->bpos[j];
}

/* f->sel: rows of the batch at the caller's positions. */
static int given_selection(rw_file *f, int64_t n)
{
	DL_TRY(dl_selection_reserve(&f->sel, n));
	f->sel.count = 0;
	for (int64_t j = 0; j < n; j++)
		if (dl_rowset_has(&f->given_c, row_pos(f, j))) f->sel.idx[f->sel.count++] = (uint32_t)j;
	return 0;
}

/* The batch's rows split by f->sel (matched) to the outputs; takes b. */
static int send_rows(read_ctx *c, dl_batch *b)
{
	dl_rewrite *rw = c->rw;
	rw_file *f = c->f;
	int64_t n = b->num_rows;
	int rc = 0;
	f->live += n;
	int64_t m = f->sel.count;
	if (m) f->touched = true;
	/* the unmatched rows are listed only for a copy: with a DV they stay
	 * where they are */
	if (f->copy) rc = reserve((void **)&c->keep, &c->keep_cap, (size_t)(n - m) + 1, sizeof *c->keep);
	if (rc == 0) rc = reserve((void **)&c->mpos, &c->mpos_cap, (size_t)m + 1, sizeof *c->mpos);
	int64_t nk = 0;
	if (rc == 0 && f->copy) {
		int64_t j = 0;
		for (int64_t r = 0; r < n; r++) {
			if (j < m && f->sel.idx[j] == (uint32_t)r) c->mpos[j++] = row_pos(f, r);
			else c->keep[nk++] = (uint32_t)r;
		}
	} else if (rc == 0) {
		for (int64_t j = 0; j < m; j++) c->mpos[j] = row_pos(f, f->sel.idx[j]);
	}
	if (rc == 0 && m && !f->copy) rc = dl_rowset_push(&f->deleted, c->mpos, (size_t)m, f->add->path);
	if (rc == 0 && f->copy && nk) {
		rc = dl_rw_write_copies(rw, f, b, c->keep, nk);
		f->copied += nk;
	}
	if (rc == 0 && m) rc = dl_rw_write_matched(rw, f, b, f->sel.idx, c->mpos, m);
	f->matched += m;
	dl_batch_free(b);
	return rc;
}

static int on_batch(void *payload, dl_batch *b)
{
	read_ctx *c = payload;
	rw_file *f = c->f;
	int64_t n = b->num_rows;
	int rc = batch_positions(f, n);
	if (rc == 0 && f->kind == RW_COPY) f->sel.count = 0;
	else if (rc == 0)
		rc = f->kind == RW_WHERE ? dl_expr_filter(&f->sel, c->pred, b, NULL)
		                         : given_selection(f, n);
	if (rc < 0 || f->probe) {
		bool hit = rc == 0 && f->sel.count > 0;
		dl_batch_free(b);
		if (hit) f->touched = true;
		return rc < 0 ? rc : hit ? DL_ECANCELLED : 0;
	}
	return send_rows(c, b);
}

/* A batch of the filtered scan: matched rows only, at the given positions. */
static int on_matched(void *payload, dl_batch *b, const uint64_t *rows)
{
	read_ctx *c = payload;
	rw_file *f = c->f;
	int64_t n = b->num_rows;
	int rc = reserve((void **)&f->bpos, &f->bpos_cap, (size_t)n + 1, sizeof *f->bpos);
	if (rc == 0) rc = dl_selection_reserve(&f->sel, n);
	if (rc < 0) {
		dl_batch_free(b);
		return rc;
	}
	memcpy(f->bpos, rows, (size_t)n * sizeof *rows);
	f->bbase = -1;
	for (int64_t j = 0; j < n; j++) f->sel.idx[j] = (uint32_t)j;
	f->sel.count = n;
	return send_rows(c, b);
}

/* An UPDATE with DVs: only the matching rows are read, the columns the
 * predicate does not need decoded for them alone. */
static int read_matched(dl_rewrite *rw, rw_file *f)
{
	read_ctx c = {rw, f, NULL, NULL, 0, NULL, 0};
	int64_t live = 0;
	int rc = dl_scan_read_add_rows(rw->filtered, f->add, &live, on_matched, &c);
	/* send_rows counted the matched rows: the file's live rows are all those
	 * the old DV keeps */
	f->live = live;
	dl_free(c.keep);
	dl_free(c.mpos);
	return rc;
}

/* Whether a pass needs only the predicate's columns: the probe of a copy,
 * or a DV-only delete (no copies, no updated rows: it writes no change data). */
static bool narrow_pass(const dl_rewrite *rw, const rw_file *f, bool probe)
{
	if (!rw->narrow || f->kind != RW_WHERE) return false;
	return probe || (!f->copy && !rw->o.update);
}

static int read_pass(dl_rewrite *rw, rw_file *f, bool probe)
{
	bool narrow = narrow_pass(rw, f, probe);
	read_ctx c = {rw, f, narrow ? rw->narrow_pred : rw->pred, NULL, 0, NULL, 0};
	f->probe = probe;
	f->pos = 0;
	dl_rowset_cursor_init(&f->old_c, &f->old);
	dl_rowset_cursor_init(&f->given_c, &f->given);
	f->old_next = dl_rowset_next(&f->old_c, 0);
	int rc = dl_scan_read_add(narrow ? rw->narrow : rw->scan, f->add, NULL, 0, false, on_batch, &c);
	if (rc == DL_ECANCELLED) {
		dl_error_clear();
		rc = 0;
	}
	dl_free(c.keep);
	dl_free(c.mpos);
	return rc;
}

static int load_old_dv(dl_rewrite *rw, rw_file *f)
{
	if (!f->add->dv) return 0;
	dl_dv_rows rows;
	/* through the engine's scan when it is open: each DV file is then opened
	 * once for all touched files, under the scan's path policy */
	if (rw->scan) DL_TRY(dl_dv_load_from(&rows, rw->scan->dvs, f->add->dv));
	else DL_TRY(dl_dv_load(&rows, rw->store, f->add->dv));
	int rc = dl_rowset_from_dv(&f->old, &rows);
	dl_dv_rows_free(&rows);
	if (rc < 0) return dl_error_prefix("deletion vector of %s", f->add->path);
	return 0;
}

/* The file is read: the positions only reading needed go (a new DV needs
 * the old one's rows and those deleted now). */
static int read_done(rw_file *f)
{
	dl_rowset_free(&f->given);
	if (f->copy || !f->touched) dl_rowset_free(&f->old);
	return 0;
}

int dl_rw_process_file(dl_rewrite *rw, rw_file *f)
{
	if (f->kind == RW_WHOLE) return 0;
	if (f->kind == RW_ROWS && f->given.count == 0) return 0;
	DL_TRY(load_old_dv(rw, f));
	/* Copy-on-write must know that a row matches before copying any; an
	 * update with DVs probes through the predicate's columns too, so a file
	 * without a match is never decoded whole. */
	bool copies = f->copy;
	if (rw->filtered && f->kind == RW_WHERE && !copies) {
		/* no probe: the outputs write nothing when no row matches */
		DL_TRY(dl_rw_open_outputs(rw, f));
		DL_TRY(read_matched(rw, f));
		if (f->out) DL_TRY(dl_files_writer_finish(f->out));
		if (f->cdc) DL_TRY(dl_change_writer_finish(f->cdc));
		return 0;
	}
	bool probe = copies || (rw->o.update && rw->narrow && f->kind == RW_WHERE);
	if (f->kind == RW_COPY) {
		f->touched = true;
	} else if (probe) {
		DL_TRY(read_pass(rw, f, true));
		if (!f->touched) return read_done(f);
		f->touched = false;
	}
	if (copies || rw->o.update) DL_TRY(dl_rw_open_outputs(rw, f));
	DL_TRY(read_pass(rw, f, false));
	read_done(f);
	if (f->out) DL_TRY(dl_files_writer_finish(f->out));
	if (f->cdc) DL_TRY(dl_change_writer_finish(f->cdc));
	return 0;
}
