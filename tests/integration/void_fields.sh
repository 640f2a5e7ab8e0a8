#!/usr/bin/env bash
# NullType (VOID) inside columns, as Spark's SchemaUtils.dropNullTypeColumns
# on every write (DeltaNullTypeSuite): a void struct field stays in the
# table schema but the Parquet files lack it (DuckDB lists the files'
# columns) and it reads as NULL, also after a MERGE; MERGE WITH SCHEMA
# EVOLUTION never adds a VOID column or field (DELTA_MERGE_ADD_VOID_COLUMN);
# an array or map holding a NullType is refused
# (DELTA_COMPLEX_TYPE_COLUMN_CONTAINS_NULL_TYPE), even by an empty write,
# and a struct of only void fields is
# DELTA_CANNOT_WRITE_EMPTY_SCHEMA.STRUCT_ALL_VOID_FIELDS; each refusal
# leaves the table byte-identical. Needs DL_CLI and DL_ORACLE_DIR.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
: "${DL_ORACLE_DIR:?DL_ORACLE_DIR must name tools/oracle}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
wh="$tmp/wh"
sql() { "$DL_CLI" sql --warehouse "$wh" --format csv -q "$1" 2>"$tmp/err"; }
q() { sql "$1" | tail -n +2; }
tree() { (cd "$1" && find . -type f -exec md5sum {} + | sort); }
# file_columns DIR VERSION: the columns of the files added at VERSION
file_columns() {
	local files=()
	for p in $(jq -r 'select(.add) | .add.path' "$1/_delta_log/$(printf '%020d' "$2").json"); do files+=("$1/$p"); done
	(cd "$DL_ORACLE_DIR" && node "$here/void_fields_check.mjs" "${files[@]}") | sort -u
}
# refused WHAT DIR CLASS STATEMENTS
refused() {
	local before
	before=$(tree "$2")
	if sql "$4" >/dev/null; then
		fail "$1: succeeded"
	elif ! grep -q "\[$3\]" "$tmp/err"; then
		fail "$1: $(head -2 "$tmp/err"), expected $3"
	fi
	[ "$(tree "$2")" = "$before" ] || fail "$1: the table changed"
}

# ---- a void struct field: in the schema, not in the files, read as NULL ----
t="$tmp/t"
sql "CREATE TABLE t (id INT, s STRUCT<a: INT, v: VOID, n: STRUCT<b: INT, w: VOID>>) USING DELTA LOCATION '$t';
INSERT INTO t VALUES (1, named_struct('a', 1, 'v', NULL, 'n', named_struct('b', 2, 'w', NULL))), (2, NULL)" >/dev/null ||
	fail "insert: $(head -2 "$tmp/err")"
