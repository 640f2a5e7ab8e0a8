/* Auto compaction (see auto_compact.h): the partitions a commit's adds
 * touched, read from the commit file itself, then OPTIMIZE's run over just
 * those with AutoCompact's sizes and minNumFiles. */
#include "optimize/auto_compact.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "json/json.h"
#include "optimize/optimize_internal.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/mem.h"

bool dl_auto_compact_enabled(const dl_str_map *configuration)
{
	const char *v = dl_str_map_get(configuration, "delta.autoOptimize.autoCompact", NULL);
	return v && (!strcasecmp(v, "true") || !strcasecmp(v, "auto") || !strcasecmp(v, "legacy"));
}

/* The partitions a commit's adds touched, keyed as part_key does. */
typedef struct touched {
	dl_strmap map;
	dl_buf key;
} touched;

static bool in_touched(const dl_add *a, void *payload)
{
	touched *t = payload;
	if (dl_opt_part_key(&t->key, &a->partition_values) < 0) return false;
	return dl_strmap_find(&t->map, t->key.data, t->key.len, NULL);
}

/* One line of the commit: an add's partition joins the touched set. */
static int touched_line(const dl_json *v, int64_t line, void *payload)
{
	(void)line;
	touched *t = payload;
	const dl_json *add = dl_json_get(v, "add");
	if (!add) return 0;
	const dl_json *pv = dl_json_get(add, "partitionValues");
	dl_buf *k = &t->key;
	dl_buf_clear(k);
	DL_TRY(dl_buf_putc(k, 0));
	k->len = 0;
	for (size_t j = 0; pv && pv->kind == DL_JSON_OBJECT && j < pv->u.obj.n; j++) {
		const dl_json_member *mm = &pv->u.obj.items[j];
		DL_TRY(dl_buf_printf(k, "%s\x1f", mm->key));
		if (mm->value.kind == DL_JSON_STRING) DL_TRY(dl_buf_append(k, mm->value.u.str.ptr, mm->value.u.str.len));
		else DL_TRY(dl_buf_putc(k, '\x01'));
		DL_TRY(dl_buf_putc(k, '\x1e'));
	}
	return dl_strmap_put(&t->map, k->data, k->len, (void *)1, NULL);
}

int dl_auto_compact(dl_optimize_metrics *metrics, dl_store *store, int64_t version,
                    const dl_auto_compact_options *opts)
{
	if (!metrics || !store) return dl_error_set(DL_EINVALID, "dl_auto_compact: metrics or store missing");
	dl_opt_metrics_init(metrics);
	dl_auto_compact_options d = DL_AUTO_COMPACT_OPTIONS_INIT;
	const dl_auto_compact_options *o = opts ? opts : &d;
	/* the partitions the commit's adds touched */
	char name[64];
	snprintf(name, sizeof name, "_delta_log/%020lld.json", (long long)version);
	uint8_t *body = NULL;
	size_t len = 0;
	DL_TRY(dl_store_get(&body, &len, store, name));
	dl_arena a = DL_ARENA_INIT;
	touched t = {.key = DL_BUF_INIT};
	dl_strmap_init(&t.map, true);
	int rc = dl_json_parse_lines(&a, (const char *)body, len, name, touched_line, &t);
	dl_arena_free(&a);
	dl_free(body);
	if (rc == 0 && t.map.count > 0) {
		opt_request r;
		memset(&r, 0, sizeof r);
		r.operation = "OPTIMIZE";
		r.store = store;
		r.user_metadata = o->user_metadata;
		r.progress = o->progress;
		r.progress_payload = o->progress_payload;
		r.auto_compact = true;
		r.max_file_size = o->max_file_size > 0 ? o->max_file_size : DL_AUTO_COMPACT_MAX_FILE_SIZE;
		r.min_file_size = o->min_file_size > 0 ? o->min_file_size : r.max_file_size / 2;
		r.min_num_files = o->min_num_files > 0 ? o->min_num_files : DL_AUTO_COMPACT_MIN_NUM_FILES;
		r.ratio = 0.05;
		r.partition_filter = in_touched;
		r.filter_payload = &t;
		rc = dl_opt_run(metrics, NULL, &r);
		if (rc < 0) dl_opt_metrics_init(metrics);
	}
	dl_strmap_free(&t.map);
	dl_buf_free(&t.key);
	return rc;
}
