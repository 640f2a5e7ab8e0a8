#!/usr/bin/env bash
# UniForm Iceberg with arrays and maps (docs/UNIFORM.md, "Nested ids"):
# under IcebergCompatV2 every list element and map key/value gets an id in
# delta.columnMapping.nested.ids (after the column ids, maxColumnId raised
# past them, existing ones kept), the data files carry them as Parquet
# field ids, and the Iceberg schema as element-id / key-id / value-id. The
# independent reader (uniform_check.mjs rows-json) resolves every nested
# node of every file by those ids and must see exactly our rows, after
# CREATE + write, ALTER ADD COLUMNS, a schema-evolving write and REORG ...
# UPGRADE UNIFORM of a table that had none; a wrong
# element-id in the metadata makes it fail. Needs DL_CLI and DL_ORACLE_DIR.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
: "${DL_ORACLE_DIR:?DL_ORACLE_DIR must name tools/oracle}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
ice() { (cd "$DL_ORACLE_DIR" && node "$here/uniform_check.mjs" "$@"); }
sql() { "$DL_CLI" -q sql "$@" >/dev/null; }
version() { "$DL_CLI" detail "$1" --format jsonl | sed 's/.*"version":\([0-9]*\).*/\1/'; }
same_rows() { # WHAT: the Iceberg rows (JSON) against ours at the converted version
	[ "$(ice prop "$t" converted_delta_version)" = "$(version "$t")" ] || fail "$1: not converted"
	ice rows-json "$t" >"$tmp/ice.rows" || { fail "$1: the Iceberg reader failed"; return; }
	"$DL_CLI" cat "$t" --format jsonl | sort >"$tmp/ours.rows"
	[ -s "$tmp/ours.rows" ] || fail "$1: no rows"
	cmp -s "$tmp/ice.rows" "$tmp/ours.rows" || { fail "$1: Iceberg rows differ from ours"; diff "$tmp/ice.rows" "$tmp/ours.rows" | head -5 >&2; }
}
schema_json() { # the newest metaData's schemaString
	cat "$t"/_delta_log/*.json | grep '"metaData"' | tail -1 |
		node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).metaData.schemaString))'
}

t=$tmp/t
T="delta.\`$t\`"
sql "CREATE TABLE $T (id INT, a ARRAY<INT>, m MAP<STRING, STRUCT<x INT, y STRING>>,
       l ARRAY<STRUCT<p INT, q ARRAY<INT>>>) USING DELTA
     TBLPROPERTIES ('delta.enableIcebergCompatV2' = 'true', 'delta.universalFormat.enabledFormats' = 'iceberg')" || fail "create"
cat >"$tmp/in1.jsonl" <<'EOF'
{"id":1,"a":[1,2,null],"m":{"k":{"x":5,"y":"yy"},"k2":null},"l":[{"p":1,"q":[7,8]},{"p":null,"q":null}]}
{"id":2,"a":null,"m":null,"l":[]}
{"id":3,"a":[],"m":{},"l":null}
EOF
"$DL_CLI" -q write "$t" -i "$tmp/in1.jsonl" -m append >/dev/null || fail "write 1"

# The ids as Spark assigns them: columns 1..8 (pre-order), then the nested
# ones from 9 in pre-order, keyed by the nearest field's physical name.
schema_json >"$tmp/schema.json"
node -e '
const s = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const f = Object.fromEntries(s.fields.map((x) => [x.name, x]));
const ph = (x) => x.metadata["delta.columnMapping.physicalName"];
const ids = (x) => x.metadata["delta.columnMapping.nested.ids"];
const want = (c, o) => { if (JSON.stringify(ids(c)) !== JSON.stringify(o)) { console.error(c.name, JSON.stringify(ids(c)), "!=", JSON.stringify(o)); process.exit(1); } };
want(f.a, {[ph(f.a) + ".element"]: 9});
want(f.m, {[ph(f.m) + ".key"]: 10, [ph(f.m) + ".value"]: 11});
want(f.l, {[ph(f.l) + ".element"]: 12});
const q = f.l.type.elementType.fields.find((x) => x.name === "q");
want(q, {[ph(q) + ".element"]: 13});
// Spark (rewriteFieldIdsForIceberg) puts the key on every struct field at every depth, {} when
// nothing below it is an array or map, after the id and physical name.
want(f.id, {});
const p = f.l.type.elementType.fields.find((x) => x.name === "p");
want(p, {});
for (const x of f.m.type.valueType.fields) want(x, {});
const keys = JSON.stringify(Object.keys(f.id.metadata));
if (keys !== JSON.stringify(["delta.columnMapping.id", "delta.columnMapping.physicalName", "delta.columnMapping.nested.ids"])) {
	console.error("metadata keys", keys); process.exit(1); }
' "$tmp/schema.json" || fail "nested ids are not Spark's"
# A V2 table without arrays or maps: every field, nested ones too, has Spark's empty object
# (the schemaString byte for byte, physical names aside).
v=$tmp/v
sql "CREATE TABLE delta.\`$v\` (c1 INT, s STRUCT<a: INT, b: STRING>) USING DELTA
     TBLPROPERTIES ('delta.enableIcebergCompatV2' = 'true', 'delta.universalFormat.enabledFormats' = 'iceberg')" || fail "create v"
cat >"$tmp/v.want" <<'EOF'
{"type":"struct","fields":[{"name":"c1","type":"integer","nullable":true,"metadata":{"delta.columnMapping.id":1,"delta.columnMapping.physicalName":"P","delta.columnMapping.nested.ids":{}}},{"name":"s","type":{"type":"struct","fields":[{"name":"a","type":"integer","nullable":true,"metadata":{"delta.columnMapping.id":3,"delta.columnMapping.physicalName":"P","delta.columnMapping.nested.ids":{}}},{"name":"b","type":"string","nullable":true,"metadata":{"delta.columnMapping.id":4,"delta.columnMapping.physicalName":"P","delta.columnMapping.nested.ids":{}}}]},"nullable":true,"metadata":{"delta.columnMapping.id":2,"delta.columnMapping.physicalName":"P","delta.columnMapping.nested.ids":{}}}]}
EOF
t=$v schema_json | sed 's/"col-[0-9a-f-]*"/"P"/g' >"$tmp/v.got"
cmp -s "$tmp/v.want" "$tmp/v.got" || { fail "V2 schema without arrays is not Spark's"; diff "$tmp/v.want" "$tmp/v.got" >&2; }
"$DL_CLI" detail "$v" --format jsonl | grep -q '"delta.columnMapping.maxColumnId":"4"' || fail "v: maxColumnId changed"
# a second metaData (ALTER) keeps them and adds one to the new column
sql "ALTER TABLE delta.\`$v\` ADD COLUMNS (c2 BIGINT)" || fail "alter v"
[ "$(t=$v schema_json | grep -o '"delta.columnMapping.nested.ids":{}' | wc -l)" = 5 ] || fail "v: ALTER lost or missed an empty nested.ids"
"$DL_CLI" detail "$t" --format jsonl | grep -q '"delta.columnMapping.maxColumnId":"13"' || fail "maxColumnId does not cover the nested ids"
same_rows create+write

# ALTER ADD COLUMNS: new nodes get new ids, the old ones stay.
sql "ALTER TABLE $T ADD COLUMNS (mm MAP<INT, ARRAY<STRING>>)" || fail "alter add"
schema_json | node -e '
let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const f=JSON.parse(s).fields;
const mm=f.find((x)=>x.name==="mm"), a=f.find((x)=>x.name==="a");
const p=mm.metadata["delta.columnMapping.physicalName"];
const got=JSON.stringify(mm.metadata["delta.columnMapping.nested.ids"]);
const want=JSON.stringify({[p+".key"]:15,[p+".value"]:16,[p+".value.element"]:17});
if (mm.metadata["delta.columnMapping.id"]!==14||got!==want||a.metadata["delta.columnMapping.nested.ids"][a.metadata["delta.columnMapping.physicalName"]+".element"]!==9){console.error(got,"!=",want);process.exit(1)}})' ||
	fail "ALTER ADD COLUMNS: nested ids"
cat >"$tmp/in2.jsonl" <<'EOF'
{"id":4,"a":[4],"m":{"z":{"x":null,"y":"q"}},"l":[{"p":2,"q":[]}],"mm":{"1":["u","v"],"2":null}}
EOF
"$DL_CLI" -q write "$t" -i "$tmp/in2.jsonl" -m append >/dev/null || fail "write 2"
same_rows alter

# A schema-evolving write: the new column's ids are in its own files.
cat >"$tmp/in3.jsonl" <<'EOF'
{"id":5,"e":[[1,2],[3]]}
EOF
"$DL_CLI" -q write "$t" -i "$tmp/in3.jsonl" -m append --merge-schema >/dev/null 2>"$tmp/err" ||
	{ fail "merge-schema write"; cat "$tmp/err" >&2; }
schema_json | grep -q 'element.element' || fail "merge-schema: the nested array lacks its ids"
same_rows merge-schema
[ "$(ice check-avro "$t")" = ok ] || fail "the Avro files do not follow the spec's schemas"

# A schema-evolving MERGE: the new array column's ids reach the files it
# rewrites (UPDATE SET *) as well as its inserts.
cat >"$tmp/in5.jsonl" <<'EOF'
{"id":1,"f":[10,11]}
{"id":6,"f":[12]}
EOF
"$DL_CLI" -q merge "$t" --source "$tmp/in5.jsonl" --alias t,s --on "t.id = s.id" --schema-evolution \
	--when "MATCHED THEN UPDATE SET *" --when "NOT MATCHED THEN INSERT *" >/dev/null 2>"$tmp/err" ||
	{ fail "merge with evolution"; cat "$tmp/err" >&2; }
schema_json | node -e '
let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const f=JSON.parse(s).fields.find((x)=>x.name==="f");
const p=f&&f.metadata["delta.columnMapping.physicalName"];
if(!f||typeof f.metadata["delta.columnMapping.nested.ids"][p+".element"]!=="number"){console.error(JSON.stringify(f));process.exit(1)}})' ||
	fail "merge: the new array column lacks its nested id"
same_rows merge-evolution

# REORG ... UPGRADE UNIFORM of a (1,2) table with arrays: the one property commit sets V2 (so
# the nested ids exist before the rewrite) and Spark's minReaderVersion 3 / minWriterVersion 7;
# the rewritten files carry the ids the Iceberg reader resolves.
r=$tmp/r
R="delta.\`$r\`"
sql "CREATE TABLE $R (id INT, a ARRAY<STRUCT<p INT, q MAP<STRING, INT>>>) USING DELTA" || fail "reorg create"
cat >"$tmp/in4.jsonl" <<'EOF'
{"id":1,"a":[{"p":1,"q":{"x":1}},null]}
{"id":2,"a":null}
EOF
"$DL_CLI" -q write "$r" -i "$tmp/in4.jsonl" -m append >/dev/null || fail "reorg write"
sql "REORG TABLE $R APPLY (UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION=2))" || fail "reorg"
grep -h '"commitInfo"' "$r/_delta_log/00000000000000000002.json" | grep -qF '"operation":"REORG TABLE UPGRADE UNIFORM","operationParameters":{"properties":"{\"delta.enableIcebergCompatV2\":\"true\",\"delta.columnMapping.mode\":\"name\",\"delta.enableDeletionVectors\":\"false\",\"delta.minWriterVersion\":\"7\",\"delta.minReaderVersion\":\"3\"}"}' ||
	fail "reorg: the property commit is not Spark's UpgradeUniformProperties"
grep -h '"protocol"' "$r/_delta_log/00000000000000000002.json" | grep -q '"readerFeatures":\["columnMapping"\]' ||
	fail "reorg: reader version 3 without columnMapping in readerFeatures"
t=$r
same_rows reorg
t=$tmp/t

# The reader really checks the ids: a wrong element-id in the metadata fails it.
n=$(cat "$t/metadata/version-hint.text")
sed -i 's/"element-id":9,/"element-id":99,/g' "$t/metadata/v$n.metadata.json"
ice rows-json "$t" >/dev/null 2>&1 && fail "the reader accepted a wrong element-id"

[ "$fails" -eq 0 ] && echo "uniform_nested: ok"
exit $((fails > 0))
