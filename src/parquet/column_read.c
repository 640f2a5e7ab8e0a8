/* A leaf column chunk read batch by batch, and the assembly of Arrow arrays
 * from definition/repetition levels.
 *
 * Assembly rule: a plan node with context (R, D) has one entry at each
 * level i with rep[i] <= R and def[i] >= D (a new element of its innermost
 * repeated ancestor that exists); the entry is non-null when def[i] >= the
 * node's own level. A list's elements are its child's entries that fall
 * between its own entries, which gives the offsets. */
#include "parquet/column_read.h"
#include "parquet/variant_shred.h"
#include "util/error.h"
#include "util/mem.h"

static int open_selected(pq_leaf_reader *r, const pq_page_sel *sel, int64_t start, int64_t total);

int pq_leaf_reader_open(pq_leaf_reader *r, pq_source *src, const pq_file_metadata *md, int rg,
                        const pq_rleaf *leaf, int leaf_index, bool values_needed, pq_pool *pool,
                        const pq_page_sel *sel)
{
	/* Keep the scratch buffers of the previous chunk (when it was not
	 * closed) and the size hint of its values (pq_leaf_reader_close keeps
	 * that one too); reset the rest. */
	pq_leaf_reader keep = *r;
	memset(r, 0, sizeof *r);
#define KEEP(f) r->f = keep.f
	KEEP(chunk_buf); KEEP(chunk_cap); KEEP(page_buf); KEEP(page_cap); KEEP(dict_bin); KEEP(pdef); KEEP(prep);
	KEEP(plvl_cap); KEEP(dints); KEEP(dcap); KEEP(dbin); KEEP(def); KEEP(rep); KEEP(lvl_cap); KEEP(tmp);
	KEEP(tmp_cap); KEEP(idx); KEEP(tbin);
#undef KEEP
	r->hint_bytes = keep.chunk_hint > keep.hint_bytes ? keep.chunk_hint : keep.hint_bytes;
	pq_binbuf_reset(&r->dict_bin);
	r->dict_maxlen = -1;
	r->leaf = leaf;
	r->pool = pool;
	r->values_needed = values_needed;
	r->file = src->name;
	r->row_group = rg;
	r->out_width = pq_leaf_out_width(leaf);
	const pq_column_chunk *cc = &md->row_groups[rg].columns[leaf_index];
	if (cc->encrypted) return pq_leaf_error(r, DL_EUNSUPPORTED, "encrypted columns are not supported");
	if (cc->file_path) return pq_leaf_error(r, DL_EUNSUPPORTED, "column data in another file ('%s') is not supported", cc->file_path);
	if (!cc->has_meta_data) return pq_leaf_error(r, DL_ECORRUPT, "column chunk without metadata");
	const pq_column_meta *m = &cc->meta_data;
	if (m->type != leaf->el->type) return pq_leaf_error(r, DL_ECORRUPT, "chunk type %d differs from the schema's %d", (int)m->type, (int)leaf->el->type);
	if ((int)m->codec < 0 || m->codec > PQ_CODEC_LZ4_RAW) return pq_leaf_error(r, DL_EUNSUPPORTED, "unknown compression codec %d", (int)m->codec);
	if (m->num_values < 0) return pq_leaf_error(r, DL_ECORRUPT, "negative num_values");
	int64_t start = m->data_page_offset;
	/* Some writers record dictionary_page_offset 0 when there is none. */
	if (m->has_dictionary_page_offset && m->dictionary_page_offset > 0 && m->dictionary_page_offset < start)
		start = m->dictionary_page_offset;
	if (start < 0 || m->total_compressed_size < 0 || m->total_compressed_size > src->size)
		return pq_leaf_error(r, DL_ECORRUPT, "column chunk offset %lld / size %lld invalid", (long long)start, (long long)m->total_compressed_size);
	r->codec = m->codec;
	r->values_left = m->num_values;
	if (!r->idx) r->idx = dl_malloc(1024 * sizeof *r->idx);
	if (!r->idx) return DL_ENOMEM;
	r->src = src;
	r->loc_cur = -1;
	if (sel) return open_selected(r, sel, start, m->total_compressed_size);
	const uint8_t *p;
	/* a new file's readers start without buffers: the pool's (another
	 * file's chunk) are already faulted in */
	if (!r->chunk_buf && pool && m->total_compressed_size > 4096)
		r->chunk_buf = pq_pool_get(pool, (size_t)m->total_compressed_size, &r->chunk_cap);
	int rc = pq_source_read_into(src, start, (size_t)m->total_compressed_size, &p, &r->chunk_buf, &r->chunk_cap);
	if (rc < 0) return dl_error_prefix("row group %d, column '%s'", rg, leaf->path);
	r->cp = p;
	r->cend = p + m->total_compressed_size;
	return 0;
}

