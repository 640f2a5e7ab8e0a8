#!/usr/bin/env bash
# `deltalake sql` in batch mode: statements as arguments, -c, -f FILE and
# standard input; every text format; --format parquet|arrow -o FILE read
# back by DuckDB and Apache Arrow; errors (one line with Spark's class, the
# file and line, the caret of a syntax error), stopping at the first error,
# exit codes 0/1/2; the warehouse from --warehouse, $DELTALAKE_WAREHOUSE or
# ./warehouse. Needs DL_CLI and DL_ORACLE_DIR.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
: "${DL_ORACLE_DIR:?DL_ORACLE_DIR must name tools/oracle}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
# expect CODE ARGS...: runs deltalake with stdin from $tmp/in (empty unless set)
expect() {
	local want=$1; shift
	"$DL_CLI" "$@" <"${STDIN:-/dev/null}" >"$tmp/out" 2>"$tmp/err"
	local got=$?
	[ "$got" -eq "$want" ] || fail "deltalake $* exited $got, expected $want (stderr: $(head -c 400 "$tmp/err"))"
}
contains() { grep -qF -- "$2" "$1" || fail "$1 lacks '$2': $(head -c 600 "$1")"; }
lacks() { ! grep -qF -- "$2" "$1" || fail "$1 has '$2': $(head -c 600 "$1")"; }
same() { [ "$(cat "$1")" = "$2" ] || fail "$1 is:
$(head -c 600 "$1")
expected:
$2"; }
oracle() { (cd "$DL_ORACLE_DIR" && node "$here/sql_cli_check.mjs" "$@"); }
wh=$tmp/wh
sql() { expect "$1" sql --warehouse "$wh" "${@:2}"; }

# ---- help and usage errors (exit 2) ----
expect 0 sql --help
contains "$tmp/out" "-f, --file FILE"
contains "$tmp/out" "--warehouse DIR"
contains "$tmp/out" "--memory-limit SIZE"
expect 0 help sql
contains "$tmp/out" "interactive shell"
expect 2 sql --format bogus "SELECT 1"
contains "$tmp/err" "--format must be table, csv, jsonl, json, vertical, arrow or parquet"
expect 2 sql --memory-limit lots "SELECT 1"
contains "$tmp/err" "--memory-limit must be a size"
expect 2 sql --no-such-option
expect 1 sql -f "$tmp/missing.sql"
contains "$tmp/err" "missing.sql"

# ---- DDL prints nothing; DML prints Spark's result columns; queries their rows ----
sql 0 "CREATE TABLE people (id BIGINT, name STRING, score DOUBLE) USING DELTA"
same "$tmp/out" ""
[ -d "$wh" ] || fail "CREATE TABLE made no warehouse at $wh"
sql 0 --format csv "INSERT INTO people VALUES (1, 'ann', 1.5), (2, 'bob', NULL), (3, 'c,d', 2.25)"
contains "$tmp/out" "num_affected_rows"
contains "$tmp/out" "3"
sql 0 --format csv "SELECT id, name, score FROM people ORDER BY id"
same "$tmp/out" 'id,name,score
1,ann,1.5
2,bob,
3,"c,d",2.25'
sql 0 --format jsonl "SELECT id, name FROM people WHERE id >= 2 ORDER BY id"
same "$tmp/out" '{"id":2,"name":"bob"}
{"id":3,"name":"c,d"}'
sql 0 --format json "SELECT count(*) AS n FROM people"
same "$tmp/out" '[
{"n":3}
]'
sql 0 "SELECT id, name FROM people ORDER BY id"
contains "$tmp/out" "id  name"
contains "$tmp/out" " 3  c,d"
sql 0 --format vertical "SELECT name, score FROM people WHERE id = 1"
same "$tmp/out" 'name   ann
score  1.5'
# A leading global --format works as for every command.
expect 0 --format csv sql --warehouse "$wh" "SELECT id FROM people WHERE id = 1"
same "$tmp/out" 'id
1'

# ---- several statements: each argument a script, -c, every result printed in order ----
sql 0 --format csv "SELECT 1 AS a; SELECT 2 AS b" "SELECT 3 AS c"
same "$tmp/out" 'a
1
b
2
c
3'
sql 0 --format csv -c "SELECT 'x' AS c1" "SELECT 'y' AS c2"
same "$tmp/out" 'c1
x
c2
y'

