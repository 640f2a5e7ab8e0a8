#!/usr/bin/env bash
# Installs the test oracles from the npm registry into tools/oracle/node_modules:
# DuckDB (@duckdb/node-api, which ships libduckdb), apache-arrow, avsc (an
# independent Avro reader for the UniForm tests) and playwright-core (drives
# Debian's chromium in the `deltalake ui` browser tests). Idempotent.
set -euo pipefail
dir=$(cd "$(dirname "$0")/../tools/oracle" && pwd)
if [ -d "$dir/node_modules/@duckdb/node-api" ] && [ -d "$dir/node_modules/apache-arrow" ] &&
   [ -d "$dir/node_modules/playwright-core" ] && [ -d "$dir/node_modules/avsc" ]; then
  exit 0
fi
command -v npm >/dev/null || { echo "error: npm not found; run: sudo scripts/install-deps.sh" >&2; exit 1; }
cd "$dir"
if [ -f package-lock.json ]; then npm ci --no-audit --no-fund --loglevel=error; else npm install --no-audit --no-fund --loglevel=error; fi
