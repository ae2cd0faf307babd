#!/usr/bin/env bash
# The README's demo command (`npm run demo`). On a fresh machine it first installs what is
# missing (scripts/setup.sh: pnpm, the workspace dependencies, Debian ffmpeg; Chromium is not
# needed here) and builds; then it starts, all on 127.0.0.1, a local DHT testnet, a panel (an
# admin, a viewer account, an enrolled publisher), a broadcaster with two `test` channels, the
# grants, and a headless viewer that logs in and plays the first channel. It prints the local
# HLS URL to open in any player and the credentials; Ctrl-C stops everything cleanly.
# DEMO_EXIT_AFTER_READY=1 stops as soon as everything is up (CI); DEMO_KEEP=1 keeps the
# temporary data and logs.
set -euo pipefail
cd "$(dirname "$0")/.."
ARUS_SKIP_CHROMIUM="${ARUS_SKIP_CHROMIUM:-1}" bash scripts/setup.sh >/dev/null
exec node apps/viewer/dist/demo/main.js
