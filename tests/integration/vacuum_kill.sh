#!/usr/bin/env bash
# kill -9 of VACUUM at random points of its run (listing, the VACUUM START
# commit, the parallel deletes, VACUUM END): after each kill the table reads
# the same rows, the log is whole and references no deleted file, and
# VACUUM run again finishes, leaving exactly the files the table
# references. Needs DL_CLI.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
. "$here/lib/kill.sh"
D() { "$DL_CLI" -q "$@"; }
data_files() { find "$1" -name '*.parquet' -not -path '*/_delta_log/*' | wc -l; }

# 300 files, overwritten by 300 others: 300 unreferenced files to delete
seq 1 3000 | awk '{ print $1 "," ($1 % 3) "," ($1 * 7919 % 1000) ",n" $1 }' | sed '1i id,g,v,name' >"$tmp/d.csv"
base=$tmp/base
D create "$base" --schema "id BIGINT, g INT, v INT, name STRING" --partition-by g >/dev/null || fail "create"
D write "$base" -i "$tmp/d.csv" -m append --max-records-per-file 10 >/dev/null || fail "write"
D write "$base" -i "$tmp/d.csv" -m overwrite --max-records-per-file 10 >/dev/null || fail "overwrite"
table_rows "$base" >"$tmp/expected"
live=$(D files "$base" --format csv | tail -n +2 | wc -l)
[ "$(data_files "$base")" -eq $((2 * live)) ] || fail "the base table does not hold twice its live files"

args=(--retain 0 --no-retention-check)
rm -rf "$tmp/m" && cp -r "$base" "$tmp/m"
dur=$(run_ns "$DL_CLI" -q vacuum "$tmp/m" "${args[@]}")
[ "$(data_files "$tmp/m")" -eq "$live" ] || fail "VACUUM did not leave exactly the live files"
for delay in $(kill_delays "$dur" 6); do
	what="kill -9 of VACUUM at ${delay}s"
	k=$tmp/k
	rm -rf "$k" && cp -r "$base" "$k"
	run_killed "$delay" "$DL_CLI" -q vacuum "$k" "${args[@]}"
	table_rows "$k" >"$tmp/ours" 2>"$tmp/err" || fail "$what: the table does not read: $(cat "$tmp/err")"
	cmp -s "$tmp/expected" "$tmp/ours" || fail "$what: the rows changed"
	log_valid "$what" "$k"
	n=$(data_files "$k")
	[ "$n" -ge "$live" ] && [ "$n" -le $((2 * live)) ] || fail "$what: $n data files left"
	D vacuum "$k" "${args[@]}" >/dev/null 2>"$tmp/err" || fail "$what: VACUUM again fails: $(cat "$tmp/err")"
	table_rows "$k" >"$tmp/ours"
	cmp -s "$tmp/expected" "$tmp/ours" || fail "$what: the rows changed after VACUUM again"
	log_valid "$what, then VACUUM again" "$k"
	[ "$(data_files "$k")" -eq "$live" ] || fail "$what: VACUUM again left $(data_files "$k") files, not the $live live ones"
	# the rerun's START and END (the killed run may have committed its START)
	grep -q '"operation":"VACUUM END"' "$(ls "$k"/_delta_log/[0-9]*.json | tail -1)" ||
		fail "$what: the rerun did not end with VACUUM END"
done

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "vacuum_kill: ok"
