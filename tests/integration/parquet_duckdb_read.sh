#!/usr/bin/env bash
# The Parquet reader through the CLI: files written by DuckDB (v1 and v2
# pages, several codecs, nulls, lists, nested structs, several row groups)
# are printed by `deltalake parquet cat --format jsonl` and compared row for
# row with DuckDB's reading of the same files. The exhaustive type/codec
# comparison is the unit test parquet/reader_duckdb.
set -euo pipefail
: "${DL_CLI:?}" "${DL_SOURCE_DIR:?}"
export DL_ORACLE_DIR=${DL_ORACLE_DIR:-$DL_SOURCE_DIR/tools/oracle}
oracle=$DL_SOURCE_DIR/tests/integration/parquet_read_oracle.mjs
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
files=$(node "$oracle" gen-cli "$dir")
n=0
for f in $files; do
	"$DL_CLI" parquet cat --format jsonl "$f" > "$f.jsonl"
	node "$oracle" compare-cli "$f" "$f.jsonl"
	n=$((n + 1))
done
[ "$n" -ge 4 ] || { echo "expected 4 files, got $n" >&2; exit 1; }
echo "parquet_duckdb_read: $n files match DuckDB"
