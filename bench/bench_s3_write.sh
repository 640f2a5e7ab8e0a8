#!/usr/bin/env bash
# A 1 GB write to S3 (issue 14's figure: peak RSS under 256 MB), against the
# Ceph RGW of scripts/start-ceph.sh. The input is a CSV of ROWS rows of 50
# random 40-bit BIGINTs (default 3,700,000 rows: 2.5 GB of text, about 1 GB
# of Parquet, since random values hardly compress); `deltalake write` sends
# it to s3://BUCKET/wide through the counting proxy of the fault tests, and
# the script prints the peak RSS, wall and CPU time, the requests by kind and
# the bytes sent, then reads the row count back. Not part of `make bench`
# (it needs the S3 server):
#   eval "$(scripts/start-ceph.sh start)"
#   DL_CLI=build/bin/deltalake bench/bench_s3_write.sh
#   ROWS=340000 DL_CLI=... bench/bench_s3_write.sh     (100 MB)
# make-bench: manual
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
ROWS=${ROWS:-3700000}
here=$(cd "$(dirname "$0")/../tests/integration" && pwd)
. "$here/lib/s3_env.sh"
s3_env
tmp=$(mktemp -d)
proxy_pid=
cleanup() { [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
bucket=dl-bench-w-$$-$(date +%s)
s3_make_bucket "$bucket"
t=s3://$bucket/wide

awk -v n="$ROWS" 'BEGIN {
	srand(7)
	for (c = 0; c < 50; c++) printf "%sc%d", (c ? "," : ""), c
	printf "\n"
	for (r = 0; r < n; r++) {
		line = int(rand() * 1099511627776)
		for (c = 1; c < 50; c++) line = line "," int(rand() * 1099511627776)
		print line
	}
}' >"$tmp/in.csv" || { echo "bench_s3_write: generating the input failed"; exit 1; }
echo "input: $ROWS rows, $(($(stat -c %s "$tmp/in.csv") / 1048576)) MiB of CSV"

python3 "$here/lib/s3_fault_proxy.py" "${DL_TEST_S3_ENDPOINT#http://}" >"$tmp/port" 2>"$tmp/proxy.err" &
proxy_pid=$!
for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
[ -s "$tmp/port" ] || { echo "bench_s3_write: the proxy did not start: $(cat "$tmp/proxy.err")"; exit 1; }
AWS_ENDPOINT_URL=http://127.0.0.1:$(cat "$tmp/port") /usr/bin/time -f '%M %e %U %S' -o "$tmp/time" \
	"$DL_CLI" write "$t" -i "$tmp/in.csv" -q >/dev/null 2>"$tmp/err" ||
	{ echo "bench_s3_write: write failed: $(cat "$tmp/err")"; exit 1; }
kill "$proxy_pid" 2>/dev/null
wait "$proxy_pid" 2>/dev/null
proxy_pid=
read -r rss wall user sys <"$tmp/time"
bytes=$("$DL_CLI" detail "$t" --format csv | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "sizeInBytes") k = i } NR == 2 { print $k }')
rows=$("$DL_CLI" sql "SELECT count(*) FROM delta.\`$t\`" --format csv | tail -n 1)
echo "wrote ${bytes:-?} bytes of Parquet ($rows rows read back) to $t"
echo "peak RSS $((rss / 1024)) MB, wall ${wall} s, CPU $(echo "$user + $sys" | bc) s (user $user, sys $sys)"
echo "requests: $(cat "$tmp/proxy.err")"
[ "$rows" = "$ROWS" ] || { echo "bench_s3_write: read back $rows rows, expected $ROWS"; exit 1; }
