/* The rows a rewrite writes (see rewrite.h): copies of surviving rows and
 * the new values of updated rows, in the written schema (older files are
 * conformed: new columns null, widened types widened), followed by the
 * materialized row-tracking columns; and the change data rows. */
#include "rewrite/rewrite_internal.h"
#include <string.h>
#include "log/schema.h"
#include "rewrite/conform.h"
#include "util/error.h"
#include "util/mem.h"

int dl_rw_open_outputs(dl_rewrite *rw, rw_file *f)
{
	dl_files_writer_options fo;
	memset(&fo, 0, sizeof fo);
	fo.store = rw->store;
	fo.schema = rw->schema;
	fo.partition_columns = rw->part_cols;
	fo.npartition_columns = rw->npart;
	fo.props = &rw->props;
	fo.max_records_per_file = rw->o.max_records_per_file;
	fo.target_file_size = rw->o.target_file_size;
	fo.data_change = rw->o.data_change;
	fo.threads = 1;
	fo.hidden = rw->hidden;
	fo.nhidden = rw->nhidden;
	DL_TRY(dl_files_writer_open(&f->out, &fo));
	/* Spark: a DV-only delete writes no change data; copies and updates do */
	if (rw->cdf && (f->copy || rw->o.update))
		DL_TRY(dl_change_writer_open(&f->cdc, rw->store, rw->schema, rw->part_cols, rw->npart,
		                             &rw->props));
	return 0;
}

/* Rows idx of the read batch `b` (the snapshot's columns first) in the
 * written schema, plus room for the hidden columns (left NULL). */
static int conform_rows(dl_rewrite *rw, const dl_batch *b, const uint32_t *idx, int64_t n,
                        dl_batch **out)
{
	int ns = rw->schema->nchildren;
	dl_batch *o = dl_batch_new(rw->schema, n);
	if (!o) return dl_error_last()->code;
	/* dl_batch_new sized cols for the schema: make room for the hidden ones */
	if (rw->nhidden) {
		dl_array **cols = dl_calloc((size_t)(ns + rw->nhidden), sizeof *cols);
		if (!cols) {
			dl_batch_free(o);
			return DL_ENOMEM;
		}
		dl_free(o->cols);
		o->cols = cols;
	}
	const dl_type *snap = dl_snapshot_schema(rw->snap);
	int rc = 0;
	for (int i = 0; i < ns && rc == 0; i++) {
		dl_type *t = rw->schema->children[i].type;
		int j = dl_schema_find(snap, rw->schema->children[i].name);
		if (j < 0) {
			if (!(o->cols[i] = dl_array_new_null(t, n))) rc = dl_error_last()->code;
			continue;
		}
		dl_array *taken = dl_array_take(b->cols[j], idx, n);
		if (!taken) {
			rc = dl_error_last()->code;
		} else if (dl_type_equals(taken->type, t)) {
			o->cols[i] = taken;
			taken = NULL;
		} else {
			rc = dl_array_conform(&o->cols[i], taken, t);
		}
		dl_array_free(taken);
	}
	if (rc < 0) {
		dl_batch_free(o);
		return rc;
	}
	*out = o;
	return 0;
}

/* Frees a batch made by conform_rows (ncols covers the hidden columns). */
static void free_rows(dl_rewrite *rw, dl_batch *o)
{
	if (!o) return;
	int ns = rw->schema->nchildren;
	for (int k = 0; k < rw->nhidden; k++) {
		dl_array_free(o->cols[ns + k]);
		o->cols[ns + k] = NULL;
	}
	dl_batch_free(o);
}

int dl_rw_write_copies(dl_rewrite *rw, rw_file *f, const dl_batch *b, const uint32_t *idx, int64_t n)
{
	dl_batch *o;
	DL_TRY(conform_rows(rw, b, idx, n, &o));
	int ns = rw->schema->nchildren, rc = 0;
	/* copied rows keep their stable row id and commit version */
	for (int k = 0; k < rw->nhidden && rc == 0; k++)
		if (!(o->cols[ns + k] = dl_array_take(b->cols[rw->nsnap + k], idx, n)))
			rc = dl_error_last()->code;
	if (rc == 0) rc = dl_files_writer_write(f->out, o);
	free_rows(rw, o);
	return rc;
}