/* ---- page selection (the page index) ---- */

static int read_span(pq_leaf_reader *r, int64_t off, int64_t len)
{
	const uint8_t *p;
	int rc = pq_source_read_into(r->src, off, (size_t)len, &p, &r->chunk_buf, &r->chunk_cap);
	if (rc < 0) return dl_error_prefix("row group %d, column '%s'", r->row_group, r->leaf->path);
	r->run_base = r->cp = p;
	r->cend = p + len;
	r->run_off = off;
	return 0;
}

/* Reads the bytes before the first data page (the dictionary) and absorbs
 * them; the wanted pages come later, run by run (pq_leaf_load_run). */
static int open_selected(pq_leaf_reader *r, const pq_page_sel *sel, int64_t start, int64_t total)
{
	if (sel->n <= 0 || sel->locs[0].offset < start ||
	    sel->locs[sel->n - 1].offset + sel->locs[sel->n - 1].size > start + total)
		return pq_leaf_error(r, DL_ECORRUPT, "the offset index lies outside the column chunk");
	r->locs = sel->locs;
	r->nlocs = sel->n;
	r->want = sel->want;
	int64_t prefix = sel->locs[0].offset - start;
	if (!prefix || !r->values_needed) return 0;
	DL_TRY(read_span(r, start, prefix));
	r->prefix_only = true;
	bool eof;
	int rc = pq_leaf_next_page(r, &eof);
	r->prefix_only = false;
	if (rc < 0) return rc;
	if (!eof) return pq_leaf_error(r, DL_ECORRUPT, "a data page before the offset index's first page");
	return 0;
}

int pq_leaf_load_run(pq_leaf_reader *r, bool *any)
{
	int j = r->loc_next;
	while (j < r->nlocs && !r->want[j]) j++;
	*any = j < r->nlocs;
	if (!*any) return 0;
	int k = j;
	while (k + 1 < r->nlocs && r->want[k + 1]) k++;
	r->loc_next = j;
	return read_span(r, r->locs[j].offset, r->locs[k].offset + r->locs[k].size - r->locs[j].offset);
}

/* Rows of the current page already read. */
static int64_t rows_done_in_page(const pq_leaf_reader *r)
{
	if (!r->leaf->max_rep) return r->page_pos;
	int64_t n = 0;
	for (int32_t i = 0; i < r->page_pos; i++) n += r->prep[i] == 0;
	return n;
}

/* Reads and drops n rows (inside the current page). */
static int skip_rows(pq_leaf_reader *r, int64_t n)
{
	if (n <= 0) return 0;
	DL_TRY(pq_leaf_read_rows(r, n));
	r->nlevels = 0;
	r->nvals = 0;
	pq_binbuf_reset(&r->bin);
	return 0;
}

int pq_leaf_seek(pq_leaf_reader *r, int64_t row)
{
	if (!r->locs) return pq_leaf_error(r, DL_ERROR, "internal: seek without a page selection");
	int lo = 0, hi = r->nlocs - 1;
	while (lo < hi) {
		int mid = lo + (hi - lo + 1) / 2;
		if (r->locs[mid].first_row <= row) lo = mid;
		else hi = mid - 1;
	}
	if (!r->want[lo]) return pq_leaf_error(r, DL_ERROR, "internal: row %lld is in a page not selected", (long long)row);
	if (r->in_page && r->loc_cur == lo) {
		int64_t pos = r->locs[lo].first_row + rows_done_in_page(r);
		if (row >= pos) return skip_rows(r, row - pos);
	}
	/* Jump: inside the loaded run when it holds the page, else a new run. */
	r->in_page = false;
	r->loc_next = lo;
	int64_t off = r->locs[lo].offset;
	if (r->run_base && off >= r->run_off && off < r->run_off + (r->cend - r->run_base))
		r->cp = r->run_base + (off - r->run_off);
	else
		r->cp = r->cend;
	return skip_rows(r, row - r->locs[lo].first_row);
}

