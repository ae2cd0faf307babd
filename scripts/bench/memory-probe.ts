/**
 * Where a playing viewer's memory is (docs/architecture.md "Viewer memory"): the bench stack
 * with only its two bitrate channels (~1 and ~5 Mbit/s), one bench viewer on each, playing side
 * by side; every 10 s each viewer's RSS, V8 heap and its anonymous pages by kind of mapping:
 * malloc's main heap ([heap]), mappings of 1 MiB or more (thread arenas, large allocations,
 * RocksDB's memtable blocks) and smaller ones (mostly V8's pages).
 *
 *   pnpm exec tsc -b && pnpm exec tsx scripts/bench/memory-probe.ts [seconds=60]
 *
 * The viewers take the bench's settings (BENCH_VIEWER_NODE_FLAGS, BENCH_VIEWER_MALLOC_ARENA_MAX,
 * BENCH_WRITE_BUFFER_MIB), so one setting at a time can be compared.
 */
import { readFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { RATES, startStack, type Viewer } from './stack.js'

const SECONDS = Math.min(600, Math.max(10, Number(process.argv[2] ?? 60)))

/** Anonymous resident MiB of `pid` by kind of mapping. */
function anonymous (pid: number): Record<string, number> {
  const out: Record<string, number> = { heap: 0, large: 0, small: 0 }
  let kind = 'small'
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const map = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line)
    if (map) {
      const mib = (parseInt(map[2]!, 16) - parseInt(map[1]!, 16)) / 1048576
      kind = map[3] === '[heap]' ? 'heap' : map[3] !== '' ? 'file' : mib >= 1 ? 'large' : 'small'
      continue
    }
    const anon = /^Anonymous:\s+(\d+)/.exec(line)
    if (anon && kind !== 'file') out[kind]! += Number(anon[1]) / 1024
  }
  return out
}

const stack = await startStack([{ name: 'rates', env: {}, channels: ['rlow', 'rhigh'], configs: { rlow: RATES.low, rhigh: RATES.high } }])
try {
  const viewers: Array<{ id: string; v: Viewer }> = []
  for (const id of ['rlow', 'rhigh']) {
    const v = await stack.viewer()
    const from = v.lines.length
    v.send({ cmd: 'tune', id })
    await v.next((l) => l.type === 'tune', 60_000, from)
    viewers.push({ id, v })
  }
  console.log('s\tviewer\trss\theapTotal\t[heap]\tanon>=1MiB\tanon<1MiB (MiB)')
  for (let t = 10; t <= SECONDS; t += 10) {
    await sleep(10_000)
    for (const { id, v } of viewers) {
      const from = v.lines.length
      v.send({ cmd: 'stats' })
      const s = await v.next((l) => l.type === 'stats', 10_000, from)
      const a = anonymous(v.child.pid!)
      console.log([t, id, s.rssMb, s.heapTotalMb, a.heap, a.large, a.small].map((x) => (typeof x === 'number' ? x.toFixed(1) : x)).join('\t'))
    }
  }
} finally {
  await stack.close()
}
