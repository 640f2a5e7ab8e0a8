#!/usr/bin/env bash
# Partition pruning through a generated partition column, from the CLI: a
# --where on ts prunes the partitions of day GENERATED ALWAYS AS
# (CAST(ts AS DATE)) in `files` and `cat`, and cat returns exactly the
# matching rows. Statistics are off, so only partition values can prune.
# Runs with DL_CLI = path of the binary.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

t="$tmp/events"
"$DL_CLI" create "$t" --schema "id BIGINT, ts TIMESTAMP, day DATE GENERATED ALWAYS AS (CAST(ts AS DATE))" \
	--partition-by day --property delta.dataSkippingNumIndexedCols=0 >/dev/null || fail "create"
printf 'id,ts\n1,2024-01-01 10:00:00\n2,2024-01-01 23:59:59\n3,2024-01-02 00:00:00\n4,2024-01-02 18:30:00\n5,2024-01-03 12:00:00\n6,2024-01-04 08:00:00\n' \
	>"$tmp/in.csv"
"$DL_CLI" write "$t" --mode append --input "$tmp/in.csv" >/dev/null || fail "append"
n=$(find "$t" -name '*.parquet' | wc -l)
[ "$n" -eq 4 ] || fail "expected one file per day (4), found $n"

where="ts >= '2024-01-02 00:00:00' AND ts < '2024-01-02 12:00:00'"
"$DL_CLI" files "$t" --where "$where" --format csv >"$tmp/out" 2>"$tmp/err" || fail "files: $(cat "$tmp/err")"
grep -qF '1 of 4 files (3 pruned by partition values, 0 by statistics)' "$tmp/err" ||
	fail "files --where on ts does not prune the other days: $(cat "$tmp/err")"
[ "$(tail -n +2 "$tmp/out" | wc -l)" -eq 1 ] || fail "files lists $(tail -n +2 "$tmp/out" | wc -l) files"
grep -qF 'day=2024-01-02/' "$tmp/out" || fail "the kept file is not day 2024-01-02: $(cat "$tmp/out")"

# A bound at midnight keeps the next day (CAST to DATE is not injective).
"$DL_CLI" files "$t" --where "ts >= '2024-01-02 00:00:00' AND ts < '2024-01-03 00:00:00'" \
	--format csv >"$tmp/out" 2>"$tmp/err" || fail "files: $(cat "$tmp/err")"
grep -qF '2 of 4 files (2 pruned by partition values' "$tmp/err" || fail "midnight bound: $(cat "$tmp/err")"

# The rows are exactly the matching ones.
"$DL_CLI" cat "$t" --where "$where" --columns id,day --format csv >"$tmp/out" 2>"$tmp/err" ||
	fail "cat: $(cat "$tmp/err")"
printf 'id,day\n3,2024-01-02\n' | cmp -s - "$tmp/out" || fail "cat --where: $(cat "$tmp/out")"
"$DL_CLI" cat "$t" --where "ts >= '2024-01-02 00:00:00' AND ts < '2024-01-03 00:00:00'" --columns id \
	--format csv >"$tmp/out" 2>"$tmp/err" || fail "cat: $(cat "$tmp/err")"
[ "$(tail -n +2 "$tmp/out" | sort | tr '\n' ' ')" = "3 4 " ] || fail "cat midnight bound: $(cat "$tmp/out")"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)" >&2; exit 1; }
echo "generated_pruning: ok"
