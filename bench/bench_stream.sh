#!/usr/bin/env bash
# Streaming (issue 15, item 6):
#  1. follow latency: `deltalake follow --from latest --interval I` runs
#     while COMMITS one-row appends land one after another; the latency of
#     a row is the time its line reaches us minus the modification time of
#     its commit file (the commit moment). Prints p50 / p90 / max against
#     the target p50 < I + 50 ms on local files.
#  2. ingest throughput: ROWS CSV rows through `deltalake ingest` in
#     BATCH-row batches (one commit each), rows/s, against DuckDB writing
#     the same batches as Parquet files of a directory.
#   DL_CLI=build/bin/deltalake bench/bench_stream.sh
#   COMMITS=20 ROWS=20000 bench/bench_stream.sh      (a smoke run)
# Needs DL_CLI, python3; DuckDB from tools/oracle (DL_ORACLE_DIR) when present.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
COMMITS=${COMMITS:-100}
INTERVAL=${INTERVAL:-0.2}
ROWS=${ROWS:-1000000}
BATCH=${BATCH:-10000}
here=$(cd "$(dirname "$0")" && pwd)
ORACLE=${DL_ORACLE_DIR:-$here/../tools/oracle}
ORACLE=$(cd "$ORACLE" 2>/dev/null && pwd || echo "$ORACLE")   # node's createRequire needs an absolute path
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---- 1. follow latency ----
t=$tmp/lat
"$DL_CLI" create "$t" --schema "id BIGINT, v STRING" -q >/dev/null
python3 - "$DL_CLI" "$t" "$COMMITS" "$INTERVAL" "$tmp" <<'PY'
import json, os, subprocess, sys, threading, time
cli, table, n, interval, tmp = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
follow = subprocess.Popen([cli, "follow", table, "--from", "latest", "--interval", interval],
                          stdout=subprocess.PIPE, text=True, bufsize=1)
arrived = {}
def reader():
    for line in follow.stdout:
        arrived[json.loads(line)["id"]] = time.time()
th = threading.Thread(target=reader, daemon=True)
th.start()
time.sleep(0.5)
for i in range(1, n + 1):
    with open(tmp + "/one.csv", "w") as f:
        f.write("id,v\n%d,x\n" % i)
    subprocess.run([cli, "write", table, "-i", tmp + "/one.csv", "-m", "append", "-q"], check=True,
                   stdout=subprocess.DEVNULL)
    time.sleep(0.05)
deadline = time.time() + 30
while len(arrived) < n and time.time() < deadline:
    time.sleep(0.05)
follow.terminate()
follow.wait()
lat = []
for i in range(1, n + 1):
    if i in arrived:
        commit = os.stat("%s/_delta_log/%020d.json" % (table, i)).st_mtime
        lat.append((arrived[i] - commit) * 1000)
lat.sort()
if not lat:
    sys.exit("follow printed nothing")
pct = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))]
print("follow latency over %d commits (interval %s s): p50 %.1f ms, p90 %.1f ms, max %.1f ms; target p50 < %.0f ms"
      % (len(lat), interval, pct(0.5), pct(0.9), lat[-1], float(interval) * 1000 + 50))
PY

# ---- 2. ingest throughput ----
python3 - "$tmp/in.csv" "$ROWS" "$BATCH" "$tmp/batches" <<'PY'
import os, sys
path, rows, batch, bdir = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
os.makedirs(bdir)
header = "id,name,amount,ts\n"
with open(path, "w") as f:
    f.write(header)
    out = None
    for i in range(rows):
        if i % batch == 0:
            if out: out.close()
            out = open("%s/b-%05d.csv" % (bdir, i // batch), "w")
            out.write(header)
        line = "%d,name-%d,%d.%02d,2026-12-0%d 10:%02d:%02d\n" % (i, i % 1000, i % 10000, i % 100, 1 + i % 9, i % 60, i % 60)
        f.write(line)
        out.write(line)
    if out: out.close()
PY
start=$(date +%s.%N)
"$DL_CLI" ingest "$tmp/ing" --input "$tmp/in.csv" --checkpoint "$tmp/ing_cp" --batch-rows "$BATCH" -q >/dev/null
end=$(date +%s.%N)
python3 -c "import sys; s=float(sys.argv[2])-float(sys.argv[1]); print('deltalake ingest: %d rows in %.2f s = %.0f rows/s (%d-row batches)' % (int(sys.argv[3]), s, int(sys.argv[3])/s, int(sys.argv[4])))" "$start" "$end" "$ROWS" "$BATCH"
if [ -d "$ORACLE/node_modules/@duckdb" ]; then
	mkdir -p "$tmp/duck"
	secs=$(node "$here/bench_stream_duckdb.mjs" "$ORACLE" "$tmp/duck" "$tmp"/batches/b-*.csv)
	python3 -c "import sys; print('duckdb COPY to parquet files: %d rows in %s s = %.0f rows/s' % (int(sys.argv[2]), sys.argv[1], int(sys.argv[2])/float(sys.argv[1])))" "$secs" "$ROWS"
else
	echo "duckdb: tools/oracle not installed (make oracle); skipped"
fi
