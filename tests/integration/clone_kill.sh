#!/usr/bin/env bash
# kill -9 of SHALLOW CLONE at random points of its run: the source is never
# touched; the target is either no table (CLONE run again makes it) or a
# whole version 0 that reads like the source; its log is whole and every
# file it references exists. Needs DL_CLI.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
. "$here/lib/kill.sh"
D() { "$DL_CLI" -q "$@"; }

# 1000 files with a deletion vector and a second version
seq 1 10000 | awk '{ print $1 "," ($1 % 5) "," ($1 * 7919 % 1000) ",n" $1 }' | sed '1i id,g,v,name' >"$tmp/d.csv"
src=$tmp/src
D create "$src" --schema "id BIGINT, g INT, v INT, name STRING" --partition-by g \
	--property delta.enableDeletionVectors=true >/dev/null || fail "create"
D write "$src" -i "$tmp/d.csv" -m append --max-records-per-file 10 >/dev/null || fail "write"
D delete "$src" --where "id % 10 = 3" >/dev/null || fail "delete"
table_rows "$src" >"$tmp/expected"
cp -r "$src" "$tmp/src_before"

dur=$(run_ns "$DL_CLI" -q clone "$src" "$tmp/m")
table_rows "$tmp/m" >"$tmp/ours"
cmp -s "$tmp/expected" "$tmp/ours" || fail "the unkilled clone does not read like its source"
committed=0 not=0
for delay in $(kill_delays "$dur" 8); do
	what="kill -9 of CLONE at ${delay}s"
	k=$tmp/k$delay
	run_killed "$delay" "$DL_CLI" -q clone "$src" "$k"
	if [ -e "$k/_delta_log/00000000000000000000.json" ]; then
		committed=$((committed + 1))
	else
		not=$((not + 1))
		D clone "$src" "$k" >/dev/null 2>"$tmp/err" || fail "$what: CLONE again fails: $(cat "$tmp/err")"
	fi
	table_rows "$k" >"$tmp/ours" 2>"$tmp/err" || fail "$what: the clone does not read: $(cat "$tmp/err")"
	cmp -s "$tmp/expected" "$tmp/ours" || fail "$what: the clone does not read like its source"
	log_valid "$what" "$k"
	[ "$(ls "$k"/_delta_log/[0-9]*.json | wc -l)" -eq 1 ] || fail "$what: the clone has more than version 0"
	diff -r "$src" "$tmp/src_before" >/dev/null || fail "$what: the source changed"
	rm -rf "$k"
done
echo "clone kills: $committed after the commit, $not before"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "clone_kill: ok"
