#!/usr/bin/env bash
# `make coverage`: line and branch coverage of the library (src/**/*.c) from
# a --coverage build after its test suite ran (gcov only: gcc's own tool,
# no other package). Files no test executed count with all their lines
# uncovered (their .gcno without a .gcda). Prints the totals last, after the
# files with the most uncovered lines; with lcov installed it also writes an
# HTML report to BUILD/coverage-html.
#
# usage: scripts/coverage.sh [BUILD] [TOP]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build-coverage}" && pwd)
top=${2:-25}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# the library's objects: CMakeFiles/dl_<layer>.dir/src/...
mapfile -t notes < <(find "$build/CMakeFiles" -path '*/dl_*.dir/src/*' -name '*.gcno' | sort)
[ ${#notes[@]} -gt 0 ] || { echo "coverage: no .gcno under $build (configure with -DDL_COVERAGE=ON)" >&2; exit 1; }
# gcov -n: summaries only, no .gcov files; -b: branches too
(cd "$work" && printf '%s\n' "${notes[@]}" | xargs -n 64 gcov -n -b 2>/dev/null) >"$work/summary.txt" || true
# gcov names sources as compiled: absolute, or relative to the build
# directory (ccache's CCACHE_BASEDIR): keep src/<layer>/<file>.c
awk -v top="$top" '
  /^File / {
    f = substr($2, 2, length($2) - 2); keep = match(f, /src\/[a-z_0-9]+\/[^\/]+\.c$/)
    if (keep) f = substr(f, RSTART); next }
  !keep { next }
  /^Lines executed:/ {
    split($2, a, ":"); pct = a[2] + 0; n = $4 + 0; c = int(pct * n / 100 + 0.5)
    if (!(f in lines)) { lines[f] = n; cov[f] = c; L += n; LC += c }
    next }
  /^No executable lines/ { next }
  /^Taken at least once:/ {
    split($0, b, ":"); sub(/%.*/, "", b[2])
    n = $NF + 0; c = int((b[2] + 0) * n / 100 + 0.5)
    if (!(f in bseen)) { bseen[f] = 1; B += n; BC += c }
    next }
  END {
    for (f in lines) { u = lines[f] - cov[f]; printf "%d\t%d\t%d\t%s\n", u, cov[f], lines[f], f }
    printf "TOTAL\t%d\t%d\t%d\t%d\n", LC, L, BC, B
  }' "$work/summary.txt" >"$work/table.txt"
echo "files with the most uncovered lines (uncovered, covered/lines, file):"
grep -v '^TOTAL' "$work/table.txt" | sort -t$'\t' -k1,1nr | head -n "$top" |
  awk -F'\t' '{ printf "  %6d  %6d/%-6d %5.1f%%  %s\n", $1, $2, $3, $3 ? 100 * $2 / $3 : 100, $4 }'
if command -v lcov >/dev/null && command -v genhtml >/dev/null; then
  lcov -q -c -d "$build" -o "$work/cov.info" --rc lcov_branch_coverage=1 &&
    lcov -q -e "$work/cov.info" "$root/src/*" -o "$work/src.info" --rc lcov_branch_coverage=1 &&
    genhtml -q -o "$build/coverage-html" --branch-coverage "$work/src.info" &&
    echo "HTML report: $build/coverage-html/index.html"
fi
awk -F'\t' '/^TOTAL/ { printf "coverage of src/ (%s): lines %.1f%% (%d of %d), branches %.1f%% (%d of %d)\n",
  "library .c files", 100 * $2 / $3, $2, $3, $5 ? 100 * $4 / $5 : 0, $4, $5 }' "$work/table.txt"
