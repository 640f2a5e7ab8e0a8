#!/usr/bin/env bash
# Concurrent `deltalake write` processes on one table, end to end:
# 8 writers append 50 one-row commits each (400 commits): versions are
# contiguous, every row is read back once by our reader and by DuckDB from
# the data files, and the automatic checkpoints (every 10 versions) are
# there. Then writers are SIGKILLed at random moments: the table stays
# readable at every version and every write that reported success is in
# it. Needs DL_CLI and DL_ORACLE_DIR.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
: "${DL_ORACLE_DIR:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
t=$tmp/t
"$DL_CLI" create "$t" --schema "w INT, i INT, tag STRING" >/dev/null 2>"$tmp/err" || { fail "create: $(cat "$tmp/err")"; exit 1; }

writer() { # writer W N: N appends of one row each
	local w=$1 n=$2 i
	for ((i = 0; i < n; i++)); do
		printf 'w,i,tag\n%d,%d,w%d-%d\n' "$w" "$i" "$w" "$i" >"$tmp/in-$w.csv"
		"$DL_CLI" write "$t" -i "$tmp/in-$w.csv" -m append -q >/dev/null 2>>"$tmp/err-$w" || return 1
	done
}
for w in 0 1 2 3 4 5 6 7; do writer "$w" 50 & done
wfail=0
for job in $(jobs -p); do wait "$job" || wfail=$((wfail + 1)); done
[ "$wfail" -eq 0 ] || fail "$wfail writers failed: $(cat "$tmp"/err-* | head -5)"

last=$(ls "$t/_delta_log" | grep -E '^[0-9]{20}\.json$' | tail -1)
[ "$last" = "00000000000000000400.json" ] || fail "last commit is $last, expected version 400"
n=$(ls "$t/_delta_log" | grep -cE '^[0-9]{20}\.json$')
[ "$n" -eq 401 ] || fail "$n commit files, expected 401 (contiguous 0..400)"
[ -f "$t/_delta_log/00000000000000000400.checkpoint.parquet" ] || fail "no checkpoint at version 400"
grep -q '"version":400,' "$t/_delta_log/_last_checkpoint" || fail "_last_checkpoint: $(cat "$t/_delta_log/_last_checkpoint")"

# every (w, i) exactly once, by our reader ...
"$DL_CLI" cat "$t" --format csv 2>"$tmp/err" | tail -n +2 | sort >"$tmp/rows" || fail "cat: $(cat "$tmp/err")"
for w in 0 1 2 3 4 5 6 7; do for ((i = 0; i < 50; i++)); do echo "$w,$i,w$w-$i"; done; done | sort >"$tmp/want"
cmp -s "$tmp/rows" "$tmp/want" || fail "rows differ: $(diff "$tmp/want" "$tmp/rows" | head -5)"
# ... and by DuckDB from the data files
(cd "$DL_ORACLE_DIR" && node --input-type=module -e "
import {createRequire} from 'module';
const require = createRequire(process.cwd() + '/');
const {DuckDBInstance} = require('@duckdb/node-api');
const con = await (await DuckDBInstance.create(':memory:')).connect();
const r = (await con.runAndReadAll(\"SELECT count(*), count(DISTINCT (w, i)) FROM read_parquet('$t/*.parquet')\")).getRows()[0];
console.log(r.join(' '));
") >"$tmp/duck" 2>&1 || fail "DuckDB: $(cat "$tmp/duck")"
[ "$(cat "$tmp/duck")" = "400 400" ] || fail "DuckDB reads $(cat "$tmp/duck") rows/distinct, expected 400 400"

# SIGKILL: each write runs under `timeout -s KILL` with a random limit of
# 5-150 ms, so writers die at random moments (while writing data files,
# committing, writing the .crc or a checkpoint); what reported success
# must survive.
: >"$tmp/ok"
killer() { # killer W: 40 writes, each killed at a random moment or not
	local w=$1 i ms
	for ((i = 0; i < 40; i++)); do
		printf 'w,i,tag\n%d,%d,k%d-%d\n' $((100 + w)) "$i" "$w" "$i" >"$tmp/k-$w.csv"
		ms=$((RANDOM % 146 + 5))
		timeout -s KILL "0.$(printf '%03d' "$ms")" "$DL_CLI" write "$t" -i "$tmp/k-$w.csv" -m append -q \
			>/dev/null 2>&1 && echo "k$w-$i" >>"$tmp/ok"
	done
}
for w in 0 1 2; do killer "$w" 2>/dev/null & done
wait
last=$(ls "$t/_delta_log" | grep -E '^[0-9]{20}\.json$' | tail -1)
last=$((10#${last%.json}))
n=$(ls "$t/_delta_log" | grep -cE '^[0-9]{20}\.json$')
[ "$n" -eq $((last + 1)) ] || fail "after the kills: $n commit files for versions 0..$last"
"$DL_CLI" cat "$t" --format csv 2>"$tmp/err" | tail -n +2 | cut -d, -f3 | sort >"$tmp/rows" || fail "cat after kills: $(cat "$tmp/err")"
missing=$(sort "$tmp/ok" | comm -23 - "$tmp/rows" | head -3)
[ -z "$missing" ] || fail "reported writes missing: $missing"
rows=$(wc -l <"$tmp/rows")
[ "$rows" -eq $((last)) ] || fail "$rows rows at version $last (one row per commit expected)"
for v in $(seq 0 7 "$last") "$last"; do
	"$DL_CLI" cat "$t" --version "$v" --format csv >/dev/null 2>"$tmp/err" || fail "version $v unreadable: $(cat "$tmp/err")"
done
echo "txn_concurrent_writes: 400 concurrent commits, then $(wc -l <"$tmp/ok") of 120 writes under random SIGKILL reported success (table at version $last); $fails failures"
[ "$fails" -eq 0 ]
