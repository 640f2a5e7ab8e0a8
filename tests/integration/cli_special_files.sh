#!/usr/bin/env bash
# Only regular files are data files: a table whose add.path names a FIFO,
# a device or a /proc file makes `deltalake cat` fail at once with "not a
# regular file" (exit 1) instead of hanging or reading without end. The
# timeout turns a regression into a failure instead of a hang.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# table NAME PATH: a table with one add naming PATH (relative or absolute).
table() {
	local t="$tmp/$1"
	"$DL_CLI" create "$t" --schema "id BIGINT" >/dev/null || { fail "create $t"; return; }
	printf '%s\n' "{\"add\":{\"path\":\"$2\",\"partitionValues\":{},\"size\":100,\"modificationTime\":1,\"dataChange\":true}}" \
		>"$t/_delta_log/00000000000000000001.json"
}

# refused NAME: cat exits 1 within the timeout with the message.
refused() {
	timeout 10 "$DL_CLI" cat "$tmp/$1" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ "$rc" -eq 124 ] && { fail "cat $1 hung (killed after 10 s)"; return; }
	[ "$rc" -eq 1 ] || fail "cat $1 exited $rc, expected 1 (stderr: $(head -c 300 "$tmp/err"))"
	grep -qF "not a regular file" "$tmp/err" || fail "cat $1: no 'not a regular file' in: $(head -c 300 "$tmp/err")"
}

table fifo pipe.parquet
mkfifo "$tmp/fifo/pipe.parquet"
refused fifo
grep -qF "pipe.parquet" "$tmp/err" || fail "the FIFO error does not name the file: $(cat "$tmp/err")"

table zero /dev/zero
refused zero
table proc /proc/self/status
refused proc

# A regular file still reads (the check refuses nothing else).
"$DL_CLI" create "$tmp/ok" --schema "id BIGINT" >/dev/null
printf 'id\n1\n' >"$tmp/in.csv"
"$DL_CLI" write "$tmp/ok" --mode append -i "$tmp/in.csv" >/dev/null 2>"$tmp/err" || fail "write: $(cat "$tmp/err")"
[ "$(timeout 10 "$DL_CLI" cat "$tmp/ok" --format csv | tail -n 1)" = "1" ] || fail "cat of a regular table"

[ "$fails" -eq 0 ] && echo "special files: all refused"
exit $((fails > 0))
