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
tmp=$(mktemp -d)
sock=$tmp/tmux.sock
session=dlsql
tm() { tmux -S "$sock" "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
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
	tm -f /dev/null new-session -d -s "$session" -x 160 -y 50 \
		"env HOME='$tmp' DELTALAKE_HISTORY='$tmp/history' TERM=xterm '$DL_CLI' sql --warehouse '$tmp/wh'; echo SHELL-EXITED \$?; sleep 600"
	tm set-option -t "$session" history-limit 10000 >/dev/null
	wait_for "deltalake> "
}

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
wait_for "  3  three"
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
send_text "SELECT count(*) AS tabbed FROM shell_te"
tm send-keys -t "$session" Tab
wait_for "FROM shell_test "
type_line ";"
wait_for "tabbed"
# ... and keywords in the case typed.
send_text "sel"
tm send-keys -t "$session" Tab
wait_for "deltalake> select "
tm send-keys -t "$session" C-c

# Ctrl-C at the prompt drops the line, also a half-typed statement.
before=$(prompts)
send_text "SELECT 'never run' AS dropped"
tm send-keys -t "$session" C-c
wait_count "deltalake> " $((before + 1))
type_line "SELECT 'after ctrl-c' AS"
type_line "  note;"
wait_for "after ctrl-c"
[ "$(count "dropped")" -le 1 ] || fail "a line dropped by Ctrl-C ran"

# Ctrl-C during a long query cancels it, not the shell.
values=$(seq 1 300 | sed 's/.*/(&)/' | paste -sd, -)
type_line "CREATE TABLE big (x INT) USING DELTA;"
type_line "INSERT INTO big VALUES $values;"
wait_count "num_affected_rows" 2
before=$(prompts)
type_line "SELECT count(*) AS never FROM big a CROSS JOIN big b CROSS JOIN big c CROSS JOIN big d;"
sleep 1
tm send-keys -t "$session" C-c
wait_count "deltalake> " $((before + 1))
wait_for "Error: "
screen | grep -q "SHELL-EXITED" && fail "Ctrl-C during a query ended the shell"
type_line "SELECT 'still here' AS alive;"
wait_for "still here"

# Ctrl-D leaves with status 0.
tm send-keys -t "$session" C-d
wait_for "SHELL-EXITED 0"
grep -qF "SELECT id, name FROM shell_test WHERE id > 1 ORDER BY id;" "$tmp/history" ||
	fail "the history file lacks the SELECT: $(cat "$tmp/history" 2>/dev/null | head -c 600)"
grep -qF "CREATE TABLE shell_test (   id BIGINT, name STRING)   USING DELTA;" "$tmp/history" ||
	fail "the multi-line CREATE TABLE is not one history entry"
grep -qF "dropped" "$tmp/history" && fail "a line dropped by Ctrl-C went into the history"

# A new shell has the history: Up recalls the last statement.
tm kill-session -t "$session"
start
tm send-keys -t "$session" Up
wait_for "deltalake> SELECT 'still here' AS alive;"
tm send-keys -t "$session" Enter
wait_for "still here"
type_line ".quit"
wait_for "SHELL-EXITED 0"

[ $fails -eq 0 ] && echo "ok: deltalake sql shell"
exit $((fails > 0))
