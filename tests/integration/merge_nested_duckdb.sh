#!/usr/bin/env bash
# Nested struct fields in UPDATE and MERGE, compared with DuckDB: our SQL
# (`SET s.n.p = ...`, `MERGE WITH SCHEMA EVOLUTION` adding nested fields)
# through `deltalake sql`, and DuckDB computing the same rows with struct
# literals ({'a': ..}: DuckDB assigns whole structs only), on copy-on-write,
# deletion-vector and change-data-feed tables. For schema evolution DuckDB's
# table has the evolved type from the start (the fields the MERGE adds are
# NULL in the rows it does not write). Then the CLI's `update --set` and
# `merge --when` with nested fields, and errors leaving the table as it was.
# Needs DL_CLI and DL_ORACLE_DIR.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
: "${DL_ORACLE_DIR:?DL_ORACLE_DIR must name tools/oracle}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# target ids 0..199: s NULL every 9th, s.n NULL every 5th; source ids
# 150..299 (u.v = id * 3): u.s NULL every 7th, u.s.n NULL every 4th
tvals=$(seq -s, 0 199 | sed 's/\([0-9]*\)/(\1)/g')
uvals=$(seq -s, 150 299 | sed 's/\([0-9]*\)/(\1)/g')
ours_setup() { # table properties clause
	cat <<EOF
CREATE TABLE t (id BIGINT, s STRUCT<a: BIGINT, b: STRING, n: STRUCT<p: BIGINT>>) USING DELTA $1;
CREATE TABLE u (id BIGINT, v BIGINT, s STRUCT<a: BIGINT, c: STRING, n: STRUCT<p: BIGINT, q: STRING>>) USING DELTA;
INSERT INTO t SELECT i, CASE WHEN i % 9 = 0 THEN NULL ELSE named_struct('a', CAST(i AS BIGINT), 'b', concat('b', i),
  'n', CASE WHEN i % 5 = 0 THEN NULL ELSE named_struct('p', CAST(i * 2 AS BIGINT)) END) END FROM (VALUES $tvals) AS r(i);
INSERT INTO u SELECT i, CAST(i * 3 AS BIGINT), CASE WHEN i % 7 = 0 THEN NULL ELSE named_struct('a', CAST(-i AS BIGINT), 'c', concat('c', i),
  'n', CASE WHEN i % 4 = 0 THEN NULL ELSE named_struct('p', CAST(i * 10 AS BIGINT), 'q', concat('q', i)) END) END FROM (VALUES $uvals) AS r(i);
EOF
}
# DuckDB: t has the type `$1` (plain, or evolved with the fields the MERGE adds)
duck_setup() {
	cat <<EOF
CREATE TABLE t (id BIGINT, s $1 $2);
CREATE TABLE u (id BIGINT, v BIGINT, s STRUCT(a BIGINT, c VARCHAR, n STRUCT(p BIGINT, q VARCHAR)));
INSERT INTO t (id, s) SELECT i, CASE WHEN i % 9 = 0 THEN NULL ELSE {'a': i, 'b': concat('b', i),
  'n': CASE WHEN i % 5 = 0 THEN NULL ELSE {'p': i * 2} END} END FROM range(0, 200) r(i);
INSERT INTO u SELECT i, i * 3, CASE WHEN i % 7 = 0 THEN NULL ELSE {'a': -i, 'c': concat('c', i),
  'n': CASE WHEN i % 4 = 0 THEN NULL ELSE {'p': i * 10, 'q': concat('q', i)} END} END FROM range(150, 300) r(i);
EOF
}
plain="STRUCT(a BIGINT, b VARCHAR, n STRUCT(p BIGINT))"
evolved="STRUCT(a BIGINT, b VARCHAR, n STRUCT(p BIGINT, q VARCHAR), c VARCHAR)"
q_plain="SELECT id, s IS NULL, s.a, s.b, s.n IS NULL, s.n.p FROM t ORDER BY id"
q_evolved="SELECT id, s IS NULL, s.a, s.b, s.n IS NULL, s.n.p, s.n.q, s.c FROM t ORDER BY id"

