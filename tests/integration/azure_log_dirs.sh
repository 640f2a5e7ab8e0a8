#!/usr/bin/env bash
# A "directory" named like a commit on Azure Blob storage (blobs under
# _delta_log/00000000000000000002.json/, which a listing with a delimiter
# answers as a BlobPrefix) is an error naming it and its version, not a
# version silently skipped (issue 17 item 8), on Azurite
# (lib/azure_env.sh). Needs DL_CLI.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/azure_env.sh"
az_env
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
c=dl-logdirs-$$-$(date +%s)
az_make_container "$c"
t=az://$c/t
printf 'id\n1\n' >"$tmp/in.csv"
"$DL_CLI" write "$t" -i "$tmp/in.csv" -q >/dev/null 2>"$tmp/err" || fail "write 0: $(cat "$tmp/err")"
"$DL_CLI" write "$t" -i "$tmp/in.csv" -m append -q >/dev/null 2>"$tmp/err" || fail "write 1: $(cat "$tmp/err")"
blob=/$c/t/_delta_log/00000000000000000002.json/x
code=$(AZ_XMS=x-ms-blob-type:BlockBlob az_curl PUT "$blob" "" -o /dev/null -w '%{http_code}' -H 'Content-Length: 0')
[ "$code" = 201 ] || fail "putting the blob under 00000000000000000002.json/ answered HTTP $code"
"$DL_CLI" cat "$t" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] || fail "cat with a commit-named prefix: exit $rc, expected 1"
grep -qF "_delta_log/00000000000000000002.json is not a regular file but is named like a log file (the commit of version 2)" \
	"$tmp/err" || fail "cat did not name the prefix: $(cat "$tmp/err")"
az_curl DELETE "$blob" "" -o /dev/null
n=$("$DL_CLI" cat "$t" --format csv 2>"$tmp/err" | tail -n +2 | wc -l)
[ "$n" -eq 2 ] || fail "without the prefix the table reads $n rows, expected 2: $(cat "$tmp/err")"
[ "$fails" -eq 0 ] && echo "azure_log_dirs: a commit-named prefix is refused by name"
exit $((fails > 0))
