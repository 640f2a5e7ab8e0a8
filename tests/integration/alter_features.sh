#!/usr/bin/env bash
# ALTER TABLE's property, constraint and feature forms through `deltalake
# sql`, each change checked against DuckDB applying the same data changes:
# our reader's rows, and (when no deletion vector is live) DuckDB reading
# the table's live data files, must equal DuckDB's. Dropping
# deletionVectors must leave a protocol that no longer names it (what a
# reader without the feature checks) and no DV left, so DuckDB reads the
# files alone right. Failed statements exit 1 with Spark's error class and
# leave the table byte-identical. Needs DL_CLI and DL_ORACLE_DIR.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
: "${DL_ORACLE_DIR:?DL_ORACLE_DIR must name tools/oracle}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
oracle() { (cd "$DL_ORACLE_DIR" && node "$here/dml_duckdb_check.mjs" "$@"); }
sql() { "$DL_CLI" -q sql "$1" >"$tmp/out" 2>"$tmp/err" || fail "$1: $(cat "$tmp/err")"; }

oracle make "$tmp/src.parquet" 1500 || { echo "FAIL: DuckDB could not make the data"; exit 1; }
t=$tmp/t
T="delta.\`$t\`"
"$DL_CLI" create "$t" --schema "id BIGINT, g INT, v INT, name STRING" >/dev/null || exit 1
"$DL_CLI" write "$t" -i "$tmp/src.parquet" -m append --max-records-per-file 400 >/dev/null || exit 1

: >"$tmp/stmts.sql"
compare() { # STEP: our rows and DuckDB's over the files vs DuckDB applying the statements
	oracle apply "$tmp/src.parquet" "$tmp/stmts.sql" | grep -v '^affected' >"$tmp/duck.rows" ||
		fail "$1: DuckDB could not apply the statements"
	"$DL_CLI" cat "$t" --columns id,g,v,name --format csv 2>"$tmp/err" | tail -n +2 | sort >"$tmp/ours.rows"
	diff "$tmp/duck.rows" "$tmp/ours.rows" >"$tmp/diff" || fail "$1: our rows differ: $(head -c 300 "$tmp/diff")"
	if [ "${2:-}" != dv ]; then
		"$DL_CLI" files "$t" --format csv | tail -n +2 | cut -d, -f1 >"$tmp/files"
		oracle files "$t" "$tmp/files" >"$tmp/duckfiles.rows" || fail "$1: DuckDB could not read the files"
		diff "$tmp/duck.rows" "$tmp/duckfiles.rows" >"$tmp/diff" ||
			fail "$1: DuckDB reading the data files disagrees: $(head -c 300 "$tmp/diff")"
	fi
}
protocol() { "$DL_CLI" protocol "$t" --format csv | tail -n +2 | tr '\n' ' '; }

sql "ALTER TABLE $T SET TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true', 'owner' = 'data eng', 'delta.logRetentionDuration' = 'interval 45 days')"
compare "SET TBLPROPERTIES"
protocol | grep -q 'minWriterVersion,4' || fail "change data feed: protocol $(protocol)"

sql "ALTER TABLE $T ADD CONSTRAINT vNonNegative CHECK (v >= 0)"
compare "ADD CONSTRAINT"
"$DL_CLI" -q --format csv sql "SHOW TBLPROPERTIES $T" >"$tmp/props" 2>&1
grep -q '^delta.constraints.vnonnegative,v >= 0$' "$tmp/props" || fail "constraint not stored as written: $(cat "$tmp/props")"
"$DL_CLI" -q sql "ALTER TABLE $T ADD CONSTRAINT small CHECK (v < 500)" >/dev/null 2>"$tmp/err" &&
	fail "a constraint existing rows violate was added"
grep -q 'DELTA_NEW_CHECK_CONSTRAINT_VIOLATION' "$tmp/err" || fail "violation error: $(cat "$tmp/err")"

sql "ALTER TABLE $T SET TBLPROPERTIES ('delta.enableRowTracking' = 'true')"
compare "row tracking backfill"
"$DL_CLI" files "$t" --format jsonl >/dev/null || fail "files after backfill"

