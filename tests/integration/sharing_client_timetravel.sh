#!/usr/bin/env bash
# Timestamp time travel on shared tables, our client against our server:
# `cat PROFILE#s.sc.t --timestamp TS`, SQL `TIMESTAMP AS OF` and
# `changes --from TS --to TS` give the rows of the same reads of the table
# itself, for times on a commit, between commits, before the first and
# after the last; the client resolves each time through the server (a
# query with "timestamp", GET .../version?startingTimestamp) since the
# shared table lists no commit files, and passes the server's refusals on
# with its message. Needs DL_CLI and DL_SHARED_DIR.
set -uo pipefail
: "${DL_SHARED_DIR:?DL_SHARED_DIR must name the shared directory}"
source "$(dirname "$0")/sharing_server_lib.bash"
D=$DL_CLI
C=$DL_SHARED_DIR/conformance
# Copies whose commits get known times (the reader's commit times are the
# commit files' modification times for tables without in-commit times).
cp -r "$C/golden/time-travel-start-start20-start40/delta" "$tmp/tt"
cp -r "$C/kernel-data/cdf-table" "$tmp/cdf"
chmod -R u+w "$tmp/tt" "$tmp/cdf"
for t in tt cdf; do
	for v in 0 1 2 3; do
		f=$tmp/$t/_delta_log/0000000000000000000$v.json
		[ -f "$f" ] && touch -d "2024-01-0$((v + 1))T00:00:00Z" "$f"
	done
done
token=$("$D" sharing token | awk '/^token:/ {print $2}')
hash=$(echo -n "$token" | sha256sum | awk '{print $1}')
cat >"$tmp/shares.yaml" <<YAML
version: 1
shares:
- name: "s"
  schemas:
  - name: "sc"
    tables:
    - name: "tt"
      location: "$tmp/tt"
      historyShared: true
    - name: "cdf"
      location: "$tmp/cdf"
      historyShared: true
    - name: "nohist"
      location: "$tmp/tt"
recipients:
- name: "r"
  tokenHash: "sha256:$hash"
  shares: ["s"]
YAML
start_server "$tmp/shares.yaml"
P=$tmp/p.share
printf '{"shareCredentialsVersion":1,"endpoint":"%s","bearerToken":"%s"}\n' "$base" "$token" >"$P"

same_cat() { # NAME SHARED DIRECT ARGS...: rows equal (sorted), both reads succeed
	local name=$1 shared=$2 direct=$3
	shift 3
	"$D" cat "$shared" --format csv "$@" >"$tmp/a" 2>"$tmp/err" || { fail "$name: $(cat "$tmp/err")"; return; }
	"$D" cat "$direct" --format csv "$@" >"$tmp/b" 2>"$tmp/err" || { fail "$name: direct: $(cat "$tmp/err")"; return; }
	[ "$(wc -l <"$tmp/b")" -gt 1 ] || fail "$name: the direct read has no rows"
	diff <(sort "$tmp/a") <(sort "$tmp/b") >/dev/null || fail "$name: rows differ: $(diff <(sort "$tmp/a") <(sort "$tmp/b") | head -5)"
}
refused() { # NAME PATTERN CMD...: fails with one line matching PATTERN
	local name=$1 pat=$2
	shift 2
	if "$@" >"$tmp/o" 2>"$tmp/err"; then fail "$name: succeeded: $(head -c 300 "$tmp/o")"; return; fi
	grep -q -- "$pat" "$tmp/err" || fail "$name: the error lacks '$pat': $(cat "$tmp/err")"
	# the server's messages never name its table locations
	grep -qF -e "$tmp/tt" -e "$tmp/cdf" "$tmp/err" && fail "$name: the error names a server path: $(cat "$tmp/err")"
	[ "$(wc -l <"$tmp/err")" = 1 ] || fail "$name: not one error line: $(cat "$tmp/err")"
}

# ---- cat --timestamp: on a commit, between commits (the earlier one) ----
tt="$P#s.sc.tt"
for ts in "2024-01-01 00:00:00" "2024-01-02 00:00:00" "2024-01-02 12:00:00" "2024-01-03T00:00:00Z"; do
	same_cat "cat --timestamp '$ts'" "$tt" "$tmp/tt" --timestamp "$ts"
