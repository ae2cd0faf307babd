#!/usr/bin/env bash
# Installs the UDP socket buffer drop-in (docker/systemd/99-arus-udp.conf) into /etc/sysctl.d and
# applies it (root). `--check` only prints the current and the wanted values.
set -euo pipefail
cd "$(dirname "$0")/.."
src=docker/systemd/99-arus-udp.conf
if [ "${1:-}" = "--check" ]; then
  for k in net.core.rmem_max net.core.wmem_max; do
    printf '%s current=%s wanted=%s\n' "$k" "$(sysctl -n "$k")" "$(sed -n "s/^$k *= *//p" "$src")"
  done
  exit 0
fi
install -m 644 "$src" /etc/sysctl.d/99-arus-udp.conf
sysctl -p /etc/sysctl.d/99-arus-udp.conf
