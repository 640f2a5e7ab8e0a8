#!/usr/bin/env bash
# A data file larger than one block on Azurite (see lib/azure_env.sh): with
# azure.block_size=1 MiB a ~12 MB Parquet file goes up as Put Block calls
# and one Put Block List (Get Block List shows its committed blocks), reads
# back with every row and the same values, and a failed write leaves no
# blob behind. Needs DL_CLI and python3.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/azure_env.sh"
command -v python3 >/dev/null || az_unavailable "python3 (to make the input) is not installed"
az_env
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
D=$DL_CLI
c=dl-blocks-$$-$(date +%s)
az_make_container "$c"
t=az://$c/wide

# 40,000 rows of 50 random BIGINTs: ~12 MB of Parquet that does not compress
python3 - "$tmp/in.csv" <<'PY'
import random, sys
random.seed(7)
with open(sys.argv[1], "w") as f:
    f.write(",".join("c%d" % i for i in range(50)) + "\n")
    for _ in range(40000):
        f.write(",".join(str(random.randint(0, 1 << 40)) for _ in range(50)) + "\n")
PY
"$D" write "$t" -i "$tmp/in.csv" --storage-option azure.block_size=1048576 -q >/dev/null 2>"$tmp/err" ||
	fail "write: $(cat "$tmp/err")"
az_curl GET "/$c" "comp=list&prefix=wide/&restype=container" | grep -o '<Name>[^<]*\.parquet</Name>' |
	sed 's/<[^>]*>//g' >"$tmp/files"
[ "$(wc -l <"$tmp/files")" = 1 ] || fail "expected one data file, the container lists: $(cat "$tmp/files")"
f=$(head -1 "$tmp/files")
blocks=$(az_curl GET "/$c/$f" "blocklisttype=committed&comp=blocklist" | grep -o '<Block>' | wc -l)
[ "$blocks" -ge 10 ] || fail "$f was committed as $blocks blocks, expected a block list of 10 or more"
n=$("$D" cat "$t" --columns c0 --format csv | tail -n +2 | wc -l)
[ "$n" = 40000 ] || fail "read back $n rows, expected 40000"
want=$(tail -n +2 "$tmp/in.csv" | cut -d, -f50 | sort | md5sum)
got=$("$D" cat "$t" --columns c49 --format csv | tail -n +2 | sort | md5sum)
[ "$want" = "$got" ] || fail "column c49 read back differs from what was written"

# a write that fails (a bad value in the last row) commits nothing and
# leaves no blob that a listing shows (blocks put for it stay uncommitted)
cp "$tmp/in.csv" "$tmp/bad.csv"
printf '%s\n' "$(printf 'x,%.0s' $(seq 49))x" >>"$tmp/bad.csv"
if "$D" write "$t" -i "$tmp/bad.csv" --storage-option azure.block_size=1048576 -q >/dev/null 2>"$tmp/err"; then
	fail "a write of a bad CSV succeeded"
fi
az_curl GET "/$c" "comp=list&prefix=wide/&restype=container" | grep -o '<Name>[^<]*</Name>' |
	sed 's/<[^>]*>//g' | grep -v _delta_log >"$tmp/after"
[ "$(cat "$tmp/after")" = "$f" ] || fail "after a failed write the container holds: $(cat "$tmp/after")"
[ "$("$D" history "$t" -n 1 --format csv | awk -F, 'NR == 2 { print $1 }')" = 0 ] || fail "the failed write committed"
[ "$fails" = 0 ] && echo "azure_multipart: all checks passed ($blocks blocks)"
exit $((fails > 0))
