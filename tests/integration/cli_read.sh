#!/usr/bin/env bash
# The read commands end to end on the shared conformance tables: cat (every
# format, projection, --where, time travel, Parquet output checked by DuckDB
# against the golden expected rows), schema, files (pruning), history,
# detail, protocol, changes (and their errors). Needs DL_CLI, DL_SHARED_DIR
# and DL_ORACLE_DIR.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
: "${DL_SHARED_DIR:?DL_SHARED_DIR must name the shared directory}"
: "${DL_ORACLE_DIR:?DL_ORACLE_DIR must name tools/oracle}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
G="$DL_SHARED_DIR/conformance/golden"
K="$DL_SHARED_DIR/conformance/kernel-data"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
expect() {
	local want=$1; shift
	"$DL_CLI" "$@" >"$tmp/out" 2>"$tmp/err"
	local got=$?
	[ "$got" -eq "$want" ] || fail "deltalake $* exited $got, expected $want (stderr: $(head -c 300 "$tmp/err"))"
}
contains() { grep -qF -- "$2" "$1" || fail "$1 lacks '$2': $(head -c 400 "$1")"; }
lines() { [ "$(wc -l <"$1")" -eq "$2" ] || fail "$1 has $(wc -l <"$1") lines, expected $2"; }
oracle() { (cd "$DL_ORACLE_DIR" && node "$here/cli_read_check.mjs" "$@"); }

# cat --format parquet equals Spark's expected rows (DuckDB compares).
for t in basic-decimal-table dv-partitioned-with-checkpoint table-with-columnmapping-mode-name \
         data-reader-nested-struct data-reader-array-primitives parquet-all-types; do
	expect 0 cat "$G/$t/delta" --format parquet -o "$tmp/$t.parquet"
	oracle same "$tmp/$t.parquet" "$G/$t/expected" >"$tmp/o" || fail "$t: $(cat "$tmp/o")"
done
# --where keeps exactly the matching rows (pruned files and row groups too).
expect 0 cat "$G/dv-partitioned-with-checkpoint/delta" --where "col1 >= 5 AND part < 6 AND col2 <> 'foo7'" --format parquet -o "$tmp/w.parquet"
oracle same "$tmp/w.parquet" "$G/dv-partitioned-with-checkpoint/expected" "col1 >= 5 AND part < 6 AND col2 <> 'foo7'" >"$tmp/o" || fail "where: $(cat "$tmp/o")"

# text formats, projection, limit
expect 0 cat "$G/basic-decimal-table/delta" --columns col1,part --format csv
contains "$tmp/out" "col1,part"
lines "$tmp/out" 5
expect 0 cat "$G/basic-decimal-table/delta" --format jsonl --limit 2
lines "$tmp/out" 2
expect 0 cat "$G/basic-decimal-table/delta" --format arrow -o "$tmp/a.arrows"
expect 2 cat "$G/basic-decimal-table/delta" --format xml
expect 1 cat "$G/basic-decimal-table/delta" --columns nope
contains "$tmp/err" "no column 'nope'"
expect 1 cat "$G/basic-decimal-table/delta" --where "col1 >"
# time travel
expect 0 cat "$G/time-travel-start-start20-start40/delta" --version 0 --format csv
lines "$tmp/out" 11
expect 0 cat "$G/time-travel-start-start20-start40/delta" --format csv
lines "$tmp/out" 31
expect 1 cat "$G/time-travel-start-start20-start40/delta" --version 99
# a missing data file is named
expect 1 cat "$G/log-replay-special-characters-b/delta"
contains "$tmp/err" "special p@#h"

# schema, files, detail, protocol, history
expect 0 schema "$G/table-with-columnmapping-mode-name/delta" --format csv
contains "$tmp/out" "delta.columnMapping.physicalName"
expect 0 files "$G/basic-decimal-table/delta" --where "part < 0" --format jsonl
lines "$tmp/out" 1
contains "$tmp/err" "3 pruned by partition values"
expect 0 files "$G/data-skipping-partition-and-data-column/delta" --where "id > 5"
lines "$tmp/out" 2
contains "$tmp/err" "4 by statistics"
expect 0 detail "$K/crc-full" --format jsonl
contains "$tmp/out" '"tableFeatures":["deletionVectors","domainMetadata","clustering","rowTracking"]'
expect 0 protocol "$K/crc-full" --format csv
contains "$tmp/out" "minReaderVersion,3"
expect 0 history "$G/deltalog-commit-info/delta" --format jsonl
contains "$tmp/out" '"operation":"WRITE"'
contains "$tmp/out" '"userMetadata":"foo"'
expect 0 history "$G/basic-with-inserts-deletes-checkpoint/delta" --limit 3 --format csv
lines "$tmp/out" 4

# changes
expect 0 changes "$K/cdf-table" --from 0 --format csv
contains "$tmp/out" "update_preimage"
contains "$tmp/out" "2,Bob,2023-12-23,update_preimage,1,"
expect 1 changes "$K/cdf-table" --from 3 --to 1
contains "$tmp/err" "after the end version"
expect 1 changes "$K/cdf-table" --from 0 --to 99
contains "$tmp/err" "after the latest version"
expect 1 changes "$K/table-without-dv-small" --from 0
contains "$tmp/err" "change data feed was not enabled"
expect 0 changes "$K/cdf-table" --format csv
contains "$tmp/out" "1,Steve,2023-12-22,insert,0,"

if [ "$fails" -ne 0 ]; then
	echo "$fails failure(s)" >&2
	exit 1
fi
echo "cli_read: all checks passed"
