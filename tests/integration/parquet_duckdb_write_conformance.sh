#!/usr/bin/env bash
# Every Parquet file of the shared conformance tables (written by Spark,
# delta-rs and others: checkpoints, nested types, INT96 timestamps, column
# mapping ids, legacy list layouts...) is rewritten by `deltalake parquet
# rewrite`; DuckDB must read the same rows from the rewrite as from the
# original. Files our reader refuses are listed but are the reader's matter.
# Needs DL_CLI, DL_SHARED_DIR, DL_ORACLE_DIR.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
: "${DL_SHARED_DIR:?DL_SHARED_DIR must name the shared directory}"
: "${DL_ORACLE_DIR:?DL_ORACLE_DIR must name tools/oracle}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 refused=0
while IFS= read -r f; do
	n=$((n + 1))
	out="$tmp/$n.parquet"
	if "$DL_CLI" parquet rewrite "$f" "$out" 2>"$tmp/err"; then
		printf '%s\t%s\n' "$f" "$out" >>"$tmp/pairs"
	else
		refused=$((refused + 1))
		echo "note: the reader refused $f: $(head -c 200 "$tmp/err")"
	fi
done < <(find "$DL_SHARED_DIR/conformance" -name '*.parquet' ! -name '._*' | sort)
[ "$n" -gt 0 ] || { echo "FAIL: no Parquet files under $DL_SHARED_DIR/conformance" >&2; exit 1; }
echo "$n files, $refused refused by the reader"
[ -s "$tmp/pairs" ] || { echo "FAIL: nothing was rewritten" >&2; exit 1; }
(cd "$DL_ORACLE_DIR" && node "$here/cli_parquet_check.mjs" same-list "$tmp/pairs")
