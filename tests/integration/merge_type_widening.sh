#!/usr/bin/env bash
# Type widening in MERGE schema evolution, with the cases, rows and schemas
# of Delta's TypeWideningMergeIntoSchemaEvolutionSuite and
# TypeWideningTestCases: with delta.enableTypeWidening and schema evolution
# a column or field the MERGE writes takes the source's type when it is an
# automatic widening (byte -> short -> int -> long, float -> double, wider
# decimals, date -> timestamp_ntz), recorded in delta.typeChanges (with its
# fieldPath inside arrays and maps), and under allowAutomaticWidening =
# ALWAYS (the default) integers to double or decimal too; other changes
# (narrowing) keep the target's type, as does a change Iceberg cannot read
# on a UniForm table; without type widening or
# without evolution values are cast to the target's type; no widening
# under a CHECK constraint or a generated column. Each on copy-on-write and
# deletion-vector tables, and on a column-mapping table; the integer
# widenings also compared with DuckDB reading the live files (the old
# narrow ones and the new wide ones together). Needs DL_CLI and
# DL_ORACLE_DIR.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
: "${DL_ORACLE_DIR:?DL_ORACLE_DIR must name tools/oracle}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
n=0

# sql WH STATEMENTS: runs them in warehouse WH, the output (CSV) on stdout
sql() {
	"$DL_CLI" sql --warehouse "$1" --format csv -q "$2" 2>"$tmp/err" || {
		echo "ERROR: $(head -3 "$tmp/err")"
		return 1
	}
}
# q WH QUERY: the rows of one query, without the header line
q() { sql "$1" "$2" | tail -n +2; }
# The table's latest schema as compact JSON.
schema_of() {
	cat "$1"/_delta_log/*.json | jq -c -s '[.[] | select(.metaData)] | last | .metaData.schemaString | fromjson'
}
# fields_of DIR: name:type[:typeChanges] of each top-level column, ';'-joined
# (the column-mapping ids and physical names left out)
fields_of() {
	schema_of "$1" | jq -r 'walk(if type == "object" then with_entries(select(.key | startswith("delta.columnMapping") | not)) else . end)
		| [.fields[] | .name + ":" + (.type | if type == "string" then . else tojson end)
		+ (if .metadata["delta.typeChanges"] then ":" + (.metadata["delta.typeChanges"] | tojson) else "" end)] | join(";")'
}
check() { # name got want
	if [ "$2" != "$3" ]; then fail "$1: got [$2], expected [$3]"; fi
}
new_wh() {
	n=$((n + 1))
	wh="$tmp/wh$n"
	t="$tmp/t$n"
}

# ---- every pair of TypeWideningTestCases, insert-only MERGE (ON 0 = 1) ----
# from|to|initial values|additional values|expected rows (sorted, as read back)
supported=(
	"TINYINT|SMALLINT|1,-1,-128,127,NULL|4,-4,-32768,32767,NULL|-1 -128 -32768 -4 1 127 32767 4"
	"TINYINT|INT|1,-1,-128,127,NULL|4,-4,-2147483648,2147483647,NULL|-1 -128 -2147483648 -4 1 127 2147483647 4"
	"SMALLINT|INT|1,-1,-32768,32767,NULL|4,-4,-2147483648,2147483647,NULL|-1 -2147483648 -32768 -4 1 2147483647 32767 4"
	"SMALLINT|BIGINT|1,-1,-32768,32767,NULL|4,-4,-9223372036854775808,9223372036854775807,NULL|-1 -32768 -4 -9223372036854775808 1 32767 4 9223372036854775807"
	"INT|BIGINT|1,-1,-2147483648,2147483647,NULL|4,-4,-9223372036854775808,9223372036854775807,NULL|-1 -2147483648 -4 -9223372036854775808 1 2147483647 4 9223372036854775807"
	"FLOAT|DOUBLE|1234.5,-0.25,0,NULL|987654321.987654321,-0.5,NULL|-0.25 -0.5 0.0 1234.5 987654321.9876543"
	"DATE|TIMESTAMP_NTZ|DATE'2020-01-01',DATE'2024-02-29',DATE'1312-02-27'|TIMESTAMP_NTZ'2020-03-17 15:23:15.123456',TIMESTAMP_NTZ'2058-12-31 23:59:59.999',TIMESTAMP_NTZ'0001-01-01 00:00:00'|0001-01-01 00:00:00 1312-02-27 00:00:00 2020-01-01 00:00:00 2020-03-17 15:23:15.123456 2024-02-29 00:00:00 2058-12-31 23:59:59.999"
	"DECIMAL(9,2)|DECIMAL(18,2)|1.23,10.34,NULL|-67.89,9999999999999999.99,NULL|-67.89 1.23 10.34 9999999999999999.99"
	"DECIMAL(8,2)|DECIMAL(9,3)|1.23,10.34,NULL|-67.89,999999.99,NULL|-67.890 1.230 10.340 999999.990"
	"DECIMAL(9,2)|DECIMAL(19,3)|1.23,10.34,NULL|-67.89,9999999999999999.99,NULL|-67.890 1.230 10.340 9999999999999999.990"
)
delta_name() { # Delta's type name of a SQL type
	case $1 in
	TINYINT) echo byte ;; SMALLINT) echo short ;; INT) echo integer ;; BIGINT) echo long ;;
	FLOAT) echo float ;; DOUBLE) echo double ;; DATE) echo date ;; TIMESTAMP_NTZ) echo timestamp_ntz ;;
	DECIMAL*) echo "$1" | tr 'A-Z' 'a-z' ;;
	esac
}
values_of() { # "1,NULL" -> "(CAST(1 AS T)), (CAST(NULL AS T))"
	echo "$1" | tr ',' '\n' | sed "s/.*/(CAST(& AS $2))/" | paste -sd, | sed 's/,(/, (/g'
}
for tprops in "" ", 'delta.enableDeletionVectors' = 'true'"; do
	for c in "${supported[@]}"; do
		IFS='|' read -r from to init add want <<<"$c"
		new_wh
		out=$(sql "$wh" "CREATE TABLE t (value $from) USING DELTA LOCATION '$t'
  TBLPROPERTIES ('delta.enableTypeWidening' = 'true'$tprops);
INSERT INTO t VALUES $(values_of "$init" "$from");
CREATE TABLE s (value $to) USING DELTA;
INSERT INTO s VALUES $(values_of "$add" "$to");
MERGE WITH SCHEMA EVOLUTION INTO t USING s ON 0 = 1 WHEN NOT MATCHED THEN INSERT *") ||
			fail "$from -> $to: $out"
		got=$(q "$wh" "SELECT value FROM t WHERE value IS NOT NULL ORDER BY CAST(value AS STRING)" | paste -sd' ')
		check "$from -> $to rows$tprops" "$got" "$want"
		check "$from -> $to schema$tprops" "$(fields_of "$t")" \
			"value:$(delta_name "$to"):[{\"fromType\":\"$(delta_name "$from")\",\"toType\":\"$(delta_name "$to")\"}]"
		case $to in SMALLINT | INT | BIGINT)
			# DuckDB over the live files: the narrow file and the wide one
			files=$(cat "$t"/_delta_log/*.json | jq -r -s '([.[] | select(.remove) | .remove.path]) as $gone
				| .[] | select(.add) | .add.path | select(. as $p | $gone | index($p) | not)' |
				sed "s|.*|'$t/&'|" | paste -sd,)
			ours=$(q "$wh" "SELECT count(value), min(value), max(value) FROM t")
			duck=$(cd "$DL_ORACLE_DIR" && node "$here/merge_type_widening_check.mjs" \
				"SELECT count(value), min(value), max(value) FROM read_parquet([$files], union_by_name = true)")
			check "$from -> $to DuckDB$tprops" "$ours" "$duck"
			;;
		esac
		nulls=$(echo "$init,$add" | tr ',' '\n' | grep -c '^NULL$')
		check "$from -> $to NULLs" "$(q "$wh" "SELECT count(*) FROM t WHERE value IS NULL")" "$nulls"
	done
done

# ---- unsupported and ALTER-only changes: the schema does not evolve ----
unsupported=(
	"INT|TINYINT" "BIGINT|INT" "DOUBLE|FLOAT" "TINYINT|DECIMAL(2,0)" "SMALLINT|DECIMAL(4,0)"
	"INT|DECIMAL(9,0)" "BIGINT|DECIMAL(19,0)" "TIMESTAMP_NTZ|DATE" "DECIMAL(9,2)|DECIMAL(9,3)"
	"DECIMAL(9,2)|DECIMAL(8,2)" "DECIMAL(18,2)|DECIMAL(8,1)" "DECIMAL(9,2)|DECIMAL(10,4)"
	"DECIMAL(18,2)|DECIMAL(12,1)"
)
for c in "${unsupported[@]}"; do
	IFS='|' read -r from to <<<"$c"
	new_wh
	out=$(sql "$wh" "CREATE TABLE t (value $from) USING DELTA LOCATION '$t' TBLPROPERTIES ('delta.enableTypeWidening' = 'true');
INSERT INTO t VALUES (CAST(NULL AS $from));
CREATE TABLE s (value $to) USING DELTA;
MERGE WITH SCHEMA EVOLUTION INTO t USING s ON 0 = 1 WHEN NOT MATCHED THEN INSERT *") || fail "$from -> $to: $out"
	check "unsupported $from -> $to" "$(fields_of "$t")" "value:$(delta_name "$from")"
done

# ---- spark.databricks.delta.typeWidening.allowAutomaticWidening ----
# across type families only under ALWAYS (Spark's default since delta-io/delta
# #5470); SAME_FAMILY_TYPE and NEVER keep the target's type, NEVER also
# within a family
across=("INT|DOUBLE" "TINYINT|DECIMAL(10,0)" "SMALLINT|DECIMAL(10,0)" "INT|DECIMAL(10,0)" "BIGINT|DECIMAL(20,0)")
for c in "${across[@]}" "SMALLINT|INT"; do
	IFS='|' read -r from to <<<"$c"
	for mode in "" ALWAYS same_family_type NEVER; do
		new_wh
		set_mode=""
		[ -n "$mode" ] && set_mode="SET spark.databricks.delta.typeWidening.allowAutomaticWidening = $mode;"
		out=$(sql "$wh" "$set_mode CREATE TABLE t (value $from) USING DELTA LOCATION '$t' TBLPROPERTIES ('delta.enableTypeWidening' = 'true');
INSERT INTO t VALUES (CAST(1 AS $from));
CREATE TABLE s (value $to) USING DELTA; INSERT INTO s VALUES (CAST(2 AS $to));
MERGE WITH SCHEMA EVOLUTION INTO t USING s ON 0 = 1 WHEN NOT MATCHED THEN INSERT *") || fail "$from -> $to ($mode): $out"
		case "$mode:$c" in
		:* | ALWAYS:* | same_family_type:SMALLINT\|INT) want=$(delta_name "$to") ;;
		*) want=$(delta_name "$from") ;;
		esac
		got=$(fields_of "$t")
		[ "${got%%:\[*}" = "value:$want" ] || fail "allowAutomaticWidening=$mode $from -> $to: got [$got], expected value:$want"
	done
done
# a value outside the options is refused when set, as Spark's checkValues
new_wh
out=$(sql "$wh" "SET spark.databricks.delta.typeWidening.allowAutomaticWidening = sometimes" 2>&1)
case "$out" in *INVALID_CONF_VALUE.OUT_OF_RANGE_OF_OPTIONS*) ;; *) fail "bad allowAutomaticWidening: $out" ;; esac

# ---- UniForm (Iceberg): only the widenings Iceberg supports ----
# (TypeWideningMode's uniformIcebergCompatibleOnly: int -> long, float ->
# double, a decimal's precision; not to double, not date -> timestamp_ntz,
# not a decimal's scale)
new_wh
sql "$wh" "CREATE TABLE t (a SMALLINT, b INT, c DATE, d DECIMAL(5,2), e DECIMAL(5,2), f FLOAT) USING DELTA LOCATION '$t'
TBLPROPERTIES ('delta.enableTypeWidening' = 'true', 'delta.enableIcebergCompatV2' = 'true',
'delta.universalFormat.enabledFormats' = 'iceberg', 'delta.enableDeletionVectors' = 'false');
CREATE TABLE s (a BIGINT, b DOUBLE, c TIMESTAMP_NTZ, d DECIMAL(7,3), e DECIMAL(9,2), f DOUBLE) USING DELTA;
INSERT INTO s VALUES (1, 2, TIMESTAMP_NTZ'2020-01-01 00:00:00', 1.5, 2.5, 3.5);
MERGE WITH SCHEMA EVOLUTION INTO t USING s ON 0 = 1 WHEN NOT MATCHED THEN INSERT *" >/dev/null || fail "uniform: merge"
check "uniform: types" "$(schema_of "$t" | jq -r '[.fields[] | .type] | join(" ")')" \
	"long integer date decimal(5,2) decimal(9,2) double"

# ---- "type widening isn't applied when it's disabled" ----
new_wh
sql "$wh" "CREATE TABLE t (a SMALLINT) USING DELTA LOCATION '$t' TBLPROPERTIES ('delta.enableTypeWidening' = 'false');
CREATE TABLE s (a INT) USING DELTA; INSERT INTO s VALUES (1), (2);
MERGE WITH SCHEMA EVOLUTION INTO t USING s ON 0 = 1 WHEN NOT MATCHED THEN INSERT *" >/dev/null || fail "disabled: merge"
check "disabled: schema" "$(fields_of "$t")" "a:short"
check "disabled: rows" "$(q "$wh" "SELECT a FROM t ORDER BY a" | paste -sd' ')" "1 2"

# ---- "type widening isn't applied when schema evolution is disabled" ----
new_wh
sql "$wh" "CREATE TABLE t (a SMALLINT) USING DELTA LOCATION '$t' TBLPROPERTIES ('delta.enableTypeWidening' = 'true');
CREATE TABLE s (a INT) USING DELTA; INSERT INTO s VALUES (1), (2);
MERGE INTO t USING s ON 0 = 1 WHEN NOT MATCHED THEN INSERT *" >/dev/null || fail "no evolution: merge"
check "no evolution: schema" "$(fields_of "$t")" "a:short"
sql "$wh" "MERGE WITH SCHEMA EVOLUTION INTO t USING s ON 0 = 1 WHEN NOT MATCHED THEN INSERT *" >/dev/null ||
	fail "evolution: merge"
check "evolution: schema" "$(fields_of "$t")" 'a:integer:[{"fromType":"short","toType":"integer"}]'
check "evolution: rows" "$(q "$wh" "SELECT a FROM t ORDER BY a" | paste -sd' ')" "1 1 2 2"

# ---- testTypeEvolution cases: the same rows with and without evolution ----
# name|target DDL|target rows|source DDL|source rows|ON|clauses|expected rows|schema with evolution
cases=(
	"short -> int with update|a SMALLINT|(0), (10)|a INT|(0), (20)|t.a = s.a|WHEN MATCHED THEN UPDATE SET a = s.a + 1|1;10|a:integer:[{\"fromType\":\"short\",\"toType\":\"integer\"}]"
	"short -> int with insert|a SMALLINT|(0), (10)|a INT|(0), (20)|t.a = s.a|WHEN NOT MATCHED THEN INSERT (a) VALUES (s.a)|0;10;20|a:integer:[{\"fromType\":\"short\",\"toType\":\"integer\"}]"
	"narrower value doesn't evolve|a INT|(0), (10)|a SMALLINT|(0), (20)|t.a = s.a|WHEN MATCHED THEN UPDATE SET a = s.a + 1|1;10|a:integer"
	"only columns in assignments|a SMALLINT, b SMALLINT|(0, 5), (10, 15)|a INT, b INT|(0, 6), (20, 16)|t.a = s.a|WHEN MATCHED THEN UPDATE SET a = s.a + 1|1,5;10,15|a:integer:[{\"fromType\":\"short\",\"toType\":\"integer\"}];b:short"
	"struct field with struct assignment|s STRUCT<a: SMALLINT>|(named_struct('a', 1)), (named_struct('a', 10))|s STRUCT<a: INT>|(named_struct('a', 1)), (named_struct('a', 20))|t.s.a = s.s.a|WHEN MATCHED THEN UPDATE SET t.s.a = s.s.a + 1|{a: 10};{a: 2}|s:{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":\"integer\",\"nullable\":true,\"metadata\":{\"delta.typeChanges\":[{\"fromType\":\"short\",\"toType\":\"integer\"}]}}]}"
	"struct field with whole-struct assignment|s STRUCT<a: SMALLINT>|(named_struct('a', 1)), (named_struct('a', 10))|s STRUCT<a: INT>|(named_struct('a', 1)), (named_struct('a', 20))|t.s.a = s.s.a|WHEN MATCHED THEN UPDATE SET t.s = named_struct('a', s.s.a + 1)|{a: 10};{a: 2}|s:{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":\"integer\",\"nullable\":true,\"metadata\":{\"delta.typeChanges\":[{\"fromType\":\"short\",\"toType\":\"integer\"}]}}]}"
	"map value|m MAP<STRING, SMALLINT>|(map('a', 1))|m MAP<STRING, INT>|(map('a', 2))|1 = 1|WHEN MATCHED THEN UPDATE SET t.m = s.m|{a=2}|m:{\"type\":\"map\",\"keyType\":\"string\",\"valueType\":\"integer\",\"valueContainsNull\":true}:[{\"fromType\":\"short\",\"toType\":\"integer\",\"fieldPath\":\"value\"}]"
	"array element|a ARRAY<SMALLINT>|(array(1, 2))|a ARRAY<INT>|(array(3, 4))|t.a != s.a|WHEN MATCHED THEN UPDATE SET t.a = s.a|[3, 4]|a:{\"type\":\"array\",\"elementType\":\"integer\",\"containsNull\":true}:[{\"fromType\":\"short\",\"toType\":\"integer\",\"fieldPath\":\"element\"}]"
	"multiple automatic widening|a TINYINT, b SMALLINT|(1, 2)|a SMALLINT, b INT|(1, 4), (5, 6)|t.a = s.a|WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *|1,4;5,6|a:short:[{\"fromType\":\"byte\",\"toType\":\"short\"}];b:integer:[{\"fromType\":\"short\",\"toType\":\"integer\"}]"
	"map key and array of struct|m MAP<SMALLINT, ARRAY<STRUCT<x: TINYINT, y: STRING>>>|(map(1, array(named_struct('x', 1, 'y', 'a'))))|m MAP<INT, ARRAY<STRUCT<x: SMALLINT, y: STRING>>>|(map(2, array(named_struct('x', 100, 'y', 'b'))))|1 = 1|WHEN MATCHED THEN UPDATE SET *|{2=[{x: 100, y: b}]}|m:{\"type\":\"map\",\"keyType\":\"integer\",\"valueType\":{\"type\":\"array\",\"elementType\":{\"type\":\"struct\",\"fields\":[{\"name\":\"x\",\"type\":\"short\",\"nullable\":true,\"metadata\":{\"delta.typeChanges\":[{\"fromType\":\"byte\",\"toType\":\"short\"}]}},{\"name\":\"y\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}}]},\"containsNull\":true},\"valueContainsNull\":true}:[{\"fromType\":\"short\",\"toType\":\"integer\",\"fieldPath\":\"key\"}]"
)
for tprops in "" ", 'delta.enableDeletionVectors' = 'true'" ", 'delta.columnMapping.mode' = 'name'"; do
	for c in "${cases[@]}"; do
		IFS='|' read -r name tddl trows sddl srows on clauses want wschema <<<"$c"
		for evo in "" "WITH SCHEMA EVOLUTION"; do
			new_wh
			out=$(sql "$wh" "CREATE TABLE t ($tddl) USING DELTA LOCATION '$t'
  TBLPROPERTIES ('delta.enableTypeWidening' = 'true'$tprops);
INSERT INTO t VALUES $trows;
CREATE TABLE s ($sddl) USING DELTA; INSERT INTO s VALUES $srows;
MERGE $evo INTO t USING s ON $on $clauses") || {
				fail "$name ($evo$tprops): $out"
				continue
			}
			got=$(q "$wh" "SELECT * FROM t" | tr -d '"' | LC_ALL=C sort | paste -sd';')
			check "$name rows ($evo$tprops)" "$got" "$want"
			if [ -n "$evo" ]; then
				check "$name schema ($tprops)" "$(fields_of "$t")" "$wschema"
				# the widening is a schema change Spark records with its feature
				jq -e -s '[.[] | select(.protocol)] | last | .protocol.writerFeatures | index("typeWidening")' \
					"$t"/_delta_log/*.json >/dev/null || fail "$name: no typeWidening feature"
			else
				check "$name schema without evolution ($tprops)" "$(fields_of "$t" | grep -c typeChanges)" 0
			fi
		done
	done
done

# ---- a column-mapping table keeps the widened column's id and physical name ----
new_wh
sql "$wh" "CREATE TABLE t (a SMALLINT, b STRING) USING DELTA LOCATION '$t'
  TBLPROPERTIES ('delta.enableTypeWidening' = 'true', 'delta.columnMapping.mode' = 'name');
INSERT INTO t VALUES (1, 'x');" >/dev/null || fail "cm: create"
before=$(schema_of "$t" | jq -c '.fields[0].metadata | del(.["delta.typeChanges"])')
sql "$wh" "CREATE TABLE s (a INT, b STRING) USING DELTA; INSERT INTO s VALUES (1, 'y'), (70000, 'z');
MERGE WITH SCHEMA EVOLUTION INTO t USING s ON t.a = s.a WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *" \
	>/dev/null || fail "cm: merge"
check "cm: id and physical name" "$(schema_of "$t" | jq -c '.fields[0].metadata | del(.["delta.typeChanges"])')" "$before"
check "cm: type change" "$(schema_of "$t" | jq -c '.fields[0].metadata["delta.typeChanges"]')" \
	'[{"fromType":"short","toType":"integer"}]'
check "cm: rows" "$(q "$wh" "SELECT a, b FROM t ORDER BY a" | paste -sd';')" "1,y;70000,z"

# ---- no widening under a CHECK constraint or a generated column
# (TypeWideningConstraintsSuite, TypeWideningGeneratedColumnsSuite) ----
tree() { (cd "$1" && find . -type f -exec md5sum {} + | sort); }
refused() { # what dir class statements
	local before
	before=$(tree "$2")
	if sql "$wh" "$4" >/dev/null; then
		fail "$1: succeeded"
	elif ! grep -q "\[$3\]" "$tmp/err"; then
		fail "$1: $(head -2 "$tmp/err"), expected $3"
	fi
	[ "$(tree "$2")" = "$before" ] || fail "$1: the table changed"
}
new_wh
sql "$wh" "CREATE TABLE t (a TINYINT) USING DELTA LOCATION '$t' TBLPROPERTIES ('delta.enableTypeWidening' = 'true');
ALTER TABLE t ADD CONSTRAINT ck CHECK (hash(a) > 0); INSERT INTO t VALUES (2);
CREATE TABLE s (a INT) USING DELTA; INSERT INTO s VALUES (200)" >/dev/null || fail "check: setup $(head -2 "$tmp/err")"
refused "check constraint" "$t" DELTA_CONSTRAINT_DATA_TYPE_MISMATCH \
	"MERGE WITH SCHEMA EVOLUTION INTO t USING s ON t.a = s.a WHEN NOT MATCHED THEN INSERT *"
grep -q 'Column a has data type TINYINT and cannot be altered to data type INT' "$tmp/err" &&
	grep -q 'delta.constraints.ck -> hash' "$tmp/err" || fail "check constraint: message $(cat "$tmp/err")"
new_wh
sql "$wh" "CREATE TABLE t (a STRUCT<x: TINYINT, y: TINYINT>) USING DELTA LOCATION '$t' TBLPROPERTIES ('delta.enableTypeWidening' = 'true');
ALTER TABLE t ADD CONSTRAINT ck CHECK (hash(a.x) > 0); INSERT INTO t VALUES (named_struct('x', 2, 'y', 3));
CREATE TABLE s (a STRUCT<x: INT, y: TINYINT>) USING DELTA; INSERT INTO s VALUES (named_struct('x', 200, 'y', 5));
CREATE TABLE s2 (a STRUCT<x: TINYINT, y: INT>) USING DELTA; INSERT INTO s2 VALUES (named_struct('x', 2, 'y', 500))" >/dev/null ||
	fail "nested check: setup $(head -2 "$tmp/err")"
refused "nested check constraint" "$t" DELTA_CONSTRAINT_DATA_TYPE_MISMATCH \
	"MERGE WITH SCHEMA EVOLUTION INTO t USING s ON 0 = 1 WHEN NOT MATCHED THEN INSERT *"
grep -q 'Column a.x has data type TINYINT' "$tmp/err" || fail "nested check constraint: message $(head -2 "$tmp/err")"
sql "$wh" "MERGE WITH SCHEMA EVOLUTION INTO t USING s2 ON 0 = 1 WHEN NOT MATCHED THEN INSERT *" >/dev/null ||
	fail "a.y is not referenced: $(head -2 "$tmp/err")"
check "a.y widened" "$(fields_of "$t" | grep -o '"name":"y","type":"integer"')" '"name":"y","type":"integer"'
new_wh
sql "$wh" "CREATE TABLE t (a SMALLINT, g INT GENERATED ALWAYS AS (a + 1)) USING DELTA LOCATION '$t' TBLPROPERTIES ('delta.enableTypeWidening' = 'true');
INSERT INTO t (a) VALUES (1); CREATE TABLE s (a INT) USING DELTA; INSERT INTO s VALUES (70000)" >/dev/null ||
	fail "generated: setup $(head -2 "$tmp/err")"
refused "generated column" "$t" DELTA_GENERATED_COLUMNS_DATA_TYPE_MISMATCH \
	"MERGE WITH SCHEMA EVOLUTION INTO t USING s ON t.a = s.a WHEN NOT MATCHED THEN INSERT *"
grep -q 'g -> a + 1' "$tmp/err" || fail "generated column: message $(head -3 "$tmp/err")"

if [ "$fails" -gt 0 ]; then
	echo "$fails failure(s)" >&2
	exit 1
fi
echo "merge_type_widening: all passed"