sql "ALTER TABLE $T SET TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')"
"$DL_CLI" -q delete "$t" --where "id % 10 = 3" >/dev/null 2>"$tmp/err" || fail "delete: $(cat "$tmp/err")"
echo "DELETE FROM t WHERE id % 10 = 3" >>"$tmp/stmts.sql"
ls "$t"/deletion_vector_*.bin >/dev/null 2>&1 || fail "the delete wrote no deletion vector"
compare "DELETE with deletion vectors" dv
protocol | grep -q 'deletionVectors' || fail "deletion vectors: protocol $(protocol)"

sql "ALTER TABLE $T DROP FEATURE deletionVectors"
compare "DROP FEATURE deletionVectors"
p=$(protocol)
case "$p" in *deletionVectors*) fail "the protocol still names deletionVectors: $p" ;; esac
case "$p" in *checkpointProtection*) ;; *) fail "no checkpointProtection after the drop: $p" ;; esac
"$DL_CLI" files "$t" --format csv | tail -n +2 | cut -d, -f4 | grep -qv '^0$' && fail "rows still deleted by a DV"

sql "ALTER TABLE $T DROP CONSTRAINT vNonNegative"
sql "ALTER TABLE $T UNSET TBLPROPERTIES IF EXISTS ('owner', 'nothing')"
compare "UNSET"
"$DL_CLI" -q sql "SHOW TBLPROPERTIES $T" >"$tmp/props" 2>&1
grep -q 'owner' "$tmp/props" && fail "owner still set: $(cat "$tmp/props")"

# column mapping on (no file rewritten), a column added under it (a col-<uuid>
# physical name), then dropped again: the files are rewritten with the
# logical names, which DuckDB reads without knowing column mapping
sql "ALTER TABLE $T SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name')"
sql "ALTER TABLE $T ADD COLUMNS (extra INT)"
compare "column mapping on" dv
sql "ALTER TABLE $T DROP FEATURE columnMapping"
compare "DROP FEATURE columnMapping"
p=$(protocol)
case "$p" in *columnMapping*) fail "the protocol still names columnMapping: $p" ;; esac
"$DL_CLI" -q sql "SHOW TBLPROPERTIES $T" >"$tmp/props" 2>&1
grep -q 'columnMapping' "$tmp/props" && fail "column mapping properties left: $(cat "$tmp/props")"

# ---- errors: Spark's classes, exit 1, table unchanged ----
before=$(cd "$t" && find . -type f | sort | xargs md5sum)
check_err() { # CLASS SQL
	"$DL_CLI" -q sql "$2" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ "$rc" -eq 1 ] || fail "$2 exited $rc, expected 1"
	grep -q -- "$1" "$tmp/err" || fail "$2: stderr lacks $1: $(cat "$tmp/err")"
}
check_err DELTA_UNKNOWN_CONFIGURATION "ALTER TABLE $T SET TBLPROPERTIES ('delta.nope' = '1')"
check_err "delta.checkpointInterval" "ALTER TABLE $T SET TBLPROPERTIES ('delta.checkpointInterval' = '-1')"
check_err DELTA_UNSET_NON_EXISTENT_PROPERTY "ALTER TABLE $T UNSET TBLPROPERTIES ('nothing')"
check_err DELTA_CONSTRAINT_DOES_NOT_EXIST "ALTER TABLE $T DROP CONSTRAINT nothing"
check_err DELTA_FEATURE_DROP_FEATURE_NOT_PRESENT "ALTER TABLE $T DROP FEATURE v2Checkpoint"
check_err DELTA_FEATURE_DROP_NONREMOVABLE_FEATURE "ALTER TABLE $T DROP FEATURE changeDataFeed"
check_err DELTA_FEATURE_CAN_ONLY_DROP_CHECKPOINT_PROTECTION_WITH_HISTORY_TRUNCATION "ALTER TABLE $T DROP FEATURE checkpointProtection"
after=$(cd "$t" && find . -type f | sort | xargs md5sum)
[ "$before" = "$after" ] || fail "a failed ALTER changed the table"

[ "$fails" -eq 0 ] && echo "alter_features: ok"
exit $((fails > 0))
