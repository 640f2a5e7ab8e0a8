#!/usr/bin/env bash
# CONVERT TO DELTA iceberg.`path` (docs/UNIFORM.md): from a hand-made
# Iceberg v2 table written by uniform_check.mjs following the spec (avsc
# manifests, DuckDB Parquet files with field ids, identity partitions only
# in the manifests) and from the Iceberg metadata our own UniForm wrote:
# our reader then sees exactly the Iceberg rows. Merge-on-read deletes and
# partition evolution are refused, leaving no log. Needs DL_CLI and
# DL_ORACLE_DIR.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
: "${DL_ORACLE_DIR:?DL_ORACLE_DIR must name tools/oracle}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
ops() { # TABLE N: "operation parameters" of each commit after the first N
	for f in $(ls "$1"/_delta_log/*.json | tail -n +"$(($2 + 1))"); do grep '"commitInfo"' "$f" |
		node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const c=JSON.parse(s).commitInfo;console.log(c.operation+" "+JSON.stringify(c.operationParameters))})'; done
}
ice() { (cd "$DL_ORACLE_DIR" && node "$here/uniform_check.mjs" "$@"); }
sql() { "$DL_CLI" -q sql "$@" >/dev/null; }
ours() { "$DL_CLI" cat "$1" --format csv | tail -n +2 | sort; }

# 1. The hand-made fixture, through SQL and through the CLI.
for how in sql cli; do
	f=$tmp/fixture_$how
	ice fixture "$f" plain >"$tmp/expected" || { fail "$how: the fixture could not be written"; continue; }
	if [ "$how" = sql ]; then sql "CONVERT TO DELTA iceberg.\`$f\`" || fail "sql: convert failed"
	else "$DL_CLI" -q convert "$f" --source iceberg >/dev/null || fail "cli: convert failed"; fi
	ours "$f" >"$tmp/ours"
	cmp -s "$tmp/expected" "$tmp/ours" || { fail "$how: converted rows differ from the fixture's"; diff "$tmp/expected" "$tmp/ours" | head -5 >&2; }
	"$DL_CLI" detail "$f" --format jsonl | grep -q '"delta.columnMapping.mode":"id"' || fail "$how: not column mapping id mode"
	# Spark's IcebergTable.properties: the Iceberg properties, column mapping id, the log
	# retention from Iceberg's max snapshot age, (ours) maxColumnId
	grep -h '"metaData"' "$f"/_delta_log/*.json | node -e '
let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const c=JSON.parse(s).metaData.configuration;
const want={"write.parquet.compression-codec":"zstd","history.expire.max-snapshot-age-ms":"172800000","owner":"fixture",
  "delta.columnMapping.mode":"id","delta.logRetentionDuration":"172800000 millisecond","delta.columnMapping.maxColumnId":"4"};
if (JSON.stringify(c)!==JSON.stringify(want)) {console.error(JSON.stringify(c));process.exit(1)}})' ||
		fail "$how: the configuration is not the Iceberg properties Spark copies"
	"$DL_CLI" detail "$f" --format jsonl | grep -q '"partitionColumns":\["p"\]' || fail "$how: p is not the partition column"
	"$DL_CLI" history "$f" --format jsonl | grep -q '"sourceFormat":"iceberg"' || fail "$how: commitInfo lacks sourceFormat iceberg"
	[ "$("$DL_CLI" cat "$f" --where "p = 2" --format csv | tail -n +2 | wc -l)" = 10 ] || fail "$how: partition filter"
done
# Decimal and binary identity partitions (Avro fixed decimal and bytes in the manifests) become
# Delta partition values as the protocol serializes them: "1.50", "-2.25", the bytes' string.
f=$tmp/decbin
ice fixture "$f" decbin >"$tmp/expected" || fail "decbin: the fixture could not be written"
sql "CONVERT TO DELTA iceberg.\`$f\`" || fail "decbin: convert failed"
ours "$f" >"$tmp/ours"
cmp -s "$tmp/expected" "$tmp/ours" || { fail "decbin: converted rows differ from the fixture's"; diff "$tmp/expected" "$tmp/ours" | head -5 >&2; }
grep -h '"add"' "$f"/_delta_log/*.json | grep -o '"partitionValues":{[^}]*}' | sort >"$tmp/pv"
printf '%s\n' '"partitionValues":{"p":"-2.25","b":"\u0001A"}' '"partitionValues":{"p":"1.50","b":"é!"}' | sort >"$tmp/pv.want"
cmp -s "$tmp/pv" "$tmp/pv.want" || { fail "decbin: partition values are not the protocol's"; cat "$tmp/pv" >&2; }
"$DL_CLI" detail "$f" --format jsonl | grep -q '"partitionColumns":\["p","b"\]' || fail "decbin: p, b are not the partition columns"
[ "$("$DL_CLI" cat "$f" --where "p = -2.25" --format csv | tail -n +2 | wc -l)" = 10 ] || fail "decbin: decimal partition filter"
[ "$("$DL_CLI" cat "$f" --where "b = X'C3A921'" --format csv | tail -n +2 | wc -l)" = 5 ] || fail "decbin: binary partition filter"
# a binary value that is not UTF-8 cannot be a Delta partition string without loss: refused
f=$tmp/decbin_bad
ice fixture "$f" decbin_bad >/dev/null || fail "decbin_bad: fixture"
out=$("$DL_CLI" -q sql "CONVERT TO DELTA iceberg.\`$f\`" 2>&1) && fail "decbin_bad: accepted"
echo "$out" | grep -q "not UTF-8 text" || fail "decbin_bad: wrong error: $out"
[ -e "$f/_delta_log" ] && [ -n "$(ls -A "$f/_delta_log")" ] && fail "decbin_bad: a refused CONVERT left a log"

# Lists and maps (element-id, key-id, value-id): Delta arrays and maps whose element/key/value
# ids are kept in delta.columnMapping.nested.ids, the files (whose Parquet names are not the
# Iceberg names) read back by id: our rows equal the independent reader's (DuckDB resolving
# every nested node by its field id).
f=$tmp/nested
ice fixture "$f" nested >/dev/null || fail "nested: the fixture could not be written"
sql "CONVERT TO DELTA iceberg.\`$f\`" || fail "nested: convert failed"
ice rows-json "$f" >"$tmp/expected" || fail "nested: the Iceberg reader failed"
"$DL_CLI" cat "$f" --format jsonl | sort >"$tmp/ours"
[ "$(wc -l <"$tmp/ours")" = 12 ] || fail "nested: expected 12 rows"
cmp -s "$tmp/expected" "$tmp/ours" || { fail "nested: converted rows differ from the Iceberg reader's"; diff "$tmp/expected" "$tmp/ours" | head -5 >&2; }
grep -h '"metaData"' "$f"/_delta_log/*.json | node -e '
let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const md=JSON.parse(s).metaData;
const f=Object.fromEntries(JSON.parse(md.schemaString).fields.map((x)=>[x.name,x]));
const ids=(x)=>JSON.stringify(x.metadata["delta.columnMapping.nested.ids"]);
const want={tags:{"tags.element":6},attrs:{"attrs.key":7,"attrs.value":8},pts:{"pts.element":9},
  mm:{"mm.key":12,"mm.value":13,"mm.value.element":14}};
for (const [k,v] of Object.entries(want)) if (ids(f[k])!==JSON.stringify(v)) {console.error(k,ids(f[k]));process.exit(1)}
const x=f.pts.type.elementType.fields[0];
if (x.metadata["delta.columnMapping.id"]!==10||f.mm.type.valueType.containsNull!==false||f.tags.type.containsNull!==true) {console.error("types/ids");process.exit(1)}
if (md.configuration["delta.columnMapping.maxColumnId"]!=="14") {console.error("maxColumnId");process.exit(1)}})' ||
	fail "nested: the Delta schema does not carry the Iceberg ids"
# a file written after CONVERT carries the same ids on its element/key/value nodes
echo '{"id":99,"tags":["n"],"attrs":{"q":1},"pts":[{"x":1,"y":"y"}],"mm":{"w":[3]}}' >"$tmp/n.jsonl"
"$DL_CLI" -q write "$f" -i "$tmp/n.jsonl" -m append >/dev/null || fail "nested: append after convert"
new=$(grep -h '"add"' "$f"/_delta_log/00000000000000000001.json | sed 's/.*"path":"\([^"]*\)".*/\1/')
(cd "$DL_ORACLE_DIR" && node -e '
const {DuckDBInstance}=require("@duckdb/node-api");
(async()=>{const c=await (await DuckDBInstance.create(":memory:")).connect();
const r=(await c.runAndReadAll(`SELECT name, field_id FROM parquet_schema(${JSON.stringify(process.argv[1]).replaceAll("\"","\x27")})`)).getRows();
const ids=r.filter(([n])=>["element","key","value"].includes(n)).map(([n,i])=>n+"="+i).join(" ");
if (ids!=="element=6 key=7 value=8 element=9 key=12 value=13 element=14") {console.error(ids);process.exit(1)}})()' "$f/$new") ||
	fail "nested: the appended file lacks the Iceberg element/key/value ids"
[ "$("$DL_CLI" cat "$f" --format jsonl | wc -l)" = 13 ] || fail "nested: the appended row is not read"

# a second CONVERT of a Delta table does nothing
sql "CONVERT TO DELTA iceberg.\`$tmp/fixture_sql\`" || fail "re-convert failed"
[ "$(ls "$tmp/fixture_sql/_delta_log" | grep -c '\.json$')" = 1 ] || fail "re-convert committed"

# 2. Refusals: nothing written.
for kind in deletes evolved; do
	f=$tmp/$kind
	ice fixture "$f" "$kind" >/dev/null || { fail "$kind: fixture"; continue; }
	out=$("$DL_CLI" -q sql "CONVERT TO DELTA iceberg.\`$f\`" 2>&1) && fail "$kind: accepted"
	# Spark refuses with a plain UnsupportedOperationException, no error class
	echo "$out" | grep -q "nothing was converted" || fail "$kind: wrong error: $out"
	echo "$out" | grep -q "DELTA_" && fail "$kind: an error class Spark does not raise: $out"
	[ -e "$f/_delta_log" ] && [ -n "$(ls -A "$f/_delta_log")" ] && fail "$kind: a refused CONVERT left a log"
done
out=$("$DL_CLI" -q sql "CONVERT TO DELTA iceberg.\`$tmp/nothing\`" 2>&1) && fail "no metadata: accepted"
mkdir -p "$tmp/nothing"
out=$("$DL_CLI" -q sql "CONVERT TO DELTA iceberg.\`$tmp/nothing\`" 2>&1) && fail "no metadata: accepted"
echo "$out" | grep -q "no Iceberg metadata" || fail "no metadata: wrong error: $out"

# 3. From our own UniForm output: the Delta log moved away, the Iceberg metadata converted back.
u=$tmp/uniform
U="delta.\`$u\`"
sql "CREATE TABLE $U (id BIGINT, name STRING, g INT, s STRUCT<a: INT, b: STRING>) USING DELTA PARTITIONED BY (g)
     TBLPROPERTIES ('delta.enableIcebergCompatV2' = 'true', 'delta.universalFormat.enabledFormats' = 'iceberg')" || fail "uniform create"
sql "INSERT INTO $U SELECT id, 'n' || CAST(id AS STRING), CAST(id % 3 AS INT), named_struct('a', CAST(id AS INT), 'b', 'x') FROM range(0, 50)" || fail "uniform insert"
sql "DELETE FROM $U WHERE id % 7 = 1" || fail "uniform delete"
sql "UPDATE $U SET name = 'u' WHERE g = 1" || fail "uniform update"
ours "$u" >"$tmp/before"
ice rows "$u" >"$tmp/ice" || fail "uniform: Iceberg reader"
mv "$u/_delta_log" "$tmp/old_log"
# Spark refuses an Iceberg table with a name mapping, which UniForm writes; nothing is written
out=$("$DL_CLI" -q sql "CONVERT TO DELTA iceberg.\`$u\`" 2>&1) && fail "uniform: a table with a name mapping was converted"
echo "$out" | grep -q "Cannot convert Iceberg tables with column name mapping" || fail "uniform: wrong refusal: $out"
[ -e "$u/_delta_log" ] && [ -n "$(ls -A "$u/_delta_log")" ] && fail "uniform: a refused CONVERT left a log"
# once an Iceberg engine removed it (a new metadata version), the table converts
ice unset-prop "$u" schema.name-mapping.default || fail "uniform: unset-prop"
sql "CONVERT TO DELTA iceberg.\`$u\`" || fail "uniform: convert failed"
grep -h '"metaData"' "$u"/_delta_log/*.json | grep -q '"converted_delta_version":"3"' ||
	fail "uniform: the Iceberg properties were not copied"
grep -h '"metaData"' "$u"/_delta_log/*.json | grep -q '"delta.logRetentionDuration":"432000000 millisecond"' ||
	fail "uniform: the log retention is not Iceberg's default max snapshot age"
ours "$u" >"$tmp/after"
cmp -s "$tmp/before" "$tmp/after" || { fail "uniform: rows after CONVERT differ"; diff "$tmp/before" "$tmp/after" | head -5 >&2; }
[ "$(wc -l <"$tmp/after")" -gt 30 ] || fail "uniform: too few rows"

# Our own UniForm output with arrays and maps, converted back: the ids our IcebergCompatV2
# assigned come back as the Delta ids and nested ids, the rows equal.
u=$tmp/uniform_nested
sql "CREATE TABLE delta.\`$u\` (id INT, a ARRAY<INT>, m MAP<STRING, STRUCT<x: INT, q: ARRAY<STRING>>>) USING DELTA
     TBLPROPERTIES ('delta.enableIcebergCompatV2' = 'true', 'delta.universalFormat.enabledFormats' = 'iceberg')" || fail "uniform nested create"
printf '%s\n' '{"id":1,"a":[1,null],"m":{"k":{"x":1,"q":["s",null]},"n":null}}' '{"id":2,"a":null,"m":{}}' >"$tmp/un.jsonl"
"$DL_CLI" -q write "$u" -i "$tmp/un.jsonl" -m append >/dev/null || fail "uniform nested write"
"$DL_CLI" cat "$u" --format jsonl | sort >"$tmp/before"
ice rows-json "$u" >"$tmp/ice" || fail "uniform nested: Iceberg reader"
cmp -s "$tmp/before" "$tmp/ice" || fail "uniform nested: Iceberg rows differ before CONVERT"
grep -h '"metaData"' "$u"/_delta_log/*.json | tail -1 | grep -o '"delta.columnMapping.nested.ids[^}]*}' | grep -v ':{}' | sed 's/col-[0-9a-f-]*\././g' >"$tmp/ids.before"
mv "$u/_delta_log" "$tmp/old_log_nested"
ice unset-prop "$u" schema.name-mapping.default || fail "uniform nested: unset-prop"
sql "CONVERT TO DELTA iceberg.\`$u\`" || fail "uniform nested: convert failed"
"$DL_CLI" cat "$u" --format jsonl | sort >"$tmp/after"
cmp -s "$tmp/before" "$tmp/after" || { fail "uniform nested: rows after CONVERT differ"; diff "$tmp/before" "$tmp/after" | head -5 >&2; }
grep -h '"metaData"' "$u"/_delta_log/*.json | grep -o '"delta.columnMapping.nested.ids[^}]*}' | sed 's/\\"[a-z]*\./\\"./g' >"$tmp/ids.after"
[ -s "$tmp/ids.after" ] && cmp -s "$tmp/ids.before" "$tmp/ids.after" ||
	{ fail "uniform nested: the nested ids are not the ones UniForm assigned"; cat "$tmp/ids.before" "$tmp/ids.after" >&2; }

# A new Delta table where an older one's Iceberg metadata remains: a fresh Iceberg history.
rm -rf "$tmp/old_log"
x=$tmp/recreated
sql "CREATE TABLE delta.\`$x\` (a INT) TBLPROPERTIES ('delta.enableIcebergCompatV2' = 'true', 'delta.universalFormat.enabledFormats' = 'iceberg')" || fail "recreate 1"
sql "INSERT INTO delta.\`$x\` VALUES (1), (2)" || fail "recreate insert"
rm -rf "$x/_delta_log"
sql "CREATE TABLE delta.\`$x\` (a INT) TBLPROPERTIES ('delta.enableIcebergCompatV2' = 'true', 'delta.universalFormat.enabledFormats' = 'iceberg')" || fail "recreate 2"
[ "$(ice prop "$x" converted_delta_version)" = 0 ] || fail "recreated: converted_delta_version is not 0"
[ -z "$(ice rows "$x")" ] || fail "recreated: the old rows are still seen through Iceberg"

# 4. REORG TABLE ... APPLY (UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION=2)) on a table with deletion
# vectors and without column mapping: DVs purged, files rewritten with field ids and tagged,
# UniForm enabled, the Iceberg rows equal ours; a second REORG rewrites nothing.
r=$tmp/reorg
R="delta.\`$r\`"
sql "CREATE TABLE $R (id INT, name STRING) USING DELTA TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')" || fail "reorg create"
sql "INSERT INTO $R SELECT id, 'x' FROM range(0, 100)" || fail "reorg insert"
sql "INSERT INTO $R SELECT id, 'y' FROM range(100, 150)" || fail "reorg insert 2"
sql "DELETE FROM $R WHERE id % 3 = 0" || fail "reorg delete"
ours "$r" >"$tmp/before"
n0=$(ls "$r"/_delta_log/*.json | wc -l)
sql "REORG TABLE $R APPLY (UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION=2))" || fail "reorg failed"
# Spark's ReorgTableForUpgradeUniformHelper: one UpgradeUniformProperties commit, the REORG
# rewrite, then SET TBLPROPERTIES of enabledFormats alone.
cat >"$tmp/ops.want" <<'EOF'
REORG TABLE UPGRADE UNIFORM {"properties":"{\"delta.enableIcebergCompatV2\":\"true\",\"delta.columnMapping.mode\":\"name\",\"delta.enableDeletionVectors\":\"false\"}"}
REORG {"predicate":"[]","applyPurge":true}
SET TBLPROPERTIES {"properties":"{\"delta.universalFormat.enabledFormats\":\"iceberg\"}"}
EOF
ops "$r" "$n0" >"$tmp/ops.got"
cmp -s "$tmp/ops.want" "$tmp/ops.got" || { fail "reorg: the commits are not Spark's"; diff "$tmp/ops.want" "$tmp/ops.got" >&2; }
ours "$r" >"$tmp/after"
cmp -s "$tmp/before" "$tmp/after" || fail "reorg changed the rows"
ice rows "$r" >"$tmp/ice" || fail "reorg: Iceberg reader"
cmp -s "$tmp/ice" "$tmp/after" || fail "reorg: Iceberg rows differ from ours"
"$DL_CLI" detail "$r" --format jsonl | grep -q '"delta.enableDeletionVectors":"false"' || fail "reorg: DVs still enabled"
"$DL_CLI" detail "$r" --format jsonl | grep -q '"delta.columnMapping.mode":"name"' || fail "reorg: no column mapping"
"$DL_CLI" protocol "$r" --format csv | grep -q icebergCompatV2 || fail "reorg: no icebergCompatV2"
grep -h '"add"' "$r"/_delta_log/*.json | tail -1 | grep -q '"ICEBERG_COMPAT_VERSION":"2"' || fail "reorg: rewritten file not tagged"
# the rewrite commit is Spark's DeltaOperations.Reorg: predicate and applyPurge (default true)
grep -h '"operation":"REORG"' "$r"/_delta_log/*.json | tail -1 | grep -q '"operationParameters":{"predicate":"\[\]","applyPurge":true}' ||
	fail "reorg: operationParameters are not Spark's: $(grep -h '"operation":"REORG"' "$r"/_delta_log/*.json | tail -1)"
n=$(ls "$r"/_delta_log/*.json | wc -l)
sql "REORG TABLE $R APPLY (UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION=2))" || fail "second reorg failed"
[ "$(ls "$r"/_delta_log/*.json | wc -l)" = "$n" ] || fail "second reorg committed: $(ops "$r" "$n")"
out=$("$DL_CLI" -q sql "REORG TABLE $R APPLY (UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION=3))" 2>&1) && fail "compat 3 accepted"

[ "$fails" -eq 0 ] && echo "uniform_convert: ok"
exit $((fails > 0))
