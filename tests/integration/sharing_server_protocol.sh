#!/usr/bin/env bash
# `deltalake sharing serve` spoken to by curl only, every endpoint of
# PROTOCOL.md (delta-io/delta-sharing) checked against its rules: status
# codes, Content-Type and Delta-Table-Version headers, the JSON of the
# lists (items, nextPageToken paging, maxResults 0), the NDJSON lines of
# metadata/query/changes (protocol, then metaData, then file/add/cdf/remove
# lines, one wrapper field per line; sharing_server_check.mjs), hints that
# prune files, limitHint, time travel, startingVersion, both response
# formats, includeEndStreamAction and the error bodies. Needs DL_CLI,
# DL_SHARED_DIR and DL_ORACLE_DIR.
set -uo pipefail
: "${DL_SHARED_DIR:?DL_SHARED_DIR must name the shared directory}"
: "${DL_ORACLE_DIR:?DL_ORACLE_DIR must name tools/oracle}"
source "$(dirname "$0")/sharing_server_lib.bash"
export DL_ORACLE_DIR
G="$DL_SHARED_DIR/conformance/golden"
K="$DL_SHARED_DIR/conformance/kernel-data"
cat >"$tmp/shares.yaml" <<YAML
# the reference server's format, with its single token
version: 1
shares:
- name: "share1"
  schemas:
  - name: "s1"
    tables:
    - name: "part"
      location: "$K/basic_partitioned"
      id: "00000000-0000-0000-0000-000000000001"
    - name: "tt"
      location: "$G/time-travel-start-start20-start40/delta"
      historyShared: true
    - name: "cdf"
      location: "$K/cdf-table"
      historyShared: true
    - name: "filtered"
      location: "$K/basic_partitioned"
      historyShared: true
      partitionFilter: "letter = 'a'"
    - name: "cdffiltered"
      location: "$K/cdf-table"
      historyShared: true
      partitionFilter: "birthday = '2023-12-23'"
  - name: "s2"
    tables:
    - name: "dec"
      location: "$G/basic-decimal-table/delta"
    - name: "dv"
      location: "$G/dv-with-columnmapping/delta"
- name: "share2"
  id: "edacc4a7-6600-4fbb-85f3-a62a5ce6761f"
  schemas: []
authorization:
  bearerToken: "token-of-the-reference-format"
host: "localhost"
port: 8080
endpoint: "/delta-sharing"
preSignedUrlTimeoutSeconds: 900
deltaTableCacheSize: 10
stalenessAcceptable: false
evaluatePredicateHints: false
maxRequestBodyBytes: 4096
YAML
start_server "$tmp/shares.yaml"
A="Authorization: Bearer token-of-the-reference-format"
T="$base/shares/share1/schemas/s1/tables"
J='Content-Type: application/json; charset=utf-8'
json_ct() { header "$1.h" content-type | grep -qx 'application/json; charset=utf-8' || fail "$2: Content-Type $(header "$1.h" content-type)"; }
nd_ct() { header "$1.h" content-type | grep -qx 'application/x-ndjson; charset=utf-8' || fail "$2: Content-Type $(header "$1.h" content-type)"; }
has() { grep -qF -- "$2" "$1" || fail "$3: lacks $2: $(head -c 300 "$1")"; }
hasnt() { grep -qF -- "$2" "$1" && fail "$3: has $2: $(head -c 300 "$1")"; }
version_is() { [ "$(header "$1.h" delta-table-version)" = "$2" ] || fail "$3: Delta-Table-Version '$(header "$1.h" delta-table-version)', expected $2"; }
lines_ok() { # FILE FORMAT KINDS...: checks and leaves the file count in $nfiles
	local f=$1; shift
	check lines "$f" "$@" >"$f.check" 2>"$f.err" || fail "$f: $(cat "$f.err")"
	nfiles=$(sed -n 's/^files=//p' "$f.check")
}

