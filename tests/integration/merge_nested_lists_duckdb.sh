#!/usr/bin/env bash
# MERGE WITH SCHEMA EVOLUTION over structs inside arrays and map values,
# compared with DuckDB: our `UPDATE SET *` / `INSERT *` store the source's
# array<struct> and map<string, struct> by name (fields in another order, a
# narrower type cast) and append its new element fields (Spark's
# castIfNeeded and mergeSchemas); DuckDB computes the same rows with
# list_transform and struct literals on a table that has the evolved type
# from the start. On copy-on-write, deletion-vector and change-data-feed
# tables; copy-on-write results are also read by DuckDB from the live
# Parquet files. Needs DL_CLI and DL_ORACLE_DIR.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
: "${DL_ORACLE_DIR:?DL_ORACLE_DIR must name tools/oracle}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# target ids 0..199: arr NULL every 9th, its second element NULL every 4th;
# source ids 150..299: arr NULL every 7th, elements {c, a INT} (c is new)
tvals=$(seq -s, 0 199 | sed 's/\([0-9]*\)/(\1)/g')
uvals=$(seq -s, 150 299 | sed 's/\([0-9]*\)/(\1)/g')
ours() { # table properties clause
	cat <<EOF
CREATE TABLE t (id BIGINT, arr ARRAY<STRUCT<a: BIGINT, b: STRING>>, m MAP<STRING, STRUCT<p: BIGINT>>) USING DELTA $1;
CREATE TABLE u (id BIGINT, arr ARRAY<STRUCT<c: STRING, a: INT>>, m MAP<STRING, STRUCT<q: STRING, p: BIGINT>>) USING DELTA;
INSERT INTO t SELECT i, CASE WHEN i % 9 = 0 THEN NULL ELSE array(named_struct('a', CAST(i AS BIGINT), 'b', concat('b', i)),
  IF(i % 4 = 0, NULL, named_struct('a', CAST(-i AS BIGINT), 'b', 'x'))) END, map('k', named_struct('p', CAST(i AS BIGINT)))
  FROM (VALUES $tvals) AS r(i);
INSERT INTO u SELECT i, CASE WHEN i % 7 = 0 THEN NULL ELSE array(named_struct('c', concat('c', i), 'a', CAST(i * 3 AS INT))) END,
  map('k', named_struct('q', concat('q', i), 'p', CAST(i * 10 AS BIGINT))) FROM (VALUES $uvals) AS r(i);
MERGE WITH SCHEMA EVOLUTION INTO t USING u ON t.id = u.id
  WHEN MATCHED AND u.id % 5 = 0 THEN DELETE
  WHEN MATCHED THEN UPDATE SET *
  WHEN NOT MATCHED THEN INSERT *;
SELECT id, arr IS NULL, (try_element_at(arr, 1)).a, (try_element_at(arr, 1)).b, (try_element_at(arr, 1)).c,
  try_element_at(arr, 2) IS NULL, (try_element_at(arr, 2)).a, (try_element_at(arr, 2)).b, (try_element_at(arr, 2)).c,
  (element_at(m, 'k')).p, (element_at(m, 'k')).q FROM t ORDER BY id
EOF
}
duck_query="SELECT id, arr IS NULL, arr[1].a, arr[1].b, arr[1].c, arr[2] IS NULL, arr[2].a, arr[2].b, arr[2].c,
  m['k'].p, m['k'].q FROM %s ORDER BY id"
cat >"$tmp/duck.sql" <<EOF
CREATE TABLE t (id BIGINT, arr STRUCT(a BIGINT, b VARCHAR, c VARCHAR)[], m MAP(VARCHAR, STRUCT(p BIGINT, q VARCHAR)));
CREATE TABLE u (id BIGINT, arr STRUCT(c VARCHAR, a INTEGER)[], m MAP(VARCHAR, STRUCT(q VARCHAR, p BIGINT)));
INSERT INTO t SELECT i, CASE WHEN i % 9 = 0 THEN NULL ELSE [{'a': i, 'b': concat('b', i), 'c': NULL::VARCHAR},
  CASE WHEN i % 4 = 0 THEN NULL ELSE {'a': -i, 'b': 'x', 'c': NULL::VARCHAR} END] END,
  MAP {'k': {'p': i, 'q': NULL::VARCHAR}} FROM range(0, 200) r(i);
