#!/usr/bin/env bash
# The README's demo command (`npm run demo`). The full stack (panel, broadcaster,
# viewer) arrives with the viewer SDK issue; today it sets the machine up and runs a
# local DHT testnet on 127.0.0.1 until Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."
PNPM=$(bash scripts/setup.sh)
echo "[demo] starting a local DHT testnet on 127.0.0.1 (Ctrl-C stops it)" >&2
exec "$PNPM" exec arus-testnet