# ---- List Shares: items, ids, paging, maxResults 0, bad parameters
st=$(req "$tmp/r" -H "$A" "$base/shares"); status_is "$st" 200 shares "$tmp/r"; json_ct "$tmp/r" shares
[ "$(cat "$tmp/r")" = '{"items":[{"name":"share1"},{"name":"share2","id":"edacc4a7-6600-4fbb-85f3-a62a5ce6761f"}]}' ] || fail "shares: $(cat "$tmp/r")"
st=$(req "$tmp/r" -H "$A" "$base/shares?maxResults=1"); status_is "$st" 200 "shares page 1" "$tmp/r"
[ "$(cat "$tmp/r")" = '{"items":[{"name":"share1"}],"nextPageToken":"1"}' ] || fail "shares page 1: $(cat "$tmp/r")"
st=$(req "$tmp/r" -H "$A" "$base/shares?maxResults=1&pageToken=1"); status_is "$st" 200 "shares page 2" "$tmp/r"
has "$tmp/r" '"name":"share2"' "shares page 2"; hasnt "$tmp/r" nextPageToken "shares page 2"
st=$(req "$tmp/r" -H "$A" "$base/shares?maxResults=0"); status_is "$st" 200 "maxResults=0" "$tmp/r"
[ "$(cat "$tmp/r")" = '{"items":[],"nextPageToken":"0"}' ] || fail "maxResults=0: $(cat "$tmp/r")"
for bad in "maxResults=-1" "maxResults=abc" "maxResults=99999999999" "pageToken=zzz" "pageToken=9"; do
	st=$(req "$tmp/r" -H "$A" "$base/shares?$bad"); status_is "$st" 400 "$bad" "$tmp/r"; error_body "$tmp/r" "$bad"
done

# ---- Get Share (names are case-insensitive)
st=$(req "$tmp/r" -H "$A" "$base/shares/share2"); status_is "$st" 200 "get share" "$tmp/r"; json_ct "$tmp/r" "get share"
[ "$(cat "$tmp/r")" = '{"share":{"name":"share2","id":"edacc4a7-6600-4fbb-85f3-a62a5ce6761f"}}' ] || fail "get share: $(cat "$tmp/r")"
st=$(req "$tmp/r" -H "$A" "$base/shares/SHARE1"); status_is "$st" 200 "get SHARE1" "$tmp/r"
st=$(req "$tmp/r" -H "$A" "$base/shares/nope"); status_is "$st" 404 "missing share" "$tmp/r"; error_body "$tmp/r" "missing share"

# ---- schemas, tables, all-tables
st=$(req "$tmp/r" -H "$A" "$base/shares/share1/schemas"); status_is "$st" 200 schemas "$tmp/r"; json_ct "$tmp/r" schemas
[ "$(cat "$tmp/r")" = '{"items":[{"name":"s1","share":"share1"},{"name":"s2","share":"share1"}]}' ] || fail "schemas: $(cat "$tmp/r")"
st=$(req "$tmp/r" -H "$A" "$base/shares/share2/schemas"); status_is "$st" 200 "empty schemas" "$tmp/r"
[ "$(cat "$tmp/r")" = '{"items":[]}' ] || fail "empty schemas: $(cat "$tmp/r")"
st=$(req "$tmp/r" -H "$A" "$T"); status_is "$st" 200 tables "$tmp/r"; json_ct "$tmp/r" tables
has "$tmp/r" '{"name":"part","schema":"s1","share":"share1","id":"00000000-0000-0000-0000-000000000001"}' tables
[ "$(grep -o '"name"' "$tmp/r" | wc -l)" -eq 5 ] || fail "tables of s1: $(cat "$tmp/r")"
st=$(req "$tmp/r" -H "$A" "$base/shares/share1/all-tables?maxResults=4"); status_is "$st" 200 all-tables "$tmp/r"
[ "$(grep -o '"name"' "$tmp/r" | wc -l)" -eq 4 ] || fail "all-tables page 1: $(cat "$tmp/r")"
has "$tmp/r" '"nextPageToken":"4"' all-tables
st=$(req "$tmp/r" -H "$A" "$base/shares/share1/all-tables?maxResults=4&pageToken=4"); status_is "$st" 200 "all-tables 2" "$tmp/r"
[ "$(grep -o '"name"' "$tmp/r" | wc -l)" -eq 3 ] || fail "all-tables page 2: $(cat "$tmp/r")"; hasnt "$tmp/r" nextPageToken "all-tables 2"
has "$tmp/r" '{"name":"dv","schema":"s2","share":"share1"}' "all-tables 2"
st=$(req "$tmp/r" -H "$A" "$base/shares/share1/schemas/nope/tables"); status_is "$st" 404 "missing schema" "$tmp/r"

