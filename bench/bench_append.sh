#!/usr/bin/env bash
# Delta appends (bench_write: dl_ops_write of ROWS prebuilt rows of (id
# BIGINT, s STRING with 100k distinct values, d DOUBLE)) at 1 and 2 encoding
# threads against DuckDB's COPY of the same rows, loaded into a table first,
# to zstd Parquet with the same thread count. Prints the best of REPS runs of
# each (wall, and CPU = user + system of all threads), the output sizes,
# whether our 1- and 2-thread data files are identical, our gain from the
# second thread and the ratios, and the load average.
# Env: DL_BINARY_DIR (the build; or DL_BENCH_WRITE, the bench_write binary),
# DL_ORACLE_DIR (tools/oracle); both set by make bench.
# usage: bench/bench_append.sh [ROWS] [REPS]
set -euo pipefail
DL_BENCH_WRITE=${DL_BENCH_WRITE:-${DL_BINARY_DIR:?DL_BINARY_DIR or DL_BENCH_WRITE must be set}/bench/bench_write}
: "${DL_ORACLE_DIR:?DL_ORACLE_DIR must name tools/oracle}"
DL_ORACLE_DIR=$(cd "$DL_ORACLE_DIR" && pwd) # the oracle resolves its modules from an absolute path
here=$(cd "$(dirname "$0")" && pwd)
rows=${1:-10000000}
reps=${2:-3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
val() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" "$2"; }
data_file() { find "$1/table0" -name '*.parquet' | sort; }

echo "rows=$rows best of $reps, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for t in 1 2; do
	mkdir -p "$dir/t$t"
	DL_THREADS=$t BENCH_REPS=$reps BENCH_SMALL=0 "$DL_BENCH_WRITE" "$rows" "$dir/t$t" >"$dir/t$t.txt"
	eval "wall$t=$(val delta_append_seconds "$dir/t$t.txt") cpu$t=$(val delta_append_cpu "$dir/t$t.txt")"
	eval "alone$t=$(val parquet_alone_seconds "$dir/t$t.txt")"
	[ "$(data_file "$dir/t$t" | wc -l)" = 1 ] || { echo "bench_write.sh: expected one data file"; exit 1; }
	eval "bytes$t=$(stat -c %s "$(data_file "$dir/t$t")")"
	(cd "$DL_ORACLE_DIR" && node "$here/bench_append_duckdb.mjs" "$dir/t$t/alone.zstd.parquet" \
		"$dir/duckdb$t.parquet" "$t" "$reps") >"$dir/duck$t.txt"
	eval "dwall$t=$(val duckdb_copy_seconds "$dir/duck$t.txt") dcpu$t=$(val duckdb_copy_cpu "$dir/duck$t.txt")"
	eval "dbytes$t=$(val duckdb_bytes "$dir/duck$t.txt")"
	eval "echo \"threads=$t deltalake append: \$wall$t s (cpu \$cpu$t s), \$bytes$t bytes; Parquet alone \$alone$t s\""
	eval "echo \"threads=$t duckdb COPY table -> zstd parquet: \$dwall$t s (cpu \$dcpu$t s), \$dbytes$t bytes\""
	eval "awk -v d=\$dwall$t -v o=\$wall$t -v t=$t 'BEGIN{printf \"ratio duckdb/deltalake time, %d thread(s) = %.2fx (above 1: we are faster)\\n\", t, d / o}'"
	eval "awk -v d=\$dbytes$t -v o=\$bytes$t -v t=$t 'BEGIN{printf \"ratio deltalake/duckdb output size, %d thread(s) = %.4f (target within 1%%)\\n\", t, o / d}'"
done
cmp -s "$(data_file "$dir/t1")" "$(data_file "$dir/t2")" && echo "our 1- and 2-thread data files are identical" ||
	echo "our 1- and 2-thread data files DIFFER"
awk -v a="$wall1" -v b="$wall2" 'BEGIN{printf "our gain from the second thread = %.2fx (target >= 1.8)\n", a / b}'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
