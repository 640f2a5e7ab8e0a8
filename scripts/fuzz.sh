#!/usr/bin/env bash
# `make fuzz`: runs every libFuzzer harness of a fuzz build for a while.
#
# Each FUZZ_BUILD/fuzz/fuzz_<name> runs for SECONDS (default 60) over a
# working copy of its seed corpus: fuzz/corpus/<name>/ is copied into
# fuzz/corpus-work/<name>/ (gitignored), where new inputs accumulate between
# runs. Crashes, leaks and timeouts land in fuzz/corpus-work/artifacts/<name>/;
# reproduce one with: FUZZ_BUILD/fuzz/fuzz_<name> ARTIFACT
#
# usage: scripts/fuzz.sh [FUZZ_BUILD] [SECONDS] [NAME...]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-fuzz}
secs=${2:-${FUZZ_SECONDS:-60}}
shift 2 2>/dev/null || shift $#
only=("$@")
[[ $secs =~ ^[0-9]+$ ]] || { echo "fuzz: SECONDS must be a number, got '$secs'" >&2; exit 2; }

harnesses=()
for h in "$build"/fuzz/fuzz_*; do [ -x "$h" ] && [ -f "$h" ] && harnesses+=("$h"); done
if [ ${#harnesses[@]} -eq 0 ]; then
	echo "fuzz: no harnesses in $build/fuzz (add fuzz/fuzz_<name>.c; build with 'make fuzz')"
	exit 0
fi

summary=() failed=0
for h in "${harnesses[@]}"; do
	name=$(basename "$h"); name=${name#fuzz_}
	if [ ${#only[@]} -gt 0 ] && [[ ! " ${only[*]} " == *" $name "* ]]; then continue; fi
	work=$root/fuzz/corpus-work/$name
	artifacts=$root/fuzz/corpus-work/artifacts/$name
	mkdir -p "$work" "$artifacts"
	if [ -d "$root/fuzz/corpus/$name" ]; then cp -rn "$root/fuzz/corpus/$name/." "$work/"; fi
	dict=()
	[ -f "$root/fuzz/$name.dict" ] && dict=(-dict="$root/fuzz/$name.dict")
	echo "=== $name: ${secs}s over $(find "$work" -type f | wc -l) inputs ==="
	log=$artifacts/last-run.log
	ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} "$h" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$artifacts/" "${dict[@]}" "$work" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	if [ "$rc" -eq 0 ]; then
		summary+=("$name: ok, ${execs:-?} executions, corpus $(find "$work" -type f | wc -l) inputs")
	else
		failed=$((failed + 1))
		tail -40 "$log"
		crash=$(ls -t "$artifacts" 2>/dev/null | grep -v last-run.log | head -1)
		summary+=("$name: FAILED (exit $rc) ${crash:+artifact $artifacts/$crash}; log $log")
	fi
done
echo "=== fuzz summary ==="
printf '%s\n' "${summary[@]}"
[ "$failed" -eq 0 ]
