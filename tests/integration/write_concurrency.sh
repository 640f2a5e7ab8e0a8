#!/usr/bin/env bash
# Concurrent `deltalake write` processes on one table:
#  1. 8 processes append 50 commits each (one row per commit): versions
#     1..400 all exist, and every row is there exactly once.
#  2. writers killed with SIGKILL at random moments: the table stays
#     readable, versions stay contiguous, every write reported as done is
#     there exactly once and no row appears twice.
#  3. replaceWhere overwrites of one partition racing each other and appends
#     to another: conflicts are reported with their class, no update is
#     lost, and the appends are never blocked.
# Needs DL_CLI.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

contiguous() { # TABLE LATEST: every commit file 0..LATEST exists
	local t=$1 latest=$2 v
	for ((v = 0; v <= latest; v++)); do
		[ -f "$t/_delta_log/$(printf %020d "$v").json" ] || { fail "$t: commit $v is missing"; return; }
	done
}

# ---- 1. 8 x 50 appends ----
t=$tmp/appends
"$DL_CLI" create "$t" --schema "id BIGINT NOT NULL, writer INT" >/dev/null || fail "create failed"
writer() {
	local w=$1 i
	for ((i = 0; i < 50; i++)); do
		printf 'id,writer\n%d,%d\n' $((w * 1000 + i)) "$w" >"$tmp/in-$w.csv"
		"$DL_CLI" write "$t" -i "$tmp/in-$w.csv" -m append -q >/dev/null 2>"$tmp/err-$w" ||
			{ echo "writer $w commit $i: $(cat "$tmp/err-$w")" >>"$tmp/failures"; }
	done
}
for w in 1 2 3 4 5 6 7 8; do writer "$w" & done
wait
[ -s "$tmp/failures" ] && fail "appends failed: $(head -5 "$tmp/failures")"
latest=$("$DL_CLI" history "$t" -n 1 --format csv | awk -F, 'NR == 2 { print $1 }')
[ "$latest" = 400 ] || fail "latest version is '$latest', expected 400"
contiguous "$t" 400
"$DL_CLI" cat "$t" --columns id --format csv | tail -n +2 | sort >"$tmp/ids"
[ "$(wc -l <"$tmp/ids")" -eq 400 ] || fail "the table has $(wc -l <"$tmp/ids") rows, expected 400"
[ "$(sort -u "$tmp/ids" | wc -l)" -eq 400 ] || fail "duplicate rows after concurrent appends"
for w in 1 2 3 4 5 6 7 8; do
	grep -qx "$((w * 1000 + 49))" "$tmp/ids" || fail "writer $w's last row is missing"
done

# ---- 2. writers killed at random moments ----
k=$tmp/killed
"$DL_CLI" create "$k" --schema "id BIGINT NOT NULL" >/dev/null || fail "create failed"
: >"$tmp/done"
killer_writer() {
	local w=$1 i=0
	while [ ! -f "$tmp/stop" ]; do
		local id=$((w * 100000 + i))
		printf 'id\n%d\n' "$id" >"$tmp/k-$w.csv"
		"$DL_CLI" write "$k" -i "$tmp/k-$w.csv" -m append -q >/dev/null 2>&1 &
		local pid=$!
		echo "$pid" >"$tmp/pid-$w"
		if { wait "$pid"; } 2>/dev/null; then echo "$id" >>"$tmp/done"; fi
		i=$((i + 1))
	done
}
for w in 1 2 3 4; do killer_writer "$w" & done
end=$((SECONDS + 6))
kills=0
while [ "$SECONDS" -lt "$end" ]; do
	sleep 0.0$((RANDOM % 9 + 1))
	w=$((RANDOM % 4 + 1))
	pid=$(cat "$tmp/pid-$w" 2>/dev/null) || continue
	kill -9 "$pid" 2>/dev/null && kills=$((kills + 1))