void pq_leaf_reader_release(pq_leaf_reader *r)
{
	dl_free(r->dict);
	r->dict = NULL;
	r->has_dict = false;
	/* Batch outputs not handed over (an error mid-batch) go too. */
	dl_free(r->vals);
	r->vals = NULL;
	r->vals_cap = 0;
	pq_binbuf_free(&r->bin);
}

void pq_leaf_reader_close(pq_leaf_reader *r)
{
	/* the big scratch buffers go back to the pool for the next chunk */
	if (r->pool) {
		pq_pool_put(r->pool, r->chunk_buf, r->chunk_cap);
		pq_pool_put(r->pool, r->page_buf, r->page_cap);
		pq_pool_put(r->pool, r->pdef, r->plvl_cap);
		pq_pool_put(r->pool, r->prep, r->plvl_cap);
	} else {
		dl_free(r->chunk_buf);
		dl_free(r->page_buf);
		dl_free(r->pdef);
		dl_free(r->prep);
	}
	dl_free(r->dict);
	pq_binbuf_free(&r->dict_bin);
	dl_free(r->dints);
	pq_binbuf_free(&r->dbin);
	dl_free(r->def);
	dl_free(r->rep);
	dl_free(r->vals);
	pq_binbuf_free(&r->bin);
	dl_free(r->tmp);
	dl_free(r->idx);
	pq_binbuf_free(&r->tbin);
	/* The largest batch's value bytes outlive the chunk: the next chunk's
	 * first batch then takes that batch's buffer back from the pool. From
	 * a hint of 0 it would ask the pool for 4 KiB, which no big pooled
	 * buffer may serve (it would waste more than half), and grow a fresh
	 * one: every row group left one more unused buffer per string column
	 * in the pool, up to its 512 MB (a checkpoint of 300k files, read a
	 * row group at a time, held 112 MB of them at its peak). The largest,
	 * not the last: a short last batch would miss the same way. */
	int64_t hint = r->chunk_hint > r->hint_bytes ? r->chunk_hint : r->hint_bytes;
	memset(r, 0, sizeof *r);
	r->hint_bytes = hint;
}

static int batch_levels(pq_leaf_reader *r, int64_t extra)
{
	int64_t need = r->nlevels + extra;
	if (need >= INT32_MAX) return pq_leaf_error(r, DL_EUNSUPPORTED, "more than 2^31 values in one batch; use a smaller batch size");
	if (need <= r->lvl_cap && (r->def || !r->leaf->max_def) && (r->rep || !r->leaf->max_rep)) return 0;
	int64_t cap = r->lvl_cap ? r->lvl_cap : 1024;
	while (cap < need) cap *= 2;
	if (r->leaf->max_def) {
		uint8_t *d = dl_realloc(r->def, (size_t)cap);
		if (!d) return DL_ENOMEM;
		r->def = d;
	}
	if (r->leaf->max_rep) {
		uint8_t *d = dl_realloc(r->rep, (size_t)cap);
		if (!d) return DL_ENOMEM;
		r->rep = d;
	}
	r->lvl_cap = cap;
	return 0;
}

/* Starts a batch of `rows` rows: the previous outputs reset, the new ones
 * presized. */
static int start_batch(pq_leaf_reader *r, int64_t rows)
{
	r->nlevels = 0;
	r->nvals = 0;
	pq_binbuf_reset(&r->bin);
	/* Presize the outputs like the previous batch: growing by doubling
	 * would copy and fault in fresh pages several times per batch. */
	if (r->values_needed && r->out_width == 0) {
		if (!r->bin.offsets) {
			size_t cap;
			r->bin.offsets = pq_pool_get(r->pool, ((size_t)rows + 1) * sizeof(int32_t), &cap);
			if (!r->bin.offsets) return DL_ENOMEM;
			r->bin.offsets[0] = 0;
			r->bin.cap = (int64_t)(cap / sizeof(int32_t)) - 1;
		}
		if (!r->bin.data) {
			size_t cap;
			r->bin.data = pq_pool_get(r->pool, (size_t)(r->hint_bytes > 4096 ? r->hint_bytes : 4096), &cap);
			if (!r->bin.data) return DL_ENOMEM;
			r->bin.dcap = (int64_t)cap;
		}
		DL_TRY(pq_binbuf_reserve(&r->bin, rows, r->hint_bytes));
	} else if (r->values_needed && !r->vals) {
		size_t cap;
		r->vals = pq_pool_get(r->pool, (size_t)rows * (size_t)r->out_width + 16, &cap);
		if (!r->vals) return DL_ENOMEM;
		r->vals_cap = (int64_t)cap;
	}
	return 0;
}

