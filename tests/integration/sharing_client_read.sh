#!/usr/bin/env bash
# The Delta Sharing client against an independent server
# (sharing_client_fake_server.mjs, answers built per PROTOCOL.md from real
# conformance tables): `sharing list` through paged listings, `cat`,
# `schema` and SQL on PROFILE#share.schema.table with the rows of the table
# read directly, in the parquet format (a partitioned table) and the delta
# format (deletion vectors and column mapping), time travel by version,
# URLs refreshed when expired or refused, an OAuth v2 profile, and one
# clear error line for each bad profile. Needs DL_CLI and node.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
: "${DL_SHARED_DIR:=/work/shared}"
here=$(cd "$(dirname "$0")" && pwd)
command -v node >/dev/null || { echo "SKIP: node not found"; exit 0; }
C=$DL_SHARED_DIR/conformance
D=$DL_CLI
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

parted=$C/kernel-data/basic_partitioned
dvcm=$C/golden/dv-with-columnmapping/delta
cdf=$C/kernel-data/cdf-table
cdfcm=$C/kernel-data/cdf-column-mapping-name-mode
cat >"$tmp/cfg.json" <<EOF
{"token":"tok-1","oauth":{"clientId":"cid","clientSecret":"c-secret"},"tables":[
 {"share":"share1","schema":"default","name":"parted","location":"$parted","format":"parquet","urls":"ok"},
 {"share":"share1","schema":"default","name":"dvcm","location":"$dvcm","format":"delta","urls":"ok"},
 {"share":"share2","schema":"s2","name":"expiring","location":"$parted","format":"parquet","urls":"expired-first"},
 {"share":"share2","schema":"s2","name":"refusing","location":"$dvcm","format":"delta","urls":"refused-first"},
 {"share":"share1","schema":"cdf","name":"cdf","location":"$cdf","format":"parquet","urls":"ok"},
 {"share":"share1","schema":"cdf","name":"cdfcm","location":"$cdfcm","format":"delta","urls":"ok"},
 {"share":"share2","schema":"s2","name":"cdfexp","location":"$cdf","format":"parquet","urls":"expired-first"},
 {"share":"share2","schema":"s2","name":"hostile","location":"$parted","format":"parquet","urls":"file-scheme"}
]}
EOF
node "$here/sharing_client_fake_server.mjs" "$tmp/cfg.json" "$tmp/port" &
pid=$!
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
port=$(cat "$tmp/port") || { echo "FAIL: the fake server did not start"; exit 1; }
ep="http://127.0.0.1:$port/delta-sharing/"
P=$tmp/p.share
printf '{"shareCredentialsVersion":1,"endpoint":"%s","bearerToken":"tok-1"}\n' "$ep" >"$P"

same() { # same NAME SHARED DIRECT [args...]: rows equal, sorted
	local name=$1 shared=$2 direct=$3
	shift 3
	"$D" cat "$shared" --format csv "$@" >"$tmp/a" 2>"$tmp/err" || { fail "$name: $(cat "$tmp/err")"; return; }
	"$D" cat "$direct" --format csv "$@" >"$tmp/b" || { fail "$name: direct read failed"; return; }
	[ "$(wc -l <"$tmp/b")" -gt 1 ] || fail "$name: the direct read has no rows"
	diff <(sort "$tmp/a") <(sort "$tmp/b") >/dev/null || fail "$name: rows differ from the table's"
}

# ---- listings (one item per page: the client follows nextPageToken) ----
"$D" sharing list "$P" --format csv >"$tmp/o" 2>"$tmp/err" || fail "list shares: $(cat "$tmp/err")"
[ "$(cat "$tmp/o")" = "$(printf 'share,id\nshare1,id-share1\nshare2,id-share2')" ] || fail "list shares: $(cat "$tmp/o")"
"$D" sharing list "$P" share1 --format csv >"$tmp/o" 2>&1 || fail "list all tables: $(cat "$tmp/o")"
grep -q '^share1,default,parted,share1.default.parted,' "$tmp/o" && grep -q '^share1,default,dvcm,' "$tmp/o" ||
	fail "list all tables: $(cat "$tmp/o")"
