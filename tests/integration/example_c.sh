#!/usr/bin/env bash
# examples/hello.c (the README's C example) compiles against the library in
# the build tree with the flags pkg-config gives, and runs.
set -euo pipefail
: "${DL_SOURCE_DIR:?}" "${DL_BINARY_DIR:?}"
# Compile the way the library was built: same compiler, and the sanitizers
# when the build has them (an ASan library needs an ASan program).
cache="$DL_BINARY_DIR/CMakeCache.txt"
built_cc=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$cache" 2>/dev/null || true)
CC=${built_cc:-${CC:-cc}}
san=()
grep -q '^DL_SANITIZE:BOOL=ON' "$cache" 2>/dev/null && san=(-fsanitize=address,undefined)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
lib="$DL_BINARY_DIR/lib/libdeltalake.a"
[ -f "$lib" ] || { echo "missing $lib: build the deltalake_static target" >&2; exit 1; }
# The private libraries of the static archive, from the build's deltalake.pc.
libs=$(PKG_CONFIG_PATH="$DL_BINARY_DIR" pkg-config --static --libs-only-l deltalake | sed 's/-ldeltalake//')
"$CC" "${san[@]}" -std=c17 -Wall -Wextra -Wpedantic -Werror -I"$DL_SOURCE_DIR/include" \
	"$DL_SOURCE_DIR/examples/hello.c" "$lib" $libs -o "$tmp/hello"
"$tmp/hello" "$tmp/store" >"$tmp/out"
grep -q '^libdeltalake [0-9]' "$tmp/out"
grep -q 'DL_EEXISTS' "$tmp/out"
grep -q '^_delta_log/00000000000000000000.json  ' "$tmp/out"
echo "example_c: hello.c built and ran"
