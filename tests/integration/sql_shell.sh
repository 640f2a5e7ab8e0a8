#!/usr/bin/env bash
# The interactive shell of `deltalake sql`, driven through tmux as a user
# would: a statement over several lines (continuation prompt), results, an
# error after which the shell goes on, .tables, .schema, .timer, .format,
# Tab completing a table name, Ctrl-C clearing the line at the prompt and
# cancelling a long query (back to the prompt, the shell alive), Ctrl-D,
# and history kept across runs. Needs DL_CLI and tmux (scripts/install-deps.sh).
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
if ! command -v tmux >/dev/null; then
	echo "FAIL: tmux is not installed; scripts/install-deps.sh installs it" >&2
	exit 1
fi
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
# Under ASan: libedit's own leak at exit (see sql_shell.lsan) is not ours.
lsan="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$here/sql_shell.lsan:print_suppressions=0"
sock=$tmp/tmux.sock
session=dlsql
runs=0
tm() { tmux -S "$sock" "$@"; }
trap 'tm kill-server 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# The pane's text (the whole scrollback).
screen() { tm capture-pane -p -J -S - -t "$session" 2>/dev/null; }
# wait_for TEXT: polls the pane until TEXT shows (a generous bound for a
# loaded machine; not a timing assertion).
wait_for() {
	local i
	for i in $(seq 1 600); do
		screen | grep -qF -- "$1" && return 0
		sleep 0.1
	done
	fail "the shell never showed '$1'; the screen was:
$(screen | tail -n 25)"
	return 1
}
# wait_re REGEX: the same for an extended regular expression, any case.
wait_re() {
	local i
	for i in $(seq 1 600); do
		screen | grep -qEi -- "$1" && return 0
		sleep 0.1
	done
	fail "the shell never showed /$1/; the screen was:
$(screen | tail -n 25)"
	return 1
}
# wait_prompt: polls until the shell waits at an empty prompt (the last
# non-blank line is the bare prompt), so keys typed next go to the line
# editor, not into the echo of a statement still running.
wait_prompt() {
	local i
	for i in $(seq 1 600); do
		[ "$(screen | sed 's/[[:space:]]*$//' | grep -v '^$' | tail -n 1)" = "deltalake>" ] && return 0
		sleep 0.1
	done
	fail "the shell never came back to an empty prompt; the screen was:
$(screen | tail -n 25)"
	return 1
}
# count TEXT: how many lines show TEXT.
count() { screen | grep -cF -- "$1"; }
# wait_count TEXT N: polls until TEXT shows on N lines at least.
wait_count() {
	local i
	for i in $(seq 1 600); do
		[ "$(count "$1")" -ge "$2" ] && return 0
		sleep 0.1
	done
	fail "the shell showed '$1' $(count "$1") times, expected $2; the screen was:
$(screen | tail -n 25)"
	return 1
}
# send_text TEXT: types TEXT (tmux reads an argument's final ';' as its
# command separator: that one goes escaped).
send_text() {
	if [[ $1 == *';' ]]; then
		tm send-keys -t "$session" -l -- "${1%;}"
		tm send-keys -t "$session" -l -- '\;'
	else
		tm send-keys -t "$session" -l -- "$1"
	fi
}
type_line() { send_text "$1"; tm send-keys -t "$session" Enter; }
prompts() { count "deltalake> "; }
start() {
	runs=$((runs + 1))
	session=dlsql$runs
	tm -f /dev/null new-session -d -s "$session" -x 160 -y 50 \
		"env LSAN_OPTIONS='$lsan' HOME='$tmp' DELTALAKE_HISTORY='$tmp/history' TERM=xterm '$DL_CLI' sql --warehouse '$tmp/wh'; echo SHELL-EXITED \$?; sleep 600"
	tm set-option -t "$session" history-limit 10000 >/dev/null
	wait_for "deltalake> "
}

# Tables for the long query, made in batch mode beforehand.
values=$(seq 1 300 | sed 's/.*/(&)/' | paste -sd, -)
"$DL_CLI" sql --warehouse "$tmp/wh" "CREATE TABLE long_b (x INT) USING DELTA; INSERT INTO long_b VALUES $values;
	CREATE TABLE long_a (x INT) USING DELTA; INSERT INTO long_a SELECT a.x FROM long_b a CROSS JOIN long_b b;
	INSERT INTO long_a SELECT * FROM long_a; INSERT INTO long_a SELECT * FROM long_a; INSERT INTO long_a SELECT * FROM long_a" \
	>/dev/null || { echo "FAIL: could not make the tables of the long query" >&2; exit 1; }

start
wait_for ".help for help"

