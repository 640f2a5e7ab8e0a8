#!/usr/bin/env bash
# The CLI on Azure Blob tables on Azurite (see lib/azure_env.sh): create,
# write, cat, time travel, checkpoints, the change data feed, cleanup-log,
# delete, update and SQL;
# the same table named as az://, abfss://container@account.dfs... and
# wasbs://; delta-rs's option names through --storage-option, the emulator
# switch, a connection string, SAS tokens; and one clear error line each for a bad
# key, a missing container, an unreachable endpoint, plain http without
# consent and missing credentials. Needs DL_CLI.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/azure_env.sh"
az_env
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
D=$DL_CLI
c=dl-cli-$$-$(date +%s)
az_make_container "$c"
t=az://$c/tables/events
acct=$DL_TEST_AZURE_ACCOUNT

# ---- create, write, read ----
"$D" create "$t" --schema "id BIGINT NOT NULL, name STRING" \
	--property delta.enableChangeDataFeed=true -q >/dev/null || fail "create on Azure failed"
for v in 1 2 3; do
	printf 'id,name\n%d,n%d\n%d,m%d\n' $((v * 10)) "$v" $((v * 10 + 1)) "$v" >"$tmp/in.csv"
	"$D" write "$t" -i "$tmp/in.csv" -m append -q >/dev/null 2>"$tmp/err" || fail "write $v: $(cat "$tmp/err")"
done
n=$("$D" cat "$t" --format csv | tail -n +2 | wc -l)
[ "$n" = 6 ] || fail "cat gives $n rows, expected 6"
[ "$(az_status "$c" "tables/events/_delta_log/00000000000000000003.json")" = 200 ] ||
	fail "commit 3 is not a blob of the container"

# ---- time travel ----
got=$("$D" cat "$t" --version 1 --columns id --format csv | tail -n +2 | sort -n | tr '\n' ' ')
[ "$got" = "10 11 " ] || fail "version 1 holds '$got', expected '10 11 '"
latest=$("$D" history "$t" -n 1 --format csv | awk -F, 'NR == 2 { print $1 }')
[ "$latest" = 3 ] || fail "history says the latest version is '$latest', expected 3"

# ---- a commit that exists is not overwritten ----
before=$(az_curl GET "/$c/tables/events/_delta_log/00000000000000000001.json" "" | md5sum)
code=$(AZ_INM='*' AZ_XMS=x-ms-blob-type:BlockBlob az_curl PUT "/$c/tables/events/_delta_log/00000000000000000001.json" "" \
	-o /dev/null -w '%{http_code}' -H 'Content-Length: 0')
case "$code" in 409 | 412) ;; *) fail "Azurite answered $code to a second If-None-Match: * Put Blob (expected 409)" ;; esac
[ "$(az_curl GET "/$c/tables/events/_delta_log/00000000000000000001.json" "" | md5sum)" = "$before" ] ||
	fail "commit 1 changed"

# ---- checkpoint: written to the container and used ----
"$D" checkpoint "$t" -q >/dev/null 2>"$tmp/err" || fail "checkpoint: $(cat "$tmp/err")"
[ "$(az_status "$c" "tables/events/_delta_log/_last_checkpoint")" = 200 ] || fail "no _last_checkpoint after checkpoint"
[ "$(az_status "$c" "tables/events/_delta_log/00000000000000000003.checkpoint.parquet")" = 200 ] ||
	fail "no checkpoint parquet for version 3"
printf 'id,name\n40,n4\n' >"$tmp/in.csv"
"$D" write "$t" -i "$tmp/in.csv" -m append -q >/dev/null 2>"$tmp/err" || fail "write after checkpoint: $(cat "$tmp/err")"
n=$("$D" cat "$t" --format csv | tail -n +2 | wc -l)
[ "$n" = 7 ] || fail "after the checkpoint cat gives $n rows, expected 7"

