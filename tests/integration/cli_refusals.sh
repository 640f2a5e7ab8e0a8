#!/usr/bin/env bash
# Arguments that would silently mean something else are usage errors (exit
# 2, one line naming the option) (issue "Hardening", item 9): a negative
# --version or --limit (-1 is what "not given" is stored as), an empty
# --where, --part-size 0, a negative log retention (Spark's DeltaConfigs
# refuses it; it deleted the history of a table minutes old). Needs DL_CLI.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
t=$tmp/t
printf 'id\n1\n2\n' >"$tmp/a.csv"
"$DL_CLI" write "$t" -i "$tmp/a.csv" >/dev/null && "$DL_CLI" write "$t" -i "$tmp/a.csv" -m append >/dev/null || fail "setup"
state() { (cd "$t" && find . -type f -print0 | sort -z | xargs -0 md5sum); }
usage() { # want text, args...
	local want=$1; shift
	local before
	before=$(state)
	"$DL_CLI" "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ "$rc" -eq 2 ] || fail "deltalake $*: exit $rc, expected 2"
	grep -qF -- "$want" "$tmp/err" || fail "deltalake $*: stderr lacks '$want': $(cat "$tmp/err")"
	[ "$(state)" = "$before" ] || fail "deltalake $*: the table changed"
}
usage "--version expects a number of 0 or more, got '-1'" cat "$t" --version -1
usage "--limit expects a number of 0 or more, got '-1'" history "$t" -n -1
usage "--limit expects a number of 0 or more" cat "$t" --limit -5
usage "--where needs a predicate, got an empty one" cat "$t" --where " "
usage "--where needs a predicate" delete "$t" --where ""
usage "--part-size must be positive, got 0" checkpoint "$t" --part-size 0
usage "retention 'interval -7 days' is negative" cleanup-log "$t" --retention 'interval -7 days'
# what they guard still works
[ "$("$DL_CLI" cat "$t" --version 0 --format csv | tail -n +2 | wc -l)" -eq 2 ] || fail "cat --version 0"
[ "$("$DL_CLI" history "$t" -n 1 --format csv | tail -n +2 | wc -l)" -eq 1 ] || fail "history -n 1"
"$DL_CLI" checkpoint "$t" --part-size 1 >/dev/null 2>&1 || fail "checkpoint --part-size 1"
"$DL_CLI" cat --help | grep -q "(default: -1)" && fail "help shows the -1 of 'not given'"
[ $fails -eq 0 ] && echo "cli_refusals: every ambiguous argument refused"
exit $((fails > 0))
