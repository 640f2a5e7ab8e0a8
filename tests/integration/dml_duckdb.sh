#!/usr/bin/env bash
# `deltalake delete` and `deltalake update` against DuckDB applying the same
# statements to the same rows: for tables with and without deletion
# vectors, partitioned and not, with change data feed and row tracking, the
# affected row counts and the final rows (through our reader) must equal
# DuckDB's; copy-on-write tables are also read by DuckDB from their live
# data files. Then the error paths: exit codes, one-line errors, and the
# table unchanged. Needs DL_CLI and DL_ORACLE_DIR.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
: "${DL_ORACLE_DIR:?DL_ORACLE_DIR must name tools/oracle}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
oracle() { (cd "$DL_ORACLE_DIR" && node "$here/dml_duckdb_check.mjs" "$@"); }

oracle make "$tmp/src.parquet" 2000 || { echo "FAIL: DuckDB could not make the data"; exit 1; }

# Each statement as DuckDB runs it, and the CLI arguments of the same one.
cat >"$tmp/stmts.sql" <<'SQL'
DELETE FROM t WHERE id % 10 = 3
UPDATE t SET v = v * 2 + 1 WHERE id % 7 = 0
UPDATE t SET name = upper(name), g = (g + 1) % 5 WHERE v > 500 AND v < 700
DELETE FROM t WHERE v > 900 OR name = 'n5'
DELETE FROM t WHERE g = 2
UPDATE t SET v = NULL WHERE id % 11 = 0
UPDATE t SET name = name || '!'
DELETE FROM t WHERE id > 100000
UPDATE t SET v = 0 WHERE name IS NULL AND g = 1
SQL
run_ours() { # TABLE
	local t=$1
	"$DL_CLI" --format csv delete "$t" --where "id % 10 = 3"
	"$DL_CLI" --format csv update "$t" --set "v = v * 2 + 1" --where "id % 7 = 0"
	"$DL_CLI" --format csv update "$t" --set "name = upper(name)" --set "g = (g + 1) % 5" --where "v > 500 AND v < 700"
	"$DL_CLI" --format csv delete "$t" --where "v > 900 OR name = 'n5'"
	"$DL_CLI" --format csv delete "$t" --where "g = 2"
	"$DL_CLI" --format csv update "$t" --set "v = NULL" --where "id % 11 = 0"
	"$DL_CLI" --format csv update "$t" --set "name = name || '!'"
	"$DL_CLI" --format csv delete "$t" --where "id > 100000"
	"$DL_CLI" --format csv update "$t" --set "v = 0" --where "name IS NULL AND g = 1"
}
oracle apply "$tmp/src.parquet" "$tmp/stmts.sql" >"$tmp/duck.out" || fail "DuckDB could not apply the statements"
grep '^affected' "$tmp/duck.out" | sed 's/affected //' >"$tmp/duck.counts"
grep -v '^affected' "$tmp/duck.out" >"$tmp/duck.rows"

# name, partitioned, properties...
configs=(
	"plain|no|"
	"dv|no|delta.enableDeletionVectors=true"
	"part|yes|"
	"part_dv|yes|delta.enableDeletionVectors=true"
	"cdf_rt|yes|delta.enableChangeDataFeed=true delta.enableRowTracking=true"
	"dv_cdf_rt|no|delta.enableDeletionVectors=true delta.enableChangeDataFeed=true delta.enableRowTracking=true"
)
for cfg in "${configs[@]}"; do
	IFS='|' read -r name part props <<<"$cfg"
	t=$tmp/$name
	args=(create "$t" --schema "id BIGINT, g INT, v INT, name STRING")
	[ "$part" = yes ] && args+=(--partition-by g)
	for p in $props; do args+=(--property "$p"); done
	"$DL_CLI" "${args[@]}" >/dev/null 2>"$tmp/err" || { fail "$name: create: $(cat "$tmp/err")"; continue; }
	"$DL_CLI" write "$t" -i "$tmp/src.parquet" -m append --max-records-per-file 300 >/dev/null 2>"$tmp/err" ||
		{ fail "$name: write: $(cat "$tmp/err")"; continue; }
	run_ours "$t" 2>"$tmp/err" | grep -v '^num_affected_rows' >"$tmp/ours.counts" ||
		fail "$name: a command failed: $(head -c 300 "$tmp/err")"
	[ -s "$tmp/err" ] && fail "$name: stderr: $(head -c 300 "$tmp/err")"
	diff "$tmp/duck.counts" "$tmp/ours.counts" >/dev/null ||
		fail "$name: affected rows differ (DuckDB | ours): $(paste -d'|' "$tmp/duck.counts" "$tmp/ours.counts" | tr '\n' ' ')"
	"$DL_CLI" cat "$t" --columns id,g,v,name --format csv 2>"$tmp/err" | tail -n +2 | sort >"$tmp/ours.rows"
	diff "$tmp/duck.rows" "$tmp/ours.rows" >"$tmp/diff" ||
		fail "$name: our reader's rows differ from DuckDB's: $(head -c 400 "$tmp/diff")"
	if [[ "$props" != *DeletionVectors* ]]; then
		"$DL_CLI" files "$t" --format csv 2>"$tmp/err" | tail -n +2 | cut -d, -f1 >"$tmp/files"
		oracle files "$t" "$tmp/files" >"$tmp/duckfiles.rows" || fail "$name: DuckDB could not read the files"
		diff "$tmp/duck.rows" "$tmp/duckfiles.rows" >"$tmp/diff" ||
			fail "$name: DuckDB reading the data files disagrees: $(head -c 400 "$tmp/diff")"
	else
		ls "$t"/deletion_vector_*.bin >/dev/null 2>&1 || fail "$name: no deletion vector file written"
	fi
	if [[ "$props" == *ChangeDataFeed* ]]; then
		# the change feed of the first UPDATE (version 3): pre and post images of its rows
		"$DL_CLI" changes "$t" --from 3 --to 3 --format csv >"$tmp/changes" 2>"$tmp/err" ||
			fail "$name: changes: $(cat "$tmp/err")"
		n=$(sed -n 2p "$tmp/duck.counts")
		pre=$(grep -c ',update_preimage,' "$tmp/changes")
		post=$(grep -c ',update_postimage,' "$tmp/changes")
		[ "$pre" = "$n" ] && [ "$post" = "$n" ] ||
			fail "$name: version 3 has $pre preimages and $post postimages, expected $n each"
		# the first DELETE (version 2): its rows as `delete` changes, from cdc files
		# (copy-on-write) or derived from the deletion vectors
		"$DL_CLI" changes "$t" --from 2 --to 2 --format csv >"$tmp/changes" 2>"$tmp/err" ||
			fail "$name: changes: $(cat "$tmp/err")"
		n=$(sed -n 1p "$tmp/duck.counts")
		del=$(grep -c ',delete,' "$tmp/changes")
		[ "$del" = "$n" ] || fail "$name: version 2 has $del delete changes, expected $n"
	fi
	v=$("$DL_CLI" history "$t" --format csv -n 1 | tail -n +2 | cut -d, -f1)
	# 9 statements, one of which matches nothing: versions 2..9
	[ "$v" = 9 ] || fail "$name: latest version $v, expected 9 (a no-op DELETE commits nothing)"
