#!/usr/bin/env bash
# Liquid clustering's definition and the auto optimize settings through
# the CLI and SQL: CREATE TABLE ... CLUSTER BY, CTAS with CLUSTER BY,
# `deltalake create --cluster-by`, ALTER TABLE CLUSTER BY / NONE with the
# log Spark writes (delta.clustering domain, clustering + domainMetadata
# features, CLUSTER BY commits), DESCRIBE DETAIL / `deltalake detail`
# clusteringColumns, Spark's refusals, and auto compaction after INSERTs
# and after a DELETE (the DML hook), its result checked against DuckDB
# reading the compacted table's data files. Needs DL_CLI and DL_ORACLE_DIR.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
: "${DL_ORACLE_DIR:?DL_ORACLE_DIR must name tools/oracle}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
sql() { "$DL_CLI" sql --format csv "$@"; }
has() { # file, fixed string
	grep -qF -- "$2" "$1" || fail "$1 lacks $2"
}
log() { printf '%s/_delta_log/%020d.json' "$1" "$2"; }

# ---- CREATE TABLE ... CLUSTER BY (SQL) and ALTER TABLE CLUSTER BY ----
t="$tmp/t"
sql "CREATE TABLE delta.\`$t\` (id BIGINT, s STRUCT<a: INT, b: STRING>, flag BOOLEAN) USING DELTA CLUSTER BY (id, s.a)" \
	>/dev/null || fail "CREATE TABLE CLUSTER BY failed"
has "$(log "$t" 0)" '"domainMetadata":{"domain":"delta.clustering","configuration":"{\"clusteringColumns\":[[\"id\"],[\"s\",\"a\"]]}","removed":false}'
has "$(log "$t" 0)" '"writerFeatures":["domainMetadata","clustering","appendOnly","invariants"]'
has "$(log "$t" 0)" '"clusterBy":"[\"id\",\"s.a\"]"'
"$DL_CLI" detail "$t" --format json >"$tmp/d0" || fail "detail failed"
has "$tmp/d0" '"clusteringColumns":["id","s.a"]'
sql "DESCRIBE DETAIL delta.\`$t\`" >"$tmp/dd0" || fail "DESCRIBE DETAIL failed"
has "$tmp/dd0" 'id, s.a'
sql "ALTER TABLE delta.\`$t\` CLUSTER BY (s.b)" >/dev/null || fail "ALTER CLUSTER BY failed"
has "$(log "$t" 1)" '"operation":"CLUSTER BY","operationParameters":{"oldClusteringColumns":"id,s.a","newClusteringColumns":"s.b"}'
sql "ALTER TABLE delta.\`$t\` CLUSTER BY NONE" >/dev/null || fail "ALTER CLUSTER BY NONE failed"
has "$(log "$t" 2)" '"oldClusteringColumns":"s.b","newClusteringColumns":""'
"$DL_CLI" detail "$t" --format json >"$tmp/d2"
has "$tmp/d2" '"clusteringColumns":[]'
sql "DESCRIBE HISTORY delta.\`$t\`" >"$tmp/h" || fail "DESCRIBE HISTORY failed"
[ "$(grep -c 'CLUSTER BY' "$tmp/h")" -eq 2 ] || fail "history lacks the two CLUSTER BY commits"

# ---- refusals, each with Spark's class and nothing committed ----
refuse() { # class, statement
	if sql "$2" >/dev/null 2>"$tmp/err"; then
		fail "accepted: $2"
	else
		grep -qF "$1" "$tmp/err" || fail "$2: expected $1, got $(head -2 "$tmp/err")"
	fi
}
b="$tmp/bad"
refuse DELTA_CLUSTER_BY_INVALID_NUM_COLUMNS \
	"CREATE TABLE delta.\`$b\` (a INT, b INT, c INT, d INT, e INT) USING DELTA CLUSTER BY (a, b, c, d, e)"
refuse DELTA_CLUSTER_BY_WITH_PARTITIONED_BY \
	"CREATE TABLE delta.\`$b\` (a INT, p STRING) USING DELTA PARTITIONED BY (p) CLUSTER BY (a)"
refuse DELTA_CLUSTERING_COLUMN_MISSING_STATS \
	"CREATE TABLE delta.\`$b\` (a INT, f BOOLEAN) USING DELTA CLUSTER BY (f)"
refuse DELTA_COLUMN_NOT_FOUND_IN_SCHEMA "CREATE TABLE delta.\`$b\` (a INT) USING DELTA CLUSTER BY (zz)"
[ -e "$b/_delta_log/00000000000000000000.json" ] && fail "a refused CREATE committed"
p="$tmp/part"
sql "CREATE TABLE delta.\`$p\` (a INT, p STRING) USING DELTA PARTITIONED BY (p)" >/dev/null
refuse DELTA_ALTER_TABLE_CLUSTER_BY_ON_PARTITIONED_TABLE_NOT_ALLOWED "ALTER TABLE delta.\`$p\` CLUSTER BY (a)"
refuse DELTA_ALTER_TABLE_CLUSTER_BY_ON_PARTITIONED_TABLE_NOT_ALLOWED "ALTER TABLE delta.\`$p\` CLUSTER BY NONE"