int pq_leaf_read_rows(pq_leaf_reader *r, int64_t rows)
{
	const pq_rleaf *lf = r->leaf;
	bool repeated = lf->max_rep > 0;
	DL_TRY(start_batch(r, rows));
	int64_t remaining = rows, seen = 0;
	for (;;) {
		if (!repeated && remaining == 0) break;
		if (!r->in_page || r->page_pos >= r->page_values) {
			bool eof;
			DL_TRY(pq_leaf_next_page(r, &eof));
			if (eof) {
				if ((!repeated && remaining > 0) || (repeated && seen < rows))
					return pq_leaf_error(r, DL_ECORRUPT, "the column chunk ends before the row group's %lld rows",
					                     (long long)rows);
				break;
			}
			continue;
		}
		int32_t from = r->page_pos, to;
		bool stop = false;
		if (!repeated) {
			int64_t avail = r->page_values - from;
			to = from + (int32_t)(avail < remaining ? avail : remaining);
		} else {
			const uint8_t *rep = r->prep;
			if (r->nlevels == 0 && seen == 0 && rep[from] != 0)
				return pq_leaf_error(r, DL_ECORRUPT, "the first value does not start a row");
			to = from;
			while (to < r->page_values) {
				if (rep[to] == 0) {
					if (seen == rows) {
						stop = true;
						break;
					}
					seen++;
				}
				to++;
			}
		}
		int32_t k = to - from;
		DL_TRY(batch_levels(r, k));
		size_t nn = (size_t)k;
		if (lf->max_def) {
			memcpy(r->def + r->nlevels, r->pdef + from, (size_t)k);
			if (!r->page_dense) nn = pq_count_level(r->pdef + from, (size_t)k, (uint8_t)lf->max_def);
		}
		if (repeated) memcpy(r->rep + r->nlevels, r->prep + from, (size_t)k);
		r->nlevels += k;
		if (r->values_needed) DL_TRY(pq_leaf_decode_values(r, nn));
		r->page_pos = to;
		remaining -= k;
		if (stop) break;
	}
	return 0;
}

/* Values of the page positions [from, to) (flat leaf): skipped. */
static int skip_span(pq_leaf_reader *r, int32_t from, int32_t to)
{
	if (to <= from || !r->values_needed) return 0;
	size_t nn = (size_t)(to - from);
	if (!r->page_dense) nn = pq_count_level(r->pdef + from, nn, (uint8_t)r->leaf->max_def);
	return pq_leaf_skip_values(r, nn);
}

/* Levels and values of the page positions [from, to) (flat leaf): kept. */
static int keep_span(pq_leaf_reader *r, int32_t from, int32_t to)
{
	int32_t k = to - from;
	DL_TRY(batch_levels(r, k));
	size_t nn = (size_t)k;
	if (r->leaf->max_def) {
		memcpy(r->def + r->nlevels, r->pdef + from, (size_t)k);
		if (!r->page_dense) nn = pq_count_level(r->pdef + from, (size_t)k, (uint8_t)r->leaf->max_def);
	}
	r->nlevels += k;
	return r->values_needed ? pq_leaf_decode_values(r, nn) : 0;
}

