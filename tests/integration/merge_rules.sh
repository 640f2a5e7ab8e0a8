#!/usr/bin/env bash
# MERGE's rules as Spark's MergeIntoSuiteBase, MergeIntoNotMatchedBySourceSuite
# and MergeIntoSchemaEvolutionSuite state them, through `deltalake merge`:
# errors carry Spark's error classes and leave the table byte-identical
# with no stray files; sources of every kind; schema evolution; constraints;
# generated columns; row ids kept; the result columns. Needs DL_CLI.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
same() { [ "$2" = "$3" ] || fail "$1: got '$2', expected '$3'"; }
snap() { (cd "$1" && find . -type f | sort | xargs md5sum); }
rows() { "$DL_CLI" cat "$1" --format csv | tail -n +2 | sort | tr '\n' ' '; }
mk() { # TABLE SCHEMA CSV [create options...]
	local t=$1 s=$2 csv=$3
	shift 3
	"$DL_CLI" create "$t" --schema "$s" -q "$@" >/dev/null || fail "create $t"
	printf "$csv" >"$tmp/in.csv"
	"$DL_CLI" write "$t" -i "$tmp/in.csv" -m append -q >/dev/null || fail "write $t"
}
# expect_error NAME CLASS TABLE merge-args...: fails with CLASS, table unchanged
expect_error() {
	local name=$1 class=$2 t=$3
	shift 3
	local before
	before=$(snap "$t")
	if "$DL_CLI" merge "$t" "$@" >"$tmp/out" 2>"$tmp/err"; then
		fail "$name: succeeded"
	else
		grep -q "$class" "$tmp/err" || fail "$name: error lacks $class: $(head -c 300 "$tmp/err")"
	fi
	[ "$(snap "$t")" = "$before" ] || fail "$name: the table changed (or stray files)"
}

printf 'id,v\n1,10\n2,20\n' >"$tmp/dup.csv"
printf 'id,v\n1,10\n1,11\n3,30\n' >>"$tmp/dup2.csv"
for props in "" "--property delta.enableDeletionVectors=true"; do
	t=$tmp/dup$RANDOM
	mk "$t" "id BIGINT, v BIGINT" 'id,v\n1,1\n2,2\n' $props
	# two source rows on one target row: refused for an UPDATE...
	expect_error "multiple matches, update" DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE "$t" \
		--source "$tmp/dup2.csv" --alias t,s --on "t.id = s.id" --when "MATCHED THEN UPDATE SET v = s.v"
	# ...and a conditional DELETE, also with an insert clause
	expect_error "multiple matches, conditional delete" DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE "$t" \
		--source "$tmp/dup2.csv" --alias t,s --on "t.id = s.id" --when "MATCHED AND s.v > 0 THEN DELETE"
	expect_error "multiple matches, delete and update" DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE "$t" \
		--source "$tmp/dup2.csv" --alias t,s --on "t.id = s.id" --when "MATCHED AND s.v = 10 THEN DELETE" \
		--when "MATCHED THEN UPDATE SET v = s.v"
	# an unconditional DELETE as the only MATCHED clause tolerates them
	# (Spark's isOnlyOneUnconditionalDelete looks at the MATCHED clauses only)
	"$DL_CLI" merge "$t" --source "$tmp/dup2.csv" --alias t,s --on "t.id = s.id" --when "MATCHED THEN DELETE" \
		--when "NOT MATCHED THEN INSERT *" --format csv >"$tmp/out" 2>"$tmp/err" ||
		fail "unconditional delete with duplicates: $(cat "$tmp/err")"
	same "unconditional delete: result" "$(tail -1 "$tmp/out")" "2,0,1,1"
	same "unconditional delete: rows" "$(rows "$t")" "2,2 3,30 "
done

