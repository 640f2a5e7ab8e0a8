/* Benchmark: parse every line of every *.json file of a Delta log with
 * dl_json_parse_lines, against DuckDB's read_json over the same files in the
 * same run (bench/json_duckdb.mjs via node).
 *
 * usage: bench_json [log_dir] [--no-duckdb] [--runs N]
 * Defaults to $DL_SHARED_DIR (or /work/shared)
 *   /bench-data/300k-add-files-100-col-partitioned/_delta_log.
 * Each of our runs reads the files and builds the DOM of every line (one
 * arena per file, all values kept until the file is done), then touches the
 * actions like a log replay would (sum of add.size, so the result can be
 * checked against DuckDB's). Best of N runs, single thread. */
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "json/json.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/mem.h"

#define MAX_FILES 100000

typedef struct totals {
	int64_t lines, adds, size_sum, bytes;
	dl_arena *reset_each; /* streaming mode: drop each line's DOM after use */
} totals;

static double clock_ms(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double now_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

/* CPU time of this process: steadier than wall time on a shared machine. */
static double cpu_ms(void)
{
	return clock_ms(CLOCK_PROCESS_CPUTIME_ID);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list_json(const char *dir, char ***out, int *n)
{
	DIR *d = opendir(dir);
	if (!d) return dl_error_errno("opening", dir);
	char **names = NULL;
	int count = 0;
	struct dirent *e;
	while ((e = readdir(d)) && count < MAX_FILES) {
		size_t len = strlen(e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0) continue;
		char **p = dl_reallocarray(names, (size_t)count + 1, sizeof *names);
		if (!p) break;
		names = p;
		dl_buf path = DL_BUF_INIT;
		dl_buf_printf(&path, "%s/%s", dir, e->d_name);
		names[count++] = dl_buf_detach(&path, NULL);
	}
	closedir(d);
	qsort(names, (size_t)count, sizeof *names, cmp_str);
	*out = names;
	*n = count;
	return 0;
}

static int read_file(const char *path, dl_buf *b)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0) return dl_error_errno("opening", path);
	struct stat st;
	if (fstat(fd, &st) < 0 || dl_buf_reserve(b, (size_t)st.st_size) < 0) {
		close(fd);
		return dl_error_errno("reading", path);
	}
	dl_buf_clear(b);
	for (;;) {
		if (dl_buf_reserve(b, 65536) < 0) break;
		ssize_t r = read(fd, b->data + b->len, b->cap - b->len - 1);
		if (r < 0 && errno == EINTR) continue;
		if (r <= 0) break;
		b->len += (size_t)r;
	}
	close(fd);
	return 0;
}

static int on_action(const dl_json *v, int64_t line, void *payload)
{
	(void)line;
	totals *t = payload;
	t->lines++;
	const dl_json *add = dl_json_get(v, "add");
	if (add) {
		int64_t size;
		DL_TRY(dl_json_int64(dl_json_get(add, "size"), &size));
		if (!dl_json_get_str(add, "path")) return dl_error_set(DL_ECORRUPT, "add without path");
		t->size_sum += size;
		t->adds++;
	}
	if (t->reset_each) dl_arena_reset(t->reset_each);
	return 0;
}

static int run_once(char **files, int n, dl_buf *buf, totals *t, bool stream)
{
	memset(t, 0, sizeof *t);
	dl_arena arena = DL_ARENA_INIT;
	arena.block_size = 1 << 20;
	if (stream) t->reset_each = &arena;
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++) {
		rc = read_file(files[i], buf);
		if (rc == 0) rc = dl_json_parse_lines(&arena, buf->data, buf->len, files[i], on_action, t);
		t->bytes += (int64_t)buf->len;
		dl_arena_reset(&arena);
	}
	dl_arena_free(&arena);
	return rc;
}

typedef struct duck_result {
	char mode[16]; /* schema=auto or schema=columns */
	double wall_ms, cpu_ms;
} duck_result;

/* Runs the DuckDB script; fills up to 2 results, returns how many (or -1).
 * Each line it prints is echoed. */
