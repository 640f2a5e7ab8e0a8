/* A progress bar on stderr for long commands (scans, writes, checkpoints).
 * It draws only when the stream is a terminal and --quiet was not given, and
 * redraws at most every DL_PROGRESS_INTERVAL_MS, so calling update once per
 * file or batch costs nothing measurable. */
#ifndef DL_CLI_PROGRESS_H
#define DL_CLI_PROGRESS_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define DL_PROGRESS_INTERVAL_MS 100
#define DL_PROGRESS_DELAY_MS 250

typedef struct dl_progress {
	FILE *fp;
	bool active;      /* drawing (a terminal and not quiet) */
	bool drawn;       /* something is on the line */
	const char *label;
	int64_t total;    /* <= 0: unknown, a counter is shown instead of a bar */
	int64_t done;
	int64_t last_ms;  /* monotonic time of the last draw */
} dl_progress;

/* Starts a bar labelled `label` (borrowed) for `total` units on fp. */
void dl_progress_begin(dl_progress *p, FILE *fp, bool quiet, const char *label, int64_t total);
/* Sets the units done so far; redraws when the interval has passed. */
void dl_progress_update(dl_progress *p, int64_t done);
/* Adds n units. */
void dl_progress_add(dl_progress *p, int64_t n);
/* Clears the bar's line. */
void dl_progress_end(dl_progress *p);
/* Formats the bar into buf (exposed for tests): "label [####....]  42% 42/100". */
void dl_progress_render(const dl_progress *p, char *buf, size_t cap);
/* An adapter for library callbacks of the form (done, total, payload). */
int dl_progress_callback(int64_t done, int64_t total, void *payload);

#endif
