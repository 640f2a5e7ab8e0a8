#!/usr/bin/env bash
# `make bench`: runs every benchmark of a build and prints their results.
#
# Benchmarks are the executables BUILD/bench/bench_* (from bench/bench_*.c)
# and the scripts bench/*.sh. Each prints its own figures, including a ratio
# against DuckDB measured in the same run. They get the same environment as
# the tests: DL_SOURCE_DIR, DL_BINARY_DIR, DL_SHARED_DIR, DL_ORACLE_DIR, DL_CLI.
#
# usage: scripts/bench.sh [BUILD] [NAME...]   (NAME: e.g. "json" runs bench_json only)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd) || { echo "bench: no build directory; run 'make'" >&2; exit 1; }
shift || true
only=("$@")

shared=${DL_SHARED_DIR:-$(sed -n 's/^DL_SHARED_DIR:PATH=//p' "$build/CMakeCache.txt" 2>/dev/null)}
[ -n "$shared" ] || shared=$root/../shared
export DL_SOURCE_DIR=$root DL_BINARY_DIR=$build DL_SHARED_DIR=$shared
export DL_ORACLE_DIR=${DL_ORACLE_DIR:-$root/tools/oracle} DL_CLI=$build/bin/deltalake

wanted() {
	[ ${#only[@]} -eq 0 ] && return 0
	local n
	for n in "${only[@]}"; do [ "$1" = "$n" ] && return 0; done
	return 1
}

benches=()
for b in "$build"/bench/bench_*; do [ -x "$b" ] && [ -f "$b" ] && benches+=("$b"); done
for s in "$root"/bench/*.sh; do [ -f "$s" ] && benches+=("$s"); done
[ ${#benches[@]} -gt 0 ] || { echo "bench: no benchmarks in $build/bench or bench/*.sh"; exit 0; }

summary=() failed=0 ran=0
for b in "${benches[@]}"; do
	name=$(basename "$b"); name=${name%.sh}; name=${name#bench_}
	wanted "$name" || continue
	ran=$((ran + 1))
	echo "=== $name ==="
	log=$(mktemp)
	start=$(date +%s)
	if [[ $b == *.sh ]]; then bash "$b" 2>&1 | tee "$log"; else "$b" 2>&1 | tee "$log"; fi
	rc=${PIPESTATUS[0]}
	secs=$(($(date +%s) - start))
	if [ "$rc" -ne 0 ]; then
		failed=$((failed + 1))
		summary+=("$name: FAILED (exit $rc)")
	else
		# The lines that compare with DuckDB are the headline of each benchmark.
		while IFS= read -r line; do summary+=("$name: $line"); done < <(grep -i 'ratio' "$log")
		grep -qi 'ratio' "$log" || summary+=("$name: done in ${secs}s (no ratio printed)")
	fi
	rm -f "$log"
	echo
done
echo "=== summary: $ran benchmark(s) ==="
printf '%s\n' "${summary[@]}"
[ "$failed" -eq 0 ]
