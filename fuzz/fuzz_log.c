/* Fuzzes the log layer with hostile _delta_log contents: the input is split
 * at NUL bytes into commit files 0.json, 1.json, ... (the last piece, when
 * it starts with '{"version"', becomes _last_checkpoint instead), then a
 * snapshot is opened and everything lazily parsed is touched: the schema,
 * the stats and partition values of every file, the properties; and the
 * parallel block replay (with tiny blocks) is compared with the one-thread
 * replay. Any outcome but a crash, a hang, a leak or a disagreement is
 * fine. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "deltalake/snapshot.h"
#include "deltalake/stats_summary.h"
#include <stdlib.h>
#include "log/log_segment.h"
#include "log/partition_values.h"
#include "log/replay.h"
#include "log/snapshot.h"
#include "log/stats.h"
#include "util/error.h"

static void touch(dl_snapshot *snap)
{
	const dl_log_state *st = dl_snapshot_state(snap);
	const dl_type *schema = dl_snapshot_schema(snap);
	const dl_metadata *md = st->metadata;
	dl_file_skipping fs = {0};
	for (size_t i = 0; i < st->nadds && i < 1000; i++) {
		const dl_add *a = dl_log_state_add(st, i);
		if (schema) {
			dl_stats_provider p;
			dl_file_skipping_init(&fs, &p, schema, dl_snapshot_props(snap)->column_mapping_mode,
			                      md->partition_columns, (int)md->npartition_columns, a);
			for (int c = 0; c < schema->nchildren; c++) {
				const char *path[1] = {schema->children[c].name};
				dl_col_stats cs;
				p.column(p.payload, path, 1, &cs);
			}
		}
	}
	dl_file_skipping_free(&fs);
	/* deltalake ui's stats coverage and overlap depth walk the same stats. */
	dl_stats_summary *ss = NULL;
	if (dl_stats_summary_open(&ss, snap) == 0) {
		for (size_t c = 0; c < dl_stats_summary_column_count(ss) && c < 8; c++) {
			dl_overlap_depth d;
			if (dl_stats_summary_overlap(&d, ss, c) < 0) dl_error_clear();
		}
		dl_stats_summary_free(ss);
	} else {
		dl_error_clear();
	}
	int64_t t;
	dl_snapshot_commit_timestamp(&t, snap, 0);
}

/* The block pipeline (any block size) must find the same state as the
 * one-thread replay whenever both succeed. */
static void compare_replays(dl_store *s, size_t block)
{
	dl_log_segment seg;
	if (dl_log_segment_build(&seg, s, -1) < 0) return;
	dl_replay_options seq = {0}, par = {0};
	seq.sequential = 1;
	par.parallel_min_bytes = 1;
	par.block_bytes = (int64_t)block;
	dl_log_state a, b;
	int ra = dl_replay(&a, s, &seg, &seq);
	int rb = dl_replay(&b, s, &seg, &par);
	if (ra == 0 && rb == 0) {
		if (a.nadds != b.nadds || a.nremoves != b.nremoves || a.ntxns != b.ntxns ||
		    a.ndomains != b.ndomains || a.total_size != b.total_size ||
		    (a.protocol == NULL) != (b.protocol == NULL) || (a.metadata == NULL) != (b.metadata == NULL))
			abort();
	}
	if (ra == 0) dl_log_state_free(&a);
	if (rb == 0) dl_log_state_free(&b);
	dl_log_segment_free(&seg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	dl_store *s;
	if (dl_store_open(&s, "mem://fuzz-log", NULL) < 0) return 0;
	char names[64][64];
	int n = 0;
	size_t start = 0;
	for (size_t i = 0; i <= size && n < 64; i++) {
		if (i < size && data[i] != 0) continue;
		const char *piece = (const char *)data + start;
		size_t len = i - start;
		if (i == size && len > 10 && memcmp(piece, "{\"version\"", 10) == 0)
			snprintf(names[n], sizeof names[n], "_delta_log/_last_checkpoint");
		else
			snprintf(names[n], sizeof names[n], "_delta_log/%020d.json", n);
		dl_store_put(s, names[n], piece, len);
		n++;
		start = i + 1;
	}
	dl_snapshot_options o = DL_SNAPSHOT_OPTIONS_INIT;
	o.store = s;
	dl_snapshot *snap;
	if (dl_snapshot_open(&snap, NULL, &o) == 0) {
		touch(snap);
		dl_snapshot_free(snap);
	}
	compare_replays(s, size ? 1 + data[0] % 97 : 1);
	o.as_of_timestamp_ms = 0;
	o.allow_after_latest = true;
	if (dl_snapshot_open(&snap, NULL, &o) == 0) dl_snapshot_free(snap);
	for (int i = 0; i < n; i++) dl_store_delete(s, names[i]);
	dl_store_free(s);
	dl_error_clear();
	return 0;
}
