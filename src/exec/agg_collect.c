/* collect_list and collect_set (agg_ext.h). The non-null values to keep
 * (for collect_set: those whose (group, value) pair is new) are copied
 * into the store, one chunk per input batch; each kept value is an
 * element, chained to its group's previous one, so finishing a group walks
 * its chain in input order and appends the values to the list builder. */
#include <string.h>
#include "exec/agg_ext.h"

#define NONE UINT64_MAX

static int grow_elems(dl_agg_ext *x, int64_t need)
{
	if (need <= x->elem_cap) return 0;
	int64_t cap = x->elem_cap ? x->elem_cap : 1024;
	while (cap < need) cap *= 2;
	int64_t bytes = (cap - x->elem_cap) * 16;
	DL_TRY(dl_exec_mem_charge(x->mem, bytes, "hash aggregate"));
	x->charged += bytes;
	uint64_t *r = dl_reallocarray(x->elem_ref, (size_t)cap, sizeof *r);
	if (r) x->elem_ref = r;
	uint64_t *nx = r ? dl_reallocarray(x->elem_next, (size_t)cap, sizeof *nx) : NULL;
	if (nx) x->elem_next = nx;
	if (!r || !nx) return dl_error_set(DL_ENOMEM, "out of memory collecting %lld values", (long long)need);
	x->elem_cap = cap;
	return 0;
}

int agg_collect_update(dl_agg_ext *x, const uint32_t *ids, const dl_array *arg, int64_t n)
{
	dl_selection sel = {0};
	int rc;
	if (x->kind == DL_AGG_COLLECT_SET) {
		rc = agg_new_pairs(x, ids, arg, n, &sel);
	} else {
		rc = dl_selection_reserve(&sel, n);
		for (int64_t i = 0; rc == 0 && i < n; i++)
			if (dl_array_is_valid(arg, i)) sel.idx[sel.count++] = (uint32_t)i;
	}
	uint32_t chunk = 0;
	if (rc == 0 && sel.count > 0) rc = grow_elems(x, x->nelem + sel.count);
	if (rc == 0 && sel.count > 0) rc = agg_store_add(&x->store, arg, sel.idx, sel.count, x->mem, &chunk);
	for (int64_t j = 0; rc == 0 && j < sel.count; j++) {
		uint32_t g = ids[sel.idx[j]];
		uint64_t e = (uint64_t)x->nelem++;
		x->elem_ref[e] = (uint64_t)chunk << 32 | (uint64_t)j;
		x->elem_next[e] = NONE;
		if (x->ref[g] == NONE) x->ref[g] = e;
		else x->elem_next[x->tail[g]] = e;
		x->tail[g] = e;
		x->cnt[g]++;
	}
	dl_selection_free(&sel);
	return rc;
}

int agg_collect_finish(dl_agg_ext *x, dl_builder *b, int64_t start, int64_t n)
{
	dl_builder *el = dl_builder_child(b, 0);
	for (int64_t g = start; g < start + n; g++) {
		DL_TRY(dl_builder_begin_list(b));
		for (uint64_t e = g < x->cap ? x->ref[g] : NONE; e != NONE; e = x->elem_next[e]) {
			uint64_t r = x->elem_ref[e];
			DL_TRY(dl_builder_append_range(el, x->store.chunks[r >> 32], (int64_t)(r & 0xffffffffu), 1));
		}
		DL_TRY(dl_builder_end_list(b));
	}
	return 0;
}
