#!/usr/bin/env bash
# DELETE and UPDATE of 1% of the rows of a 10M-row table in 20 files
# (`deltalake delete` / `deltalake update` on a table with deletion vectors,
# and on one without) against DuckDB running the same statement on a table
# loaded from the same files, then writing the result to Parquet (what it
# takes DuckDB to persist the change). Whole-process wall time for ours
# (best and median of RUNS, default 3, each on a fresh copy of the table), DuckDB's
# statement + write (its load is reported apart), and the ratios; the same
# for CPU time (user + system: ours from GNU time, DuckDB's from its process
# around the statement and the write), which the load of a shared machine
# distorts less than wall time. Peak RSS and minor page faults are those of
# the last run.
# Env: DL_CLI, DL_ORACLE_DIR (set by make bench); RUNS (default 3) of each.
# usage: bench/bench_dml.sh [ROWS]
set -euo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
: "${DL_ORACLE_DIR:?DL_ORACLE_DIR must name tools/oracle}"
here=$(cd "$(dirname "$0")" && pwd)
rows=${1:-10000000}
runs=${RUNS:-3}
files=20
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
duck() { (cd "$DL_ORACLE_DIR" && node "$here/bench_dml.mjs" "$@"); }
val() { sed -n "s/^$1=//p" "$2"; }

mkdir -p "$dir/src"
duck make "$dir/src" "$rows" "$files"
for kind in dv cow; do
	props=()
	[ "$kind" = dv ] && props=(--property delta.enableDeletionVectors=true)
	"$DL_CLI" create "$dir/base_$kind" --schema "id BIGINT, g INT, v INT, s STRING" "${props[@]}" >/dev/null
	for f in "$dir"/src/*.parquet; do
		"$DL_CLI" write "$dir/base_$kind" -i "$f" -m append >/dev/null
	done
done

where="id % 100 = 7"
echo "rows=$rows files=$files predicate: $where (1% of rows, in every file)"
printf '%-8s %-4s %10s %10s %12s %14s %8s %10s %10s %8s\n' stmt table ours_best ours_med duck_stmt+w duck_load ratio ours_cpu duck_cpu cpu_ratio
for stmt in delete update; do
	if [ "$stmt" = delete ]; then
		sql="DELETE FROM t WHERE $where"
		args=(delete --where "$where")
	else
		sql="UPDATE t SET v = v + 1 WHERE $where"
		args=(update --set "v = v + 1" --where "$where")
	fi
	best_duck=
	best_duck_cpu=
	for i in $(seq "$runs"); do
		duck run "$dir/src" "$sql" "$dir/duck_out.parquet" >"$dir/duck.txt"
		d=$(( $(val stmt_ms "$dir/duck.txt") + $(val write_ms "$dir/duck.txt") ))
		[ -z "$best_duck" ] || [ "$d" -lt "$best_duck" ] && best_duck=$d
		dc=$(val cpu_ms "$dir/duck.txt")
		[ -z "$best_duck_cpu" ] || [ "$dc" -lt "$best_duck_cpu" ] && best_duck_cpu=$dc
		load=$(val load_ms "$dir/duck.txt")
		rm -f "$dir/duck_out.parquet"
	done
	for kind in dv cow; do
		times=()
		cpus=()
		for i in $(seq "$runs"); do
			rm -rf "$dir/t" && cp -a "$dir/base_$kind" "$dir/t"
			/usr/bin/time -f "%e %M %U %S %R" -o "$dir/time" "$DL_CLI" --format csv "${args[0]}" "$dir/t" "${args[@]:1}" >"$dir/out"
			read -r wall rss usr sys faults <"$dir/time"
			times+=("$(awk -v w="$wall" 'BEGIN { printf "%d", w * 1000 }')")
			cpus+=("$(awk -v u="$usr" -v s="$sys" 'BEGIN { printf "%d", (u + s) * 1000 }')")
		done
		cpu_best=$(printf '%s\n' "${cpus[@]}" | sort -n | head -1)
		sorted=($(printf '%s\n' "${times[@]}" | sort -n))
		n=$(tail -1 "$dir/out")
		[ "$n" = "$(val affected "$dir/duck.txt")" ] || echo "WARNING: $stmt $kind affected $n rows, DuckDB $(val affected "$dir/duck.txt")"
		ratio=$(awk -v d="$best_duck" -v o="${sorted[0]}" 'BEGIN { printf "%.1fx", d / o }')
		cpu_ratio=$(awk -v d="$best_duck_cpu" -v o="$cpu_best" 'BEGIN { printf "%.1fx", d / (o ? o : 1) }')
		printf '%-8s %-4s %8sms %8sms %10sms %12sms %8s %8sms %8sms %8s   (peak RSS %s MB, %s page faults)\n' "$stmt" "$kind" "${sorted[0]}" "${sorted[$((runs / 2))]}" \
			"$best_duck" "$load" "$ratio" "$cpu_best" "$best_duck_cpu" "$cpu_ratio" $((rss / 1024)) "$faults"
	done
done
du -sh "$dir/t" | sed 's/^/last table: /'
