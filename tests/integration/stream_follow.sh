#!/usr/bin/env bash
# `deltalake follow` (the streaming source through the CLI):
#  1. a writer appends 200 one-row commits (the issue's count) while follow runs: every row is
#     printed exactly once, in commit order; Ctrl-C ends it with exit 0.
#  2. follow killed with SIGKILL (idle, and at random moments while the
#     writer runs) and restarted on its checkpoint: no row lost; killed
#     idle, none repeated either (a kill between printing a batch and
#     committing it may print that batch again, never more).
#  3. options: --from (version, latest), --max-files with --max-batches,
#     --where / --columns, csv, a partition DELETE (DELTA_SOURCE_IGNORE_DELETE
#     unless --ignore-deletes), an UPDATE (DELTA_SOURCE_TABLE_IGNORE_CHANGES
#     unless --skip-change-commits / --ignore-changes), --changes after DML,
#     --changes admission (whole UPDATEs with cdc files, commits of adds and
#     removes split file by file),
#     and usage errors (exit 2).
#  4. --into TABLE (exactly once through the Delta sink's txn): killed at
#     random moments while commits land and restarted, and a batch
#     re-delivered after its checkpoint commit is lost: the target holds
#     every row exactly once.
# Needs DL_CLI.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

append() { # TABLE FIRST LAST: one commit with ids FIRST..LAST
	local t=$1 i
	{ echo "id,p"; for ((i = $2; i <= $3; i++)); do echo "$i,p$((i % 3))"; done; } >"$tmp/in.csv"
	"$DL_CLI" write "$t" -i "$tmp/in.csv" -m append -q >/dev/null || fail "append $2..$3 to $t failed"
}
ids_of() { sed -n 's/^{"id":\([0-9]*\),.*/\1/p' "$@"; }
# until PID has its SIGINT handler (SigCgt bit 2): a background job of a
# script starts with SIGINT ignored, so an INT sent before follow installs
# its handler is lost and follow never ends (seen in CI)
wait_handler() {
	local i cgt
	for ((i = 0; i < 300; i++)); do
		cgt=$(awk '/^SigCgt:/ { print $2 }' "/proc/$1/status" 2>/dev/null)
		[ -n "$cgt" ] && (((16#$cgt & 2) != 0)) && return 0
		sleep 0.05
	done
	fail "follow (pid $1) never installed its SIGINT handler"
}
wait_rows() { # FILE N: until FILE holds N rows (30 s at most)
	local i
	for ((i = 0; i < 300; i++)); do
		[ "$(ids_of "$1" | wc -l)" -ge "$2" ] && return 0
		sleep 0.1
	done
	fail "$1 has $(ids_of "$1" | wc -l) rows, expected $2"
}

# ---- 1. a writer appending while follow runs ----
t=$tmp/t1
"$DL_CLI" create "$t" --schema "id BIGINT, p STRING" -q >/dev/null || fail "create"
append "$t" 1 1
"$DL_CLI" follow "$t" --interval 0.05 >"$tmp/out1" 2>"$tmp/err1" &
fp=$!
pids+=("$fp")
for ((i = 2; i <= 200; i++)); do append "$t" "$i" "$i"; done
wait_rows "$tmp/out1" 200
wait_handler "$fp"
kill -INT "$fp"
wait "$fp"
rc=$?
[ "$rc" = 0 ] || fail "follow ended with $rc after SIGINT: $(cat "$tmp/err1")"
seq 1 200 | cmp -s - <(ids_of "$tmp/out1") || fail "follow printed $(ids_of "$tmp/out1" | wc -l) rows, not 1..200 once each in order"

# ---- 2. killed and restarted from the checkpoint ----
t=$tmp/t2
cp=$tmp/cp2
"$DL_CLI" create "$t" --schema "id BIGINT, p STRING" -q >/dev/null || fail "create t2"
for ((i = 1; i <= 10; i++)); do append "$t" "$i" "$i"; done
"$DL_CLI" follow "$t" --checkpoint "$cp" --interval 0.05 --max-files 3 >"$tmp/out2a" &
fp=$!
pids+=("$fp")
wait_rows "$tmp/out2a" 10
sleep 0.3 # idle: everything printed is committed
kill -9 "$fp"
wait "$fp" 2>/dev/null
for ((i = 11; i <= 20; i++)); do append "$t" "$i" "$i"; done
"$DL_CLI" follow "$t" --checkpoint "$cp" --interval 0.05 --max-files 3 >"$tmp/out2b" &
fp=$!
pids+=("$fp")
wait_rows "$tmp/out2b" 10
wait_handler "$fp"
kill -INT "$fp"
wait "$fp" || fail "the restarted follow failed"
seq 1 20 | cmp -s - <(ids_of "$tmp/out2a" "$tmp/out2b") ||
	fail "killed idle and restarted: rows lost or repeated: $(ids_of "$tmp/out2a" "$tmp/out2b" | tr '\n' ' ')"

# killed at random moments while commits land
: >"$tmp/out2c"
( for ((i = 21; i <= 56; i++)); do append "$t" "$i" "$i"; done; touch "$tmp/writer-done" ) &
wp=$!
pids+=("$wp")
for round in 1 2 3; do
	"$DL_CLI" follow "$t" --checkpoint "$cp" --interval 0.02 --max-files 2 >>"$tmp/out2c" &
	fp=$!
	pids+=("$fp")
	sleep "0.$((RANDOM % 6 + 2))"
	kill -9 "$fp"
	wait "$fp" 2>/dev/null
done
wait "$wp"
"$DL_CLI" follow "$t" --checkpoint "$cp" --interval 0.05 >>"$tmp/out2c" &
fp=$!
pids+=("$fp")
for ((i = 0; i < 300; i++)); do
	[ "$(ids_of "$tmp/out2c" | sort -un | wc -l)" -ge 36 ] && break
	sleep 0.1
done
wait_handler "$fp"
kill -INT "$fp"
wait "$fp" || fail "the last follow failed"
seq 21 56 | cmp -s - <(ids_of "$tmp/out2c" | sort -un) || fail "rows lost across SIGKILLs: $(ids_of "$tmp/out2c" | sort -un | tr '\n' ' ')"
# a repeat is a re-printed batch: at most --max-files (2) rows per kill
dups=$(ids_of "$tmp/out2c" | sort -n | uniq -d | wc -l)
[ "$dups" -le 6 ] || fail "$dups rows printed twice across 3 kills (at most 2 per kill expected)"
[ -z "$(ids_of "$tmp/out2c" | sort -n | uniq -c | awk '$1 > 2')" ] || fail "a row printed three times"

# ---- 3. options ----
t=$tmp/t3
"$DL_CLI" create "$t" --schema "id BIGINT, p STRING" -p p -q >/dev/null || fail "create t3"
append "$t" 1 3   # v1: three partitions, three files
append "$t" 4 4   # v2
out=$("$DL_CLI" follow "$t" --from 2 --max-batches 1)
[ "$out" = '{"id":4,"p":"p1"}' ] || fail "--from 2 printed: $out"
out=$("$DL_CLI" follow "$t" --max-files 1 --max-batches 2 | wc -l)
[ "$out" = 2 ] || fail "--max-files 1 --max-batches 2 printed $out rows, expected 2"
out=$("$DL_CLI" follow "$t" --max-batches 1 --where "id >= 3" -c id --format csv)
[ "$out" = "$(printf 'id\n3\n4')" ] && : || {
	sorted=$(echo "$out" | sort)
	[ "$sorted" = "$(printf '3\n4\nid')" ] || fail "--where/--columns csv printed: $out"
}
"$DL_CLI" follow "$t" --from latest --max-batches 1 --interval 0.05 >"$tmp/latest" &
fp=$!
pids+=("$fp")
sleep 0.5
append "$t" 5 5
wait "$fp" || fail "--from latest failed"
[ "$(cat "$tmp/latest")" = '{"id":5,"p":"p2"}' ] || fail "--from latest printed: $(cat "$tmp/latest")"
"$DL_CLI" delete "$t" --where "p = 'p0'" -q >/dev/null || fail "partition delete"
append "$t" 6 6
"$DL_CLI" follow "$t" --from 4 --max-batches 1 >/dev/null 2>"$tmp/err3"
rc=$?
[ "$rc" = 1 ] && grep -q "DELTA_SOURCE_IGNORE_DELETE\|ignoreDeletes" "$tmp/err3" ||
	fail "a partition delete: exit $rc, $(cat "$tmp/err3")"
out=$("$DL_CLI" follow "$t" --from 4 --max-batches 1 --ignore-deletes)
[ "$out" = '{"id":6,"p":"p0"}' ] || fail "--ignore-deletes printed: $out"
"$DL_CLI" update "$t" --set "id = id + 100" --where "p = 'p1'" -q >/dev/null || fail "update"
append "$t" 7 7
"$DL_CLI" follow "$t" --from 6 --max-batches 1 >/dev/null 2>"$tmp/err3"
rc=$?
[ "$rc" = 1 ] && grep -q "DELTA_SOURCE_TABLE_IGNORE_CHANGES\|skipChangeCommits" "$tmp/err3" ||
	fail "an update: exit $rc, $(cat "$tmp/err3")"
out=$("$DL_CLI" follow "$t" --from 6 --max-batches 1 --skip-change-commits)
[ "$out" = '{"id":7,"p":"p1"}' ] || fail "--skip-change-commits printed: $out"
out=$("$DL_CLI" follow "$t" --from 6 --max-batches 1 --ignore-changes | ids_of /dev/stdin | sort -n | tr '\n' ' ')
[ "$out" = "7 101 104 " ] || fail "--ignore-changes printed ids: $out"

# the change data feed after DML
t=$tmp/t4
"$DL_CLI" create "$t" --schema "id BIGINT, p STRING" --property delta.enableChangeDataFeed=true -q >/dev/null
append "$t" 1 2
"$DL_CLI" update "$t" --set "p = 'x'" --where "id = 2" -q >/dev/null || fail "update t4"
"$DL_CLI" delete "$t" --where "id = 1" -q >/dev/null || fail "delete t4"
out=$("$DL_CLI" follow "$t" --changes --max-batches 1 --max-files 1 -c id,p,_change_type --format csv)
[ "$out" = "$(printf 'id,p,_change_type\n2,x,insert')" ] || fail "--changes from the snapshot printed: $out"
out=$("$DL_CLI" follow "$t" --changes --from 1 --max-batches 1 -c id,p,_change_type,_commit_version --format csv | sort)
want=$(printf '1,p1,delete,3\n1,p1,insert,1\n2,p2,insert,1\n2,p2,update_preimage,2\n2,x,update_postimage,2\nid,p,_change_type,_commit_version' | sort)
[ "$out" = "$want" ] || fail "--changes printed:
$out"

# readChangeFeed admission (DeltaSourceCDCSupport.filterCDCActions): an
# UPDATE commit with cdc files counts its cdc files only (1, not also its
# add and remove), so with --max-files 2 it joins the 1-file append before
# it; the first commit of a batch is taken whole even past the limit
t=$tmp/t6
"$DL_CLI" create "$t" --schema "id BIGINT, p STRING" --property delta.enableChangeDataFeed=true -q >/dev/null
append "$t" 1 1
append "$t" 2 2
"$DL_CLI" update "$t" --set "id = id + 10" --where "id = 1" -q >/dev/null || fail "update t6"
grep -q '"cdc":' "$t/_delta_log/00000000000000000003.json" || fail "t6's UPDATE wrote no cdc file"
append "$t" 3 3
append "$t" 4 4
out=$("$DL_CLI" follow "$t" --changes --from 2 --max-batches 2 --max-files 2 -c id,_change_type,_commit_version --format csv)
want=$(printf 'id,_change_type,_commit_version\n2,insert,2\n1,update_preimage,3\n11,update_postimage,3\n3,insert,4\n4,insert,5')
[ "$out" = "$want" ] || fail "--changes --max-files 2 over an UPDATE printed:
$out"
cp=$tmp/cp6
"$DL_CLI" follow "$t" --changes --from 3 --max-batches 1 --max-files 1 --checkpoint "$cp" -c id --format csv >/dev/null ||
	fail "follow t6 --max-files 1"
grep -q '"reservoirVersion":4,"index":-1' "$cp/offsets/0" || fail "batch 0 of --max-files 1 is not the whole UPDATE: $(cat "$cp/offsets/0")"

# a commit of adds and removes only (no cdc files, no deletion vectors) is
# admitted file by file under --changes, as Spark's
# DeltaSourceCDCSupport.filterFiles: batches end inside commits, the index
# counting the commit's adds and removes in log order
t=$tmp/t7
"$DL_CLI" create "$t" --schema "id BIGINT, p STRING" --partition-by p --property delta.enableChangeDataFeed=true -q >/dev/null
append "$t" 1 3
append "$t" 4 6
"$DL_CLI" delete "$t" --where "p = 'p1' OR p = 'p2'" -q >/dev/null || fail "delete t7"
grep -q '"cdc":\|"deletionVector":{' "$t/_delta_log/00000000000000000003.json" && fail "t7's delete is not removes only"
order=$(for v in 1 2 3; do sed -n 's/.*"\(add\|remove\)":{"path":"p=\(p[0-9]\)\/.*/\1 \2/p' "$t/_delta_log/0000000000000000000$v.json"; done | tr '\n' ,)
[ "$order" = "add p1,add p2,add p0,add p1,add p2,add p0,remove p1,remove p2,remove p1,remove p2," ] ||
	fail "t7's log is not in the order the checks below assume: $order"
cp=$tmp/cp7
want=("1,insert,1 2,insert,1 |1,1" "3,insert,1 4,insert,2 |2,0" "5,insert,2 6,insert,2 |3,-1" "4,delete,3 5,delete,3 |3,1"
	"1,delete,3 2,delete,3 |4,-1")
for b in 0 1 2 3 4; do
	got=$("$DL_CLI" follow "$t" --changes --from 1 --max-files 2 --max-batches 1 --checkpoint "$cp" \
		-c id,_change_type,_commit_version --format csv | tail -n +2 | tr '\n' ' ')
	got="$got|$(tail -1 "$cp/offsets/$b" | sed 's/.*"reservoirVersion":\([0-9]*\),"index":\(-*[0-9]*\).*/\1,\2/')"
	[ "$got" = "${want[$b]}" ] || fail "--changes --max-files 2 batch $b: '$got', expected '${want[$b]}'"
done
# a file of a split commit has the commit's time, as the whole feed gives it
got=$("$DL_CLI" follow "$t" --changes --from 1 --max-files 1 --max-batches 1 -c id,_commit_timestamp --format csv | tail -n +2)
want1=$("$DL_CLI" changes "$t" --from 1 --to 1 -c id,_commit_timestamp --format csv 2>/dev/null | grep '^1,')
[ -n "$want1" ] || want1=$("$DL_CLI" changes "$t" --from 1 --to 1 --format csv | awk -F, '$1 == 1 { print $1 "," $5 }')
[ "$got" = "$want1" ] || fail "a split commit's _commit_timestamp: '$got', the feed says '$want1'"

# ---- 4. --into: exactly once ----
t=$tmp/t5
d=$tmp/d5
cp=$tmp/cp5
"$DL_CLI" create "$t" --schema "id BIGINT, p STRING" -q >/dev/null || fail "create t5"
append "$t" 1 1
dest_ids() { "$DL_CLI" cat "$d" --format jsonl 2>/dev/null | ids_of /dev/stdin | sort -n; }
rm -f "$tmp/writer-done"
( for ((i = 2; i <= 40; i++)); do append "$t" "$i" "$i"; done; touch "$tmp/writer-done" ) &
wp=$!
pids+=("$wp")
for round in 1 2 3 4; do
	"$DL_CLI" follow "$t" --checkpoint "$cp" --into "$d" --interval 0.02 --max-files 2 2>>"$tmp/err5" &
	fp=$!
	pids+=("$fp")
	sleep "0.$((RANDOM % 6 + 2))"
	kill -9 "$fp"
	wait "$fp" 2>/dev/null
done
wait "$wp"
"$DL_CLI" follow "$t" --checkpoint "$cp" --into "$d" --interval 0.05 2>>"$tmp/err5" &
fp=$!
pids+=("$fp")
for ((i = 0; i < 300; i++)); do
	[ "$(dest_ids | wc -l)" -ge 40 ] && break
	sleep 0.1
done
wait_handler "$fp"
kill -INT "$fp"
wait "$fp" || fail "follow --into failed: $(cat "$tmp/err5")"
seq 1 40 | cmp -s - <(dest_ids) || fail "--into across SIGKILLs: target ids $(dest_ids | tr '\n' ' ')"
# the crash window itself: the sink committed the last batch but the
# checkpoint's commits/N was never written, so a restart re-delivers it
last=$(ls "$cp/commits" | sort -n | tail -1)
rm -f "$cp/commits/$last"
before=$(ls "$d/_delta_log" | grep -c '\.json$')
"$DL_CLI" follow "$t" --checkpoint "$cp" --into "$d" --max-batches 1 2>>"$tmp/err5" || fail "re-delivery run failed: $(cat "$tmp/err5")"
[ -f "$cp/commits/$last" ] || fail "the re-delivered batch $last was not committed to the checkpoint"
[ "$(ls "$d/_delta_log" | grep -c '\.json$')" = "$before" ] || fail "the re-delivered batch $last made a commit"
seq 1 40 | cmp -s - <(dest_ids) || fail "re-delivered batch duplicated rows: $(dest_ids | tr '\n' ' ')"
# batch N is version N (a replayed batch commits nothing); 0 created the table
qid=$(sed -n 's/.*"id":"\([^"]*\)".*/\1/p' "$cp/metadata")
[ -f "$d/_delta_log/00000000000000000000.json" ] || fail "--into made no version 0"
for f in "$d"/_delta_log/*.json; do
	v=$((10#$(basename "$f" .json)))
	grep -q '"operation":"STREAMING UPDATE","operationParameters":{"outputMode":"Append","queryId":"'"$qid"'","epochId":"'$v'"}' "$f" ||
		fail "version $v of --into is not STREAMING UPDATE with epochId $v"
	grep -q '"txn":{"appId":"'"$qid"'","version":'$v',' "$f" || fail "version $v of --into has no txn($qid, $v)"
done
"$DL_CLI" follow "$t" --into "$d" --max-batches 1 >/dev/null 2>&1
[ $? = 2 ] || fail "--into without --checkpoint should be a usage error"

# usage errors
for bad in "--interval abc" "--interval -1" "--max-files 0" "--max-batches -3" "--format table" "--from yesterday-ish"; do
	# shellcheck disable=SC2086
	"$DL_CLI" follow "$t" $bad --max-batches 1 >/dev/null 2>&1
	rc=$?
	[ "$rc" = 2 ] || fail "follow $bad: exit $rc, expected 2"
done
"$DL_CLI" follow "$tmp/none" --max-batches 1 >/dev/null 2>&1
[ $? = 1 ] || fail "follow of a missing table should fail with 1"

[ "$fails" = 0 ] && echo "stream_follow: all passed"
exit $((fails > 0))
