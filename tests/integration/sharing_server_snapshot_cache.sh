#!/usr/bin/env bash
# The server's snapshot cache seen by a curl client: the latest version's
# answers (version, metadata numFiles, query files) follow every new commit
# at once; a table deleted and written again at the same version is served
# with its new files; concurrent queries while commits land each answer one
# consistent version (the files of the version in its Delta-Table-Version
# header); and the same with the cache off (snapshotCacheBytes: 0).
# Needs DL_CLI.
set -uo pipefail
source "$(dirname "$0")/sharing_server_lib.bash"
D=$DL_CLI

append() { # TABLE ID: one commit, one file
	printf 'id\n%s\n' "$2" >"$tmp/in.csv"
	"$D" write "$1" -i "$tmp/in.csv" -m append -q >/dev/null || fail "append $2 to $1"
}
files_at() { # TABLE VERSION: data files of that version
	"$D" files "$1" --version "$2" --format csv | tail -n +2 | wc -l
}

for cache in on off; do
	t=$tmp/t-$cache
	"$D" create "$t" --schema "id BIGINT" -q >/dev/null || fail "create"
	append "$t" 1
	extra=
	[ "$cache" = off ] && extra="snapshotCacheBytes: 0"
	cat >"$tmp/shares.yaml" <<YAML
version: 1
shares:
- name: "s"
  schemas:
  - name: "sc"
    tables:
    - name: "t"
      location: "$t"
      historyShared: true
authorization:
  bearerToken: "tok"
$extra
YAML
	start_server "$tmp/shares.yaml"
	A="Authorization: Bearer tok"
	T="$base/shares/s/schemas/sc/tables/t"
	version() { req "$tmp/v" -H "$A" "$T/version" >/dev/null; header "$tmp/v.h" delta-table-version; }
	nquery() { req "$tmp/q" -X POST -H "$A" -H 'Content-Type: application/json' -d '{}' "$T/query" >/dev/null; grep -c '^{"file"' "$tmp/q"; }
	nmeta() { req "$tmp/m" -H "$A" "$T/metadata" >/dev/null; sed -n 's/.*"numFiles":\([0-9]*\).*/\1/p' "$tmp/m"; }
	for i in 2 3 4; do
		# twice each: the second answer is the cached one
		for _ in 1 2; do
			[ "$(version)" = $((i - 1)) ] || fail "$cache: version $(version) after $((i - 1)) commits"
			[ "$(nquery)" = $((i - 1)) ] || fail "$cache: query has $(nquery) files at version $((i - 1))"
			[ "$(nmeta)" = $((i - 1)) ] || fail "$cache: metadata numFiles $(nmeta) at version $((i - 1))"
		done
		append "$t" "$i"
	done
	# Deleted and written again up to the same version (4), one file per
	# commit but two rows in the last: the new files are served.
	rm -rf "$t"
	"$D" create "$t" --schema "id BIGINT" -q >/dev/null
	append "$t" 10
	append "$t" 11
	append "$t" 12
	printf 'id\n13\n14\n' >"$tmp/in.csv"
	"$D" write "$t" -i "$tmp/in.csv" -m append -q >/dev/null
	[ "$(version)" = 4 ] || fail "$cache: rewritten table at version $(version)"
	req "$tmp/q" -X POST -H "$A" -H 'Content-Type: application/json' -d '{}' "$T/query" >/dev/null
	grep -q '"numRecords\\":2' "$tmp/q" || fail "$cache: the rewritten table's last file is not served: $(grep -c '^{"file"' "$tmp/q") files"
	req "$tmp/q" -X POST -H "$A" -H 'Content-Type: application/json' -d '{"version":1}' "$T/query" >/dev/null
	grep -q '"numRecords\\":1,\\"minValues\\":{\\"id\\":10}' "$tmp/q" || fail "$cache: version 1 of the rewritten table is the old one"
	# Concurrent queries while commits land: each answer is one version.
	for i in $(seq 20 27); do append "$t" "$i"; done &
	writer=$!
	for r in $(seq 1 40); do
		echo "$r"
	done | xargs -P 8 -I@ sh -c "curl -s -D '$tmp/c@.h' -o '$tmp/c@' -X POST -H '$A' -H 'Content-Type: application/json' -d '{}' '$T/query'"
	wait "$writer"
	for r in $(seq 1 40); do
		v=$(header "$tmp/c$r.h" delta-table-version)
		n=$(grep -c '^{"file"' "$tmp/c$r")
		[ -n "$v" ] || { fail "$cache: answer $r has no version"; continue; }
		[ "$n" = "$(files_at "$t" "$v")" ] || fail "$cache: answer $r of version $v has $n files, the version has $(files_at "$t" "$v")"
	done
	stop_server
done
[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "sharing server snapshot cache: ok"
