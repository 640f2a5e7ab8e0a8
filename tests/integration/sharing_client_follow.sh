#!/usr/bin/env bash
# `deltalake follow PROFILE#share.schema.table`, our client against our
# server: a stream over a shared table prints what the same stream over the
# table itself prints. The shared table's commits come from the query
# endpoint's startingVersion form (as Spark's DeltaSharingSource reads
# them; no change data feed needed), --changes from the changes endpoint:
#  - the current rows first, then rows appended while follow runs, each once;
#  - --from V, --from TS (resolved by the server: GET .../version?
#    startingTimestamp), --from latest;
#  - --max-files batches and a restart on --checkpoint, no row lost or
#    repeated;
#  - a DELETE stops it with DELTA_SOURCE_IGNORE_DELETE unless
#    --ignore-deletes, an UPDATE with DELTA_SOURCE_TABLE_IGNORE_CHANGES
#    unless --skip-change-commits;
#  - --changes equal to the table's own feed;
#  - the delta response format, and commits read in pages of one file
#    (maxFiles / pageToken: the access log counts the pages);
#  - a table without history sharing: the server's reason, in one line.
# Needs DL_CLI.
set -uo pipefail
source "$(dirname "$0")/sharing_server_lib.bash"
D=$DL_CLI
pids=()
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; cleanup' EXIT