[ "$(file_columns "$t" 1)" = "id,s,a,n,b" ] || fail "insert: the file has columns $(file_columns "$t" 1)"
got=$(q "SELECT id, s, s.v IS NULL, s.n.w IS NULL FROM t ORDER BY id" | paste -sd';')
[ "$got" = '1,"{a: 1, v: NULL, n: {b: 2, w: NULL}}",true,true;2,,true,true' ] || fail "insert: rows $got"
jq -e -s '[.[] | select(.metaData)] | last | .metaData.schemaString | fromjson | .fields[1].type.fields[1].type == "void"' \
	"$t"/_delta_log/*.json >/dev/null || fail "insert: s.v is not void in the schema"
# UPDATE rewrites the file: still without them
sql "UPDATE t SET s.a = 5 WHERE id = 1" >/dev/null || fail "update: $(head -2 "$tmp/err")"
[ "$(file_columns "$t" 2)" = "id,s,a,n,b" ] || fail "update: the file has columns $(file_columns "$t" 2)"
[ "$(q "SELECT s.a, s.n.b FROM t WHERE id = 1")" = "5,2" ] || fail "update: rows"

# ---- MERGE: rewrites leave void fields out; evolution never adds one ----
# (MergeIntoCommand's findNullTypeColumn, MergeIntoSchemaEvolutionSuite's
# "void columns are not allowed": DELTA_MERGE_ADD_VOID_COLUMN, looking into
# structs but not arrays and maps)
sql "CREATE TABLE ms (id INT, s STRUCT<a: INT, v: VOID, n: STRUCT<b: INT, w: VOID>>) USING DELTA;
INSERT INTO ms VALUES (1, named_struct('a', 9, 'v', NULL, 'n', named_struct('b', 8, 'w', NULL))), (4, NULL);
MERGE INTO t USING ms ON t.id = ms.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *" \
	>/dev/null || fail "merge into t: $(head -2 "$tmp/err")"
[ "$(file_columns "$t" 3)" = "id,s,a,n,b" ] || fail "merge into t: the files have columns $(file_columns "$t" 3)"
got=$(q "SELECT id, s FROM t ORDER BY id" | paste -sd';')
[ "$got" = '1,"{a: 9, v: NULL, n: {b: 8, w: NULL}}";2,;4,' ] || fail "merge into t: rows $got"
m="$tmp/m"
sql "CREATE TABLE m (k INT, s STRUCT<a: INT>) USING DELTA LOCATION '$m';
INSERT INTO m VALUES (1, named_struct('a', 1)), (2, named_struct('a', 2));
CREATE TABLE src (k INT, s STRUCT<a: INT, v: VOID>) USING DELTA;
INSERT INTO src VALUES (1, named_struct('a', 10, 'v', NULL)), (3, named_struct('a', 30, 'v', NULL))" \
	>/dev/null || fail "merge setup: $(head -2 "$tmp/err")"
refused "merge evolution adding s.v VOID" "$m" DELTA_MERGE_ADD_VOID_COLUMN \
	"MERGE WITH SCHEMA EVOLUTION INTO m USING src ON m.k = src.k WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
grep -q 'Cannot add column `s`.`v` with type VOID' "$tmp/err" || fail "s.v: message $(head -1 "$tmp/err")"
refused "merge evolution adding a VOID column" "$m" DELTA_MERGE_ADD_VOID_COLUMN \
	"MERGE WITH SCHEMA EVOLUTION INTO m USING (SELECT k, named_struct('a', k * 100) AS s, NULL AS extra FROM VALUES (1), (5) AS v(k)) s
ON m.k = s.k WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
grep -q 'Cannot add column `extra` with type VOID. Please explicitly specify a non-void type.' "$tmp/err" ||
	fail "extra: message $(head -1 "$tmp/err")"
# without evolution the same source merges: extra is not the target's
sql "MERGE INTO m USING (SELECT k, named_struct('a', k * 100) AS s, NULL AS extra FROM VALUES (1), (5) AS v(k)) s
ON m.k = s.k WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *" >/dev/null ||
	fail "merge without evolution: $(head -2 "$tmp/err")"
got=$(q "SELECT k, s.a FROM m ORDER BY k" | paste -sd';')
[ "$got" = '1,100;2,2;5,500' ] || fail "merge without evolution: rows $got"

# ---- arrays and maps holding a NullType (Spark's three schemas) ----
n=0
for ddl in "ARRAY<VOID>|ArrayType" "MAP<STRING, VOID>|MapType" "MAP<STRUCT<x: INT, v: VOID>, STRING>|MapType"; do
	IFS='|' read -r type kind <<<"$ddl"
	n=$((n + 1))
	u="$tmp/u$n"
	sql "CREATE TABLE u$n (a $type) USING DELTA LOCATION '$u'" >/dev/null || fail "create $type: $(head -2 "$tmp/err")"
	refused "empty write into $type" "$u" DELTA_COMPLEX_TYPE_COLUMN_CONTAINS_NULL_TYPE "INSERT INTO u$n SELECT * FROM u$n"
	grep -q "in column a which is of $kind" "$tmp/err" || fail "$type: message $(head -1 "$tmp/err")"
	refused "write into $type" "$u" DELTA_COMPLEX_TYPE_COLUMN_CONTAINS_NULL_TYPE "INSERT INTO u$n VALUES (NULL)"
done
# nested in a struct: the column path names the field
sql "CREATE TABLE u9 (id INT, s STRUCT<l: ARRAY<VOID>>) USING DELTA LOCATION '$tmp/u9'" >/dev/null
refused "write into s.l" "$tmp/u9" DELTA_COMPLEX_TYPE_COLUMN_CONTAINS_NULL_TYPE "INSERT INTO u9 VALUES (1, NULL)"
grep -q "in column s.l which is of ArrayType" "$tmp/err" || fail "s.l: message $(head -1 "$tmp/err")"
# MERGE evolution bringing one in
refused "merge adding ARRAY<VOID>" "$m" DELTA_COMPLEX_TYPE_COLUMN_CONTAINS_NULL_TYPE \
	"CREATE TABLE src2 (k INT, l ARRAY<VOID>) USING DELTA; INSERT INTO src2 VALUES (1, NULL);
MERGE WITH SCHEMA EVOLUTION INTO m USING src2 ON m.k = src2.k WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"

# ---- a struct of only void fields ----
sql "CREATE TABLE e (a STRUCT<v: VOID>) USING DELTA LOCATION '$tmp/e'" >/dev/null
refused "write into STRUCT<v: VOID>" "$tmp/e" DELTA_CANNOT_WRITE_EMPTY_SCHEMA.STRUCT_ALL_VOID_FIELDS "INSERT INTO e VALUES (NULL)"
grep -q 'The column `a` is a struct where all fields have VOID type' "$tmp/err" || fail "STRUCT<v: VOID>: message"

if [ "$fails" -gt 0 ]; then
	echo "$fails failure(s)" >&2
	exit 1
fi
echo "void_fields: all passed"