"$D" sharing list "$P" share2.s2 --format csv >"$tmp/o" 2>&1 || fail "list tables: $(cat "$tmp/o")"
[ "$(grep -c '^share2,s2,' "$tmp/o")" = 4 ] || fail "list tables of share2.s2: $(cat "$tmp/o")"
"$D" sharing list "$P" share1 --schemas --format csv >"$tmp/o" 2>&1
[ "$(cat "$tmp/o")" = "$(printf 'share,schema\nshare1,default\nshare1,cdf')" ] || fail "list schemas: $(cat "$tmp/o")"
"$D" sharing list "$P" nosuch >"$tmp/o" 2>&1
[ $? = 1 ] && grep -q 'HTTP 404' "$tmp/o" || fail "an unknown share: $(cat "$tmp/o")"

# ---- reads: parquet format, delta format with DVs and column mapping ----
same "parquet format" "$P#share1.default.parted" "$parted"
same "delta format (DVs, column mapping)" "$P#share1.default.dvcm" "$dvcm"
same "time travel, parquet" "$P#share1.default.parted" "$parted" --version 0
same "time travel, delta" "$P#share1.default.dvcm" "$dvcm" --version 3
same "parquet format asked for" "$P#share1.default.parted" "$parted" --storage-option delta-sharing.response_format=parquet
same "delta format asked for, plain table" "$P#share1.default.parted" "$parted" --storage-option delta-sharing.response_format=delta
"$D" cat "$P#share1.default.dvcm" --storage-option delta-sharing.response_format=parquet >"$tmp/o" 2>&1
[ $? = 1 ] && grep -q 'needs responseformat=delta' "$tmp/o" || fail "a DV table in the parquet format: $(cat "$tmp/o")"
# follow starts with the current rows, as on the table itself (the
# commits after it: sharing_client_follow.sh, against our server).
timeout 60 "$D" follow "$P#share1.default.parted" --max-batches 1 >"$tmp/o" 2>&1 || fail "follow on a shared table: $(head -3 "$tmp/o")"
"$D" follow "$parted" --max-batches 1 >"$tmp/o2" 2>&1
diff <(sort "$tmp/o") <(sort "$tmp/o2") >/dev/null || fail "follow on a shared table: $(diff <(sort "$tmp/o") <(sort "$tmp/o2") | head -3)"
same "projection and filter" "$P#share1.default.dvcm" "$dvcm" --columns col1,part --where "col1 > 20"
"$D" schema "$P#share1.default.dvcm" --format csv >"$tmp/a" 2>&1 || fail "schema: $(cat "$tmp/a")"
"$D" schema "$dvcm" --format csv >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || fail "schema differs from the table's"
got=$("$D" sql "SELECT count(*), sum(col1) FROM delta.\`$P#share1.default.dvcm\`" --format csv 2>&1)
want=$("$D" sql "SELECT count(*), sum(col1) FROM delta.\`$dvcm\`" --format csv 2>&1)
[ "$got" = "$want" ] || fail "SQL on a shared table: $got, want $want"
got=$("$D" sql "SELECT count(*), sum(col1) FROM sharing('$P#share1.default.dvcm')" --format csv 2>&1)
[ "$got" = "$want" ] || fail "sharing() in SQL: $got, want $want"
got=$("$D" sql "SELECT count(*) FROM delta.\`$P#share1.default.dvcm\` VERSION AS OF 3" --format csv 2>&1)
want=$("$D" sql "SELECT count(*) FROM delta.\`$dvcm\` VERSION AS OF 3" --format csv 2>&1)
[ "$got" = "$want" ] || fail "SQL time travel on a shared table: $got, want $want"
"$D" sql "SELECT * FROM sharing('$P#share1.dvcm')" >"$tmp/o" 2>&1
[ $? = 1 ] && grep -q 'share.schema.table' "$tmp/o" || fail "sharing() with a bad name: $(cat "$tmp/o")"
"$D" write "$P#share1.default.parted" -i /dev/null >"$tmp/o" 2>&1 && fail "a write to a shared table succeeded"

