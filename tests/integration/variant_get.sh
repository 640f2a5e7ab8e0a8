#!/usr/bin/env bash
# variant_get from the CLI: a table with a VARIANT column written by SQL
# (parse_json), filtered with `cat --where` and SQL WHERE on variant paths.
# The ids equal DuckDB's (variant_extract over our VARIANT-annotated
# files); variant_get fails with INVALID_VARIANT_CAST on a value it cannot
# cast where try_variant_get gives NULL; the add action's nullCount of the
# variant column is one number (PROTOCOL.md "Statistics for Variant
# Columns"). Needs DL_CLI and DL_ORACLE_DIR.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
: "${DL_ORACLE_DIR:?DL_ORACLE_DIR must name tools/oracle}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

t="$tmp/docs"
"$DL_CLI" sql "CREATE TABLE delta.\`$t\` (id INT, v VARIANT) USING delta;
INSERT INTO delta.\`$t\` VALUES (1, parse_json('{\"a\":1}')), (2, parse_json('{\"a\":15}')),
  (3, parse_json('{\"a\":\"20\"}')), (4, parse_json('{\"a\":{\"b\":3}}')), (5, parse_json('{\"b\":99}')),
  (6, NULL), (7, parse_json('{\"a\":null}')), (8, parse_json('{\"a\":12.5}')), (9, parse_json('[1,2]'))" \
	>/dev/null 2>"$tmp/err" || fail "create/insert: $(cat "$tmp/err")"

"$DL_CLI" cat "$t" --where "try_variant_get(v, '\$.a', 'int') > 10" --columns id --format csv \
	>"$tmp/out" 2>"$tmp/err" || fail "cat --where: $(cat "$tmp/err")"
printf 'id\n2\n3\n8\n' | cmp -s - "$tmp/out" || fail "cat --where try_variant_get: $(cat "$tmp/out")"
(cd "$DL_ORACLE_DIR" && node "$here/variant_get_check.mjs" "$t") >"$tmp/duck" 2>"$tmp/err" ||
	fail "duckdb: $(cat "$tmp/err")"
tail -n +2 "$tmp/out" | cmp -s - "$tmp/duck" || fail "ids differ from DuckDB's: ours $(tail -n +2 "$tmp/out" | tr '\n' ' '), DuckDB $(tr '\n' ' ' <"$tmp/duck")"

# row 4 holds an object at $.a: variant_get is an error naming the class
if "$DL_CLI" cat "$t" --where "variant_get(v, '\$.a', 'int') > 10" >"$tmp/out" 2>"$tmp/err"; then
	fail "variant_get of an object as INT succeeded"
fi
grep -qF 'INVALID_VARIANT_CAST' "$tmp/err" || fail "variant_get error: $(cat "$tmp/err")"

"$DL_CLI" sql "SELECT id, variant_get(v, '\$.a', 'string') AS a FROM delta.\`$t\`
WHERE variant_get(v, '\$.a', 'string') IN ('20', '{\"b\":3}') OR is_variant_null(variant_get(v, '\$.a'))
ORDER BY id" --format csv >"$tmp/out" 2>"$tmp/err" || fail "sql: $(cat "$tmp/err")"
printf 'id,a\n3,20\n4,"{""b"":3}"\n7,\n' | cmp -s - "$tmp/out" || fail "sql WHERE variant_get: $(cat "$tmp/out")"

"$DL_CLI" sql "SELECT variant_get(v, '\$[1]', 'int') AS x FROM delta.\`$t\` WHERE id = 9" --format csv \
	>"$tmp/out" 2>"$tmp/err" || fail "sql array: $(cat "$tmp/err")"
printf 'x\n2\n' | cmp -s - "$tmp/out" || fail "array element: $(cat "$tmp/out")"

grep -h '"add"' "$t"/_delta_log/*.json | grep -qF '\"nullCount\":{\"id\":0,\"v\":1}' ||
	fail "variant nullCount is not one number: $(grep -h '"add"' "$t"/_delta_log/*.json)"

if [ "$fails" -ne 0 ]; then
	echo "$fails failure(s)" >&2
	exit 1
fi
echo "variant_get: ok"
