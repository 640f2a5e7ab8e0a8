#!/usr/bin/env bash
# OPTIMIZE against DuckDB (docs/BENCHMARKS.md "OPTIMIZE"): a table of $ROWS
# rows (id BIGINT, a, b, c, d BIGINT spread at random, s STRING) in $FILES
# small files; `deltalake optimize` (bin-packing into one file) versus
# DuckDB's `COPY (FROM read_parquet(files)) TO out.parquet` of the same
# files; then `deltalake optimize --zorder-by a,b,c,d` of a fresh copy (the
# memory figure: peak RSS, target < 1 GB). Wall time and peak RSS (GNU
# time). Not a test. Usage: bench/bench_optimize.sh [BUILD_DIR]
# (ROWS=10000000, FILES=2000 default; NO_DUCKDB=1 skips DuckDB; NO_ZORDER=1
# skips the Z-order run; CODEC=snappy makes OPTIMIZE write that codec, through the
# table property delta.parquet.compression.codec, e.g. DuckDB's and Spark's
# default snappy for a like-for-like comparison; the small files stay zstd;
# HIGH_PRIORITY=1, as root, runs each measured command in an autogroup of its
# own at nice -20, which on a machine loaded by other work comes close to a
# quiet machine's wall times: 2 busy threads then got ~93% of 2 cores)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
cli=$build/bin/deltalake
oracle=$root/tools/oracle
rows=${ROWS:-10000000}
files=${FILES:-2000}
tmp=${BENCH_TMP:-$(mktemp -d)}
trap 'rm -rf "$tmp"' EXIT
per_file=$(((rows + files - 1) / files))

echo "generating $rows rows in $files files under $tmp" >&2
node "$root/bench/bench_optimize_duckdb.mjs" "$oracle" make "$tmp/src.parquet" "$rows"
for t in bin z; do
	"$cli" create "$tmp/$t" --schema "id BIGINT, a BIGINT, b BIGINT, c BIGINT, d BIGINT, s STRING" -q >/dev/null
	"$cli" write "$tmp/$t" -i "$tmp/src.parquet" -m append --max-records-per-file $per_file -q >/dev/null
	[ -n "${CODEC:-}" ] &&
		"$cli" alter "$tmp/$t" "SET TBLPROPERTIES ('delta.parquet.compression.codec' = '$CODEC')" >/dev/null
	[ -n "${NO_ZORDER:-}" ] && break
done
rm -f "$tmp/src.parquet"
"$cli" files "$tmp/bin" --format csv | tail -n +2 | cut -d, -f1 | sed "s|^|$tmp/bin/|" >"$tmp/list"
echo "$(wc -l <"$tmp/list") files" >&2

measure() { # label command...: prints "label wall_s cpu_s max_rss_mb"
	local label=$1
	shift
	local prio=()
	[ -n "${HIGH_PRIORITY:-}" ] && prio=(setsid sh -c 'echo -20 >/proc/self/autogroup && exec nice -n -20 "$@"' prio)
	"${prio[@]}" /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" ||
		{ cat "$tmp/err" >&2; return 1; }
	read -r wall user sys rss <"$tmp/time"
	# user + system CPU: on a loaded machine the figure that still compares
	echo "$label $wall $(awk "BEGIN { printf \"%.2f\", $user + $sys }") $((rss / 1024))"
}

results=()
[ -z "${NO_DUCKDB:-}" ] &&
	results+=("$(measure "duckdb(COPY)" node "$root/bench/bench_optimize_duckdb.mjs" "$oracle" copy "$tmp/list" "$tmp/duck.parquet")")
results+=("$(measure "deltalake(optimize)" "$cli" optimize "$tmp/bin" -q)")
[ -z "${NO_ZORDER:-}" ] &&
	results+=("$(measure "deltalake(zorder-a,b,c,d)" "$cli" optimize "$tmp/z" --zorder-by a,b,c,d -q)")
printf '%-28s %8s %8s %10s\n' engine wall_s cpu_s peak_rss_mb
for l in "${results[@]}"; do printf '%-28s %8s %8s %10s\n' $l; done
echo "files after: optimize $("$cli" files "$tmp/bin" --format csv | tail -n +2 | wc -l)" >&2
