#!/usr/bin/env bash
# ANSI store assignment through the CLI (`deltalake update`, `deltalake
# merge`, `deltalake sql`): a value overflowing its column fails with
# Spark's class naming the value's type, the column's type and the column
# (DELTA_CAST_OVERFLOW_IN_TABLE_WRITE for UPDATE and MERGE,
# CAST_OVERFLOW_IN_TABLE_INSERT for INSERT), exits 1 and leaves the table
# byte-identical with no stray files; a CAST the user wrote keeps
# CAST_OVERFLOW. Needs DL_CLI.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
snap() { (cd "$1" && find . -type f | sort | xargs md5sum); }
# expect NAME TABLE NEEDLE... -- command...: fails, stderr has every NEEDLE, table unchanged
expect() {
	local name=$1 t=$2
	shift 2
	local needles=()
	while [ "$1" != "--" ]; do needles+=("$1"); shift; done
	shift
	local before
	before=$(snap "$t")
	if "$@" >"$tmp/out" 2>"$tmp/err"; then
		fail "$name: succeeded"
	else
		for n in "${needles[@]}"; do
			grep -qF -- "$n" "$tmp/err" || fail "$name: error lacks '$n': $(head -c 400 "$tmp/err")"
		done
	fi
	[ "$(snap "$t")" = "$before" ] || fail "$name: the table changed (or stray files)"
}

t=$tmp/t
"$DL_CLI" create "$t" --schema "id BIGINT, i INT, b TINYINT" -q >/dev/null || fail "create"
printf 'id,i,b\n1,1,1\n2,2,2\n' >"$tmp/in.csv"
"$DL_CLI" write "$t" -i "$tmp/in.csv" -m append -q >/dev/null || fail "write"
W='[DELTA_CAST_OVERFLOW_IN_TABLE_WRITE] Failed to write a value of "BIGINT" type into the "INT" type column `i` due to an overflow.'

expect "update" "$t" "$W" -- "$DL_CLI" update "$t" --set "i = id * 10000000000" -q
expect "update tinyint" "$t" 'a value of "INT" type into the "TINYINT" type column `b`' -- \
	"$DL_CLI" update "$t" --set "b = 300" -q
expect "update, the user's cast" "$t" "[CAST_OVERFLOW] The value 10000000000L" -- \
	"$DL_CLI" update "$t" --set "i = CAST(id * 10000000000 AS INT)" -q

printf 'id,v\n1,3000000000\n3,4000000000\n' >"$tmp/big.csv"
expect "merge update clause" "$t" "$W" -- "$DL_CLI" merge "$t" --source "$tmp/big.csv" --alias t,s \
	--on "t.id = s.id" --when "MATCHED THEN UPDATE SET i = s.v" -q
expect "merge insert clause" "$t" "$W" -- "$DL_CLI" merge "$t" --source "$tmp/big.csv" --alias t,s \
	--on "t.id = s.id" --when "NOT MATCHED THEN INSERT (id, i, b) VALUES (s.id, s.v, 0)" -q
expect "merge, the user's cast" "$t" "[CAST_OVERFLOW]" -- "$DL_CLI" merge "$t" --source "$tmp/big.csv" \
	--alias t,s --on "t.id = s.id" --when "MATCHED THEN UPDATE SET i = CAST(s.v AS INT)" -q

q="delta.\`$t\`"
expect "sql update" "$t" "$W" -- "$DL_CLI" sql "UPDATE $q SET i = id * 10000000000"
expect "sql merge" "$t" "$W" -- "$DL_CLI" sql \
	"MERGE INTO $q AS t USING (SELECT 9L AS id, 9000000000L AS v) AS s ON t.id = s.id WHEN NOT MATCHED THEN INSERT (id, i) VALUES (s.id, s.v)"
expect "sql insert" "$t" \
	'[CAST_OVERFLOW_IN_TABLE_INSERT] Fail to assign a value of "BIGINT" type to the "INT" type column or variable `i` due to an overflow.' -- \
	"$DL_CLI" sql "INSERT INTO $q VALUES (5, 3000000000, 1)"
expect "sql insert tinyint" "$t" 'a value of "INT" type to the "TINYINT" type column or variable `b`' -- \
	"$DL_CLI" sql "INSERT INTO $q (id, b) SELECT 5, 1000"
expect "sql insert, the user's cast" "$t" "[CAST_OVERFLOW] The value 3000000000L" -- \
	"$DL_CLI" sql "INSERT INTO $q (id, i) SELECT 5, CAST(3000000000 AS INT)"

rows=$("$DL_CLI" cat "$t" --format csv | tail -n +2 | sort | tr '\n' ' ')
[ "$rows" = "1,1,1 2,2,2 " ] || fail "rows: $rows"
[ "$fails" -eq 0 ] || exit 1
echo "store_overflow: ok"
