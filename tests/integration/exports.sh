#!/usr/bin/env bash
# The shared library's surface: libdeltalake.so exports exactly the functions
# declared with DL_EXTERN in include/ (the build uses -fvisibility=hidden), so
# internal dl_* helpers can change without breaking programs linked to it.
set -euo pipefail
: "${DL_SOURCE_DIR:?}" "${DL_BINARY_DIR:?}"
so="$DL_BINARY_DIR/lib/libdeltalake.so"
[ -f "$so" ] || { echo "FAIL: $so not built"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
mapfile -t headers < <(find "$DL_SOURCE_DIR/include" -name "*.h" | sort)
nm -D --defined-only "$so" | awk '$2 ~ /^[TtWwDdBbRr]$/ {print $3}' | sort -u > "$tmp/exported"
# DL_EXTERN(type) name(  -- declarations may span lines; the name follows the macro.
cat "${headers[@]}" |
	grep -o 'DL_EXTERN([^)]*)[[:space:]]*dl_[a-z0-9_]*' | sed 's/.*[[:space:]]//; s/.*)//' |
	sort -u > "$tmp/declared"
n=$(wc -l < "$tmp/declared")
[ "$n" -ge 90 ] || { echo "FAIL: only $n DL_EXTERN declarations found in include/"; fail=1; }
if ! diff "$tmp/declared" "$tmp/exported" > "$tmp/diff"; then
	echo "FAIL: exported symbols differ from the DL_EXTERN declarations (< declared only, > exported only):"
	grep '^[<>]' "$tmp/diff" | head -40
	fail=1
fi
# Every public function declared without DL_EXTERN would be missing from the
# .so: catch a declaration that forgot the macro.
cat "${headers[@]}" |
	grep -E '^(const )?(struct )?[a-z_0-9]+( \*+| )dl_[a-z0-9_]+\(' | grep -v '^typedef' > "$tmp/bare" || true
if [ -s "$tmp/bare" ]; then echo "FAIL: public declarations without DL_EXTERN:"; cat "$tmp/bare"; fail=1; fi
[ $fail -eq 0 ] && echo "exports: $n public functions, nothing else exported"
exit $fail
