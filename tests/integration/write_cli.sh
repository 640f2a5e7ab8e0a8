#!/usr/bin/env bash
# `deltalake create` and `deltalake write` end to end: CSV, JSON lines and
# Parquet input, every write mode, replace-where, dynamic partition
# overwrite, schema evolution, idempotent writes and constraint violations
# (which must leave the table unchanged). After each step the table is
# read by this library at every version (row counts and id sums as
# expected) and every data file by DuckDB (the rows its stats claim).
# Needs DL_CLI and DL_ORACLE_DIR.
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
oracle() { (cd "$DL_ORACLE_DIR" && node "$here/write_check.mjs" "$@"); }

t=$tmp/events
# "rows idsum" of the table at a version, through our reader.
ours() {
	"$DL_CLI" cat "$t" --columns id --format csv ${1:+--version "$1"} 2>"$tmp/err" |
		awk -F, 'NR > 1 { n++; if ($1 != "") s += $1 } END { printf "%d %d\n", n, s }'
}
declare -A want_at
# check VERSION "ROWS SUM": our reader at that version, and later at every version.
check() {
	local v=$1 want=$2
	want_at[$v]=$want
	local got
	got=$(ours "$v")
	[ "$got" = "$want" ] || fail "version $v: our reader sees '$got', expected '$want'"
	# DuckDB reads every live data file of the latest version.
	if [ "$v" = latest ]; then return; fi
	"$DL_CLI" files "$t" --format csv --version "$v" >"$tmp/files.csv" 2>"$tmp/err" || fail "files failed: $(cat "$tmp/err")"
	# path,size,rows,... -> "path<TAB>rows"
	tail -n +2 "$tmp/files.csv" | awk -F, '{ print $1 "\t" $3 }' >"$tmp/files.tsv"
	local duck
	duck=$(oracle files "$t" "$tmp/files.tsv") || fail "DuckDB disagrees with the stats at version $v"
	[ "$duck" = "$want" ] || fail "version $v: DuckDB reads '$duck' from the data files, expected '$want'"
}

# create: partitioned, NOT NULL, a CHECK constraint, a generated column.
expect 0 create "$t" --schema "id BIGINT NOT NULL, name STRING, amount DOUBLE, d DATE, \
month STRING GENERATED ALWAYS AS (substr(CAST(d AS STRING), 1, 7))" \
	--partition-by d --constraint positive="amount > 0" --property delta.appendOnly=false
contains "$tmp/out" "created $t at version 0"
contains "$t/_delta_log/00000000000000000000.json" '"minWriterVersion":4'
contains "$t/_delta_log/00000000000000000000.json" '"delta.constraints.positive":"amount > 0"'
expect 1 create "$t" --schema "x INT"
contains "$tmp/err" "already exists"
expect 0 create "$t" --schema "x INT" --if-not-exists
check 0 "0 0"

# CSV append (types from the table; quoted fields; empty = NULL).
printf 'id,name,amount,d\n1,alice,10.5,2024-01-01\n2,"bob, jr",20,2024-01-02\n3,,30,2024-01-01\n' >"$tmp/a.csv"
expect 0 write "$t" --input "$tmp/a.csv" --mode append
contains "$tmp/out" "at version 1"
check 1 "3 6"
"$DL_CLI" cat "$t" --columns id,month --format csv >"$tmp/out"
contains "$tmp/out" "2,2024-01"

# JSON lines; an unknown column needs --merge-schema.
printf '{"id":4,"name":"dan","amount":1,"d":"2024-01-03"}\n{"id":5,"amount":2,"d":"2024-01-03","tag":"x"}\n' >"$tmp/b.jsonl"
expect 1 write "$t" -i "$tmp/b.jsonl" -m append
contains "$tmp/err" "tag"
expect 0 write "$t" -i "$tmp/b.jsonl" -m append --merge-schema
check 2 "5 15"

# Parquet written by DuckDB (BIGINT/VARCHAR/DOUBLE/DATE).
oracle make "$tmp/c.parquet" 100 || fail "DuckDB could not write the input"
expect 0 write "$t" -i "$tmp/c.parquet" -m append --max-records-per-file 40
check 3 "105 $((15 + (1000 + 1099) * 100 / 2))"

# Violations leave the table unchanged.
printf 'id,amount,d\n6,-1,2024-01-05\n' >"$tmp/neg.csv"
expect 1 write "$t" -i "$tmp/neg.csv" -m append
contains "$tmp/err" "CHECK constraint positive"
contains "$tmp/err" "amount : -1"
printf 'id,amount,d\n,1,2024-01-05\n' >"$tmp/null.csv"
expect 1 write "$t" -i "$tmp/null.csv" -m append
contains "$tmp/err" "NOT NULL constraint violated for column: id"
printf 'id,amount,d,month\n7,1,2024-01-05,1999-12\n' >"$tmp/gen.csv"
expect 1 write "$t" -i "$tmp/gen.csv" -m append
contains "$tmp/err" "Generated Column"
expect 1 write "$t" -i "$tmp/a.csv" -m error
contains "$tmp/err" "already exists"
[ "$(ls "$t/_delta_log" | grep -c '\.json$')" -eq 4 ] || fail "a failed write committed"

