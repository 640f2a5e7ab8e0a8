#!/usr/bin/env bash
# Post-commit work that fails (issue 17 item 10) is a warning, not silence
# and not a failure: the commit stands (exit 0, the rows are there) and
# stderr says which step failed after which version. A directory in the
# way of the checkpoint makes its write fail as a full disk would (the
# checksum's case, through a failing store: ops/fail_walk_write).
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

t=$tmp/t
printf 'id\n1\n' >"$tmp/a.csv"
"$DL_CLI" write "$t" -i "$tmp/a.csv" --property delta.checkpointInterval=2 >/dev/null 2>"$tmp/err" ||
	fail "create: $(cat "$tmp/err")"
[ -s "$tmp/err" ] && fail "a clean write warned: $(cat "$tmp/err")"

# version 1: an ordinary append, no warning
"$DL_CLI" write "$t" -i "$tmp/a.csv" -m append >/dev/null 2>"$tmp/err" || fail "append: $(cat "$tmp/err")"
[ -s "$tmp/err" ] && fail "a clean append warned: $(cat "$tmp/err")"

# version 2: a checkpoint version whose checkpoint cannot be written
mkdir "$t/_delta_log/00000000000000000002.checkpoint.parquet"
"$DL_CLI" write "$t" -i "$tmp/a.csv" -m append >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] || fail "append with a failing checkpoint exited $rc: $(cat "$tmp/err")"
grep -q "warning: writing the checkpoint after committing version 2 failed" "$tmp/err" ||
	fail "no checkpoint warning naming version 2 in: $(cat "$tmp/err")"
n=$("$DL_CLI" cat "$t" --format csv 2>"$tmp/err" | grep -c '^1$')
[ "$n" = 3 ] || fail "the table reads $n rows of 1, expected 3: $(cat "$tmp/err")"

[ "$fails" -eq 0 ] && echo "post-commit warnings: ok"
exit $((fails > 0))