int pq_leaf_read_rows_sel(pq_leaf_reader *r, int64_t rows, const uint32_t *sel, int64_t nsel)
{
	if (r->leaf->max_rep) return pq_leaf_error(r, DL_ERROR, "internal: a row selection on a repeated column");
	DL_TRY(start_batch(r, nsel));
	int64_t done = 0, si = 0; /* rows of the batch passed; selected rows kept */
	while (done < rows) {
		if (!r->in_page || r->page_pos >= r->page_values) {
			/* pages wholly before the next selected row are passed over */
			r->skip_ahead = (si < nsel ? (int64_t)sel[si] : rows) - done;
			r->skipped_rows = 0;
			bool eof;
			int rc = pq_leaf_next_page(r, &eof);
			done += r->skipped_rows;
			r->skip_ahead = r->skipped_rows = 0;
			DL_TRY(rc);
			if (eof) {
				if (done < rows)
					return pq_leaf_error(r, DL_ECORRUPT, "the column chunk ends before the row group's %lld rows",
					                     (long long)rows);
				break;
			}
			continue;
		}
		int32_t from = r->page_pos, pos = from;
		int64_t avail = r->page_values - from, k = avail < rows - done ? avail : rows - done;
		while (si < nsel && (int64_t)sel[si] < done + k) {
			int64_t e = si + 1;
			while (e < nsel && sel[e] == sel[e - 1] + 1 && (int64_t)sel[e] < done + k) e++;
			int32_t q = from + (int32_t)((int64_t)sel[si] - done), qe = q + (int32_t)(e - si);
			if (q < pos) return pq_leaf_error(r, DL_ERROR, "internal: row selection not ascending");
			DL_TRY(skip_span(r, pos, q));
			DL_TRY(keep_span(r, q, qe));
			pos = qe;
			si = e;
		}
		DL_TRY(skip_span(r, pos, from + (int32_t)k));
		r->page_pos = from + (int32_t)k;
		done += k;
	}
	if (si < nsel) return pq_leaf_error(r, DL_ERROR, "internal: selected row %u past the batch's %lld rows", sel[si],
	                                    (long long)rows);
	return 0;
}

/* ---- assembly ---- */

static int corrupt_shape(const char *file, const char *what, int64_t got, int64_t want)
{
	return dl_error_set(DL_ECORRUPT, "%s: nested column levels disagree (%s: %lld entries, %lld expected)", file, what,
	                    (long long)got, (long long)want);
}

#define DEF(r, i) ((r)->def ? (r)->def[i] : 0)
#define REP(r, i) ((r)->rep ? (r)->rep[i] : 0)
#define IS_ENTRY(r, i, R, D) (REP(r, i) <= (R) && DEF(r, i) >= (D))

static dl_array *array_alloc(dl_type *type, int64_t n)
{
	dl_array *a = dl_calloc(1, sizeof *a);
	if (!a) return NULL;
	a->type = dl_type_ref(type);
	a->length = n;
	a->null_count = 0;
	return a;
}

/* Levels 8 at a time (levels are below 128, lim at most 128): the high bit
 * of each byte of w set where that level is >= lim; no byte borrows from
 * the next, as each is at least 128 before the subtraction. */
static inline uint64_t ge_mask(uint64_t w, unsigned lim)
{
	const uint64_t hi = UINT64_C(0x8080808080808080), lo = UINT64_C(0x0101010101010101);
	return ((w | hi) - lo * lim) & hi;
}

/* The 8 high bits of a ge_mask as one byte, level k to bit k. */
static inline uint8_t mask_byte(uint64_t m)
{
	return (uint8_t)(((m >> 7) * UINT64_C(0x0102040810204080)) >> 56);
}

/* Entries of node `o` (with its validity when nullable) from its leaf. */
static int entries(const pq_out *o, pq_leaf_reader *r, int64_t dense, int64_t *n, uint8_t **validity, int64_t *nulls)
{
	*validity = NULL;
	*nulls = 0;
	const uint8_t *d = r->def, *rep = r->rep;
	if (!rep) {
		/* Not repeated: every level is an entry (the context is the row). */
		int64_t nl = r->nlevels;
		*n = nl;
		if (!d || o->def == 0) return 0;
		/* A leaf with a value at every level has no nulls to look for. */
		if (dense == nl && o->def == r->leaf->max_def) return 0;
		uint8_t *v = dl_calloc((size_t)(nl + 7) / 8 + 1, 1);
		if (!v) return DL_ENOMEM;
		unsigned lim = (unsigned)o->def;
		int64_t set = 0, i = 0;
		/* the validity a byte at a time from 8 levels: this runs for every
		 * nullable column of every batch */
		if (r->leaf->max_def < 128)
			for (; i + 8 <= nl; i += 8) {
				uint64_t w;
				memcpy(&w, d + i, 8);
				uint64_t m = ge_mask(w, lim);
				v[i >> 3] = mask_byte(m);
				set += (int64_t)(((m >> 7) * UINT64_C(0x0101010101010101)) >> 56);
			}
		for (; i < nl; i++) {
			bool ok = d[i] >= lim;
			v[i >> 3] |= (uint8_t)(ok << (i & 7));
			set += ok;
		}
		if (set == nl) {
			dl_free(v);
			return 0;
		}
		*validity = v;
		*nulls = nl - set;
		return 0;
	}
	int R = o->rep_ctx, D = o->def_ctx, L = o->def;
	int64_t nl = r->nlevels;
	/* Entries below a null ancestor are null slots even in a required
	 * field, so any node whose level exceeds its context's can be null. */
	bool can_null = d && L > D;
	if (!can_null) {
		int64_t c = 0;
		if (d)
			for (int64_t i = 0; i < nl; i++) c += rep[i] <= R && d[i] >= D;
		else
			for (int64_t i = 0; i < nl; i++) c += rep[i] <= R && 0 >= D;
		*n = c;
		return 0;
	}
	/* at most one entry per level: the validity sized for all of them */
	uint8_t *v = dl_calloc((size_t)(nl + 7) / 8 + 1, 1);
	if (!v) return DL_ENOMEM;
	int64_t e = 0, nul = 0;
	for (int64_t i = 0; i < nl; i++) {
		if (rep[i] > R || d[i] < D) continue;
		if (d[i] >= L) v[e >> 3] |= (uint8_t)(1u << (e & 7));
		else nul++;
		e++;
	}
	*n = e;
	if (nul == 0) {
		dl_free(v);
		v = NULL;
	}
	*validity = v;
	*nulls = nul;
	return 0;
}

