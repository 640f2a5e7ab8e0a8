/* Comparison only, not part of the build (jansson is not a project
 * dependency): parses the same _delta_log lines with jansson's DOM parser,
 * the way bench_json times dl_json_parse_lines, to back the decision in
 * docs/JSON.md for a purpose-built parser.
 *
 *   apt-get install libjansson-dev
 *   cc -O2 -o /tmp/json_jansson bench/json_jansson.c -ljansson
 *   /tmp/json_jansson /work/shared/bench-data/300k-add-files-100-col-partitioned/_delta_log
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double clock_ms(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)n + 1);
	if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		free(b);
		return NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return b;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	if (argc < 2) return 2;
	DIR *d = opendir(argv[1]);
	if (!d) return 1;
	char *files[4096];
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) && n < 4096) {
		size_t l = strlen(e->d_name);
		if (l > 5 && strcmp(e->d_name + l - 5, ".json") == 0)
			if (asprintf(&files[n], "%s/%s", argv[1], e->d_name) > 0) n++;
	}
	closedir(d);
	qsort(files, (size_t)n, sizeof *files, cmp);
	for (int keep = 1; keep >= 0; keep--) {
		double best = 1e300, best_cpu = 1e300;
		long long sum = 0, lines = 0;
		for (int run = 0; run < 3; run++) {
			double t0 = clock_ms(CLOCK_MONOTONIC), c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
			sum = lines = 0;
			for (int i = 0; i < n; i++) {
				size_t len;
				char *text = slurp(files[i], &len);
				if (!text) return 1;
				json_t *kept = json_array();
				for (char *ls = text, *end = text + len; ls < end;) {
					char *le = memchr(ls, '\n', (size_t)(end - ls));
					if (!le) le = end;
					if (le > ls) {
						json_error_t err;
						json_t *v = json_loadb(ls, (size_t)(le - ls), 0, &err);
						if (!v) {
							fprintf(stderr, "%s: %s\n", files[i], err.text);
							return 1;
						}
						json_t *add = json_object_get(v, "add");
						if (add) sum += json_integer_value(json_object_get(add, "size"));
						lines++;
						if (keep) json_array_append_new(kept, v);
						else json_decref(v);
					}
					ls = le + 1;
				}
				json_decref(kept);
				free(text);
			}
			double ms = clock_ms(CLOCK_MONOTONIC) - t0, cpu = clock_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
			if (ms < best) best = ms;
			if (cpu < best_cpu) best_cpu = cpu;
		}
		printf("jansson %s: %lld lines, size_sum=%lld, best of 3 = %.2f ms, cpu %.2f ms\n",
		       keep ? "DOM of each file kept" : "streaming (freed per line)", lines, sum, best, best_cpu);
	}
	return 0;
}
