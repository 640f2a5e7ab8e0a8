#!/usr/bin/env bash
# Streaming on Azure Blob (Azurite, see lib/azure_env.sh): ingest killed
# and restarted, follow resumed from a checkpoint in the container, follow
# --into killed and restarted (lib/stream_remote.sh). Needs DL_CLI.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/azure_env.sh"
az_env
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
c=dl-stream-$$-$(date +%s)
az_make_container "$c"
ROOT=az://$c/stream
. "$here/lib/stream_remote.sh"
stream_remote_run
[ "$fails" = 0 ] && echo "azure_stream: all passed"
exit $((fails > 0))