# ---- change data feed ----
got=$("$D" changes "$t" --from 2 --to 2 --format csv | tail -n +2 | cut -d, -f1,3 | sort | tr '\n' ' ')
case "$got" in
*"20,"*"21,"*) ;;
*) fail "changes of version 2 are '$got', expected the inserts of ids 20 and 21" ;;
esac

# ---- cleanup-log lists and reads the log and keeps the table readable ----
"$D" cleanup-log "$t" --retention 'interval 0 seconds' -q >/dev/null 2>"$tmp/err" || fail "cleanup-log: $(cat "$tmp/err")"
n=$("$D" cat "$t" --format csv | tail -n +2 | wc -l)
[ "$n" = 7 ] || fail "after cleanup-log cat gives $n rows, expected 7"

# ---- the Hadoop names of the same table (the endpoint still Azurite's) ----
for u in "abfss://$c@$acct.dfs.core.windows.net/tables/events" "abfs://$c@$acct.dfs.core.windows.net/tables/events/" \
	"wasbs://$c@$acct.blob.core.windows.net/tables/events" "azure://$c/tables/events"; do
	n=$("$D" cat "$u" --format csv 2>"$tmp/err" | tail -n +2 | wc -l)
	[ "$n" = 7 ] || fail "$u reads $n rows, expected 7: $(cat "$tmp/err")"
done

# ---- delta-rs's option names instead of the environment ----
noenv=(env -u AZURE_STORAGE_ACCOUNT_NAME -u AZURE_STORAGE_ACCOUNT_KEY -u AZURE_STORAGE_ENDPOINT -u AZURE_ALLOW_HTTP)
n=$("${noenv[@]}" "$D" cat "$t" --storage-option "azure_storage_account_name=$acct" \
	--storage-option "azure_storage_account_key=$DL_TEST_AZURE_KEY" \
	--storage-option "azure_storage_endpoint=$DL_TEST_AZURE_ENDPOINT" --storage-option azure_allow_http=true \
	--format csv 2>"$tmp/err" | tail -n +2 | wc -l)
[ "$n" = 7 ] || fail "with --storage-option credentials cat gives $n rows, expected 7: $(cat "$tmp/err")"
n=$("${noenv[@]}" AZURITE_BLOB_STORAGE_URL="${DL_TEST_AZURE_ENDPOINT%/"$acct"}" "$D" cat "$t" \
	--storage-option azure_storage_use_emulator=true --format csv 2>"$tmp/err" | tail -n +2 | wc -l)
