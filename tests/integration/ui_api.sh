#!/usr/bin/env bash
# `deltalake ui`'s JSON API with curl (no browser): every endpoint against
# what the CLI commands print and what the log says (ui_api_check.mjs), the
# HTTP rules (GET only: 405; unknown endpoint 404; bad arguments 400; a
# foreign Host refused on loopback; security headers), the query box's
# SELECT-only rule and row limit, the token when bound beyond loopback,
# and the command's usage errors. Tables: a conformance table with deletion
# vectors and partitions, a column-mapped liquid-clustered table built here
# with appends and a DELETE, and the 300k-file bench log (when present).
# Needs DL_CLI, DL_SHARED_DIR, DL_ORACLE_DIR (node).
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
: "${DL_SHARED_DIR:?DL_SHARED_DIR must name the shared directory}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
UI_PID=
trap '[ -n "$UI_PID" ] && kill "$UI_PID" 2>/dev/null; rm -rf "$tmp"' EXIT
G="$DL_SHARED_DIR/conformance/golden"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# Starts `deltalake ui TABLE --port 0 ARGS...`; sets UI_PID and UI_URL.
start_ui() {
	: >"$tmp/ui.out"
	"$DL_CLI" ui "$1" --port 0 "${@:2}" >"$tmp/ui.out" 2>"$tmp/ui.err" &
	UI_PID=$!
	for _ in $(seq 1 600); do
		grep -q 'http://' "$tmp/ui.out" && break
		kill -0 "$UI_PID" 2>/dev/null || break
		sleep 0.1
	done
	UI_URL=$(grep -o 'http://[^ ]*' "$tmp/ui.out" | head -1)
	[ -n "$UI_URL" ] || { fail "deltalake ui $1 printed no URL: $(cat "$tmp/ui.err")"; return 1; }
	UI_BASE=${UI_URL%%\?*}
}
# Stops it with SIGTERM: it must exit 0.
stop_ui() {
	kill -TERM "$UI_PID"
	wait "$UI_PID"
	local rc=$?
	[ "$rc" -eq 0 ] || fail "deltalake ui exited $rc on SIGTERM"
	UI_PID=
}
# get NAME PATH: the body of GET PATH into $d/NAME, which must answer 200.
get() {
	local code
	code=$(curl -s -o "$d/$1" -w '%{http_code}' "${UI_BASE}$2")
	[ "$code" = 200 ] || fail "GET $2 answered $code: $(head -c 300 "$d/$1")"
}
# status WANT [curl args...] URL: the status of a request.
status() {
	local want=$1 code
	shift
	code=$(curl -s -o "$tmp/body" -w '%{http_code}' "$@")
	[ "$code" = "$want" ] || fail "curl $* answered $code, expected $want: $(head -c 300 "$tmp/body")"
}

# Fetches every endpoint of TABLE into $d and runs the checks.
api_checks() {
	local table=$1 from=$2 to=$3 commit=$4 column=${5:-}
	d="$tmp/$(basename "$(dirname "$table")")-$(basename "$table")"
	mkdir -p "$d"
	start_ui "$table" || return
	for e in history detail schema protocol layout; do get "$e.json" "api/$e"; done
	get stats.json api/stats
	[ -n "$column" ] && get overlap.json "api/stats?column=$column"
	local total off=0
	get files-0.json "api/files?offset=0&limit=4"
	total=$(node -e "console.log(JSON.parse(require('fs').readFileSync('$d/files-0.json')).total)")
	while [ $((off += 4)) -lt "$total" ]; do get "files-$off.json" "api/files?offset=$off&limit=4"; done
	get commit.json "api/commit?version=$commit"
	get commit-page.json "api/commit?version=$commit&offset=1&limit=1"
	get diff.json "api/diff?from=$from&to=$to"
	local q
	q=$(node -e "console.log(encodeURIComponent('SELECT count(*) FROM delta.\`$table\`'))")
	get query.json "api/query?sql=$q"
	q=$(node -e "console.log(encodeURIComponent('SELECT * FROM delta.\`$table\`'))")
	get query-limit.json "api/query?sql=$q&limit=2"
	stop_ui
	"$DL_CLI" history "$table" --format json >"$d/cli-history.json"
	"$DL_CLI" detail "$table" --format json >"$d/cli-detail.json"
	"$DL_CLI" schema "$table" --format json >"$d/cli-schema.json"
	"$DL_CLI" protocol "$table" --format json >"$d/cli-protocol.json"
	"$DL_CLI" files "$table" --format json >"$d/cli-files.json"
	"$DL_CLI" files "$table" --version "$from" --format json >"$d/cli-files-from.json"
	"$DL_CLI" files "$table" --version "$to" --format json >"$d/cli-files-to.json"
	node "$here/ui_api_check.mjs" "$d" "$table" || fail "ui_api_check.mjs on $table"
}

