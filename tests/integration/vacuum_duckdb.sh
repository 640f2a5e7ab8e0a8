#!/usr/bin/env bash
# `deltalake vacuum` end to end: after DELETE/UPDATE (copy-on-write and
# deletion vectors, partitioned, change data feed), a dry run lists exactly
# what the real run then deletes, the files left are exactly the live ones
# plus hidden paths, DuckDB reading the live files from the log agrees with
# our reader's rows (copy-on-write tables), the current deletion vector
# file is kept and the replaced one goes, time travel before the window
# fails clearly; then VACUUM during concurrent appends never deletes a
# file a commit adds, the retention error's exit code, SQL VACUUM / FSCK /
# GENERATE results. Needs DL_CLI and DL_ORACLE_DIR.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
: "${DL_ORACLE_DIR:?DL_ORACLE_DIR must name tools/oracle}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
oracle() { (cd "$DL_ORACLE_DIR" && node "$here/dml_duckdb_check.mjs" "$@"); }
V=("$DL_CLI" vacuum)

oracle make "$tmp/src.parquet" 2000 || { echo "FAIL: DuckDB could not make the data"; exit 1; }

# every non-hidden file under the table, relative, sorted
table_files() {
	(cd "$1" && find . -type f | sed 's|^\./||' | grep -v -E '(^|/)[._]' | LC_ALL=C sort)
}
# hidden ones (but _change_data and partition dirs are not hidden)
hidden_files() {
	(cd "$1" && find . -type f | sed 's|^\./||' | grep -E '(^|/)[._]' | grep -v '^_change_data/' | LC_ALL=C sort)
}

