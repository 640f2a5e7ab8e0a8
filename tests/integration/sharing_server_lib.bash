# Shared by the sharing_server_*.sh tests (sourced; .bash so the test glob
# of tests/CMakeLists.txt does not run it). Needs DL_CLI; sets $tmp, fail,
# start_server.
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
server_pid=
cleanup() {
	if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; fi
	rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
check() { node "$here/sharing_server_check.mjs" "$@"; }

# start_server CONFIG [ARGS...]: serves on a free port; sets $port, $base
# (the endpoint URL) and $server_pid; the access log goes to $tmp/access.log.
start_server() {
	local cfg=$1; shift
	"$DL_CLI" sharing serve --config "$cfg" --port 0 --access-log "$tmp/access.log" "$@" \
		>"$tmp/serve.out" 2>"$tmp/serve.err" &
	server_pid=$!
	for _ in $(seq 1 100); do
		grep -q "listening on port" "$tmp/serve.out" 2>/dev/null && break
		kill -0 "$server_pid" 2>/dev/null || break
		sleep 0.05
	done
	port=$(awk '/listening on port/ {print $4}' "$tmp/serve.out")
	if [ -z "$port" ]; then
		echo "FAIL: the server did not start: $(cat "$tmp/serve.err")" >&2
		exit 1
	fi
	base="http://127.0.0.1:$port/delta-sharing"
}

# Stops the server with SIGTERM: it must exit 0 with no sanitizer report
# (under ASan, leaks and errors show here).
stop_server() {
	kill "$server_pid" 2>/dev/null
	wait "$server_pid" 2>/dev/null
	local rc=$?
	server_pid=
	[ "$rc" = 0 ] || fail "the server exited $rc on SIGTERM: $(tail -c 2000 "$tmp/serve.err")"
	grep -q 'Sanitizer\|runtime error' "$tmp/serve.err" && fail "sanitizer report: $(grep -A20 -m1 'Sanitizer\|runtime error' "$tmp/serve.err")"
	return 0
}

# req OUT [curl args...]: the body in OUT, headers in OUT.h; prints the status.
req() {
	local out=$1; shift
	curl -s -o "$out" -D "$out.h" -w '%{http_code}' "$@"
}
# header FILE.h NAME: the value of a response header (case-insensitive).
header() { awk -v n="$(echo "$2" | tr 'A-Z' 'a-z')" 'BEGIN{FS=": "} {k=tolower($1)} k==n {sub(/\r$/,"",$2); print $2}' "$1"; }
status_is() { [ "$1" = "$2" ] || fail "$3: status $1, expected $2 ($(head -c 300 "$4" 2>/dev/null))"; }
# An error body is {"errorCode":..,"message":..} with Content-Type application/json.
error_body() {
	grep -q '^{"errorCode":"[A-Z_]*","message":".*"}$' "$1" || fail "$2: not a PROTOCOL.md error body: $(head -c 300 "$1")"
	header "$1.h" content-type | grep -q '^application/json' || fail "$2: an error is not application/json"
}
