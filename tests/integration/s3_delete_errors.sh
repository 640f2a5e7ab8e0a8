#!/usr/bin/env bash
# A DeleteObjects answered 200 that lists per-key <Error>s (S3 reports each
# key it could not delete in the body, not in the status): on Ceph RGW
# (lib/s3_env.sh) a bucket policy denies s3:DeleteObject under one
# partition, so RGW answers AccessDenied for those keys and deletes the
# others. VACUUM must fail with one line naming a denied key and the code,
# record VACUUM END as FAILED (no numDeletedFiles claimed), print no count
# of deleted files, and leave the denied files in place while the others go;
# the table stays readable. Then the same for log cleanup: through the
# counting proxy with --age-days (S3 cannot age an object; the proxy moves
# the listed LastModified times back 60 days), cleanup-log of a table
# checkpointed at version 4 deletes commits 0..3, except the one a policy
# denies: one error line naming it, the others gone, the table whole. Needs
# DL_CLI and python3.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/s3_env.sh"
s3_env
tmp=$(mktemp -d)
proxy_pid=
trap '[ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
# deny_delete BUCKET RESOURCE: a bucket policy denying s3:DeleteObject on
# arn:aws:s3:::BUCKET/RESOURCE (its body hash signed, as RGW requires;
# ?policy= so curl's SigV4 canonical query matches RGW's)
deny_delete() {
	local pol h code
	pol='{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:DeleteObject","Resource":"arn:aws:s3:::'$1/$2'"}]}'
	h=$(printf %s "$pol" | sha256sum | cut -d' ' -f1)
	code=$(curl -s -o "$tmp/pol" -w '%{http_code}' --aws-sigv4 "aws:amz:${DL_TEST_S3_REGION:-us-east-1}:s3" \
		--user "$DL_TEST_S3_ACCESS_KEY_ID:$DL_TEST_S3_SECRET_ACCESS_KEY" -H "x-amz-content-sha256: $h" \
		-H "Content-Type: application/json" -X PUT --data-binary "$pol" "$DL_TEST_S3_ENDPOINT/$1?policy=")
	case "$code" in 200 | 204) ;; *) fail "PutBucketPolicy on $1 answered HTTP $code: $(cat "$tmp/pol")"; exit 1 ;; esac
}
D=$DL_CLI
bucket=dl-delerr-$$-$(date +%s)
s3_make_bucket "$bucket"
t=s3://$bucket/t
keys() {
	s3_curl "$DL_TEST_S3_ENDPOINT/$bucket?list-type=2&prefix=t%2Fp%3D" | grep -o '<Key>[^<]*</Key>' |
		sed 's/<Key>t\///; s/<\/Key>//' | sort
}

"$D" create "$t" --schema "id BIGINT NOT NULL, p INT" --partition-by p -q >/dev/null 2>"$tmp/err" ||
	fail "create: $(cat "$tmp/err")"
for p in 1 2 3; do
	printf 'id,p\n%d,%d\n%d,%d\n' "$p" "$p" $((p + 10)) "$p" >"$tmp/in.csv"
	"$D" write "$t" -i "$tmp/in.csv" -m append -q >/dev/null 2>"$tmp/err" || fail "write p=$p: $(cat "$tmp/err")"
done
"$D" delete "$t" --where "p <= 2" -q >/dev/null 2>"$tmp/err" || fail "delete: $(cat "$tmp/err")"
keys | grep -c '^p=[12]/' >"$tmp/n"
[ "$(cat "$tmp/n")" = 2 ] || fail "expected 2 removed files under p=1 and p=2, the bucket holds $(keys | tr '\n' ' ')"
denied=$(keys | grep '^p=2/')

deny_delete "$bucket" "t/p=2/*"
# the server does refuse a single delete there (else the test shows nothing)
code=$(s3_curl -o /dev/null -w '%{http_code}' -X DELETE "$DL_TEST_S3_ENDPOINT/$bucket/t/${denied//=/%3D}")
[ "$code" = 403 ] || fail "a DELETE under the denied prefix answered $code, expected 403"

before=$("$D" history "$t" -n 1 --format csv | awk -F, 'NR == 2 { print $1 }')
"$D" vacuum "$t" --retain 0 --no-retention-check --threads 1 --format csv >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" != 0 ] || fail "VACUUM succeeded although a key could not be deleted: $(cat "$tmp/out")"
[ "$(wc -l <"$tmp/err")" = 1 ] || fail "expected one error line, got: $(cat "$tmp/err")"
grep -q "t/$denied" "$tmp/err" || fail "the error does not name the key t/$denied: $(cat "$tmp/err")"
grep -q 'AccessDenied' "$tmp/err" || fail "the error does not give the S3 code AccessDenied: $(cat "$tmp/err")"
[ -s "$tmp/out" ] && fail "VACUUM printed a result although it failed: $(cat "$tmp/out")"
echo "s3_delete_errors: VACUUM said: $(cat "$tmp/err")"