t=$tmp/rules
mk "$t" "id BIGINT, v BIGINT" 'id,v\n1,1\n2,2\n,3\n'
printf 'id,v\n2,20\n5,50\n,9\n' >"$tmp/s.csv"
expect_error "non-last matched clause without condition" NON_LAST_MATCHED_CLAUSE_OMIT_CONDITION "$t" \
	--source "$tmp/s.csv" --alias t,s --on "t.id = s.id" --when "MATCHED THEN DELETE" \
	--when "MATCHED AND s.v > 1 THEN UPDATE SET v = 0"
expect_error "non-last insert clause without condition" NON_LAST_NOT_MATCHED_BY_TARGET_CLAUSE_OMIT_CONDITION "$t" \
	--source "$tmp/s.csv" --alias t,s --on "t.id = s.id" --when "NOT MATCHED THEN INSERT *" \
	--when "NOT MATCHED AND s.v > 1 THEN INSERT *"
expect_error "non-last by-source clause without condition" NON_LAST_NOT_MATCHED_BY_SOURCE_CLAUSE_OMIT_CONDITION "$t" \
	--source "$tmp/s.csv" --alias t,s --on "t.id = s.id" --when "NOT MATCHED BY SOURCE THEN DELETE" \
	--when "NOT MATCHED BY SOURCE AND t.v > 1 THEN DELETE"
expect_error "non-deterministic condition" DELTA_NON_DETERMINISTIC_FUNCTION_NOT_SUPPORTED "$t" \
	--source "$tmp/s.csv" --alias t,s --on "t.id = s.id AND rand() > 0.5" --when "MATCHED THEN DELETE"
expect_error "aggregate condition" DELTA_AGGREGATION_NOT_SUPPORTED "$t" \
	--source "$tmp/s.csv" --alias t,s --on "t.id = s.id" --when "MATCHED AND max(s.v) > 1 THEN DELETE"
expect_error "unresolved column" DELTA_MERGE_UNRESOLVED_EXPRESSION "$t" \
	--source "$tmp/s.csv" --alias t,s --on "t.id = s.nope" --when "MATCHED THEN DELETE"
expect_error "insert naming the target" DELTA_MERGE_UNRESOLVED_EXPRESSION "$t" \
	--source "$tmp/s.csv" --alias t,s --on "t.id = s.id" --when "NOT MATCHED THEN INSERT (id, v) VALUES (s.id, t.v)"
expect_error "ambiguous unqualified column" AMBIGUOUS_REFERENCE "$t" \
	--source "$tmp/s.csv" --alias t,s --on "id = s.id" --when "MATCHED THEN DELETE"
# = never matches NULL keys: the NULL source row is inserted, the NULL target row kept
"$DL_CLI" merge "$t" --source "$tmp/s.csv" --alias t,s --on "t.id = s.id" \
	--when "MATCHED THEN UPDATE SET v = s.v" --when "NOT MATCHED THEN INSERT *" -q >/dev/null || fail "= merge"
same "= with NULL keys" "$(rows "$t")" ",3 ,9 1,1 2,20 5,50 "
# <=> does match them (one NULL target row, one NULL source row: 3 -> 9... here two NULL targets now)
t2=$tmp/nullsafe
mk "$t2" "id BIGINT, v BIGINT" 'id,v\n1,1\n,3\n'
"$DL_CLI" merge "$t2" --source "$tmp/s.csv" --alias t,s --on "t.id <=> s.id" \
	--when "MATCHED THEN UPDATE SET v = s.v" --when "NOT MATCHED THEN INSERT *" -q >/dev/null || fail "<=> merge"
same "<=> with NULL keys" "$(rows "$t2")" ",9 1,1 2,20 5,50 "
# the first clause whose condition holds wins; a NULL condition is not true
t3=$tmp/order
mk "$t3" "id BIGINT, v BIGINT" 'id,v\n1,1\n2,2\n3,3\n'
printf 'id,v\n1,5\n2,\n3,30\n' >"$tmp/o.csv"
"$DL_CLI" merge "$t3" --source "$tmp/o.csv" --alias t,s --on "t.id = s.id" \
	--when "MATCHED AND s.v > 10 THEN DELETE" --when "MATCHED AND s.v > 1 THEN UPDATE SET v = 100" \
	--when "MATCHED THEN UPDATE SET v = -1" -q >/dev/null || fail "clause order merge"
