#!/usr/bin/env bash
# Arrow IPC stream interop: libdeltalake writes a stream holding every Delta
# type (nested arbitrarily, with nulls); the apache-arrow npm package reads it
# back and checks the schema and every value.
set -euo pipefail
: "${DL_BINARY_DIR:?}" "${DL_SOURCE_DIR:?}" "${DL_ORACLE_DIR:?}"
writer="$DL_BINARY_DIR/tests/test_columnar_ipc_writer"
if [ ! -x "$writer" ]; then
	echo "missing $writer: build the test_columnar_ipc_writer target" >&2
	exit 1
fi
if [ ! -d "$DL_ORACLE_DIR/node_modules/apache-arrow" ]; then
	echo "missing apache-arrow in $DL_ORACLE_DIR/node_modules" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$writer" --write "$tmp/sample.arrows"
node "$DL_SOURCE_DIR/tests/integration/arrow_ipc_check.mjs" "$DL_ORACLE_DIR" "$tmp/sample.arrows"
