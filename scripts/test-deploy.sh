#!/usr/bin/env bash
# The deploy lane (issue 18; called by scripts/test.sh after the main suite): the deploy pack on
# a real container engine. Installs Debian's docker.io, docker-compose and debootstrap when
# root and missing, starts dockerd when no engine answers (and stops exactly that dockerd at
# the end: it leaves docker0, nft tables and ip_forward=1 behind, as Debian's dockerd does),
# then runs test/deploy (vitest with ARUS_DEPLOY_LANE=1). Images stay as the build cache; the
# tests remove every container, volume and network they make.
set -euo pipefail
cd "$(dirname "$0")/.."
PNPM=${PNPM:-$(bash scripts/setup.sh)}
log() { printf '[deploy-lane] %s\n' "$*" >&2; }
need() { # need <command> <debian-package>
  command -v "$1" >/dev/null 2>&1 && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    log "installing $2"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$2" >/dev/null
  else
    log "missing '$1': install the Debian package '$2' (as root) and run again"; exit 1
  fi
}
need dockerd docker.io
need docker-compose docker-compose
need debootstrap debootstrap
need systemd-analyze systemd
export DOCKER=/usr/bin/docker
STARTED=""
if ! $DOCKER info >/dev/null 2>&1; then
  log "starting dockerd"
  dockerd >/tmp/arus-dockerd.log 2>&1 &
  STARTED=$!
  for _ in $(seq 1 60); do $DOCKER info >/dev/null 2>&1 && break; sleep 0.5; done
  $DOCKER info >/dev/null 2>&1 || { log "dockerd did not come up (see /tmp/arus-dockerd.log)"; kill "$STARTED" 2>/dev/null || true; exit 1; }
fi
stop_engine() {
  if [ -n "$STARTED" ]; then
    log "stopping the dockerd this lane started"
    kill "$STARTED" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$STARTED" 2>/dev/null || break; sleep 0.5; done
  fi
}
trap stop_engine EXIT
ARUS_DEPLOY_LANE=1 "$PNPM" exec vitest run