/* Spreads `dense` values of width ow at the front of vals to the valid
 * entries of n, from the back so nothing is overwritten before it moves;
 * null slots are zeroed. Whole null bytes of the validity at once. */
static void spread_values(uint8_t *vals, const uint8_t *valid, int64_t n, int64_t dense, size_t ow)
{
	if (dense == 0) {
		memset(vals, 0, (size_t)n * ow);
		return;
	}
	int64_t k = dense;
	for (int64_t e = n; e-- > 0;) {
		if ((e & 7) == 7 && valid[e >> 3] == 0) {
			memset(vals + (size_t)(e - 7) * ow, 0, 8 * ow);
			e -= 7;
			continue;
		}
		uint8_t *dst = vals + (size_t)e * ow;
		if (!dl_bit_get(valid, e)) {
			memset(dst, 0, ow);
			continue;
		}
		const uint8_t *src = vals + (size_t)(--k) * ow;
		switch (ow) {
		case 4: memmove(dst, src, 4); break;
		case 8: memmove(dst, src, 8); break;
		case 16: memmove(dst, src, 16); break;
		default: memmove(dst, src, ow); break;
		}
	}
}

/* Offsets of n string entries from those of the dense values: a null
 * entry repeats the offset before it. A validity byte at a time. */
static void spread_offsets(int32_t *off, const int32_t *src, const uint8_t *valid, int64_t n)
{
	off[0] = src[0];
	int64_t k = 0, e = 0;
	for (; e + 8 <= n; e += 8) {
		uint8_t b = valid[e >> 3];
		if (b == 0) {
			for (int j = 0; j < 8; j++) off[e + 1 + j] = src[k];
		} else if (b == 0xff) {
			for (int j = 0; j < 8; j++) off[e + 1 + j] = src[k + 1 + j];
			k += 8;
		} else {
			for (int j = 0; j < 8; j++) {
				k += (b >> j) & 1;
				off[e + 1 + j] = src[k];
			}
		}
	}
	for (; e < n; e++) {
		if (dl_bit_get(valid, e)) k++;
		off[e + 1] = src[k];
	}
}

