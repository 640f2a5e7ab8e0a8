#!/usr/bin/env bash
# The CLI is a program over the public API: cli/ includes only include/
# headers ("deltalake.h", "deltalake/...") and its own cli/*.h. What the CLI
# needs, the API offers. The build enforces it too: the deltalake target has
# no src/ on its include path.
set -u
src=${DL_SOURCE_DIR:?}
fails=0
for f in "$src"/cli/*.c "$src"/cli/*.h "$src"/cli/ui/*.c "$src"/cli/ui/*.h; do
	name=$(basename "$f")
	while IFS= read -r line; do
		inc=${line#*\"}
		inc=${inc%%\"*}
		case $inc in
		deltalake.h | deltalake/*) ;;
		*) [ -f "$src/cli/$inc" ] || [ -f "$(dirname "$f")/$inc" ] || { echo "FAIL: cli/$name includes \"$inc\", not a public header" >&2; fails=$((fails + 1)); } ;;
		esac
	done < <(grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]+"' "$f")
done
[ $fails -eq 0 ] && echo "ok: cli/ includes only public headers"
exit $((fails > 0))
