#!/usr/bin/env bash
# make valgrind: the conformance runner (every table under $DL_SHARED_DIR/conformance)
# under valgrind memcheck, on the ordinary (non-ASan) build in $1. Valgrind sees what
# ASan cannot on an uninstrumented build: reads of uninitialised memory, and it checks the
# Release code users run. Any memcheck error or definite leak fails it (exit 99).
set -euo pipefail
build=${1:?usage: valgrind.sh BUILD_DIR}
src=$(cd "$(dirname "$0")/.." && pwd)
command -v valgrind >/dev/null || { echo "valgrind.sh: valgrind is not installed (Debian: valgrind)" >&2; exit 2; }
vg=(valgrind --tool=memcheck --error-exitcode=99 --leak-check=full
    --errors-for-leak-kinds=definite --show-leak-kinds=definite --num-callers=30 -q)
echo "== conformance runner under memcheck"
"${vg[@]}" "$build/tests/test_conformance" \
  --known-failures "$src/tests/conformance/known_failures.txt" | { grep -v '^PASS ' || true; }
echo "valgrind: clean"
