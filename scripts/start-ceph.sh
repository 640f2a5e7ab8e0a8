#!/usr/bin/env bash
# A throwaway single-node Ceph cluster with a RADOS Gateway (S3) on
# loopback, for the object-store tests (tests/integration/s3_*.sh):
# one monitor, one OSD on memstore (RAM, nothing on disk), one radosgw,
# cephx keys in the cluster's directory, and an S3 user with known keys.
#
#   scripts/start-ceph.sh start   start it (about 20 s) and print the
#                                 environment the tests read (eval-able)
#   scripts/start-ceph.sh stop    stop it and remove its directory
#   scripts/start-ceph.sh env     print the environment of a running one
#
# Settings: DL_CEPH_DIR (default /tmp/dl-ceph), DL_CEPH_MON_PORT (46789),
# DL_CEPH_RGW_PORT (47480). Needs the Debian packages ceph-mon, ceph-osd,
# ceph-common and radosgw (scripts/install-deps.sh).
set -euo pipefail
DIR=${DL_CEPH_DIR:-/tmp/dl-ceph}
MON_PORT=${DL_CEPH_MON_PORT:-46789}
RGW_PORT=${DL_CEPH_RGW_PORT:-47480}
ACCESS_KEY=DLTESTACCESSKEY00001
SECRET_KEY=dltestsecretkey0000000000000000000000001
CONF=$DIR/ceph.conf

print_env() {
  cat <<EOF
export DL_TEST_S3_ENDPOINT=http://127.0.0.1:$RGW_PORT
export DL_TEST_S3_ACCESS_KEY_ID=$ACCESS_KEY
export DL_TEST_S3_SECRET_ACCESS_KEY=$SECRET_KEY
export DL_TEST_S3_REGION=us-east-1
EOF
}