same "clause order" "$(rows "$t3")" "1,100 2,-1 "

# assignments cast as store assignment: an INT expression into BIGINT, a
# string into an INT column fails at the cast, an overflow fails
t4=$tmp/cast
mk "$t4" "id BIGINT, i INT" 'id,i\n1,1\n'
printf 'id,i\n1,3000000000\n' >"$tmp/big.csv"
expect_error "overflowing store assignment" 'DELTA_CAST_OVERFLOW_IN_TABLE_WRITE] Failed to write a value of "BIGINT" type into the "INT" type column `i`' "$t4" --source "$tmp/big.csv" --alias t,s --on "t.id = s.id" \
	--when "MATCHED THEN UPDATE SET i = s.i"
# NOT NULL and CHECK are enforced on updated and inserted rows
t5=$tmp/constraints
mk "$t5" "id BIGINT NOT NULL, v BIGINT" 'id,v\n1,1\n' --constraint "pos=v > 0"
printf 'id,v\n1,-5\n' >"$tmp/neg.csv"
expect_error "CHECK on an updated row" "pos" "$t5" --source "$tmp/neg.csv" --alias t,s --on "t.id = s.id" \
	--when "MATCHED THEN UPDATE SET v = s.v"
printf 'id,v\n,5\n' >"$tmp/nullid.csv"
expect_error "NOT NULL on an inserted row" "id" "$t5" --source "$tmp/nullid.csv" --alias t,s --on "t.id = s.id" \
	--when "NOT MATCHED THEN INSERT *"
# generated columns are recomputed on update and filled on insert
t6=$tmp/generated
mk "$t6" "id BIGINT, v BIGINT, w BIGINT GENERATED ALWAYS AS (v * 2)" 'id,v\n1,1\n'
printf 'id,v\n1,7\n2,8\n' >"$tmp/g.csv"
"$DL_CLI" merge "$t6" --source "$tmp/g.csv" --alias t,s --on "t.id = s.id" \
	--when "MATCHED THEN UPDATE SET v = s.v" --when "NOT MATCHED THEN INSERT (id, v) VALUES (s.id, s.v)" \
	-q >/dev/null || fail "generated merge: $(cat "$tmp/err")"
same "generated columns" "$(rows "$t6")" "1,7,14 2,8,16 "

# identity columns: kept on update, generated on insert; assigning one is refused
t6b=$tmp/identity
mk "$t6b" "k BIGINT GENERATED ALWAYS AS IDENTITY, id BIGINT, v BIGINT" 'id,v\n1,1\n2,2\n'
printf 'id,v\n1,10\n5,50\n' >"$tmp/i.csv"
"$DL_CLI" merge "$t6b" --source "$tmp/i.csv" --alias t,s --on "t.id = s.id" --when "MATCHED THEN UPDATE SET *" \
	--when "NOT MATCHED THEN INSERT (id, v) VALUES (s.id, s.v)" -q >/dev/null 2>"$tmp/err" ||
	fail "identity merge: $(cat "$tmp/err")"
got=$(rows "$t6b")
case $got in "1,1,10 2,2,2 "[3-9]",5,50 ") ;; *) fail "identity rows: $got" ;; esac
expect_error "updating an identity column" DELTA_IDENTITY_COLUMNS_UPDATE_NOT_SUPPORTED "$t6b" --source "$tmp/i.csv" \
	--alias t,s --on "t.id = s.id" --when "MATCHED THEN UPDATE SET k = 7"

# INSERT clauses giving different columns: a column one clause gives and
# another leaves out takes, in the other's rows, what a write would give
# it (its DEFAULT, its generated value), not NULL
t6c=$tmp/mixed_inserts
"$DL_CLI" sql "CREATE TABLE delta.\`$t6c\` (id BIGINT, d INT DEFAULT 42, g BIGINT GENERATED ALWAYS AS (id * 2))
	USING delta TBLPROPERTIES ('delta.feature.allowColumnDefaults' = 'supported')" >/dev/null || fail "create $t6c"
