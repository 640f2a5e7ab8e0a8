#!/usr/bin/env bash
# Commits on Azure through a network that fails (lib/s3_fault_proxy.py, a
# plain HTTP relay, in front of Azurite, see lib/azure_env.sh): every 3rd
# commit Put lands but its answer is lost, a read is a 503 with chance 1/4,
# a GET a dropped connection with chance 1/7. 3 concurrent writers x 8
# appends must all succeed, with versions 0..24 contiguous and every row
# exactly once: a lost answer is resolved by reading the commit back (a
# blind resend would get 409 for our own commit and write it again as the
# next version), the reads are retried. Needs DL_CLI and python3.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/azure_env.sh"
command -v python3 >/dev/null || az_unavailable "python3 (for the fault proxy) is not installed"
az_env
tmp=$(mktemp -d)
proxy_pid=
cleanup() { [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
D=$DL_CLI
c=dl-faults-$$-$(date +%s)
az_make_container "$c"
t=az://$c/t

hostport=${DL_TEST_AZURE_ENDPOINT#http://}
account_path=/${hostport#*/}
hostport=${hostport%%/*}
python3 "$here/lib/s3_fault_proxy.py" "$hostport" --lose-commit-every 3 --slowdown-every 4 --reset-every 7 \
	>"$tmp/port" 2>"$tmp/proxy.err" &
proxy_pid=$!
for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
port=$(cat "$tmp/port")
[ -n "$port" ] || { fail "the fault proxy did not start: $(cat "$tmp/proxy.err")"; exit 1; }
export AZURE_STORAGE_ENDPOINT=http://127.0.0.1:$port$account_path
# short backoffs keep the test quick; the rule is the same
R=(--storage-option retry.backoff_ms=20 --storage-option retry.max_backoff_ms=200 --storage-option retry.max_attempts=10)

"$D" create "$t" --schema "id BIGINT NOT NULL" -q "${R[@]}" >/dev/null 2>"$tmp/err" || fail "create: $(cat "$tmp/err")"
writer() {
	local w=$1 i
	for ((i = 0; i < 8; i++)); do
		printf 'id\n%d\n' $((w * 1000 + i)) >"$tmp/in-$w.csv"
		"$D" write "$t" -i "$tmp/in-$w.csv" -m append -q "${R[@]}" >/dev/null 2>"$tmp/err-$w" ||
			echo "writer $w commit $i: $(cat "$tmp/err-$w")" >>"$tmp/failures"
	done
}
for w in 1 2 3; do writer "$w" & done
wait $(jobs -p | grep -vx "$proxy_pid")
[ -s "$tmp/failures" ] && fail "writes failed: $(head -5 "$tmp/failures")"
kill "$proxy_pid" 2>/dev/null
wait "$proxy_pid" 2>/dev/null
proxy_pid=
grep -q "'lost': 0," "$tmp/proxy.err" && fail "the proxy lost no commit answer: the test shows nothing ($(cat "$tmp/proxy.err"))"

# read directly from the server
export AZURE_STORAGE_ENDPOINT=$DL_TEST_AZURE_ENDPOINT
latest=$("$D" history "$t" -n 1 --format csv | awk -F, 'NR == 2 { print $1 }')
[ "$latest" = 24 ] || fail "latest version is '$latest', expected 24"
for ((v = 0; v <= 24; v++)); do
	[ "$(az_status "$c" "t/_delta_log/$(printf %020d "$v").json")" = 200 ] || fail "commit $v is missing"
done
"$D" cat "$t" --format csv | tail -n +2 | sort >"$tmp/ids"
[ "$(wc -l <"$tmp/ids")" -eq 24 ] || fail "the table has $(wc -l <"$tmp/ids") rows, expected 24"
[ "$(sort -u "$tmp/ids" | wc -l)" -eq 24 ] || fail "duplicate rows: a commit was applied twice"
[ "$fails" = 0 ] && echo "azure_faults: all checks passed ($(cat "$tmp/proxy.err"))"
exit $((fails > 0))
