/**
 * One benchmark viewer (`pnpm bench`): an SDK player in its own process, driven by JSON
 * commands on stdin, reporting measurements as JSON lines on stdout (wall-clock `at` values
 * are comparable with the other processes on the machine). Not a product: see apps/viewer.
 *
 * Env: BENCH_PANEL_KEY, BENCH_BOOTSTRAP (host:port,...), BENCH_STORE, BENCH_USER,
 * BENCH_PASSWORD, BENCH_ZAP_PREFETCH (1 = on).
 * Commands: { cmd: 'tune', id } (also a zap when playing), { cmd: 'stats' }, { cmd: 'stop' }.
 * Lines: login, streams, tune, segment (first byte of each live segment), stats, error.
 */
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import { createPlayer, loginWithRetry } from '../../packages/sdk/dist/index.js'

const env = (name: string): string => {
  const v = process.env[name]
  if (!v) throw new Error(`${name} is not set`)
  return v
}
const out = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify({ ...line, at: line.at ?? Date.now() })}\n`)

const player = createPlayer({
  panelPubKey: env('BENCH_PANEL_KEY'),
  storeDir: env('BENCH_STORE'),
  swarm: { bootstrap: env('BENCH_BOOTSTRAP').split(',').map((hp) => ({ host: hp.split(':')[0]!, port: Number(hp.split(':')[1]) })) },
  uploadPolicy: 'reseed',
  zapPrefetch: process.env.BENCH_ZAP_PREFETCH === '1',
  tune: { timeoutMs: 20_000 }
})
player.on('streams', (list) => out({ type: 'streams', titles: Object.fromEntries(list.map((s) => [s.id, s.title])) }))
player.on('error', (err) => out({ type: 'error', message: (err as Error).message }))

let playing: AbortController | null = null

/** First byte of `url` (retried while the local server answers 404: not replicated yet). */
async function firstByte (url: string, signal: AbortSignal): Promise<{ at: number; rest: Promise<unknown> } | null> {
  for (let i = 0; i < 200 && !signal.aborted; i++) {
    const res = await fetch(url, { signal }).catch(() => null)
    if (res?.ok && res.body) {
      const reader = res.body.getReader()
      const first = await reader.read()
      const at = Date.now()
      const rest = (async () => { if (!first.done) while (!(await reader.read()).done) { /* drain */ } })().catch(() => {})
      return { at, rest }
    }
    await res?.body?.cancel().catch(() => {})
    await sleep(50)
  }
  return null
}

const segmentsOf = async (url: string, signal: AbortSignal): Promise<number[]> => {
  const text = await (await fetch(url, { signal })).text()
  return [...text.matchAll(/seg(\d+)\.ts/g)].map((m) => Number(m[1]))
}

/** Plays the live edge like an HLS client: asks for the next segment before it exists. */
async function play (id: string, url: string, signal: AbortSignal): Promise<void> {
  let next = -1
  while (!signal.aborted) {
    try {
      const seqs = await segmentsOf(url, signal)
      const newest = Math.max(-1, ...seqs)
      if (next < 0 || newest - next > 2) next = newest + 1 // start (or re-sync) at the live edge
      const got = await firstByte(url.replace('index.m3u8', `seg${next}.ts`), signal)
      if (!got) continue
      out({ type: 'segment', id, sequence: next, at: got.at })
      await got.rest
      next++
    } catch {
      await sleep(200)
    }
  }
}

async function tune (id: string): Promise<void> {
  playing?.abort()
  const t0 = Date.now()
  const { url } = await player.resolve(id)
  const ctl = new AbortController()
  playing = ctl
  // First byte of a media segment of this channel served on the local URL.
  let got = null
  for (let i = 0; i < 600 && !got; i++) {
    const seqs = await segmentsOf(url, ctl.signal).catch(() => [])
    if (seqs.length > 0 && player.source()?.streamId === id) got = await firstByte(url.replace('index.m3u8', `seg${seqs[seqs.length - 1]}.ts`), ctl.signal)
    else await sleep(50)
  }
  if (!got) throw new Error(`no media from ${id}`)
  out({ type: 'tune', id, ms: got.at - t0 })
  await got.rest
  void play(id, url, ctl.signal)
}

await player.connect()
const t0 = Date.now()
await loginWithRetry(player, env('BENCH_USER'), env('BENCH_PASSWORD'), { attempts: 60, delayMs: 250 })
out({ type: 'login', ms: Date.now() - t0 })

const rl = createInterface({ input: process.stdin })
rl.on('line', (line) => {
  void (async () => {
    const msg = JSON.parse(line) as { cmd: string; id?: string }
    try {
      if (msg.cmd === 'tune') await tune(msg.id!)
      else if (msg.cmd === 'stats') {
        const feed = player.diagnostics().feed
        const fromPeers = Object.values(feed?.bytesByPeer ?? {})
        out({ type: 'stats', rssMb: process.memoryUsage().rss / 1048576, peers: feed?.peers ?? 0, uploaded: fromPeers.reduce((a, b) => a + b.uploaded, 0) })
      } else if (msg.cmd === 'stop') {
        playing?.abort()
        await player.stop()
        process.exit(0)
      }
    } catch (err) {
      out({ type: 'error', cmd: msg.cmd, message: (err as Error).message })
    }
  })()
})
rl.on('close', () => { void player.stop().finally(() => process.exit(0)) })
