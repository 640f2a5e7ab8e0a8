#!/usr/bin/env bash
# A data file larger than one part on a real S3 server (Ceph RGW, see
# lib/s3_env.sh): with s3.part_size=5 MiB a ~12 MB Parquet file goes up as
# a multipart upload (CreateMultipartUpload and CompleteMultipartUpload are
# the POSTs the counting proxy sees, the parts are PUTs) and reads back with
# every row and the same values. Needs DL_CLI and python3.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/s3_env.sh"
command -v python3 >/dev/null || s3_unavailable "python3 (for the counting proxy) is not installed"
s3_env
tmp=$(mktemp -d)
proxy_pid=
cleanup() { [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
D=$DL_CLI
bucket=dl-mpu-$$-$(date +%s)
s3_make_bucket "$bucket"
t=s3://$bucket/wide

# 40,000 rows of 50 random BIGINTs: ~12 MB of Parquet that does not compress
python3 - "$tmp/in.csv" <<'PY'
import random, sys
random.seed(7)
with open(sys.argv[1], "w") as f:
    f.write(",".join("c%d" % i for i in range(50)) + "\n")
    for _ in range(40000):
        f.write(",".join(str(random.randint(0, 1 << 40)) for _ in range(50)) + "\n")
PY
python3 "$here/lib/s3_fault_proxy.py" "${DL_TEST_S3_ENDPOINT#http://}" >"$tmp/port" 2>"$tmp/proxy.err" &
proxy_pid=$!
for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
[ -s "$tmp/port" ] || { fail "the proxy did not start: $(cat "$tmp/proxy.err")"; exit 1; }
AWS_ENDPOINT_URL=http://127.0.0.1:$(cat "$tmp/port") "$D" write "$t" -i "$tmp/in.csv" \
	--storage-option s3.part_size=5242880 -q >/dev/null 2>"$tmp/err" || fail "write: $(cat "$tmp/err")"
kill "$proxy_pid" 2>/dev/null
wait "$proxy_pid" 2>/dev/null
proxy_pid=
posts=$(grep -o "'POST': [0-9]*" "$tmp/proxy.err" | grep -o '[0-9]*$')
[ "${posts:-0}" -ge 2 ] || fail "no multipart upload happened (POSTs: ${posts:-none}; $(cat "$tmp/proxy.err"))"
n=$("$D" cat "$t" --columns c0 --format csv | tail -n +2 | wc -l)
[ "$n" = 40000 ] || fail "read back $n rows, expected 40000"
want=$(tail -n +2 "$tmp/in.csv" | cut -d, -f50 | sort | md5sum)
got=$("$D" cat "$t" --columns c49 --format csv | tail -n +2 | sort | md5sum)
[ "$want" = "$got" ] || fail "column c49 read back differs from what was written"
[ "$fails" = 0 ] && echo "s3_multipart: all checks passed ($(cat "$tmp/proxy.err"))"
exit $((fails > 0))
