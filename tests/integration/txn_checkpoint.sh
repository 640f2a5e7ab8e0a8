#!/usr/bin/env bash
# `deltalake checkpoint` on copies of the conformance tables: after a
# classic, a multi-part (--part-size 2) and, where the table asks for it, a
# V2 checkpoint, our reader sees exactly the same files (and the snapshot
# starts from the new checkpoint); DuckDB reads every checkpoint file, whose
# Parquet columns are exactly the protocol's checkpoint schema, with as many
# add rows as _last_checkpoint's numOfAddFiles. Then `cleanup-log`.
# Needs DL_CLI, DL_SHARED_DIR and DL_ORACLE_DIR.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
: "${DL_SHARED_DIR:?}" "${DL_ORACLE_DIR:?}"
here=$(cd "$(dirname "$0")" && pwd)
gold=$DL_SHARED_DIR/conformance/golden
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
oracle() { (cd "$DL_ORACLE_DIR" && node "$here/txn_checkpoint_check.mjs" "$@"); }
files_of() { "$DL_CLI" files "$1" --format csv 2>"$tmp/err" | sort; }

tables="basic-with-inserts-updates basic-with-inserts-deletes-checkpoint multi-part-checkpoint
dv-partitioned-with-checkpoint data-reader-partition-values table-with-columnmapping-mode-name
table-with-columnmapping-mode-id log-replay-special-characters canonicalized-paths-special-a
snapshot-data3 time-travel-partition-changes-b data-skipping-basic-stats-all-types
v2-checkpoint-parquet v2-checkpoint-json data-reader-escaped-chars dv-with-columnmapping"
checked=0
for g in $tables; do
	src=$gold/$g/delta
	[ -d "$src" ] || src=$gold/$g
	[ -d "$src/_delta_log" ] || { fail "$g: no table in $src"; continue; }
	for mode in classic parts; do
		t=$tmp/$g-$mode
		cp -r "$src" "$t" && chmod -R u+w "$t"
		files_of "$t" >"$tmp/before" || { fail "$g: files before: $(cat "$tmp/err")"; continue; }
		(cd "$t/_delta_log" && find . -type f | sort) >"$tmp/list"
		extra=()
		[ "$mode" = parts ] && extra=(--part-size 2)
		if ! "$DL_CLI" checkpoint "$t" "${extra[@]}" --format csv >"$tmp/ck" 2>"$tmp/err"; then
			fail "$g ($mode): checkpoint failed: $(cat "$tmp/err")"
			continue
		fi
		IFS=, read -r v kind nfiles actions adds size < <(tail -n 1 "$tmp/ck")
		files_of "$t" >"$tmp/after"
		cmp -s "$tmp/before" "$tmp/after" || fail "$g ($mode): files differ after the checkpoint: $(diff "$tmp/before" "$tmp/after" | head -5)"
		grep -q "\"version\":$v," "$t/_delta_log/_last_checkpoint" || fail "$g: _last_checkpoint is not at $v"
		grep -q "\"numOfAddFiles\":$adds," "$t/_delta_log/_last_checkpoint" || fail "$g: numOfAddFiles"
		# the files the checkpoint added (the table may hold older ones of the same version)
		comm -13 "$tmp/list" <(cd "$t/_delta_log" && find . -type f | sort) >"$tmp/new"
		all=()
		while read -r f; do
			f=$t/_delta_log/${f#./}
			case $f in
			*/_sidecars/*) schema=sidecar ;;
			*.checkpoint.parquet | *.checkpoint.[0-9]*.[0-9]*.parquet) schema=classic ;;
			*.checkpoint.*.parquet) schema=v2 ;;
			*) continue ;;
			esac
			out=$(oracle schema "$schema" "$f") || fail "$g ($mode): $f: $out"
			all+=("$f")
		done <"$tmp/new"
		[ "${#all[@]}" -eq "$nfiles" ] || fail "$g ($mode): ${#all[@]} new checkpoint files, $nfiles reported"
		case $kind in
		multi-part) [ "$mode" = parts ] || fail "$g: multi-part without --part-size" ;;
		classic) [ "$mode" = classic ] || [ "$actions" -le 2 ] || fail "$g: --part-size 2 gave one part of $actions actions" ;;
		esac
		read -r nadd nrem < <(oracle adds "${all[@]}")
		[ "$nadd" = "$adds" ] || fail "$g ($mode): DuckDB reads $nadd add rows, numOfAddFiles says $adds"
		[ $((nadd + 0)) -eq $(($(wc -l <"$tmp/after") - 1)) ] || fail "$g ($mode): $nadd adds but $(($(wc -l <"$tmp/after") - 1)) live files"
		checked=$((checked + 1))
	done
done
[ "$checked" -ge 28 ] || fail "only $checked checkpoints checked"

# A table we write with delta.checkpoint.writeStatsAsStruct: the automatic
# checkpoint (every 3 commits) carries stats_parsed and partitionValues_parsed
# equal to the JSON stats and partition values, and reads back the same.
t=$tmp/parsed
printf '{"id":1,"name":"a","ts":"2024-01-01T10:00:00Z","d":"2024-01-01","s":{"a":5,"b":"x"}}\n{"id":2,"name":null,"ts":"2024-01-02T11:00:00Z","d":"2024-01-02","s":{"a":7,"b":"y"}}\n' >"$tmp/in.jsonl"
"$DL_CLI" create "$t" --schema "id BIGINT, name STRING, ts TIMESTAMP, d DATE, s STRUCT<a: INT, b: STRING>" \
	--partition-by d --property delta.checkpoint.writeStatsAsStruct=true \
	--property delta.checkpointInterval=3 >/dev/null 2>"$tmp/err" || fail "create: $(cat "$tmp/err")"
for i in 1 2 3; do
	"$DL_CLI" write "$t" -i "$tmp/in.jsonl" -m append >/dev/null 2>"$tmp/err" || fail "write $i: $(cat "$tmp/err")"
done
ck=$t/_delta_log/00000000000000000003.checkpoint.parquet
if [ -f "$ck" ]; then
	out=$(oracle schema classic "$ck") || fail "parsed: $out"
	out=$(oracle parsed "$ck") || fail "stats_parsed differs from stats: $out"
	[ "$out" = 6 ] || fail "parsed: $out add rows checked, expected 6"
	n=$("$DL_CLI" files "$t" --format csv | tail -n +2 | wc -l)
	[ "$n" -eq 6 ] || fail "parsed: $n files after the checkpoint, expected 6"
else
	fail "no automatic checkpoint at version 3: $(ls "$t/_delta_log")"
fi

# cleanup-log: with no retention everything before the newest checkpoint
# older than today's midnight goes; the files are back-dated to make it so.
t=$tmp/basic-with-inserts-deletes-checkpoint-classic
echo partial >"$t/_delta_log/.00000000000000000099.json.0123abcd.tmp" # a writer that died
touch -d '3 days ago' "$t"/_delta_log/* "$t"/_delta_log/.*.tmp
files_of "$t" >"$tmp/before"
"$DL_CLI" cleanup-log "$t" --retention 'interval 1 day' --format csv >"$tmp/cl" 2>"$tmp/err" || fail "cleanup-log: $(cat "$tmp/err")"
IFS=, read -r kept dc dk do ds < <(tail -n 1 "$tmp/cl")
[ "$dc" -gt 0 ] || fail "cleanup-log deleted no commits: $(cat "$tmp/cl")"
[ -z "$(ls "$t/_delta_log" | awk -F. -v k="$kept" '/^[0-9]+\.json$/ && $1+0 < k+0')" ] || fail "commits before $kept remain"
files_of "$t" >"$tmp/after"
cmp -s "$tmp/before" "$tmp/after" || fail "cleanup-log changed the files of the latest version"
[ ! -e "$t/_delta_log/.00000000000000000099.json.0123abcd.tmp" ] || fail "cleanup-log kept a stale temporary file"

# cleanup-log on Spark's V2 tables (JSON and Parquet UUID checkpoints with
# sidecars), back-dated: every sidecar a remaining checkpoint references
# stays, an unreferenced old one goes, and the table reads the same.
for g in v2-checkpoint-json v2-checkpoint-parquet; do
	t=$tmp/$g-cleanup
	cp -r "$gold/$g/delta" "$t" 2>/dev/null || cp -r "$gold/$g" "$t"
	chmod -R u+w "$t"
	echo stray >"$t/_delta_log/_sidecars/0f0f0f0f-0000-4000-8000-000000000000.parquet"
	touch -d '3 days ago' "$t"/_delta_log/* "$t"/_delta_log/_sidecars/*
	files_of "$t" >"$tmp/before"
	"$DL_CLI" cleanup-log "$t" --retention 'interval 1 day' --format csv >"$tmp/cl" 2>"$tmp/err" || fail "$g cleanup-log: $(cat "$tmp/err")"
	IFS=, read -r kept dc dk do ds < <(tail -n 1 "$tmp/cl")
	[ "$ds" = 1 ] || fail "$g: cleanup-log deleted $ds sidecars, expected just the unreferenced one"
	[ ! -e "$t/_delta_log/_sidecars/0f0f0f0f-0000-4000-8000-000000000000.parquet" ] || fail "$g: stray sidecar kept"
	files_of "$t" >"$tmp/after"
	cmp -s "$tmp/before" "$tmp/after" || fail "$g: cleanup-log changed the table"
done

echo "txn_checkpoint: $checked checkpoints checked, $fails failures"
[ "$fails" -eq 0 ]
