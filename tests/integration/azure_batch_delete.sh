#!/usr/bin/env bash
# VACUUM on Azure deletes with Blob Batch (one POST
# ?restype=container&comp=batch per 256 blobs, never a DELETE per blob), on
# Azurite (lib/azure_env.sh), every request counted by the loopback relay of
# lib/s3_fault_proxy.py (no faults, --log). A table of 300 partitions, all
# deleted, then 3 rows written again: VACUUM must delete exactly the 300
# unreferenced files plus a stray one (2 batches: 256 + 45), keep the 3
# referenced files and the hidden ones (with --threads 1, so the batches
# are VACUUM's one list cut by the service's limit). cleanup-log's batches
# are counted in tests/unit/txn/test_log_cleanup_batch.c: a commit made
# seconds ago never expires (the cut-off is a day boundary) and no server
# can age a blob. A blob under a lease cannot be
# deleted: VACUUM must fail naming it and the lease, after deleting the
# rest. Needs DL_CLI and python3.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/azure_env.sh"
command -v python3 >/dev/null || az_unavailable "python3 (for the request-counting relay) is not installed"
az_env
tmp=$(mktemp -d)
proxy_pid=
cleanup() { [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null; wait 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$tmp"; }
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
D=$DL_CLI
c=dl-batch-$$-$(date +%s)
az_make_container "$c"
t=az://$c/t

hostport=${DL_TEST_AZURE_ENDPOINT#http://}
account_path=/${hostport#*/}
hostport=${hostport%%/*}
python3 "$here/lib/s3_fault_proxy.py" "$hostport" --log "$tmp/requests" >"$tmp/port" 2>"$tmp/proxy.err" &
proxy_pid=$!
for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
port=$(cat "$tmp/port")
[ -n "$port" ] || { fail "the relay did not start: $(cat "$tmp/proxy.err")"; exit 1; }
export AZURE_STORAGE_ENDPOINT=http://127.0.0.1:$port$account_path
mark() { : >"$tmp/requests"; }
seen() { grep -c "$1" "$tmp/requests" || true; }
# the blobs under the table's root whose names start with $1 (relative)
blobs() {
	az_curl GET "/$c" "comp=list&restype=container" | grep -o '<Name>[^<]*</Name>' |
		sed 's/<Name>t\///; s/<\/Name>//' | grep -F -- "$1" | grep -- "^$1" | sort
}
put_blob() {
	AZ_XMS='x-ms-blob-type:BlockBlob' az_curl PUT "/$c/t/$1" "" -o /dev/null -w '%{http_code}' -H 'Content-Length: 0'
}

# ---- 300 files, all deleted, then 3 rows again ----
"$D" create "$t" --schema "id BIGINT NOT NULL, p INT" --partition-by p -q >/dev/null 2>"$tmp/err" ||
	fail "create: $(cat "$tmp/err")"
{ echo id,p; for i in $(seq 1 300); do echo "$i,$i"; done; } >"$tmp/many.csv"
"$D" write "$t" -i "$tmp/many.csv" -m append -q >/dev/null 2>"$tmp/err" || fail "write 300: $(cat "$tmp/err")"
"$D" delete "$t" --where "true" -q >/dev/null 2>"$tmp/err" || fail "delete: $(cat "$tmp/err")"
printf 'id,p\n1001,1\n1002,2\n1003,3\n' >"$tmp/few.csv"
"$D" write "$t" -i "$tmp/few.csv" -m append -q >/dev/null 2>"$tmp/err" || fail "write 3: $(cat "$tmp/err")"
# a stray file VACUUM deletes, hidden ones it keeps
[ "$(put_blob p=7/stray.parquet)" = 201 ] || fail "putting a stray blob failed"
[ "$(put_blob _hidden/x.parquet)" = 201 ] || fail "putting a hidden blob failed"
[ "$(put_blob p=7/.hidden.parquet)" = 201 ] || fail "putting a hidden blob failed"
[ "$(blobs p= | grep -c 'parquet$')" = 305 ] || fail "the container holds $(blobs p= | grep -c 'parquet$') data blobs, expected 305"

mark
out=$("$D" vacuum "$t" --retain 0 --no-retention-check --threads 1 --format csv 2>"$tmp/err") || fail "vacuum: $(cat "$tmp/err")"
deleted=$(echo "$out" | awk -F, 'NR == 2 { print $3 }')
[ "${deleted:-}" = 301 ] || fail "VACUUM deleted '${deleted:-}' files, expected 301: $out"
nbatch=$(seen '^POST .*comp=batch')
echo "azure_batch_delete: VACUUM of 301 files sent $nbatch Blob Batch requests," \
	"$(seen '^DELETE ') DELETEs, $(wc -l <"$tmp/requests") requests in all"
[ "$nbatch" = 2 ] || fail "VACUUM sent $nbatch Blob Batch requests, expected 2 (256 + 45)"
[ "$(seen '^DELETE ')" = 0 ] || fail "VACUUM sent single DELETEs: $(grep '^DELETE ' "$tmp/requests" | head -3)"
# exactly the referenced files are left, and the hidden ones
"$D" files "$t" --format csv | tail -n +2 | cut -d, -f1 | sort >"$tmp/referenced"
blobs p= | grep -v '/\.' >"$tmp/left"
diff "$tmp/referenced" "$tmp/left" >/dev/null || fail "the table references $(tr '\n' ' ' <"$tmp/referenced") but the container holds $(tr '\n' ' ' <"$tmp/left")"
[ "$(wc -l <"$tmp/left")" = 3 ] || fail "$(wc -l <"$tmp/left") data files left, expected 3"
[ "$(blobs _hidden/)" = "_hidden/x.parquet" ] || fail "VACUUM deleted the hidden _hidden/x.parquet"
[ "$(blobs p=7/.hidden)" = "p=7/.hidden.parquet" ] || fail "VACUUM deleted p=7/.hidden.parquet"
got=$("$D" cat "$t" --columns id --format csv | tail -n +2 | sort | tr '\n' ' ')
[ "$got" = "1001 1002 1003 " ] || fail "after VACUUM the table holds '$got'"

# ---- the default threads: parallel batches, still no single DELETE ----
{ echo id,p; for i in $(seq 1 40); do echo "$i,$i"; done; } >"$tmp/forty.csv"
"$D" write "$t" -i "$tmp/forty.csv" -m overwrite -q >/dev/null 2>"$tmp/err" || fail "overwrite: $(cat "$tmp/err")"
mark
out=$("$D" vacuum "$t" --retain 0 --no-retention-check --format csv 2>"$tmp/err") || fail "vacuum: $(cat "$tmp/err")"
[ "$(echo "$out" | awk -F, 'NR == 2 { print $3 }')" = 3 ] || fail "the second VACUUM deleted other than the 3 overwritten files: $out"
[ "$(seen '^POST .*comp=batch')" = 1 ] && [ "$(seen '^DELETE ')" = 0 ] ||
	fail "the second VACUUM sent $(seen '^POST .*comp=batch') batches and $(seen '^DELETE ') DELETEs"
[ "$(blobs p= | grep -vc '/\.')" = 40 ] || fail "after the overwrite and VACUUM $(blobs p= | grep -vc '/\.') data files are left, expected 40"

# ---- a blob under a lease: a per-blob error, named; the rest deleted ----
[ "$(put_blob p=8/a.parquet)" = 201 ] && [ "$(put_blob p=8/b.parquet)" = 201 ] || fail "putting blobs failed"
code=$(AZ_XMS=$'x-ms-lease-action:acquire\nx-ms-lease-duration:-1' az_curl PUT "/$c/t/p=8/a.parquet" "comp=lease" \
	-o /dev/null -w '%{http_code}' -H 'Content-Length: 0')
[ "$code" = 201 ] || fail "acquiring a lease answered HTTP $code"
"$D" write "$t" -i "$tmp/forty.csv" -m overwrite -q >/dev/null 2>"$tmp/err" || fail "overwrite: $(cat "$tmp/err")"
if "$D" vacuum "$t" --retain 0 --no-retention-check --threads 1 -q >/dev/null 2>"$tmp/err"; then
	fail "VACUUM succeeded though a blob is leased"
else
	grep -q 'p=8/a.parquet' "$tmp/err" && grep -q 'LeaseIdMissing' "$tmp/err" ||
		fail "the error does not name the leased blob and LeaseIdMissing: $(cat "$tmp/err")"
	[ "$(wc -l <"$tmp/err")" = 1 ] || fail "the error is not one line: $(cat "$tmp/err")"
fi
[ -z "$(blobs p=8/b)" ] || fail "the unleased p=8/b.parquet of the same batch was not deleted"
[ "$(blobs p= | grep -v '/\.' | grep -vc '^p=8/a')" = 40 ] || fail "the 40 files the overwrite replaced were not all deleted"
[ "$(blobs p=8/a)" = "p=8/a.parquet" ] || fail "the leased blob is gone"

[ "$fails" = 0 ] && echo "azure_batch_delete: all checks passed"
exit $((fails > 0))