configs=(
	"cow|no|"
	"part_cdf|yes|delta.enableChangeDataFeed=true"
	"dv|no|delta.enableDeletionVectors=true"
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
	"$DL_CLI" delete "$t" --where "id % 10 = 3" >/dev/null 2>"$tmp/err" || fail "$name: delete: $(cat "$tmp/err")"
	"$DL_CLI" update "$t" --set "v = v + 1" --where "id % 7 = 0" >/dev/null 2>"$tmp/err" ||
		fail "$name: update: $(cat "$tmp/err")"
	"$DL_CLI" delete "$t" --where "id % 10 = 4" >/dev/null 2>"$tmp/err" || fail "$name: delete: $(cat "$tmp/err")"
	"$DL_CLI" cat "$t" --columns id,g,v,name --format csv | tail -n +2 | sort >"$tmp/before.rows"
	v_before=$("$DL_CLI" --format csv detail "$t" 2>/dev/null | head -1 >/dev/null; ls "$t/_delta_log" | grep -c '\.json$')
	# files written "long ago" as far as the retention is concerned: an orphan
	printf 'junk' >"$t/orphan-of-a-failed-write.parquet"
	hidden_before=$(hidden_files "$t" | grep -v '^_delta_log/')

	# a retention shorter than the table's is refused (exit 1), nothing changes
	ls -R "$t" >"$tmp/tree.before"
	"${V[@]}" "$t" --retain 0 >/dev/null 2>"$tmp/err"
	[ $? = 1 ] || fail "$name: --retain 0 without --no-retention-check did not exit 1"
	grep -q DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT "$tmp/err" || fail "$name: no retention error class: $(cat "$tmp/err")"
	ls -R "$t" >"$tmp/tree.after"
	cmp -s "$tmp/tree.before" "$tmp/tree.after" || fail "$name: a refused VACUUM changed the table"

	"${V[@]}" "$t" --retain 0 --no-retention-check --dry-run --format csv 2>"$tmp/err" | tail -n +2 |
		sed "s|^$t/||" | LC_ALL=C sort >"$tmp/dry"
	[ -s "$tmp/dry" ] || fail "$name: the dry run lists nothing: $(cat "$tmp/err")"
	table_files "$t" >"$tmp/all.before"
	"${V[@]}" "$t" --retain 0 --no-retention-check --format csv >"$tmp/metrics" 2>"$tmp/err" ||
		fail "$name: vacuum: $(cat "$tmp/err")"
	table_files "$t" >"$tmp/all.after"
	# what went = what the dry run listed
	LC_ALL=C comm -23 "$tmp/all.before" "$tmp/all.after" >"$tmp/gone"
	grep -v -E '/$' "$tmp/dry" | LC_ALL=C sort >"$tmp/dry.files"
	LC_ALL=C comm -23 "$tmp/dry.files" "$tmp/gone" | while read -r d; do [ -e "$t/$d" ] && echo "$d"; done >"$tmp/kept"
	[ -s "$tmp/kept" ] && fail "$name: listed by the dry run but still there: $(head -3 "$tmp/kept")"
	LC_ALL=C comm -13 "$tmp/dry" "$tmp/gone" >"$tmp/unlisted"
	[ -s "$tmp/unlisted" ] && fail "$name: deleted without being listed: $(head -3 "$tmp/unlisted")"
	grep -q orphan-of-a-failed-write "$tmp/gone" || fail "$name: the orphan was not deleted"
	n=$(wc -l <"$tmp/dry")
	tail -1 "$tmp/metrics" | grep -q "^$n,.*,$n," || fail "$name: metrics $(tail -1 "$tmp/metrics") vs $n listed"
	# what is left: the live data files and their DV files, nothing else
	"$DL_CLI" files "$t" --format csv 2>"$tmp/err" | tail -n +2 | cut -d, -f1 |
		while read -r p; do printf '%b\n' "${p//%/\\x}"; done | LC_ALL=C sort >"$tmp/live"
	grep -v '^deletion_vector_' "$tmp/all.after" | grep -v '^_change_data/' >"$tmp/left"
	diff "$tmp/live" "$tmp/left" >"$tmp/diff" || fail "$name: files left are not the live ones: $(head -c 400 "$tmp/diff")"
	# hidden files were left alone
	[ "$(hidden_files "$t" | grep -v '^_delta_log/')" = "$hidden_before" ] || fail "$name: hidden files changed"
	# rows as before; DuckDB agrees reading the live files (no DVs)
	"$DL_CLI" cat "$t" --columns id,g,v,name --format csv | tail -n +2 | sort >"$tmp/after.rows"
	diff "$tmp/before.rows" "$tmp/after.rows" >/dev/null || fail "$name: rows changed by VACUUM"
	if [[ "$props" != *DeletionVectors* ]]; then
		oracle files "$t" "$tmp/live" >"$tmp/duck.rows" || fail "$name: DuckDB could not read the files"
		diff "$tmp/before.rows" "$tmp/duck.rows" >"$tmp/diff" ||
			fail "$name: DuckDB reading the live files disagrees: $(head -c 400 "$tmp/diff")"
	else
		ndv=$(grep -c '^deletion_vector_' "$tmp/all.after")
		[ "$ndv" = 1 ] || fail "$name: $ndv deletion vector files left, expected the live one"
		grep -q '^deletion_vector_' "$tmp/gone" || fail "$name: the replaced deletion vector file was kept"
	fi
	# an old version's files are gone: reading it fails naming a file, exit
	# 1 (with DVs the data files of version 1 are still live: version 2's
	# deletion vector file was replaced by the second DELETE's)
	old=1 what=part-
	[[ "$props" == *DeletionVectors* ]] && old=2 what=deletion_vector_
	"$DL_CLI" cat "$t" --version $old --format csv >/dev/null 2>"$tmp/err"
	[ $? = 1 ] || fail "$name: reading vacuumed version $old did not fail"
	grep -q "$what" "$tmp/err" || fail "$name: the error does not name the file: $(cat "$tmp/err")"
	last=$(ls "$t/_delta_log" | grep '\.json$' | tail -1)
	grep -q '"operation":"VACUUM END"' "$t/_delta_log/$last" || fail "$name: no VACUUM END commit"
	[ "$v_before" -gt 0 ] || true
done

# VACUUM during appends: with the default window, a file an append writes
# is newer than the cut-off, so it is never deleted; every row committed
# reads back.
t=$tmp/concurrent
"$DL_CLI" create "$t" --schema "id BIGINT, g INT, v INT, name STRING" >/dev/null
printf 'old' >"$t/orphan.parquet"
touch -d '30 days ago' "$t/orphan.parquet"
(for i in 1 2 3 4 5 6; do "$DL_CLI" write "$t" -i "$tmp/src.parquet" -m append >/dev/null 2>>"$tmp/append.err"; done) &
apid=$!
for i in 1 2 3 4 5 6; do "${V[@]}" "$t" >/dev/null 2>>"$tmp/vac.err" || true; done
wait "$apid" || fail "concurrent: an append failed: $(head -c 300 "$tmp/append.err")"
"${V[@]}" "$t" >/dev/null 2>>"$tmp/vac.err" || fail "concurrent: vacuum failed: $(head -c 300 "$tmp/vac.err")"
[ -e "$t/orphan.parquet" ] && fail "concurrent: the old orphan was not deleted"
rows=$("$DL_CLI" cat "$t" --columns id --format csv 2>"$tmp/err" | tail -n +2 | wc -l)
[ "$rows" = 12000 ] || fail "concurrent: $rows rows after appends during VACUUM, expected 12000: $(head -c 300 "$tmp/err")"

# SQL: DRY RUN rows `path`, the real run's row is the table path; FSCK;
# GENERATE.
t=$tmp/sql
"$DL_CLI" create "$t" --schema "id BIGINT, g INT, v INT, name STRING" --partition-by g >/dev/null
"$DL_CLI" write "$t" -i "$tmp/src.parquet" -m append >/dev/null
printf 'old' >"$t/stray.parquet"
touch -d '30 days ago' "$t/stray.parquet"
out=$("$DL_CLI" sql --format csv -c "VACUUM delta.\`$t\` DRY RUN" 2>&1)
[ "$out" = "$(printf 'path\n%s/stray.parquet' "$t")" ] || fail "sql: VACUUM DRY RUN gave: $out"
out=$("$DL_CLI" sql --format csv -c "VACUUM delta.\`$t\` RETAIN 200 HOURS" 2>&1)
[ "$out" = "$(printf 'path\n%s' "$t")" ] || fail "sql: VACUUM gave: $out"
[ -e "$t/stray.parquet" ] && fail "sql: VACUUM left the stray file"
out=$("$DL_CLI" sql --format csv -c "VACUUM delta.\`$t\` RETAIN 1 HOURS" 2>&1)
[[ "$out" == *DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT* ]] || fail "sql: short retention gave: $out"
out=$("$DL_CLI" sql --format csv -c "SET spark.databricks.delta.retentionDurationCheck.enabled = false; VACUUM delta.\`$t\` RETAIN 0 HOURS LITE DRY RUN" 2>&1)
[[ "$out" == path* ]] || fail "sql: LITE with the check off gave: $out"
f=$(cd "$t" && ls g=1/*.parquet | head -1)
rm "$t/$f"
out=$("$DL_CLI" sql --format csv -c "FSCK REPAIR TABLE delta.\`$t\` DRY RUN" 2>&1)
[ "$out" = "$(printf 'dataFilePath,dataFileMissing\n%s,true' "$f")" ] || fail "sql: FSCK DRY RUN gave: $out"
"$DL_CLI" sql -c "FSCK REPAIR TABLE delta.\`$t\`" >/dev/null 2>"$tmp/err" || fail "sql: FSCK: $(cat "$tmp/err")"
"$DL_CLI" cat "$t" --format csv >/dev/null 2>"$tmp/err" || fail "sql: the table does not read after FSCK: $(cat "$tmp/err")"
"$DL_CLI" sql -c "GENERATE symlink_format_manifest FOR TABLE delta.\`$t\`" >/dev/null 2>"$tmp/err" ||
	fail "sql: GENERATE: $(cat "$tmp/err")"
n=$(cat "$t"/_symlink_format_manifest/g=*/manifest | wc -l)
live=$("$DL_CLI" files "$t" --format csv | tail -n +2 | wc -l)
[ "$n" = "$live" ] || fail "sql: manifests list $n files, the table has $live"

[ "$fails" = 0 ] && echo "vacuum_duckdb: all checks passed"
exit $((fails > 0))
