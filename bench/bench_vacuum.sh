#!/usr/bin/env bash
# VACUUM of a table with N files (default 100,000), half of them
# unreferenced (removed 30 days ago), against the target of issue 12: under
# 5 s. The table is built cheaply: empty data files and a log written
# directly (version 0: protocol, metaData and N adds in 4 partitions;
# version 1: removes of every other file), all aged past the default 7-day
# window. Prints the time of the dry run and of the real run, and checks
# that exactly N/2 files went and N/2 are left.
#   bench/bench_vacuum.sh            (make bench runs it with DL_CLI set)
#   N=20000 bench/bench_vacuum.sh    (smaller)
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
N=${N:-100000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t=$tmp/t
python3 - "$t" "$N" <<'PY'
import json, os, sys, time
root, n = sys.argv[1], int(sys.argv[2])
os.makedirs(root + "/_delta_log")
old = int((time.time() - 30 * 86400) * 1000)
schema = json.dumps({"type": "struct", "fields": [
    {"name": "id", "type": "long", "nullable": True, "metadata": {}},
    {"name": "p", "type": "integer", "nullable": True, "metadata": {}}]})
paths = []
for i in range(n):
    d = "p=%d" % (i % 4)
    os.makedirs(root + "/" + d, exist_ok=True)
    p = "%s/part-%07d.parquet" % (d, i)
    open(root + "/" + p, "wb").close()
    paths.append(p)
with open(root + "/_delta_log/%020d.json" % 0, "w") as f:
    f.write(json.dumps({"commitInfo": {"timestamp": old, "operation": "WRITE"}}) + "\n")
    f.write(json.dumps({"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}}) + "\n")
    f.write(json.dumps({"metaData": {"id": "bench-vacuum", "format": {"provider": "parquet", "options": {}},
        "schemaString": schema, "partitionColumns": ["p"], "configuration": {}, "createdTime": old}}) + "\n")
    for i, p in enumerate(paths):
        f.write(json.dumps({"add": {"path": p, "partitionValues": {"p": str(i % 4)}, "size": 0,
            "modificationTime": old, "dataChange": True}}) + "\n")
with open(root + "/_delta_log/%020d.json" % 1, "w") as f:
    f.write(json.dumps({"commitInfo": {"timestamp": old, "operation": "DELETE"}}) + "\n")
    for i, p in enumerate(paths):
        if i % 2:
            f.write(json.dumps({"remove": {"path": p, "deletionTimestamp": old, "dataChange": True,
                "partitionValues": {"p": str(i % 4)}, "size": 0}}) + "\n")
past = time.time() - 30 * 86400
for dirpath, _, files in os.walk(root):
    for name in files:
        os.utime(os.path.join(dirpath, name), (past, past))
PY
[ $? = 0 ] || { echo "bench_vacuum: building the table failed"; exit 1; }

now() { date +%s.%N; }
t0=$(now)
listed=$("$DL_CLI" vacuum "$t" --dry-run --format csv | tail -n +2 | wc -l)
t1=$(now)
"$DL_CLI" vacuum "$t" --format csv >"$tmp/metrics" || { echo "bench_vacuum: vacuum failed"; exit 1; }
t2=$(now)
left=$(find "$t" -name '*.parquet' | wc -l)
dry=$(echo "$t1 - $t0" | bc)
real=$(echo "$t2 - $t1" | bc)
printf 'vacuum of %d files (%d unreferenced): dry run %.2f s, vacuum %.2f s (target < 5 s)\n' \
	"$N" "$listed" "$dry" "$real"
cat "$tmp/metrics"
ok=1
[ "$listed" = $((N / 2)) ] || { echo "FAIL: the dry run listed $listed files, expected $((N / 2))"; ok=0; }
[ "$left" = $((N - N / 2)) ] || { echo "FAIL: $left files left, expected $((N - N / 2))"; ok=0; }
[ "$(echo "$real < 5" | bc)" = 1 ] || echo "SLOW: vacuum took $real s (target < 5 s)"
[ $ok = 1 ]