[ "$n" = 7 ] || fail "with azure_storage_use_emulator=true cat gives $n rows, expected 7: $(cat "$tmp/err")"
n=$("${noenv[@]}" AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=http;AccountName=$acct;AccountKey=$DL_TEST_AZURE_KEY;BlobEndpoint=$DL_TEST_AZURE_ENDPOINT;" \
	"$D" cat "$t" --format csv 2>"$tmp/err" | tail -n +2 | wc -l)
[ "$n" = 7 ] || fail "with AZURE_STORAGE_CONNECTION_STRING cat gives $n rows, expected 7: $(cat "$tmp/err")"

# ---- a SAS token instead of the key ----
sas=$(az_sas rwdlac)
printf 'id,name\n50,n5\n' >"$tmp/in.csv"
env -u AZURE_STORAGE_ACCOUNT_KEY AZURE_STORAGE_SAS_TOKEN="?$sas" "$D" write "$t" -i "$tmp/in.csv" -m append -q \
	>/dev/null 2>"$tmp/err" || fail "write with a SAS token: $(cat "$tmp/err")"
n=$(env -u AZURE_STORAGE_ACCOUNT_KEY "$D" cat "$t" --storage-option "azure_storage_sas_token=$sas" --format csv \
	2>"$tmp/err" | tail -n +2 | wc -l)
[ "$n" = 8 ] || fail "with a SAS token cat gives $n rows, expected 8: $(cat "$tmp/err")"

# ---- names that need encoding (and signing as encoded) ----
pt="az://$c/part tab"
"$D" create "$pt" --schema "id BIGINT, p STRING" --partition-by p -q >/dev/null 2>"$tmp/err" || fail "create '$pt': $(cat "$tmp/err")"
printf 'id,p\n1,a b\n2,x=y+z\n3,\303\274%%&<>\n' >"$tmp/p.csv"
"$D" write "$pt" -i "$tmp/p.csv" -m append -q >/dev/null 2>"$tmp/err" || fail "write '$pt': $(cat "$tmp/err")"
got=$("$D" cat "$pt" --format csv 2>"$tmp/err" | tail -n +2 | sort | tr '\n' '|')
[ "$got" = "$(printf '1,a b|2,x=y+z|3,\303\274%%&<>|')" ] || fail "partition values read back as '$got': $(cat "$tmp/err")"

# ---- DML and SQL on the same store ----
"$D" delete "$t" --where 'id = 50' -q >/dev/null 2>"$tmp/err" || fail "delete: $(cat "$tmp/err")"
"$D" update "$t" --set "name = 'renamed'" --where 'id = 10' -q >/dev/null 2>"$tmp/err" || fail "update: $(cat "$tmp/err")"
got=$("$D" sql "SELECT count(*) AS n, max(CASE WHEN id = 10 THEN name END) AS m FROM delta.\`$t\`" --format csv 2>"$tmp/err" | tail -n +2)
[ "$got" = "7,renamed" ] || fail "after delete and update SQL reads '$got', expected '7,renamed': $(cat "$tmp/err")"

# ---- one clear error line each ----
one_error() { # WHAT PATTERN CMD...
	local what=$1 pat=$2
	shift 2
	if "$@" >/dev/null 2>"$tmp/err"; then fail "$what: succeeded"; return; fi
	[ "$(wc -l <"$tmp/err")" = 1 ] || fail "$what: $(wc -l <"$tmp/err") lines of errors: $(cat "$tmp/err")"
	grep -Eq "$pat" "$tmp/err" || fail "$what: the error does not match /$pat/: $(cat "$tmp/err")"
	! grep -qF "$DL_TEST_AZURE_KEY" "$tmp/err" || fail "$what: the error shows the account key"
}
bad_key=$(printf 'not-the-key-of-this-account' | openssl base64 -A)
one_error "wrong key" "HTTP 403 .*check the credentials" \
	env AZURE_STORAGE_ACCOUNT_KEY="$bad_key" "$D" cat "$t"
one_error "missing container" "HTTP 404 ContainerNotFound.*check the container name" \
	"$D" cat "az://no-such-container-$$/t"
one_error "unreachable endpoint" "Couldn't connect.*check the endpoint" \
	env AZURE_STORAGE_ENDPOINT=http://127.0.0.1:1/$acct "$D" cat "$t"
one_error "plain http without consent" "azure_allow_http" \
	env -u AZURE_ALLOW_HTTP "$D" cat "$t"
one_error "no credentials" "no Azure credentials found" \
	env -u AZURE_STORAGE_ACCOUNT_KEY "$D" cat "$t"
one_error "read-only SAS token writing" "HTTP 403 .*check the credentials.*SAS" \
	env -u AZURE_STORAGE_ACCOUNT_KEY AZURE_STORAGE_SAS_TOKEN="$(az_sas rl)" "$D" write "$t" -i "$tmp/in.csv" -m append -q
one_error "forged SAS token" "HTTP 403 .*check the credentials" \
	env -u AZURE_STORAGE_ACCOUNT_KEY AZURE_STORAGE_SAS_TOKEN="${sas%sig=*}sig=AAAA" "$D" cat "$t"
one_error "unknown storage option" 'unknown store option "azure.bogus"' "$D" cat "$t" --storage-option azure.bogus=1
one_error "missing table" "no such|not a Delta table|does not exist" "$D" cat "az://$c/nothing/here"

[ "$fails" = 0 ] && echo "azure_cli: all checks passed"
exit $((fails > 0))
