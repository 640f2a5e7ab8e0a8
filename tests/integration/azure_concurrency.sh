#!/usr/bin/env bash
# Concurrent writers on one az:// table on Azurite (see lib/azure_env.sh):
# 4 processes append 10 commits each, racing for every version through Put
# Blob with If-None-Match: *. Versions 0..40 must all exist, each written
# once, and every row must be there exactly once (a store that let two
# writers win a version would lose rows; one that failed a loser wrongly
# would fail a write). Needs DL_CLI.
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
c=dl-conc-$$-$(date +%s)
az_make_container "$c"
t=az://$c/appends
W=4 N=10

"$D" create "$t" --schema "id BIGINT NOT NULL, writer INT" -q >/dev/null || fail "create failed"
writer() {
	local w=$1 i
	for ((i = 0; i < N; i++)); do
		printf 'id,writer\n%d,%d\n' $((w * 1000 + i)) "$w" >"$tmp/in-$w.csv"
		"$D" write "$t" -i "$tmp/in-$w.csv" -m append -q >/dev/null 2>"$tmp/err-$w" ||
			echo "writer $w commit $i: $(cat "$tmp/err-$w")" >>"$tmp/failures"
	done
}
for ((w = 1; w <= W; w++)); do writer "$w" & done
wait
[ -s "$tmp/failures" ] && fail "appends failed: $(head -5 "$tmp/failures")"
total=$((W * N))
latest=$("$D" history "$t" -n 1 --format csv | awk -F, 'NR == 2 { print $1 }')
[ "$latest" = "$total" ] || fail "latest version is '$latest', expected $total"
# the log holds exactly the commits 0..total (a second winner of a version
# would have replaced the first one's commit: its row would be missing below)
az_curl GET "/$c" "comp=list&prefix=appends/_delta_log/&restype=container" | grep -o '<Name>[^<]*\.json</Name>' |
	sed 's/<[^>]*>//g' >"$tmp/log"
[ "$(wc -l <"$tmp/log")" = $((total + 1)) ] || fail "the log holds $(wc -l <"$tmp/log") commits, expected $((total + 1))"
for ((v = 0; v <= total; v++)); do
	grep -qx "appends/_delta_log/$(printf %020d "$v").json" "$tmp/log" || fail "commit $v is missing"
done
"$D" cat "$t" --columns id --format csv | tail -n +2 | sort >"$tmp/ids"
[ "$(wc -l <"$tmp/ids")" -eq "$total" ] || fail "the table has $(wc -l <"$tmp/ids") rows, expected $total"
[ "$(sort -u "$tmp/ids" | wc -l)" -eq "$total" ] || fail "duplicate rows after concurrent appends"
for ((w = 1; w <= W; w++)); do
	for ((i = 0; i < N; i++)); do grep -qx "$((w * 1000 + i))" "$tmp/ids" || fail "row $((w * 1000 + i)) is missing"; done
done
[ "$fails" = 0 ] && echo "azure_concurrency: all checks passed"
exit $((fails > 0))
