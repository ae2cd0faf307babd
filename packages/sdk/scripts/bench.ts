// Viewer SDK benchmark (docs/benchmarks.md "Viewer SDK"): what a viewer feels, measured with the
// built packages against a panel process and a broadcaster process (two `test` channels, 640x360,
// 2 s segments) on a local DHT testnet.  Run: pnpm exec tsx packages/sdk/scripts/bench.ts [runs]
import { cpus, loadavg } from 'node:os'
import { createPlayer, loginWithRetry, type Player } from '@arus/sdk'
import { cleanupAll, tmpDir } from '@arus/testkit'
import { startBroadcaster } from '../test/helpers/broadcaster.js'
import { api, createStack, panel, runPanel } from '../test/helpers/stack.js'

const RUNS = Number(process.argv[2] ?? 5)
const t = { onTestFinished: () => {} }
const now = () => performance.now()
const samples = new Map<string, number[]>()
const add = (name: string, ms: number) => samples.set(name, [...(samples.get(name) ?? []), ms])

function once<T> (player: Player, event: 'status' | 'feed-changed', pred: (e: any) => boolean, ms = 60_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} within ${ms} ms`)), ms)
    const fn = (e: any) => { if (pred(e)) { clearTimeout(timer); player.off(event, fn); resolve(e) } }
    player.on(event, fn)
  })
}

let cut = 0
/** Playlist, then its newest segment, in full; a body cut by the server (a stalled or swapped read) counts and is retried. */
async function firstSegment (url: string): Promise<number> {
  const started = now()
  for (;;) {
    try {
      const list = await (await fetch(url)).text()
      const seg = list.split('\n').filter((l) => l.endsWith('.ts')).at(-1) as string
      const bytes = await (await fetch(url.replace('index.m3u8', seg))).arrayBuffer()
      if (bytes.byteLength > 0) return now() - started
    } catch {
      cut++
    }
  }
}

// Every player, process, store and directory goes at the end, also when a step fails.
const players: Player[] = []
const teardown = async () => {
  await Promise.all(players.map((p) => p.stop().catch(() => {})))
  await cleanupAll().catch(() => {})
}
try {
  const stack = await createStack(t, { POW_DIFFICULTY: '12', ARGON2_MEM_KIB: '65536', ARGON2_OPS: '3' })
  await panel(stack, ['create-user', 'alice'], 'alice-pw\n')
  await runPanel(t, stack)
  const bc = await startBroadcaster(t, stack)
  for (const id of ['ch1', 'ch2']) {
    await bc.channel(id, { transcode: { width: 640, height: 360, preset: 'ultrafast' }, hlsTime: 2, hlsListSize: 6 })
    await api(stack, 'POST', '/api/users/alice/grants', { streamId: id })
  }
  const make = (storeDir: string, zap: boolean) => {
    const p = createPlayer({ panelPubKey: stack.panelKey, storeDir, swarm: { bootstrap: stack.testnet.bootstrap }, zapPrefetch: zap ? { intervalMs: 1000 } : false })
    players.push(p)
    return p
  }

  for (let run = 0; run < RUNS; run++) {
    for (const zap of [false, true]) {
      const storeDir = tmpDir(t, 'arus-bench-')
      const player = make(storeDir, zap)
      let started = now()
      await player.connect()
      await loginWithRetry(player, 'alice', 'alice-pw', { delayMs: 100, attempts: 300 })
      if (!zap) add('connect + login, cold store (default Argon2id 64 MiB/3, PoW 12 bits)', now() - started)
      started = now()
      const ready = once(player, 'status', (e) => e.state === 'feed:ready')
      const { url } = await player.resolve('ch1')
      await ready
      if (!zap) add('resolve → feed:ready, first tune', now() - started)
      if (!zap) add('playlist + newest segment over the local URL, after feed:ready', await firstSegment(url))
      await new Promise((resolve) => setTimeout(resolve, 3000)) // let zap prefetch warm the neighbor
      started = now()
      const zapped = once(player, 'status', (e) => e.state === 'feed:ready' && e.streamId === 'ch2')
      await player.resolve('ch2')
      await zapped
      add(zap ? 'zap ch1 → ch2: resolve → feed:ready, zap prefetch on' : 'zap ch1 → ch2: resolve → feed:ready, zap prefetch off', now() - started)
      started = now()
      await firstSegment(url)
      add(zap ? 'zap: newest segment of ch2 over the local URL, prefetch on' : 'zap: newest segment of ch2 over the local URL, prefetch off', now() - started)
      if (!zap) {
        // The newest segment (an older one may leave the live window mid-loop).
        const local = url.replace('index.m3u8', (await (await fetch(url)).text()).split('\n').filter((l) => l.endsWith('.ts')).at(-1) as string)
        const size = (await (await fetch(local)).arrayBuffer()).byteLength
        started = now()
        for (let i = 0; i < 20; i++) await (await fetch(local)).arrayBuffer()
        add('local serving of a replicated segment, MB/s', (20 * size) / 1e6 / ((now() - started) / 1000))
      }
      await player.stop()
      if (!zap) {
        const warm = make(storeDir, false)
        started = now()
        await warm.connect()
        await loginWithRetry(warm, 'alice', 'alice-pw', { delayMs: 100, attempts: 300 })
        add('connect + login, warm store', now() - started)
        const changed = once(warm, 'feed-changed', () => true)
        const readyAgain = once(warm, 'status', (e) => e.state === 'feed:ready')
        await warm.resolve('ch1')
        await readyAgain
        const rotated = now()
        await bc.api.post('/api/channels/ch1/rotate')
        await changed
        add('broadcaster rotate → feed-changed (new generation tuned, swapped behind the URL)', now() - rotated)
        add('RSS of the whole bench process while playing, MiB', process.memoryUsage().rss / 2 ** 20)
        await warm.stop()
      }
    }
  }
} catch (err) {
  console.error('bench failed:', err)
  await teardown()
  process.exit(1)
}

const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] as number
console.log(`Measured by \`packages/sdk/scripts/bench.ts\` on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}, ${RUNS} runs; 1-minute load average at the end ${loadavg()[0]?.toFixed(1)}.`)
console.log(`Segment bodies cut by the local server and fetched again: ${cut}.`)
console.log('')
console.log('| What | p50 | min | max |')
console.log('|---|---|---|---|')
for (const [name, xs] of samples) {
  const f = (v: number) => (name.endsWith('MB/s') || name.endsWith('MiB') ? v.toFixed(0) : `${v.toFixed(0)} ms`)
  console.log(`| ${name} | ${f(q(xs, 0.5))} | ${f(Math.min(...xs))} | ${f(Math.max(...xs))} |`)
}
await teardown()
process.exit(0)
