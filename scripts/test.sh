#!/usr/bin/env bash
# The README's test command (`npm test`): set up a fresh machine, build, lint, run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
PNPM=$(bash scripts/setup.sh)
echo "[test] lint" >&2
"$PNPM" exec eslint .
# The native Android SDK's Kotlin core: compiled and unit-tested before vitest, so the compile does
# not run beside the timing-sensitive suite (test/mobile/android.test.ts then finds it up to date).
if command -v java >/dev/null 2>&1; then
  echo "[test] android (Kotlin core)" >&2
  bash mobile/android/scripts/test.sh
fi
echo "[test] vitest" >&2
"$PNPM" exec vitest run "$@"
# The deploy pack on a real container engine (skipped only when a vitest filter was given).
if [ $# -eq 0 ]; then
  echo "[test] deploy lane" >&2
  PNPM="$PNPM" bash scripts/test-deploy.sh
fi