# ---- the change data feed (GET .../changes), rows and commit times ----
changes_same() { # NAME SHARED DIRECT [args...]
	local name=$1 shared=$2 direct=$3
	shift 3
	"$D" changes "$shared" --format csv "$@" >"$tmp/a" 2>"$tmp/err" || { fail "$name: $(cat "$tmp/err")"; return; }
	"$D" changes "$direct" --format csv "$@" >"$tmp/b" || { fail "$name: direct read failed"; return; }
	[ "$(wc -l <"$tmp/b")" -gt 1 ] || fail "$name: no changes in the direct read"
	diff <(sort "$tmp/a") <(sort "$tmp/b") >/dev/null || fail "$name: changes differ from the table's"
}
changes_same "changes, parquet format" "$P#share1.cdf.cdf" "$cdf" --from 0
changes_same "changes of a range" "$P#share1.cdf.cdf" "$cdf" --from 1 --to 2
changes_same "changes, delta format (column mapping)" "$P#share1.cdf.cdfcm" "$cdfcm" --from 1
changes_same "changes with expired URLs" "$P#share2.s2.cdfexp" "$cdf" --from 0
"$D" changes "$P#share1.default.parted" --from 0 >"$tmp/o" 2>&1
[ $? = 1 ] && grep -q 'cdf is not enabled' "$tmp/o" || fail "changes of a table without CDF: $(cat "$tmp/o")"
got=$("$D" sql "SELECT _change_type, count(*) FROM table_changes('$P#share1.cdf.cdf', 1, 3) GROUP BY 1 ORDER BY 1" --format csv 2>&1)
want=$("$D" sql "SELECT _change_type, count(*) FROM table_changes('$cdf', 1, 3) GROUP BY 1 ORDER BY 1" --format csv 2>&1)
[ "$got" = "$want" ] || fail "table_changes on a shared table: $got, want $want"

# ---- URLs: expired at once, refused although valid: the client re-queries ----
same "expired URLs" "$P#share2.s2.expiring" "$parted"
same "refused URLs" "$P#share2.s2.refusing" "$dvcm"
curl -s "http://127.0.0.1:$port/_stats" >"$tmp/stats"
node -e 'const s=JSON.parse(require("fs").readFileSync(process.argv[1]));
  if (!(s.expiring >= 2 && s.refusing >= 2 && s.cdfexp >= 2)) { console.error(JSON.stringify(s)); process.exit(1); }' "$tmp/stats" ||
	fail "no re-query after expired or refused URLs: $(cat "$tmp/stats")"

# ---- query pages: this server pages by 2 files whatever maxFiles asks,
# and the client follows its tokens; unpaged (max_files=0) reads the same ----
curl -s "http://127.0.0.1:$port/_pages" >"$tmp/pages"
node -e 'const s=JSON.parse(require("fs").readFileSync(process.argv[1]));
  if (!(s.parted >= 1 && s.dvcm >= 1)) { console.error(JSON.stringify(s)); process.exit(1); }' "$tmp/pages" ||
	fail "the client did not follow the server's query pages: $(cat "$tmp/pages")"
same "unpaged (max_files=0)" "$P#share1.default.parted" "$parted" --storage-option delta-sharing.max_files=0
same "unpaged, delta format" "$P#share1.default.dvcm" "$dvcm" --storage-option delta-sharing.max_files=0
same "pages of one file" "$P#share1.default.parted" "$parted" --storage-option delta-sharing.max_files=1
"$D" cat "$P#share1.default.parted" --storage-option delta-sharing.max_files=x >"$tmp/o" 2>&1
[ $? = 1 ] && grep -q 'delta-sharing.max_files' "$tmp/o" || fail "a bad max_files: $(cat "$tmp/o")"

