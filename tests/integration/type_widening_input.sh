#!/usr/bin/env bash
# CSV and JSON lines input into a table with type widening (issue 17 item
# 4). With delta.enableTypeWidening = true and --merge-schema, values that
# need a wider type widen the column as Delta's automatic widening does
# (BYTE -> SHORT -> INT -> BIGINT, FLOAT -> DOUBLE, DECIMAL(p,s) ->
# DECIMAL(p+k,s), DATE -> TIMESTAMP_NTZ), recorded in delta.typeChanges;
# without --merge-schema, without the property, or for a value no
# automatic widening holds (an integer that needs a decimal, more than
# BIGINT) the write is refused naming file, line and column, and the table
# is left byte-identical. DuckDB reads the written files back.
# Needs DL_CLI and DL_ORACLE_DIR.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
: "${DL_ORACLE_DIR:?DL_ORACLE_DIR must name tools/oracle}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
state() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 md5sum); }
oracle() { (cd "$DL_ORACLE_DIR" && node "$here/alter_columns_check.mjs" "$@"); }

# refuse TABLE FILE TEXT [write options]: exit 1, a one-line error holding
# TEXT, the table unchanged
refuse() {
	local t=$1 file=$2 want=$3
	shift 3
	local before
	before=$(state "$t")
	"$DL_CLI" write "$t" -i "$tmp/$file" -m append "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ "$rc" -eq 1 ] || fail "$file $*: exit $rc, expected 1"
	grep -qF -- "$want" "$tmp/err" || fail "$file $*: stderr lacks '$want': $(cat "$tmp/err")"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "$file $*: the error is not one line: $(cat "$tmp/err")"
	[ "$(state "$t")" = "$before" ] || fail "$file $*: the table changed (or a stray file was left)"
}
schema_of() { "$DL_CLI" schema "$1" --format json 2>/dev/null || "$DL_CLI" schema "$1"; }

# ---- CSV ----
t=$tmp/csv
"$DL_CLI" create "$t" --schema "id INT, f FLOAT, amount DECIMAL(5,2), d DATE, b BYTE, name STRING" \
	--property delta.enableTypeWidening=true >/dev/null || fail "create csv table"
printf 'id,f,amount,d,b,name\n1,1.5,1.25,2024-01-01,1,a\n' >"$tmp/narrow.csv"
"$DL_CLI" write "$t" -i "$tmp/narrow.csv" -m append >/dev/null 2>"$tmp/err" || fail "narrow.csv: $(cat "$tmp/err")"
# values that fit change nothing, with --merge-schema too
"$DL_CLI" write "$t" -i "$tmp/narrow.csv" -m append --merge-schema >/dev/null 2>"$tmp/err" ||
	fail "narrow.csv merged: $(cat "$tmp/err")"
schema_of "$t" | grep -q typeChanges && fail "values that fit widened a column"

{
	printf 'id,f,amount,d,b,name\n'
	printf '2,2.5,2.50,2024-01-02,2,b\n'
	printf '3000000000,3.14159265358979,12345.678,2024-01-03 04:05:06,300,c\n'
} >"$tmp/wide.csv"
# without --merge-schema: the old type, and the error names the line and column
refuse "$t" wide.csv "wide.csv: line 3, column id: value '3000000000' is not a valid int"
"$DL_CLI" write "$t" -i "$tmp/wide.csv" -m append --merge-schema >/dev/null 2>"$tmp/err" ||
	fail "wide.csv merged: $(cat "$tmp/err")"
s=$(schema_of "$t")
for want in '"column":"id","type":"BIGINT"' '"column":"f","type":"DOUBLE"' '"column":"amount","type":"DECIMAL(7,2)"' \
	'"column":"d","type":"TIMESTAMP_NTZ"' '"column":"b","type":"SMALLINT"' \
	'{"fromType":"integer","toType":"long"}' '{"fromType":"float","toType":"double"}' \
	'{"fromType":"decimal(5,2)","toType":"decimal(7,2)"}' '{"fromType":"date","toType":"timestamp_ntz"}' \
	'{"fromType":"byte","toType":"short"}'; do
	grep -qF -- "$want" <<<"$s" || fail "the widened schema lacks $want: $s"
done
"$DL_CLI" cat "$t" --format csv --columns id,f,amount,d,b,name | sort >"$tmp/cat.csv"
want=$(printf '%s\n' '1,1.5,1.25,2024-01-01 00:00:00,1,a' '1,1.5,1.25,2024-01-01 00:00:00,1,a' \
	'2,2.5,2.50,2024-01-02 00:00:00,2,b' '3000000000,3.14159265358979,12345.68,2024-01-03 04:05:06,300,c' \
	'id,f,amount,d,b,name' | sort)
