/* Deletion-vector output (PROTOCOL.md "Deletion Vectors", "Deletion Vector
 * Format"; Spark's DMLWithDeletionVectorsHelper and DeletionVectorWriter):
 * per touched file the deleted positions merged with its existing DV; all
 * DVs of the commit in one file deletion_vector_<uuid>.bin at the table root
 * (a version byte, then per DV its size, the portable RoaringBitmapArray and
 * its CRC-32), referenced by 'u' descriptors (the Z85 of the UUID, offset,
 * size, cardinality). A file left with no rows is removed instead; any
 * other gets remove(old DV) + add(new DV), the add keeping path, size,
 * baseRowId and defaultRowCommitVersion, its stats marked
 * "tightBounds":false (the min/max no longer need to be reached by a live
 * row). */
#include "rewrite/rewrite_internal.h"
#include <stdio.h>
#include <string.h>
#include "util/error.h"
#include "util/mem.h"
#include "util/uuid.h"
#include "util/z85.h"

int dl_rw_write_dvs(dl_rewrite *rw)
{
	if (!rw->use_dv) return 0;
	uint8_t id[16];
	char uuid[DL_UUID_TEXT_LEN + 1];
	dl_buf file = DL_BUF_INIT, z = DL_BUF_INIT;
	const char *zid = NULL;
	int rc = 0;
	for (size_t i = 0; i < rw->nfiles && rc == 0; i++) {
		rw_file *f = &rw->files[i];
		if (f->kind == RW_WHOLE || f->copy || !f->touched) continue;
		/* every row the reader kept is now deleted: the file goes */
		if (f->matched == f->live) {
			f->full = true;
			dl_rowset_free(&f->old);
			dl_rowset_free(&f->deleted);
			continue;
		}
		if (!zid) {
			rc = dl_uuid_v4_bytes(id);
			if (rc == 0) rc = dl_z85_encode(&z, id, 16);
			if (rc == 0 && !(zid = dl_arena_strdup(&rw->arena, z.data))) rc = DL_ENOMEM;
			if (rc < 0) break;
		}
		/* the new DV: the old one's rows and those deleted now; their sets
		 * go once it is serialized */
		dl_dv_rows set;
		rc = dl_rowset_union_dv(&set, &f->old, &f->deleted);
		if (rc < 0) break;
		int64_t n = (int64_t)(f->old.count + f->deleted.count);
		dl_rowset_free(&f->old);
		dl_rowset_free(&f->deleted);
		int64_t offset;
		int32_t size;
		rc = dl_dv_write_file(&set, &file, &offset, &size);
		dl_dv_rows_free(&set);
		f->dv.storage_type = 'u';
		f->dv.path_or_inline = zid;
		f->dv.offset = offset;
		f->dv.size_in_bytes = size;
		f->dv.cardinality = n;
		f->dv.max_row_index = -1;
	}
	if (rc == 0 && file.len) {
		dl_uuid_format(uuid, id);
		dl_buf path = DL_BUF_INIT;
		rc = dl_buf_printf(&path, "deletion_vector_%s.bin", uuid);
		dl_store_writer *w = NULL;
		if (rc == 0) rc = dl_store_writer_open(&w, rw->store, path.data);
		if (rc == 0) rc = dl_store_writer_write(w, file.data, file.len);
		if (rc == 0) {
			rc = dl_store_writer_commit(w, 1);
			w = NULL;
			if (rc == 0) rw->dv_path = dl_buf_detach(&path, NULL);
		}
		if (w) dl_store_writer_abort(w);
		dl_buf_free(&path);
		if (rc < 0) dl_error_prefix("writing the deletion vector file");
	}
	dl_buf_free(&file);
	dl_buf_free(&z);
	return rc;
}

/* The stats JSON with "tightBounds":false. */
static int wide_bounds(dl_rewrite *rw, const dl_add *a, const char **out, uint32_t *len)
{
	*out = NULL;
	*len = 0;
	if (!a->stats || a->stats_len < 2) return 0;
	dl_buf b = DL_BUF_INIT;
	const char *s = a->stats;
	size_t n = a->stats_len;
	const char *t = memmem(s, n, "\"tightBounds\":true", 18);
	int rc;
	if (t) {
		rc = dl_buf_append(&b, s, (size_t)(t - s));
		if (rc == 0) rc = dl_buf_puts(&b, "\"tightBounds\":false");
		if (rc == 0) rc = dl_buf_append(&b, t + 18, n - (size_t)(t - s) - 18);
	} else if (memmem(s, n, "\"tightBounds\"", 13)) {
		rc = dl_buf_append(&b, s, n); /* already false */
	} else {
		size_t end = n;
		while (end > 0 && s[end - 1] != '}') end--;
		if (end == 0) return 0;
		bool empty = true;
		for (size_t i = 1; i + 1 < end && empty; i++) empty = s[i] == ' ';
		rc = dl_buf_append(&b, s, end - 1);
		if (rc == 0) rc = dl_buf_puts(&b, empty ? "\"tightBounds\":false}" : ",\"tightBounds\":false}");
	}
	if (rc == 0) {
		*out = dl_arena_strdup(&rw->arena, b.data);
		*len = (uint32_t)b.len;
		if (!*out) rc = DL_ENOMEM;
	}
	dl_buf_free(&b);
	return rc;
}

int dl_rw_commit_dv_file(dl_rewrite *rw, rw_file *f)
{
	DL_TRY(dl_rw_remove(rw, f->add));
	if (f->full) {
		rw->m.removed_files++;
		if (f->add->dv) rw->m.dvs_removed++;
		/* Spark's DV path counts no numRemovedBytes */
		return 0;
	}
	dl_add a = *f->add;
	a.dv = &f->dv;
	a.data_change = rw->o.data_change;
	DL_TRY(wide_bounds(rw, f->add, &a.stats, &a.stats_len));
	if (f->add->dv) rw->m.dvs_updated++;
	else rw->m.dvs_added++;
	return dl_txn_add_file(rw->o.txn, &a);
}