# Each case sets dtype (DuckDB's type of t.s), dcols (extra DuckDB
# columns), query (compared), ours (our statements), duck (DuckDB's).
case_merge_nested() {
	dtype=$plain dcols="" query=$q_plain
	ours="MERGE INTO t USING u ON t.id = u.id
  WHEN MATCHED AND u.v % 2 = 0 THEN UPDATE SET t.s.a = u.v, t.s.n.p = -u.v
  WHEN MATCHED THEN UPDATE SET s.b = concat('m', u.id)
  WHEN NOT MATCHED AND u.id % 3 = 0 THEN INSERT (id, s) VALUES (u.id, named_struct('a', u.v, 'b', 'ins', 'n', named_struct('p', u.v)))
  WHEN NOT MATCHED BY SOURCE AND t.id < 30 THEN UPDATE SET t.s.n.p = 0"
	duck="MERGE INTO t USING u ON t.id = u.id
  WHEN MATCHED AND u.v % 2 = 0 THEN UPDATE SET s = {'a': u.v, 'b': t.s.b, 'n': {'p': -u.v}}
  WHEN MATCHED THEN UPDATE SET s = {'a': t.s.a, 'b': concat('m', u.id), 'n': t.s.n}
  WHEN NOT MATCHED AND u.id % 3 = 0 THEN INSERT (id, s) VALUES (u.id, {'a': u.v, 'b': 'ins', 'n': {'p': u.v}})
  WHEN NOT MATCHED BY SOURCE AND t.id < 30 THEN UPDATE SET s = {'a': t.s.a, 'b': t.s.b, 'n': {'p': 0}}"
}
# conditions on nested target fields ON does not name (the join reads t.s
# for them alone: merge_join.c join_columns)
case_nested_cond() {
	dtype=$plain dcols="" query=$q_plain
	ours="MERGE INTO t USING u ON t.id = u.id
  WHEN MATCHED AND t.s.n.p > 320 THEN UPDATE SET t.s.a = u.v
  WHEN MATCHED AND t.s.b = 'b161' THEN DELETE
  WHEN NOT MATCHED BY SOURCE AND t.s.a % 4 = 1 THEN DELETE"
	duck="MERGE INTO t USING u ON t.id = u.id
  WHEN MATCHED AND t.s.n.p > 320 THEN UPDATE SET s = {'a': u.v, 'b': t.s.b, 'n': t.s.n}
  WHEN MATCHED AND t.s.b = 'b161' THEN DELETE
  WHEN NOT MATCHED BY SOURCE AND t.s.a % 4 = 1 THEN DELETE"
}
case_update_nested() {
	dtype=$plain dcols="" query=$q_plain
	ours="UPDATE t SET s.n.p = id * 10, s.b = upper(s.b) WHERE id % 4 = 1;
UPDATE t SET s.a = NULL WHERE s.n.p > 300"
	duck="UPDATE t SET s = {'a': s.a, 'b': upper(s.b), 'n': {'p': id * 10}} WHERE id % 4 = 1;
UPDATE t SET s = {'a': NULL, 'b': s.b, 'n': s.n} WHERE s.n.p > 300"
}
# UPDATE SET * keeps the target-only field b; a struct NULL on both sides
# stays NULL (Spark's merge.preserveNullSourceStructs)
case_evolve_star() {
	dtype=$evolved dcols=", v BIGINT" query="SELECT id, s IS NULL, s.a, s.b, s.n IS NULL, s.n.p, s.n.q, s.c, v FROM t ORDER BY id"
	ours="MERGE WITH SCHEMA EVOLUTION INTO t USING u ON t.id = u.id
  WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
	duck="MERGE INTO t USING u ON t.id = u.id
  WHEN MATCHED THEN UPDATE SET v = u.v, s = CASE WHEN u.s IS NULL AND t.s IS NULL THEN NULL
    ELSE {'a': u.s.a, 'b': t.s.b, 'n': u.s.n, 'c': u.s.c} END
  WHEN NOT MATCHED THEN INSERT (id, v, s) VALUES (u.id, u.v, CASE WHEN u.s IS NULL THEN NULL
    ELSE {'a': u.s.a, 'b': NULL, 'n': u.s.n, 'c': u.s.c} END)"
}
# assignments name the new fields s.c and s.n.q; a clause not assigning s
# keeps its value in the evolved type
case_evolve_assign() {
	dtype=$evolved dcols="" query=$q_evolved
	ours="MERGE WITH SCHEMA EVOLUTION INTO t USING u ON t.id = u.id
  WHEN MATCHED AND u.id % 2 = 0 THEN UPDATE SET t.s.c = u.s.c, t.s.n.q = u.s.n.q
  WHEN MATCHED AND u.id % 3 = 0 THEN UPDATE SET t.s.a = u.v
  WHEN MATCHED THEN DELETE
  WHEN NOT MATCHED BY SOURCE AND t.id % 10 = 3 THEN UPDATE SET t.s.b = 'gone'"
	duck="MERGE INTO t USING u ON t.id = u.id
  WHEN MATCHED AND u.id % 2 = 0 THEN UPDATE SET s = {'a': t.s.a, 'b': t.s.b, 'n': {'p': t.s.n.p, 'q': u.s.n.q}, 'c': u.s.c}
  WHEN MATCHED AND u.id % 3 = 0 THEN UPDATE SET s = {'a': u.v, 'b': t.s.b, 'n': t.s.n, 'c': t.s.c}
  WHEN MATCHED THEN DELETE
  WHEN NOT MATCHED BY SOURCE AND t.id % 10 = 3 THEN UPDATE SET s = {'a': t.s.a, 'b': 'gone', 'n': t.s.n, 'c': t.s.c}"
}
# a whole struct stored by name: fields the source lacks are NULL, a NULL
# source struct stays NULL
case_whole_struct() {
	dtype=$evolved dcols="" query=$q_evolved
	ours="MERGE WITH SCHEMA EVOLUTION INTO t USING u ON t.id = u.id
  WHEN MATCHED THEN UPDATE SET t.s = u.s"
	duck="MERGE INTO t USING u ON t.id = u.id
  WHEN MATCHED THEN UPDATE SET s = CASE WHEN u.s IS NULL THEN NULL ELSE {'a': u.s.a, 'b': NULL, 'n': u.s.n, 'c': u.s.c} END"
}