# A statement over three lines: the continuation prompt, then it runs.
type_line "CREATE TABLE shell_test ("
wait_for "      ...> "
type_line "  id BIGINT, name STRING)"
type_line "  USING DELTA;"
wait_count "deltalake> " 2
type_line "INSERT INTO shell_test VALUES (1, 'one'), (2, 'two'), (3, 'three');"
wait_for "num_affected_rows"
type_line "SELECT id, name FROM shell_test WHERE id > 1 ORDER BY id;"
wait_for " 3  three"
screen | grep -q "^ *2  two" || fail "the SELECT did not show row 2"

# An error: one line with its class, and the shell goes on.
type_line "SELECT * FROM no_such_table;"
wait_for "Error: [TABLE_OR_VIEW_NOT_FOUND]"
type_line "SELECT 40 + 2 AS answer;"
wait_for "    42"

# Dot commands.
type_line ".tables"
wait_for "shell_test"
type_line ".schema shell_test"
wait_for "CREATE TABLE"
type_line ".format csv"
type_line "SELECT name FROM shell_test WHERE id = 1;"
wait_for "one"
type_line ".format table"
type_line ".timer on"
type_line "SELECT count(*) AS n FROM shell_test;"
wait_for "Run Time: real "
type_line ".timer off"
type_line ".nonsense"
wait_for "Error: unknown command .nonsense"

# Tab completes the table name (one candidate: the name and a space).
wait_prompt
send_text "SELECT count(*) AS tabbed FROM shell_te"
tm send-keys -t "$session" Tab
wait_for "FROM shell_test "
type_line ";"
wait_for "tabbed"
# ... a column of the table the statement names ...
wait_prompt
send_text "SELECT id FROM shell_test WHERE na"
tm send-keys -t "$session" Tab
wait_for "WHERE name "
type_line "= 'two';"
wait_for "deltalake> SELECT id FROM shell_test WHERE name = 'two';"
# ... several candidates: their common prefix, then the list under the line.
wait_prompt
send_text "SELECT * FROM lo"
tm send-keys -t "$session" Tab
wait_for "FROM long_"
tm send-keys -t "$session" Tab
wait_for "long_a  long_b"
tm send-keys -t "$session" C-c
# ... and keywords in the case typed.
wait_prompt
send_text "sel"
tm send-keys -t "$session" Tab
wait_for "deltalake> select "
tm send-keys -t "$session" C-c

# Ctrl-C at the prompt drops the line, also a half-typed statement.
wait_prompt
before=$(prompts)
send_text "SELECT 'never run' AS dropped"
tm send-keys -t "$session" C-c
wait_count "deltalake> " $((before + 1))
type_line "SELECT 'after ctrl-c' AS"
type_line "  note;"
wait_for "after ctrl-c"
[ "$(count "dropped")" -le 1 ] || fail "a line dropped by Ctrl-C ran"

# Ctrl-C during a long query cancels it, not the shell: a cross join of
# 720k by 300 by 300 rows takes minutes (720k by 300 alone took 0.65 s,
# done before the Ctrl-C; the engine checks the interrupt between batches
# of its scans).
wait_prompt
before=$(prompts)
type_line "SELECT count(*) AS never FROM long_a CROSS JOIN long_b CROSS JOIN long_b c;"
sleep 1
tm send-keys -t "$session" C-c
wait_re "^Error: .*(cancel|interrupt)"
wait_count "deltalake> " $((before + 1))
screen | grep -q "SHELL-EXITED" && fail "Ctrl-C during a query ended the shell"
wait_prompt
type_line "SELECT 'still here' AS alive;"
wait_for "still here"

# Ctrl-D leaves with status 0.
tm send-keys -t "$session" C-d
wait_for "SHELL-EXITED 0"
# libedit's file escapes blanks (\040) as vis(3) does.
sed 's/\\040/ /g' "$tmp/history" >"$tmp/history.txt"
grep -qF "SELECT id, name FROM shell_test WHERE id > 1 ORDER BY id;" "$tmp/history.txt" ||
	fail "the history file lacks the SELECT: $(head -c 600 "$tmp/history.txt")"
grep -qF "CREATE TABLE shell_test (   id BIGINT, name STRING)   USING DELTA;" "$tmp/history.txt" ||
	fail "the multi-line CREATE TABLE is not one history entry"
grep -qF "dropped" "$tmp/history.txt" && fail "a line dropped by Ctrl-C went into the history"

# A new shell has the history: Up recalls the last statement.
start
tm send-keys -t "$session" Up
wait_for "deltalake> SELECT 'still here' AS alive;"
tm send-keys -t "$session" Enter
wait_for "still here"
type_line ".quit"
wait_for "SHELL-EXITED 0"

[ $fails -eq 0 ] && echo "ok: deltalake sql shell"
exit $((fails > 0))
