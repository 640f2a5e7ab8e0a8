#!/usr/bin/env bash
# Every table of ../shared/conformance shared by `deltalake sharing serve`
# and read back by curl: the query response checked line by line against
# PROTOCOL.md, every file URL downloaded (size as listed), and the rows (the
# files' rows minus their deletion vectors) equal to reading the table
# directly with `deltalake cat` (counted by DuckDB), and read again by our
# own client (`deltalake cat PROFILE#share.schema.table`) with every row
# equal to the direct read. Tables that cannot be
# read directly must give a PROTOCOL.md error, not a 200. Needs DL_CLI,
# DL_SHARED_DIR and DL_ORACLE_DIR.
set -uo pipefail
: "${DL_SHARED_DIR:?DL_SHARED_DIR must name the shared directory}"
: "${DL_ORACLE_DIR:?DL_ORACLE_DIR must name tools/oracle}"
source "$(dirname "$0")/sharing_server_lib.bash"
export DL_ORACLE_DIR
C="$DL_SHARED_DIR/conformance"
tables=()
for d in "$C"/golden/*/delta "$C"/golden/hive/delta/* "$C"/kernel-data/* "$C"/kernel-data/*/*; do
	[ -d "$d/_delta_log" ] && tables+=("$d")
done
tables+=("$C/golden/no-delta-log-folder")
[ "${#tables[@]}" -gt 140 ] || fail "only ${#tables[@]} conformance tables found"
token=$("$DL_CLI" sharing token | awk '/^token:/ {print $2}')
hash=$(echo -n "$token" | sha256sum | awk '{print $1}')
{
	echo "version: 1"
	echo "shares:"
	echo "- name: conformance"
	echo "  schemas:"
	echo "  - name: all"
	echo "    tables:"
	for i in "${!tables[@]}"; do
		echo "    - name: t$i"
		echo "      location: \"${tables[$i]}\""
	done
	echo "recipients:"
	echo "- name: tester"
	echo "  tokenHash: \"sha256:$hash\""
	echo "  shares: [conformance]"
} >"$tmp/shares.yaml"
start_server "$tmp/shares.yaml"
A="Authorization: Bearer $token"
CAPS="delta-sharing-capabilities: responseformat=delta,parquet;readerfeatures=deletionvectors,columnmapping"

# all-tables lists every table (paged by 50).
: >"$tmp/names"
page=
for _ in $(seq 1 10); do
	st=$(req "$tmp/list" -H "$A" "$base/shares/conformance/all-tables?maxResults=50${page:+&pageToken=$page}")
	status_is "$st" 200 all-tables "$tmp/list"
	grep -o '"name":"t[0-9]*"' "$tmp/list" >>"$tmp/names"
	page=$(grep -o '"nextPageToken":"[^"]*"' "$tmp/list" | cut -d'"' -f4)
	[ -n "$page" ] || break
done
[ "$(wc -l <"$tmp/names")" -eq "${#tables[@]}" ] || fail "all-tables listed $(wc -l <"$tmp/names") of ${#tables[@]}"

# The direct reads first, two at a time (each table's rows and exit code).
export DL_CLI
for i in "${!tables[@]}"; do mkdir -p "$tmp/t$i/files"; printf '%s\0%s\0' "${tables[$i]}" "$tmp/t$i"; done |
	xargs -0 -n 2 -P 2 sh -c '"$DL_CLI" cat "$0" --format parquet -o "$1/expected.parquet" >/dev/null 2>"$1/cat.err"; echo $? >"$1/cat.rc"'

