#!/usr/bin/env bash
# `deltalake parquet rewrite` against DuckDB's COPY of the same file with the
# same thread count (1, then 2): 10M rows of (id BIGINT, s VARCHAR with 100k
# distinct values, d DOUBLE) made by DuckDB, rewritten to zstd by both.
# Prints times, output sizes, our peak RSS for 1/10, 1/2 and all the rows
# (flat once the file exceeds one row group), and the ratios.
# Env: DL_CLI, DL_ORACLE_DIR (set by make bench).
# usage: bench/bench_parquet_write.sh [ROWS]
set -euo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
: "${DL_ORACLE_DIR:?DL_ORACLE_DIR must name tools/oracle}"
here=$(cd "$(dirname "$0")" && pwd)
rows=${1:-10000000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

duck() { (cd "$DL_ORACLE_DIR" && node "$here/bench_parquet_write.mjs" "$@"); }
# ours IN OUT THREADS: prints "wall user rss_kb" of one rewrite.
ours() {
	/usr/bin/time -f "%e %U %M" -o "$dir/time" "$DL_CLI" parquet rewrite "$1" "$2" --compression zstd --threads "$3"
	cat "$dir/time"
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

echo "rows=$rows"
for threads in 1 2; do
	duck "$dir/big" "$rows" "$threads" >"$dir/big.txt"
	best=
	for i in 1 2 3; do
		read -r wall user rss < <(ours "$dir/big/input.parquet" "$dir/big/ours.parquet" "$threads")
		if [ -z "$best" ] || awk "BEGIN{exit !($wall < $best)}"; then best=$wall best_user=$user; fi
	done
	[ "$threads" = 1 ] && rss_big=$rss
	dwall=$(val duckdb_rewrite_seconds "$dir/big.txt")
	dbytes=$(val duckdb_bytes "$dir/big.txt")
	obytes=$(stat -c %s "$dir/big/ours.parquet")
	echo "threads=$threads duckdb COPY read_parquet -> zstd parquet: ${dwall} s, ${dbytes} bytes"
	echo "threads=$threads deltalake parquet rewrite:             ${best} s (user ${best_user} s), ${obytes} bytes"
	awk -v d="$dwall" -v o="$best" -v t="$threads" \
		'BEGIN{printf "ratio duckdb/deltalake rewrite time, %d thread(s) = %.2fx (above 1: we are faster)\n", t, d / o}'
	awk -v d="$dbytes" -v o="$obytes" -v t="$threads" \
		'BEGIN{printf "ratio deltalake/duckdb output size, %d thread(s) = %.3f (target <= 1.10)\n", t, o / d}'
done
echo "peak RSS of our rewrite (1 thread): $((rss_small / 1024)) MB for $((rows / 10)) rows, $((rss_mid / 1024)) MB for $((rows / 2)) rows, $((rss_big / 1024)) MB for $rows rows"
