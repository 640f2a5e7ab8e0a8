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
# A new table: version 0 committed with put-if-absent, then read back.
"$tmp/hello" "$tmp/table" >"$tmp/out"
grep -q '^libdeltalake [0-9]' "$tmp/out"
grep -q '^created version 0 of ' "$tmp/out"
grep -q '^a second writer of version 0 gets DL_EEXISTS$' "$tmp/out"
grep -q '^version 0$' "$tmp/out"
grep -q '^schema {"type":"struct","fields":\[{"name":"id","type":"long"' "$tmp/out"
grep -q '^files 0, 0 bytes$' "$tmp/out"
[ -f "$tmp/table/_delta_log/00000000000000000000.json" ]
# The same table again: read, not re-created.
"$tmp/hello" "$tmp/table" >"$tmp/out2"
grep -q '^created' "$tmp/out2" && { echo "hello re-created an existing table" >&2; exit 1; }
grep -q '^version 0$' "$tmp/out2"
# A table Spark wrote, from the shared conformance data.
shared=${DL_SHARED_DIR:-$DL_SOURCE_DIR/../shared}
t="$shared/conformance/golden/data-reader-primitives/delta"
if [ -d "$t" ]; then
	"$tmp/hello" "$t" >"$tmp/out3"
	grep -q '^files 2, 5050 bytes$' "$tmp/out3" || { cat "$tmp/out3" >&2; exit 1; }
	# An unsupported table fails with the library's message and exit 1.
	if "$tmp/hello" "$shared/conformance/golden/deltalog-invalid-protocol-version/delta" >/dev/null 2>"$tmp/err"; then
		echo "hello read a table that needs reader version 99" >&2
		exit 1
	fi
	grep -q 'reader version 99' "$tmp/err"
fi
echo "example_c: hello.c built and ran"
