#!/usr/bin/env bash
# `make install PREFIX=...` (cmake --install --prefix) puts everything in
# place: headers, static and shared library, deltalake.pc, the CMake package,
# the CLI and its man page; and a program builds against the installed copy
# with pkg-config (shared and static) and with find_package(deltalake).
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
prefix="$tmp/prefix"
cmake --install "$DL_BINARY_DIR" --prefix "$prefix" >"$tmp/install.log"

libdir=$(sed -n 's|^libdir=${prefix}/||p' "$DL_BINARY_DIR/deltalake.pc")
for f in include/deltalake.h include/deltalake/error.h "$libdir/libdeltalake.a" "$libdir/libdeltalake.so" \
	"$libdir/pkgconfig/deltalake.pc" "$libdir/cmake/deltalake/deltalakeConfig.cmake" \
	"$libdir/cmake/deltalake/deltalakeConfigVersion.cmake" bin/deltalake share/man/man1/deltalake.1 \
	share/bash-completion/completions/deltalake; do
	[ -e "$prefix/$f" ] || { echo "install is missing $f" >&2; exit 1; }
done
"$prefix/bin/deltalake" --version | grep -q '^deltalake [0-9]'
grep -q 'complete -F _deltalake deltalake' "$prefix/share/bash-completion/completions/deltalake"

# Each installed public header stands alone: no internal includes, pedantic C17.
for h in "$prefix"/include/deltalake.h "$prefix"/include/deltalake/*.h; do
	rel=${h#"$prefix"/include/}
	printf '#include <%s>\nint main(void) { return 0; }\n' "$rel" |
		"$CC" -std=c17 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I"$prefix/include" -x c - ||
		{ echo "installed header $rel does not compile on its own" >&2; exit 1; }
done

# The headers promise C++ use (extern "C"): check it when a C++ compiler exists.
if command -v c++ >/dev/null; then
	printf '#include <deltalake.h>\nint main() { return dl_version() ? 0 : 1; }\n' |
		c++ -std=c++17 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I"$prefix/include" -x c++ - ||
		{ echo "deltalake.h does not compile as C++" >&2; exit 1; }
fi

export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
pkg-config --exists deltalake
# Shared: plain `pkg-config --cflags --libs`.
# shellcheck disable=SC2046
"$CC" "${san[@]}" -std=c17 -Wall -Werror "$DL_SOURCE_DIR/examples/hello.c" $(pkg-config --cflags --libs deltalake) \
	-o "$tmp/hello-shared" 2>"$tmp/cc.log" || { cat "$tmp/cc.log" >&2; exit 1; }
LD_LIBRARY_PATH="$prefix/$libdir" "$tmp/hello-shared" "$tmp/s1" | grep -q "gets DL_EEXISTS"
# Static: the archive plus the private libraries.
# shellcheck disable=SC2046
"$CC" "${san[@]}" -std=c17 -Wall -Werror "$DL_SOURCE_DIR/examples/hello.c" $(pkg-config --cflags deltalake) \
	"$prefix/$libdir/libdeltalake.a" $(pkg-config --static --libs-only-l deltalake | sed 's/-ldeltalake//') \
	-o "$tmp/hello-static"
"$tmp/hello-static" "$tmp/s2" | grep -q "gets DL_EEXISTS"

# CMake consumers: find_package(deltalake) and the exported targets.
mkdir "$tmp/consumer"
cp "$DL_SOURCE_DIR/examples/hello.c" "$tmp/consumer/"
cat >"$tmp/consumer/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(consumer C)
find_package(deltalake 0.1 REQUIRED)
add_executable(hello_static hello.c)
target_link_libraries(hello_static PRIVATE deltalake::deltalake_static)
add_executable(hello_shared hello.c)
target_link_libraries(hello_shared PRIVATE deltalake::deltalake_shared)
CM
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S "$tmp/consumer" -B "$tmp/consumer/build" "${gen[@]}" -DCMAKE_PREFIX_PATH="$prefix" \
	-DCMAKE_C_COMPILER="$CC" -DCMAKE_C_FLAGS="${san[*]}" -DCMAKE_EXE_LINKER_FLAGS="${san[*]}" >"$tmp/cmake.log" 2>&1 ||
	{ cat "$tmp/cmake.log" >&2; exit 1; }
cmake --build "$tmp/consumer/build" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log" >&2; exit 1; }
"$tmp/consumer/build/hello_static" "$tmp/s3" | grep -q "gets DL_EEXISTS"
"$tmp/consumer/build/hello_shared" "$tmp/s4" | grep -q "gets DL_EEXISTS"
echo "install: headers, libraries, pkg-config, CMake package, CLI and man page work from $prefix"
