#!/usr/bin/env bash
# `deltalake alter TABLE "<clause>"` with the column forms of the seeds
# (11-delta-column-mapping, 13-delta-default-column-values,
# 30-delta-type-widening): after each change the table reads right through
# our reader and, without column mapping, DuckDB reading the live data
# files from the log agrees (old files of a widened column read widened,
# added columns read NULL); with column mapping, renames and drops keep
# the data and rewrite no file. Then the error paths: exit codes 1 and 2,
# Spark's error classes, the table byte-identical. Needs DL_CLI and
# DL_ORACLE_DIR.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
: "${DL_ORACLE_DIR:?DL_ORACLE_DIR must name tools/oracle}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
oracle() { (cd "$DL_ORACLE_DIR" && node "$here/alter_columns_check.mjs" "$@"); }
alter() { # TABLE CLAUSE
	"$DL_CLI" alter "$1" "$2" >"$tmp/out" 2>"$tmp/err" || fail "alter $2: $(cat "$tmp/err")"
	[ -s "$tmp/out" ] && fail "alter $2 printed: $(cat "$tmp/out")"
	return 0
}
ours() { # TABLE COLS
	"$DL_CLI" cat "$1" --columns "$2" --format csv 2>"$tmp/err" | tail -n +2 | sort
}
tree() { (cd "$1" && find . -type f | sort | xargs md5sum); }

oracle make "$tmp/src.parquet" 600 || { echo "FAIL: DuckDB could not make the data"; exit 1; }

# ---- without column mapping: DuckDB reads the files and agrees ----
t=$tmp/plain
"$DL_CLI" create "$t" --schema "id BIGINT, g INT, v INT, name STRING" --partition-by g \
	--property delta.enableTypeWidening=true >/dev/null || fail "create"
"$DL_CLI" write "$t" -i "$tmp/src.parquet" -m append --max-records-per-file 200 >/dev/null || fail "write"
alter "$t" "ADD COLUMNS (extra STRING COMMENT 'added' AFTER id, s STRUCT<a: INT>)"
alter "$t" "ADD COLUMNS (s.b STRING FIRST)"
alter "$t" "ALTER COLUMN v TYPE BIGINT"
alter "$t" "CHANGE COLUMN name COMMENT 'the name'"
alter "$t" "ALTER COLUMN v FIRST"
alter "$t" "ALTER COLUMN id SET NOT NULL"
"$DL_CLI" sql "INSERT INTO delta.\`$t\` (v, id, extra, g, name) VALUES (5000000000, 1000, 'e', 1, 'big')" \
	>/dev/null 2>"$tmp/err" || fail "insert after the changes: $(cat "$tmp/err")"
"$DL_CLI" schema "$t" --format csv >"$tmp/schema" 2>&1
head -c 2000 "$tmp/schema" | grep -q '^v,BIGINT' || fail "v is not first and BIGINT: $(cat "$tmp/schema")"
grep -q '^id,BIGINT,false' "$tmp/schema" || fail "id is not NOT NULL: $(cat "$tmp/schema")"
grep -q 'STRUCT<b: STRING, a: INT>' "$tmp/schema" || fail "s.b not first in s: $(cat "$tmp/schema")"
cols="v,id,extra,g,name"
ours "$t" "$cols" >"$tmp/ours.rows"
"$DL_CLI" files "$t" --format csv 2>"$tmp/err" | tail -n +2 | cut -d, -f1 >"$tmp/files"
oracle files "$t" "$tmp/files" "v:BIGINT,id:BIGINT,extra:VARCHAR,g:INTEGER,name:VARCHAR" >"$tmp/duck.rows" ||
	fail "DuckDB could not read the files"
diff "$tmp/duck.rows" "$tmp/ours.rows" >"$tmp/diff" || fail "our reader and DuckDB differ: $(head -c 400 "$tmp/diff")"
[ "$(wc -l <"$tmp/ours.rows")" = 601 ] || fail "$(wc -l <"$tmp/ours.rows") rows, expected 601"
grep -q '^5000000000,1000,e,1,big$' "$tmp/ours.rows" || fail "the widened value is missing"
"$DL_CLI" history "$t" --format csv >"$tmp/hist"
for op in "ADD COLUMNS" "CHANGE COLUMN"; do grep -q "$op" "$tmp/hist" || fail "history lacks $op"; done

# REPLACE COLUMNS: the same columns, reordered, one commented (a type only widens)
alter "$t" "REPLACE COLUMNS (id BIGINT NOT NULL, v BIGINT, name STRING COMMENT 'n', g INT, extra STRING, s STRUCT<b: STRING, a: INT>)"
"$DL_CLI" schema "$t" --format csv 2>&1 | tail -n +2 | cut -d, -f1 | tr '\n' ' ' >"$tmp/order"
[ "$(cat "$tmp/order")" = "id v name g extra s " ] || fail "REPLACE COLUMNS order: $(cat "$tmp/order")"
ours "$t" "$cols" >"$tmp/ours2.rows"
diff "$tmp/ours.rows" "$tmp/ours2.rows" >/dev/null || fail "REPLACE COLUMNS changed the rows"