# replace-where on a partition, with rows outside it refused.
printf 'id,amount,d\n10,1,2024-01-01\n' >"$tmp/r.csv"
expect 0 write "$t" -i "$tmp/r.csv" -m overwrite --replace-where "d = '2024-01-01'"
check 4 "104 $((15 + (1000 + 1099) * 100 / 2 - 1 - 3 + 10))"
printf 'id,amount,d\n11,1,2024-01-09\n' >"$tmp/r2.csv"
expect 1 write "$t" -i "$tmp/r2.csv" -m overwrite --replace-where "d = '2024-01-01'"
contains "$tmp/err" "does not conform"

# Dynamic partition overwrite: only 2024-01-02 is replaced.
printf 'id,amount,d\n20,1,2024-01-02\n21,1,2024-01-02\n' >"$tmp/dyn.csv"
expect 0 write "$t" -i "$tmp/dyn.csv" -m overwrite --partition-overwrite dynamic
check 5 "105 $((15 + (1000 + 1099) * 100 / 2 - 1 - 3 + 10 - 2 + 41))"

# Idempotent writes: the same app version is skipped.
printf 'id,amount,d\n30,1,2024-01-07\n' >"$tmp/i.csv"
expect 0 write "$t" -i "$tmp/i.csv" -m append --txn-app-id etl --txn-version 1
expect 0 write "$t" -i "$tmp/i.csv" -m append --txn-app-id etl --txn-version 1
contains "$tmp/err" "nothing written"
check 6 "106 $((15 + (1000 + 1099) * 100 / 2 - 1 - 3 + 10 - 2 + 41 + 30))"

# Full overwrite, then every version still reads as it did.
printf 'id,amount,d\n100,5,2024-03-01\n' >"$tmp/o.csv"
expect 0 write "$t" -i "$tmp/o.csv" -m overwrite --user-metadata "reload"
check 7 "1 100"
for v in "${!want_at[@]}"; do
	[ "$v" = latest ] && continue
	got=$(ours "$v")
	[ "$got" = "${want_at[$v]}" ] || fail "time travel to $v: '$got', expected '${want_at[$v]}'"
done
"$DL_CLI" history "$t" --format jsonl >"$tmp/out"
contains "$tmp/out" '"userMetadata":"reload"'
contains "$tmp/out" '"operation":"CREATE TABLE"'
contains "$tmp/out" '"predicate":"[\"d = '"'"'2024-01-01'"'"'\"]"'

# A new table from a write, and create --replace keeping the history.
u=$tmp/fresh
expect 0 write "$u" -i "$tmp/a.csv" --partition-by d --property delta.enableChangeDataFeed=true
contains "$u/_delta_log/00000000000000000000.json" '"partitionColumns":["d"]'
contains "$u/_delta_log/00000000000000000000.json" '"minWriterVersion":4'
expect 0 create "$u" --schema "k STRING" --replace
contains "$tmp/out" "replaced $u at version 1"
n=$("$DL_CLI" cat "$u" --version 0 --format csv | tail -n +2 | wc -l)
[ "$n" -eq 3 ] || fail "version 0 of the replaced table has $n rows, expected 3"

# Change data feed: a replaceWhere that rewrites a file records only the
# rows it replaced (change data files), not the rows it copied.
f=$tmp/cdf
expect 0 create "$f" --schema "id BIGINT, p STRING, v INT" --partition-by p --property delta.enableChangeDataFeed=true
printf 'id,p,v\n1,a,10\n2,a,20\n3,b,30\n' >"$tmp/c1.csv"
printf 'id,p,v\n2,a,21\n' >"$tmp/c2.csv"
expect 0 write "$f" -i "$tmp/c1.csv" -m append
expect 0 write "$f" -i "$tmp/c2.csv" -m overwrite --replace-where "id = 2"
ls "$f"/_change_data/p=a/cdc-*.parquet >/dev/null 2>&1 || fail "no change data file"
expect 0 changes "$f" --from 2 --format csv
[ "$(tail -n +2 "$tmp/out" | cut -d, -f1-4 | sort | tr '\n' ' ')" = "2,a,20,delete 2,a,21,insert " ] ||
	fail "change data of the rewrite: $(cat "$tmp/out")"

# JSON lines into a new table: nested objects and arrays become structs and
# arrays; conflicting shapes become strings.
n=$tmp/nested
printf '{"id":1,"s":{"a":1,"b":[1,2]},"tags":["x"]}\n{"id":2,"s":{"a":2,"c":"z"},"mixed":1}\n{"id":3,"mixed":"q"}\n' >"$tmp/n.jsonl"
expect 0 write "$n" -i "$tmp/n.jsonl"
expect 0 schema "$n" --format csv
contains "$tmp/out" 's,"STRUCT<a: BIGINT, b: ARRAY<BIGINT>, c: STRING>"'
contains "$tmp/out" "mixed,STRING"
expect 0 cat "$n" --format jsonl
contains "$tmp/out" '{"id":1,"s":{"a":1,"b":[1,2],"c":null},"tags":["x"],"mixed":null}'
"$DL_CLI" files "$n" --format csv | tail -n +2 | awk -F, '{ print $1 "\t" $3 }' >"$tmp/files.tsv"
[ "$(oracle files "$n" "$tmp/files.tsv")" = "3 6" ] || fail "DuckDB does not read the nested table's file"

[ "$fails" -eq 0 ] && echo "write_cli: all checks passed"
exit $((fails > 0))
