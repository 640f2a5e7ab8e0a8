#!/usr/bin/env bash
# kill -9 of OPTIMIZE (bin-packing and Z-order) at random points of its
# run: after each kill the table reads the same rows, the log is whole
# (OPTIMIZE committed entirely or not at all), and OPTIMIZE run again
# finishes and still leaves the same rows. Needs DL_CLI.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
. "$here/lib/kill.sh"
D() { "$DL_CLI" -q "$@"; }

# 400 small files in 4 partitions
seq 1 4000 | awk '{ print $1 "," ($1 % 4) "," ($1 * 7919 % 1000) ",n" $1 }' | sed '1i id,g,v,name' >"$tmp/d.csv"
base=$tmp/base
D create "$base" --schema "id BIGINT, g INT, v INT, name STRING" --partition-by g >/dev/null || fail "create"
D write "$base" -i "$tmp/d.csv" -m append --max-records-per-file 10 >/dev/null || fail "write"
table_rows "$base" >"$tmp/expected"
[ "$(wc -l <"$tmp/expected")" -eq 4000 ] || fail "the table does not hold 4000 rows"

for mode in binpack zorder; do
	args=(--max-file-size 30000)
	[ "$mode" = zorder ] && args+=(--zorder-by id,v)
	rm -rf "$tmp/m" && cp -r "$base" "$tmp/m"
	dur=$(run_ns "$DL_CLI" -q optimize "$tmp/m" "${args[@]}")
	for delay in $(kill_delays "$dur" 4); do
		what="kill -9 of OPTIMIZE ($mode) at ${delay}s"
		k=$tmp/k
		rm -rf "$k" && cp -r "$base" "$k"
		run_killed "$delay" "$DL_CLI" -q optimize "$k" "${args[@]}"
		table_rows "$k" >"$tmp/ours" 2>"$tmp/err" || fail "$what: the table does not read: $(cat "$tmp/err")"
		cmp -s "$tmp/expected" "$tmp/ours" || fail "$what: the rows changed"
		log_valid "$what" "$k"
		D optimize "$k" "${args[@]}" >/dev/null 2>"$tmp/err" || fail "$what: OPTIMIZE again fails: $(cat "$tmp/err")"
		table_rows "$k" >"$tmp/ours"
		cmp -s "$tmp/expected" "$tmp/ours" || fail "$what: the rows changed after OPTIMIZE again"
		log_valid "$what, then OPTIMIZE again" "$k"
		# the killed run or the rerun committed it (both may: Z-order always
		# rewrites, and compacted files below the target are compacted again)
		grep -q '"operation":"OPTIMIZE"' "$k"/_delta_log/[0-9]*.json || fail "$what: no OPTIMIZE commit after the rerun"
	done
done

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "optimize_kill: ok"
