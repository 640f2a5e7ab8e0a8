#!/usr/bin/env bash
# A table on Azure Blob Storage (the tests' Azurite, lib/azure_env.sh)
# shared by `deltalake sharing serve`: file URLs are read-only service SAS
# URLs of the blobs themselves (not the server's own), curl downloads every
# file with no credentials, and the storage service refuses an edited
# signature and a URL aimed at another blob. Needs DL_CLI (skips locally
# without Azurite, fails in CI).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/azure_env.sh"
az_env
source "$here/sharing_server_lib.bash"
c=dl-share-$$-$(date +%s)
az_make_container "$c"
t=az://$c/tables/events
"$DL_CLI" create "$t" --schema "id BIGINT, part STRING" --partition-by part -q >/dev/null || fail "create on Azure"
printf 'id,part\n1,a\n2,a\n3,b\n' >"$tmp/in.csv"
"$DL_CLI" write "$t" -i "$tmp/in.csv" -m append -q >/dev/null || fail "write on Azure"
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
  bearerToken: az-test-token
preSignedUrlTimeoutSeconds: 600
YAML
start_server "$tmp/shares.yaml"
st=$(req "$tmp/q" -X POST -d '{}' -H "Authorization: Bearer az-test-token" "$base/shares/s/schemas/x/tables/t/query")
status_is "$st" 200 query "$tmp/q"
n=0
for u in $(grep -o '"url":"[^"]*"' "$tmp/q" | cut -d'"' -f4); do
	[[ "$u" == "$DL_TEST_AZURE_ENDPOINT/$c/tables/events/"*"&sp=r&sig="* ]] || fail "not a SAS URL of the blob: ${u:0:140}"
	code=$(curl -s -o "$tmp/f$n.parquet" -w '%{http_code}' "$u")
	[ "$code" = 200 ] || fail "SAS download: HTTP $code ($(head -c 300 "$tmp/f$n.parquet"))"
	head -c 4 "$tmp/f$n.parquet" | grep -q PAR1 || fail "the download is not Parquet"
	# the signature's last three characters replaced (by other ones, always)
	[ "${u: -3}" = AAA ] && edited="${u%???}BBB" || edited="${u%???}AAA"
	code=$(curl -s -o /dev/null -w '%{http_code}' "$edited")
	[ "$code" = 403 ] || fail "an edited signature: HTTP $code"
	other="$DL_TEST_AZURE_ENDPOINT/$c/tables/events/_delta_log/00000000000000000000.json?${u#*\?}"
	code=$(curl -s -o /dev/null -w '%{http_code}' "$other")
	[ "$code" = 403 ] || fail "the SAS opened another blob: HTTP $code"
	n=$((n + 1))
done
[ "$n" = 2 ] || fail "$n files listed, expected 2"
stop_server
[ "$fails" -eq 0 ] || { echo "$fails failure(s)" >&2; exit 1; }
echo "sharing_server_azure: ok"