[ "$(cat "$tmp/cat.csv")" = "$want" ] || fail "widened rows: got $(cat "$tmp/cat.csv")"
# DuckDB reads every data file, old ones cast to the widened types
"$DL_CLI" files "$t" --format csv 2>/dev/null | awk -F, 'NR > 1 { print $1 }' >"$tmp/files"
[ "$(wc -l <"$tmp/files")" -eq 3 ] || fail "expected 3 data files: $(cat "$tmp/files")"
oracle files "$t" "$tmp/files" "id:BIGINT,f:DOUBLE,amount:VARCHAR,b:SMALLINT,name:VARCHAR" >"$tmp/duck" ||
	fail "DuckDB could not read the files"
"$DL_CLI" cat "$t" --format csv --columns id,f,amount,b,name | tail -n +2 | sort >"$tmp/ours"
diff "$tmp/ours" "$tmp/duck" >/dev/null || fail "DuckDB reads other rows: $(diff "$tmp/ours" "$tmp/duck")"

# values no automatic widening holds stay errors naming line and column
printf 'id,f,amount,d,b,name\n4,1,1,2024-01-01,1,x\n5,1,1,2024-01-01,1.5,y\n' >"$tmp/frac.csv"
refuse "$t" frac.csv "frac.csv: line 3, column b: value '1.5' is not a valid short" --merge-schema
printf 'id,f,amount,d,b,name\n99999999999999999999,1,1,2024-01-01,1,x\n' >"$tmp/huge.csv"
refuse "$t" huge.csv "huge.csv: line 2, column id: value '99999999999999999999' is not a valid long" --merge-schema
printf 'id,f,amount,d,b,name\n4,1,1,2024-01-01T00:00:00Z,1,x\n' >"$tmp/zoned.csv"
refuse "$t" zoned.csv "zoned.csv: line 2, column d: value '2024-01-01T00:00:00Z' is not a valid timestamp_ntz" \
	--merge-schema

# a table without the property keeps its types, with --merge-schema too
u=$tmp/plain
"$DL_CLI" create "$u" --schema "id INT, f FLOAT, amount DECIMAL(5,2), d DATE, b BYTE, name STRING" >/dev/null ||
	fail "create plain table"
refuse "$u" wide.csv "wide.csv: line 3, column id: value '3000000000' is not a valid int" --merge-schema

# ---- JSON lines: columns and struct fields ----
j=$tmp/json
"$DL_CLI" create "$j" --schema "id INT, s STRUCT<a: SHORT, q: DECIMAL(4,1)>, x FLOAT" \
	--property delta.enableTypeWidening=true >/dev/null || fail "create json table"
printf '{"id":1,"s":{"a":1,"q":1.5},"x":0.5}\n' >"$tmp/narrow.jsonl"
"$DL_CLI" write "$j" -i "$tmp/narrow.jsonl" -m append >/dev/null 2>"$tmp/err" || fail "narrow.jsonl: $(cat "$tmp/err")"
printf '{"id":2,"s":{"a":2,"q":"2.5"},"x":1.25}\n{"id":3000000000,"s":{"a":70000,"q":12345.67},"x":1e300}\n' \
	>"$tmp/wide.jsonl"
refuse "$j" wide.jsonl "wide.jsonl: line 2: field id: value '3000000000' is not a valid int"
"$DL_CLI" write "$j" -i "$tmp/wide.jsonl" -m append --merge-schema >/dev/null 2>"$tmp/err" ||
	fail "wide.jsonl merged: $(cat "$tmp/err")"
s=$(schema_of "$j")
for want in '"column":"id","type":"BIGINT"' 'STRUCT<a: INT, q: DECIMAL(6,1)>' '"column":"x","type":"DOUBLE"'; do
	grep -qF -- "$want" <<<"$s" || fail "the widened JSON schema lacks $want: $s"
done
# the struct fields' widenings are recorded on the fields (in the commit's schemaString)
for want in '{\"fromType\":\"short\",\"toType\":\"integer\"}' \
	'{\"fromType\":\"decimal(4,1)\",\"toType\":\"decimal(6,1)\"}'; do
	grep -qF -- "$want" "$j/_delta_log/00000000000000000002.json" || fail "the commit's schema lacks $want"
done
got=$("$DL_CLI" cat "$j" --format jsonl --where "id > 2")
[ "$got" = '{"id":3000000000,"s":{"a":70000,"q":12345.7},"x":1e+300}' ] || fail "widened JSON row: got $got"
"$DL_CLI" files "$j" --format csv 2>/dev/null | awk -F, 'NR > 1 { print $1 }' >"$tmp/jfiles"
oracle files "$j" "$tmp/jfiles" "id:BIGINT,x:DOUBLE" >"$tmp/jduck" || fail "DuckDB could not read the JSON table's files"
"$DL_CLI" cat "$j" --format csv --columns id,x | tail -n +2 | sort >"$tmp/jours"
diff "$tmp/jours" "$tmp/jduck" >/dev/null || fail "DuckDB reads other JSON rows: $(diff "$tmp/jours" "$tmp/jduck")"

[ $fails -eq 0 ] && echo "type_widening_input: wider CSV and JSON values widen the columns, or are refused by line"
exit $((fails > 0))