# a server handing out file:// URLs does not get the recipient's files read
"$D" cat "$P#share2.s2.hostile" >"$tmp/o" 2>&1
[ $? = 1 ] && grep -qi 'protocol' "$tmp/o" || fail "a file:// URL was followed: $(cat "$tmp/o")"

# ---- OAuth client credentials (profile v2) ----
O=$tmp/oauth.share
printf '{"shareCredentialsVersion":2,"type":"oauth_client_credentials","endpoint":"%s","tokenEndpoint":"http://127.0.0.1:%s/oauth/token","clientId":"cid","clientSecret":"c-secret","scope":"sharing"}\n' "$ep" "$port" >"$O"
same "OAuth profile" "$O#share1.default.parted" "$parted"
printf '{"shareCredentialsVersion":2,"type":"oauth_client_credentials","endpoint":"%s","tokenEndpoint":"http://127.0.0.1:%s/oauth/token","clientId":"cid","clientSecret":"wrong"}\n' "$ep" "$port" >"$O"
"$D" sharing list "$O" >"$tmp/o" 2>&1
[ $? = 1 ] && grep -q 'token endpoint refused' "$tmp/o" || fail "bad client secret: $(cat "$tmp/o")"
printf '{"shareCredentialsVersion":2,"type":"bearer_token","endpoint":"%s","bearerToken":"tok-1"}\n' "$ep" >"$O"
"$D" sharing list "$O" >/dev/null 2>"$tmp/err" || fail "v2 bearer profile: $(cat "$tmp/err")"

# ---- bad profiles: one line each, exit 1 ----
bad() { # bad NAME PROFILE_TEXT EXPECTED_SUBSTRING
	printf '%s\n' "$2" >"$tmp/bad.share"
	"$D" cat "$tmp/bad.share#share1.default.parted" >"$tmp/o" 2>"$tmp/err"
	local rc=$?
	[ $rc = 1 ] || fail "$1: exit $rc"
	[ "$(wc -l <"$tmp/err")" = 1 ] || fail "$1: not one line: $(cat "$tmp/err")"
	grep -q -- "$3" "$tmp/err" || fail "$1: $(cat "$tmp/err")"
	[ ! -s "$tmp/o" ] || fail "$1: printed rows"
}
bad "no token" "{\"shareCredentialsVersion\":1,\"endpoint\":\"$ep\"}" '"bearerToken" is missing'
bad "no endpoint" '{"shareCredentialsVersion":1,"bearerToken":"x"}' '"endpoint" is missing'
bad "no version" "{\"endpoint\":\"$ep\",\"bearerToken\":\"x\"}" 'shareCredentialsVersion'
bad "future version" "{\"shareCredentialsVersion\":9,\"endpoint\":\"$ep\",\"bearerToken\":\"x\"}" 'upgrade deltalake'
bad "expired token" "{\"shareCredentialsVersion\":1,\"endpoint\":\"$ep\",\"bearerToken\":\"tok-1\",\"expirationTime\":\"2021-11-12T00:12:29.0Z\"}" 'expired at 2021-11-12'
bad "wrong token" "{\"shareCredentialsVersion\":1,\"endpoint\":\"$ep\",\"bearerToken\":\"nope\"}" 'HTTP 401'
bad "not JSON" 'endpoint=x' 'not JSON'
bad "not http" '{"shareCredentialsVersion":1,"endpoint":"ftp://x","bearerToken":"x"}' 'http(s) URL'
"$D" cat "$P#share1.default.nosuch" >"$tmp/o" 2>&1
[ $? = 1 ] && grep -q 'HTTP 404' "$tmp/o" || fail "an unknown table: $(cat "$tmp/o")"

[ $fails = 0 ] && echo "sharing_client_read: ok"
exit $((fails > 0))