done

# ---- errors: exit codes, one line, table unchanged ----
t=$tmp/plain
before=$(cd "$t" && find . -type f | sort | xargs md5sum)
check_err() { # EXIT PATTERN ARGS...
	local want=$1 pat=$2; shift 2
	"$DL_CLI" "$@" >"$tmp/out" 2>"$tmp/err"
	local got=$?
	[ "$got" -eq "$want" ] || fail "deltalake $* exited $got, expected $want"
	[ "$(wc -l <"$tmp/err")" -le 1 ] || [ "$want" -eq 2 ] || fail "deltalake $*: more than one error line: $(cat "$tmp/err")"
	grep -q -- "$pat" "$tmp/err" || fail "deltalake $*: stderr lacks '$pat': $(cat "$tmp/err")"
}
check_err 1 "nope" delete "$t" --where "nope = 1"
check_err 1 "not deterministic" delete "$t" --where "uuid() = name"
check_err 1 "DELTA_MISSING_SET_COLUMN\|not a column" update "$t" --set "nope = 1"
check_err 1 "conflict" update "$t" --set "v = 1" --set "V = 2"
check_err 1 "" update "$t" --set "v = 'x'"
check_err 2 "--set" update "$t"
check_err 2 "COL = EXPR" update "$t" --set "v"
check_err 1 "no Delta table" delete "$tmp/missing"
after=$(cd "$t" && find . -type f | sort | xargs md5sum)
[ "$before" = "$after" ] || fail "a failed command changed the table"
"$DL_CLI" delete --help >"$tmp/out" 2>&1 && grep -q -- "--where" "$tmp/out" || fail "delete --help"
"$DL_CLI" update --help >"$tmp/out" 2>&1 && grep -q -- "--set" "$tmp/out" || fail "update --help"
"$DL_CLI" --format json delete "$t" --where "id = 1" >"$tmp/out" 2>&1
grep -q '"num_affected_rows": *1' "$tmp/out" || fail "--format json: $(cat "$tmp/out")"

# ---- kill -9 mid-command: the table reads as before or as after, never half ----
t=$tmp/killed
"$DL_CLI" create "$t" --schema "id BIGINT, g INT, v INT, name STRING" >/dev/null
for i in 1 2 3 4; do "$DL_CLI" write "$t" -i "$tmp/src.parquet" -m append >/dev/null; done
rows_before=$("$DL_CLI" cat "$t" --columns id --format csv | tail -n +2 | wc -l)
for delay in 0.05 0.15 0.3; do
	v0=$("$DL_CLI" history "$t" --format csv -n 1 | tail -n +2 | cut -d, -f1)
	rows0=$("$DL_CLI" cat "$t" --columns id --format csv | tail -n +2 | wc -l)
	"$DL_CLI" update "$t" --set "v = v + 1" --where "id % 2 = 0" >/dev/null 2>&1 &
	pid=$!
	sleep "$delay"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	v1=$("$DL_CLI" history "$t" --format csv -n 1 | tail -n +2 | cut -d, -f1)
	rows1=$("$DL_CLI" cat "$t" --columns id --format csv 2>"$tmp/err" | tail -n +2 | wc -l) ||
		fail "killed after ${delay}s: the table does not read: $(cat "$tmp/err")"
	[ "$rows1" = "$rows0" ] || fail "killed after ${delay}s: $rows1 rows, expected $rows0"
	[ "$v1" = "$v0" ] || [ "$v1" = $((v0 + 1)) ] || fail "killed after ${delay}s: version $v0 -> $v1"
done
[ "$rows_before" = 8000 ] || fail "the killed table started with $rows_before rows"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "dml_duckdb: ok"
