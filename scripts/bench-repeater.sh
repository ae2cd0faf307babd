#!/usr/bin/env bash
# `pnpm bench:repeater`: builds everything, then runs scripts/bench/repeater.ts: the repeater's
# CPU and RSS per mirrored channel and per 100 Mbit/s served (issue 42; docs/benchmarks.md
# "Repeater cost"). Needs ffmpeg (scripts/setup.sh) and /dev/shm.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${1:-}" = "--" ] && shift
pnpm exec tsc -b >&2
exec pnpm exec tsx scripts/bench/repeater.ts "$@"
