/* Shared by test_add_scan.c and fuzz_add_scan.c: an add line taken by the
 * DOM-free scanner must give exactly what the DOM path gives. Returns 0
 * when they agree (or the scanner declined), 1 on a mismatch. */
#ifndef DL_TEST_ADD_SCAN_CHECK_H
#define DL_TEST_ADD_SCAN_CHECK_H
#include <stdio.h>
#include <string.h>
#include "json/json.h"
#include "log/actions.h"
#include "log/add_scan.h"
#include "util/error.h"

static int same_str(const char *a, const char *b)
{
	if (!a || !b) return a == b;
	return strcmp(a, b) == 0;
}

static int same_map(const dl_str_map *a, const dl_str_map *b)
{
	if (a->n != b->n) return 0;
	for (uint32_t i = 0; i < a->n; i++)
		if (!same_str(a->items[i].key, b->items[i].key) || !same_str(a->items[i].value, b->items[i].value))
			return 0;
	return 1;
}

/* *handled: whether the scanner took the line. */
static int add_scan_check(const char *line, size_t len, int *handled)
{
	dl_arena a1 = DL_ARENA_INIT, a2 = DL_ARENA_INIT;
	dl_add fast;
	int bad = 0;
	*handled = dl_add_scan(&fast, &a1, line, len) == 1;
	if (*handled) {
		dl_json *v;
		dl_action act;
		if (dl_json_parse(&a2, line, len, "line", &v) < 0 ||
		    dl_action_from_json(&act, &a2, v, "line") < 0 || act.kind != DL_ACTION_ADD) {
			fprintf(stderr, "scanner took a line the DOM path rejects: %.*s (%s)\n", (int)len, line,
			        dl_error_last()->message);
			bad = 1;
		} else {
			const dl_add *d = &act.u.add;
			bad = !same_str(fast.path, d->path) || !same_map(&fast.partition_values, &d->partition_values) ||
			      fast.size != d->size || fast.modification_time != d->modification_time ||
			      fast.data_change != d->data_change || !same_str(fast.stats, d->stats) ||
			      fast.stats_len != d->stats_len || !same_map(&fast.tags, &d->tags) ||
			      (fast.dv != NULL) != (d->dv != NULL) || fast.base_row_id != d->base_row_id ||
			      fast.default_row_commit_version != d->default_row_commit_version ||
			      !same_str(fast.clustering_provider, d->clustering_provider);
			if (bad) fprintf(stderr, "scanner and DOM differ on: %.*s\n", (int)len, line);
		}
	}
	dl_error_clear();
	dl_arena_free(&a1);
	dl_arena_free(&a2);
	return bad;
}

#endif