for mode in copy dv cdf; do
	case $mode in
	copy) props="" ;;
	dv) props="TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')" ;;
	cdf) props="TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')" ;;
	esac
	for name in merge_nested nested_cond update_nested evolve_star evolve_assign whole_struct; do
		"case_$name"
		wh=$tmp/wh-$mode-$name
		printf '%s\n%s;\n%s\n' "$(ours_setup "$props")" "$ours" "$query" >"$tmp/$mode-$name.sql"
		printf '%s\n%s;\n%s\n' "$(duck_setup "$dtype" "$dcols")" "$duck" "$query" >"$tmp/$mode-$name.duck.sql"
		if ! "$DL_CLI" sql --warehouse "$wh" --format csv -f "$tmp/$mode-$name.sql" >"$tmp/out" 2>"$tmp/err"; then
			fail "$mode/$name: deltalake sql failed: $(head -3 "$tmp/err")"
			continue
		fi
		# the query's rows: after the last header line (it starts with "id,")
		awk '/^id,/ { n = NR } { l[NR] = $0 } END { for (i = n + 1; i <= NR; i++) print l[i] }' "$tmp/out" >"$tmp/ours"
		if ! (cd "$DL_ORACLE_DIR" && node "$here/sql_dml_duckdb.mjs" "$tmp/$mode-$name.duck.sql") >"$tmp/duck" 2>"$tmp/derr"; then
			fail "$mode/$name: DuckDB failed: $(head -3 "$tmp/derr")"
			continue
		fi
		[ "$(wc -l <"$tmp/duck")" -ge 150 ] || fail "$mode/$name: DuckDB returned only $(wc -l <"$tmp/duck") rows"
		case $name in
		evolve_*)
			# the commit's schema has the new nested fields (c last in s, q in s.n)
			grep -h '"metaData"' "$wh"/t/_delta_log/*.json | tail -1 | grep -q '\\"name\\":\\"q\\".*\\"name\\":\\"c\\"' ||
				fail "$mode/$name: the commit's schema lacks s.n.q / s.c"
			;;
		esac
		diff "$tmp/ours" "$tmp/duck" >"$tmp/diff" ||
			fail "$mode/$name: rows differ from DuckDB's (< ours, > DuckDB):
$(head -10 "$tmp/diff")"
		if [ "$mode" = dv ] && [ "$name" != update_nested ]; then
			ls "$wh"/t/*.bin >/dev/null 2>&1 || ls "$wh"/*/*.bin >/dev/null 2>&1 ||
				fail "$mode/$name: no deletion vector written"
		fi
	done