# ---- Query Table Version (GET .../version and the deprecated HEAD)
st=$(req "$tmp/r" -H "$A" "$T/tt/version"); status_is "$st" 200 version "$tmp/r"; version_is "$tmp/r" 2 version
[ -s "$tmp/r" ] && fail "version: the body must be empty"
st=$(curl -s -I -o /dev/null -D "$tmp/h.h" -w '%{http_code}' -H "$A" "$T/tt"); status_is "$st" 200 HEAD "$tmp/h"
version_is "$tmp/h" 2 HEAD
st=$(req "$tmp/r" -H "$A" "$T/tt/version?startingTimestamp=2000-01-01%2000:00:00"); status_is "$st" 200 "version by ts" "$tmp/r"
version_is "$tmp/r" 0 "startingTimestamp before the first commit"
st=$(req "$tmp/r" -H "$A" "$T/tt/version?startingTimestamp=not-a-time"); status_is "$st" 400 "bad ts" "$tmp/r"; error_body "$tmp/r" "bad ts"
st=$(req "$tmp/r" -H "$A" "$T/nope/version"); status_is "$st" 404 "missing table" "$tmp/r"; error_body "$tmp/r" "missing table"

# ---- Query Table Metadata: protocol then metaData
st=$(req "$tmp/m" -H "$A" "$T/part/metadata"); status_is "$st" 200 metadata "$tmp/m"; nd_ct "$tmp/m" metadata
version_is "$tmp/m" 1 metadata
lines_ok "$tmp/m" parquet; [ "$nfiles" = 0 ] || fail "metadata has file lines"
[ "$(wc -l <"$tmp/m")" -eq 2 ] || fail "metadata: $(wc -l <"$tmp/m") lines, expected 2"
has "$tmp/m" '"partitionColumns":["letter"]' metadata
has "$tmp/m" '"numFiles":' metadata

