#!/usr/bin/env bash
# Row tracking across rewrites (PROTOCOL.md "Row Tracking": writers preserve
# the row ids and row commit versions of rows they copy). A replaceWhere
# copies the rows it keeps; `cat` must show them with their old ids and
# commit versions, with copy-on-write and with deletion vectors, and DuckDB
# must read the rewritten files (the copies carry the ids in the
# materialized columns). Needs DL_CLI and DL_ORACLE_DIR.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
: "${DL_ORACLE_DIR:?DL_ORACLE_DIR must name tools/oracle}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
run() { "$DL_CLI" "$@" >"$tmp/out" 2>"$tmp/err" || fail "deltalake $* failed: $(head -c 300 "$tmp/err")"; }
same() { [ "$2" = "$3" ] || fail "$1: got '$2', expected '$3'"; }
prop() { "$DL_CLI" detail "$1" --format jsonl | grep -o "\"$2\":\"[^\"]*\"" | cut -d'"' -f4; }

printf 'id\n1\n2\n3\n' >"$tmp/a.csv"
printf 'id\n2\n' >"$tmp/b.csv"
rows() { "$DL_CLI" cat "$1" --columns id,_metadata.row_id,_metadata.row_commit_version --format csv | tail -n +2 | sort -n; }

# copy: copy-on-write; dv: deletion vectors; idmap: copy-on-write under
# column mapping mode id (the materialized columns have no field id)
for mode in copy dv idmap; do
	t=$tmp/t_$mode
	extra=()
	[ "$mode" = dv ] && extra=(--property delta.enableDeletionVectors=true)
	[ "$mode" = idmap ] && extra=(--property delta.columnMapping.mode=id)
	run create "$t" --schema "id BIGINT" --property delta.enableRowTracking=true "${extra[@]}"
	run write "$t" -i "$tmp/a.csv" -m append
	same "$mode: after the append" "$(rows "$t" | tr '\n' ' ')" "1,0,1 2,1,1 3,2,1 "
	run write "$t" -i "$tmp/b.csv" -m overwrite --replace-where "id = 2"
	got=$(rows "$t")
	# rows 1 and 3 are copied (or kept under a DV): ids 0 and 2, version 1;
	# the new row 2 gets a fresh id after the high-water mark and version 2
	same "$mode: copied row 1" "$(sed -n 1p <<<"$got")" "1,0,1"
	same "$mode: copied row 3" "$(sed -n 3p <<<"$got")" "3,2,1"
	new=$(sed -n 2p <<<"$got")
	case $new in 2,[3-9],2 | 2,[1-9][0-9],2) ;; *) fail "$mode: new row 2 reads as '$new'";; esac
	[ "$(wc -l <<<"$got")" -eq 3 ] || fail "$mode: $(wc -l <<<"$got") rows after the replaceWhere"
	commit=$t/_delta_log/00000000000000000002.json
	grep -q '"numDeletedRows":"1"' "$commit" || fail "$mode: numDeletedRows: $(head -c 600 "$commit")"
	if [ "$mode" = dv ]; then
		grep -q '"deletionVector":{"storageType":"u"' "$commit" || fail "dv: no deletion vector in $commit"
		grep -q 'tightBounds\\":false' "$commit" || fail "dv: the add does not say tightBounds false"
		ls "$t"/deletion_vector_*.bin >/dev/null 2>&1 || fail "dv: no deletion vector file"
	elif [ "$mode" = copy ]; then
		grep -q '"numCopiedRows":"2"' "$commit" || fail "copy: numCopiedRows: $(head -c 600 "$commit")"
		# DuckDB reads the copy: the materialized columns hold the old ids
		idcol=$(prop "$t" delta.rowTracking.materializedRowIdColumnName)
		cvcol=$(prop "$t" delta.rowTracking.materializedRowCommitVersionColumnName)
		case $idcol in _row-id-col-*) ;; *) fail "copy: materialized row id column named '$idcol'";; esac
		"$DL_CLI" files "$t" --format csv >"$tmp/files.csv"
		duck=$(cd "$DL_ORACLE_DIR" && node "$here/rewrite_row_tracking_check.mjs" rows "$t" "$tmp/files.csv" "$idcol" "$cvcol") ||
			fail "copy: DuckDB could not read the files"
		same "copy: DuckDB's view" "$(tr '\n' ' ' <<<"$duck")" "1,0,1 2,null,null 3,2,1 "
	fi
	# a second rewrite keeps them still (the DV is merged, the copy recopied)
	printf 'id\n3\n' >"$tmp/c.csv"
	run write "$t" -i "$tmp/c.csv" -m overwrite --replace-where "id = 3"
	got=$(rows "$t")
	same "$mode: row 1 after a second rewrite" "$(sed -n 1p <<<"$got")" "1,0,1"
	same "$mode: row 2 after a second rewrite" "$(sed -n 2p <<<"$got")" "$new"
done

[ "$fails" -eq 0 ] && echo "rewrite_row_tracking: ok"
exit $((fails > 0))
