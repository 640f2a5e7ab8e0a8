#!/usr/bin/env bash
# MERGE compared with DuckDB's MERGE INTO (which has WHEN NOT MATCHED BY
# SOURCE): the same statement on the same rows, for copy-on-write, deletion
# vectors, change data feed, row tracking, partitioned and not; the result
# read by our reader (`cat`) and, for copy-on-write tables, by DuckDB from
# the live Parquet files. Needs DL_CLI and DL_ORACLE_DIR.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
: "${DL_ORACLE_DIR:?DL_ORACLE_DIR must name tools/oracle}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -n "${MERGE_KEEP:-}" ] && trap - EXIT && echo "$tmp" >&2
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
duck() { (cd "$DL_ORACLE_DIR" && node "$here/merge_duckdb_check.mjs" "$@"); }

# target: ids 1..240 (every 37th NULL), v, g in g0..g2; source: ids 180..300
# (every 29th NULL, one NULL row at most matters for <=>), other v and g
awk 'BEGIN { print "id,v,g"; for (i = 1; i <= 240; i++) printf "%s,%d,g%d\n", (i % 37 == 0 ? "" : i), (i * 7) % 101, i % 3 }' >"$tmp/t.csv"
awk 'BEGIN { print "id,v,g"; for (i = 180; i <= 300; i++) printf "%s,%d,g%d\n", (i == 203 ? "" : i), (i * 13) % 97, (i / 2) % 3 }' >"$tmp/s.csv"

# name | ON | WHEN clauses (separated by ';')
statements=(
	"upsert|t.id = s.id|MATCHED THEN UPDATE SET *;NOT MATCHED THEN INSERT *"
	"conditional|t.id = s.id|MATCHED AND s.v % 3 = 0 THEN DELETE;MATCHED AND s.v % 3 = 1 THEN UPDATE SET v = t.v + s.v, g = s.g;NOT MATCHED AND s.v % 2 = 0 THEN INSERT (id, v, g) VALUES (s.id, s.v * 10, s.g)"
	"by_source|t.id = s.id|MATCHED THEN UPDATE SET v = s.v;NOT MATCHED BY SOURCE AND t.v < 50 THEN DELETE;NOT MATCHED BY SOURCE THEN UPDATE SET g = 'old'"
	"null_safe|t.id <=> s.id|MATCHED THEN DELETE;NOT MATCHED THEN INSERT *"
	"residual|t.id = s.id AND t.g = s.g|MATCHED THEN UPDATE SET v = -s.v;NOT MATCHED THEN INSERT *"
	"target_term|t.id = s.id AND t.g = 'g1'|MATCHED THEN UPDATE SET *;NOT MATCHED THEN INSERT *"
	"insert_only|t.id = s.id|NOT MATCHED THEN INSERT *"
	"delete_only|t.id = s.id AND s.v > 40|MATCHED THEN DELETE"
	# target columns named only by clause conditions or the residual (the
	# join reads just those: merge_join.c join_columns), or by no ON term
	"target_cond|t.id = s.id|MATCHED AND t.v > 50 THEN UPDATE SET v = t.v + s.v;MATCHED AND t.g = 'g2' THEN DELETE;NOT MATCHED BY SOURCE AND t.g = 'g1' THEN DELETE;NOT MATCHED THEN INSERT *"
	"residual_v|t.id = s.id AND t.v < s.v|MATCHED THEN UPDATE SET g = s.g;NOT MATCHED BY SOURCE AND t.v % 2 = 0 THEN UPDATE SET g = 'even'"
	"no_target_on|s.id = 200|MATCHED AND t.v > 90 THEN UPDATE SET g = s.g"
	# partitioned by g: the join reads the partition column alone
	"part_key|t.g = s.g AND s.id = 200|MATCHED THEN DELETE;NOT MATCHED BY SOURCE AND t.g = 'g0' THEN UPDATE SET v = 0"
)

for mode in copy dv cdf rt part part_dv; do
	for st in "${statements[@]}"; do
		IFS='|' read -r name on whens <<<"$st"
		t=$tmp/$mode-$name
		props=()
		parts=()
		case $mode in
		dv) props=(--property delta.enableDeletionVectors=true) ;;
		cdf) props=(--property delta.enableChangeDataFeed=true) ;;
		rt) props=(--property delta.enableRowTracking=true --property delta.enableDeletionVectors=true) ;;
		part) parts=(--partition-by g) ;;
		part_dv) parts=(--partition-by g); props=(--property delta.enableDeletionVectors=true) ;;
		esac
		"$DL_CLI" create "$t" --schema "id BIGINT, v BIGINT, g STRING" "${props[@]}" "${parts[@]}" -q >/dev/null ||
			{ fail "$mode/$name: create"; continue; }
		"$DL_CLI" write "$t" -i "$tmp/t.csv" -m append --max-records-per-file 50 -q >/dev/null ||
			{ fail "$mode/$name: write"; continue; }
		args=()
		sqlw=""
		IFS=';' read -ra cl <<<"$whens"
		for c in "${cl[@]}"; do
			args+=(--when "$c")
			sqlw+=" WHEN $c"
		done
		if ! "$DL_CLI" merge "$t" --source "$tmp/s.csv" --alias t,s --on "$on" "${args[@]}" --format csv \
			>"$tmp/out" 2>"$tmp/err"; then
			fail "$mode/$name: merge failed: $(head -c 400 "$tmp/err")"
			continue
		fi
		dsql="MERGE INTO t USING s ON ${on//<=>/IS NOT DISTINCT FROM}$sqlw"
		expect=$(duck merge "$tmp/t.csv" "$tmp/s.csv" "$dsql" | sort) || { fail "$mode/$name: DuckDB: $dsql"; continue; }
		got=$("$DL_CLI" cat "$t" --columns id,v,g --format csv | tail -n +2 | sort)
		[ "$got" = "$expect" ] || fail "$mode/$name: rows differ from DuckDB's:
$(diff <(echo "$expect") <(echo "$got") | head -20)"
		n_expect=$(wc -l <<<"$expect")
		commit=$(ls "$t"/_delta_log/*.json | tail -1)
		grep -q '"operation":"MERGE"' "$commit" || fail "$mode/$name: commitInfo operation"
		rows=$(grep -o '"numOutputRows":"[0-9]*"' "$commit" | grep -o '[0-9]*')
		[ -n "$rows" ] || fail "$mode/$name: no numOutputRows"
		case $mode in
		copy | cdf | part)
			"$DL_CLI" files "$t" --format csv >"$tmp/files.csv"
			ddb=$(duck files "$t" "$tmp/files.csv" | sort)
			[ "$ddb" = "$expect" ] || fail "$mode/$name: DuckDB reads other rows from the files:
$(diff <(echo "$expect") <(echo "$ddb") | head -10)"
			# copy-on-write: what the files hold is what the commit says it output
			[ "$mode" = cdf ] || [ "$name" = insert_only ] || true
			;;
		esac
		if [ "$mode" = cdf ] && [ "$name" != insert_only ]; then
			ch=$("$DL_CLI" changes "$t" --from 2 --format csv | tail -n +2 | wc -l)
			[ "$ch" -gt 0 ] || fail "$mode/$name: no change data rows"
		fi
		[ "$n_expect" -gt 0 ] || fail "$mode/$name: empty result"
	done
done

[ "$fails" -eq 0 ] || { echo "$fails failure(s)" >&2; exit 1; }
echo "merge_duckdb: all statements agree with DuckDB"