: >"$tmp/conform.list"
served=0 refused=0
for i in "${!tables[@]}"; do
	t=${tables[$i]}
	dir="$tmp/t$i"
	direct=$(cat "$dir/cat.rc")
	st=$(req "$dir/query.ndjson" -X POST -H "$A" -H "$CAPS" -H 'Content-Type: application/json; charset=utf-8' \
		-d '{}' "$base/shares/conformance/schemas/all/tables/t$i/query")
	if [ "$direct" != 0 ] && ! grep -q "data file" "$dir/cat.err"; then
		# Not readable directly (log or protocol): an error with a JSON body.
		[ "$st" != 200 ] || fail "$t: unreadable directly ($(head -c 200 "$dir/cat.err")) but served"
		error_body "$dir/query.ndjson" "$t"
		refused=$((refused + 1))
		continue
	fi
	if [ "$st" != 200 ]; then
		fail "$t: query status $st: $(head -c 300 "$dir/query.ndjson")"
		continue
	fi
	header "$dir/query.ndjson.h" content-type | grep -q '^application/x-ndjson; charset=utf-8' ||
		fail "$t: query Content-Type is $(header "$dir/query.ndjson.h" content-type)"
	v=$(header "$dir/query.ndjson.h" delta-table-version)
	[[ "$v" =~ ^[0-9]+$ ]] || fail "$t: Delta-Table-Version is '$v'"
	# Every URL in one curl (one connection); each must answer 200.
	: >"$dir/curl.cfg"
	for u in $(grep -o '"\(url\|path\|pathOrInlineDv\)":"https\?://[^"]*"' "$dir/query.ndjson" | cut -d'"' -f4); do
		printf 'url = "%s"\noutput = "%s/files/%s"\n' "$u" "$dir" "$(echo -n "$u" | sha1sum | awk '{print $1}')" >>"$dir/curl.cfg"
	done
	if [ -s "$dir/curl.cfg" ]; then
		curl -s -K "$dir/curl.cfg" -w '%{http_code}\n' >"$dir/codes"
		if [ "$direct" != 0 ]; then
			# The log is fine but data files are missing or broken: the listing
			# is what the log says; a missing file is 404 when fetched.
			grep -qv '^\(200\|404\)$' "$dir/codes" && fail "$t: download statuses $(sort -u "$dir/codes" | tr '\n' ' ')"
			check lines "$dir/query.ndjson" "$(head -c 40 "$dir/query.ndjson" | grep -q deltaProtocol && echo delta || echo parquet)" \
				>/dev/null 2>"$dir/lines.err" || fail "$t: $(cat "$dir/lines.err")"
			refused=$((refused + 1))
			continue
		fi
		grep -qv '^200$' "$dir/codes" && fail "$t: download statuses $(sort -u "$dir/codes" | tr '\n' ' ')"
	fi
	printf '%s\t%s\n' "$dir" "$dir/expected.parquet" >>"$tmp/conform.list"
	served=$((served + 1))
done
check conform "$tmp/conform.list" >"$tmp/conform.out" 2>"$tmp/conform.err" || fail "$(cat "$tmp/conform.err")"
echo "served $served tables ($(cat "$tmp/conform.out")), $refused unreadable directly and handled as expected"
[ "$served" -gt 120 ] || fail "only $served tables served"

# Our own client (issue 16): every served table read as PROFILE#share.schema.table
# gives exactly the rows of reading the table directly (sorted CSV of every
# column), two tables at a time.
printf '{"shareCredentialsVersion": 1, "endpoint": "%s", "bearerToken": "%s"}\n' "$base" "$token" >"$tmp/conf.share"
export tmp
cut -f1 "$tmp/conform.list" | while read -r dir; do
	i=${dir##*/t}
	printf '%s\0%s\0%s\0' "${tables[$i]}" "$tmp/conf.share#conformance.all.t$i" "$dir"
done | xargs -0 -n 3 -P 2 sh -c '
	"$DL_CLI" cat "$0" --format csv 2>"$2/direct.err" | sort >"$2/direct.csv"
	"$DL_CLI" cat "$1" --format csv 2>"$2/client.err" | sort >"$2/client.csv"
	if cmp -s "$2/direct.csv" "$2/client.csv" && [ -s "$2/direct.csv" ]; then echo ok >"$2/client.rc"
	else echo "differ" >"$2/client.rc"; fi'
client_ok=0
while read -r dir; do
	if [ "$(cat "$dir/client.rc" 2>/dev/null)" = ok ]; then client_ok=$((client_ok + 1)); continue; fi
	i=${dir##*/t}
	fail "${tables[$i]}: our client read $(($(wc -l <"$dir/client.csv") - 1)) rows ($(head -c 200 "$dir/client.err")), the direct read $(($(wc -l <"$dir/direct.csv") - 1))"
done < <(cut -f1 "$tmp/conform.list")
echo "our client read $client_ok of $served served tables exactly as the direct read"
stop_server
[ "$fails" -eq 0 ] || { echo "$fails failure(s)" >&2; exit 1; }
echo "sharing_server_conformance: ok"
