#!/usr/bin/env bash
# DML and maintenance on an s3:// table on a real S3 server (Ceph RGW, see
# lib/s3_env.sh), every request seen by the loopback proxy of
# lib/s3_fault_proxy.py (no faults, --log): DELETE, UPDATE, MERGE,
# OPTIMIZE, VACUUM and a checkpointed log, each checked against the rows it
# must leave; VACUUM deletes with DeleteObjects (one POST /?delete per 1000
# files, never a HEAD and a DELETE per file) and the log is listed from the
# checkpoint on (ListObjectsV2 start-after), as issue 14 asks. Needs DL_CLI.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/s3_env.sh"
s3_env
command -v python3 >/dev/null || s3_unavailable "python3 (for the request-counting proxy) is not installed"
tmp=$(mktemp -d)
proxy_pid=
cleanup() { [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null; wait 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$tmp"; }
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
D=$DL_CLI
bucket=dl-maint-$$-$(date +%s)
s3_make_bucket "$bucket"
t=s3://$bucket/tables/m

upstream=${DL_TEST_S3_ENDPOINT#http://}
python3 "$here/lib/s3_fault_proxy.py" "$upstream" --log "$tmp/requests" >"$tmp/port" 2>"$tmp/proxy.err" &
proxy_pid=$!
for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
port=$(cat "$tmp/port")
[ -n "$port" ] || { fail "the proxy did not start: $(cat "$tmp/proxy.err")"; exit 1; }
export AWS_ENDPOINT_URL=http://127.0.0.1:$port
# the requests of one step: the log's lines since the mark
mark() { : >"$tmp/requests"; }
seen() { grep -c "$1" "$tmp/requests" || true; }

rows() { "$D" cat "$t" --format csv 2>"$tmp/err" | tail -n +2 | sort | tr '\n' ' '; }

# ---- 12 commits of one row pair each, a checkpoint at 10 ----
"$D" create "$t" --schema "id BIGINT NOT NULL, name STRING" -q >/dev/null || fail "create on S3 failed"
for v in $(seq 1 12); do
	printf 'id,name\n%d,n%d\n%d,m%d\n' $((v * 10)) "$v" $((v * 10 + 1)) "$v" >"$tmp/in.csv"
	"$D" write "$t" -i "$tmp/in.csv" -m append -q >/dev/null 2>"$tmp/err" || fail "write $v: $(cat "$tmp/err")"
	[ "$v" = 10 ] && { "$D" checkpoint "$t" -q >/dev/null 2>"$tmp/err" || fail "checkpoint: $(cat "$tmp/err")"; }
done

# ---- the log is listed from the checkpoint on ----
mark
n=$("$D" cat "$t" --format csv | tail -n +2 | wc -l)
[ "$n" = 24 ] || fail "cat gives $n rows, expected 24"
[ "$(seen 'list-type=2.*start-after=')" -ge 1 ] || fail "the log was not listed with start-after: $(cat "$tmp/requests")"
# only the checkpoint and the two commits after it are read, not 12 commits
[ "$(seen 'GET .*_delta_log/0*[1-9]\.json')" = 0 ] || fail "commits before the checkpoint were read: $(grep _delta_log "$tmp/requests")"

# ---- DELETE, UPDATE, MERGE ----
"$D" delete "$t" --where "id < 30" -q >/dev/null 2>"$tmp/err" || fail "delete: $(cat "$tmp/err")"
[ "$("$D" cat "$t" --format csv | tail -n +2 | wc -l)" = 20 ] || fail "after DELETE the table does not hold 20 rows"
"$D" update "$t" --set "name = 'u'" --where "id % 10 = 1" -q >/dev/null 2>"$tmp/err" || fail "update: $(cat "$tmp/err")"
[ "$("$D" cat "$t" --format csv | grep -c ',u$')" = 10 ] || fail "UPDATE did not set 10 names"
"$D" sql -c "MERGE INTO delta.\`$t\` AS t USING (VALUES (30L, 'merged'), (999L, 'new')) AS s(id, name)
  ON t.id = s.id WHEN MATCHED THEN UPDATE SET name = s.name WHEN NOT MATCHED THEN INSERT *" >/dev/null 2>"$tmp/err" ||
	fail "merge: $(cat "$tmp/err")"
got=$("$D" cat "$t" --format csv | grep -E '^(30|999),' | sort | tr '\n' ' ')
[ "$got" = "30,merged 999,new " ] || fail "after MERGE the rows of 30 and 999 are '$got'"
before=$(rows)

# ---- OPTIMIZE compacts, then VACUUM deletes what no version needs ----
"$D" optimize "$t" -q >/dev/null 2>"$tmp/err" || fail "optimize: $(cat "$tmp/err")"
[ "$(rows)" = "$before" ] || fail "OPTIMIZE changed the rows"
mark
out=$("$D" vacuum "$t" --retain 0 --no-retention-check --format csv 2>"$tmp/err") || fail "vacuum: $(cat "$tmp/err")"
deleted=$(echo "$out" | awk -F, 'NR == 2 { print $3 }')
[ "${deleted:-0}" -ge 12 ] || fail "VACUUM deleted '${deleted:-}' files, expected the dozen rewritten ones: $out"
[ "$(seen '^POST .*[?&]delete')" = 1 ] || fail "VACUUM sent $(seen '^POST .*[?&]delete') DeleteObjects requests, expected 1"
# (the one DELETE a commit may send removes the If-None-Match probe object)
[ "$(grep '^DELETE ' "$tmp/requests" | grep -vc 'if-none-match-probe')" = 0 ] ||
	fail "VACUUM sent single DELETEs: $(grep '^DELETE ' "$tmp/requests")"
[ "$(rows)" = "$before" ] || fail "VACUUM changed the rows"
# the data files left are exactly the ones the table references
left=$("$D" files "$t" --format csv | tail -n +2 | wc -l)
listed=$(s3_curl "$DL_TEST_S3_ENDPOINT/$bucket?list-type=2&prefix=tables%2Fm%2Fpart-" | grep -o '<Key>' | wc -l)
[ "$listed" = "$left" ] || fail "the bucket holds $listed data files, the table references $left"

[ "$fails" = 0 ] && echo "s3_maintenance: all checks passed"
[ "$fails" = 0 ]