static int assemble_leaf(dl_array **out, const pq_out *o, pq_leaf_reader *r, int64_t n_exp, const char *file)
{
	const pq_rleaf *lf = r->leaf;
	if (!r->values_needed || r->nvals < 0) return dl_error_set(DL_EINVALID, "%s: column '%s' was requested twice", file, lf->path);
	int64_t n, nulls;
	uint8_t *valid;
	int64_t dense = r->out_width ? r->nvals : r->bin.n;
	DL_TRY(entries(o, r, dense, &n, &valid, &nulls));
	if (n_exp >= 0 && n != n_exp) {
		dl_free(valid);
		return corrupt_shape(file, lf->path, n, n_exp);
	}
	if (dense != n - nulls) {
		dl_free(valid);
		return dl_error_set(DL_ECORRUPT, "%s: column '%s': %lld values for %lld non-null entries", file, lf->path,
		                    (long long)dense, (long long)(n - nulls));
	}
	dl_array *a = array_alloc(lf->type, n);
	if (!a) {
		dl_free(valid);
		return DL_ENOMEM;
	}
	a->validity = valid;
	a->null_count = nulls;
	int ow = r->out_width;
	void *pooled[3] = {NULL, NULL, NULL};
	size_t caps[3] = {0, 0, 0};
	if (ow == 0) {
		if (!r->bin.offsets && pq_binbuf_reserve(&r->bin, 1, 1) < 0) goto nomem;
		if (nulls) {
			size_t ocap;
			int32_t *off = pq_pool_get(r->pool, (size_t)(n + 1) * sizeof *off, &ocap);
			if (!off) goto nomem;
			spread_offsets(off, r->bin.offsets, valid, n);
			pq_pool_put(r->pool, r->bin.offsets, ((size_t)r->bin.cap + 1) * sizeof(int32_t));
			r->bin.offsets = off;
			r->bin.cap = (int64_t)(ocap / sizeof *off) - 1;
		}
		if (!r->bin.data && pq_binbuf_reserve(&r->bin, 0, 1) < 0) goto nomem;
		pooled[0] = r->bin.offsets;
		caps[0] = ((size_t)r->bin.cap + 1) * sizeof(int32_t);
		pooled[1] = r->bin.data;
		caps[1] = (size_t)r->bin.dcap;
		a->offsets = r->bin.offsets;
		a->data = r->bin.data;
		a->data_len = r->bin.len;
		r->hint_bytes = r->bin.len + r->bin.len / 8;
		if (r->hint_bytes > r->chunk_hint) r->chunk_hint = r->hint_bytes;
		memset(&r->bin, 0, sizeof r->bin);
	} else if (lf->type->id == DL_TYPE_BOOLEAN) {
		uint8_t *bits = dl_calloc((size_t)(n + 7) / 8 + 1, 1);
		if (!bits) goto nomem;
		for (int64_t e = 0, k = 0; e < n; e++)
			if (!valid || dl_bit_get(valid, e))
				if (r->vals[k++]) bits[e >> 3] |= (uint8_t)(1u << (e & 7));
		a->values = bits;
	} else {
		size_t need = (size_t)n * (size_t)ow + 16;
		if (need > (size_t)r->vals_cap || !r->vals) {
			size_t cap;
			uint8_t *v = pq_pool_get(r->pool, need, &cap);
			if (!v) goto nomem;
			if (r->vals) memcpy(v, r->vals, (size_t)dense * (size_t)ow);
			if (r->vals) pq_pool_put(r->pool, r->vals, (size_t)r->vals_cap);
			r->vals = v;
			r->vals_cap = (int64_t)cap;
		}
		if (nulls) spread_values(r->vals, valid, n, dense, (size_t)ow);
		pooled[2] = r->vals;
		caps[2] = (size_t)r->vals_cap;
		a->values = r->vals;
		r->vals = NULL;
		r->vals_cap = 0;
	}
	r->nvals = -1; /* handed over */
	if (!dl_type_equals(o->type, lf->type) && pq_cast_array(&a, o->type) < 0) {
		int rc = dl_error_last()->code;
		dl_array_free(a);
		return rc;
	}
	/* Buffers the cast replaced are no longer the pooled ones: adopt
	 * matches by pointer. */
	if (pq_pool_adopt(r->pool, a, pooled, caps, 3) < 0) goto nomem;
	*out = a;
	return 0;
nomem:
	dl_array_free(a);
	return DL_ENOMEM;
}

static int assemble_struct(dl_array **out, const pq_out *o, pq_leaf_reader *rs, int64_t n_exp, const char *file)
{
	pq_leaf_reader *r = &rs[o->leaf];
	int64_t n, nulls;
	uint8_t *valid;
	DL_TRY(entries(o, r, -1, &n, &valid, &nulls));
	if (n_exp >= 0 && n != n_exp) {
		dl_free(valid);
		return corrupt_shape(file, r->leaf->path, n, n_exp);
	}
	dl_array *a = array_alloc(o->type, n);
	if (!a) {
		dl_free(valid);
		return DL_ENOMEM;
	}
	a->validity = valid;
	a->null_count = nulls;
	a->children = dl_calloc((size_t)(o->nchildren ? o->nchildren : 1), sizeof *a->children);
	if (!a->children) {
		dl_array_free(a);
		return DL_ENOMEM;
	}
	for (int i = 0; i < o->nchildren; i++) {
		int rc = pq_assemble(&a->children[i], &o->children[i], rs, n, file);
		a->nchildren = i + 1;
		if (rc < 0) {
			dl_array_free(a);
			return rc;
		}
	}
	*out = a;
	return 0;
}

