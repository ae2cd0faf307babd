#!/usr/bin/env bash
# The README's test command (`npm test`): set up a fresh machine, build, lint, run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
PNPM=$(bash scripts/setup.sh)
echo "[test] lint" >&2
"$PNPM" exec eslint .
echo "[test] vitest" >&2
"$PNPM" exec vitest run "$@"