# ---- Read Data from a Table
all=$("$DL_CLI" files "$K/basic_partitioned" --format csv | tail -n +2 | wc -l)
st=$(req "$tmp/q" -X POST -H "$A" -H "$J" -d '{}' "$T/part/query"); status_is "$st" 200 query "$tmp/q"; nd_ct "$tmp/q" query
version_is "$tmp/q" 1 query
lines_ok "$tmp/q" parquet; [ "$nfiles" = "$all" ] || fail "query: $nfiles files, the table has $all"
hasnt "$tmp/q" '"version":' "query without time travel"
# an empty body is the same as {}
st=$(req "$tmp/q0" -X POST -H "$A" "$T/part/query"); status_is "$st" 200 "query without body" "$tmp/q0"
lines_ok "$tmp/q0" parquet; [ "$nfiles" = "$all" ] || fail "query without body: $nfiles files"
# predicateHints prune by partition values; a hint that does not bind is skipped
na=$("$DL_CLI" -q files "$K/basic_partitioned" --where "letter = 'a'" --format csv | tail -n +2 | wc -l)
st=$(req "$tmp/q" -X POST -H "$A" -H "$J" -d "{\"predicateHints\":[\"letter = 'a'\"]}" "$T/part/query")
status_is "$st" 200 predicateHints "$tmp/q"; lines_ok "$tmp/q" parquet
[ "$nfiles" = "$na" ] && [ "$na" -lt "$all" ] || fail "predicateHints: $nfiles files, expected $na of $all"
grep '"file"' "$tmp/q" | grep -vqF '"letter":"a"' && fail "predicateHints kept another partition"
st=$(req "$tmp/q" -X POST -H "$A" -H "$J" -d "{\"predicateHints\":[\"no_such_column = 1\", \"letter = 'a'\"]}" "$T/part/query")
lines_ok "$tmp/q" parquet; [ "$nfiles" = "$na" ] || fail "a bad hint beside a good one: $nfiles files, expected $na"
st=$(req "$tmp/q" -X POST -H "$A" -H "$J" -d '{"predicateHints":["))syntax("]}' "$T/part/query")
lines_ok "$tmp/q" parquet; [ "$nfiles" = "$all" ] || fail "an unparsable hint: $nfiles files, expected all $all"
# jsonPredicateHints (PROTOCOL.md's JSON predicate format)
jp='{"op":"equal","children":[{"op":"column","name":"letter","valueType":"string"},{"op":"literal","value":"a","valueType":"string"}]}'
body=$(printf '{"jsonPredicateHints":%s}' "$(printf '%s' "$jp" | sed 's/"/\\"/g; s/^/"/; s/$/"/')")
st=$(req "$tmp/q" -X POST -H "$A" -H "$J" -d "$body" "$T/part/query"); status_is "$st" 200 jsonPredicateHints "$tmp/q"
lines_ok "$tmp/q" parquet; [ "$nfiles" = "$na" ] || fail "jsonPredicateHints: $nfiles files, expected $na"
st=$(req "$tmp/q" -X POST -H "$A" -H "$J" -d '{"jsonPredicateHints":"{\"op\":\"bogus\"}"}' "$T/part/query")
lines_ok "$tmp/q" parquet; [ "$nfiles" = "$all" ] || fail "a bad jsonPredicateHints must return all files"
# limitHint: the stats say each file has 1 row
st=$(req "$tmp/q" -X POST -H "$A" -H "$J" -d '{"limitHint":2}' "$T/part/query"); lines_ok "$tmp/q" parquet
[ "$nfiles" = 2 ] || fail "limitHint 2: $nfiles files"
# time travel: version and timestamp (historyShared tables only)
st=$(req "$tmp/q" -X POST -H "$A" -H "$J" -d '{"version":0}' "$T/tt/query"); status_is "$st" 200 "version 0" "$tmp/q"
version_is "$tmp/q" 0 "query version 0"; lines_ok "$tmp/q" parquet
v0=$("$DL_CLI" files "$G/time-travel-start-start20-start40/delta" --version 0 --format csv | tail -n +2 | wc -l)
[ "$nfiles" = "$v0" ] || fail "version 0: $nfiles files, expected $v0"
sed -n 2p "$tmp/q" | grep -q '"version":0' || fail "metaData of a version query lacks its version"
grep '"file"' "$tmp/q" | grep -vq '"version":0,"timestamp":' && fail "files of a version query lack version/timestamp"
st=$(req "$tmp/q" -X POST -H "$A" -H "$J" -d '{"timestamp":"2999-01-01 00:00:00"}' "$T/tt/query")
status_is "$st" 400 "timestamp after the last commit" "$tmp/q"; error_body "$tmp/q" "future timestamp"
# the reason is given, the table's location (a server path) never
grep -q 'after the latest version' "$tmp/q" || fail "future timestamp: no reason: $(cat "$tmp/q")"
grep -qF "$G" "$tmp/q" && fail "future timestamp: the error names the table's location: $(cat "$tmp/q")"
st=$(req "$tmp/q" -X POST -H "$A" -H "$J" -d '{"timestamp":"1999-01-01 00:00:00"}' "$T/tt/query")
status_is "$st" 400 "timestamp before the first commit" "$tmp/q"; error_body "$tmp/q" "past timestamp"
grep -q 'before the earliest version' "$tmp/q" || fail "past timestamp: no reason: $(cat "$tmp/q")"
grep -qF "$G" "$tmp/q" && fail "past timestamp: the error names the table's location: $(cat "$tmp/q")"
st=$(req "$tmp/q" -X POST -H "$A" -H "$J" -d '{"version":0}' "$T/part/query"); status_is "$st" 400 "no history" "$tmp/q"
error_body "$tmp/q" "time travel without historyShared"
st=$(req "$tmp/q" -X POST -H "$A" -H "$J" -d '{"version":99}' "$T/tt/query"); status_is "$st" 400 "version 99" "$tmp/q"
# startingVersion: data change files since, with historical metadata
st=$(req "$tmp/q" -X POST -H "$A" -H "$J" -d '{"startingVersion":1}' "$T/tt/query"); status_is "$st" 200 startingVersion "$tmp/q"
version_is "$tmp/q" 1 startingVersion; lines_ok "$tmp/q" parquet add remove metaData
grep -q '^{"add":' "$tmp/q" || fail "startingVersion: no add lines"
grep '^{"add":' "$tmp/q" | grep -q '"version":0,' && fail "startingVersion 1 returned version 0's adds"
st=$(req "$tmp/q" -X POST -H "$A" -H "$J" -d '{"startingVersion":0,"includeHistoricalProtocol":true}' "$T/tt/query")
status_is "$st" 200 includeHistoricalProtocol "$tmp/q"; lines_ok "$tmp/q" parquet add remove metaData protocol
tail -n +3 "$tmp/q" | grep -q '^{"protocol":{"minReaderVersion":1,"version":0}}$' || fail "no historical protocol line"
st=$(req "$tmp/q" -X POST -H "$A" -H "$J" -d '{"startingVersion":0}' "$T/tt/query")
tail -n +3 "$tmp/q" | grep -q '^{"protocol"' && fail "a historical protocol line without includeHistoricalProtocol"
# delta response format, includeEndStreamAction
st=$(req "$tmp/q" -X POST -H "$A" -H "$J" -H "delta-sharing-capabilities: responseformat=delta;includeendstreamaction=true" -d '{}' "$T/part/query")
status_is "$st" 200 "delta format" "$tmp/q"
[ "$(header "$tmp/q.h" delta-sharing-capabilities)" = "responseformat=delta;includeendstreamaction=true" ] ||
	fail "capabilities answer: $(header "$tmp/q.h" delta-sharing-capabilities)"
