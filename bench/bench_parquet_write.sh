#!/usr/bin/env bash
# `deltalake parquet rewrite` against DuckDB's COPY of the same file, same
# thread count (1): 10M rows of (id BIGINT, s VARCHAR with 100k distinct
# values, d DOUBLE) made by DuckDB, rewritten to zstd by both. Prints times,
# output sizes, our peak RSS for 1M and 10M rows (it should not grow with
# the file), and the ratios. Env: DL_CLI, DL_ORACLE_DIR (set by make bench).
# usage: bench/bench_parquet_write.sh [ROWS]
set -euo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
: "${DL_ORACLE_DIR:?DL_ORACLE_DIR must name tools/oracle}"
here=$(cd "$(dirname "$0")" && pwd)
rows=${1:-10000000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

duck() { (cd "$DL_ORACLE_DIR" && node "$here/bench_parquet_write.mjs" "$@"); }
# ours IN OUT: prints "wall user rss_kb" of one rewrite.
ours() {
	/usr/bin/time -f "%e %U %M" -o "$dir/time" "$DL_CLI" parquet rewrite "$1" "$2" --compression zstd
	cat "$dir/time"
}
val() { sed -n "s/^$1=//p" "$2"; }

# Peak memory at 1/10 and 1/2 of the rows: above one row group (128 MiB
# uncompressed, ~4.4M rows here) it must stay flat.
mkdir -p "$dir/small" "$dir/mid" "$dir/big"
duck "$dir/small" $((rows / 10)) 1 >"$dir/small.txt"
read -r _ _ rss_small < <(ours "$dir/small/input.parquet" "$dir/small/ours.parquet")
rm -f "$dir"/small/*.parquet
duck "$dir/mid" $((rows / 2)) 1 >"$dir/mid.txt"
read -r _ _ rss_mid < <(ours "$dir/mid/input.parquet" "$dir/mid/ours.parquet")
rm -f "$dir"/mid/*.parquet
duck "$dir/big" "$rows" 1 >"$dir/big.txt"
best=
for i in 1 2 3; do
	read -r wall user rss < <(ours "$dir/big/input.parquet" "$dir/big/ours.parquet")
	if [ -z "$best" ] || awk "BEGIN{exit !($wall < $best)}"; then best=$wall best_user=$user; fi
done
dwall=$(val duckdb_rewrite_seconds "$dir/big.txt")
dbytes=$(val duckdb_bytes "$dir/big.txt")
obytes=$(stat -c %s "$dir/big/ours.parquet")
echo "rows=$rows"
echo "duckdb COPY read_parquet -> zstd parquet, 1 thread: ${dwall} s, ${dbytes} bytes"
echo "deltalake parquet rewrite --compression zstd:       ${best} s (user ${best_user} s), ${obytes} bytes"
echo "peak RSS of our rewrite: $((rss_small / 1024)) MB for $((rows / 10)) rows, $((rss_mid / 1024)) MB for $((rows / 2)) rows, $((rss / 1024)) MB for $rows rows"
awk -v d="$dwall" -v o="$best" 'BEGIN{printf "ratio duckdb/deltalake rewrite time = %.2fx (above 1: we are faster)\n", d / o}'
awk -v d="$dbytes" -v o="$obytes" 'BEGIN{printf "ratio deltalake/duckdb output size = %.3f (target <= 1.10)\n", o / d}'