# ---- refusals: exit 1, Spark's class, table byte-identical ----
before=$(tree "$t")
check_err() { # EXIT PATTERN ARGS...
	local want=$1 pat=$2; shift 2
	"$DL_CLI" "$@" >"$tmp/out" 2>"$tmp/err"
	local got=$?
	[ "$got" -eq "$want" ] || fail "deltalake $* exited $got, expected $want"
	grep -q -- "$pat" "$tmp/err" || fail "deltalake $*: stderr lacks '$pat': $(cat "$tmp/err")"
}
check_err 1 DELTA_NOT_NULL_CONSTRAINT_VIOLATED alter "$t" "ALTER COLUMN name SET NOT NULL"
check_err 1 DELTA_UNSUPPORTED_DROP_COLUMN alter "$t" "DROP COLUMN extra"
check_err 1 DELTA_UNSUPPORTED_RENAME_COLUMN alter "$t" "RENAME COLUMN extra TO more"
check_err 1 DELTA_UNSUPPORTED_ALTER_TABLE_CHANGE_COL_OP alter "$t" "ALTER COLUMN v TYPE INT"
check_err 1 DELTA_UNSUPPORTED_ALTER_TABLE_CHANGE_COL_OP alter "$t" "ALTER COLUMN name TYPE INT"
check_err 1 DELTA_OPERATION_NOT_ALLOWED alter "$t" "ADD COLUMN x INT NOT NULL"
check_err 1 WRONG_COLUMN_DEFAULTS_FOR_DELTA_FEATURE_NOT_ENABLED alter "$t" "ALTER COLUMN g SET DEFAULT 1"
check_err 1 DELTA_DUPLICATE_COLUMNS_FOUND alter "$t" "ADD COLUMN ID INT"
check_err 1 DELTA_COLUMN_NOT_FOUND_IN_SCHEMA alter "$t" "ALTER COLUMN nope COMMENT 'x'"
check_err 1 DELTA_CANNOT_SET_LOCATION_ON_PATH_IDENTIFIER alter "$t" "SET LOCATION '/elsewhere'"
check_err 1 "" alter "$t" "ADD COLUMN"
check_err 2 "clause is empty" alter "$t" " "
check_err 2 "" alter "$t"
check_err 1 DELTA_MISSING_DELTA_TABLE alter "$tmp/missing" "ADD COLUMN x INT"
after=$(tree "$t")
[ "$before" = "$after" ] || fail "a refused ALTER changed the table"
"$DL_CLI" alter --help >"$tmp/out" 2>&1 && grep -q "ADD COLUMNS" "$tmp/out" || fail "alter --help"

# ---- defaults (seed 13): SET/DROP DEFAULT once the feature is supported ----
t=$tmp/defaults
"$DL_CLI" create "$t" --schema "id BIGINT, g INT" --property delta.feature.allowColumnDefaults=supported \
	>/dev/null || fail "create defaults"
alter "$t" "ALTER COLUMN g SET DEFAULT 16"
grep -q 'CURRENT_DEFAULT\\":\\"16\\"' "$(ls "$t"/_delta_log/*.json | tail -1)" || fail "no CURRENT_DEFAULT 16"
"$DL_CLI" sql "INSERT INTO delta.\`$t\` (id) VALUES (1)" >/dev/null 2>"$tmp/err" || fail "insert: $(cat "$tmp/err")"
[ "$(ours "$t" id,g)" = "1,16" ] || fail "the default was not used: $(ours "$t" id,g)"
check_err 1 ADD_DEFAULT_UNSUPPORTED alter "$t" "ADD COLUMN d INT DEFAULT 16"
alter "$t" "ALTER COLUMN g DROP DEFAULT"
grep -q CURRENT_DEFAULT "$(ls "$t"/_delta_log/*.json | tail -1)" && fail "DROP DEFAULT kept it"

# ---- column mapping (seed 11): rename and drop rewrite no file ----
t=$tmp/mapped
"$DL_CLI" create "$t" --schema "id BIGINT, g INT, v INT, name STRING" \
	--property delta.columnMapping.mode=name >/dev/null || fail "create mapped"
"$DL_CLI" write "$t" -i "$tmp/src.parquet" -m append --max-records-per-file 200 >/dev/null || fail "write mapped"
files_before=$(find "$t" -name '*.parquet' | sort)
alter "$t" "RENAME COLUMN name TO \`full name\`"
alter "$t" "DROP COLUMNS (g)"
alter "$t" "ADD COLUMN g STRING"
alter "$t" "CHANGE COLUMN v value INT"
files_after=$(find "$t" -name '*.parquet' | sort)
[ "$files_before" = "$files_after" ] || fail "a column mapping change wrote or removed data files"
ours "$t" "id,value,full name,g" >"$tmp/ours.rows"
oracle query "SELECT id, v, name, NULL FROM read_parquet('$tmp/src.parquet')" >"$tmp/duck.rows"
diff "$tmp/duck.rows" "$tmp/ours.rows" >"$tmp/diff" || fail "mapped table rows differ: $(head -c 400 "$tmp/diff")"
"$DL_CLI" history "$t" --format csv >"$tmp/hist"
for op in "RENAME COLUMN" "DROP COLUMNS"; do grep -q "$op" "$tmp/hist" || fail "history lacks $op"; done

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "alter_columns: ok"
