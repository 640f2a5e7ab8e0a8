#!/usr/bin/env bash
# Arrow IPC interop with the apache-arrow npm package, both ways.
# libdeltalake writes a stream holding every Delta type (nested arbitrarily,
# with nulls); arrow-js reads it back and checks the schema and every value.
set -euo pipefail
: "${DL_BINARY_DIR:?}" "${DL_SOURCE_DIR:?}" "${DL_ORACLE_DIR:?}"
writer="$DL_BINARY_DIR/tests/test_columnar_ipc_writer"
for t in "$writer" "$DL_BINARY_DIR/tests/test_columnar_ipc_reader"; do
	if [ ! -x "$t" ]; then
		echo "missing $t: build the columnar test targets" >&2
		exit 1
	fi
done
if [ ! -d "$DL_ORACLE_DIR/node_modules/apache-arrow" ]; then
	echo "missing apache-arrow in $DL_ORACLE_DIR/node_modules" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$writer" --write "$tmp/sample.arrows"
node "$DL_SOURCE_DIR/tests/integration/arrow_ipc_check.mjs" "$DL_ORACLE_DIR" "$tmp/sample.arrows"

# The other direction: arrow-js writes a stream and a file (its defaults:
# date64, millisecond timestamps; nested lists and structs) and our IPC reader
# reads both, converted to Delta's types.
reader="$DL_BINARY_DIR/tests/test_columnar_ipc_reader"
node "$DL_SOURCE_DIR/tests/integration/arrow_ipc_js_writer.mjs" "$DL_ORACLE_DIR" "$tmp/js"
cat > "$tmp/expected" <<'ROWS'
STRUCT<i: INT, l: BIGINT, d: DOUBLE, s: STRING, b: BOOLEAN, dd: DATE, dm: DATE, ts: TIMESTAMP, tsn: TIMESTAMP_NTZ, lst: ARRAY<INT>, st: STRUCT<x: INT, y: STRING>>
{"i":1,"l":1,"d":1.5,"s":"a","b":true,"dd":"2020-01-01","dm":"2020-01-02","ts":"2021-09-08 11:11:11.123","tsn":null,"lst":[1,2],"st":{"x":1,"y":"p"}}
{"i":null,"l":-2,"d":null,"s":null,"b":false,"dd":null,"dm":"1900-01-01","ts":null,"tsn":"1969-12-31 23:59:59.999","lst":null,"st":null}
{"i":3,"l":null,"d":-0.25,"s":"héllo","b":null,"dd":"1969-12-31","dm":null,"ts":"1970-01-01 00:00:00","tsn":"2020-09-13 12:26:40","lst":[],"st":{"x":null,"y":"q"}}
ROWS
for f in "$tmp/js.arrows" "$tmp/js.arrow"; do
	"$reader" --read "$f" > "$tmp/got"
	if ! diff -u "$tmp/expected" "$tmp/got"; then
		echo "IPC reader output differs for $f" >&2
		exit 1
	fi
done
echo "IPC reader read arrow-js stream and file: all values match"