append() { # TABLE FIRST LAST: one commit with ids FIRST..LAST
	local t=$1 i
	{ echo "id,p"; for ((i = $2; i <= $3; i++)); do echo "$i,p$((i % 3))"; done; } >"$tmp/in.csv"
	"$D" write "$t" -i "$tmp/in.csv" -m append -q >/dev/null || fail "append $2..$3 to $t failed"
}
ids_of() { sed -n 's/^{"id":\([0-9]*\),.*/\1/p' "$@"; }
wait_rows() { # FILE N: until FILE holds N rows (30 s at most)
	local i
	for ((i = 0; i < 300; i++)); do
		[ "$(ids_of "$1" | wc -l)" -ge "$2" ] && return 0
		sleep 0.1
	done
	fail "$1 has $(ids_of "$1" | wc -l) rows, expected $2"
}
wait_handler() { # PID: until it catches SIGINT (a background job starts with it ignored)
	local i cgt
	for ((i = 0; i < 300; i++)); do
		cgt=$(awk '/^SigCgt:/ { print $2 }' "/proc/$1/status" 2>/dev/null)
		[ -n "$cgt" ] && (((16#$cgt & 2) != 0)) && return 0
		sleep 0.05
	done
	fail "follow (pid $1) never installed its SIGINT handler"
}

# t: appends (4 commits after the create); dml: appends then a DELETE and
# an UPDATE; cdf: the same with the change data feed; nohist: t without
# history sharing.
t=$tmp/t
"$D" create "$t" --schema "id BIGINT, p STRING" -q >/dev/null || fail "create t"
append "$t" 1 2
append "$t" 3 3
append "$t" 4 6
append "$t" 7 7
for v in 0 1 2 3 4; do touch -d "2024-01-0$((v + 1))T00:00:00Z" "$t/_delta_log/0000000000000000000$v.json"; done
for n in dml cdf; do
	props=()
	[ "$n" = cdf ] && props=(--property delta.enableChangeDataFeed=true)
	"$D" create "$tmp/$n" --schema "id BIGINT, p STRING" --partition-by p "${props[@]}" -q >/dev/null || fail "create $n"
	append "$tmp/$n" 1 6
	append "$tmp/$n" 7 9
done
token=$("$D" sharing token | awk '/^token:/ {print $2}')
hash=$(echo -n "$token" | sha256sum | awk '{print $1}')
cat >"$tmp/shares.yaml" <<YAML
version: 1
shares:
- name: "s"
  schemas:
  - name: "sc"
    tables:
    - name: "t"
      location: "$t"
      historyShared: true
    - name: "dml"
      location: "$tmp/dml"
      historyShared: true
    - name: "cdf"
      location: "$tmp/cdf"
      historyShared: true
    - name: "nohist"
      location: "$t"
recipients:
- name: "r"
  tokenHash: "sha256:$hash"
  shares: ["s"]
YAML
start_server "$tmp/shares.yaml"
P=$tmp/p.share
printf '{"shareCredentialsVersion":1,"endpoint":"%s","bearerToken":"%s"}\n' "$base" "$token" >"$P"

same_follow() { # NAME SHARED DIRECT SORT ARGS...: equal output (sorted when SORT=sort), both succeed
	local name=$1 shared=$2 direct=$3 srt=$4
	shift 4
	timeout 60 "$D" follow "$shared" "$@" >"$tmp/a" 2>"$tmp/err" || { fail "$name: $(cat "$tmp/err")"; return; }
	timeout 60 "$D" follow "$direct" "$@" >"$tmp/b" 2>"$tmp/err" || { fail "$name: direct: $(cat "$tmp/err")"; return; }
	[ -s "$tmp/b" ] || fail "$name: the direct stream printed nothing"
	if [ "$srt" = sort ]; then
		diff <(sort "$tmp/a") <(sort "$tmp/b") >/dev/null || fail "$name: rows differ: $(diff <(sort "$tmp/a") <(sort "$tmp/b") | head -5)"
	else
		cmp -s "$tmp/a" "$tmp/b" || fail "$name: output differs: $(diff "$tmp/a" "$tmp/b" | head -5)"
	fi
}
refused() { # NAME PATTERN CMD...: fails with one line matching PATTERN
	local name=$1 pat=$2
	shift 2
	if timeout 60 "$@" >"$tmp/o" 2>"$tmp/err"; then fail "$name: succeeded: $(head -c 300 "$tmp/o")"; return; fi
	grep -q -- "$pat" "$tmp/err" || fail "$name: the error lacks '$pat': $(cat "$tmp/err")"
	[ "$(wc -l <"$tmp/err")" = 1 ] || fail "$name: not one error line: $(cat "$tmp/err")"
}
S="$P#s.sc.t"

# ---- the initial snapshot (its file order is the server's ids', so sorted) ----
same_follow "snapshot" "$S" "$t" sort --max-batches 1
same_follow "snapshot in batches of 1 file" "$S" "$t" sort --max-batches 4 --max-files 1
# ---- --from: commits in commit order, the same output byte for byte ----
same_follow "--from 1" "$S" "$t" keep --from 1 --max-batches 1
same_follow "--from 2, 1 file a batch" "$S" "$t" keep --from 2 --max-batches 3 --max-files 1
same_follow "--from 3, csv, --where, --columns" "$S" "$t" keep --from 3 --max-batches 1 --format csv --where "id > 4" -c id
# no commit file is listed by the shared table: the server finds the time
q0=$(grep -c 'tables/t/version' "$tmp/access.log")
same_follow "--from a commit's time" "$S" "$t" keep --from "2024-01-03 00:00:00" --max-batches 1
same_follow "--from between commits" "$S" "$t" keep --from "2024-01-02 12:00:00" --max-batches 1
[ "$(grep -c 'tables/t/version' "$tmp/access.log")" -gt "$q0" ] || fail "--from TS: no GET .../version"
refused "--from after the last commit" "after the latest" "$D" follow "$S" --from "2030-01-01 00:00:00" --max-batches 1
refused "--from a version after the latest" "Cannot time travel Delta table to version 9" \
	"$D" follow "$S" --from 9 --max-batches 1
# the stream's commits came from the query's startingVersion form, never
# from the changes endpoint (t has no change data feed)
grep -q 'tables/t/changes' "$tmp/access.log" && fail "follow of t asked the changes endpoint"

# ---- delta format; commits in pages of 1 file ----
same_follow "delta format" "$S" "$t" keep --from 1 --max-batches 1 --storage-option delta-sharing.response_format=delta
q0=$(grep -c '"POST /delta-sharing/shares/s/schemas/sc/tables/t/query" 200' "$tmp/access.log")
same_follow "pages of 1 file" "$S" "$t" keep --from 1 --max-batches 1 --storage-option delta-sharing.max_files=1
got=$(( $(grep -c '"POST /delta-sharing/shares/s/schemas/sc/tables/t/query" 200' "$tmp/access.log") - q0 ))
# 4 data files in commits 1..4 (one page each), and the snapshot the stream
# opens on (for its schema): 4 files in pages of one
[ "$got" = 8 ] || fail "pages of 1 file: $got query requests, want 4 for the commits and 4 for the snapshot"

# ---- appends while follow runs, then a restart on the checkpoint ----
cp=$tmp/cp
"$D" follow "$S" --checkpoint "$cp" --interval 0.1 --max-files 2 >"$tmp/live" 2>"$tmp/live.err" &
fp=$!
pids+=("$fp")
wait_rows "$tmp/live" 7
append "$t" 8 8
append "$t" 9 10
wait_rows "$tmp/live" 10
wait_handler "$fp"
kill -INT "$fp"
wait "$fp"
rc=$?
[ "$rc" = 0 ] || fail "follow ended with $rc after SIGINT: $(cat "$tmp/live.err")"
seq 1 10 | cmp -s - <(ids_of "$tmp/live" | sort -n) || fail "live follow printed $(ids_of "$tmp/live" | sort -n | tr '\n' ' ')"
ids_of "$tmp/live" | tail -3 | tr '\n' ' ' | grep -qx '8 9 10 ' || fail "the appended rows are not last, in commit order"
append "$t" 11 11
timeout 60 "$D" follow "$S" --checkpoint "$cp" --max-batches 1 >"$tmp/resumed" 2>"$tmp/err" || fail "resume: $(cat "$tmp/err")"
[ "$(ids_of "$tmp/resumed" | tr '\n' ' ')" = "11 " ] || fail "the restart printed $(ids_of "$tmp/resumed" | tr '\n' ' '), want 11"

# ---- deletes and updates: Spark's rules ----
"$D" delete "$tmp/dml" --where "p = 'p0'" -q >/dev/null || fail "delete"
refused "a delete" "DELTA_SOURCE_IGNORE_DELETE" "$D" follow "$P#s.sc.dml" --from 3 --max-batches 1
same_follow "--ignore-deletes" "$P#s.sc.dml" "$tmp/dml" keep --from 1 --max-batches 1 --ignore-deletes
"$D" update "$tmp/dml" --set "id = id + 100" --where "id = 7" -q >/dev/null || fail "update"
refused "an update" "DELTA_SOURCE_TABLE_IGNORE_CHANGES" "$D" follow "$P#s.sc.dml" --from 4 --max-batches 1
same_follow "--skip-change-commits" "$P#s.sc.dml" "$tmp/dml" sort --from 1 --max-batches 1 --skip-change-commits
same_follow "--ignore-changes" "$P#s.sc.dml" "$tmp/dml" sort --from 1 --max-batches 1 --ignore-changes

# ---- --changes: the change data feed through the changes endpoint ----
"$D" update "$tmp/cdf" --set "id = id + 100" --where "id = 7" -q >/dev/null || fail "update cdf"
"$D" delete "$tmp/cdf" --where "p = 'p1'" -q >/dev/null || fail "delete cdf"
same_follow "--changes" "$P#s.sc.cdf" "$tmp/cdf" sort --changes --from 0 --max-batches 1 --format csv
same_follow "--changes, 1 file a batch" "$P#s.sc.cdf" "$tmp/cdf" sort --changes --from 1 --max-batches 4 --max-files 1 --format csv
grep -q 'tables/cdf/changes' "$tmp/access.log" || fail "--changes did not read the changes endpoint"
refused "--changes on a table without the feed" "DELTA_MISSING_CHANGE_DATA" \
	"$D" follow "$S" --changes --from 1 --max-batches 1

refused "a bad delta-sharing.commits" "delta-sharing.commits is 'bogus'" \
	"$D" follow "$S" --max-batches 1 --storage-option delta-sharing.commits=bogus

# ---- without history sharing: the snapshot, but no commits ----
refused "no history sharing" "history sharing is not enabled" "$D" follow "$P#s.sc.nohist" --from 1 --max-batches 1

stop_server
[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "sharing client follow: ok"