static int run_duckdb(const char *script, const char *dir, int threads, int runs, int64_t want_sum,
                      duck_result res[2])
{
	dl_buf cmd = DL_BUF_INIT;
	dl_buf_printf(&cmd, "node '%s' '%s' %d %d", script, dir, threads, runs);
	FILE *p = popen(cmd.data, "r");
	dl_buf_free(&cmd);
	if (!p) return -1;
	char line[512] = {0};
	int n = 0;
	while (fgets(line, sizeof line, p)) {
		fputs("  ", stdout);
		fputs(line, stdout);
		const char *b = strstr(line, "best_ms="), *c = strstr(line, "cpu_ms="), *m = strstr(line, "schema=");
		const char *s = strstr(line, "size_sum=");
		if (!b || !c || !m || n == 2) continue;
		if (s && strtoll(s + 9, NULL, 10) != want_sum)
			printf("  WARNING: DuckDB size_sum differs from ours (%lld)\n", (long long)want_sum);
		sscanf(m + 7, "%15s", res[n].mode);
		res[n].wall_ms = strtod(b + 8, NULL);
		res[n].cpu_ms = strtod(c + 7, NULL);
		n++;
	}
	if (pclose(p) != 0) return -1;
	return n;
}

int main(int argc, char **argv)
{
	const char *shared = getenv("DL_SHARED_DIR") ? getenv("DL_SHARED_DIR") : "/work/shared";
	dl_buf dflt = DL_BUF_INIT;
	dl_buf_printf(&dflt, "%s/bench-data/300k-add-files-100-col-partitioned/_delta_log", shared);
	const char *dir = dflt.data;
	int duck = 1, runs = 3;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--no-duckdb") == 0) duck = 0;
		else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) runs = atoi(argv[++i]);
		else dir = argv[i];
	}
	if (runs < 1) runs = 1;
	char **files = NULL;
	int n = 0;
	if (list_json(dir, &files, &n) < 0 || n == 0) {
		fprintf(stderr, "bench_json: no *.json files in %s (%s)\n", dir, dl_error_last()->message);
		return 1;
	}
	dl_buf buf = DL_BUF_INIT;
	totals t = {0};
	double best = 1e300, best_stream = 1e300, cpu = 1e300, cpu_stream = 1e300;
	for (int r = 0; r < runs; r++) {
		for (int stream = 0; stream <= 1; stream++) {
			double t0 = now_ms(), c0 = cpu_ms();
			if (run_once(files, n, &buf, &t, stream) < 0) {
				fprintf(stderr, "bench_json: %s\n", dl_error_last()->message);
				return 1;
			}
			double ms = now_ms() - t0, cms = cpu_ms() - c0;
			double *b = stream ? &best_stream : &best, *c = stream ? &cpu_stream : &cpu;
			if (ms < *b) *b = ms;
			if (cms < *c) *c = cms;
		}
	}
	printf("bench_json: %d files, %.1f MB, %lld lines, %lld adds, size_sum=%lld\n", n,
	       (double)t.bytes / 1e6, (long long)t.lines, (long long)t.adds, (long long)t.size_sum);
	printf("deltalake dl_json_parse_lines, 1 thread, read+parse, DOM of each file kept: best of %d = %.2f ms (%.0f MB/s), cpu %.2f ms\n",
	       runs, best, (double)t.bytes / 1e3 / best, cpu);
	printf("deltalake dl_json_parse_lines, 1 thread, read+parse, streaming (arena reset per line): best of %d = %.2f ms (%.0f MB/s), cpu %.2f ms\n",
	       runs, best_stream, (double)t.bytes / 1e3 / best_stream, cpu_stream);
	if (!duck) return 0;
	/* The script sits next to this source file unless DL_SOURCE_DIR says. */
	dl_buf script = DL_BUF_INIT;
	if (getenv("DL_SOURCE_DIR")) {
		dl_buf_printf(&script, "%s/bench/json_duckdb.mjs", getenv("DL_SOURCE_DIR"));
	} else {
		const char *self = __FILE__, *slash = strrchr(self, '/');
		dl_buf_printf(&script, "%.*sjson_duckdb.mjs", slash ? (int)(slash - self + 1) : 0, self);
	}
	for (int threads = 1; threads <= 2; threads++) {
		duck_result res[2];
		int nres = run_duckdb(script.data, dir, threads, runs, t.size_sum, res);
		if (nres <= 0) {
			printf("DuckDB threads=%d: failed (is node with tools/oracle installed? run `make oracle`)\n", threads);
			continue;
		}
		for (int i = 0; i < nres; i++) {
			const duck_result *d = &res[i];
			printf("ratio duckdb(threads=%d, schema=%s)/deltalake: wall %.2fx DOM kept, %.2fx streaming; "
			       "cpu %.2fx DOM kept, %.2fx streaming (>1: we are faster)\n",
			       threads, d->mode, d->wall_ms / best, d->wall_ms / best_stream, d->cpu_ms / cpu,
			       d->cpu_ms / cpu_stream);
		}
	}
	dl_buf_free(&script);
	for (int i = 0; i < n; i++) dl_free(files[i]);
	dl_free(files);
	dl_buf_free(&buf);
	dl_buf_free(&dflt);
	return 0;
}