static int write_updated(dl_rewrite *rw, rw_file *f, const dl_batch *b, const uint32_t *idx,
                         const uint64_t *pos, int64_t n)
{
	dl_batch *matched = dl_batch_take(b, idx, n);
	if (!matched) return dl_error_last()->code;
	dl_array **extra = NULL;
	uint8_t *drop = dl_calloc((size_t)n + 1, 1);
	if (!drop) {
		dl_batch_free(matched);
		return DL_ENOMEM;
	}
	dl_rewrite_matched m = {f->add, matched, pos, drop};
	dl_batch *upd = NULL;
	int rc = rw->o.update(&upd, &m, rw->o.update_payload);
	if (rc == 0 && (!upd || upd->num_rows != n || upd->ncols < rw->schema->nchildren))
		rc = dl_error_set(DL_EINVALID, "the update callback must return %lld rows of the table "
		                  "schema", (long long)n);
	/* rows the callback dropped are deleted: out of upd (and of the
	 * preimage), written as `delete` change rows */
	uint32_t *owned_idx = NULL;
	int64_t nkeep = 0;
	for (int64_t i = 0; i < n; i++) nkeep += !drop[i];
	if (rc == 0 && nkeep < n) {
		uint32_t *keep = dl_calloc((size_t)n + 1, sizeof *keep);
		uint32_t *gone = dl_calloc((size_t)n + 1, sizeof *gone);
		int64_t nk = 0, ng = 0;
		if (!keep || !gone) rc = DL_ENOMEM;
		for (int64_t i = 0; rc == 0 && i < n; i++) {
			if (drop[i]) gone[ng++] = idx[i];
			else keep[nk++] = (uint32_t)i;
		}
		dl_batch *del = NULL;
		if (rc == 0 && f->cdc) rc = conform_rows(rw, b, gone, ng, &del);
		if (rc == 0 && f->cdc) rc = dl_change_writer_write(f->cdc, del, "delete");
		free_rows(rw, del);
		dl_batch *ku = NULL, *km = NULL;
		if (rc == 0) {
			ku = dl_batch_take(upd, keep, nk);
			km = dl_batch_take(matched, keep, nk);
			if (!ku || !km) rc = dl_error_last()->code;
		}
		if (rc == 0) {
			dl_batch_free(upd);
			dl_batch_free(matched);
			upd = ku;
			matched = km;
			ku = km = NULL;
			/* the preimage below takes the kept rows of b */
			for (int64_t i = 0; i < nk; i++) gone[i] = idx[keep[i]];
		}
		dl_batch_free(ku);
		dl_batch_free(km);
		dl_free(keep);
		if (rc == 0) {
			idx = owned_idx = gone;
			n = nk;
			gone = NULL;
		}
		dl_free(gone);
	}
	dl_free(drop);
	dl_batch *pre = NULL;
	if (rc == 0 && f->cdc && n) rc = conform_rows(rw, b, idx, n, &pre);
	if (rc == 0 && f->cdc && n) rc = dl_change_writer_write(f->cdc, pre, "update_preimage");
	if (rc == 0 && f->cdc && n) rc = dl_change_writer_write(f->cdc, upd, "update_postimage");
	free_rows(rw, pre);
	int ns = rw->schema->nchildren;
	if (rc == 0 && n == 0) {
		/* every matched row of the batch was dropped */
	} else if (rc == 0 && rw->nhidden) {
		/* an updated row keeps its id; its commit version is the new file's */
		extra = dl_calloc((size_t)(ns + rw->nhidden), sizeof *extra);
		if (!extra) rc = DL_ENOMEM;
	}
	if (rc == 0 && n && extra) {
		memcpy(extra, upd->cols, (size_t)ns * sizeof *extra);
		extra[ns] = dl_array_slice(matched->cols[rw->nsnap], 0, n);
		extra[ns + 1] = dl_array_new_null(rw->hidden[1].type, n);
		if (!extra[ns] || !extra[ns + 1]) rc = DL_ENOMEM;
		dl_batch view = *upd;
		view.cols = extra;
		view.ncols = ns + rw->nhidden;
		if (rc == 0) rc = dl_files_writer_write(f->out, &view);
		dl_array_free(extra[ns]);
		dl_array_free(extra[ns + 1]);
		dl_free(extra);
	} else if (rc == 0 && n) {
		rc = dl_files_writer_write(f->out, upd);
	}
	dl_batch_free(upd);
	dl_batch_free(matched);
	dl_free(owned_idx);
	return rc;
}

int dl_rw_write_matched(dl_rewrite *rw, rw_file *f, const dl_batch *b, const uint32_t *idx,
                        const uint64_t *pos, int64_t n)
{
	if (rw->o.update) return write_updated(rw, f, b, idx, pos, n);
	if (!f->cdc) return 0;
	dl_batch *o;
	DL_TRY(conform_rows(rw, b, idx, n, &o));
	int rc = dl_change_writer_write(f->cdc, o, "delete");
	free_rows(rw, o);
	return rc;
}
