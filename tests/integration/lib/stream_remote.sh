# Shared by s3_stream.sh and azure_stream.sh: streaming with the tables
# and the checkpoints on a remote store. Sourced after the store's env lib;
# needs DL_CLI, $tmp, fail() and ROOT (a store URI prefix of the test's own).
#  1. ingest of 2000 CSV rows into a new table, SIGKILLed at random moments
#     and restarted on the same input until done: every row exactly once,
#     version 0 a STREAMING UPDATE; a rerun writes nothing.
#  2. follow with --checkpoint on the store, --max-files 1 --max-batches 2,
#     restarted from its checkpoint while commits land: every row printed
#     exactly once, in commit order; caught up, it prints nothing.
#  3. follow --into a table on the store, SIGKILLed at random moments and
#     restarted: the target holds every row exactly once.

sr_ids() { "$DL_CLI" cat "$1" -c id --format csv | tail -n +2 | sort -n; }
sr_append() { # TABLE FIRST LAST: one commit of ids FIRST..LAST
	local i
	{ echo "id,name"; for ((i = $2; i <= $3; i++)); do echo "$i,n$i"; done; } >"$tmp/app.csv"
	"$DL_CLI" write "$1" -i "$tmp/app.csv" -m append -q >/dev/null 2>"$tmp/app.err" ||
		fail "append $2..$3 to $1: $(cat "$tmp/app.err")"
}

stream_remote_run() {
	local t=$ROOT/ingested cp=$ROOT/cp-ingest round p done_ok=0 before after
	# ---- 1. ingest killed at random points ----
	{ echo "id,name"; for ((i = 1; i <= 2000; i++)); do echo "$i,n$i"; done; } >"$tmp/in.csv"
	for ((round = 1; round <= 30; round++)); do
		"$DL_CLI" ingest "$t" --input "$tmp/in.csv" --checkpoint "$cp" --batch-rows 200 --format csv \
			>/dev/null 2>"$tmp/err1" &
		p=$!
		sleep "0.$((RANDOM % 8))$((RANDOM % 10))"
		if kill -9 "$p" 2>/dev/null; then
			wait "$p" 2>/dev/null
		else
			wait "$p" || { fail "ingest failed: $(cat "$tmp/err1")"; break; }
			done_ok=1
			break
		fi
	done
	[ "$done_ok" = 1 ] || "$DL_CLI" ingest "$t" --input "$tmp/in.csv" --checkpoint "$cp" --batch-rows 200 \
		>/dev/null 2>"$tmp/err1" || fail "the last ingest failed: $(cat "$tmp/err1")"
	echo "ingest on $ROOT: completed on run $round (killed $((round - 1)) times)"
	seq 1 2000 | cmp -s - <(sr_ids "$t") ||
		fail "ingest: $(sr_ids "$t" | wc -l) rows, $(sr_ids "$t" | uniq -d | wc -l) repeated, expected 1..2000 once"
	"$DL_CLI" history "$t" --format csv | grep '^0,' | grep -q 'STREAMING UPDATE' ||
		fail "version 0 of the ingested table is not a STREAMING UPDATE"
	before=$("$DL_CLI" history "$t" -n 1 --format csv | awk -F, 'NR == 2 { print $1 }')
	"$DL_CLI" ingest "$t" --input "$tmp/in.csv" --checkpoint "$cp" --batch-rows 200 >/dev/null 2>"$tmp/err1" ||
		fail "rerun of a finished ingest: $(cat "$tmp/err1")"
	after=$("$DL_CLI" history "$t" -n 1 --format csv | awk -F, 'NR == 2 { print $1 }')
	[ "$before" = "$after" ] || fail "a rerun of a finished ingest committed (version $before -> $after)"

	# ---- 2. follow, checkpoint on the store, restarted ----
	local s=$ROOT/source fcp=$ROOT/cp-follow out=$tmp/follow.out
	"$DL_CLI" create "$s" --schema "id BIGINT, name STRING" -q >/dev/null || fail "create $s"
	sr_append "$s" 1 3
	sr_append "$s" 4 6
	sr_append "$s" 7 9
	: >"$out"
	# the snapshot (1 file) and one commit, then a restart for the rest
	"$DL_CLI" follow "$s" --checkpoint "$fcp" --max-files 1 --max-batches 2 -c id --format csv \
		2>"$tmp/ferr" | tail -n +2 >>"$out" || fail "follow run 1: $(cat "$tmp/ferr")"
	sr_append "$s" 10 12
	"$DL_CLI" follow "$s" --checkpoint "$fcp" --max-files 1 --max-batches 2 -c id --format csv \
		2>"$tmp/ferr" | tail -n +2 >>"$out" || fail "follow run 2: $(cat "$tmp/ferr")"
	sr_append "$s" 13 15
	"$DL_CLI" follow "$s" --checkpoint "$fcp" --max-batches 1 -c id --format csv \
		2>"$tmp/ferr" | tail -n +2 >>"$out" || fail "follow run 3: $(cat "$tmp/ferr")"
	# the snapshot's files come in modification-time order, the rows of a
	# file in order: ids 1..15 once, in order
	seq 1 15 | cmp -s - "$out" || fail "follow across restarts printed $(tr '\n' ' ' <"$out"), expected 1..15 once in order"
	# caught up: a run prints nothing (SIGTERM ends it with exit 0)
	ls_batches=$("$DL_CLI" follow "$s" --checkpoint "$fcp" --max-batches 1 --interval 0.1 -c id --format csv 2>/dev/null &
		fp=$!; sleep 2; kill -TERM $fp 2>/dev/null; wait $fp 2>/dev/null)
	[ -z "$(tail -n +2 <<<"$ls_batches")" ] || fail "a caught-up follow printed again: $ls_batches"

	# ---- 3. follow --into a table on the store, killed and restarted ----
	local d=$ROOT/target icp=$ROOT/cp-into
	for ((round = 1; round <= 6; round++)); do
		"$DL_CLI" follow "$s" --checkpoint "$icp" --into "$d" --max-files 1 --interval 0.05 >/dev/null 2>"$tmp/ierr" &
		p=$!
		sleep "0.$((RANDOM % 9))$((RANDOM % 10))"
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
		[ "$round" = 3 ] && sr_append "$s" 16 18
	done
	"$DL_CLI" follow "$s" --checkpoint "$icp" --into "$d" --max-files 1 --interval 0.05 >/dev/null 2>"$tmp/ierr" &
	p=$!
	local i
	for ((i = 0; i < 600; i++)); do
		[ "$("$DL_CLI" cat "$d" -c id --format csv 2>/dev/null | tail -n +2 | wc -l)" -ge 18 ] && break
		sleep 0.2
	done
	kill -TERM "$p" 2>/dev/null
	wait "$p" || fail "follow --into: $(cat "$tmp/ierr")"
	seq 1 18 | cmp -s - <(sr_ids "$d") || fail "follow --into across SIGKILLs: target ids $(sr_ids "$d" | tr '\n' ' ')"
	"$DL_CLI" history "$d" --format csv | tail -n +2 | grep -v -q 'STREAMING UPDATE' &&
		fail "a commit of the --into target is not a STREAMING UPDATE"
	return 0
}