static int assemble_list(dl_array **out, const pq_out *o, pq_leaf_reader *rs, int64_t n_exp, const char *file)
{
	pq_leaf_reader *r = &rs[o->leaf];
	int64_t n, nulls;
	uint8_t *valid;
	DL_TRY(entries(o, r, -1, &n, &valid, &nulls));
	if (n_exp >= 0 && n != n_exp) {
		dl_free(valid);
		return corrupt_shape(file, r->leaf->path, n, n_exp);
	}
	dl_array *a = array_alloc(o->type, n);
	int32_t *off = dl_malloc((size_t)(n + 1) * sizeof *off);
	if (!a || !off) {
		dl_free(valid);
		dl_free(off);
		if (a) dl_array_free(a);
		return DL_ENOMEM;
	}
	a->validity = valid;
	a->null_count = nulls;
	a->offsets = off;
	int16_t R = o->rep_ctx, D = o->def_ctx, Rc = o->children[0].rep_ctx, Dc = o->children[0].def_ctx;
	int64_t e = -1, c = 0;
	for (int64_t i = 0; i < r->nlevels; i++) {
		if (IS_ENTRY(r, i, R, D)) off[++e] = (int32_t)c;
		if (IS_ENTRY(r, i, Rc, Dc)) c++;
	}
	off[n] = (int32_t)c;
	int nch = o->kind == PQ_OUT_MAP ? 2 : 1;
	dl_array *kids[2] = {NULL, NULL};
	int rc = 0;
	for (int i = 0; i < nch && rc == 0; i++) rc = pq_assemble(&kids[i], &o->children[i], rs, c, file);
	a->children = dl_calloc(1, sizeof *a->children);
	if (rc == 0 && !a->children) rc = DL_ENOMEM;
	if (rc == 0 && o->kind == PQ_OUT_LIST) {
		a->children[0] = kids[0];
		a->nchildren = 1;
		kids[0] = NULL;
	} else if (rc == 0) {
		/* Arrow's map: one child, the non-null struct<key, value> entries. */
		dl_field f[2] = {{"key", kids[0]->type, false, "{}"}, {"value", kids[1]->type, o->type->children[1].nullable, "{}"}};
		dl_type *st = dl_type_struct(f, 2);
		dl_array *entries_arr = st ? array_alloc(st, c) : NULL;
		if (st) dl_type_unref(st);
		if (entries_arr) entries_arr->children = dl_calloc(2, sizeof(dl_array *));
		if (!entries_arr || !entries_arr->children) {
			if (entries_arr) dl_array_free(entries_arr);
			rc = DL_ENOMEM;
		} else {
			entries_arr->children[0] = kids[0];
			entries_arr->children[1] = kids[1];
			entries_arr->nchildren = 2;
			kids[0] = kids[1] = NULL;
			a->children[0] = entries_arr;
			a->nchildren = 1;
		}
	}
	for (int i = 0; i < 2; i++)
		if (kids[i]) dl_array_free(kids[i]);
	if (rc < 0) {
		dl_array_free(a);
		return rc;
	}
	*out = a;
	return 0;
}

int pq_assemble(dl_array **out, const pq_out *o, pq_leaf_reader *readers, int64_t n, const char *file)
{
	*out = NULL;
	switch (o->kind) {
	case PQ_OUT_ABSENT:
		*out = dl_array_new_null(o->type, n < 0 ? 0 : n);
		return *out ? 0 : DL_ENOMEM;
	case PQ_OUT_LEAF:
		return assemble_leaf(out, o, &readers[o->leaf], n, file);
	case PQ_OUT_STRUCT:
		return assemble_struct(out, o, readers, n, file);
	case PQ_OUT_VARIANT: {
		DL_TRY(assemble_struct(out, o, readers, n, file));
		int rc = pq_variant_unshred(*out, o, readers, file);
		if (rc < 0) {
			dl_array_free(*out);
			*out = NULL;
		}
		return rc;
	}
	case PQ_OUT_LIST:
	case PQ_OUT_MAP:
		return assemble_list(out, o, readers, n, file);
	}
	return dl_error_set(DL_ERROR, "internal: bad plan node");
}
