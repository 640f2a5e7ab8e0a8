#!/usr/bin/env bash
# OPTIMIZE and REORG against DuckDB reading the table's data files: for
# tables plain, partitioned, with deletion vectors and with row tracking,
# the rows before (our reader) equal the rows DuckDB reads from the live
# data files after REORG ... APPLY (PURGE) and after OPTIMIZE (which leave
# no deletion vector to apply), through SQL and the CLI; OPTIMIZE packs each
# partition into one file; Z-ORDER BY measured by the files a point
# predicate on each column reads (printed, bounded); Spark's errors with the
# table unchanged. Needs DL_CLI and DL_ORACLE_DIR.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
: "${DL_ORACLE_DIR:?DL_ORACLE_DIR must name tools/oracle}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
oracle() { (cd "$DL_ORACLE_DIR" && node "$here/optimize_duckdb_check.mjs" "$@"); }
dl() { "$DL_CLI" "$@"; }

oracle make "$tmp/src.parquet" 20000 || { echo "FAIL: DuckDB could not make the data"; exit 1; }

ours_rows() { dl cat "$1" --columns id,g,v,name --format csv 2>/dev/null | tail -n +2 | sort; }
duck_rows() { # TABLE: DuckDB over the live data files
	dl files "$1" --format csv 2>/dev/null | tail -n +2 | cut -d, -f1 >"$tmp/list"
	oracle files "$1" "$tmp/list"
}
nfiles() { dl files "$1" ${2:+--where "$2"} --format csv 2>/dev/null | tail -n +2 | wc -l; }
version() { dl history "$1" --format csv 2>/dev/null | sed -n 2p | cut -d, -f1; }

# name|partitioned|properties
configs=(
	"plain|no|"
	"part|yes|"
	"dv|no|delta.enableDeletionVectors=true"
	"part_dv_rt|yes|delta.enableDeletionVectors=true delta.enableRowTracking=true"
)
for cfg in "${configs[@]}"; do
	IFS='|' read -r name part props <<<"$cfg"
	t=$tmp/$name
	args=(create "$t" --schema "id BIGINT, g INT, v INT, name STRING")
	[ "$part" = yes ] && args+=(--partition-by g)
	for p in $props; do args+=(--property "$p"); done
	dl "${args[@]}" >/dev/null 2>"$tmp/err" || { fail "$name: create: $(cat "$tmp/err")"; continue; }
	dl write "$t" -i "$tmp/src.parquet" -m append --max-records-per-file 500 >/dev/null 2>"$tmp/err" ||
		{ fail "$name: write: $(cat "$tmp/err")"; continue; }
	dl delete "$t" --where "id % 10 = 3" >/dev/null 2>"$tmp/err" || fail "$name: delete: $(cat "$tmp/err")"
	ours_rows "$t" >"$tmp/before"
	[ "$(wc -l <"$tmp/before")" = 18000 ] || fail "$name: expected 18000 rows, read $(wc -l <"$tmp/before")"
	if [[ "$props" == *DeletionVectors* ]]; then
		out=$(dl reorg "$t" --purge --format csv 2>"$tmp/err") || fail "$name: reorg: $(cat "$tmp/err")"
		removed=$(echo "$out" | tail -1 | cut -d, -f3)
		[ "$removed" -gt 0 ] 2>/dev/null || fail "$name: REORG removed no file: $out"
		duck_rows "$t" >"$tmp/duck" || fail "$name: DuckDB could not read the files after REORG"
		diff "$tmp/before" "$tmp/duck" >"$tmp/diff" || fail "$name: rows after REORG differ: $(head -c 300 "$tmp/diff")"
		dl history "$t" --format csv 2>/dev/null | sed -n 2p | grep -q REORG || fail "$name: no REORG commit"
	fi
	out=$(dl sql "OPTIMIZE delta.\`$t\`" 2>"$tmp/err") || fail "$name: OPTIMIZE: $(cat "$tmp/err")"
	echo "$out" | grep -q "numFilesAdded" || fail "$name: OPTIMIZE result lacks its metrics: $out"
	want=1
	[ "$part" = yes ] && want=4
	[ "$(nfiles "$t")" = "$want" ] || fail "$name: $want files expected after OPTIMIZE, got $(nfiles "$t")"
	duck_rows "$t" >"$tmp/duck" || fail "$name: DuckDB could not read the files after OPTIMIZE"
	diff "$tmp/before" "$tmp/duck" >"$tmp/diff" || fail "$name: rows after OPTIMIZE differ: $(head -c 300 "$tmp/diff")"
	ours_rows "$t" >"$tmp/after"
	diff "$tmp/before" "$tmp/after" >/dev/null || fail "$name: our reader's rows changed"
	# again: nothing to do, no commit
	v=$(version "$t")
	dl optimize "$t" >/dev/null 2>&1 || fail "$name: second OPTIMIZE failed"
	[ "$(version "$t")" = "$v" ] || fail "$name: a second OPTIMIZE committed"
