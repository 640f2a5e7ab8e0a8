#!/usr/bin/env bash
# MERGE upsert against DuckDB (docs/BENCHMARKS.md "MERGE"): a target of
# $ROWS rows in 20 files ($FILES), a source of $ROWS/10 rows of which half match
# (every 10th... even spread) and half are new keys; `deltalake merge ...
# UPDATE SET * / INSERT *` (copy-on-write, and with deletion vectors) versus
# DuckDB loading the same Parquet files, running the same MERGE INTO and
# writing the result back to Parquet. Wall time and peak RSS (GNU time).
# Not a test. Usage: bench/bench_merge.sh [BUILD_DIR]  (ROWS=10000000 default;
# KINDS="copy dv" the table kinds; NO_DUCKDB=1 skips DuckDB, e.g. for the
# memory figure of a bigger target; MEMORY_LIMIT=64MB also runs each merge
# on a copy of the table through `deltalake sql` under SET memory_limit, so
# that the source, the updated rows and the touched rows spill; KEEP=1 with
# BENCH_TMP=DIR keeps the generated tables in DIR for repeated runs)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
cli=$build/bin/deltalake
oracle=$root/tools/oracle
rows=${ROWS:-10000000}
src_rows=${SRC_ROWS:-$((rows / 10))}
tmp=${BENCH_TMP:-$(mktemp -d)}
[ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
per_file=$((rows / ${FILES:-20}))

echo "generating $rows target rows, $src_rows source rows in $tmp" >&2
awk -v n="$rows" 'BEGIN { print "id,v,g"; for (i = 0; i < n; i++) printf "%d,%d,g%d\n", i, (i * 7) % 1000003, i % 100 }' >"$tmp/t.csv"
# half the source keys hit the target (spread over every file), half are new
awk -v n="$src_rows" -v t="$rows" 'BEGIN { print "id,v,g"; for (i = 0; i < n; i++) {
	id = (i % 2 == 0) ? int(i / 2) * int(2 * t / n) : t + i; printf "%d,%d,s%d\n", id, i, i % 7 } }' >"$tmp/s.csv"
"$cli" create "$tmp/src" --schema "id BIGINT, v BIGINT, g STRING" -q >/dev/null
"$cli" write "$tmp/src" -i "$tmp/s.csv" -m append -q >/dev/null
kinds=${KINDS:-copy dv}
for kind in $kinds; do
	props=()
	[ $kind = dv ] && props=(--property delta.enableDeletionVectors=true)
	"$cli" create "$tmp/t_$kind" --schema "id BIGINT, v BIGINT, g STRING" "${props[@]}" -q >/dev/null
	"$cli" write "$tmp/t_$kind" -i "$tmp/t.csv" -m append --max-records-per-file $per_file -q >/dev/null
done
rm -f "$tmp/t.csv"

measure() { # label command...: prints "label wall_s max_rss_mb"
	local label=$1
	shift
	/usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; return 1; }
	read -r wall rss <"$tmp/time"
	echo "$label $wall $((rss / 1024))"
}

results=()
for kind in $kinds; do
	label="deltalake(copy-on-write)"
	[ $kind = dv ] && label="deltalake(deletion-vectors)"
	[ -n "${MEMORY_LIMIT:-}" ] && cp -r "$tmp/t_$kind" "$tmp/t_${kind}_lim"
	results+=("$(measure "$label" "$cli" merge "$tmp/t_$kind" --source "$tmp/src" --alias t,s \
		--on "t.id = s.id" --when "MATCHED THEN UPDATE SET *" --when "NOT MATCHED THEN INSERT *")")
	[ -n "${MEMORY_LIMIT:-}" ] || continue
	results+=("$(measure "$label,limit=$MEMORY_LIMIT" "$cli" sql "SET memory_limit = '$MEMORY_LIMIT';
		MERGE INTO delta.\`$tmp/t_${kind}_lim\` AS t USING delta.\`$tmp/src\` AS s ON t.id = s.id
		WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")")
	rm -rf "$tmp/t_${kind}_lim"
done
printf '%-40s %8s %10s\n' engine wall_s peak_rss_mb
for l in "${results[@]}"; do printf '%-40s %8s %10s\n' $l; done
[ -n "${NO_DUCKDB:-}" ] && exit 0
# DuckDB: the target's and source's data files (version 1 of each)
first=$(set -- $kinds; echo "$1")
"$cli" files "$tmp/t_$first" --version 1 --format csv | tail -n +2 | cut -d, -f1 | sed "s|^|$tmp/t_$first/|" >"$tmp/tfiles"
ls "$tmp"/src/*.parquet >"$tmp/sfiles"
duck=$(measure "duckdb" node "$root/bench/bench_merge_duckdb.mjs" "$oracle" "$tmp/tfiles" "$tmp/sfiles" "$tmp/duck_out.parquet")
printf '%-40s %8s %10s\n' $duck
dw=$(echo "$duck" | cut -d' ' -f2)
for l in "${results[@]}"; do
	w=$(echo "$l" | cut -d' ' -f2)
	echo "$(echo "$l" | cut -d' ' -f1) vs DuckDB: $(awk -v a="$dw" -v b="$w" 'BEGIN { printf "%.2fx", a / b }')"
done
