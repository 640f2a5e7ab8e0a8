/* Benchmark: shortest round-trip double formatting, ns per value.
 *
 * usage: bench_dtoa [count]   (default 1M values per set)
 * Sets: random bit patterns (17-digit-ish, any exponent), random() in [0, 1)
 * as DuckDB makes them, and short decimals such as prices (123.45). For each:
 * util/dtoa digits alone, the CLI cell text (dl_format_double), the JSON
 * writer text (dl_json_format_double), and the printf searches they replaced
 * (kept here as the baseline: "%.{p}e" + strtod for growing p, and the first
 * of %.15g/%.16g/%.17g that reads back), plus one plain "%.17g" for scale.
 * Best of 3 runs, single thread; a checksum of the output lengths keeps the
 * work from being optimized away. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "columnar/format_value.h"
#include "json/number_format.h"
#include "util/dtoa.h"

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static uint64_t rng = 0x243F6A8885A308D3u;

static uint64_t next_random(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545F4914F6CDD1Du;
}

/* The CLI's former digit search. */
static size_t old_cli(char *out, double v)
{
	char sci[40];
	int n = 0;
	for (int p = 1; p <= 17; p++) {
		n = snprintf(sci, sizeof sci, "%.*e", p - 1, v);
		if (strtod(sci, NULL) == v) break;
	}
	memcpy(out, sci, (size_t)n + 1);
	return (size_t)n;
}

/* The JSON writer's former search. */
static size_t old_json(char *out, double v)
{
	int n = 0;
	for (int prec = 15; prec <= 17; prec++) {
		n = snprintf(out, 32, "%.*g", prec, v);
		if (strtod(out, NULL) == v) break;
	}
	return (size_t)n;
}

static size_t digits_only(char *out, double v)
{
	int e;
	return (size_t)dl_dtoa_shortest(out, &e, v);
}

static size_t cli_text(char *out, double v) { return dl_format_double(out, v); }
static size_t json_text(char *out, double v) { return (size_t)dl_json_format_double(out, v); }
static size_t printf17(char *out, double v) { return (size_t)snprintf(out, 32, "%.17g", v); }

typedef struct method {
	const char *name;
	size_t (*fn)(char *out, double v);
} method;

static void run_set(const char *set, const double *vals, size_t n)
{
	static const method methods[] = {
		{"dtoa digits", digits_only},   {"cli text (new)", cli_text}, {"json text (new)", json_text},
		{"cli search (old)", old_cli},  {"json search (old)", old_json}, {"printf %.17g", printf17},
	};
	double best[6];
	for (size_t m = 0; m < 6; m++) {
		best[m] = 1e300;
		for (int run = 0; run < 3; run++) {
			char out[DL_NUMBER_TEXT_MAX];
			size_t sum = 0;
			double t0 = now_ns();
			for (size_t i = 0; i < n; i++) sum += methods[m].fn(out, vals[i]);
			double ns = (now_ns() - t0) / (double)n;
			if (ns < best[m]) best[m] = ns;
			if (sum == 0) printf("(empty output)\n");
		}
	}
	printf("%s:\n", set);
	for (size_t m = 0; m < 6; m++) printf("  %-18s %8.1f ns/value\n", methods[m].name, best[m]);
	printf("  speedup: cli %.1fx, json %.1fx\n", best[3] / best[1], best[4] / best[2]);
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 1000000;
	if (n == 0) n = 1;
	double *vals = malloc(n * sizeof *vals);
	if (!vals) return 1;
	for (size_t i = 0; i < n;) {
		uint64_t bits = next_random();
		memcpy(&vals[i], &bits, sizeof bits);
		if (isfinite(vals[i])) i++;
	}
	run_set("random bits", vals, n);
	for (size_t i = 0; i < n; i++) vals[i] = (double)(next_random() >> 11) * 0x1p-53;
	run_set("random() in [0,1)", vals, n);
	for (size_t i = 0; i < n; i++) vals[i] = (double)(next_random() % 10000000) / 100.0;
	run_set("prices (2 decimals)", vals, n);
	free(vals);
	return 0;
}
