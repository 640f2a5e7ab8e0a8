#!/usr/bin/env bash
# A bounded load test of `deltalake sharing serve` over loopback: rounds of
# 200 curl requests at once (xargs -P 200: lists, metadata, queries, file
# downloads) must all succeed, and the server's resident memory after two
# more rounds must not have grown past the first round's (allowing a
# little for allocator noise). Counts, not timings, are checked. Needs
# DL_CLI and DL_SHARED_DIR.
set -uo pipefail
: "${DL_SHARED_DIR:?DL_SHARED_DIR must name the shared directory}"
# Under ASan freed memory waits in a quarantine that grows the RSS by
# itself: keep it small so the growth check measures the server.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=1"
source "$(dirname "$0")/sharing_server_lib.bash"
K="$DL_SHARED_DIR/conformance/kernel-data"
cat >"$tmp/shares.yaml" <<YAML
version: 1
shares:
- name: s
  schemas:
  - name: x
    tables:
    - name: t
      location: "$K/basic_partitioned"
    - name: c
      location: "$K/cdf-table"
      historyShared: true
authorization:
  bearerToken: load-test-token
YAML
start_server "$tmp/shares.yaml" --max-connections 256
B=$base/shares/s/schemas/x/tables
curl -s -X POST -d '{}' -H "Authorization: Bearer load-test-token" "$B/t/query" >"$tmp/q"
file_url=$(grep -o '"url":"[^"]*"' "$tmp/q" | head -1 | cut -d'"' -f4)
[ -n "$file_url" ] || fail "no file URL: $(head -c 300 "$tmp/q")"
# one request per line: curl's arguments
for i in $(seq 1 40); do
	echo "$base/shares"
	echo "$B/t/metadata"
	echo "-X POST -d {} $B/t/query"
	echo "$B/c/changes?startingVersion=0"
	echo "$file_url"
done >"$tmp/reqs"
[ "$(wc -l <"$tmp/reqs")" -eq 200 ] || fail "the round is not 200 requests"
round() {
	xargs -P 200 -L 1 curl -s -o /dev/null -w '%{http_code}\n' --max-time 30 \
		-H "Authorization: Bearer load-test-token" <"$tmp/reqs" >"$tmp/codes.$1"
	[ "$(wc -l <"$tmp/codes.$1")" -eq 200 ] || fail "round $1: $(wc -l <"$tmp/codes.$1") answers to 200 requests"
	local ok
	ok=$(grep -c '^200$' "$tmp/codes.$1")
	[ "$ok" -eq 200 ] || fail "round $1: $ok of 200 requests answered 200 ($(sort "$tmp/codes.$1" | uniq -c | tr '\n' ' '))"
}
rss() { awk '/^VmRSS:/ {print $2}' "/proc/$server_pid/status"; }
round 1
r1=$(rss)
round 2
round 3
r3=$(rss)
echo "VmRSS after round 1: ${r1} kB, after round 3: ${r3} kB"
# No growth: round 3 ends within 10% (at least 4 MiB) of round 1.
slack=$((r1 / 10)); [ "$slack" -lt 4096 ] && slack=4096
[ "$r3" -le $((r1 + slack)) ] || fail "the server grew from ${r1} kB to ${r3} kB over two rounds"
kill -0 "$server_pid" || fail "the server died"
stop_server
[ "$fails" -eq 0 ] || { echo "$fails failure(s)" >&2; exit 1; }
echo "sharing_server_load: ok"
