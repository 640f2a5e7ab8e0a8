#!/usr/bin/env bash
# Delta Sharing server benchmark (issue 16 item 5; docs/BENCHMARKS.md):
#   - query latency on a table of N files (default 10,000): p50 and p99 of
#     Q sequential POST .../query requests (curl's time_total; the response
#     lists every file with a signed URL);
#   - metadata requests per second: M requests, C at once (xargs -P);
#   - the server's peak RSS (VmHWM) over the whole run.
# The table's log is written directly (one commit of N adds with stats; the
# data files are never read by query or metadata, so none are written).
# Usage: DL_CLI=build/bin/deltalake bench/bench_sharing.sh   (N= Q= M= C=;
# CACHE_BYTES=0 turns the server's snapshot cache off: snapshotCacheBytes)
set -euo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
N=${N:-10000} Q=${Q:-50} M=${M:-2000} C=${C:-50}
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
t=$tmp/table
mkdir -p "$t/_delta_log"
{
	echo '{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}'
	echo '{"metaData":{"id":"bench","format":{"provider":"parquet","options":{}},"schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}},{\"name\":\"p\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}}]}","partitionColumns":["p"],"configuration":{},"createdTime":1}}'
	awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++)
		printf "{\"add\":{\"path\":\"p=%d/part-%05d.parquet\",\"partitionValues\":{\"p\":\"%d\"},\"size\":1000,\"modificationTime\":1,\"dataChange\":true,\"stats\":\"{\\\"numRecords\\\":100,\\\"minValues\\\":{\\\"id\\\":%d},\\\"maxValues\\\":{\\\"id\\\":%d},\\\"nullCount\\\":{\\\"id\\\":0}}\"}}\n", i % 100, i, i % 100, i * 100, i * 100 + 99 }'
} >"$t/_delta_log/00000000000000000000.json"
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
  bearerToken: bench-token
${CACHE_BYTES:+snapshotCacheBytes: $CACHE_BYTES}
YAML
"$DL_CLI" sharing serve --config "$tmp/shares.yaml" --port 0 -q >"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 1 100); do grep -q listening "$tmp/out" 2>/dev/null && break; sleep 0.05; done
port=$(awk '/listening/ {print $4}' "$tmp/out")
B="http://127.0.0.1:$port/delta-sharing/shares/s/schemas/x/tables/t"
A="Authorization: Bearer bench-token"
lines=$(curl -s -X POST -d '{}' -H "$A" "$B/query" | wc -l)
[ "$lines" -eq $((N + 2)) ] || { echo "query returned $lines lines, expected $((N + 2))" >&2; exit 1; }
# The server's own CPU (utime + stime) over the queries: wall times on a
# loaded machine include waiting for a core.
cpu() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
cpu0=$(cpu)
for _ in $(seq 1 "$Q"); do
	curl -s -o /dev/null -w '%{time_total}\n' -X POST -d '{}' -H "$A" "$B/query"
done | sort -n >"$tmp/lat"
cpu1=$(cpu)
pct() { awk -v p="$1" '{a[NR] = $1} END { i = int(NR * p / 100 + 0.999); if (i < 1) i = 1; printf "%.1f ms", a[i] * 1000 }' "$tmp/lat"; }
echo "query, $N files: p50 $(pct 50), p99 $(pct 99) over $Q requests; server CPU $(awk -v t=$((cpu1 - cpu0)) -v hz="$(getconf CLK_TCK)" -v q="$Q" 'BEGIN { printf "%.1f ms", t * 1000 / hz / q }') a query"
for _ in $(seq 1 "$M"); do echo "$B/metadata"; done >"$tmp/reqs"
start=$(date +%s%N)
xargs -P "$C" -n 50 curl -s -o /dev/null -w '%{http_code}\n' -H "$A" <"$tmp/reqs" >"$tmp/codes"
end=$(date +%s%N)
ok=$(grep -c '^200$' "$tmp/codes")
awk -v m="$M" -v ok="$ok" -v ns=$((end - start)) -v c="$C" \
	'BEGIN { printf "metadata: %d of %d ok, %.0f requests/s with %d clients\n", ok, m, m / (ns / 1e9), c }'
echo "server peak RSS: $(awk '/^VmHWM:/ {print $2, $3}' /proc/$pid/status)"
