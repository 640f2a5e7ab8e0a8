#!/usr/bin/env bash
# Listings that take many pages on Azurite (see lib/azure_env.sh): with
# azure.list_page_size=3 every List Blobs answer is cut after 3 blobs and
# the rest must be followed through NextMarker. A table of 20 commits (and a
# checkpoint) must open at its latest version with every row and time
# travel to an old version; a neighbour whose name extends the table's
# stays out of it. Needs DL_CLI.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/azure_env.sh"
az_env
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
D=$DL_CLI
c=dl-list-$$-$(date +%s)
az_make_container "$c"
t=az://$c/many
P=(--storage-option azure.list_page_size=3)

"$D" create "$t" --schema "id BIGINT NOT NULL" -q "${P[@]}" >/dev/null || fail "create failed"
for ((i = 1; i <= 20; i++)); do
	printf 'id\n%d\n' "$i" >"$tmp/in.csv"
	"$D" write "$t" -i "$tmp/in.csv" -m append -q "${P[@]}" >/dev/null 2>"$tmp/err" || fail "write $i: $(cat "$tmp/err")"
done
# a neighbour whose name extends the table's: not part of it
printf 'id\n999\n' >"$tmp/in.csv"
"$D" write "az://$c/many2" -i "$tmp/in.csv" -q >/dev/null 2>"$tmp/err" || fail "write many2: $(cat "$tmp/err")"

latest=$("$D" history "$t" -n 1 --format csv "${P[@]}" | awk -F, 'NR == 2 { print $1 }')
[ "$latest" = 20 ] || fail "with 3 blobs a page the latest version is '$latest', expected 20"
got=$("$D" cat "$t" --columns id --format csv "${P[@]}" | tail -n +2 | sort -n | tr '\n' ' ')
[ "$got" = "$(seq -s ' ' 1 20) " ] || fail "with 3 blobs a page cat gives '$got'"
got=$("$D" cat "$t" --version 2 --columns id --format csv "${P[@]}" | tail -n +2 | sort -n | tr '\n' ' ')
[ "$got" = "1 2 " ] || fail "version 2 holds '$got', expected '1 2 '"
# a checkpoint in the middle of the pages, then more commits after it
"$D" checkpoint "$t" -q "${P[@]}" >/dev/null 2>"$tmp/err" || fail "checkpoint: $(cat "$tmp/err")"
printf 'id\n21\n' >"$tmp/in.csv"
"$D" write "$t" -i "$tmp/in.csv" -m append -q "${P[@]}" >/dev/null 2>"$tmp/err" || fail "write 21: $(cat "$tmp/err")"
got=$("$D" cat "$t" --columns id --format csv "${P[@]}" | tail -n +2 | sort -n | tr '\n' ' ')
[ "$got" = "$(seq -s ' ' 1 21) " ] || fail "after the checkpoint cat gives '$got'"
"$D" cleanup-log "$t" --retention 'interval 0 seconds' -q "${P[@]}" >/dev/null 2>"$tmp/err" || fail "cleanup-log: $(cat "$tmp/err")"
[ "$fails" = 0 ] && echo "azure_listing: all checks passed"
exit $((fails > 0))