# 1. A conformance table: deletion vectors, partitions, 16 commits.
api_checks "$G/dv-partitioned-with-checkpoint/delta" 3 15 1

# 2. Built here: column mapping, liquid clustering on id, nested and
# generated columns, five appends with overlapping id ranges, a DELETE.
T="$tmp/clustered"
"$DL_CLI" create "$T" -q --schema "id BIGINT, name STRING, s STRUCT<a: INT, b: STRING>, id2 BIGINT GENERATED ALWAYS AS (id * 2)" \
	--cluster-by id --property delta.columnMapping.mode=name --property delta.enableDeletionVectors=true >/dev/null ||
	fail "create $T"
for i in 0 1 2 3 4; do
	{
		echo 'id,name'
		for j in $(seq 0 19); do echo "$((i * 10 + j)),n$j"; done
	} >"$tmp/in$i.csv"
	"$DL_CLI" write "$T" -q -i "$tmp/in$i.csv" --mode append >/dev/null || fail "write $i"
done
"$DL_CLI" delete "$T" -q --where "id % 7 = 0" >/dev/null || fail "delete"
api_checks "$T" 2 6 6 id
node -e "
const s = JSON.parse(require('fs').readFileSync('$d/stats.json'));
const c = s.clustering;
if (c.source !== 'clustering' || c.columns.length !== 1 || c.columns[0].column !== 'id' || !(c.columns[0].averageDepth > 1))
  { console.error('FAIL: clustering of $T: ' + JSON.stringify(c)); process.exit(1); }
console.log('ok: /api/stats reports the liquid clustering column id, overlap depth ' + c.columns[0].averageDepth);
" || fail "clustering view"

