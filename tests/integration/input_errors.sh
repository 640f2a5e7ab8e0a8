#!/usr/bin/env bash
# Malformed input through `deltalake write` (issue "Hardening", items 1, 2,
# 3 and 6): each must fail with exit 1 and a one-line error naming the
# file, line and column, and leave the table byte-identical with no stray
# file. What RFC 4180 and Spark accept (doubled quotes, line ends inside
# quotes, HALF_UP rounding to the column's scale) still writes.
# Needs DL_CLI.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
t=$tmp/t
state() { (cd "$t" && find . -type f -print0 | sort -z | xargs -0 md5sum); }

"$DL_CLI" create "$t" --schema "id INT, name STRING, amount DECIMAL(10,2), s STRUCT<a: INT, b: INT>" >/dev/null ||
	fail "create"
printf 'id,name,amount\n1,a,1.00\n' >"$tmp/ok.csv"
"$DL_CLI" write "$t" -i "$tmp/ok.csv" -m append >/dev/null || fail "first write"

# refused: file, want exit, text the one-line error must hold
refuse() {
	local file=$1 want=$2
	local before
	before=$(state)
	"$DL_CLI" write "$t" -i "$tmp/$file" -m append >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ "$rc" -eq 1 ] || fail "$file: exit $rc, expected 1"
	grep -qF -- "$want" "$tmp/err" || fail "$file: stderr lacks '$want': $(cat "$tmp/err")"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "$file: the error is not one line"
	[ "$(state)" = "$before" ] || fail "$file: the table changed (or a stray file was left)"
}

printf 'id,name,amount\n3,x,1.00\n4,"open,1.00\n5,after,2.00\n' >"$tmp/unclosed.csv"
refuse unclosed.csv "unclosed.csv: line 3, column name: the quoted field opened on line 3 is never closed"
printf 'id,name,amount\n1,"x"y,2.00\n' >"$tmp/junk.csv"
refuse junk.csv "junk.csv: line 2, column name: 'y' after the closing quote"
printf 'id,name,amount\n1,a,2.00\n2,b\n' >"$tmp/short.csv"
refuse short.csv "short.csv: line 3 has 2 fields, the header has 3"
printf 'id,name,amount\n1,a,2.00,9\n' >"$tmp/long.csv"
refuse long.csv "long.csv: line 2 has more than the 3 fields"
printf 'id,name,amount\n1,a,99999999.995\n' >"$tmp/over.csv"
refuse over.csv "over.csv: line 2, column amount: value '99999999.995' cannot be represented as decimal(10,2)"
# invalid UTF-8 far into a file, after a full batch was read
{
	printf 'id,name,amount\n'
	seq 1 150000 | awk '{ printf "%d,n%d,1.00\n", $1, $1 }'
	printf '9,bad\377\376,1.00\n'
} >"$tmp/utf8.csv"
refuse utf8.csv "utf8.csv: line 150002, column name: invalid UTF-8 (byte 0xFF"
printf '{"id":1,"s":{"a":1,"b":2,"c":3}}\n' >"$tmp/nested.jsonl"
refuse nested.jsonl "the data has column s.c, which the table does not have"

# accepted: RFC 4180 quoting and HALF_UP rounding
printf 'id,name,amount\r\n7,"a ""q"", b",1.239\r\n8,"two\nlines",-1.235\r\n' >"$tmp/good.csv"
"$DL_CLI" write "$t" -i "$tmp/good.csv" -m append >/dev/null 2>"$tmp/err" || fail "good.csv: $(cat "$tmp/err")"
got=$("$DL_CLI" cat "$t" --columns id,amount --format csv --where "id >= 7" | sort)
want=$(printf '7,1.24\n8,-1.24\nid,amount')
[ "$got" = "$want" ] || fail "rounded amounts: got $got"
got=$("$DL_CLI" cat "$t" --columns name --format jsonl --where "id = 8")
[ "$got" = '{"name":"two\nlines"}' ] || fail "multi-line field: got $got"
# with --merge-schema the nested field is added, not dropped
"$DL_CLI" write "$t" -i "$tmp/nested.jsonl" -m append --merge-schema >/dev/null 2>"$tmp/err" ||
	fail "nested merge: $(cat "$tmp/err")"
got=$("$DL_CLI" cat "$t" --columns s --format jsonl --where "id = 1 AND s IS NOT NULL")
[ "$got" = '{"s":{"a":1,"b":2,"c":3}}' ] || fail "merged nested field: got $got"

[ $fails -eq 0 ] && echo "input_errors: every malformed input refused, table unchanged"
exit $((fails > 0))