left=$(keys | grep '^p=[12]/' | tr '\n' ' ')
[ "$left" = "$denied " ] || fail "after VACUUM the removed files left are '$left', expected only '$denied'"
[ "$(keys | grep -c '^p=3/')" = 1 ] || fail "VACUUM touched the referenced file under p=3"
# VACUUM START then VACUUM END with status FAILED, and no numDeletedFiles
"$D" history "$t" -n 2 --format jsonl >"$tmp/hist" 2>"$tmp/err" || fail "history: $(cat "$tmp/err")"
end=$(head -1 "$tmp/hist")
case "$end" in
*'"VACUUM END"'*'FAILED'*) ;;
*) fail "the last commit is not VACUUM END FAILED: $end" ;;
esac
case "$end" in *numDeletedFiles*) fail "VACUUM END FAILED claims deleted files: $end" ;; esac
latest=$("$D" history "$t" -n 1 --format csv | awk -F, 'NR == 2 { print $1 }')
[ "$latest" = $((before + 2)) ] || fail "VACUUM left version $latest, expected $((before + 2)) (START, END)"
got=$("$D" cat "$t" --columns id --format csv | tail -n +2 | sort -n | tr '\n' ' ')
[ "$got" = "3 13 " ] || fail "after the failed VACUUM the table holds '$got'"

# ---- log cleanup: a per-key error of the batched delete ----
command -v python3 >/dev/null || s3_unavailable "python3 (for the proxy) is not installed"
b2=dl-logerr-$$-$(date +%s)
s3_make_bucket "$b2"
t2=s3://$b2/t
logkeys() {
	s3_curl "$DL_TEST_S3_ENDPOINT/$b2?list-type=2&prefix=t%2F_delta_log%2F" | grep -o '<Key>[^<]*</Key>' |
		sed 's/<Key>t\/_delta_log\///; s/<\/Key>//' | grep -v '^_' | sort
}
"$D" create "$t2" --schema "id BIGINT" -q >/dev/null 2>"$tmp/err" || fail "create t2: $(cat "$tmp/err")"
for i in 1 2 3 4 5; do
	printf 'id\n%d\n' "$i" >"$tmp/in.csv"
	"$D" write "$t2" -i "$tmp/in.csv" -m append -q >/dev/null 2>"$tmp/err" || fail "write t2 $i: $(cat "$tmp/err")"
	[ "$i" = 4 ] && { "$D" checkpoint "$t2" -q >/dev/null 2>"$tmp/err" || fail "checkpoint t2: $(cat "$tmp/err")"; }
done
denied2=00000000000000000001.json
deny_delete "$b2" "t/_delta_log/$denied2"
python3 "$here/lib/s3_fault_proxy.py" "${DL_TEST_S3_ENDPOINT#http://}" --age-days 60 >"$tmp/port" 2>"$tmp/proxy.err" &
proxy_pid=$!
for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
[ -s "$tmp/port" ] || { fail "the proxy did not start: $(cat "$tmp/proxy.err")"; exit 1; }
AWS_ENDPOINT_URL=http://127.0.0.1:$(cat "$tmp/port") "$D" cleanup-log "$t2" --format csv >"$tmp/out" 2>"$tmp/err"
rc=$?
kill "$proxy_pid" 2>/dev/null
wait "$proxy_pid" 2>/dev/null
[ "$rc" != 0 ] || fail "cleanup-log succeeded although $denied2 could not be deleted: $(cat "$tmp/out")"
[ "$(wc -l <"$tmp/err")" = 1 ] || fail "cleanup-log: expected one error line, got: $(cat "$tmp/err")"
grep -q "$denied2" "$tmp/err" || fail "the cleanup-log error does not name $denied2: $(cat "$tmp/err")"
grep -q 'AccessDenied' "$tmp/err" || fail "the cleanup-log error does not give AccessDenied: $(cat "$tmp/err")"
echo "s3_delete_errors: cleanup-log said: $(cat "$tmp/err")"
commits=$(logkeys | grep '^[0-9]*\.json$' | tr '\n' ' ')
want="$denied2 00000000000000000004.json 00000000000000000005.json "
[ "$commits" = "$want" ] || fail "after cleanup-log the commits are '$commits', expected '$want'"
logkeys | grep -q '^00000000000000000004\.checkpoint\.parquet$' || fail "cleanup-log deleted the checkpoint at 4"
got=$("$D" cat "$t2" --format csv | tail -n +2 | sort -n | tr '\n' ' ')
[ "$got" = "1 2 3 4 5 " ] || fail "after the failed cleanup-log t2 holds '$got'"

[ "$fails" = 0 ] && echo "s3_delete_errors: all checks passed"
exit $((fails > 0))