# 3. HTTP rules, on loopback without a token.
start_ui "$G/dv-partitioned-with-checkpoint/delta"
status 405 -X POST "${UI_BASE}api/history"
status 405 -X PUT "${UI_BASE}api/history"
status 405 -X DELETE "${UI_BASE}"
status 404 "${UI_BASE}api/nothing"
status 404 "${UI_BASE}../../etc/passwd"
status 404 --path-as-is "${UI_BASE}../../etc/passwd"
status 400 "${UI_BASE}api/commit?version=abc"
status 400 "${UI_BASE}api/commit?version=99"
status 400 "${UI_BASE}api/files?limit=0"
status 400 "${UI_BASE}api/diff"
status 400 "${UI_BASE}api/query?sql=SELEC%201"
status 403 "${UI_BASE}api/query?sql=DELETE%20FROM%20delta.%60$G/dv-partitioned-with-checkpoint/delta%60"
status 403 "${UI_BASE}api/query?sql=SELECT%201%3B%20DROP%20TABLE%20x"
status 400 "${UI_BASE}api/query?sql=SELECT%201&limit=100000"
# The query box reads only the table shown: no other table, file or catalog name.
q() { node -e 'console.log(encodeURIComponent(process.argv[1]))' "$1"; }
CT="$G/dv-partitioned-with-checkpoint/delta"
status 403 "${UI_BASE}api/query?sql=$(q 'SELECT * FROM csv.`/etc/passwd`')"
status 403 "${UI_BASE}api/query?sql=$(q "SELECT * FROM delta.\`$G/basic-decimal-table/delta\`")"
status 403 "${UI_BASE}api/query?sql=$(q "SELECT count(*) FROM delta.\`$CT\` WHERE col1 IN (SELECT id FROM parquet.\`/tmp\`)")"
status 403 "${UI_BASE}api/query?sql=$(q 'SELECT * FROM default.t')"
status 403 "${UI_BASE}api/query?sql=$(q "SELECT * FROM table_changes('$CT', 0)")"
status 200 "${UI_BASE}api/query?sql=$(q 'SELECT * FROM range(3)')"
status 200 "${UI_BASE}api/query?sql=$(q "SELECT count(*) FROM delta.\`$CT/./\` VERSION AS OF 3")"
grep -q '"count(1)":' "$tmp/body" || fail "time travel on the shown table: $(cat "$tmp/body")"
status 403 -H 'Host: attacker.example' "${UI_BASE}api/detail"
port=${UI_BASE##*:}
status 200 -H "Host: localhost:${port%/}" "${UI_BASE}api/detail"
status 403 -H "Host: localhost:1" "${UI_BASE}api/detail"
status 200 "${UI_BASE}"
status 200 "${UI_BASE}app.js"
curl -sI "${UI_BASE}" >"$tmp/headers"
grep -qi "^Content-Security-Policy: default-src 'none'" "$tmp/headers" || fail "no CSP header: $(cat "$tmp/headers")"
grep -qi '^X-Content-Type-Options: nosniff' "$tmp/headers" || fail "no nosniff header"
grep -qi '^Content-Type: text/html' "$tmp/headers" || fail "the page is not text/html"
stop_ui

# 4. Bound beyond loopback: the token on every request.
start_ui "$G/dv-partitioned-with-checkpoint/delta" --bind 0.0.0.0
tok=${UI_URL##*token=}
[ ${#tok} -eq 64 ] || fail "the access token '$tok' is not 64 hex digits"
port=${UI_BASE##*:}
B=http://127.0.0.1:${port%/}
status 401 "$B/api/detail"
status 401 "$B/"
# the token with its last digit changed (to another digit, always)
[ "${tok: -1}" = 0 ] && badtok="${tok%?}1" || badtok="${tok%?}0"
status 401 "$B/api/detail?token=$badtok"
status 401 -H "Authorization: Bearer x$tok" "$B/api/detail"
status 200 "$B/api/detail?token=$tok"
status 200 -H "Authorization: Bearer $tok" "$B/api/detail"
status 200 -b "dl_ui_token=$tok" "$B/api/history"
status 401 -b "dl_ui_token=nope" "$B/api/history"
grep -q "$tok" "$tmp/ui.err" && fail "the token was written to stderr"
stop_ui
grep -q 'access token' "$tmp/ui.out" || fail "no note about the token: $(cat "$tmp/ui.out")"

# --open runs xdg-open with the URL.
mkdir -p "$tmp/bin"
printf '#!/bin/sh\necho "$1" > "%s/opened"\n' "$tmp" >"$tmp/bin/xdg-open"
chmod +x "$tmp/bin/xdg-open"
PATH="$tmp/bin:$PATH" start_ui "$G/dv-partitioned-with-checkpoint/delta" --open
for _ in $(seq 1 50); do [ -s "$tmp/opened" ] && break; sleep 0.1; done
[ "$(cat "$tmp/opened" 2>/dev/null)" = "$UI_URL" ] || fail "--open did not run xdg-open $UI_URL: $(cat "$tmp/opened" 2>/dev/null)"
stop_ui

# 5. Usage errors and a missing table.
for args in "--port -1" "--port 70000" "--bind nowhere" "--max-rows 0" "--timeout 0" "--connections 0"; do
	# shellcheck disable=SC2086
	timeout 10 "$DL_CLI" ui "$G/dv-partitioned-with-checkpoint/delta" $args >/dev/null 2>"$tmp/err"
	[ $? -eq 2 ] || fail "deltalake ui $args did not exit 2: $(cat "$tmp/err")"
done
timeout 10 "$DL_CLI" ui "$tmp/nothing-here" --port 0 >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "not a Delta table" "$tmp/err" || fail "a missing table: $(cat "$tmp/err")"
"$DL_CLI" ui --help | grep -q -- '--bind ADDR' || fail "ui --help lacks --bind"

# 6. The 300k-file bench log: the totals add up (no timing asserted).
BENCH="$DL_SHARED_DIR/bench-data/300k-add-files-100-col-partitioned"
if [ -d "$BENCH/_delta_log" ]; then
	d="$tmp/bench"
	mkdir -p "$d"
	start_ui "$BENCH"
	get layout.json api/layout
	get detail.json api/detail
	get files.json "api/files?offset=299900&limit=1000"
	get history.json api/history
	stop_ui
	node -e "
const r = n => JSON.parse(require('fs').readFileSync('$d/' + n));
const L = r('layout.json'), D = r('detail.json')[0], F = r('files.json'), H = r('history.json');
const sum = (xs, f) => xs.reduce((s, x) => s + f(x), 0);
const ok = L.files === D.numFiles && F.total === D.numFiles && F.files.length === D.numFiles - 299900 &&
  sum(L.histogram, b => b.files) === L.files && sum(L.partitions, p => p.files) === L.files && H.length === D.version + 1;
if (!ok) { console.error('FAIL: bench totals: ' + JSON.stringify({ files: L.files, detail: D.numFiles, total: F.total })); process.exit(1); }
console.log('ok: the 300k-file log: ' + L.files + ' files in ' + L.partitionCount + ' partitions, ' + L.histogram.length + ' size buckets');
" || fail "bench totals"
fi

[ $fails -eq 0 ] && echo "ok: deltalake ui JSON API"
exit $((fails > 0))
