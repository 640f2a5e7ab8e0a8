#!/usr/bin/env bash
# Query pages, our client against our server: reads of shared tables ask
# for pages of `delta-sharing.max_files` files (maxFiles, then the
# endStreamAction's nextPageToken as pageToken), so a table of millions of
# files never needs one giant response. Paged, unpaged (max_files=0) and
# direct reads give the same rows, in both response formats and by
# version, and the number of query requests in the server's access log is
# exactly the number of pages of that size; the same for the change data
# feed's changes requests. Needs DL_CLI and DL_SHARED_DIR.
set -uo pipefail
: "${DL_SHARED_DIR:?DL_SHARED_DIR must name the shared directory}"
source "$(dirname "$0")/sharing_server_lib.bash"
D=$DL_CLI
C=$DL_SHARED_DIR/conformance
many=$C/kernel-data/v2-checkpoints-json-with-sidecars  # parquet format, many files
dvcm=$C/golden/dv-with-columnmapping/delta               # delta format (DVs, column mapping)
tt=$C/golden/time-travel-partition-changes-b/delta       # versions with different files
cdf=$C/kernel-data/cdf-table                              # change data feed: add, cdc, remove lines
token=$("$D" sharing token | awk '/^token:/ {print $2}')
hash=$(echo -n "$token" | sha256sum | awk '{print $1}')
cat >"$tmp/shares.yaml" <<YAML
version: 1
shares:
- name: "s"
  schemas:
  - name: "sc"
    tables:
    - name: "many"
      location: "$many"
    - name: "dvcm"
      location: "$dvcm"
    - name: "tt"
      location: "$tt"
      historyShared: true
    - name: "cdf"
      location: "$cdf"
      historyShared: true
recipients:
- name: "r"
  tokenHash: "sha256:$hash"
  shares: ["s"]
YAML
start_server "$tmp/shares.yaml"
P=$tmp/p.share
printf '{"shareCredentialsVersion":1,"endpoint":"%s","bearerToken":"%s"}\n' "$base" "$token" >"$P"

queries() { grep -c "\"POST /delta-sharing/shares/s/schemas/sc/tables/$1/query\" 200" "$tmp/access.log"; }
nfiles() { "$D" files "$1" --format csv "${@:2}" | tail -n +2 | wc -l; }
read_rows() { # OUT PATH ARGS...
	local out=$1 path=$2
	shift 2
	"$D" cat "$path" --format csv "$@" 2>"$tmp/err" | sort >"$out" || fail "cat $path $*: $(cat "$tmp/err")"
	[ -s "$tmp/err" ] && fail "cat $path $*: $(cat "$tmp/err")"
	return 0
}

for t in many dvcm tt; do
	case $t in many) dir=$many ;; dvcm) dir=$dvcm ;; tt) dir=$tt ;; esac
	n=$(nfiles "$dir")
	[ "$n" -ge 3 ] || fail "$t: only $n files: not a paging test"
	read_rows "$tmp/direct" "$dir"
	[ "$(wc -l <"$tmp/direct")" -gt 1 ] || fail "$t: the direct read has no rows"
	# Unpaged: one query per checkpoint build.
	q0=$(queries "$t")
	read_rows "$tmp/unpaged" "$P#s.sc.$t" --storage-option delta-sharing.max_files=0
	builds=$(( $(queries "$t") - q0 ))
	[ "$builds" -ge 1 ] || fail "$t: no query in the access log"
	cmp -s "$tmp/unpaged" "$tmp/direct" || fail "$t: unpaged rows differ from the table's"
	# Pages of 2 files: each build is ceil(n / 2) queries.
	q0=$(queries "$t")
	read_rows "$tmp/paged" "$P#s.sc.$t" --storage-option delta-sharing.max_files=2
	got=$(( $(queries "$t") - q0 ))
	want=$(( builds * ((n + 1) / 2) ))
	[ "$got" = "$want" ] || fail "$t: $got queries for $n files in pages of 2 ($builds builds); want $want"
	cmp -s "$tmp/paged" "$tmp/direct" || fail "$t: paged rows differ from the table's"
	# The default page size (10000) answers these in one page each.
	q0=$(queries "$t")
	read_rows "$tmp/default" "$P#s.sc.$t"
	[ $(( $(queries "$t") - q0 )) = "$builds" ] || fail "$t: the default read took more than one page per build"
	cmp -s "$tmp/default" "$tmp/direct" || fail "$t: default rows differ from the table's"
done

# Time travel by version and by timestamp is paged too.
for v in 0 1; do
	read_rows "$tmp/direct" "$tt" --version "$v"
	read_rows "$tmp/paged" "$P#s.sc.tt" --version "$v" --storage-option delta-sharing.max_files=1
	cmp -s "$tmp/paged" "$tmp/direct" || fail "tt version $v: paged rows differ"
done
# files lists the same files paged and unpaged (names are the file ids).
"$D" files "$P#s.sc.many" --format csv --storage-option delta-sharing.max_files=3 | sort >"$tmp/f1"
"$D" files "$P#s.sc.many" --format csv --storage-option delta-sharing.max_files=0 | sort >"$tmp/f2"
cmp -s "$tmp/f1" "$tmp/f2" || fail "files: paged and unpaged listings differ"
[ "$(wc -l <"$tmp/f1")" -gt 3 ] || fail "files: $(wc -l <"$tmp/f1") lines"

# The change data feed's commits are one changes answer, paged the same
# way (maxFiles and pageToken as query parameters): one request per page,
# rows equal to the table's own feed.
"$D" changes "$cdf" --format csv | sort >"$tmp/direct"
[ "$(wc -l <"$tmp/direct")" -gt 3 ] || fail "cdf: the direct feed has $(wc -l <"$tmp/direct") lines"
lines=$(curl -s -H "Authorization: Bearer $token" "$base/shares/s/schemas/sc/tables/cdf/changes?startingVersion=0" |
	grep -c '^{"\(add\|cdf\|remove\)"')
[ "$lines" -ge 3 ] || fail "cdf: $lines file lines in the changes answer: not a paging test"
changes_reqs() { grep -c '"GET /delta-sharing/shares/s/schemas/sc/tables/cdf/changes" 200' "$tmp/access.log"; }
for page in 0 1 2; do
	q0=$(changes_reqs)
	"$D" changes "$P#s.sc.cdf" --format csv --storage-option delta-sharing.max_files=$page 2>"$tmp/err" | sort >"$tmp/paged" ||
		fail "changes paged by $page: $(cat "$tmp/err")"
	got=$(( $(changes_reqs) - q0 ))
	want=$(( page == 0 ? 1 : (lines + page - 1) / page ))
	[ "$got" = "$want" ] || fail "changes paged by $page: $got requests for $lines lines; want $want"
	cmp -s "$tmp/paged" "$tmp/direct" || fail "changes paged by $page: rows differ from the table's feed"
done

stop_server
[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "sharing client paging: ok"
