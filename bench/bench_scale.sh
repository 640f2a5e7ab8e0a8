#!/usr/bin/env bash
# Scale (issue 18, item 5): does a snapshot's time and memory grow linearly
# with the table's files, and does a scan's memory stay bounded by the batch
# size and the threads, whatever the table's size?
#
# 1. Snapshots: for each N in FILES (default "100000 300000 1000000") a log
#    of 10,000 commits holding N live files (adds spread evenly over the
#    commits, each with stats of 5 columns, 4 partitions) is generated, then
#    `deltalake checkpoint` writes a checkpoint of the last version.
#    `deltalake detail` (which replays the log to its files) is timed
#    from the checkpoint and from the JSON commits alone (the checkpoint
#    hidden), with its peak RSS.
# 2. Scans: for each R in ROWS (default "10000000 100000000") a table of R
#    rows (3 columns) made by CREATE TABLE AS SELECT ... FROM range(R) is
#    read whole by `deltalake sql "SELECT count(*), sum(...), max(...)"`,
#    with the peak RSS of the read at 1 and 2 threads: the same at 10M and
#    100M rows when memory is bounded by batches and threads.
# Prints one line per measurement (wall, CPU, peak RSS). Not in `make bench`
# (the 1M-file log and the 100M-row table take minutes and about 3 GB of
# disk under TMPDIR); run it by hand:
#   DL_CLI=build/bin/deltalake bench/bench_scale.sh
#   FILES="100000 300000" ROWS=10000000 DL_CLI=... bench/bench_scale.sh
#   FILES= ROWS=... (scans only), ROWS= (snapshots only)
# make-bench: manual
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
FILES=${FILES-100000 300000 1000000}
ROWS=${ROWS-10000000 100000000}
COMMITS=${COMMITS:-10000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# runs a command under /usr/bin/time; prints "wall_s cpu_s rss_mb"
measure() {
	/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" ||
		{ echo "bench_scale: $* failed: $(cat "$tmp/err")" >&2; return 1; }
	awk '{ printf "%.2f %.2f %d\n", $1, $2 + $3, $4 / 1024 }' "$tmp/time"
}

if [ -n "$FILES" ]; then
	printf '%-10s %-12s %8s %8s %8s\n' files from wall_s cpu_s rss_mb
fi
for n in $FILES; do
	t=$tmp/t$n
	python3 - "$t" "$n" "$COMMITS" <<'PY' || { echo "bench_scale: generating the log failed"; exit 1; }
import json, os, sys
root, n, commits = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(root + "/_delta_log")
cols = ["c%d" % i for i in range(5)]
schema = json.dumps({"type": "struct", "fields":
    [{"name": c, "type": "long", "nullable": True, "metadata": {}} for c in cols] +
    [{"name": "p", "type": "integer", "nullable": True, "metadata": {}}]})
ts = 1700000000000
per, extra = divmod(n, commits)
f_id = 0
for v in range(commits):
    with open("%s/_delta_log/%020d.json" % (root, v), "w") as f:
        f.write(json.dumps({"commitInfo": {"timestamp": ts + v, "operation": "WRITE",
            "operationParameters": {"mode": "Append"}}}) + "\n")
        if v == 0:
            f.write(json.dumps({"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}}) + "\n")
            f.write(json.dumps({"metaData": {"id": "bench-scale", "format": {"provider": "parquet",
                "options": {}}, "schemaString": schema, "partitionColumns": ["p"],
                "configuration": {"delta.checkpointInterval": "1000000"}, "createdTime": ts}}) + "\n")
        for _ in range(per + (1 if v < extra else 0)):
            lo = f_id * 1000
            stats = json.dumps({"numRecords": 1000,
                "minValues": {c: lo + i for i, c in enumerate(cols)},
                "maxValues": {c: lo + 999 + i for i, c in enumerate(cols)},
                "nullCount": {c: 0 for c in cols}})
            f.write(json.dumps({"add": {"path": "p=%d/part-%07d.parquet" % (f_id % 4, f_id),
                "partitionValues": {"p": str(f_id % 4)}, "size": 1048576,
                "modificationTime": ts + v, "dataChange": True, "stats": stats}}) + "\n")
            f_id += 1
PY
	"$DL_CLI" checkpoint "$t" -q >/dev/null 2>"$tmp/err" || { echo "bench_scale: checkpoint failed: $(cat "$tmp/err")"; exit 1; }
	got=$("$DL_CLI" detail "$t" --format csv | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "numFiles") k = i } NR == 2 { print $k }')
	[ "$got" = "$n" ] || { echo "bench_scale: detail counts $got files, expected $n"; exit 1; }
	printf '%-10s %-12s %8s %8s %8s\n' "$n" checkpoint $(measure "$DL_CLI" detail "$t") || exit 1
	mkdir "$tmp/hidden"
	mv "$t"/_delta_log/*.checkpoint*.parquet "$t/_delta_log/_last_checkpoint" "$tmp/hidden/"
	printf '%-10s %-12s %8s %8s %8s\n' "$n" "json log" $(measure "$DL_CLI" detail "$t") || exit 1
	rm -rf "$t" "$tmp/hidden"
done

for rows in $ROWS; do
	s=$tmp/scan$rows
	"$DL_CLI" sql "CREATE TABLE delta.\`$s\` USING DELTA AS SELECT id, id % 1000 AS k, CAST(id * 7 AS STRING) AS s FROM range($rows)" \
		>/dev/null 2>"$tmp/err" || { echo "bench_scale: creating the $rows-row table failed: $(cat "$tmp/err")"; exit 1; }
	echo "scan of $rows rows ($(du -sm "$s" | cut -f1) MB in $(find "$s" -name '*.parquet' | wc -l) files):"
	q="SELECT count(*), sum(id), sum(k), max(length(s)) FROM delta.\`$s\`"
	for th in 1 2; do
		printf '  threads %d: wall/cpu/rss %s\n' "$th" "$(DL_THREADS=$th measure "$DL_CLI" sql "$q")" || exit 1
	done
	rm -rf "$s"
done
