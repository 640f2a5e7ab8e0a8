#!/usr/bin/env bash
# The conformance runner over S3 (issue 14): every table of
# $DL_SHARED_DIR/conformance copied byte for byte to a bucket of the tests'
# S3 server (Ceph RGW, lib/s3_env.sh) and read from there through the same
# checks as locally, against the same known_failures.txt.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/s3_env.sh"
s3_env
: "${DL_BINARY_DIR:?DL_BINARY_DIR must name the build directory}"
runner=$DL_BINARY_DIR/tests/test_conformance
[ -x "$runner" ] || { echo "FAIL: $runner is not built" >&2; exit 1; }
bucket=dl-conf-$$-$(date +%s)
s3_make_bucket "$bucket"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$runner" --known-failures "$here/../conformance/known_failures.txt" --root "s3://$bucket/conformance" >"$out" 2>&1
rc=$?
grep -v '^PASS ' "$out"
[ "$rc" = 0 ] && echo "s3_conformance: $(tail -1 "$out") over s3://$bucket"
exit $rc
