#!/usr/bin/env bash
# `deltalake parquet schema|meta|cat|rewrite` end to end: a DuckDB-written
# file with every Delta type (nested, with nulls) is inspected, printed in
# every format and rewritten with every codec; DuckDB checks that each
# rewrite holds the same rows and types. Needs DL_CLI and DL_ORACLE_DIR.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
: "${DL_ORACLE_DIR:?DL_ORACLE_DIR must name tools/oracle}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
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
oracle() { (cd "$DL_ORACLE_DIR" && node "$here/cli_parquet_check.mjs" "$@"); }

oracle make "$tmp/in.parquet" 10000 || { echo "FAIL: DuckDB could not make the input" >&2; exit 1; }

# schema: the message tree, and rows with --format.
expect 0 parquet schema "$tmp/in.parquet"
contains "$tmp/out" "optional group m (MAP) {"
contains "$tmp/out" "repeated group key_value {"
contains "$tmp/out" "optional FIXED_LEN_BYTE_ARRAY(16) dec30 (DECIMAL(30,5));"
contains "$tmp/out" "optional INT64 ts (TIMESTAMP(MICROS,true));"
expect 0 parquet schema "$tmp/in.parquet" --format csv
contains "$tmp/out" "column,repetition,physical,logical,converted,field_id"
contains "$tmp/out" "st.c.list.element.z,optional,INT64"

# meta: one row per row group and leaf (21 leaves; DuckDB rounds the row
# group size to its vectors, so just several row groups).
expect 0 parquet meta "$tmp/in.parquet" --format jsonl
n=$(wc -l <"$tmp/out")
[ $((n % 21)) -eq 0 ] && [ "$n" -gt 21 ] || fail "meta printed $n chunk rows, expected several row groups of 21"
contains "$tmp/out" '"column":"m.key_value.key"'
expect 0 parquet meta "$tmp/in.parquet"
contains "$tmp/out" "rows        10000"

# cat: formats, projection, limit.
expect 0 parquet cat "$tmp/in.parquet" --limit 5 --format jsonl
lines "$tmp/out" 5
contains "$tmp/out" '"id":1,'
expect 0 parquet cat "$tmp/in.parquet" --columns name,id --limit 3 --format csv
lines "$tmp/out" 4
contains "$tmp/out" "name,id"
contains "$tmp/out" "name_1,1"
expect 0 parquet cat "$tmp/in.parquet" --limit 2
contains "$tmp/out" "dec30"
expect 0 parquet cat "$tmp/in.parquet" --format json --limit 0
contains "$tmp/out" "[]"
expect 0 parquet cat "$tmp/in.parquet" --columns id,st --limit 7000 --format arrow
cp "$tmp/out" "$tmp/rows.arrows"
[ "$(oracle arrow "$tmp/rows.arrows")" = "7000 id,st" ] || fail "arrow stream: $(oracle arrow "$tmp/rows.arrows")"
expect 0 parquet cat "$tmp/in.parquet" --format jsonl
lines "$tmp/out" 10000

# rewrite: every codec; same rows and types per DuckDB; the codec in meta.
for codec in zstd snappy gzip lz4_raw brotli none; do
	expect 0 parquet rewrite "$tmp/in.parquet" "$tmp/$codec.parquet" --compression "$codec"
	oracle same "$tmp/in.parquet" "$tmp/$codec.parquet" >/dev/null || fail "rewrite with $codec changed the data"
	expect 0 parquet meta "$tmp/$codec.parquet" --format csv
	want=$(echo "$codec" | tr a-z A-Z); [ "$codec" = none ] && want=UNCOMPRESSED
	contains "$tmp/out" ",$want,"
done
# Small row groups, and a rewrite of our own output.
expect 0 parquet rewrite "$tmp/zstd.parquet" "$tmp/again.parquet" --row-group-rows 1000
oracle same "$tmp/in.parquet" "$tmp/again.parquet" >/dev/null || fail "second rewrite changed the data"
expect 0 parquet meta "$tmp/again.parquet" --format jsonl
lines "$tmp/out" $((10 * 21))
# DuckDB prunes row groups with our statistics: filtered counts must agree.
oracle filters "$tmp/in.parquet" "$tmp/again.parquet" || fail "filtered counts differ (statistics)"

# An empty file (no row groups) rewrites to an empty file.
oracle make-empty "$tmp/empty.parquet" || fail "DuckDB could not make an empty file"
expect 0 parquet rewrite "$tmp/empty.parquet" "$tmp/empty2.parquet"
oracle same "$tmp/empty.parquet" "$tmp/empty2.parquet" >/dev/null || fail "the empty rewrite differs"
expect 0 parquet cat "$tmp/empty2.parquet" --format csv
lines "$tmp/out" 1

# Errors: missing file, not Parquet, bad options.
expect 1 parquet schema "$tmp/missing.parquet"
echo "not parquet at all" >"$tmp/bad.parquet"
expect 1 parquet meta "$tmp/bad.parquet"
contains "$tmp/err" "Parquet"
expect 1 parquet cat "$tmp/in.parquet" --columns nope
expect 2 parquet rewrite "$tmp/in.parquet" "$tmp/x.parquet" --compression lzo
expect 2 parquet cat "$tmp/in.parquet" --format xml
[ -e "$tmp/x.parquet" ] && fail "a failed rewrite left its output"

[ "$fails" -eq 0 ] && echo "cli_parquet: all checks passed"
exit $((fails > 0))