done

# Z-order: 40 files of random v; a point predicate on v or id reads all of
# them before, a fraction after.
t=$tmp/zorder
dl create "$t" --schema "id BIGINT, g INT, v INT, name STRING" >/dev/null 2>&1
dl write "$t" -i "$tmp/src.parquet" -m append --max-records-per-file 500 >/dev/null 2>&1
ours_rows "$t" >"$tmp/before"
total=$(dl files "$t" --format csv | tail -n +2 | cut -d, -f2 | awk '{s += $1} END {print s}')
bv=$(nfiles "$t" "v = 500")
bi=$(nfiles "$t" "id = 12345")
dl sql "SET spark.databricks.delta.optimize.maxFileSize = $((total / 20)); OPTIMIZE delta.\`$t\` ZORDER BY (v, id)" >/dev/null 2>"$tmp/err" ||
	fail "zorder: OPTIMIZE ZORDER BY: $(cat "$tmp/err")"
n=$(nfiles "$t")
[ "$n" -ge 10 ] || fail "zorder: SET maxFileSize should give about 20 files, got $n"
sv=0; si=0
for x in 17 250 500 750 999; do sv=$((sv + $(nfiles "$t" "v = $x"))); done
for x in 11 5000 12345 17000 19999; do si=$((si + $(nfiles "$t" "id = $x"))); done
echo "z-order (v, id): v = x reads $bv of 40 files before, $((sv / 5)) of $n after; id = x: $bi before, $((si / 5)) after"
[ $((sv / 5)) -le $((n * 6 / 10)) ] || fail "zorder: v = x still reads $((sv / 5)) of $n files"
[ $((si / 5)) -le $((n * 6 / 10)) ] || fail "zorder: id = x still reads $((si / 5)) of $n files"
duck_rows "$t" >"$tmp/duck"
diff "$tmp/before" "$tmp/duck" >/dev/null || fail "zorder: rows changed"
dl history "$t" --format json 2>/dev/null | grep -q 'zOrderBy' || fail "zorder: history lacks zOrderBy"

# Errors: Spark's classes, the table unchanged.
t=$tmp/part
v=$(version "$t")
for bad in "OPTIMIZE delta.\`$t\` WHERE v > 1|DELTA_NON_PARTITION_COLUMN_REFERENCE" \
	"OPTIMIZE delta.\`$t\` ZORDER BY (g)|DELTA_ZORDERING_ON_PARTITION_COLUMN" \
	"OPTIMIZE delta.\`$t\` ZORDER BY (nope)|DELTA_ZORDERING_COLUMN_DOES_NOT_EXIST" \
	"OPTIMIZE delta.\`$t\` FULL|DELTA_OPTIMIZE_FULL_NOT_SUPPORTED"; do
	IFS='|' read -r stmt class <<<"$bad"
	if dl sql "$stmt" >/dev/null 2>"$tmp/err"; then fail "'$stmt' succeeded"; fi
	grep -q "$class" "$tmp/err" || fail "'$stmt': expected $class, got: $(cat "$tmp/err")"
	[ "$(wc -l <"$tmp/err")" = 1 ] || fail "'$stmt': error not on one line"
done
[ "$(version "$t")" = "$v" ] || fail "a failed OPTIMIZE changed the table"
dl optimize "$t" --max-file-size -5 >/dev/null 2>&1 && fail "--max-file-size -5 accepted"
dl optimize "$tmp/missing" >/dev/null 2>&1 && fail "OPTIMIZE of a missing table succeeded"

[ "$fails" = 0 ] && echo "optimize_duckdb: all checks passed"
exit $((fails > 0))
