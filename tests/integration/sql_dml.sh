#!/usr/bin/env bash
# DELETE, UPDATE and MERGE through `deltalake sql`, compared with DuckDB
# running the same statements on the same rows: each script builds a table,
# changes it with a sequence of DML statements and ends with a query of the
# whole table; the two results must be the same rows. Run for plain,
# partitioned, deletion-vector, change-data-feed and row-tracking tables
# (DuckDB has no such properties: the rows must still agree). Then the
# result columns and exit codes of the CLI. Needs DL_CLI and DL_ORACLE_DIR.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
: "${DL_ORACLE_DIR:?DL_ORACLE_DIR must name tools/oracle}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# The statements after CREATE TABLE; the last is the query compared. (Rows
# come from VALUES lists: both engines read those the same way. The
# correlated [NOT] EXISTS conditions check the decorrelation.)
body="INSERT INTO t SELECT i, i % 7, CASE WHEN i % 5 = 0 THEN NULL ELSE concat('n', i) END, i % 3 FROM (VALUES $(seq -s, 0 199 | sed 's/\([0-9]*\)/(\1)/g')) AS r(i);
INSERT INTO s SELECT i, i % 11, concat('s', i), i % 4 FROM (VALUES $(seq -s, 150 259 | sed 's/\([0-9]*\)/(\1)/g')) AS r(i);
DELETE FROM t WHERE g = 3;
DELETE FROM t WHERE name IS NULL AND id > 100;
UPDATE t SET name = upper(name), g = g + 100 WHERE id % 4 = 1;
UPDATE t SET name = 'zero' WHERE p = 0 AND id < 30;
DELETE FROM t WHERE EXISTS (SELECT 1 FROM s WHERE s.id = t.id AND s.g = 3);
UPDATE t SET name = 'lonely' WHERE NOT EXISTS (SELECT 1 FROM s WHERE s.g = t.g AND s.p = t.p AND s.id < 200) AND id < 60;
MERGE INTO t USING s ON t.id = s.id
  WHEN MATCHED AND s.g > 5 THEN UPDATE SET name = s.name, g = s.g
  WHEN MATCHED THEN DELETE
  WHEN NOT MATCHED AND s.id % 2 = 0 THEN INSERT (id, g, name, p) VALUES (s.id, s.g, s.name, s.p)
  WHEN NOT MATCHED BY SOURCE AND t.id < 20 THEN UPDATE SET name = 'orphan'
  WHEN NOT MATCHED BY SOURCE AND t.id BETWEEN 20 AND 40 THEN DELETE;
MERGE INTO t USING (SELECT id + 1000 AS id, g, name, p FROM s WHERE id < 160) AS x ON t.id = x.id
  WHEN NOT MATCHED THEN INSERT *;
SELECT id, g, name, p FROM t ORDER BY id"

run_case() { # name, extra clause for CREATE TABLE t
	local name=$1 clause=$2 wh="$tmp/wh_$1"
	local script="CREATE TABLE t (id BIGINT, g BIGINT, name STRING, p BIGINT) USING DELTA $clause;
CREATE TABLE s (id BIGINT, g BIGINT, name STRING, p BIGINT) USING DELTA;
$body"
	printf '%s\n' "$script" >"$tmp/$name.sql"
	if ! "$DL_CLI" sql --warehouse "$wh" --format csv -f "$tmp/$name.sql" >"$tmp/$name.all" 2>"$tmp/$name.err"; then
		fail "$name: deltalake sql failed: $(head -3 "$tmp/$name.err")"
		return
	fi
	# the last result: the lines after the last header line "id,g,name,p"
	awk '/^id,g,name,p$/ { n = NR } { l[NR] = $0 } END { for (i = n + 1; i <= NR; i++) print l[i] }' \
		"$tmp/$name.all" >"$tmp/$name.ours"
	if ! node "$here/sql_dml_duckdb.mjs" "$tmp/$name.sql" >"$tmp/$name.duck" 2>"$tmp/$name.derr"; then
		fail "$name: DuckDB failed: $(head -3 "$tmp/$name.derr")"
		return
	fi
	local n
	n=$(wc -l <"$tmp/$name.duck")
	[ "$n" -gt 100 ] || fail "$name: DuckDB returned only $n rows"
	if ! diff "$tmp/$name.ours" "$tmp/$name.duck" >"$tmp/$name.diff"; then
		fail "$name: rows differ from DuckDB's (< ours, > DuckDB):"
		head -10 "$tmp/$name.diff" >&2
	fi
}

run_case plain ""
run_case partitioned "PARTITIONED BY (p)"
run_case dv "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')"
run_case cdf "PARTITIONED BY (p) TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')"
run_case rowtracking "TBLPROPERTIES ('delta.enableRowTracking' = 'true', 'delta.enableDeletionVectors' = 'true')"

# The DV table's deletes wrote deletion vectors, not copies.
hist=$("$DL_CLI" sql --warehouse "$tmp/wh_dv" --format csv "DESCRIBE HISTORY t" 2>&1)
echo "$hist" | grep -q 'numDeletionVectorsAdded=[1-9]' || fail "dv: no deletion vector in DESCRIBE HISTORY: $(echo "$hist" | head -5)"
# The CDF table's change feed has the updates' pre and post images.
cdf=$("$DL_CLI" sql --warehouse "$tmp/wh_cdf" --format csv \
	"SELECT _change_type, count(*) FROM table_changes('t', 1) GROUP BY _change_type ORDER BY 1" 2>&1)
for k in delete insert update_postimage update_preimage; do
	echo "$cdf" | grep -q "^$k," || fail "cdf: no $k rows in table_changes: $cdf"
done

# Result columns and exit codes.
wh="$tmp/wh_cli"
out=$("$DL_CLI" sql --warehouse "$wh" --format csv "CREATE TABLE u (id INT); INSERT INTO u VALUES (1), (2);
  MERGE INTO u USING (VALUES (2), (3)) AS v(id) ON u.id = v.id WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT *" 2>&1)
echo "$out" | grep -q '^num_affected_rows,num_updated_rows,num_deleted_rows,num_inserted_rows$' ||
	fail "MERGE result header: $out"
echo "$out" | tail -1 | grep -qx '2,0,1,1' || fail "MERGE result row: $out"
"$DL_CLI" sql --warehouse "$wh" "DELETE FROM u WHERE nope = 1" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "DELETE with an unknown column: exit $rc, want 1"
[ "$(wc -l <"$tmp/err")" -ge 1 ] || fail "DELETE with an unknown column: no error line"
out=$("$DL_CLI" sql --warehouse "$wh" --format csv "SELECT id FROM u ORDER BY id" 2>&1)
[ "$out" = "$(printf 'id\n1\n3')" ] || fail "the failed DELETE changed the table: $out"

[ $fails -eq 0 ] && echo "sql_dml: DELETE/UPDATE/MERGE through SQL agree with DuckDB on 5 table kinds"
exit $((fails > 0))