done

# the CLI: update --set and merge --when with nested fields
t=$tmp/cli
"$DL_CLI" sql --warehouse "$tmp/whc" -q "CREATE TABLE t (id BIGINT, s STRUCT<a: BIGINT, b: STRING>) USING DELTA LOCATION '$t';
INSERT INTO t VALUES (1, named_struct('a', 1, 'b', 'x'));
INSERT INTO t VALUES (2, NULL)" >/dev/null 2>"$tmp/err" || fail "cli: setup: $(head -2 "$tmp/err")"
"$DL_CLI" update "$t" --set "s.a = id + 100" --where "id = 2" --format csv >"$tmp/out" 2>"$tmp/err" ||
	fail "cli: update --set s.a: $(head -2 "$tmp/err")"
printf 'id,v\n1,7\n3,9\n' >"$tmp/src.csv"
"$DL_CLI" merge "$t" --source "$tmp/src.csv" --alias t,s --on "t.id = s.id" \
	--when "MATCHED THEN UPDATE SET t.s.b = concat('v', s.v)" --when "NOT MATCHED THEN INSERT (id, s) VALUES (s.id, named_struct('a', s.v, 'b', 'new'))" \
	--format csv >"$tmp/out" 2>"$tmp/err" || fail "cli: merge --when SET t.s.b: $(head -2 "$tmp/err")"
got=$("$DL_CLI" sql --warehouse "$tmp/whc" --format csv "SELECT id, s.a, s.b FROM delta.\`$t\` ORDER BY id" 2>&1 | tail -n +2)
[ "$got" = "$(printf '1,1,v7\n2,102,\n3,9,new')" ] || fail "cli: rows after update and merge: $got"
# errors: the table stays byte-identical
before=$(cd "$t" && find . -type f | sort | xargs md5sum)
for set in "s = named_struct('a', 1, 'b', 'y'), s.a = 2" "id.x = 1" "s.zz = 1"; do
	"$DL_CLI" update "$t" --set "$set" >/dev/null 2>"$tmp/err" && fail "cli: update --set '$set' succeeded"
done
grep -q DELTA_MISSING_SET_COLUMN "$tmp/err" || fail "cli: s.zz: $(cat "$tmp/err")"
for when in "MATCHED THEN UPDATE SET t.s.a = 1, t.s = NULL" "MATCHED THEN UPDATE SET t.id.x = 1" "NOT MATCHED THEN INSERT (id, s.a) VALUES (s.id, 1)"; do
	"$DL_CLI" merge "$t" --source "$tmp/src.csv" --alias t,s --on "t.id = s.id" --when "$when" >/dev/null 2>"$tmp/err" &&
		fail "cli: merge --when '$when' succeeded"
	case $when in
	*"t.s = NULL"*) grep -q DELTA_CONFLICT_SET_COLUMN "$tmp/err" || fail "cli: conflict: $(cat "$tmp/err")" ;;
	*id.x*) grep -q DELTA_UNSUPPORTED_FIELD_UPDATE_NON_STRUCT "$tmp/err" || fail "cli: non-struct: $(cat "$tmp/err")" ;;
	*INSERT*) grep -q DELTA_UNSUPPORTED_NESTED_FIELD_IN_OPERATION "$tmp/err" || fail "cli: insert: $(cat "$tmp/err")" ;;
	esac
done
after=$(cd "$t" && find . -type f | sort | xargs md5sum)
[ "$before" = "$after" ] || fail "cli: a failed command changed the table"

[ $fails -eq 0 ] && echo "merge_nested_duckdb: nested UPDATE/MERGE and nested schema evolution agree with DuckDB on 3 table kinds; CLI ok"
exit $((fails > 0))