# ---- -f FILE: comments, statements over lines, dot commands, a last ';' optional ----
cat >"$tmp/script.sql" <<'SQL'
-- a comment line
CREATE TABLE scores
  (player STRING, points INT)
  USING DELTA;
/* a block
   comment */ INSERT INTO scores VALUES ('p1', 10), ('p2', 20);
.tables
SELECT player, points
FROM scores
ORDER BY points DESC
SQL
sql 0 --format csv -f "$tmp/script.sql"
contains "$tmp/out" "num_affected_rows"
contains "$tmp/out" "scores"
contains "$tmp/out" "player,points
p2,20
p1,10"
# the script's tables are there for the next run
sql 0 --format csv "SELECT sum(points) AS total FROM scores"
same "$tmp/out" 'total
30'

# .read runs another script; .schema without a table shows every table
printf '.read %s\n.schema\n' "$tmp/script2.sql" >"$tmp/script1.sql"
printf 'SELECT count(*) AS read_count FROM scores;\n' >"$tmp/script2.sql"
sql 0 --format csv -f "$tmp/script1.sql"
contains "$tmp/out" "read_count
2"
contains "$tmp/out" "CREATE TABLE spark_catalog.default.people ("
contains "$tmp/out" "CREATE TABLE spark_catalog.default.scores ("

# ---- standard input ----
printf 'SELECT name FROM people\n  WHERE id = 2;\nSELECT 7 AS seven\n' >"$tmp/stdin.sql"
STDIN=$tmp/stdin.sql sql 0 --format csv
same "$tmp/out" 'name
bob
seven
7'
STDIN=$tmp/stdin.sql sql 0 --format csv -f -
contains "$tmp/out" "seven"

# ---- errors: exit 1, one line with the class, the script stops at the first ----
sql 1 "SELECT * FROM no_such_table"
contains "$tmp/err" "deltalake: error: [TABLE_OR_VIEW_NOT_FOUND]"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "a missing table gave more than one line: $(cat "$tmp/err")"
sql 1 "SELECT nope FROM people"
contains "$tmp/err" "[UNRESOLVED_COLUMN"
cat >"$tmp/bad.sql" <<'SQL'
INSERT INTO scores VALUES ('p3', 30);

SELECT *
  FROM missing_table;
INSERT INTO scores VALUES ('p4', 40);
SQL
sql 1 -f "$tmp/bad.sql"
contains "$tmp/err" "bad.sql:3: [TABLE_OR_VIEW_NOT_FOUND]"
sql 0 --format csv "SELECT count(*) AS n FROM scores"
same "$tmp/out" 'n
3'
# a syntax error keeps its place and caret
sql 1 "SELECT FROM WHERE people"
contains "$tmp/err" "[PARSE_SYNTAX_ERROR]"
contains "$tmp/err" "^"
# -c after a failing argument does not run
sql 1 "SELECT * FROM missing_table" "INSERT INTO scores VALUES ('p5', 50)"
sql 0 --format csv "SELECT count(*) AS n FROM scores"
same "$tmp/out" 'n
3'
# an unknown dot command is an error too
sql 1 ".frobnicate"
contains "$tmp/err" "unknown command .frobnicate"

# ---- dot commands as arguments; -o FILE for text formats ----
sql 0 ".help"
contains "$tmp/out" ".schema [TABLE]"
contains "$tmp/out" ".timer on|off"
sql 0 --format csv -o "$tmp/res.csv" "SELECT 1 AS a" "SELECT 2 AS b"
same "$tmp/out" ""
same "$tmp/res.csv" 'a
1
b
2'

# ---- the warehouse: --warehouse, then $DELTALAKE_WAREHOUSE, then ./warehouse ----
DELTALAKE_WAREHOUSE=$wh expect 0 sql --format csv "SELECT count(*) AS n FROM people"
same "$tmp/out" 'n
3'
mkdir -p "$tmp/cwd"
(cd "$tmp/cwd" && "$DL_CLI" sql "CREATE TABLE here (x INT) USING DELTA") >"$tmp/out" 2>"$tmp/err" ||
	fail "CREATE TABLE in ./warehouse failed: $(cat "$tmp/err")"
[ -d "$tmp/cwd/warehouse" ] || fail "no ./warehouse after CREATE TABLE without --warehouse"