stop() {
  for f in "$DIR"/run/*.pid; do
    [ -f "$f" ] || continue
    pid=$(cat "$f" 2>/dev/null || true)
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  done
  # wait for them to go (memstore: nothing to flush)
  for _ in $(seq 50); do
    alive=0
    for f in "$DIR"/run/*.pid; do
      [ -f "$f" ] || continue
      pid=$(cat "$f" 2>/dev/null || true)
      [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && alive=1
    done
    [ $alive = 0 ] && break
    sleep 0.2
  done
  rm -rf "$DIR"
}

fail() {
  echo "start-ceph: $*" >&2
  for l in "$DIR"/*.log; do [ -f "$l" ] && { echo "--- $l (tail)" >&2; tail -n 15 "$l" >&2; }; done
  exit 1
}

start() {
  for b in ceph-mon ceph-osd radosgw radosgw-admin ceph monmaptool ceph-authtool curl; do
    command -v $b >/dev/null || { echo "start-ceph: $b is not installed (scripts/install-deps.sh installs ceph-mon, ceph-osd, ceph-common, radosgw)" >&2; exit 1; }
  done
  stop
  mkdir -p "$DIR"/run "$DIR"/mon "$DIR"/osd0
  fsid=$(cat /proc/sys/kernel/random/uuid)
  cat >"$CONF" <<EOF
[global]
fsid = $fsid
mon host = [v2:127.0.0.1:$((MON_PORT + 1)),v1:127.0.0.1:$MON_PORT]
public addr = 127.0.0.1
cluster addr = 127.0.0.1
ms bind ipv4 = true
ms bind ipv6 = false
auth allow insecure global id reclaim = false
mon data avail warn = 1
mon data avail crit = 0
run dir = $DIR/run
pid file = $DIR/run/\$name.pid
admin socket = $DIR/run/\$name.asok
log file = $DIR/\$name.log
keyring = $DIR/keyring
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon allow pool delete = true
mon max pg per osd = 1000
mon warn on pool no redundancy = false
osd crush chooseleaf type = 0
[mon]
mon data = $DIR/mon
mon cluster log file = $DIR/mon-cluster.log
[osd]
osd data = $DIR/osd\$id
osd objectstore = memstore
# RAM, taken as objects are written: room for bench/bench_s3_write.sh's 1 GB
# beside the tests' tables (a full OSD blocks every write, unanswered)
memstore device bytes = 4294967296
# S3 keys run to 1024 bytes and RGW names its RADOS objects bucket marker +
# key: 460 refused the conformance tables' long partition paths (HTTP 500)
osd max object name len = 2048
osd max object namespace len = 64
[client.rgw]
# tcp_nodelay: beast writes a response's headers and body separately; with Nagle
# on, the body waits for the client's delayed ACK, 40 ms a request
rgw frontends = beast endpoint=127.0.0.1:$RGW_PORT tcp_nodelay=1
rgw thread pool size = 64
rgw enable usage log = false
# deleted objects' data goes back to the memstore within a minute, not the
# default two hours later (tests and benchmarks delete what they wrote)
rgw gc obj min wait = 0
rgw gc processor period = 30
EOF
  # cephx with every key in one keyring, which the monitor imports at mkfs
  K=(ceph-authtool "$DIR/keyring")
  ceph-authtool --create-keyring "$DIR/keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
  "${K[@]}" --gen-key -n client.admin --cap mon 'allow *' --cap osd 'allow *' --cap mgr 'allow *' >/dev/null
  "${K[@]}" --gen-key -n client.rgw --cap mon 'allow rw' --cap osd 'allow rwx' >/dev/null
  "${K[@]}" --gen-key -n osd.0 --cap mon 'allow profile osd' --cap osd 'allow *' --cap mgr 'allow profile osd' >/dev/null
  monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$((MON_PORT + 1)),v1:127.0.0.1:$MON_PORT]" "$DIR/monmap" >/dev/null
  ceph-mon -c "$CONF" --mkfs -i a --monmap "$DIR/monmap" --keyring "$DIR/keyring" >/dev/null 2>&1 || fail "ceph-mon --mkfs failed"
  ceph-mon -c "$CONF" -i a || fail "ceph-mon did not start"
  C="ceph -c $CONF --connect-timeout 20"
  for _ in $(seq 100); do $C mon stat >/dev/null 2>&1 && break; sleep 0.2; done
  $C mon stat >/dev/null 2>&1 || fail "the monitor does not answer on 127.0.0.1:$MON_PORT"
  uuid=$(cat /proc/sys/kernel/random/uuid)
  id=$($C osd new "$uuid" 2>/dev/null) || fail "ceph osd new failed"
  ceph-osd -c "$CONF" -i "$id" --mkfs --osd-uuid "$uuid" >/dev/null 2>&1 || fail "ceph-osd --mkfs failed"
  ceph-osd -c "$CONF" -i "$id" 2>>"$DIR/osd.stderr" || fail "ceph-osd did not start"
  for _ in $(seq 150); do $C osd stat 2>/dev/null | grep -q " 1 up" && break; sleep 0.2; done
  $C osd stat 2>/dev/null | grep -q " 1 up" || fail "the OSD did not come up"
  radosgw -c "$CONF" -n client.rgw || fail "radosgw did not start"
  for _ in $(seq 300); do
    curl -s -o /dev/null "http://127.0.0.1:$RGW_PORT/" && break
    sleep 0.2
  done
  curl -s -o /dev/null "http://127.0.0.1:$RGW_PORT/" || fail "radosgw does not answer on 127.0.0.1:$RGW_PORT"
  radosgw-admin -c "$CONF" -n client.rgw user create --uid=dltest --display-name="deltalake tests" \
    --access-key="$ACCESS_KEY" --secret-key="$SECRET_KEY" >/dev/null 2>"$DIR/user-create.err" \
    || fail "radosgw-admin user create failed: $(cat "$DIR/user-create.err")"
  print_env
}

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  env) print_env ;;
  *) echo "usage: $0 start|stop|env" >&2; exit 2 ;;
esac
