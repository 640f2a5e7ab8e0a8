/* OPTIMIZE's candidate files and bins (see bins.h). */
#include "optimize/bins.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/mem.h"

bool dl_opt_is_candidate(const dl_opt_file *f, const dl_opt_rules *r)
{
	if (r->mode == DL_OPT_MULTIDIM || f->force) return true;
	if (f->size < r->min_file_size) return true;
	if (!f->has_dv || f->dv_cardinality <= 0) return false;
	/* Spark: deleted / physical rows above the ratio; without a row count
	 * only a ratio of 0 (REORG PURGE) decides */
	if (f->num_records <= 0) return r->max_deleted_rows_ratio <= 0;
	return (double)f->dv_cardinality / (double)f->num_records > r->max_deleted_rows_ratio;
}

static int by_partition_size(const void *a, const void *b)
{
	const dl_opt_file *x = a, *y = b;
	if (x->partition != y->partition) return x->partition < y->partition ? -1 : 1;
	if (x->size != y->size) return x->size < y->size ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int push_bin(dl_opt_plan *p, size_t *cap, size_t first, size_t n, uint32_t part, int64_t bytes)
{
	if (p->nbins == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		dl_opt_bin *nb = dl_reallocarray(p->bins, c, sizeof *nb);
		if (!nb) return DL_ENOMEM;
		p->bins = nb;
		*cap = c;
	}
	p->bins[p->nbins++] = (dl_opt_bin){first, n, part, bytes};
	return 0;
}

int dl_opt_plan_bins(dl_opt_plan *out, const dl_opt_file *files, size_t n, const dl_opt_rules *r)
{
	memset(out, 0, sizeof *out);
	dl_opt_file *c = dl_calloc(n ? n : 1, sizeof *c);
	if (!c) return DL_ENOMEM;
	size_t nc = 0;
	for (size_t i = 0; i < n; i++)
		if (dl_opt_is_candidate(&files[i], r)) c[nc++] = files[i];
	qsort(c, nc, sizeof *c, by_partition_size);
	/* Bins are contiguous runs of c; the files of dropped bins are then
	 * squeezed out so that out->files holds only what is rewritten. */
	dl_opt_file *kept = dl_calloc(nc ? nc : 1, sizeof *kept);
	if (!kept) {
		dl_free(c);
		return DL_ENOMEM;
	}
	size_t cap = 0, nk = 0;
	int rc = 0;
	uint32_t last_part = 0;
	bool any_part = false;
	for (size_t i = 0; i < nc && rc == 0;) {
		size_t j = i;
		int64_t bytes = 0;
		if (r->mode == DL_OPT_MULTIDIM) {
			while (j < nc && c[j].partition == c[i].partition) bytes += c[j++].size;
		} else {
			/* a bin takes files until the next would pass maxFileSize; the
			 * first file always goes in */
			while (j < nc && c[j].partition == c[i].partition &&
			       (j == i || bytes + c[j].size <= r->max_file_size))
				bytes += c[j++].size;
		}
		size_t len = j - i;
		bool keep = r->mode == DL_OPT_MULTIDIM || len > 1 || (len == 1 && ((c[i].has_dv && c[i].dv_cardinality > 0) || c[i].force));
		if (keep) {
			memcpy(kept + nk, c + i, len * sizeof *c);
			rc = push_bin(out, &cap, nk, len, c[i].partition, bytes);
			nk += len;
			if (!any_part || last_part != c[i].partition) out->partitions++;
			last_part = c[i].partition;
			any_part = true;
		}
		i = j;
	}
	dl_free(c);
	if (rc) {
		dl_free(kept);
		dl_opt_plan_free(out);
		return rc;
	}
	out->files = kept;
	out->nfiles = nk;
	return 0;
}

void dl_opt_plan_free(dl_opt_plan *p)
{
	dl_free(p->files);
	dl_free(p->bins);
	memset(p, 0, sizeof *p);
}