done
# The versions differ, so the times really select: 3 rows at v0? (the
# table grows each commit) - the counts of v0 and v2 must differ.
"$D" cat "$tt" --timestamp "2024-01-01 00:00:00" --format csv | wc -l >"$tmp/n0"
"$D" cat "$tt" --timestamp "2024-01-03 00:00:00" --format csv | wc -l >"$tmp/n2"
[ "$(cat "$tmp/n0")" != "$(cat "$tmp/n2")" ] || fail "versions 0 and 2 read the same rows ($(cat "$tmp/n0"))"
# The server resolved the time: a query with "timestamp" was sent.
grep -q '"POST /delta-sharing/shares/s/schemas/sc/tables/tt/query" 200' "$tmp/access.log" ||
	fail "no query of tt in the access log"
# Before the first commit and after the last: the server's refusal, named.
refused "before the first commit" "INVALID_PARAMETER_VALUE.*before the earliest version" \
	"$D" cat "$tt" --timestamp "2023-06-01 00:00:00"
refused "after the last commit" "INVALID_PARAMETER_VALUE.*after the latest version" \
	"$D" cat "$tt" --timestamp "2030-01-01 00:00:00"
# A table without history sharing: the server says so.
refused "no history sharing" "history sharing is not enabled" \
	"$D" cat "$P#s.sc.nohist" --timestamp "2024-01-02 00:00:00"
# Without a timestamp it still reads (the latest).
same_cat "nohist latest" "$P#s.sc.nohist" "$tmp/tt"

# ---- SQL TIMESTAMP AS OF ----
for ts in "2024-01-01 00:00:00" "2024-01-02 06:00:00"; do
	"$D" sql "SELECT * FROM delta.\`$tt\` TIMESTAMP AS OF '$ts'" --format csv >"$tmp/a" 2>"$tmp/err" ||
		fail "SQL TIMESTAMP AS OF '$ts': $(cat "$tmp/err")"
	"$D" sql "SELECT * FROM delta.\`$tmp/tt\` TIMESTAMP AS OF '$ts'" --format csv >"$tmp/b" 2>&1 ||
		fail "SQL direct '$ts': $(cat "$tmp/b")"
	diff <(sort "$tmp/a") <(sort "$tmp/b") >/dev/null || fail "SQL TIMESTAMP AS OF '$ts': rows differ"
done
refused "SQL after the last commit" "after the latest version" \
	"$D" sql "SELECT * FROM delta.\`$tt\` TIMESTAMP AS OF '2030-01-01 00:00:00'"

# ---- changes by timestamps ----
cdf="$P#s.sc.cdf"
same_changes() { # NAME ARGS...
	local name=$1
	shift
	"$D" changes "$cdf" --format csv "$@" >"$tmp/a" 2>"$tmp/err" || { fail "changes $name: $(cat "$tmp/err")"; return; }
	"$D" changes "$tmp/cdf" --format csv "$@" >"$tmp/b" 2>"$tmp/err" || { fail "changes $name direct: $(cat "$tmp/err")"; return; }
	[ "$(wc -l <"$tmp/b")" -gt 1 ] || fail "changes $name: the direct read has no rows"
	diff <(sort "$tmp/a") <(sort "$tmp/b") >/dev/null || fail "changes $name: rows differ: $(diff <(sort "$tmp/a") <(sort "$tmp/b") | head -5)"
}
same_changes "from a commit's time" --from "2024-01-02 00:00:00"
same_changes "from between commits" --from "2024-01-01 12:00:00" --to "2024-01-03 12:00:00"
same_changes "to after the last" --from "2024-01-01 00:00:00" --to "2030-01-01 00:00:00"
same_changes "from a version to a time" --from 1 --to "2024-01-02 00:00:00"
grep -q 'GET /delta-sharing/shares/s/schemas/sc/tables/cdf/version' "$tmp/access.log" ||
	fail "the start time was not resolved through GET .../version"
refused "changes from after the last commit" "startingTimestamp .* is after the latest" \
	"$D" changes "$cdf" --from "2030-01-01 00:00:00"
# SQL table_changes with timestamps
"$D" sql "SELECT * FROM table_changes('$cdf', '2024-01-02 00:00:00', '2024-01-03 00:00:00')" --format csv >"$tmp/a" 2>"$tmp/err" ||
	fail "table_changes by timestamps: $(cat "$tmp/err")"
"$D" sql "SELECT * FROM table_changes('$tmp/cdf', '2024-01-02 00:00:00', '2024-01-03 00:00:00')" --format csv >"$tmp/b" 2>&1
diff <(sort "$tmp/a") <(sort "$tmp/b") >/dev/null || fail "table_changes by timestamps: rows differ"

stop_server
[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "sharing client time travel: ok"