INSERT INTO u SELECT i, CASE WHEN i % 7 = 0 THEN NULL ELSE [{'c': concat('c', i), 'a': (i * 3)::INTEGER}] END,
  MAP {'k': {'q': concat('q', i), 'p': i * 10}} FROM range(150, 300) r(i);
MERGE INTO t USING u ON t.id = u.id
  WHEN MATCHED AND u.id % 5 = 0 THEN DELETE
  WHEN MATCHED THEN UPDATE SET arr = list_transform(u.arr, x -> {'a': x.a::BIGINT, 'b': NULL::VARCHAR, 'c': x.c}),
    m = MAP {'k': {'p': u.m['k'].p, 'q': u.m['k'].q}}
  WHEN NOT MATCHED THEN INSERT VALUES (u.id, list_transform(u.arr, x -> {'a': x.a::BIGINT, 'b': NULL::VARCHAR, 'c': x.c}),
    MAP {'k': {'p': u.m['k'].p, 'q': u.m['k'].q}});
$(printf "$duck_query" t)
EOF
(cd "$DL_ORACLE_DIR" && node "$here/sql_dml_duckdb.mjs" "$tmp/duck.sql") >"$tmp/duck" 2>"$tmp/derr" ||
	fail "DuckDB failed: $(head -3 "$tmp/derr")"
[ "$(wc -l <"$tmp/duck")" -ge 250 ] || fail "DuckDB returned only $(wc -l <"$tmp/duck") rows"

for mode in copy dv cdf; do
	case $mode in
	copy) props="" ;;
	dv) props="TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')" ;;
	cdf) props="TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')" ;;
	esac
	wh=$tmp/wh-$mode
	ours "$props" >"$tmp/$mode.sql"
	if ! "$DL_CLI" sql --warehouse "$wh" --format csv -f "$tmp/$mode.sql" >"$tmp/out" 2>"$tmp/err"; then
		fail "$mode: deltalake sql failed: $(head -3 "$tmp/err")"
		continue
	fi
	awk '/^id,/ { n = NR } { l[NR] = $0 } END { for (i = n + 1; i <= NR; i++) print l[i] }' "$tmp/out" >"$tmp/ours"
	diff "$tmp/ours" "$tmp/duck" >"$tmp/diff" ||
		fail "$mode: rows differ from DuckDB's (< ours, > DuckDB):
$(head -10 "$tmp/diff")"
	# the commit's schema: c appended to the elements, q to the map values
	grep -h '"metaData"' "$wh"/t/_delta_log/*.json | tail -1 |
		grep -q '\\"name\\":\\"b\\".*\\"name\\":\\"c\\".*\\"name\\":\\"p\\".*\\"name\\":\\"q\\"' ||
		fail "$mode: the commit's schema lacks arr.element.c / m.value.q"
	if [ "$mode" = copy ]; then
		# DuckDB reads the live Parquet files as they are
		"$DL_CLI" files "$wh/t" --format csv >"$tmp/files.csv" 2>"$tmp/err" || fail "copy: files: $(head -2 "$tmp/err")"
		list=$(tail -n +2 "$tmp/files.csv" | cut -d, -f1 | sed "s|^|'$wh/t/|; s|\$|'|" | paste -sd, -)
		printf "$duck_query\n" "read_parquet([$list], union_by_name = true)" >"$tmp/files.sql"
		(cd "$DL_ORACLE_DIR" && node "$here/sql_dml_duckdb.mjs" "$tmp/files.sql") >"$tmp/dfiles" 2>"$tmp/derr" ||
			fail "copy: DuckDB cannot read the files: $(head -3 "$tmp/derr")"
		diff "$tmp/dfiles" "$tmp/duck" >"$tmp/diff" ||
			fail "copy: DuckDB reads other rows from the live files:
$(head -10 "$tmp/diff")"
	fi
done

[ $fails -eq 0 ] && echo "merge_nested_lists_duckdb: arrays and maps of structs stored by name and evolved agree with DuckDB on 3 table kinds"
exit $((fails > 0))
