#!/usr/bin/env bash
# Concurrent writers on one s3:// table on a real S3 server (Ceph RGW, see
# lib/s3_env.sh): 8 processes append 25 commits each, racing for every
# version through PUT If-None-Match: *. Versions 0..200 must all exist and
# every row must be there exactly once (a store that let two writers win a
# version would lose rows; one that failed a loser wrongly would fail a
# write). Needs DL_CLI.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/s3_env.sh"
s3_env
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
D=$DL_CLI
bucket=dl-conc-$$-$(date +%s)
s3_make_bucket "$bucket"
t=s3://$bucket/appends

"$D" create "$t" --schema "id BIGINT NOT NULL, writer INT" -q >/dev/null || fail "create failed"
writer() {
	local w=$1 i
	for ((i = 0; i < 25; i++)); do
		printf 'id,writer\n%d,%d\n' $((w * 1000 + i)) "$w" >"$tmp/in-$w.csv"
		"$D" write "$t" -i "$tmp/in-$w.csv" -m append -q >/dev/null 2>"$tmp/err-$w" ||
			echo "writer $w commit $i: $(cat "$tmp/err-$w")" >>"$tmp/failures"
	done
}
for w in 1 2 3 4 5 6 7 8; do writer "$w" & done
wait
[ -s "$tmp/failures" ] && fail "appends failed: $(head -5 "$tmp/failures")"
latest=$("$D" history "$t" -n 1 --format csv | awk -F, 'NR == 2 { print $1 }')
[ "$latest" = 200 ] || fail "latest version is '$latest', expected 200"
for ((v = 0; v <= 200; v++)); do
	[ "$(s3_status "$bucket" "appends/_delta_log/$(printf %020d "$v").json")" = 200 ] || fail "commit $v is missing"
done
"$D" cat "$t" --columns id --format csv | tail -n +2 | sort >"$tmp/ids"
[ "$(wc -l <"$tmp/ids")" -eq 200 ] || fail "the table has $(wc -l <"$tmp/ids") rows, expected 200"
[ "$(sort -u "$tmp/ids" | wc -l)" -eq 200 ] || fail "duplicate rows after concurrent appends"
for w in 1 2 3 4 5 6 7 8; do
	for ((i = 0; i < 25; i++)); do grep -qx "$((w * 1000 + i))" "$tmp/ids" || fail "row $((w * 1000 + i)) is missing"; done
done
[ "$fails" = 0 ] && echo "s3_concurrency: all checks passed"
exit $((fails > 0))
