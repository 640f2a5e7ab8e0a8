#!/usr/bin/env bash
# `make bench`: runs every benchmark of a build and prints their results.
#
# Benchmarks are the executables BUILD/bench/bench_* (from bench/bench_*.c)
# and the scripts bench/*.sh. Each prints its own figures, including a ratio
# against DuckDB measured in the same run. They get the same environment as
# the tests: DL_SOURCE_DIR, DL_BINARY_DIR, DL_SHARED_DIR, DL_ORACLE_DIR, DL_CLI.
#
# Scripts whose header says "# make-bench: manual" (they need a server, or
# minutes and gigabytes) run only when named. Last, scripts/bench_guard.sh
# compares instructions per row of the hot paths (callgrind) with the
# figures recorded in bench/instructions.tsv and flags a regression past 10%.
#
# usage: scripts/bench.sh [BUILD] [NAME...]   (NAME: e.g. "json" runs bench_json only,
#        "guard" the instruction-count guard only)
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
for s in "$root"/bench/*.sh; do
	[ -f "$s" ] || continue
	if grep -q '^# make-bench: manual' "$s"; then
		n=$(basename "$s" .sh)
		[ ${#only[@]} -gt 0 ] && wanted "${n#bench_}" || continue
	fi
	benches+=("$s")
done
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
if wanted guard; then
	echo "=== guard: instructions per row (callgrind) ==="
	log=$(mktemp)
	"$root/scripts/bench_guard.sh" "$build" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	ran=$((ran + 1))
	while IFS= read -r line; do summary+=("guard: $line"); done < <(grep -E '^(scan|write)' "$log")
	[ "$rc" -eq 0 ] || { failed=$((failed + 1)); summary+=("guard: REGRESSION of instructions per row (see above)"); }
	rm -f "$log"
	echo
fi
echo "=== summary: $ran benchmark(s) ==="
printf '%s\n' "${summary[@]}"
[ "$failed" -eq 0 ]
