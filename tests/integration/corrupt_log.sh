#!/usr/bin/env bash
# Corrupt logs are errors naming the file and the problem, never a table
# read with exit 0 (issue "Hardening", item 8 and the missing-file version
# of item 10): an empty commit, an add and a remove of the same file in one
# commit, a negative size, a negative DV offset, %00 in a path, reader
# version 3 without its feature list, a directory named like a commit.
# Needs DL_CLI.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
printf 'id,name\n1,a\n2,b\n' >"$tmp/a.csv"
mk() { # a table of three versions (0, 1: appends of 2 rows)
	"$DL_CLI" write "$tmp/$1" -i "$tmp/a.csv" >/dev/null && "$DL_CLI" write "$tmp/$1" -i "$tmp/a.csv" -m append >/dev/null ||
		fail "making $1"
}
log() { echo "$tmp/$1/_delta_log/0000000000000000000$2.json"; }
refused() { # table, text the error must hold
	"$DL_CLI" cat "$tmp/$1" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ "$rc" -eq 1 ] || fail "$1: exit $rc, expected 1 (stdout: $(head -c 200 "$tmp/out"))"
	grep -qF -- "$2" "$tmp/err" || fail "$1: stderr lacks '$2': $(cat "$tmp/err")"
}

mk empty
: >"$(log empty 2)"
refused empty "_delta_log/00000000000000000002.json is empty: a commit holds at least one action"

mk twice
f=$(cd "$tmp/twice" && ls ./*.parquet | head -1 | xargs basename)
printf '{"add":{"path":"%s","partitionValues":{},"size":10,"modificationTime":1,"dataChange":true}}\n{"remove":{"path":"%s","deletionTimestamp":1,"dataChange":true}}\n' \
	"$f" "$f" >"$(log twice 2)"
refused twice "00000000000000000002.json holds an add and a remove of the same file $f"

mk negsize
sed -i 's/"size":[0-9]*/"size":-5/' "$(log negsize 1)"
refused negsize "00000000000000000001.json: add.size is negative"

mk nul
f=$(cd "$tmp/nul" && ls ./*.parquet | head -1 | xargs basename)
mv "$tmp/nul/$f" "$tmp/nul/x%00y.parquet"
sed -i "s/$f/x%00y.parquet/" "$tmp"/nul/_delta_log/*.json
refused nul 'path "x%00y.parquet" holds %00'

mk reader3
sed -i 's/"minReaderVersion":1/"minReaderVersion":3/' "$(log reader3 0)"
refused reader3 "minReaderVersion 3 but no readerFeatures list"

# a deletion vector whose offset is negative
"$DL_CLI" create "$tmp/dv" --schema "id INT, name STRING" --property delta.enableDeletionVectors=true >/dev/null ||
	fail "create dv"
"$DL_CLI" write "$tmp/dv" -i "$tmp/a.csv" -m append >/dev/null || fail "write dv"
"$DL_CLI" delete "$tmp/dv" --where "id = 1" >/dev/null || fail "delete dv"
grep -q '"offset":1' "$(log dv 2)" || fail "the delete wrote no DV with offset 1: $(cat "$(log dv 2)")"
sed -i 's/"offset":1,/"offset":-1,/' "$(log dv 2)"
refused dv "add.deletionVector.offset is negative"

# a missing data file is named with the version that added it
mk missing
f=$(grep -o '"path":"[^"]*"' "$(log missing 1)" | head -1 | cut -d'"' -f4)
rm "$tmp/missing/$f"
refused missing "data file $f is missing (version 1 added it)"

# a directory named like the next commit is an error naming it and its
# version, not a version skipped: through the file store and fault://
mk dir
mkdir "$tmp/dir/_delta_log/00000000000000000002.json"
refused dir "_delta_log/00000000000000000002.json is not a regular file but is named like a log file (the commit of version 2)"
"$DL_CLI" cat "fault://file://$tmp/dir" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] || fail "fault:// with a directory commit: exit $rc, expected 1"
grep -qF "00000000000000000002.json is not a regular file" "$tmp/err" ||
	fail "fault:// did not name the directory: $(cat "$tmp/err")"
rmdir "$tmp/dir/_delta_log/00000000000000000002.json"
n=$("$DL_CLI" cat "$tmp/dir" --format csv | tail -n +2 | wc -l)
[ "$n" -eq 4 ] || fail "the table without the directory reads $n rows, expected 4"

[ $fails -eq 0 ] && echo "corrupt_log: every corruption refused with its file and problem"
exit $((fails > 0))