# ---- --format parquet|arrow -o FILE: the last result, names and types kept ----
sql 0 --format parquet -o "$tmp/people.parquet" \
	"SELECT 1 AS ignored; SELECT id, name, score, CAST(id AS INT) AS i32, DATE '2024-02-29' AS d FROM people ORDER BY id"
oracle parquet "$tmp/people.parquet" >"$tmp/duck" || fail "DuckDB cannot read the Parquet file"
# (DuckDB's JSON rows spell BIGINT as strings)
same "$tmp/duck" 'id BIGINT
name VARCHAR
score DOUBLE
i32 INTEGER
d DATE
{"id":"1","name":"ann","score":1.5,"i32":1,"d":"2024-02-29"}
{"id":"2","name":"bob","score":null,"i32":2,"d":"2024-02-29"}
{"id":"3","name":"c,d","score":2.25,"i32":3,"d":"2024-02-29"}'
sql 0 --format arrow -o "$tmp/people.arrows" "SELECT id, name FROM people WHERE id < 3 ORDER BY id"
oracle arrow "$tmp/people.arrows" >"$tmp/arrow" || fail "Arrow cannot read the IPC stream"
same "$tmp/arrow" 'id Int64
name Utf8
{"id":1,"name":"ann"}
{"id":2,"name":"bob"}'
# the last statement must have columns; nothing is written otherwise
sql 1 --format parquet -o "$tmp/none.parquet" "SELECT 1 AS x; CREATE TABLE t2 (x INT) USING DELTA"
contains "$tmp/err" "no result columns"
[ ! -e "$tmp/none.parquet" ] || fail "a failed --format parquet left $tmp/none.parquet"
sql 1 --format parquet -o "$tmp/none.parquet" "SELECT * FROM missing_table"
[ ! -e "$tmp/none.parquet" ] || fail "a failed query left $tmp/none.parquet"
# -c and arguments together: only the very last result is written
sql 0 --format arrow -o "$tmp/last.arrows" -c "SELECT 1 AS first" "SELECT 2 AS second"
oracle arrow "$tmp/last.arrows" >"$tmp/arrow"
same "$tmp/arrow" 'second Int32
{"second":2}'

# ---- --memory-limit: SET memory_limit's units, the connection's setting ----
sql 0 --format csv --memory-limit 256MB "SET memory_limit"
same "$tmp/out" 'key,value
memory_limit,268435456'
sql 0 --format csv --memory-limit 1.5GiB "SET memory_limit"
contains "$tmp/out" "memory_limit,1610612736"

# ---- Ctrl-C (SIGINT) cancels the running statement: exit 1, its class ----
values=$(seq 1 300 | sed 's/.*/(&)/' | paste -sd, -)
sql 0 "CREATE TABLE long_b (x INT) USING DELTA; INSERT INTO long_b VALUES $values;
	CREATE TABLE long_a (x INT) USING DELTA; INSERT INTO long_a SELECT a.x FROM long_b a CROSS JOIN long_b b;
	INSERT INTO long_a SELECT * FROM long_a; INSERT INTO long_a SELECT * FROM long_a; INSERT INTO long_a SELECT * FROM long_a"
"$DL_CLI" sql --warehouse "$wh" "SELECT count(*) AS never FROM long_a CROSS JOIN long_b CROSS JOIN long_b c; CREATE TABLE after_cancel (x INT)" \
	>"$tmp/out" 2>"$tmp/err" &
pid=$!
sleep 1
# a background job of a script starts with SIGINT ignored: wait for the
# shell's handler (SigCgt bit 2) so the INT is not lost on a loaded machine
for _ in $(seq 200); do
	cgt=$(awk '/^SigCgt:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
	[ -n "$cgt" ] && (((16#$cgt & 2) != 0)) && break
	sleep 0.05
done
kill -INT $pid
wait $pid
got=$?
[ $got -eq 1 ] || fail "SIGINT during a query: exit $got, expected 1 (stderr: $(cat "$tmp/err"))"
grep -qEi "^deltalake: error: .*(cancel|interrupt)" "$tmp/err" || fail "SIGINT: the error does not say the statement was cancelled: $(cat "$tmp/err")"
lacks "$tmp/out" "never"
sql 0 --format csv "SHOW TABLES"
lacks "$tmp/out" "after_cancel"

[ $fails -eq 0 ] && echo "ok: deltalake sql batch mode"
exit $((fails > 0))