# ---- a plain table becomes clustered; CTAS; the CLI's --cluster-by ----
u="$tmp/u"
sql "CREATE TABLE delta.\`$u\` (a INT, b STRING) USING DELTA" >/dev/null
sql "ALTER TABLE delta.\`$u\` CLUSTER BY NONE" >/dev/null || fail "NONE on a plain table failed"
[ -e "$(log "$u" 1)" ] && fail "CLUSTER BY NONE on a plain table committed"
sql "ALTER TABLE delta.\`$u\` CLUSTER BY (b)" >/dev/null || fail "ALTER CLUSTER BY on a plain table failed"
has "$(log "$u" 1)" '"protocol":{"minReaderVersion":1,"minWriterVersion":7'
has "$(log "$u" 1)" '"clustering"'
c="$tmp/ctas"
sql "CREATE TABLE delta.\`$c\` USING DELTA CLUSTER BY (x) AS SELECT 1 AS x, 'q' AS y" >/dev/null || fail "CTAS failed"
has "$(log "$c" 0)" '\"clusteringColumns\":[[\"x\"]]'
[ "$(sql "SELECT x, y FROM delta.\`$c\`" | tail -1)" = "1,q" ] || fail "CTAS rows"
k="$tmp/cli"
"$DL_CLI" create "$k" --schema "id BIGINT, ts TIMESTAMP" --cluster-by ts,id >/dev/null || fail "create --cluster-by failed"
"$DL_CLI" detail "$k" --format json >"$tmp/dk"
has "$tmp/dk" '"clusteringColumns":["ts","id"]'
"$DL_CLI" create "$tmp/cli2" --schema "id BIGINT" --cluster-by id --partition-by id >/dev/null 2>"$tmp/err" &&
	fail "--cluster-by with --partition-by accepted"

# ---- auto compaction: after INSERTs, then after a DELETE ----
a="$tmp/ac"
{
	echo "CREATE TABLE delta.\`$a\` (id BIGINT, name STRING) USING DELTA CLUSTER BY (id) TBLPROPERTIES ('delta.autoOptimize.autoCompact' = 'true');"
	for i in $(seq 1 50); do echo "INSERT INTO delta.\`$a\` VALUES ($i, 'n$i'), ($((i + 1000)), NULL);"; done
} >"$tmp/ac.sql"
sql -f "$tmp/ac.sql" >/dev/null 2>"$tmp/err" || fail "inserts failed: $(head -2 "$tmp/err")"
has "$(log "$a" 51)" '"operation":"OPTIMIZE","operationParameters":{"predicate":"[]","zOrderBy":"[]","clusterBy":"[\"id\"]","auto":true}'
sql "SELECT id, name FROM delta.\`$a\` VERSION AS OF 50 ORDER BY id" >"$tmp/before"
sql "SELECT id, name FROM delta.\`$a\` ORDER BY id" >"$tmp/after"
cmp -s "$tmp/before" "$tmp/after" || fail "rows changed by auto compaction"
[ "$(wc -l <"$tmp/after")" -eq 101 ] || fail "expected 100 rows"
# a table that turns it on later: 50 files from writes with the session
# switch off, then a DELETE's commit triggers the compaction
d="$tmp/dml"
{
	echo "CREATE TABLE delta.\`$d\` (id BIGINT, name STRING) USING DELTA TBLPROPERTIES ('delta.autoOptimize.autoCompact' = 'true');"
	echo "SET spark.databricks.delta.autoCompact.enabled = false;"
	for i in $(seq 1 50); do echo "INSERT INTO delta.\`$d\` VALUES ($i, 'n$i'), ($((i + 1000)), 'm$i');"; done
	echo "DELETE FROM delta.\`$d\` WHERE id = 7;"
} >"$tmp/dml.sql"
sql -f "$tmp/dml.sql" >/dev/null 2>"$tmp/err" || fail "DML script failed: $(head -2 "$tmp/err")"
has "$(log "$d" 51)" '"operation":"DELETE"'
has "$(log "$d" 52)" '"auto":true'
"$DL_CLI" files "$d" --format csv >"$tmp/files" || fail "files failed"
[ "$(($(wc -l <"$tmp/files") - 1))" -eq 1 ] || fail "expected one file after compaction, got $(cat "$tmp/files")"
sql "SELECT id, name FROM delta.\`$d\` ORDER BY id" | tail -n +2 | sort >"$tmp/ours"
cut -d, -f1 "$tmp/files" | tail -n +2 >"$tmp/list"
node "$here/clustering_sql_check.mjs" "$d" "$tmp/list" >"$tmp/duck" 2>"$tmp/derr" ||
	fail "DuckDB failed: $(head -2 "$tmp/derr")"
[ "$(wc -l <"$tmp/ours")" -eq 99 ] || fail "expected 99 rows after the DELETE"
diff "$tmp/ours" "$tmp/duck" >/dev/null || fail "our rows differ from DuckDB's reading the compacted file"

# ---- REPLACE without CLUSTER BY: the domain stays with no columns ----
rp="$tmp/rp"
sql "CREATE TABLE delta.\`$rp\` (a BIGINT, b BIGINT) USING DELTA CLUSTER BY (a)" >/dev/null
sql "CREATE OR REPLACE TABLE delta.\`$rp\` USING DELTA AS SELECT 1 AS a, 2 AS b" >/dev/null || fail "CTAS replace failed"
has "$(log "$rp" 1)" '"partitionBy":"[]","clusterBy":"[]","properties"'
has "$(log "$rp" 1)" '"domainMetadata":{"domain":"delta.clustering","configuration":"{\"clusteringColumns\":[]}","removed":false}'
sql "CREATE OR REPLACE TABLE delta.\`$rp\` USING DELTA CLUSTER BY (b) AS SELECT 1 AS a, 2 AS b" >/dev/null || fail "CTAS CLUSTER BY failed"
has "$(log "$rp" 2)" '"clusterBy":"[\"b\"]"'
has "$(log "$rp" 2)" '"configuration":"{\"clusteringColumns\":[[\"b\"]]}","removed":false'
sql "REPLACE TABLE delta.\`$rp\` (a BIGINT) USING DELTA" >/dev/null || fail "REPLACE failed"
has "$(log "$rp" 3)" '"configuration":"{\"clusteringColumns\":[]}","removed":false'
"$DL_CLI" detail "$rp" --format json >"$tmp/drp"
has "$tmp/drp" '"clusteringColumns":[]'

# ---- OPTIMIZE's result: Spark's OptimizeMetrics, zOrderStats / clusteringStats ----
r="$tmp/res"
sql "CREATE TABLE delta.\`$r\` (a BIGINT, b BIGINT) USING DELTA CLUSTER BY (a, b)" >/dev/null
sql "INSERT INTO delta.\`$r\` VALUES (1, 2), (3, 4)" >/dev/null
sql "INSERT INTO delta.\`$r\` VALUES (5, 6)" >/dev/null
"$DL_CLI" sql --format json "OPTIMIZE delta.\`$r\`" >"$tmp/opt_c" || fail "OPTIMIZE of a clustered table failed"
has "$tmp/opt_c" '"partitionsOptimized":1,"zOrderStats":null,"clusteringStats":{"inputZCubeFiles":{"numFiles":0,"size":0},"inputOtherFiles":{"numFiles":2,'
has "$tmp/opt_c" '"inputNumZCubes":0,"mergedFiles":{"numFiles":2,'
has "$tmp/opt_c" '"numOutputZCubes":1},"numBins":0,"numBatches":1,"totalConsideredFiles":2,"totalFilesSkipped":0,"preserveInsertionOrder":false,"numFilesSkippedToReduceWriteAmplification":0,"numBytesSkippedToReduceWriteAmplification":0,"startTimeMs":'
has "$tmp/opt_c" '"totalScheduledTasks":0,"autoCompactParallelismStats":null,"deletionVectorStats":null,"numTableColumns":2,"numTableColumnsWithStats":2}}'
has "$(log "$r" 3)" '"tags":{"ZCUBE_ID":"'
has "$(log "$r" 3)" '"ZCUBE_ZORDER_BY":"[\"a\",\"b\"]"}'
sql "INSERT INTO delta.\`$r\` VALUES (7, 8)" >/dev/null
sql "INSERT INTO delta.\`$r\` VALUES (9, 10)" >/dev/null
"$DL_CLI" sql --format json "OPTIMIZE delta.\`$r\`" >"$tmp/opt_c2" || fail "incremental OPTIMIZE failed"
has "$tmp/opt_c2" '"clusteringStats":{"inputZCubeFiles":{"numFiles":1,'
has "$tmp/opt_c2" '"inputNumZCubes":1,"mergedFiles":{"numFiles":2,'
z="$tmp/zo"
sql "CREATE TABLE delta.\`$z\` (a BIGINT, b BIGINT) USING DELTA" >/dev/null
sql "INSERT INTO delta.\`$z\` VALUES (1, 2), (3, 4)" >/dev/null
"$DL_CLI" sql --format json "OPTIMIZE delta.\`$z\` ZORDER BY (a)" >"$tmp/opt_z" || fail "OPTIMIZE ZORDER BY failed"
has "$tmp/opt_z" '"zOrderStats":{"strategyName":"all","inputCubeFiles":{"num":0,"size":0},"inputOtherFiles":{"num":1,'
has "$tmp/opt_z" '"numOutputCubes":1,"mergedNumCubes":null},"clusteringStats":null,"numBins":0,'

if [ "$fails" -ne 0 ]; then
	echo "$fails failure(s)" >&2
	exit 1
fi
echo "clustering_sql: ok"
