#!/usr/bin/env bash
# `deltalake ingest` (the exactly-once sink through the CLI):
#  1. ingest of 6000 CSV rows SIGKILLed at random moments and restarted on
#     the same input until it completes: the table holds every input row
#     exactly once (and its commits are STREAMING UPDATEs with txn ids).
#  2. a pipe with a pause: --batch-seconds ends a batch while the input
#     waits; the partial batch at EOF is written.
#  3. JSON lines on stdin; a finished ingest run again writes nothing.
#  4. usage errors (exit 2) and a checkpoint of something else (exit 1).
# Needs DL_CLI.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
kv() { awk -F, -v k="$2" '$1 == k { print $2 }' <<<"$1"; }

# ---- 1. killed at random points ----
{ echo "id,name,amount"; for ((i = 1; i <= 6000; i++)); do echo "$i,\"n,$i\",$((i * 7 % 1000)).5"; done; } >"$tmp/in.csv"
t=$tmp/t1
cp=$tmp/cp1
done_ok=0
for ((round = 1; round <= 40; round++)); do
	"$DL_CLI" ingest "$t" --input "$tmp/in.csv" --checkpoint "$cp" --batch-rows 250 --format csv >"$tmp/out1" 2>"$tmp/err1" &
	p=$!
	sleep "0.$((RANDOM % 4))$((RANDOM % 10))"
	if kill -9 "$p" 2>/dev/null; then
		wait "$p" 2>/dev/null
	else
		wait "$p"
		rc=$?
		[ "$rc" = 0 ] || { fail "ingest failed (exit $rc): $(cat "$tmp/err1")"; break; }
		done_ok=1
		break
	fi
done
if [ "$done_ok" = 0 ]; then
	"$DL_CLI" ingest "$t" --input "$tmp/in.csv" --checkpoint "$cp" --batch-rows 250 --format csv >"$tmp/out1" ||
		fail "the last ingest failed"
fi
echo "ingest: completed on run $round (killed $((round - 1)) times)"
"$DL_CLI" cat "$t" -c id --format csv | tail -n +2 | sort -n >"$tmp/ids1"
seq 1 6000 | cmp -s - "$tmp/ids1" ||
	fail "after $round runs: $(wc -l <"$tmp/ids1") rows, $(uniq -d "$tmp/ids1" | wc -l) repeated, expected 1..6000 once"
"$DL_CLI" cat "$t" --where "id = 17" --format csv | grep -q '^17,"n,17",119.5$' || fail "row 17 was not read back as written"
hist=$("$DL_CLI" history "$t" --format csv)
grep -q "STREAMING UPDATE" <<<"$hist" || fail "no STREAMING UPDATE commit in the history"
# the batch that created the table is a STREAMING UPDATE too (Spark's DeltaSink), with its epoch
hist0=$(grep '^0,' <<<"$hist")
grep -q 'STREAMING UPDATE' <<<"$hist0" || fail "version 0 (the creating batch) is not STREAMING UPDATE: $hist0"
grep -q '""epochId"":""0""' <<<"$hist0" || fail "version 0 lacks epochId 0: $hist0"
if grep -q ',WRITE,' <<<"$hist"; then fail "a WRITE commit in an ingested table's history"; fi
[ "$(ls "$cp/commits" | wc -l)" = 24 ] || fail "expected 24 committed batches, found $(ls "$cp/commits" | wc -l)"
grep -q '"txn":{"appId":"'"$(sed 's/.*"id":"\([^"]*\)".*/\1/' "$cp/metadata")"'","version":23' "$t"/_delta_log/*.json ||
	fail "no txn of the checkpoint's query id at batch 23"

# ---- 2. a pipe with a pause: --batch-seconds ----
t=$tmp/t2
# The writer pauses until the first batch has committed (not for a fixed
# time: a slow start, as under ASan, would find all five rows waiting).
{ echo "id,name"; for i in 1 2 3; do echo "$i,a"; done
  for _ in $(seq 600); do [ -e "$t/_delta_log/00000000000000000000.json" ] && break; sleep 0.1; done
  for i in 4 5; do echo "$i,b"; done; } |
	"$DL_CLI" ingest "$t" -i - --checkpoint "$tmp/cp2" --batch-rows 100 --batch-seconds 0.2 --format csv >"$tmp/out2" ||
	fail "pipe ingest failed"
out=$(cat "$tmp/out2")
[ "$(kv "$out" batches)" = 2 ] && [ "$(kv "$out" rows_written)" = 5 ] ||
	fail "a pause longer than --batch-seconds should end a batch: $out"
[ "$("$DL_CLI" cat "$t" --format csv | tail -n +2 | wc -l)" = 5 ] || fail "pipe: not 5 rows"

# ---- 3. JSON lines on stdin, partial batch, rerun ----
t=$tmp/t3
for ((i = 1; i <= 25; i++)); do echo "{\"id\":$i,\"tags\":[\"x$i\"]}"; done >"$tmp/in.jsonl"
out=$("$DL_CLI" ingest "$t" -i - --checkpoint "$tmp/cp3" --batch-rows 10 --format csv <"$tmp/in.jsonl")
[ "$(kv "$out" batches)" = 3 ] && [ "$(kv "$out" rows_written)" = 25 ] || fail "jsonl: $out"
out=$("$DL_CLI" ingest "$t" -i - --checkpoint "$tmp/cp3" --batch-rows 10 --format csv <"$tmp/in.jsonl")
[ "$(kv "$out" batches)" = 0 ] && [ "$(kv "$out" next_batch_id)" = 3 ] || fail "a rerun wrote again: $out"
[ "$("$DL_CLI" cat "$t" --format csv | tail -n +2 | wc -l)" = 25 ] || fail "jsonl: not 25 rows"
# the same batches from a new checkpoint under the same app id are skipped by the table's txn
app=$(sed 's/.*"id":"\([^"]*\)".*/\1/' "$tmp/cp3/metadata")
out=$("$DL_CLI" ingest "$t" -i "$tmp/in.jsonl" --checkpoint "$tmp/cp3b" --app-id "$app" --batch-rows 10 --format csv)
[ "$(kv "$out" rows_written)" = 0 ] || fail "txn dedupe across checkpoints: $out"

# ---- 4. errors ----
for bad in "" "--checkpoint $tmp/c --batch-rows 0" "--checkpoint $tmp/c --batch-seconds 0" \
	"--checkpoint $tmp/c --batch-seconds x" "--checkpoint $tmp/c --input-format xml"; do
	# shellcheck disable=SC2086
	"$DL_CLI" ingest "$tmp/t4" -i "$tmp/in.csv" $bad >/dev/null 2>&1
	rc=$?
	[ "$rc" = 2 ] || fail "ingest $bad: exit $rc, expected 2"
done
"$DL_CLI" follow "$tmp/t3" --checkpoint "$tmp/cpf" --max-batches 1 >/dev/null || fail "follow for a checkpoint"
"$DL_CLI" ingest "$tmp/t4" -i "$tmp/in.csv" --checkpoint "$tmp/cpf" >/dev/null 2>"$tmp/err4"
[ $? = 1 ] && grep -q "not an ingest checkpoint" "$tmp/err4" || fail "a follow checkpoint for ingest: $(cat "$tmp/err4")"
[ -e "$tmp/t4" ] && fail "a refused ingest created the table"

[ "$fails" = 0 ] && echo "stream_ingest: all passed"
exit $((fails > 0))
