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
UI_PID=
trap '[ -n "$UI_PID" ] && kill "$UI_PID" 2>/dev/null; rm -rf "$tmp"' EXIT
art="$DL_BINARY_DIR/artifacts/ui"
mkdir -p "$art"
G="$DL_SHARED_DIR/conformance/golden"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

start_ui() {
	: >"$tmp/ui.out"
	"$DL_CLI" ui "$1" --port 0 "${@:2}" >"$tmp/ui.out" 2>"$tmp/ui.err" &
	UI_PID=$!
	for _ in $(seq 1 600); do
		grep -q 'http://' "$tmp/ui.out" && break
		kill -0 "$UI_PID" 2>/dev/null || break
		sleep 0.1
	done
	UI_URL=$(grep -o 'http://[^ ]*' "$tmp/ui.out" | head -1)
	[ -n "$UI_URL" ] || { fail "deltalake ui $1 printed no URL: $(cat "$tmp/ui.err")"; return 1; }
}
stop_ui() {
	kill -TERM "$UI_PID"
	wait "$UI_PID" || fail "deltalake ui exited $? on SIGTERM"
	UI_PID=
}
browser() { timeout 300 node "$DL_SOURCE_DIR/tests/browser/ui_test.mjs" "$@" || fail "ui_test.mjs $1 ${4:-}"; }

# A conformance table: deletion vectors, partitions, 16 commits.
if start_ui "$G/dv-partitioned-with-checkpoint/delta"; then
	browser full "$UI_URL" "$art" conformance
	stop_ui
fi

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
if start_ui "$T"; then
	browser full "$UI_URL" "$art" events
	stop_ui
fi

# The 300k-file bench log: the page loads (the time is printed, not asserted).
BENCH="$DL_SHARED_DIR/bench-data/300k-add-files-100-col-partitioned"
if [ -d "$BENCH/_delta_log" ]; then
	if start_ui "$BENCH"; then
		browser bench "$UI_URL" "$art" bench-300k
		stop_ui
	fi
else
	echo "note: no $BENCH: the 300k-file page is not tested"
fi

# Bound beyond loopback: the token is required (the page is reached on 127.0.0.1).
if start_ui "$G/dv-partitioned-with-checkpoint/delta" --bind 0.0.0.0; then
	tok=${UI_URL##*token=}
	url=${UI_URL/0.0.0.0/127.0.0.1}
	browser token "${url%%\?*}" "$art" token "$tok"
	stop_ui
fi

ls "$art"/*.png >/dev/null 2>&1 || fail "no screenshots in $art"
[ $fails -eq 0 ] && echo "ok: deltalake ui in chromium; screenshots in $art"
exit $((fails > 0))