done
touch "$tmp/stop"
wait
[ "$kills" -gt 0 ] || fail "no writer was killed"
latest=$("$DL_CLI" history "$k" -n 1 --format csv | awk -F, 'NR == 2 { print $1 }')
[ -n "$latest" ] || fail "the table cannot be read after the kills"
contiguous "$k" "${latest:-0}"
"$DL_CLI" cat "$k" --columns id --format csv >"$tmp/all" 2>"$tmp/err" || fail "cat failed: $(cat "$tmp/err")"
tail -n +2 "$tmp/all" | sort >"$tmp/kids"
[ "$(sort -u "$tmp/kids" | wc -l)" -eq "$(wc -l <"$tmp/kids")" ] || fail "a row appears twice"
missing=$(sort "$tmp/done" | comm -23 - "$tmp/kids" | head -3)
[ -z "$missing" ] || fail "reported writes are missing: $missing"
echo "write_concurrency: $kills writers killed, $(wc -l <"$tmp/done") writes reported, $(wc -l <"$tmp/kids") rows, latest version $latest"

# ---- 3. conflicting writers: replaceWhere overwrites of partition a race
# each other (a conflict class or a success, never a lost update) while
# appends into partition b, which no overwrite reads, all succeed ----
c=$tmp/conflicts
"$DL_CLI" create "$c" --schema "id BIGINT, p STRING" --partition-by p >/dev/null || fail "create failed"
printf 'id,p\n0,a\n' >"$tmp/seed.csv"
"$DL_CLI" write "$c" -i "$tmp/seed.csv" -m append -q >/dev/null || fail "seed write failed"
: >"$tmp/conflict-log"
overwriter() {
	local w=$1 i
	for ((i = 0; i < 10; i++)); do
		printf 'id,p\n%d,a\n' $((w * 100 + i)) >"$tmp/o-$w.csv"
		if "$DL_CLI" write "$c" -i "$tmp/o-$w.csv" -m overwrite --replace-where "p = 'a'" -q \
			>/dev/null 2>"$tmp/oe-$w"; then
			echo "ok" >>"$tmp/conflict-log"
		else
			echo "err $(cat "$tmp/oe-$w")" >>"$tmp/conflict-log"
		fi
	done
}
appender() {
	local w=$1 i
	for ((i = 0; i < 10; i++)); do
		printf 'id,p\n%d,b\n' $((1000 + w * 100 + i)) >"$tmp/b-$w.csv"
		"$DL_CLI" write "$c" -i "$tmp/b-$w.csv" -m append -q >/dev/null 2>"$tmp/be-$w" ||
			echo "append $w $i: $(cat "$tmp/be-$w")" >>"$tmp/append-failures"
	done
}
for w in 1 2 3; do overwriter "$w" & done
for w in 1 2 3; do appender "$w" & done
wait
[ -s "$tmp/append-failures" ] && fail "appends to another partition failed: $(head -3 "$tmp/append-failures")"
grep '^err' "$tmp/conflict-log" | grep -v -e 'ConcurrentAppendException' -e 'ConcurrentDeleteReadException' \
	-e 'ConcurrentDeleteDeleteException' -e 'gave up committing' >"$tmp/bad-errors"
[ -s "$tmp/bad-errors" ] && fail "overwrites failed without a conflict class: $(head -3 "$tmp/bad-errors")"
oks=$(grep -c '^ok' "$tmp/conflict-log")
[ "$oks" -ge 1 ] || fail "no overwrite succeeded"
na=$("$DL_CLI" cat "$c" --where "p = 'a'" --format csv | tail -n +2 | wc -l)
[ "$na" -eq 1 ] || fail "partition a has $na rows after the overwrites, expected exactly 1 (a lost update)"
nb=$("$DL_CLI" cat "$c" --where "p = 'b'" --format csv | tail -n +2 | wc -l)
[ "$nb" -eq 30 ] || fail "partition b has $nb rows, expected 30"
echo "write_concurrency: $oks of 30 overwrites committed, $(grep -c '^err' "$tmp/conflict-log") refused by conflict checks"

[ "$fails" -eq 0 ] && echo "write_concurrency: all checks passed"
exit $((fails > 0))
