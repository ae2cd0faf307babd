#!/usr/bin/env bash
# Makes the local base image the deploy tests build on (no registry is reachable here): Debian
# bookworm minbase from the Debian mirror (debootstrap) plus this host's node and npm, laid
# out like the official node image (/usr/local/bin/node, /usr/local/lib/node_modules/npm).
# Reused while it exists for this node version. Prints the image name.
set -euo pipefail
DOCKER=${DOCKER:-docker}
NODE_BIN=$(command -v node)
NODE_VERSION=$("$NODE_BIN" -v)
IMAGE="local/arus-base:bookworm-node-${NODE_VERSION#v}"
log() { printf '[deploy-base] %s\n' "$*" >&2; }
if $DOCKER image inspect "$IMAGE" >/dev/null 2>&1; then echo "$IMAGE"; exit 0; fi
NPM_DIR=$(cd "$(dirname "$(readlink -f "$(command -v npm)")")/.." && pwd)
MIRROR=${DEBIAN_MIRROR:-$(sed -n 's/^URIs: *\(http[^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
ROOT=$(mktemp -d /tmp/arus-rootfs-XXXXXX)
trap 'rm -rf "$ROOT"' EXIT
log "debootstrap bookworm from $MIRROR"
debootstrap --variant=minbase bookworm "$ROOT" "$MIRROR" >/dev/null
install -D -m 755 "$NODE_BIN" "$ROOT/usr/local/bin/node"
mkdir -p "$ROOT/usr/local/lib/node_modules"
cp -a "$NPM_DIR" "$ROOT/usr/local/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$ROOT/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$ROOT/usr/local/bin/npx"
rm -rf "$ROOT"/var/cache/apt/archives/*.deb "$ROOT"/var/lib/apt/lists/*
# This machine reaches the npm registry through an egress proxy with its own CA: builds on this
# base trust what the host trusts (a real deployment's official base needs none of this).
CHANGES=(--change 'CMD ["bash"]')
CA=${NODE_EXTRA_CA_CERTS:-}
if [ -n "$CA" ] && [ -f "$CA" ]; then
  install -D -m 644 "$CA" "$ROOT/usr/local/share/arus/host-ca.crt"
  CHANGES+=(--change 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/arus/host-ca.crt' --change 'ENV npm_config_cafile=/usr/local/share/arus/host-ca.crt')
fi
log "importing $IMAGE"
tar -C "$ROOT" -c . | $DOCKER import "${CHANGES[@]}" - "$IMAGE" >/dev/null
echo "$IMAGE"
