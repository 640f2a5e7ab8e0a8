/* OPTIMIZE's planning: the live files of the partitions the WHERE selects
 * (clustering incrementally, not those a clustering wrote already), each
 * with its partition, size, deletion vector and row count, handed to
 * bins.c, whose rules (Spark's) keep the files worth rewriting and group
 * them into bins; auto compaction then drops the partitions with too few
 * candidates. The clustering statistics of the input are counted here. */
#include "optimize/optimize_internal.h"

#include <string.h>

#include "json/json.h"
#include "table/scan.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/mem.h"

static int64_t stats_records(const dl_add *a)
{
	if (!a->stats) return -1;
	dl_arena tmp = DL_ARENA_INIT;
	dl_json *v;
	int64_t n = -1;
	if (dl_json_parse(&tmp, a->stats, a->stats_len, "stats", &v) == 0) {
		const dl_json *r = dl_json_get(v, "numRecords");
		if (!r || dl_json_int64(r, &n) < 0) n = -1;
	} else {
		dl_error_clear();
	}
	dl_arena_free(&tmp);
	return n;
}

/* A file's partition as a small integer, keyed by its partition values'
 * text (the values of one table's adds come in one key order). */
typedef struct part_ids {
	dl_strmap map;
	uint32_t n;
} part_ids;

int dl_opt_part_key(dl_buf *k, const dl_str_map *pv)
{
	dl_buf_clear(k);
	DL_TRY(dl_buf_putc(k, 0)); /* never empty: unpartitioned tables key "" too */
	k->len = 0;
	for (uint32_t i = 0; i < pv->n; i++)
		DL_TRY(dl_buf_printf(k, "%s\x1f%s\x1e", pv->items[i].key, pv->items[i].value ? pv->items[i].value : "\x01"));
	return 0;
}

static int partition_id(part_ids *p, dl_buf *k, const dl_add *a, uint32_t *out)
{
	DL_TRY(dl_opt_part_key(k, &a->partition_values));
	void **slot;
	bool inserted;
	DL_TRY(dl_strmap_upsert(&p->map, k->data, k->len, &slot, &inserted));
	if (inserted) *slot = (void *)(uintptr_t)(++p->n);
	*out = (uint32_t)(uintptr_t)*slot - 1;
	return 0;
}

/* Whether a file belongs to a ZCube of this clustering
 * (ZCubeFileStatsCollector's "matchingCube"): it has ZCubeInfo tags and,
 * unless FULL, was clustered by the same columns. */
static bool in_matching_zcube(opt_cmd *c, const dl_add *a, bool full, const char **id)
{
	*id = dl_str_map_get(&a->tags, DL_TAG_ZCUBE_ID, NULL);
	const char *by = dl_str_map_get(&a->tags, DL_TAG_ZCUBE_ZORDER_BY, NULL);
	if (!*id || !by) return false;
	dl_json *v;
	if (dl_json_parse(&c->arena, by, strlen(by), "ZCUBE_ZORDER_BY tag", &v) < 0 || v->kind != DL_JSON_ARRAY) {
		return false; /* not ZCubeInfo Spark could read: an unclustered file */
	}
	if (full) return true;
	if ((int)v->u.arr.n != c->clustering.n) return false;
	for (int i = 0; i < c->clustering.n; i++) {
		const dl_json *e = &v->u.arr.items[i];
		const char *want = c->clustering.cols[i].name;
		if (e->kind != DL_JSON_STRING || e->u.str.len != strlen(want) || memcmp(e->u.str.ptr, want, e->u.str.len))
			return false;
	}
	return true;
}

