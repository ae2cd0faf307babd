/**
 * The login without the bench's load (issue 21, docs/benchmarks.md): fresh viewer processes of
 * `pnpm bench` (scripts/bench/viewer.mjs, same Node flags) log in one after another against a
 * panel with a catalog of ten granted streams, but no broadcaster and no encoder running. What
 * it prints is the product's own login on this machine; `pnpm bench` measures the same login
 * while ten ffmpeg encoders share the two cores.
 *
 *   pnpm exec tsc -b && pnpm exec tsx scripts/bench/login-alone.ts [viewers=12]
 */
import { startStack, USER } from './stack.js'

const VIEWERS = Math.min(40, Math.max(1, Number(process.argv[2] ?? 12)))
const STREAMS = 10

const median = (xs: number[]): number => {
  const v = [...xs].sort((a, b) => a - b)
  return v.length % 2 === 1 ? v[(v.length - 1) / 2]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2
}

const stack = await startStack([])
try {
  for (let i = 0; i < STREAMS; i++) {
    await stack.panel('POST', '/api/streams', { id: `s${i}`, title: `Stream ${i}` })
    await stack.panel('POST', `/api/users/${USER.name}/grants`, { streamId: `s${i}` })
  }
  const logins: Array<{ mainMs: number; cpuMs: number; ms: number; phases: Array<{ name: string; startMs: number; ms: number }> }> = []
  for (let i = 0; i < VIEWERS; i++) {
    const v = await stack.viewer()
    const line = await v.next((l) => l.type === 'login')
    logins.push({ mainMs: line.mainMs as number, cpuMs: line.cpuMs as number, ms: line.ms as number, phases: Array.isArray(line.phases) ? line.phases : [] })
    await v.stop()
  }
  const phase = (name: string, field: 'startMs' | 'ms'): string => {
    const xs = logins.flatMap((l) => l.phases.filter((p) => p.name === name).map((p) => p[field]))
    return xs.length === 0 ? '-' : median(xs).toFixed(1)
  }
  console.log(`${VIEWERS} fresh viewers, one after another, no encoder running (medians):`)
  console.log(`  JS thread busy ${median(logins.map((l) => l.mainMs)).toFixed(1)} ms, process CPU ${median(logins.map((l) => l.cpuMs)).toFixed(1)} ms (over connect() and login())`)
  console.log(`  login        ${median(logins.map((l) => l.ms)).toFixed(1)} ms (min ${Math.min(...logins.map((l) => l.ms))}, max ${Math.max(...logins.map((l) => l.ms))})`)
  for (const name of ['panel link', 'device key', 'catalog update', 'hello', 'proof of work', 'oprf call', 'user record', 'stretch', 'unseal', 'grants', 'session call', 'enrollment wait', 'display list']) {
    console.log(`  ${name.padEnd(16)} starts at ${phase(name, 'startMs')} ms, takes ${phase(name, 'ms')} ms`)
  }
} finally {
  await stack.close()
}
