#!/usr/bin/env bash
# Streaming on S3 (Ceph RGW, see lib/s3_env.sh): ingest killed and
# restarted, follow resumed from a checkpoint in the bucket, follow --into
# killed and restarted (lib/stream_remote.sh). Needs DL_CLI.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/s3_env.sh"
s3_env
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
bucket=dl-stream-$$-$(date +%s)
s3_make_bucket "$bucket"
ROOT=s3://$bucket/stream
. "$here/lib/stream_remote.sh"
stream_remote_run
[ "$fails" = 0 ] && echo "s3_stream: all passed"
exit $((fails > 0))
