#!/usr/bin/env bash
# `deltalake parquet rewrite` against DuckDB's COPY of the same file with the
# same thread count (1, then 2): 10M rows of (id BIGINT, s VARCHAR with 100k
# distinct values, d DOUBLE) made by DuckDB, rewritten to zstd by both.
# Prints the best of REPS runs of each (wall, and CPU = user + system of the
# whole process), output sizes, whether our 1- and 2-thread files are
# identical, our gain from the second thread, our peak RSS for 1/10, 1/2
# and all the rows (flat once the file exceeds one row group), and ratios.
# Env: DL_CLI, DL_ORACLE_DIR (set by make bench).
# usage: bench/bench_parquet_write.sh [ROWS] [REPS]
set -euo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
: "${DL_ORACLE_DIR:?DL_ORACLE_DIR must name tools/oracle}"
here=$(cd "$(dirname "$0")" && pwd)
rows=${1:-10000000}
reps=${2:-3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

duck() { (cd "$DL_ORACLE_DIR" && node "$here/bench_parquet_write.mjs" "$@"); }
# ours IN OUT THREADS: prints "wall cpu rss_kb" of one rewrite.
ours() {
	/usr/bin/time -f "%e %U %S %M" -o "$dir/time" "$DL_CLI" parquet rewrite "$1" "$2" --compression zstd --threads "$3"
	awk '{printf "%s %.2f %s\n", $1, $2 + $3, $4}' "$dir/time"
}
val() { sed -n "s/^$1=//p" "$2"; }

# Peak memory at 1/10 and 1/2 of the rows: above one row group (128 MiB
# uncompressed, ~4.4M rows here) it must stay flat.
mkdir -p "$dir/small" "$dir/mid" "$dir/big"
duck "$dir/small" $((rows / 10)) 1 >"$dir/small.txt"
read -r _ _ rss_small < <(ours "$dir/small/input.parquet" "$dir/small/ours.parquet" 1)
rm -f "$dir"/small/*.parquet
duck "$dir/mid" $((rows / 2)) 1 >"$dir/mid.txt"
read -r _ _ rss_mid < <(ours "$dir/mid/input.parquet" "$dir/mid/ours.parquet" 1)
rm -f "$dir"/mid/*.parquet

echo "rows=$rows best of $reps"
duck "$dir/big" "$rows" 1 1 >/dev/null # the input
for threads in 1 2; do
	best=
	for i in $(seq "$reps"); do
		read -r wall cpu rss < <(ours "$dir/big/input.parquet" "$dir/big/ours$threads.parquet" "$threads")
		if [ -z "$best" ] || awk "BEGIN{exit !($wall < $best)}"; then best=$wall best_cpu=$cpu best_rss=$rss; fi
	done
	eval "wall$threads=$best rss$threads=$best_rss"
	duck "$dir/big" "$rows" "$threads" "$reps" "$dir/big/input.parquet" >"$dir/big.txt"
	dwall=$(val duckdb_rewrite_seconds "$dir/big.txt")
	dcpu=$(val duckdb_rewrite_cpu "$dir/big.txt")
	dbytes=$(val duckdb_bytes "$dir/big.txt")
	obytes=$(stat -c %s "$dir/big/ours$threads.parquet")
	echo "threads=$threads duckdb COPY read_parquet -> zstd parquet: ${dwall} s (cpu ${dcpu} s), ${dbytes} bytes"
	echo "threads=$threads deltalake parquet rewrite:             ${best} s (cpu ${best_cpu} s), ${obytes} bytes, peak RSS $((best_rss / 1024)) MB"
	awk -v d="$dwall" -v o="$best" -v t="$threads" \
		'BEGIN{printf "ratio duckdb/deltalake rewrite time, %d thread(s) = %.2fx (above 1: we are faster)\n", t, d / o}'
	awk -v d="$dbytes" -v o="$obytes" -v t="$threads" \
		'BEGIN{printf "ratio deltalake/duckdb output size, %d thread(s) = %.4f (target within 1%%)\n", t, o / d}'
done
cmp -s "$dir/big/ours1.parquet" "$dir/big/ours2.parquet" && echo "our 1- and 2-thread files are identical" ||
	echo "our 1- and 2-thread files DIFFER"
awk -v a="$wall1" -v b="$wall2" 'BEGIN{printf "our gain from the second thread = %.2fx (target >= 1.8)\n", a / b}'
echo "peak RSS of our rewrite (1 thread): $((rss_small / 1024)) MB for $((rows / 10)) rows, $((rss_mid / 1024)) MB for $((rows / 2)) rows, $((rss1 / 1024)) MB for $rows rows ($((rss2 / 1024)) MB with 2 threads)"
