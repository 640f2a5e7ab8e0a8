#!/usr/bin/env bash
# The CLI on s3:// tables on a real S3 server (Ceph RGW, see lib/s3_env.sh):
# create, write, cat, time travel, checkpoints, the change data feed,
# cleanup-log, s3a:// naming the same table, and one clear error line each
# for bad credentials, a missing bucket and an unreachable endpoint.
# Needs DL_CLI.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/s3_env.sh"
s3_env
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
D=$DL_CLI
bucket=dl-cli-$$-$(date +%s)
s3_make_bucket "$bucket"
t=s3://$bucket/tables/events

# ---- create, write, read ----
"$D" create "$t" --schema "id BIGINT NOT NULL, name STRING" \
	--property delta.enableChangeDataFeed=true -q >/dev/null || fail "create on S3 failed"
for v in 1 2 3; do
	printf 'id,name\n%d,n%d\n%d,m%d\n' $((v * 10)) "$v" $((v * 10 + 1)) "$v" >"$tmp/in.csv"
	"$D" write "$t" -i "$tmp/in.csv" -m append -q >/dev/null 2>"$tmp/err" || fail "write $v: $(cat "$tmp/err")"
done
n=$("$D" cat "$t" --format csv | tail -n +2 | wc -l)
[ "$n" = 6 ] || fail "cat gives $n rows, expected 6"
[ "$(s3_status "$bucket" "tables/events/_delta_log/00000000000000000003.json")" = 200 ] ||
	fail "commit 3 is not an object of the bucket"

# ---- time travel ----
got=$("$D" cat "$t" --version 1 --columns id --format csv | tail -n +2 | sort -n | tr '\n' ' ')
[ "$got" = "10 11 " ] || fail "version 1 holds '$got', expected '10 11 '"
latest=$("$D" history "$t" -n 1 --format csv | awk -F, 'NR == 2 { print $1 }')
[ "$latest" = 3 ] || fail "history says the latest version is '$latest', expected 3"

# ---- checkpoint: written to the bucket and used ----
"$D" checkpoint "$t" -q >/dev/null 2>"$tmp/err" || fail "checkpoint: $(cat "$tmp/err")"
[ "$(s3_status "$bucket" "tables/events/_delta_log/_last_checkpoint")" = 200 ] || fail "no _last_checkpoint after checkpoint"
[ "$(s3_status "$bucket" "tables/events/_delta_log/00000000000000000003.checkpoint.parquet")" = 200 ] ||
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

# ---- cleanup-log: lists and reads the log on S3 and keeps the table readable ----
# (As in Spark the cutoff is truncated to the start of its day, so commits
# made seconds ago never expire; S3 has no way to age an object, so this
# only shows cleanup-log works over S3, not what it deletes.)
"$D" cleanup-log "$t" --retention 'interval 0 seconds' -q >/dev/null 2>"$tmp/err" || fail "cleanup-log: $(cat "$tmp/err")"
[ "$(s3_status "$bucket" "tables/events/_delta_log/00000000000000000004.json")" = 200 ] ||
	fail "cleanup-log deleted the newest commit"
n=$("$D" cat "$t" --format csv | tail -n +2 | wc -l)
[ "$n" = 7 ] || fail "after cleanup-log cat gives $n rows, expected 7"

# ---- s3a:// is the same table ----
n=$("$D" cat "s3a://$bucket/tables/events" --format csv | tail -n +2 | wc -l)
[ "$n" = 7 ] || fail "s3a:// reads $n rows, expected 7"

# ---- one clear error line each ----
one_error() { # WHAT PATTERN CMD...
	local what=$1 pat=$2
	shift 2
	if "$@" >/dev/null 2>"$tmp/err"; then fail "$what: succeeded"; return; fi
	[ "$(wc -l <"$tmp/err")" = 1 ] || fail "$what: $(wc -l <"$tmp/err") lines of errors: $(cat "$tmp/err")"
	grep -Eq "$pat" "$tmp/err" || fail "$what: the error does not match /$pat/: $(cat "$tmp/err")"
}
one_error "bad secret" "HTTP 403 SignatureDoesNotMatch.*check the credentials" \
	env AWS_SECRET_ACCESS_KEY=wrong "$D" cat "$t"
one_error "unknown key id" "HTTP 403 InvalidAccessKeyId.*check the credentials" \
	env AWS_ACCESS_KEY_ID=NOSUCHKEY "$D" cat "$t"
one_error "missing bucket" "HTTP 404 NoSuchBucket.*check the bucket name" \
	"$D" cat "s3://no-such-bucket-$$/t"
one_error "unreachable endpoint" "Couldn't connect.*check the endpoint" \
	env AWS_ENDPOINT_URL=http://127.0.0.1:1 "$D" cat "$t"
one_error "plain http without allow_http" "allow_http" \
	env -u AWS_ALLOW_HTTP "$D" cat "$t"
one_error "no credentials" "no AWS credentials found" \
	env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY HOME="$tmp" "$D" cat "$t"

# ---- --storage-option (delta-rs names too) instead of the environment ----
n=$(env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_ENDPOINT_URL -u AWS_ALLOW_HTTP HOME="$tmp" \
	"$D" cat "$t" --storage-option "AWS_ENDPOINT_URL=$DL_TEST_S3_ENDPOINT" \
	--storage-option "aws_access_key_id=$DL_TEST_S3_ACCESS_KEY_ID" \
	--storage-option="secret_access_key=$DL_TEST_S3_SECRET_ACCESS_KEY" --storage-option aws_allow_http=true \
	--format csv | tail -n +2 | wc -l)
[ "$n" = 7 ] || fail "with --storage-option credentials cat gives $n rows, expected 7"
one_error "unknown storage option" 'unknown store option "s3.bogus"' "$D" cat "$t" --storage-option s3.bogus=1

# ---- credentials from a ~/.aws profile ----
mkdir -p "$tmp/home/.aws"
printf '[dl]\naws_access_key_id = %s\naws_secret_access_key = %s\n' "$DL_TEST_S3_ACCESS_KEY_ID" \
	"$DL_TEST_S3_SECRET_ACCESS_KEY" >"$tmp/home/.aws/credentials"
printf '[profile dl]\nregion = %s\n' "${DL_TEST_S3_REGION:-us-east-1}" >"$tmp/home/.aws/config"
n=$(env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY HOME="$tmp/home" AWS_PROFILE=dl "$D" cat "$t" --format csv | tail -n +2 | wc -l)
[ "$n" = 7 ] || fail "with credentials from profile dl in ~/.aws/credentials cat gives $n rows, expected 7"

[ "$fails" = 0 ] && echo "s3_cli: all checks passed"
exit $((fails > 0))
