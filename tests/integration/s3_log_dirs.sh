#!/usr/bin/env bash
# A "directory" named like a commit on S3 (keys under
# _delta_log/00000000000000000002.json/, which a non-recursive listing
# answers as a CommonPrefix) is an error naming it and its version, not a
# version silently skipped (issue 17 item 8), on a real S3 server (Ceph
# RGW, lib/s3_env.sh). Needs DL_CLI.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/s3_env.sh"
s3_env
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
bucket=dl-logdirs-$$-$(date +%s)
s3_make_bucket "$bucket"
t=s3://$bucket/t
printf 'id\n1\n' >"$tmp/in.csv"
"$DL_CLI" write "$t" -i "$tmp/in.csv" -q >/dev/null 2>"$tmp/err" || fail "write 0: $(cat "$tmp/err")"
"$DL_CLI" write "$t" -i "$tmp/in.csv" -m append -q >/dev/null 2>"$tmp/err" || fail "write 1: $(cat "$tmp/err")"
code=$(s3_curl -o /dev/null -w '%{http_code}' -X PUT -H 'Content-Length: 0' "$DL_TEST_S3_ENDPOINT/$bucket/t/_delta_log/00000000000000000002.json/x")
[ "$code" = 200 ] || fail "putting the key under 00000000000000000002.json/ answered HTTP $code"
"$DL_CLI" cat "$t" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] || fail "cat with a commit-named prefix: exit $rc, expected 1"
grep -qF "_delta_log/00000000000000000002.json is not a regular file but is named like a log file (the commit of version 2)" \
	"$tmp/err" || fail "cat did not name the prefix: $(cat "$tmp/err")"
s3_curl -o /dev/null -X DELETE "$DL_TEST_S3_ENDPOINT/$bucket/t/_delta_log/00000000000000000002.json/x"
n=$("$DL_CLI" cat "$t" --format csv 2>"$tmp/err" | tail -n +2 | wc -l)
[ "$n" -eq 2 ] || fail "without the prefix the table reads $n rows, expected 2: $(cat "$tmp/err")"
[ "$fails" -eq 0 ] && echo "s3_log_dirs: a commit-named prefix is refused by name"
exit $((fails > 0))
