#!/usr/bin/env bash
# A version checksum (N.crc) never changes what a command shows or allows:
# the log is the truth (PROTOCOL.md "Version Checksum File"). A copied table
# whose latest .crc renames a column, or lists a reader feature the log does
# not have, must behave exactly as the original under schema, protocol,
# cat, files, detail and history; a .crc that agrees with the log still
# works. Runs with DL_CLI = path of the binary.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# show TABLE NAME: every read command's output (table path replaced by T)
# into $tmp/NAME.out, their exit codes into $tmp/NAME.rc.
show() {
	local t=$1 name=$2
	: >"$tmp/$name.out"
	: >"$tmp/$name.rc"
	for cmd in "schema" "protocol" "cat" "files" "detail" "history" "schema --version 1" \
	           "cat --version 1"; do
		# shellcheck disable=SC2086
		"$DL_CLI" $cmd "$t" --format csv >"$tmp/cmd.out" 2>"$tmp/cmd.err"
		echo "$cmd: $?" >>"$tmp/$name.rc"
		echo "== $cmd" >>"$tmp/$name.out"
		# history and detail show times and the path; keep what a .crc
		# could change
		sed -e "s|$t|T|g" "$tmp/cmd.out" "$tmp/cmd.err" >>"$tmp/$name.out"
	done
}

printf 'id,name\n1,a\n2,b\n' >"$tmp/in.csv"
"$DL_CLI" create "$tmp/t" --schema "id BIGINT, name STRING" >/dev/null || fail "create"
"$DL_CLI" write "$tmp/t" --mode append --input "$tmp/in.csv" >/dev/null || fail "append"
crc="_delta_log/00000000000000000001.crc"
[ -f "$tmp/t/$crc" ] || fail "the append wrote no $crc"
grep -qF '\"name\":\"name\"' "$tmp/t/$crc" || fail "$crc does not hold the schema"
cp -a "$tmp/t" "$tmp/orig"
show "$tmp/orig" orig
grep -q ': [^0]' "$tmp/orig.rc" && fail "reading the original failed: $(cat "$tmp/orig.rc")"
grep -q '^name,' "$tmp/orig.out" || fail "schema does not show the column 'name'"

# 1. The .crc renames a column.
cp -a "$tmp/orig" "$tmp/renamed"
sed -i 's/\\"name\\":\\"name\\"/\\"name\\":\\"renamed\\"/' "$tmp/renamed/$crc"
grep -qF 'renamed' "$tmp/renamed/$crc" || fail "tampering the schema of $crc did not take"
show "$tmp/renamed" renamed
grep -q 'renamed' "$tmp/renamed.out" && fail "a column renamed only in $crc is shown"
cmp -s "$tmp/orig.rc" "$tmp/renamed.rc" || fail "exit codes differ: $(paste "$tmp/orig.rc" "$tmp/renamed.rc")"
diff "$tmp/orig.out" "$tmp/renamed.out" >"$tmp/diff" ||
	fail "a renamed column in $crc changes the output: $(head -c 600 "$tmp/diff")"

# 2. The .crc lists a reader feature (and versions) the log does not have.
cp -a "$tmp/orig" "$tmp/feature"
sed -i 's/"protocol":{"minReaderVersion":1,"minWriterVersion":2}/"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["noSuchFeature"],"writerFeatures":["noSuchFeature"]}/' \
	"$tmp/feature/$crc"
grep -qF 'noSuchFeature' "$tmp/feature/$crc" || fail "tampering the protocol of $crc did not take"
show "$tmp/feature" feature
grep -q 'noSuchFeature' "$tmp/feature.out" && fail "a reader feature only in $crc is shown or enforced"
cmp -s "$tmp/orig.rc" "$tmp/feature.rc" || fail "exit codes differ: $(paste "$tmp/orig.rc" "$tmp/feature.rc")"
diff "$tmp/orig.out" "$tmp/feature.out" >"$tmp/diff" ||
	fail "a reader feature in $crc changes the output: $(head -c 600 "$tmp/diff")"
# ... nor what a write may do: appending works and reads back
"$DL_CLI" write "$tmp/feature" --mode append --input "$tmp/in.csv" >/dev/null 2>"$tmp/err" ||
	fail "append to the table with a tampered .crc: $(cat "$tmp/err")"
n=$("$DL_CLI" cat "$tmp/feature" --format csv 2>/dev/null | tail -n +2 | wc -l)
[ "$n" -eq 4 ] || fail "after the append, cat shows $n rows, expected 4"
grep -qF 'noSuchFeature' "$tmp/feature/_delta_log/00000000000000000002.crc" 2>/dev/null &&
	fail "the tampered protocol of $crc was carried into the next .crc"

# 3. A .crc that agrees with the log changes nothing either, and is kept.
show "$tmp/t" same
cmp -s "$tmp/orig.out" "$tmp/same.out" || fail "the untouched table reads differently"
cmp -s "$tmp/t/$crc" "$tmp/orig/$crc" || fail "reading changed $crc"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)" >&2; exit 1; }
echo "crc_untrusted: ok"
