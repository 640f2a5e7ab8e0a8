#!/usr/bin/env bash
# Security of `deltalake sharing serve`, tried with curl: no token, a wrong
# token, another scheme, an expired token (401); another recipient's share
# (404, exactly like a share that does not exist); signed file URLs edited
# to another file, re-signed, forged or expired (403); path traversal in
# every path segment, query parameter and body field; tables whose log
# points outside their root (refused, nothing outside served); limits;
# TLS; no secret in the access log; config errors. Needs DL_CLI and
# DL_SHARED_DIR.
set -uo pipefail
: "${DL_SHARED_DIR:?DL_SHARED_DIR must name the shared directory}"
source "$(dirname "$0")/sharing_server_lib.bash"
K="$DL_SHARED_DIR/conformance/kernel-data"
mk_token() { "$DL_CLI" sharing token | awk '/^token:/ {print $2}'; }
hash_of() { echo "sha256:$(echo -n "$1" | sha256sum | awk '{print $1}')"; }
TA=$(mk_token) TB=$(mk_token) TOLD=$(mk_token)

# Tables whose logs name files outside their roots: an absolute path and a
# relative one climbing out. The file they point at is a real Parquet file.
mkdir -p "$tmp/secret" "$tmp/esc_abs/_delta_log" "$tmp/esc_rel/_delta_log"
src=$(ls "$K"/basic_partitioned/letter=a/*.parquet | head -1)
cp "$src" "$tmp/secret/secret.parquet"
cp "$src" "$tmp/esc_abs/inside.parquet"
cp "$src" "$tmp/esc_rel/inside.parquet"
size=$(stat -c %s "$src")
for t in esc_abs esc_rel; do
	out=$([ $t = esc_abs ] && echo "file://$tmp/secret/secret.parquet" || echo "../secret/secret.parquet")
	cat >"$tmp/$t/_delta_log/00000000000000000000.json" <<JSON
{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}
{"metaData":{"id":"00000000-0000-0000-0000-00000000000e","format":{"provider":"parquet","options":{}},"schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"letter\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}}]}","partitionColumns":[],"configuration":{},"createdTime":1}}
{"add":{"path":"inside.parquet","partitionValues":{},"size":$size,"modificationTime":1,"dataChange":true}}
{"add":{"path":"$out","partitionValues":{},"size":$size,"modificationTime":1,"dataChange":true}}
JSON
done

write_config() { # FILE URL_TIMEOUT
	cat >"$1" <<YAML
version: 1
shares:
- name: sa
  schemas:
  - name: x
    tables:
    - name: t
      location: "$K/basic_partitioned"
    - name: esc_abs
      location: "$tmp/esc_abs"
      historyShared: true
    - name: esc_rel
      location: "$tmp/esc_rel"
      historyShared: true
- name: sb
  schemas:
  - name: y
    tables:
    - name: u
      location: "$K/basic_partitioned"
recipients:
- name: alice
  tokenHash: "$(hash_of "$TA")"
  shares: [sa]
- name: bob
  tokenHash: "$(hash_of "$TB")"
  expirationTime: "2999-01-01T00:00:00Z"
  shares: [sb]
- name: old
  tokenHash: "$(hash_of "$TOLD")"
  expirationTime: "2020-01-01T00:00:00Z"
  shares: [sa, sb]
preSignedUrlTimeoutSeconds: $2
YAML
}
write_config "$tmp/shares.yaml" 900
start_server "$tmp/shares.yaml"
AA="Authorization: Bearer $TA"
X="$base/shares/sa/schemas/x/tables"

# ---- authentication: every endpoint
endpoints=("/shares" "/shares/sa" "/shares/sa/schemas" "/shares/sa/all-tables" "/shares/sa/schemas/x/tables"
           "/shares/sa/schemas/x/tables/t/version" "/shares/sa/schemas/x/tables/t/metadata"
           "/shares/sa/schemas/x/tables/t/changes?startingVersion=0" "/shares/zz")
for e in "${endpoints[@]}"; do
	for h in "" "Authorization: Bearer wrong-token" "Authorization: Basic $(echo -n "a:$TA" | base64)" \
	         "Authorization: Bearer $TOLD" "Authorization: Bearer $TA$TA" "Authorization: Bearer"; do
		st=$(req "$tmp/r" ${h:+-H "$h"} "$base$e")
		status_is "$st" 401 "$e with '${h:0:22}'" "$tmp/r"
		error_body "$tmp/r" "$e 401"
		grep -qi '^www-authenticate: Bearer' "$tmp/r.h" || fail "$e: 401 without WWW-Authenticate"
	done
done
st=$(req "$tmp/r" -X POST -d '{}' "$X/t/query"); status_is "$st" 401 "query without a token" "$tmp/r"
st=$(req "$tmp/r" -H "Authorization: Bearer $TOLD" "$base/shares"); grep -q expired "$tmp/r" || fail "an expired token is not called expired"
st=$(req "$tmp/r" -H "$AA" "$base/shares"); status_is "$st" 200 "alice" "$tmp/r"
[ "$(cat "$tmp/r")" = '{"items":[{"name":"sa"}]}' ] || fail "alice sees $(cat "$tmp/r")"
st=$(req "$tmp/r" -H "Authorization: Bearer $TB" "$base/shares"); [ "$(cat "$tmp/r")" = '{"items":[{"name":"sb"}]}' ] || fail "bob sees $(cat "$tmp/r")"
# the scheme is case-insensitive (RFC 6750 / RFC 7235)
st=$(req "$tmp/r" -H "authorization: bearer $TA" "$base/shares"); status_is "$st" 200 "lower-case bearer" "$tmp/r"

# ---- another recipient's share is 404, exactly like one that does not exist
for e in "" "/schemas" "/all-tables" "/schemas/y/tables" "/schemas/y/tables/u/metadata" "/schemas/y/tables/u/version"; do
	st=$(req "$tmp/granted" -H "$AA" "$base/shares/sb$e"); status_is "$st" 404 "alice reads sb$e" "$tmp/granted"
	st2=$(req "$tmp/absent" -H "$AA" "$base/shares/zz$e")
	[ "$st2" = 404 ] && [ "$(sed 's/sb/zz/' "$tmp/granted")" = "$(cat "$tmp/absent")" ] ||
		fail "sb$e is told apart from a missing share: $(cat "$tmp/granted") / $(cat "$tmp/absent")"
done
st=$(req "$tmp/r" -H "$AA" -X POST -d '{}' "$base/shares/sb/schemas/y/tables/u/query"); status_is "$st" 404 "alice queries sb" "$tmp/r"

# ---- signed URLs: valid, edited, swapped, forged
st=$(req "$tmp/q" -H "$AA" -X POST -d '{}' "$X/t/query"); status_is "$st" 200 query "$tmp/q"
grep -o '"url":"[^"]*"' "$tmp/q" | cut -d'"' -f4 >"$tmp/urls"
[ "$(wc -l <"$tmp/urls")" -ge 2 ] || fail "need two files, got $(wc -l <"$tmp/urls")"
u1=$(sed -n 1p "$tmp/urls") u2=$(sed -n 2p "$tmp/urls")
st=$(curl -s -o "$tmp/f1" -w '%{http_code}' "$u1"); status_is "$st" 200 "a signed URL" "$tmp/f1"
head -c 4 "$tmp/f1" | grep -q PAR1 || fail "the download is not the Parquet file"
st=$(curl -s -o /dev/null -w '%{http_code}' -I "$u1"); status_is "$st" 200 "HEAD of a signed URL" /dev/null
st=$(curl -s -o "$tmp/rg" -w '%{http_code}' -r -4 "$u1"); status_is "$st" 206 "a range" "$tmp/rg"
[ "$(cat "$tmp/rg")" = PAR1 ] || fail "range -4 is not the footer magic"
last=${u1: -1}; repl=A; [ "$last" = A ] && repl=B
st=$(req "$tmp/r" "${u1%?}$repl"); status_is "$st" 403 "an edited signature" "$tmp/r"; error_body "$tmp/r" "edited"
tok1=${u1##*/files/} tok2=${u2##*/files/}
st=$(req "$tmp/r" "${u1%%/files/*}/files/${tok2%%.*}.${tok1#*.}"); status_is "$st" 403 "another file's payload with this signature" "$tmp/r"
forged=$(printf 'v1;9999999999999;2:sa1:x1:t26:../../secret/secret.parquet' | base64 -w0 | tr '+/' '-_' | tr -d '=')
st=$(req "$tmp/r" "${u1%%/files/*}/files/$forged.${tok1#*.}"); status_is "$st" 403 "a forged token" "$tmp/r"
for junk in "x" "..%2f..%2fetc%2fpasswd" "%2e%2e" "a.b.c" "$(head -c 20000 /dev/zero | tr '\0' A).x"; do
	st=$(req "$tmp/r" "${u1%%/files/*}/files/$junk"); [ "$st" = 403 ] || [ "$st" = 400 ] || [ "$st" = 404 ] || [ "$st" = 414 ] ||
		fail "/files/${junk:0:20}: status $st"
	grep -q PAR1 "$tmp/r" && fail "/files/${junk:0:20} served a file"
done
st=$(curl -s --path-as-is -o "$tmp/r" -w '%{http_code}' "$u1/../../../../etc/passwd"); [ "$st" != 200 ] || fail "/files/.../../etc/passwd: 200"

# ---- path traversal in every segment and parameter: never a 200 with data
trav=(".." "%2e%2e" "..%2f..%2fetc" "%2e%2e%2f%2e%2e" "a%00b" "sa%2f..%2fsb" "..%5c..")
for v in "${trav[@]}"; do
	for e in "/shares/$v" "/shares/$v/schemas" "/shares/sa/schemas/$v/tables" "/shares/sa/schemas/x/tables/$v/metadata" \
	         "/shares/sa/schemas/x/tables/t/$v" "/shares/$v/all-tables" "/$v/shares"; do
		st=$(curl -s --path-as-is -o "$tmp/r" -w '%{http_code}' -H "$AA" "$base$e")
		[ "$st" = 400 ] || [ "$st" = 404 ] || fail "$e: status $st"
	done
done
for p in "pageToken=../../etc/passwd" "maxResults=../1" "pageToken=%2e%2e%2f"; do
	st=$(req "$tmp/r" -H "$AA" "$base/shares/sa/all-tables?$p"); status_is "$st" 400 "$p" "$tmp/r"
done
for p in "startingVersion=../1" "startingTimestamp=../../etc" "endingVersion=%2e%2e&startingVersion=0"; do
	st=$(req "$tmp/r" -H "$AA" "$X/esc_rel/changes?$p"); status_is "$st" 400 "changes $p" "$tmp/r"
done
st=$(req "$tmp/r" -H "$AA" "$X/t/version?startingTimestamp=..%2f..%2f"); status_is "$st" 400 "version startingTimestamp" "$tmp/r"
for b in '{"version":"../../"}' '{"timestamp":"../../etc/passwd"}' '{"startingVersion":"..\/"}' \
         '{"predicateHints":["../../etc/passwd"]}' '{"jsonPredicateHints":"{\"op\":\"column\",\"name\":\"../../x\"}"}'; do
	st=$(req "$tmp/r" -H "$AA" -X POST -d "$b" "$X/t/query")
	[ "$st" = 400 ] || { [ "$st" = 200 ] && ! grep -q secret "$tmp/r"; } || fail "query $b: status $st"
done

# ---- a log pointing outside the table root: refused, the file never signed
for t in esc_abs esc_rel; do
	st=$(req "$tmp/r" -H "$AA" -X POST -d '{}' "$X/$t/query"); status_is "$st" 403 "$t query" "$tmp/r"
	error_body "$tmp/r" "$t"; grep -q "$tmp" "$tmp/r" && fail "$t: the error names a server path"
	st=$(req "$tmp/r" -H "$AA" -X POST -d '{"startingVersion":0}' "$X/$t/query"); status_is "$st" 403 "$t startingVersion" "$tmp/r"
	grep -q '"url"' "$tmp/r" && fail "$t: a URL was handed out"
	st=$(req "$tmp/r" -H "$AA" -X POST -d '{"version":0}' "$X/$t/query"); status_is "$st" 403 "$t version 0" "$tmp/r"
done

# ---- limits: oversized headers are refused by the server, not served
big=$(head -c 40000 /dev/zero | tr '\0' a)
st=$(curl -s -o /dev/null -w '%{http_code}' -H "$AA" -H "X-Big: $big" "$base/shares")
[ "$st" = 431 ] || [ "$st" = 413 ] || [ "$st" = 400 ] || [ "$st" = 000 ] || fail "a 40 KB header: status $st"
st=$(req "$tmp/r" -H "$AA" "$base/shares"); status_is "$st" 200 "after a refused request" "$tmp/r"

# ---- the access log names requests, never secrets
grep -q '"GET /delta-sharing/shares" 200' "$tmp/access.log" || fail "no access log line: $(head -3 "$tmp/access.log")"
grep -q 'recipient=alice' "$tmp/access.log" || fail "the access log does not name the recipient"
for s in "$TA" "$TB" "$TOLD" "$tok1" "${tok1#*.}"; do
	grep -qF -- "$s" "$tmp/access.log" && fail "a secret is in the access log"
done
grep -q '"GET /files/\.\.\." 200' "$tmp/access.log" || fail "file requests are not logged as /files/..."
grep -q 'esc_abs/query" 403 .* error=".*outside' "$tmp/access.log" || fail "the log does not say why esc_abs was refused"
stop_server

# ---- expired file URLs: 403 once past preSignedUrlTimeoutSeconds
# (3 s, not 1: under a loaded `make test` a second can pass between the
# signing and the check below that the URL is still valid)
write_config "$tmp/short.yaml" 3
start_server "$tmp/short.yaml"
st=$(req "$tmp/q" -H "$AA" -X POST -d '{}' "$base/shares/sa/schemas/x/tables/t/query")
u=$(grep -o '"url":"[^"]*"' "$tmp/q" | head -1 | cut -d'"' -f4)
exp=$(grep -o '"expirationTimestamp":[0-9]*' "$tmp/q" | head -1 | cut -d: -f2)
now=$(date +%s%3N)
[ "$exp" -gt "$now" ] && [ "$exp" -le $((now + 4000)) ] || fail "expirationTimestamp $exp is not now + 3 s ($now)"
while [ "$(date +%s%3N)" -le "$exp" ]; do sleep 0.2; done
st=$(req "$tmp/r" "$u"); status_is "$st" 403 "an expired URL" "$tmp/r"; grep -q expired "$tmp/r" || fail "not called expired"
stop_server

# ---- TLS
if command -v openssl >/dev/null; then
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 1 \
		-subj /CN=127.0.0.1 >/dev/null 2>&1
	start_server "$tmp/shares.yaml" --tls-cert "$tmp/cert.pem" --tls-key "$tmp/key.pem"
	st=$(curl -s -k -o "$tmp/r" -w '%{http_code}' -H "$AA" "https://127.0.0.1:$port/delta-sharing/shares")
	status_is "$st" 200 "HTTPS" "$tmp/r"
	st=$(curl -s -k -o "$tmp/q" -w '%{http_code}' -X POST -d '{}' -H "$AA" "https://127.0.0.1:$port/delta-sharing/shares/sa/schemas/x/tables/t/query")
	u=$(grep -o '"url":"[^"]*"' "$tmp/q" | head -1 | cut -d'"' -f4)
	[[ "$u" == https://* ]] || fail "file URLs of an HTTPS server are $u"
	st=$(curl -s -k -o /dev/null -w '%{http_code}' "$u"); status_is "$st" 200 "HTTPS file" /dev/null
	st=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/delta-sharing/shares"); [ "$st" != 200 ] || fail "plain HTTP answered on the TLS port"
	stop_server
fi

# ---- config errors: exit 1 and a message naming the problem
cfgerr() { # WANT_TEXT YAML
	printf '%s\n' "$2" >"$tmp/bad.yaml"
	# A config the server accepts would serve until the timeout (exit 124).
	timeout 5 "$DL_CLI" sharing serve --config "$tmp/bad.yaml" --port 0 >"$tmp/o" 2>"$tmp/e"
	local rc=$?
	[ $rc = 1 ] || fail "config error exit $rc: $2"
	grep -q -- "$1" "$tmp/e" || fail "config error lacks '$1': $(cat "$tmp/e")"
}
cfgerr "must be authenticated" "version: 1"
cfgerr "'version' must be provided" "shares: []"
cfgerr "too new" "version: 2"
cfgerr "not the token itself" $'version: 1\nrecipients:\n- name: a\n  bearerToken: x'
cfgerr "line 4" $'version: 1\nrecipients:\n- name: a\n  tokenHash: "md5:x"'
cfgerr "not in 'shares'" $'version: 1\nrecipients:\n- name: a\n  tokenHash: "'"$(hash_of x)"$'"\n  shares: [nope]'
cfgerr "aliases" $'version: 1\na: &x [1]\nb: *x\nauthorization:\n  bearerToken: t'
cfgerr "more than one" $'version: 1\nshares:\n- name: a\n- name: A\nauthorization:\n  bearerToken: t'
cfgerr "'location' in table" $'version: 1\nshares:\n- name: a\n  schemas:\n  - name: s\n    tables:\n    - name: t\nauthorization:\n  bearerToken: t'
"$DL_CLI" sharing serve --config "$tmp/shares.yaml" --port -1 >/dev/null 2>&1; [ $? = 2 ] || fail "--port -1 is not a usage error"
"$DL_CLI" sharing serve --port 0 >/dev/null 2>&1; [ $? = 2 ] || fail "no --config is not a usage error"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)" >&2; exit 1; }
echo "sharing_server_auth: ok"