printf 'id\n1\n20\n' >"$tmp/mix.csv"
"$DL_CLI" merge "$t6c" --source "$tmp/mix.csv" --alias t,s --on "t.id = s.id" \
	--when "NOT MATCHED AND s.id < 10 THEN INSERT (id, d, g) VALUES (s.id, 7, s.id * 2)" \
	--when "NOT MATCHED THEN INSERT (id) VALUES (s.id)" -q >/dev/null 2>"$tmp/err" ||
	fail "mixed insert clauses: $(cat "$tmp/err")"
same "mixed insert clauses" "$(rows "$t6c")" "1,7,2 20,42,40 "
# an identity column given by one clause and left out by another is
# refused (its values come from the high-water mark only the write moves)
t6d=$tmp/mixed_identity
mk "$t6d" "k BIGINT GENERATED BY DEFAULT AS IDENTITY, id BIGINT" 'id\n5\n'
expect_error "identity given by one insert clause only" "IDENTITY column k" "$t6d" --source "$tmp/mix.csv" \
	--alias t,s --on "t.id = s.id" --when "NOT MATCHED AND s.id < 10 THEN INSERT (k, id) VALUES (100, s.id)" \
	--when "NOT MATCHED THEN INSERT (id) VALUES (s.id)"

# schema evolution: UPDATE SET * / INSERT * add the source's new column
t7=$tmp/evolve
mk "$t7" "id BIGINT, v BIGINT" 'id,v\n1,1\n2,2\n'
printf 'id,v,extra\n2,20,x\n3,30,y\n' >"$tmp/e.csv"
expect_error "new source column without evolution" DELTA_MERGE_UNRESOLVED_EXPRESSION "$t7" --source "$tmp/e.csv" \
	--alias t,s --on "t.id = s.id" --when "MATCHED THEN UPDATE SET extra = s.extra"
"$DL_CLI" merge "$t7" --source "$tmp/e.csv" --alias t,s --on "t.id = s.id" --schema-evolution \
	--when "MATCHED THEN UPDATE SET *" --when "NOT MATCHED THEN INSERT *" -q >/dev/null 2>"$tmp/err" ||
	fail "schema evolution merge: $(cat "$tmp/err")"
same "schema evolution rows" "$(rows "$t7")" "1,1, 2,20,x 3,30,y "
"$DL_CLI" schema "$t7" 2>/dev/null | grep -q extra || fail "schema evolution: no column extra"

# sources: a Delta table, a Parquet file, JSON lines, Arrow IPC and CSV on stdin
src=$tmp/srctable
mk "$src" "id BIGINT, v BIGINT" 'id,v\n1,100\n9,900\n'
for kind in delta parquet jsonl ipc csvstdin; do
	t8=$tmp/src_$kind
	mk "$t8" "id BIGINT, v BIGINT" 'id,v\n1,1\n2,2\n'
	m=(merge "$t8" --alias t,s --on "t.id = s.id" --when "MATCHED THEN UPDATE SET *" --when "NOT MATCHED THEN INSERT *" -q)
	case $kind in
	delta) "$DL_CLI" "${m[@]}" --source "$src" >/dev/null 2>"$tmp/err" ;;
	parquet)
		"$DL_CLI" files "$src" --format csv | tail -n +2 | cut -d, -f1 | while read -r f; do cp "$src/$f" "$tmp/src.parquet"; done
		"$DL_CLI" "${m[@]}" --source "$tmp/src.parquet" >/dev/null 2>"$tmp/err" ;;
	jsonl)
		printf '{"id":1,"v":100}\n{"id":9,"v":900}\n' >"$tmp/src.jsonl"
		"$DL_CLI" "${m[@]}" --source "$tmp/src.jsonl" >/dev/null 2>"$tmp/err" ;;
	ipc)
		"$DL_CLI" cat "$src" --format arrow 2>/dev/null >"$tmp/src.arrows" ||
			"$DL_CLI" cat "$src" --arrow >"$tmp/src.arrows" 2>/dev/null
		"$DL_CLI" "${m[@]}" --source - <"$tmp/src.arrows" >/dev/null 2>"$tmp/err" ;;
	csvstdin) printf 'id,v\n1,100\n9,900\n' | "$DL_CLI" "${m[@]}" --source - >/dev/null 2>"$tmp/err" ;;
	esac || fail "source $kind: $(head -c 300 "$tmp/err")"
	same "source $kind" "$(rows "$t8")" "1,100 2,2 9,900 "
