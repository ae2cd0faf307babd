#!/usr/bin/env bash
# `pnpm bench:swarm`: builds everything, then runs scripts/bench/swarm.ts in the network lab
# (issue 41; docs/benchmarks.md "Swarm under real networks"). Needs root, nftables and gcc
# (scripts/setup.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${1:-}" = "--" ] && shift
pnpm exec tsc -b >&2
exec pnpm exec tsx scripts/bench/swarm.ts "$@"
