#!/usr/bin/env bash
# The deltalake binary's contract: help, version, exit codes 0/1/2, one-line
# errors on stderr, --format and -o. Runs with DL_CLI = path of the binary.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# expect CODE ARGS...: runs the CLI, keeps stdout/stderr in $tmp/out, $tmp/err.
expect() {
	local want=$1; shift
	"$DL_CLI" "$@" >"$tmp/out" 2>"$tmp/err"
	local got=$?
	[ "$got" -eq "$want" ] || fail "deltalake $* exited $got, expected $want (stderr: $(head -c 300 "$tmp/err"))"
}
contains() { grep -qF -- "$2" "$1" || fail "$1 lacks '$2': $(head -c 300 "$1")"; }
lines() { [ "$(wc -l <"$1")" -eq "$2" ] || fail "$1 has $(wc -l <"$1") lines, expected $2"; }

expect 0 --help
contains "$tmp/out" "usage: deltalake"
contains "$tmp/out" "version"
[ -s "$tmp/err" ] && fail "--help wrote to stderr"

expect 0 --version
grep -qE '^deltalake [0-9]+\.[0-9]+\.[0-9]+$' "$tmp/out" || fail "--version: $(cat "$tmp/out")"
expect 0 version
expect 0 help version
contains "$tmp/out" "usage: deltalake version"
expect 0 version --help
contains "$tmp/out" "--verbose"

# Every registered command answers --help with exit 0 and a usage line.
"$DL_CLI" --help | sed -n '/^Commands:/,/^$/p' | awk 'NR > 1 && NF {print $1}' >"$tmp/cmds"
[ -s "$tmp/cmds" ] || fail "no commands listed by --help"
while read -r c; do
	expect 0 "$c" --help
	contains "$tmp/out" "usage: deltalake $c"
	# A group lists its subcommands: each of them answers --help too.
	sed -n '/^Commands:/,/^$/p' "$tmp/out" | awk 'NR > 1 && NF {print $1}' >"$tmp/subs"
	while read -r sub; do
		expect 0 "$c" "$sub" --help
		contains "$tmp/out" "usage: deltalake $c $sub"
		expect 0 help "$c" "$sub"
		contains "$tmp/out" "usage: deltalake $c $sub"
	done <"$tmp/subs"
done <"$tmp/cmds"

# Usage errors: exit 2, one line on stderr that says what to do.
expect 2
expect 2 versoin
contains "$tmp/err" "deltalake: error: unknown command 'versoin'; did you mean 'version'?"
lines "$tmp/err" 1
expect 2 version --no-such-option
contains "$tmp/err" "unknown option '--no-such-option'"
contains "$tmp/err" "deltalake version --help"
expect 2 version --format xml
contains "$tmp/err" "use table, csv, jsonl, json or vertical"
expect 2 version unexpected-word

# Runtime errors: exit 1, one line.
expect 1 version -o "$tmp/no/such/dir/out.txt"
contains "$tmp/err" "deltalake: error: "
lines "$tmp/err" 1

# A full disk is an error, not a silent success.
if [ -w /dev/full ]; then
	"$DL_CLI" version >/dev/full 2>"$tmp/err" && fail "writing to /dev/full succeeded"
	contains "$tmp/err" "writing the output failed"
	"$DL_CLI" --help >/dev/full 2>/dev/null && fail "--help to /dev/full succeeded"
fi

# Formats.
expect 0 version --format csv
[ "$(head -1 "$tmp/out")" = "name,value" ] || fail "csv header: $(head -1 "$tmp/out")"
grep -q '^deltalake,' "$tmp/out" || fail "csv lacks the deltalake row"
expect 0 version --format jsonl
head -1 "$tmp/out" | grep -q '^{"name":"deltalake","value":"' || fail "jsonl: $(head -1 "$tmp/out")"
expect 0 --format=json version
[ "$(head -c 1 "$tmp/out")" = "[" ] || fail "json does not start with ["
[ "$(tail -1 "$tmp/out")" = "]" ] || fail "json does not end with ]"
if command -v node >/dev/null; then
	node -e 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))' "$tmp/out" ||
		fail "json output does not parse"
fi
expect 0 version --format vertical
grep -qE '^name +deltalake$' "$tmp/out" || fail "vertical: $(head -3 "$tmp/out")"
expect 0 version -v
contains "$tmp/out" "zstd"
head -2 "$tmp/out" | tail -1 | grep -qE '^-+  -+$' || fail "table has no dashes under the header"

# -o FILE writes the results there and nothing on stdout.
expect 0 version -v --quiet -o "$tmp/v.csv" --format csv
[ -s "$tmp/out" ] && fail "-o still wrote to stdout"
grep -q '^zstd,' "$tmp/v.csv" || fail "-o file lacks rows"
ls "$tmp" | grep -q 'tmp-' && fail "-o left its temporary file"

# Shell completion: the bash function asks the binary.
expect 0 completion bash
cp "$tmp/out" "$tmp/completion.bash"
complete_words() { # complete_words WORDS...: COMPREPLY for the last word, one per line
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _deltalake; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$tmp/completion.bash" "$DL_CLI" "$@"
}
[ "$(complete_words vers)" = version ] || fail "completing 'vers' gave: $(complete_words vers)"
[ "$(complete_words version --verb)" = --verbose ] || fail "completing 'version --verb' gave: $(complete_words version --verb)"
[ "$(complete_words version --format cs)" = csv ] || fail "completing '--format cs' gave: $(complete_words version --format cs)"
complete_words "" | grep -x help >/dev/null || fail "completing '' does not offer help"  # no -q: with pipefail an early exit of grep -q fails the pipe (SIGPIPE)

if [ "$fails" -ne 0 ]; then
	echo "$fails check(s) failed" >&2
	exit 1
fi
echo "cli_basic: all checks passed"
