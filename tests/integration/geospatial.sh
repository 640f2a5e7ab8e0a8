#!/usr/bin/env bash
# Geospatial tables end to end through the CLI: the kernel-data table with
# geometry/geography columns opens (schema, protocol, an empty scan); a new
# table with geo columns is created (geospatial feature), WKB values are
# written from a Parquet file DuckDB made, read back byte for byte, the
# stats carry only null counts for geo columns, and DuckDB reads the data
# file's columns as GEOMETRY with the same points.
# Needs DL_CLI, DL_SHARED_DIR and DL_ORACLE_DIR.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
: "${DL_SHARED_DIR:?DL_SHARED_DIR must name the shared directory}"
: "${DL_ORACLE_DIR:?DL_ORACLE_DIR must name tools/oracle}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
run() {
	"$DL_CLI" "$@" >"$tmp/out" 2>"$tmp/err" || fail "deltalake $* failed: $(head -c 300 "$tmp/err")"
}
contains() { grep -qF -- "$2" "$1" || fail "$1 lacks '$2': $(head -c 600 "$1")"; }
duck() { (cd "$DL_ORACLE_DIR" && node --input-type=module -e "$1"); }

# ---- the conformance table ----
geo=$DL_SHARED_DIR/conformance/kernel-data/table-with-geo
run schema "$geo" --format csv
contains "$tmp/out" "geom,GEOMETRY(OGC:CRS84)"
contains "$tmp/out" "geog,\"GEOGRAPHY(OGC:CRS84, spherical)\""
run protocol "$geo"
contains "$tmp/out" "geospatial"
run cat "$geo" --format csv
[ "$(cat "$tmp/out")" = "geom,geog" ] || fail "empty scan of table-with-geo printed: $(head -c 300 "$tmp/out")"

# ---- create, write, read back ----
t=$tmp/t
run create "$t" -s "id BIGINT, g GEOMETRY, h GEOGRAPHY(EPSG:4326, karney)"
contains "$t/_delta_log/00000000000000000000.json" '"readerFeatures":["geospatial"]'
contains "$t/_delta_log/00000000000000000000.json" '\"type\":\"geography(EPSG:4326, karney)\"'
POINT=0101000000000000000000F03F0000000000000040
LINE=0102000000020000000000000000000000000000000000000000000000000008400000000000001040
duck "
import {createRequire} from 'module';
const {DuckDBInstance} = createRequire(process.cwd() + '/')('@duckdb/node-api');
const con = await (await DuckDBInstance.create(':memory:')).connect();
await con.run(\`COPY (SELECT * FROM (VALUES (1::BIGINT, from_hex('$POINT'), from_hex('$LINE')),
  (2, NULL, NULL), (3, from_hex('$LINE'), NULL)) v(id, g, h)) TO '$tmp/in.parquet'\`);
" || fail "DuckDB could not make the input file"
run write "$t" -i "$tmp/in.parquet" -m append
run cat "$t" --format csv
printf "id,g,h\n1,X'%s',X'%s'\n2,,\n3,X'%s',\n" "$POINT" "$LINE" "$LINE" >"$tmp/want"
cmp -s "$tmp/out" "$tmp/want" || fail "read back: $(cat "$tmp/out") expected $(cat "$tmp/want")"
log1=$t/_delta_log/00000000000000000001.json
contains "$log1" '\"minValues\":{\"id\":1}'
contains "$log1" '\"maxValues\":{\"id\":3}'
contains "$log1" '\"nullCount\":{\"id\":0,\"g\":1,\"h\":2}'
file=$(ls "$t"/*.parquet | head -1)
duck "
import {createRequire} from 'module';
const {DuckDBInstance} = createRequire(process.cwd() + '/')('@duckdb/node-api');
const con = await (await DuckDBInstance.create(':memory:')).connect();
const r = await con.runAndReadAll(\`SELECT id, typeof(g), g::VARCHAR, h::VARCHAR, hex(ST_AsWKB(h))
  FROM read_parquet('$file') ORDER BY id\`);
console.log(JSON.stringify(r.getRowsJson()));
" >"$tmp/duck" 2>&1 || fail "DuckDB could not read $file: $(head -c 300 "$tmp/duck")"
contains "$tmp/duck" '["1","GEOMETRY","POINT (1 2)","LINESTRING (0 0, 3 4)","'$LINE'"],["2","GEOMETRY",null,null,null],["3","GEOMETRY","LINESTRING (0 0, 3 4)",null,null]'

[ "$fails" -eq 0 ] && echo "geospatial: ok"
exit $((fails > 0))