int dl_opt_plan_files(opt_cmd *c, const opt_request *r, const dl_expr *where, int64_t *considered)
{
	dl_scan_options so = DL_SCAN_OPTIONS_INIT;
	so.threads = 1;
	dl_scan *s;
	if (where) DL_TRY(dl_scan_open_expr(&s, c->snap, &so, where));
	else DL_TRY(dl_scan_open(&s, c->snap, &so));
	const dl_log_state *st = dl_snapshot_state(c->snap);
	size_t n = dl_scan_file_count(s);
	dl_opt_file *files = dl_calloc(n ? n : 1, sizeof *files);
	part_ids parts = {.n = 0};
	dl_strmap_init(&parts.map, true);
	dl_buf key = DL_BUF_INIT;
	int rc = files ? 0 : DL_ENOMEM;
	size_t nf = 0;
	bool ordered_clustering = c->clustered && c->clustering.n > 0;
	dl_strmap cubes;
	dl_strmap_init(&cubes, true);
	dl_optimize_stats *os = &c->stats;
	for (size_t i = 0; i < n && rc == 0; i++) {
		size_t idx = dl_scan_file_snapshot_index(s, i);
		const dl_add *a = dl_log_state_add(st, idx);
		if (r->partition_filter && !r->partition_filter(a, r->filter_payload)) continue;
		if (ordered_clustering && !r->purge) {
			/* ClusteringStatsCollector.inputStats sees every candidate */
			const char *id;
			if (in_matching_zcube(c, a, r->full, &id)) {
				os->clustering_input_zcube_files.num++;
				os->clustering_input_zcube_files.size += a->size;
				void **slot;
				bool inserted;
				rc = dl_strmap_upsert(&cubes, id, strlen(id), &slot, &inserted);
				if (rc == 0 && inserted) os->clustering_input_num_zcubes++;
			} else {
				os->clustering_input_other_files.num++;
				os->clustering_input_other_files.size += a->size;
			}
		}
		/* incremental clustering: only files no clustering wrote */
		if (ordered_clustering && !r->full && !r->purge && a->clustering_provider &&
		    !strcmp(a->clustering_provider, DL_CLUSTERING_PROVIDER))
			continue;
		dl_opt_file *f = &files[nf];
		f->index = idx;
		f->size = a->size;
		f->has_dv = a->dv != NULL;
		f->dv_cardinality = a->dv ? a->dv->cardinality : 0;
		f->num_records = stats_records(a);
		f->force = r->iceberg_compat > 0 && !dl_opt_iceberg_tagged(a, r->iceberg_compat);
		rc = partition_id(&parts, &key, a, &f->partition);
		nf++;
	}
	dl_strmap_free(&cubes);
	*considered = (int64_t)nf;
	dl_opt_rules rules = {c->norder ? DL_OPT_MULTIDIM : DL_OPT_BINPACK, r->min_file_size, r->max_file_size,
	                      r->ratio};
	if (r->purge) {
		rules.min_file_size = 0;
		rules.max_deleted_rows_ratio = 0;
	}
	if (rc == 0) rc = dl_opt_plan_bins(&c->plan, files, nf, &rules);
	/* auto compaction: a partition qualifies with min_num_files candidates */
	if (rc == 0 && r->min_num_files > 1) {
		size_t w = 0, fw = 0;
		for (size_t b = 0; b < c->plan.nbins; b++) {
			dl_opt_bin bin = c->plan.bins[b];
			size_t in_part = 0;
			for (size_t k = 0; k < c->plan.nbins; k++)
				if (c->plan.bins[k].partition == bin.partition) in_part += c->plan.bins[k].n;
			if ((int64_t)in_part < r->min_num_files) continue;
			memmove(c->plan.files + fw, c->plan.files + bin.first, bin.n * sizeof *c->plan.files);
			bin.first = fw;
			fw += bin.n;
			c->plan.bins[w++] = bin;
		}
		c->plan.nbins = w;
		c->plan.nfiles = fw;
		int64_t np = 0;
		for (size_t b = 0; b < w; b++) np += b == 0 || c->plan.bins[b].partition != c->plan.bins[b - 1].partition;
		c->plan.partitions = np;
	}
	dl_strmap_free(&parts.map);
	dl_buf_free(&key);
	dl_free(files);
	dl_scan_free(s);
	return rc;
}

