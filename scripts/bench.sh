#!/usr/bin/env bash
# `pnpm bench [--quick]`: builds the daemons and the SDK, then runs scripts/bench/run.ts
# (issue 7; docs/benchmarks.md "Viewer and origin"). Needs ffmpeg (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${1:-}" = "--" ] && shift
pnpm exec tsc -b >&2
exec pnpm exec tsx scripts/bench/run.ts "$@"
