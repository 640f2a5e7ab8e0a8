#!/usr/bin/env bash
# The CLI is a program over the public API: cli/ includes only include/
# headers ("deltalake.h", "deltalake/...") and its own cli/*.h. What the CLI
# needs, the API offers. Until their public functions land (issue 9), three
# commands are allowed their internal headers; the list shrinks, never grows.
set -u
src=${DL_SOURCE_DIR:?}
allowed_internal="cmd_checkpoint.c cmd_cleanup_log.c cmd_files.c"
fails=0
for f in "$src"/cli/*.c "$src"/cli/*.h; do
	name=$(basename "$f")
	case " $allowed_internal " in *" $name "*) continue ;; esac
	while IFS= read -r line; do
		inc=${line#*\"}
		inc=${inc%%\"*}
		case $inc in
		deltalake.h | deltalake/*) ;;
		*) [ -f "$src/cli/$inc" ] || { echo "FAIL: cli/$name includes \"$inc\", not a public header" >&2; fails=$((fails + 1)); } ;;
		esac
	done < <(grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]+"' "$f")
done
[ $fails -eq 0 ] && echo "ok: cli/ includes only public headers (exceptions: $allowed_internal)"
exit $((fails > 0))
