#!/usr/bin/env bash
# Instructions (callgrind Ir, repeatable on a noisy machine, unlike times)
# spent in dl_snapshot_open loading the 300k-file bench table from its
# commit JSON and from a classic checkpoint of the same state
# (bench_checkpoint --prepare / --open). The checkpoint should cost fewer
# instructions than the JSON it replaces; prints both and their ratio, and
# flags a checkpoint load more than 10% above the figure recorded in
# docs/BENCHMARKS.md (BASELINE_IR below). Counted at DL_THREADS=1:
# --toggle-collect counts only the thread that calls dl_snapshot_open, so
# the commit parsing and checkpoint decoding that run on pool threads at
# more threads would go uncounted.
#   bench/bench_checkpoint_callgrind.sh              (make bench runs it)
#   TABLE=/path/to/table bench/bench_checkpoint_callgrind.sh
set -uo pipefail
: "${DL_BINARY_DIR:?DL_BINARY_DIR must name the build directory}"
BASELINE_IR=${BASELINE_IR:-535336011}
bin=$DL_BINARY_DIR/bench/bench_checkpoint
command -v valgrind >/dev/null || { echo "bench_checkpoint_callgrind: no valgrind, skipped"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args=()
[ -n "${TABLE:-}" ] && args=("$TABLE")
"$bin" "${args[@]}" --prepare "$tmp" >/dev/null || exit 1
ir() { # total Ir inside dl_snapshot_open of one open of table $1
	DL_THREADS=1 valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$2" --toggle-collect=dl_snapshot_open \
		"$bin" --open "$1" >/dev/null 2>"$tmp/vg.$2" || { cat "$tmp/vg.$2" >&2; return 1; }
	sed -n 's/^summary: *//p; s/^totals: *//p' "$tmp/cg.$2" | head -1
}
json=$(ir "$tmp/json" json) || exit 1
ckpt=$(ir "$tmp/checkpoint" ckpt) || exit 1
echo "snapshot load instructions: from JSON $json, from the checkpoint $ckpt"
awk -v j="$json" -v c="$ckpt" 'BEGIN { printf "ratio JSON / checkpoint load instructions = %.2fx; >1 means the checkpoint is cheaper\n", j / c }'
if [ "$BASELINE_IR" -gt 0 ]; then
	awk -v c="$ckpt" -v b="$BASELINE_IR" 'BEGIN {
		printf "checkpoint load: %.1f%% of the recorded %d instructions%s\n", 100 * c / b, b,
		       (c > 1.1 * b) ? " - REGRESSION (more than 10% above)" : "" }'
fi