done

# row tracking: updated rows keep their row id, inserted rows get fresh ones
t9=$tmp/rowids
mk "$t9" "id BIGINT, v BIGINT" 'id,v\n1,1\n2,2\n3,3\n' --property delta.enableRowTracking=true
printf 'id,v\n2,20\n4,40\n' >"$tmp/r.csv"
"$DL_CLI" merge "$t9" --source "$tmp/r.csv" --alias t,s --on "t.id = s.id" --when "MATCHED THEN UPDATE SET *" \
	--when "NOT MATCHED THEN INSERT *" -q >/dev/null || fail "row tracking merge"
ids=$("$DL_CLI" cat "$t9" --columns id,_metadata.row_id,_metadata.row_commit_version --format csv | tail -n +2 | sort -n | tr '\n' ' ')
# copied and updated rows keep their ids (updated: the new version); the
# inserted row gets a fresh id past the high-water mark (2)
case $ids in "1,0,1 2,1,2 3,2,1 4,"[3-9]",2 ") ;; *) fail "row ids: $ids" ;; esac

# the result columns and commitInfo
t10=$tmp/result
mk "$t10" "id BIGINT, v BIGINT" 'id,v\n1,1\n2,2\n3,3\n'
printf 'id,v\n1,10\n2,20\n7,70\n' >"$tmp/x.csv"
"$DL_CLI" merge "$t10" --source "$tmp/x.csv" --alias t,s --on "t.id = s.id" --format jsonl \
	--when "MATCHED AND s.v = 10 THEN DELETE" --when "MATCHED THEN UPDATE SET v = s.v" \
	--when "NOT MATCHED THEN INSERT *" --when "NOT MATCHED BY SOURCE THEN UPDATE SET v = 0" >"$tmp/out" || fail "result merge"
same "result row" "$(cat "$tmp/out")" '{"num_affected_rows":4,"num_updated_rows":2,"num_deleted_rows":1,"num_inserted_rows":1}'
c=$t10/_delta_log/00000000000000000002.json
for kv in '"numSourceRows":"3"' '"numTargetRowsInserted":"1"' '"numTargetRowsUpdated":"2"' \
	'"numTargetRowsMatchedUpdated":"1"' '"numTargetRowsNotMatchedBySourceUpdated":"1"' '"numTargetRowsDeleted":"1"' \
	'"numTargetRowsMatchedDeleted":"1"' '"numTargetRowsNotMatchedBySourceDeleted":"0"' '"numTargetRowsCopied":"0"' \
	'"numOutputRows":"3"' '"numTargetFilesRemoved":"1"' '"operation":"MERGE"' \
	'"predicate":"[\"(t.id = s.id)\"]"' \
	'"matchedPredicates":"[{\"predicate\":\"(s.v = 10)\",\"actionType\":\"delete\"},{\"actionType\":\"update\"}]"' \
	'"notMatchedPredicates":"[{\"actionType\":\"insert\"}]"' \
	'"notMatchedBySourcePredicates":"[{\"actionType\":\"update\"}]"'; do
	grep -qF "$kv" "$c" || fail "commitInfo lacks $kv: $(head -c 1500 "$c")"
