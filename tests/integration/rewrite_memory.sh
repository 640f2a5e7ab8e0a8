#!/usr/bin/env bash
# What the rewrite engine holds per touched row (issue 11 item 7: peak
# memory depends on the source and the memory limit, never on the target's
# size). A DELETE through deletion vectors of half the rows of a 20M-row
# one-file table against one deleting a single row of the same table: the
# same scan, so the difference in peak RSS is what deleting 10M rows costs.
# The positions were 8-byte arrays (the rows deleted, then the DV's merged
# list): 159 MB more, of which 80 MB is the first array alone. As row sets
# (src/log/row_set.c) they take about a bit a row, as the DV written
# does: 10 MB more. The second DELETE and a MERGE run on the DV the first
# wrote, its rows read back as row sets by the scan's reader, MERGE's
# target reader and the rewrite engine (8-byte positions in the first two
# before: 139 MB). Needs DL_CLI.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
# one thread: the scan's read-ahead buffers per thread are bounded but how
# many are alive at the peak depends on timing
. "$(dirname "$0")/lib/peak_rss.sh"
peak() { peak_rss env DL_THREADS=1 "$@"; }

n=20000000
"$DL_CLI" create "$tmp/t" --schema "id BIGINT, v BIGINT" --property delta.enableDeletionVectors=true -q >/dev/null &&
	"$DL_CLI" sql "INSERT INTO delta.\`$tmp/t\` SELECT id, id * 7 FROM range($n)" >/dev/null ||
	{ echo "FAIL: setup" >&2; exit 1; }
cp -r "$tmp/t" "$tmp/one"
half=$(peak "$DL_CLI" delete "$tmp/t" --where "id % 2 = 0" -q)
one=$(peak "$DL_CLI" delete "$tmp/one" --where "id = 1" -q)
[ "$half" -gt 0 ] && [ "$one" -gt 0 ] || fail "delete failed"
got=$("$DL_CLI" sql --format csv "SELECT count(*), sum(id % 2) FROM delta.\`$tmp/t\`" | tail -1)
[ "$got" = "10000000,10000000" ] || fail "after deleting the even ids: count, odd ids = $got"
dv=$(grep '^{"add"' "$tmp/t/_delta_log/00000000000000000002.json" | grep -o '"cardinality":[0-9]*')
[ "$dv" = '"cardinality":10000000' ] || fail "the DV holds $dv"
# ASan's shadow memory and quarantine swamp the figure: checked in plain builds
grep -q __asan_init "$DL_CLI" 2>/dev/null ||
	[ $((half - one)) -lt $((40 * 1024)) ] ||
	fail "deleting 10M rows peaks at $half KB, deleting one at $one KB: the positions are not bounded"
echo "DV delete of 10M of 20M rows: peak RSS $half KB, of one row $one KB"

# the old DV's 10M rows merged with 3.3M more: the scan's reader reads the
# old DV as a row set too (it listed its rows as 8-byte positions, 80 MB,
# peaking 100 MB above the first delete), so this one costs about as much
cp -r "$tmp/t" "$tmp/t2"
third=$(peak "$DL_CLI" delete "$tmp/t" --where "id % 3 = 0" -q)
[ "$third" -gt 0 ] || fail "second delete failed"
got=$("$DL_CLI" sql --format csv "SELECT count(*), sum(CASE WHEN id % 2 = 0 OR id % 3 = 0 THEN 1 ELSE 0 END) FROM delta.\`$tmp/t\`" | tail -1)
[ "$got" = "6666667,0" ] || fail "after the second delete: count, deleted ids left = $got"
dv=$(grep '^{"add"' "$tmp/t/_delta_log/00000000000000000003.json" | grep -o '"cardinality":[0-9]*')
[ "$dv" = '"cardinality":13333333' ] || fail "the merged DV holds $dv"
grep -q __asan_init "$DL_CLI" 2>/dev/null ||
	[ $((third - one)) -lt $((40 * 1024)) ] ||
	fail "deleting 3.3M more rows of a file with a 10M-row DV peaks at $third KB, deleting one row of the table at $one KB: the old DV's rows are not bounded"
echo "DV delete on a 10M-row DV: peak RSS $third KB"

# MERGE's target reader skips the old DV's rows through a row set as well
# (a one-row source: its peak is the target's reading). It reads a file a
# part at a time (a row group here: 83 MB above the one-row DELETE); when
# it buffered the file's rows before the join (10M live rows of two
# BIGINTs: 160 MB) the MERGE peaked 180 MB above, and with the old DV's
# rows listed twice as 8-byte positions (the target reader's and the
# scan's) 332 MB above
"$DL_CLI" create "$tmp/src" --schema "id BIGINT, v BIGINT" -q >/dev/null &&
	"$DL_CLI" sql "INSERT INTO delta.\`$tmp/src\` VALUES (1, 5)" >/dev/null || fail "source setup"
merged=$(peak "$DL_CLI" sql "MERGE INTO delta.\`$tmp/t2\` t USING delta.\`$tmp/src\` s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v")
[ "$merged" -gt 0 ] || fail "merge failed"
got=$("$DL_CLI" sql --format csv "SELECT count(*), sum(v) FROM delta.\`$tmp/t2\` WHERE id < 4" | tail -1)
[ "$got" = "2,26" ] || fail "after the merge: count, sum(v) of ids 1, 3 = $got"
grep -q __asan_init "$DL_CLI" 2>/dev/null ||
	[ $((merged - one)) -lt $((130 * 1024)) ] ||
	fail "a one-row MERGE into a file with a 10M-row DV peaks at $merged KB, deleting one row at $one KB: more than a part's rows"
echo "MERGE of one row into a file with a 10M-row DV: peak RSS $merged KB"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)" >&2; exit 1; }
echo "rewrite_memory: touched rows cost about a bit each"
