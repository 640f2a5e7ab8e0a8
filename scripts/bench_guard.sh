#!/usr/bin/env bash
# The instruction-count guard of `make bench` (issue 18, item 6): wall times
# on this shared 2-core machine swing by 2x, instruction counts repeat to a
# fraction of a percent. Each hot path below runs once under callgrind
# (DL_THREADS=1, a Release build) on a table of ROWS rows made the same way
# every time; its instructions per row are compared with the figure recorded
# in bench/instructions.tsv, and a path more than 10% above it is flagged as
# a regression (exit 1). After a deliberate change, record the new figures:
#   scripts/bench_guard.sh BUILD --record
# usage: scripts/bench_guard.sh [BUILD] [--record]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd) || { echo "bench_guard: no build directory" >&2; exit 1; }
record=${2:-}
D=$build/bin/deltalake
base=$root/bench/instructions.tsv
ROWS=1000000
command -v valgrind >/dev/null || { echo "bench_guard: valgrind is not installed; no instruction counts"; exit 0; }
grep -Eq 'CMAKE_BUILD_TYPE:STRING=(Release)?$' "$build/CMakeCache.txt" 2>/dev/null ||
	echo "bench_guard: note: $build is not a Release build; its counts do not compare with the recorded ones"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t=$tmp/t
gen="SELECT id, id * 0.5 AS value, concat('tag', CAST(id % 1000 AS STRING)) AS tag FROM range($ROWS)"
"$D" sql "CREATE TABLE delta.\`$t\` USING DELTA AS $gen" >/dev/null 2>"$tmp/err" ||
	{ echo "bench_guard: creating the table failed: $(cat "$tmp/err")"; exit 1; }

# name|SQL: each runs as one `deltalake sql` process
paths=(
	"scan|SELECT sum(id), sum(value), count(tag) FROM delta.\`$t\`"
	"scan_filter|SELECT count(*) FROM delta.\`$t\` WHERE id % 100 = 7 AND tag LIKE 'tag1%'"
	"write|CREATE TABLE delta.\`$tmp/w\` USING DELTA AS $gen"
)
instructions() { # SQL -> total instructions of the process
	rm -f "$tmp/cg.out"
	DL_THREADS=1 valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$D" sql "$1" >/dev/null 2>"$tmp/vg" ||
		{ echo "bench_guard: valgrind failed: $(tail -3 "$tmp/vg")" >&2; return 1; }
	sed -n 's/^summary: //p; s/^totals: //p' "$tmp/cg.out" | head -1
}
# the fixed cost (process start, catalog, printing) is measured on its own
# and subtracted, so the figure is the per-row cost of the path
fixed=$(instructions "SELECT 1") || exit 1
regress=0
out=()
printf '%-12s %14s %12s %12s\n' path instructions per_row recorded
for p in "${paths[@]}"; do
	name=${p%%|*} sql=${p#*|}
	rm -rf "$tmp/w"
	ir=$(instructions "$sql") || exit 1
	per=$(awk -v a="$ir" -v f="$fixed" -v n="$ROWS" 'BEGIN { printf "%.1f", (a - f) / n }')
	was=$(awk -F'\t' -v k="$name" '$1 == k { print $2 }' "$base" 2>/dev/null)
	flag=
	if [ -n "$was" ]; then
		flag=$(awk -v a="$per" -v b="$was" 'BEGIN { d = (a - b) / b * 100; printf "%+.1f%%%s", d, (d > 10 ? "  REGRESSION (>10%)" : "") }')
		case "$flag" in *REGRESSION*) regress=1 ;; esac
	fi
	printf '%-12s %14s %12s %12s  %s\n' "$name" "$ir" "$per" "${was:--}" "$flag"
	out+=("$name	$per")
done
if [ "$record" = --record ]; then
	{
		echo "# instructions per row (callgrind, DL_THREADS=1, Release, $ROWS rows), scripts/bench_guard.sh --record"
		printf '%s\n' "${out[@]}"
	} >"$base"
	echo "bench_guard: recorded in $base"
fi
exit $regress