done
# an insert-only merge only appends
t11=$tmp/insonly
mk "$t11" "id BIGINT, v BIGINT" 'id,v\n1,1\n'
"$DL_CLI" merge "$t11" --source "$tmp/x.csv" --alias t,s --on "t.id = s.id" --when "NOT MATCHED THEN INSERT *" -q >/dev/null ||
	fail "insert-only merge"
grep -q '"remove"' "$t11/_delta_log/00000000000000000002.json" && fail "insert-only merge removed files"
same "insert-only rows" "$(rows "$t11")" "1,1 2,20 7,70 "

# kill -9 mid-merge: the table is as it was (or, if the commit landed, the
# whole merge is there); never a partial state. The source's even ids below
# 300000 (150000) match and are updated; those from 300000 up (50000) are
# inserted: 350000 rows, 200000 of them with v = -1.
t12=$tmp/killed
awk 'BEGIN { print "id,v"; for (i = 0; i < 300000; i++) printf "%d,%d\n", i, i }' >"$tmp/big_t.csv"
awk 'BEGIN { print "id,v"; for (i = 0; i < 200000; i++) printf "%d,%d\n", i * 2, -1 }' >"$tmp/big_s.csv"
"$DL_CLI" create "$t12" --schema "id BIGINT, v BIGINT" -q >/dev/null
"$DL_CLI" write "$t12" -i "$tmp/big_t.csv" -m append --max-records-per-file 30000 -q >/dev/null || fail "killed: write"
"$DL_CLI" merge "$t12" --source "$tmp/big_s.csv" --alias t,s --on "t.id = s.id" -q \
	--when "MATCHED THEN UPDATE SET *" --when "NOT MATCHED THEN INSERT *" >/dev/null 2>&1 &
pid=$!
sleep 0.3
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
n=$("$DL_CLI" cat "$t12" --format csv | tail -n +2 | wc -l)
neg=$("$DL_CLI" cat "$t12" --format csv | grep -c ',-1$')
if [ -f "$t12/_delta_log/00000000000000000002.json" ]; then
	same "killed after the commit: rows" "$n $neg" "350000 200000"
else
	same "killed before the commit: rows" "$n $neg" "300000 0"
fi

# two merges at once touching the same file: the loser of the commit race
# fails with a conflict class (its file was removed under it) and leaves
# nothing behind, or both ran one after the other; an append racing a merge
# is a blind append and never makes it fail
t13=$tmp/race
mk "$t13" "id BIGINT, v BIGINT" 'id,v\n1,1\n2,2\n3,3\n'
printf 'id,v\n1,10\n' >"$tmp/r1.csv"
printf 'id,v\n2,20\n' >"$tmp/r2.csv"
printf 'id,v\n9,9\n' >"$tmp/r3.csv"
for k in 1 2; do
	"$DL_CLI" merge "$t13" --source "$tmp/r$k.csv" --alias t,s --on "t.id = s.id" -q \
		--when "MATCHED THEN UPDATE SET *" >/dev/null 2>"$tmp/race$k.err" &
done
"$DL_CLI" write "$t13" -i "$tmp/r3.csv" -m append -q >/dev/null 2>"$tmp/race3.err" || fail "race: the append failed: $(cat "$tmp/race3.err")"
ok=0
for k in 1 2; do
	if wait -n; then ok=$((ok + 1)); fi
done
got=$(rows "$t13")
case $ok in
2) same "race: both merges" "$got" "1,10 2,20 3,3 9,9 " ;;
1)
	grep -q "Concurrent" "$tmp"/race[12].err || fail "race: the loser's error: $(cat "$tmp"/race[12].err)"
	case $got in "1,10 2,2 3,3 9,9 " | "1,1 2,20 3,3 9,9 ") ;; *) fail "race: rows $got" ;; esac ;;
*) fail "race: no merge succeeded: $(cat "$tmp"/race[12].err)" ;;
esac

[ "$fails" -eq 0 ] || { echo "$fails failure(s)" >&2; exit 1; }
echo "merge_rules: ok"
