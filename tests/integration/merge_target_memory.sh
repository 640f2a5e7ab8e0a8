#!/usr/bin/env bash
# MERGE's peak memory does not grow with the size of a target file (issue
# 11 item 7: "peak memory depends on the source and the memory limit,
# never on the target's size"). The same 2000-row source (half matching)
# is merged into a one-file target of 3M rows and of 6M rows (row groups
# of about 2.4M rows): the target stream reads a file a part at a time
# (runs of row groups, dl_scan_read_add_parts), so doubling the file adds
# little; when each file's rows were buffered whole before the join, the
# 6M-row file peaked 175 MB above the 3M-row one (484 against 252 MB at
# 8M/4M rows). The results are checked too. Needs DL_CLI.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
# one thread: how many read-ahead buffers are alive at the peak depends on
# timing otherwise
. "$(dirname "$0")/lib/peak_rss.sh"
peak() { peak_rss env DL_THREADS=1 "$@"; }

"$DL_CLI" create "$tmp/src" --schema "id BIGINT, pad STRING" -q >/dev/null &&
	"$DL_CLI" sql "INSERT INTO delta.\`$tmp/src\` SELECT id * 3000, 'new' FROM range(2000)" >/dev/null ||
	{ echo "FAIL: source setup" >&2; exit 1; }
declare -A rss
for n in 3000000 6000000; do
	t=$tmp/t$n
	"$DL_CLI" create "$t" --schema "id BIGINT, pad STRING" -q >/dev/null &&
		"$DL_CLI" sql "INSERT INTO delta.\`$t\` SELECT id, concat(repeat('x', 40), CAST(id AS STRING)) FROM range($n)" \
			>/dev/null || { echo "FAIL: target setup ($n rows)" >&2; exit 1; }
	files=$(find "$t" -name '*.parquet' | wc -l)
	[ "$files" = 1 ] || fail "the $n-row target has $files files, not one"
	rss[$n]=$(peak "$DL_CLI" merge "$t" --source "$tmp/src" --alias t,s --on "t.id = s.id" \
		--when "MATCHED THEN UPDATE SET pad = s.pad" --when "NOT MATCHED THEN INSERT *" -q)
	[ "${rss[$n]}" -gt 0 ] || fail "the MERGE into $n rows failed"
	matched=$(( (n + 2999) / 3000 ))
	want="$((n + 2000 - matched)),$matched"
	got=$("$DL_CLI" sql --format csv "SELECT count(*), sum(CASE WHEN pad = 'new' AND id < $n THEN 1 ELSE 0 END) FROM delta.\`$t\`" | tail -1)
	[ "$got" = "$want" ] || fail "after the MERGE into $n rows: count, updated = $got, expected $want"
	echo "MERGE of 2000 source rows into a one-file target of $n rows: peak RSS ${rss[$n]} KB"
done
# ASan's shadow memory and quarantine swamp the figure: checked in plain builds
grep -q __asan_init "$DL_CLI" 2>/dev/null ||
	[ $((rss[6000000] - rss[3000000])) -lt $((40 * 1024)) ] ||
	fail "doubling the target file from 3M to 6M rows raised MERGE's peak from ${rss[3000000]} to ${rss[6000000]} KB"
[ "$fails" -eq 0 ] || { echo "$fails failure(s)" >&2; exit 1; }
echo "merge_target_memory: the target is read a part at a time"
