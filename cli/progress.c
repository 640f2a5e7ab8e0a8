/* Progress bar: carriage return + redraw on one stderr line. */
#include "progress.h"
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BAR_WIDTH 30

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void dl_progress_begin(dl_progress *p, FILE *fp, bool quiet, const char *label, int64_t total)
{
	memset(p, 0, sizeof *p);
	p->fp = fp;
	p->label = label ? label : "";
	p->total = total;
	p->active = !quiet && fp && isatty(fileno(fp));
	p->last_ms = now_ms();
}

void dl_progress_render(const dl_progress *p, char *buf, size_t cap)
{
	if (cap == 0) return;
	if (p->total <= 0) {
		snprintf(buf, cap, "%s %lld", p->label, (long long)p->done);
		return;
	}
	int64_t done = p->done < 0 ? 0 : p->done > p->total ? p->total : p->done;
	int filled = (int)(done * BAR_WIDTH / p->total);
	int pct = (int)(done * 100 / p->total);
	char bar[BAR_WIDTH + 1];
	for (int i = 0; i < BAR_WIDTH; i++) bar[i] = i < filled ? '#' : '.';
	bar[BAR_WIDTH] = 0;
	snprintf(buf, cap, "%s [%s] %3d%% %lld/%lld", p->label, bar, pct, (long long)done,
	         (long long)p->total);
}

static void draw(dl_progress *p)
{
	char line[256];
	dl_progress_render(p, line, sizeof line);
	/* \033[K erases what a longer previous line left behind. */
	fprintf(p->fp, "\r%s\033[K", line);
	fflush(p->fp);
	p->drawn = true;
}

void dl_progress_update(dl_progress *p, int64_t done)
{
	p->done = done;
	if (!p->active) return;
	int64_t t = now_ms();
	/* The first draw waits a little too: quick operations show no bar. */
	if (t - p->last_ms < (p->drawn ? DL_PROGRESS_INTERVAL_MS : DL_PROGRESS_DELAY_MS)) return;
	p->last_ms = t;
	draw(p);
}

void dl_progress_add(dl_progress *p, int64_t n)
{
	dl_progress_update(p, p->done + n);
}

void dl_progress_end(dl_progress *p)
{
	if (p->active && p->drawn) {
		fputs("\r\033[K", p->fp);
		fflush(p->fp);
	}
	p->drawn = false;
	p->active = false;
}

int dl_progress_callback(int64_t done, int64_t total, void *payload)
{
	dl_progress *p = payload;
	if (total > 0) p->total = total;
	dl_progress_update(p, done);
	return 0;
}
