#!/usr/bin/env bash
# Planning with a selective statistics predicate: a generated log of
# 100,000 adds carrying JSON stats for 10 long columns (the shared 300k-file
# log has no stats), made once under $DL_BINARY_DIR/bench-data, then
# bench_scan_plan with "c3 BETWEEN 5000000 AND 5000100" (keeps 1 file).
set -euo pipefail
: "${DL_BINARY_DIR:?DL_BINARY_DIR must name the build directory}"
dir=$DL_BINARY_DIR/bench-data/plan-stats-100k
if [ ! -f "$dir/_delta_log/00000000000000000000.json" ]; then
	mkdir -p "$dir/_delta_log"
	python3 - "$dir/_delta_log/00000000000000000000.json" <<'PY'
import json, sys
cols = [f"c{i}" for i in range(10)]
schema = {"type": "struct", "fields": [{"name": "part", "type": "string", "nullable": True, "metadata": {}}] +
          [{"name": c, "type": "long", "nullable": True, "metadata": {}} for c in cols]}
with open(sys.argv[1], "w") as f:
    f.write(json.dumps({"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}}) + "\n")
    f.write(json.dumps({"metaData": {"id": "plan", "format": {"provider": "parquet", "options": {}},
                                     "schemaString": json.dumps(schema), "partitionColumns": ["part"],
                                     "configuration": {}, "createdTime": 1}}) + "\n")
    for i in range(100000):
        st = {"numRecords": 1000, "minValues": {c: i * 100 + k for k, c in enumerate(cols)},
              "maxValues": {c: i * 100 + k + 50 for k, c in enumerate(cols)}, "nullCount": {c: 0 for c in cols}}
        f.write(json.dumps({"add": {"path": f"part=p{i % 100}/f{i}.parquet", "partitionValues": {"part": f"p{i % 100}"},
                                    "size": 1000, "modificationTime": 1, "dataChange": True,
                                    "stats": json.dumps(st)}}) + "\n")
PY
fi
exec "$DL_BINARY_DIR/bench/bench_scan_plan" "$dir" --filter "c3 BETWEEN 5000000 AND 5000100" --runs 3 --no-duckdb
