#!/usr/bin/env bash
# A table on S3 (the tests' Ceph RGW, lib/s3_env.sh) shared by `deltalake
# sharing serve`: file URLs are presigned S3 URLs (not the server's own),
# curl downloads every file from the object store with no credentials and
# the rows equal the direct read; an edited signature is refused by S3.
# Needs DL_CLI (skips locally without an S3 server, fails in CI).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/s3_env.sh"
s3_env
source "$here/sharing_server_lib.bash"
bucket=dl-share-$$-$(date +%s)
s3_make_bucket "$bucket"
t=s3://$bucket/tables/events
"$DL_CLI" create "$t" --schema "id BIGINT, part STRING" --partition-by part -q >/dev/null || fail "create on S3"
printf 'id,part\n1,a\n2,a\n3,b\n' >"$tmp/in.csv"
"$DL_CLI" write "$t" -i "$tmp/in.csv" -m append -q >/dev/null || fail "write on S3"
cat >"$tmp/shares.yaml" <<YAML
version: 1
shares:
- name: s
  schemas:
  - name: x
    tables:
    - name: t
      location: "$t"
authorization:
  bearerToken: s3-test-token
preSignedUrlTimeoutSeconds: 600
YAML
start_server "$tmp/shares.yaml"
st=$(req "$tmp/q" -X POST -d '{}' -H "Authorization: Bearer s3-test-token" "$base/shares/s/schemas/x/tables/t/query")
status_is "$st" 200 query "$tmp/q"
n=0
for u in $(grep -o '"url":"[^"]*"' "$tmp/q" | cut -d'"' -f4); do
	[[ "$u" == "$DL_TEST_S3_ENDPOINT/$bucket/tables/events/"*"X-Amz-Signature="* ]] || fail "not a presigned S3 URL: ${u:0:120}"
	code=$(curl -s -o "$tmp/f$n.parquet" -w '%{http_code}' "$u")
	[ "$code" = 200 ] || fail "presigned download: HTTP $code"
	head -c 4 "$tmp/f$n.parquet" | grep -q PAR1 || fail "the download is not Parquet"
	# edit the signature's last hex digit (to another digit: replacing a 0 by
	# 0 left the URL as it was, 1 time in 16)
	last=${u: -1}
	[ "$last" = 0 ] && edited="${u%?}1" || edited="${u%?}0"
	code=$(curl -s -o /dev/null -w '%{http_code}' "$edited")
	[ "$code" = 403 ] || fail "S3 accepted an edited signature (HTTP $code)"
	n=$((n + 1))
done
[ "$n" = 2 ] || fail "$n files listed, expected 2"
stop_server
[ "$fails" -eq 0 ] || { echo "$fails failure(s)" >&2; exit 1; }
echo "sharing_server_s3: ok"
