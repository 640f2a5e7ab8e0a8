#!/usr/bin/env bash
# `deltalake ui` in a real browser (Debian's chromium driven by
# playwright-core, tests/browser/ui_test.mjs): the page and each view for a
# conformance table and for a table built here (liquid clustering, column
# mapping, deletion vectors), the page of the 300k-file bench log, and the
# access token when bound beyond loopback. Screenshots of every view go to
# $DL_BINARY_DIR/artifacts/ui/. Without chromium or playwright-core this
# skips, except in CI (CI=true), where it fails.
# Needs DL_CLI, DL_SHARED_DIR, DL_ORACLE_DIR, DL_SOURCE_DIR, DL_BINARY_DIR.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
: "${DL_SHARED_DIR:?DL_SHARED_DIR must name the shared directory}"
: "${DL_ORACLE_DIR:?DL_ORACLE_DIR must name tools/oracle}"
: "${DL_SOURCE_DIR:?DL_SOURCE_DIR must name the source tree}"
: "${DL_BINARY_DIR:?DL_BINARY_DIR must name the build tree}"
missing() {
	if [ "${CI:-}" = true ]; then
		echo "FAIL: $1 (in CI the browser tests must run: scripts/install-deps.sh installs chromium, scripts/install-oracle.sh playwright-core)" >&2
		exit 1
	fi
	echo "SKIP: $1"
	exit 0
}
[ -x /usr/bin/chromium ] || missing "no /usr/bin/chromium"
[ -f "$DL_ORACLE_DIR/node_modules/playwright-core/index.mjs" ] || missing "no playwright-core in $DL_ORACLE_DIR/node_modules"
command -v node >/dev/null || missing "no node"
tmp=$(mktemp -d)
art="$DL_BINARY_DIR/artifacts/ui"
mkdir -p "$art"
G="$DL_SHARED_DIR/conformance/golden"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# start_ui NAME TABLE ARGS...: `deltalake ui TABLE --port 0 ARGS...` in the
# background; sets URL_<NAME> and adds its pid to PIDS.
PIDS=()
start_ui() {
	local name=$1 table=$2
	shift 2
	"$DL_CLI" ui "$table" --port 0 "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
	local pid=$!
	PIDS+=("$pid")
	for _ in $(seq 1 600); do
		grep -q 'http://' "$tmp/$name.out" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	local url
	url=$(grep -o 'http://[^ ]*' "$tmp/$name.out" | head -1)
	[ -n "$url" ] || fail "deltalake ui $table printed no URL: $(cat "$tmp/$name.err")"
	printf -v "URL_$name" '%s' "$url"
}
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT

# Built here: liquid clustering on id, column mapping, nested and generated
# columns, appends with overlapping ranges and a DELETE with deletion vectors.
T="$tmp/events"
"$DL_CLI" create "$T" -q --name events --schema "id BIGINT NOT NULL, name STRING COMMENT 'who', s STRUCT<a: INT, b: STRING>, id2 BIGINT GENERATED ALWAYS AS (id * 2)" \
	--cluster-by id --property delta.columnMapping.mode=name --property delta.enableDeletionVectors=true >/dev/null || fail "create"
for i in 0 1 2 3 4 5; do
	{
		echo 'id,name'
		for j in $(seq 0 $((20 + i * 40))); do echo "$((i * 15 + j)),name$j"; done
	} >"$tmp/in$i.csv"
	"$DL_CLI" write "$T" -q -i "$tmp/in$i.csv" --mode append --user-metadata "batch $i" >/dev/null || fail "write $i"
done
"$DL_CLI" delete "$T" -q --where "id % 7 = 0" >/dev/null || fail "delete"

# The servers: a conformance table (deletion vectors, partitions, 16
# commits), the table above, the 300k-file bench log, and one bound beyond
# loopback (reached on 127.0.0.1; its token must be given).
jobs=()
start_ui conformance "$G/dv-partitioned-with-checkpoint/delta" && jobs+=("full,$URL_conformance,conformance")
start_ui events "$T" && jobs+=("full,$URL_events,events")
BENCH="$DL_SHARED_DIR/bench-data/300k-add-files-100-col-partitioned"
if [ -d "$BENCH/_delta_log" ]; then
	start_ui bench "$BENCH" && jobs+=("bench,$URL_bench,bench-300k,$BENCH")
else
	echo "note: no $BENCH: the 300k-file page is not tested"
fi
if start_ui token "$G/dv-partitioned-with-checkpoint/delta" --bind 0.0.0.0; then
	tok=${URL_token##*token=}
	url=${URL_token/0.0.0.0/127.0.0.1}
	jobs+=("token,${url%%\?*},token,$tok")
fi

# One chromium for all (the page load times are printed, not asserted).
timeout 300 node "$DL_SOURCE_DIR/tests/browser/ui_test.mjs" "$art" "${jobs[@]}" || fail "ui_test.mjs"

# Each server stops on SIGTERM with exit 0.
for p in "${PIDS[@]}"; do
	kill -TERM "$p"
	wait "$p" || fail "deltalake ui (pid $p) exited $? on SIGTERM"
done
PIDS=()

ls "$art"/*.png >/dev/null 2>&1 || fail "no screenshots in $art"
[ $fails -eq 0 ] && echo "ok: deltalake ui in chromium; screenshots in $art"
exit $((fails > 0))
