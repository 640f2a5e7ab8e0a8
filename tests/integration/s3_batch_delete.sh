#!/usr/bin/env bash
# VACUUM of many files on S3 (Ceph RGW, lib/s3_env.sh) deletes with
# DeleteObjects, 1000 keys a request, every request counted by the loopback
# proxy of lib/s3_fault_proxy.py (no faults, --log): a table of 1,200
# partitions, all deleted, then 3 rows written again, and a stray file:
# VACUUM --threads 1 must delete exactly the 1,201 unreferenced files in 2
# DeleteObjects (1000 + 201) and no single DELETE, keeping the 3 referenced
# files and the hidden ones. Needs DL_CLI and python3.
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
bucket=dl-batch-$$-$(date +%s)
s3_make_bucket "$bucket"
t=s3://$bucket/t

upstream=${DL_TEST_S3_ENDPOINT#http://}
python3 "$here/lib/s3_fault_proxy.py" "$upstream" --log "$tmp/requests" >"$tmp/port" 2>"$tmp/proxy.err" &
proxy_pid=$!
for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
port=$(cat "$tmp/port")
[ -n "$port" ] || { fail "the proxy did not start: $(cat "$tmp/proxy.err")"; exit 1; }
export AWS_ENDPOINT_URL=http://127.0.0.1:$port
mark() { : >"$tmp/requests"; }
seen() { grep -c "$1" "$tmp/requests" || true; }
# the keys under the table's root (relative, sorted), every page of the listing
keys() {
	local after= page
	while :; do
		page=$(s3_curl "$DL_TEST_S3_ENDPOINT/$bucket?list-type=2&prefix=t%2F${after:+&start-after=$after}")
		printf '%s\n' "$page" | grep -o '<Key>[^<]*</Key>' | sed 's/<Key>t\///; s/<\/Key>//'
		printf '%s' "$page" | grep -q '<IsTruncated>true</IsTruncated>' || break
		after=$(printf '%s' "$page" | grep -o '<Key>[^<]*</Key>' | tail -1 | sed 's/<Key>//; s/<\/Key>//; s/\//%2F/g; s/=/%3D/g')
	done | sort
}
put_key() { s3_curl -X PUT --data-binary '' -o /dev/null -w '%{http_code}' "$DL_TEST_S3_ENDPOINT/$bucket/t/$1"; }

"$D" create "$t" --schema "id BIGINT NOT NULL, p INT" --partition-by p -q >/dev/null 2>"$tmp/err" ||
	fail "create: $(cat "$tmp/err")"
{ echo id,p; for i in $(seq 1 1200); do echo "$i,$i"; done; } >"$tmp/many.csv"
"$D" write "$t" -i "$tmp/many.csv" -m append -q >/dev/null 2>"$tmp/err" || fail "write 1200: $(cat "$tmp/err")"
"$D" delete "$t" --where "true" -q >/dev/null 2>"$tmp/err" || fail "delete: $(cat "$tmp/err")"
printf 'id,p\n1001,1\n1002,2\n1003,3\n' >"$tmp/few.csv"
"$D" write "$t" -i "$tmp/few.csv" -m append -q >/dev/null 2>"$tmp/err" || fail "write 3: $(cat "$tmp/err")"
# an empty body: the fixed x-amz-content-sha256 of s3_curl is the empty one's
[ "$(put_key p%3D7/stray.parquet)" = 200 ] || fail "putting a stray object failed"
[ "$(put_key _hidden/x.parquet)" = 200 ] || fail "putting a hidden object failed"
[ "$(put_key p%3D7/.hidden.parquet)" = 200 ] || fail "putting a hidden object failed"
n=$(keys | grep -c '^p=.*parquet$')
[ "$n" = 1205 ] || fail "the bucket holds $n data objects, expected 1205"

mark
out=$("$D" vacuum "$t" --retain 0 --no-retention-check --threads 1 --format csv 2>"$tmp/err") || fail "vacuum: $(cat "$tmp/err")"
deleted=$(echo "$out" | awk -F, 'NR == 2 { print $3 }')
[ "${deleted:-}" = 1201 ] || fail "VACUUM deleted '${deleted:-}' files, expected 1201: $out"
nbatch=$(seen '^POST .*[?&]delete')
echo "s3_batch_delete: VACUUM of 1201 files sent $nbatch DeleteObjects, $(seen '^DELETE ') DELETEs," \
	"$(wc -l <"$tmp/requests") requests in all"
[ "$nbatch" = 2 ] || fail "VACUUM sent $nbatch DeleteObjects requests, expected 2 (1000 + 201)"
[ "$(grep '^DELETE ' "$tmp/requests" | grep -vc 'if-none-match-probe')" = 0 ] ||
	fail "VACUUM sent single DELETEs: $(grep '^DELETE ' "$tmp/requests" | head -3)"
"$D" files "$t" --format csv | tail -n +2 | cut -d, -f1 | sort >"$tmp/referenced"
keys | grep '^p=' | grep -v '/\.' >"$tmp/left"
diff "$tmp/referenced" "$tmp/left" >/dev/null ||
	fail "the table references $(tr '\n' ' ' <"$tmp/referenced") but the bucket holds $(head -5 "$tmp/left" | tr '\n' ' ')"
[ "$(wc -l <"$tmp/left")" = 3 ] || fail "$(wc -l <"$tmp/left") data files left, expected 3"
[ "$(keys | grep -c '^_hidden/x.parquet$')" = 1 ] || fail "VACUUM deleted _hidden/x.parquet"
[ "$(keys | grep -c '^p=7/.hidden.parquet$')" = 1 ] || fail "VACUUM deleted p=7/.hidden.parquet"
got=$("$D" cat "$t" --columns id --format csv | tail -n +2 | sort | tr '\n' ' ')
[ "$got" = "1001 1002 1003 " ] || fail "after VACUUM the table holds '$got'"

[ "$fails" = 0 ] && echo "s3_batch_delete: all checks passed"
exit $((fails > 0))