lines_ok "$tmp/q" delta file endStreamAction; [ "$nfiles" = "$all" ] || fail "delta format: $nfiles files"
tail -1 "$tmp/q" | grep -q '^{"endStreamAction":{"minUrlExpirationTimestamp":[0-9]*}}$' || fail "no endStreamAction line"
# maxFiles / pageToken: pages of 2 files, each ending with an endStreamAction
# carrying the next token; together exactly the unpaged files, in order
st=$(req "$tmp/q" -X POST -H "$A" -H "$J" -d '{}' "$T/part/query"); grep -o '"id":"[0-9a-f]*"' <(grep '^{"file"' "$tmp/q") >"$tmp/ids.all"
[ "$all" -gt 2 ] || fail "paging: the part table has only $all files"
: >"$tmp/ids.paged"; tok=""; pages=0
while :; do
	body='{"maxFiles":2'${tok:+,\"pageToken\":\"$tok\"}'}'
	st=$(req "$tmp/p" -X POST -H "$A" -H "$J" -d "$body" "$T/part/query"); status_is "$st" 200 "page $pages" "$tmp/p"
	lines_ok "$tmp/p" parquet file endStreamAction; [ "$nfiles" -le 2 ] || fail "page $pages: $nfiles files"
	grep -o '"id":"[0-9a-f]*"' <(grep '^{"file"' "$tmp/p") >>"$tmp/ids.paged"
	pages=$((pages + 1)); [ "$pages" -le 100 ] || { fail "paging does not end"; break; }
	tok=$(tail -1 "$tmp/p" | sed -n 's/^{"endStreamAction":{"nextPageToken":"\([^"]*\)",.*/\1/p')
	[ -n "$tok" ] || break
done
[ "$pages" -eq $(( (all + 1) / 2 )) ] || fail "paging: $pages pages for $all files"
cmp -s "$tmp/ids.all" "$tmp/ids.paged" || fail "paged files differ from the unpaged list"
for bad in '{"maxFiles":0}' '{"maxFiles":2,"pageToken":"x"}' '{"maxFiles":2,"pageToken":"999_0"}'; do
	st=$(req "$tmp/p" -X POST -H "$A" -H "$J" -d "$bad" "$T/part/query"); status_is "$st" 400 "paging $bad" "$tmp/p"; error_body "$tmp/p" "paging $bad"
done
# a table with deletion vectors and column mapping: parquet refused, delta served
st=$(req "$tmp/q" -X POST -H "$A" -H "$J" -d '{}' "$base/shares/share1/schemas/s2/tables/dv/query")
status_is "$st" 400 "dv table in parquet format" "$tmp/q"; error_body "$tmp/q" "dv parquet"
st=$(req "$tmp/q" -X POST -H "$A" -H "$J" -H "delta-sharing-capabilities: responseformat=delta,parquet;readerfeatures=deletionvectors,columnmapping" -d '{}' "$base/shares/share1/schemas/s2/tables/dv/query")
status_is "$st" 200 "dv table, delta chosen" "$tmp/q"; lines_ok "$tmp/q" delta
[ "$(header "$tmp/q.h" delta-sharing-capabilities)" = "responseformat=delta" ] || fail "the server should pick delta for a DV table"
# parquet chosen when both are offered and the table needs nothing else
st=$(req "$tmp/q" -X POST -H "$A" -H "$J" -H "delta-sharing-capabilities: responseformat=delta,parquet" -d '{}' "$T/part/query")
[ "$(header "$tmp/q.h" delta-sharing-capabilities)" = "responseformat=parquet" ] || fail "the server should pick parquet"

# partitionFilter is enforced: no hint, version or format reaches other partitions
for body in '{}' "{\"predicateHints\":[\"letter = 'e' OR true\"]}" '{"version":0}' '{"limitHint":100}'; do
	st=$(req "$tmp/q" -X POST -H "$A" -H "$J" -d "$body" "$T/filtered/query"); status_is "$st" 200 "filtered $body" "$tmp/q"
	lines_ok "$tmp/q" parquet
	[ "$nfiles" -ge 1 ] || fail "filtered $body: no files"
	grep '^{"file"' "$tmp/q" | grep -vqF '"letter":"a"' && fail "filtered $body: a file of another partition"
done
st=$(req "$tmp/q" -X POST -H "$A" -H "$J" -H "delta-sharing-capabilities: responseformat=delta" -d '{}' "$T/filtered/query")
grep '^{"file"' "$tmp/q" | grep -vqF '"letter":"a"' && fail "filtered, delta format: a file of another partition"
# ... and in the streaming form of query and in changes, action by action
st=$(req "$tmp/q" -X POST -H "$A" -H "$J" -d '{"startingVersion":0}' "$T/filtered/query"); status_is "$st" 200 "filtered startingVersion" "$tmp/q"
lines_ok "$tmp/q" parquet add remove metaData
grep -q '^{"add"' "$tmp/q" || fail "filtered startingVersion: no adds"
grep -E '^\{"(add|remove)"' "$tmp/q" | grep -vqF '"letter":"a"' && fail "filtered startingVersion: an action of another partition"
# cdf-table's changes, whole and through the partitionFilter: the filtered
# lines are exactly the whole feed's lines of that partition
kinds() { grep -E '^\{"(add|cdf|remove)"' "$1" | sed 's/"url":"[^"]*",//; s/"expirationTimestamp":[0-9]*//' | sort; }
st=$(req "$tmp/c0" -H "$A" "$T/cdf/changes?startingVersion=0"); status_is "$st" 200 "cdf changes" "$tmp/c0"
st=$(req "$tmp/c1" -H "$A" "$T/cdffiltered/changes?startingVersion=0"); status_is "$st" 200 "filtered changes" "$tmp/c1"
lines_ok "$tmp/c1" parquet add cdf remove
[ "$nfiles" -ge 1 ] || fail "filtered changes: no files"
diff <(kinds "$tmp/c0" | grep -F '"birthday":"2023-12-23"') <(kinds "$tmp/c1") >/dev/null || fail "filtered changes differ from the feed's 2023-12-23 lines"
# predicateHints in the streaming form skip actions by partition values,
# never one that may match; a hint on a data column skips nothing
st=$(req "$tmp/s0" -X POST -H "$A" -H "$J" -d '{"startingVersion":0}' "$T/cdf/query"); status_is "$st" 200 "cdf streaming" "$tmp/s0"
st=$(req "$tmp/s1" -X POST -H "$A" -H "$J" -d "{\"startingVersion\":0,\"predicateHints\":[\"birthday = '2023-12-24'\"]}" "$T/cdf/query")
status_is "$st" 200 "cdf streaming with a hint" "$tmp/s1"; lines_ok "$tmp/s1" parquet add remove metaData
diff <(kinds "$tmp/s0" | grep -F '"birthday":"2023-12-24"') <(kinds "$tmp/s1") >/dev/null || fail "streaming hint: not the 2023-12-24 actions"
st=$(req "$tmp/s2" -X POST -H "$A" -H "$J" -d '{"startingVersion":0,"predicateHints":["id > 1000"]}' "$T/cdf/query")
diff <(kinds "$tmp/s0") <(kinds "$tmp/s2") >/dev/null || fail "a data-column hint pruned actions of the streaming form"

# maxFiles / pageToken for the startingVersion form of query and for
# changes (query parameters there): every page ends with an endStreamAction,
# holds at most maxFiles add/cdf/remove lines, and the pages' lines after
# their protocol and metaData, one after the other, are exactly the unpaged
# answer's (URLs and expiry aside); bad and stale tokens are 400.
strip() { tail -n +3 "$1" | grep -v '^{"endStreamAction"' | sed 's/"url":"[^"]*",//; s/"expirationTimestamp":[0-9]*//'; }
pages_of() { # NAME MAX OUT KIND(query|changes) BODY-OR-PARAMS TABLE
	local name=$1 max=$2 out=$3 kind=$4 what=$5 table=$6 tok="" n=0
	: >"$out"
	while :; do
		if [ "$kind" = query ]; then
			st=$(req "$tmp/pg" -X POST -H "$A" -H "$J" -d "{$what,\"maxFiles\":$max${tok:+,\"pageToken\":\"$tok\"}}" "$T/$table/query")
		else
			st=$(req "$tmp/pg" -H "$A" "$T/$table/changes?$what&maxFiles=$max${tok:+&pageToken=$tok}")
		fi
		status_is "$st" 200 "$name page $n" "$tmp/pg"
		# every line checked on the first page; the others by their count (node per page is slow)
		[ "$n" = 0 ] && lines_ok "$tmp/pg" parquet add cdf remove metaData protocol endStreamAction
		nfiles=$(grep -cE '^\{"(add|cdf|remove)"' "$tmp/pg")
		[ "$nfiles" -le "$max" ] || fail "$name page $n: $nfiles files"
		tail -1 "$tmp/pg" | grep -q '^{"endStreamAction":' || fail "$name page $n: no endStreamAction last"
		strip "$tmp/pg" >>"$out"
		n=$((n + 1)); [ "$n" -le 200 ] || { fail "$name: paging does not end"; break; }
		tok=$(tail -1 "$tmp/pg" | sed -n 's/^{"endStreamAction":{"nextPageToken":"\([^"]*\)",.*/\1/p')
		[ -n "$tok" ] || break
	done
	npages=$n
}
for max in 2 5; do
	st=$(req "$tmp/u" -X POST -H "$A" -H "$J" -d '{"startingVersion":0,"includeHistoricalProtocol":true}' "$T/cdf/query")
	strip "$tmp/u" >"$tmp/u.lines"; total=$(grep -cE '^\{"(add|remove)"' "$tmp/u.lines")
	pages_of "streaming by $max" "$max" "$tmp/p.lines" query '"startingVersion":0,"includeHistoricalProtocol":true' cdf
	cmp -s "$tmp/u.lines" "$tmp/p.lines" || fail "streaming pages of $max differ from the whole: $(diff "$tmp/u.lines" "$tmp/p.lines" | head -3)"
	[ "$npages" -ge $(( (total + max - 1) / max )) ] || fail "streaming by $max: $npages pages for $total files"
	st=$(req "$tmp/u" -H "$A" "$T/cdf/changes?startingVersion=0&includeHistoricalMetadata=true")
	strip "$tmp/u" >"$tmp/u.lines"; total=$(grep -cE '^\{"(add|cdf|remove)"' "$tmp/u.lines")
	pages_of "changes by $max" "$max" "$tmp/p.lines" changes 'startingVersion=0&includeHistoricalMetadata=true' cdf
	cmp -s "$tmp/u.lines" "$tmp/p.lines" || fail "changes pages of $max differ from the whole: $(diff "$tmp/u.lines" "$tmp/p.lines" | head -3)"
	[ "$npages" -ge $(( (total + max - 1) / max )) ] || fail "changes by $max: $npages pages for $total files"
done
[ "$total" -ge 4 ] || fail "changes paging: only $total files"
# by timestamps too (the token pins the versions of the first page)
pages_of "changes by time" 2 "$tmp/p.lines" changes 'startingTimestamp=2000-01-01%2000:00:00' cdf
st=$(req "$tmp/u" -H "$A" "$T/cdf/changes?startingTimestamp=2000-01-01%2000:00:00"); strip "$tmp/u" >"$tmp/u.lines"
cmp -s "$tmp/u.lines" "$tmp/p.lines" || fail "changes by time: pages differ from the whole"
# bad tokens: not ours, a snapshot query's, of another start, past the end version, without maxFiles
st=$(req "$tmp/pg" -H "$A" "$T/cdf/changes?startingVersion=0&maxFiles=2"); tok=$(tail -1 "$tmp/pg" | sed -n 's/.*"nextPageToken":"\([^"]*\)".*/\1/p')
[ -n "$tok" ] || fail "changes: no nextPageToken with maxFiles=2"
for bad in "startingVersion=0&maxFiles=2&pageToken=x" "startingVersion=0&maxFiles=2&pageToken=3_0" \
	"startingVersion=1&maxFiles=2&pageToken=$tok" "startingVersion=0&endingVersion=0&maxFiles=2&pageToken=c0_3_2" \
	"startingVersion=0&pageToken=$tok" "startingVersion=0&maxFiles=0" "startingVersion=0&maxFiles=-1" \
	"startingVersion=0&maxFiles=2&pageToken=c0_3_02" "startingVersion=0&maxFiles=2&pageToken=c0_99999999999999999999_2"; do
	st=$(req "$tmp/pg" -H "$A" "$T/cdf/changes?$bad"); status_is "$st" 400 "changes $bad" "$tmp/pg"; error_body "$tmp/pg" "changes $bad"
done
for bad in '"pageToken":"x"' "\"pageToken\":\"$tok\",\"startingVersion\":1" '"pageToken":"0_0"'; do
	st=$(req "$tmp/pg" -X POST -H "$A" -H "$J" -d "{\"startingVersion\":0,\"maxFiles\":2,$bad}" "$T/cdf/query")
	[ "$bad" = "\"pageToken\":\"$tok\",\"startingVersion\":1" ] && st=$(req "$tmp/pg" -X POST -H "$A" -H "$J" -d "{\"maxFiles\":2,$bad}" "$T/cdf/query")
	status_is "$st" 400 "streaming $bad" "$tmp/pg"; error_body "$tmp/pg" "streaming $bad"
done

# ---- Read Change Data Feed
st=$(req "$tmp/c" -H "$A" "$T/cdf/changes?startingVersion=0&endingVersion=3"); status_is "$st" 200 changes "$tmp/c"
nd_ct "$tmp/c" changes; version_is "$tmp/c" 0 changes
lines_ok "$tmp/c" parquet add cdf remove
grep -q '^{"cdf":' "$tmp/c" || fail "changes: no cdf lines for the UPDATE commits"
grep -q '^{"add":.*"version":0,' "$tmp/c" || fail "changes: version 0's adds missing"
st=$(req "$tmp/c" -H "$A" "$T/cdf/changes?startingVersion=1&includeHistoricalMetadata=true"); status_is "$st" 200 "changes from 1" "$tmp/c"
lines_ok "$tmp/c" parquet add cdf remove metaData
grep -q '"version":0,' <(tail -n +3 "$tmp/c") && fail "changes from 1 include version 0"
st=$(req "$tmp/c" -H "$A" "$T/cdf/changes?startingTimestamp=2000-01-01%2000:00:00"); status_is "$st" 200 "changes by ts" "$tmp/c"
for bad in "" "startingVersion=2&endingVersion=1" "startingVersion=x" "startingVersion=99"; do
	st=$(req "$tmp/c" -H "$A" "$T/cdf/changes?$bad"); status_is "$st" 400 "changes $bad" "$tmp/c"; error_body "$tmp/c" "changes $bad"
done
st=$(req "$tmp/c" -H "$A" "$T/part/changes?startingVersion=0"); status_is "$st" 400 "changes not shared" "$tmp/c"

# ---- errors: routes, methods, bodies
st=$(req "$tmp/e" -H "$A" "$base/nope"); status_is "$st" 404 "unknown endpoint" "$tmp/e"; error_body "$tmp/e" "unknown endpoint"
st=$(req "$tmp/e" -H "$A" -X POST "$T/part/metadata"); status_is "$st" 405 "POST metadata" "$tmp/e"; error_body "$tmp/e" "405"
st=$(req "$tmp/e" -H "$A" "$T/part/query"); status_is "$st" 405 "GET query" "$tmp/e"
st=$(req "$tmp/e" -H "$A" -X POST -H "$J" -d '{"version":' "$T/part/query"); status_is "$st" 400 "bad JSON" "$tmp/e"; error_body "$tmp/e" "bad JSON"
st=$(req "$tmp/e" -H "$A" -X POST -H "$J" -d '[1]' "$T/part/query"); status_is "$st" 400 "not an object" "$tmp/e"
st=$(req "$tmp/e" -H "$A" -X POST -H "$J" -d '{"limitHint":-5}' "$T/part/query"); status_is "$st" 400 "negative limitHint" "$tmp/e"
st=$(req "$tmp/e" -H "$A" -X POST -H "$J" -d '{"version":0,"timestamp":"2020-01-01 00:00:00"}' "$T/tt/query"); status_is "$st" 400 "version and timestamp" "$tmp/e"
head -c 5000 /dev/zero | tr '\0' ' ' >"$tmp/big"
st=$(req "$tmp/e" -H "$A" -X POST -H "$J" --data-binary @"$tmp/big" "$T/part/query"); status_is "$st" 413 "body over maxRequestBodyBytes" "$tmp/e"

stop_server
[ "$fails" -eq 0 ] || { echo "$fails failure(s)" >&2; exit 1; }
echo "sharing_server_protocol: ok"
