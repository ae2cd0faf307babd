/**
 * One benchmark viewer (`pnpm bench`): an SDK player in its own plain `node` process (the
 * built SDK, no TypeScript loader, so its memory is the product's), driven by JSON commands on
 * stdin, reporting measurements as JSON lines on stdout (wall-clock `at` values are comparable
 * with the other processes on the machine). Not a product: see apps/viewer.
 *
 * Env: BENCH_PANEL_KEY, BENCH_BOOTSTRAP (host:port,...), BENCH_STORE, BENCH_USER,
 * BENCH_PASSWORD, BENCH_ZAP_PREFETCH (1 = on), BENCH_LOGIN_DELAY_MS (login that long after
 * connect; default 0 = at once, no host retry), BENCH_WRITE_BUFFER_MIB (the SDK's
 * storage.writeBufferMiB; default: the SDK's).
 * Commands: { cmd: 'tune', id } (also a zap when playing), { cmd: 'resolve', id } (only
 * resolve: the URL for a browser player), { cmd: 'stats' }, { cmd: 'stop' }.
 * Lines: login (ms, phases; mainMs and cpuMs: the JS thread's busy time and the process's CPU
 * time over connect() and login()), streams (hr: sub-ms wall clock), catalog-append (hr), tune, resolved, segment (first byte of each live segment),
 * stats, error.
 */
import { readFileSync } from 'node:fs'
import { Agent, get } from 'node:http'
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import { getHeapSpaceStatistics } from 'node:v8'
import { createPlayer } from '../../packages/sdk/dist/index.js'

const env = (name) => {
  const v = process.env[name]
  if (!v) throw new Error(`${name} is not set`)
  return v
}
const out = (line) => process.stdout.write(`${JSON.stringify({ ...line, at: line.at ?? Date.now() })}\n`)

const player = createPlayer({
  panelPubKey: env('BENCH_PANEL_KEY'),
  storeDir: env('BENCH_STORE'),
  swarm: { bootstrap: env('BENCH_BOOTSTRAP').split(',').map((hp) => ({ host: hp.split(':')[0], port: Number(hp.split(':')[1]) })) },
  uploadPolicy: 'reseed',
  zapPrefetch: process.env.BENCH_ZAP_PREFETCH === '1',
  tune: { timeoutMs: 20_000 },
  // The browser bench (browser.ts) plays the local URL with hls.js in a page of another origin:
  // the explicit CORS opt-in (the SDK sends no Access-Control-Allow-Origin by default).
  server: { allowOrigin: '*' },
  ...(process.env.BENCH_WRITE_BUFFER_MIB ? { storage: { writeBufferMiB: Number(process.env.BENCH_WRITE_BUFFER_MIB) } } : {})
})
player.on('streams', (list) => out({ type: 'streams', titles: Object.fromEntries(list.map((s) => [s.id, s.title])), hr: performance.timeOrigin + performance.now() }))
player.on('error', (err) => out({ type: 'error', message: err.message }))

let playing = null

// node:http, not fetch: the player's HTTP client shares this process, and undici's web streams
// would add their own allocation churn to the SDK's memory figures.
const agent = new Agent({ keepAlive: true, maxSockets: 4 })

/** GET `url`: resolves with the response (status, readable body); aborted with `signal`. */
const request = (url, signal) => new Promise((resolve, reject) => {
  const req = get(url, { agent, signal }, resolve)
  req.on('error', reject)
})

/** First byte of `url` (retried while the local server answers 404: not replicated yet). */
async function firstByte (url, signal) {
  for (let i = 0; i < 200 && !signal.aborted; i++) {
    const res = await request(url, signal).catch(() => null)
    if (res?.statusCode === 200) {
      const at = await new Promise((resolve) => { res.once('data', () => resolve(Date.now())); res.once('end', () => resolve(Date.now())); res.once('error', () => resolve(Date.now())) })
      const rest = new Promise((resolve) => { res.on('end', resolve); res.on('error', resolve); res.on('close', resolve); res.resume() })
      return { at, rest }
    }
    res?.resume()
    await sleep(50)
  }
  return null
}

const segmentsOf = async (url, signal) => {
  const res = await request(url, signal)
  let text = ''
  res.setEncoding('utf8')
  for await (const chunk of res) text += chunk
  return [...text.matchAll(/seg(\d+)\.ts/g)].map((m) => Number(m[1]))
}

/** Plays the live edge like an HLS client: asks for the next segment before it exists. */
async function play (id, url, signal) {
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

async function tune (id) {
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
  out({ type: 'tune', id, ms: got.at - t0, url })
  await got.rest
  void play(id, url, ctl.signal)
}

const MiB = 1048576
/** Where the resident memory is: the kernel's split and V8's own accounting (MiB). */
function memory () {
  const m = process.memoryUsage()
  const rollup = (() => {
    try {
      const text = readFileSync('/proc/self/smaps_rollup', 'utf8')
      const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0) / 1024
      return { anon: kb('Anonymous'), file: kb('Rss') - kb('Anonymous') }
    } catch { return null }
  })()
  const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size / MiB]))
  return {
    rssMb: m.rss / MiB,
    heapTotalMb: m.heapTotal / MiB,
    heapUsedMb: m.heapUsed / MiB,
    externalMb: m.external / MiB,
    arrayBuffersMb: m.arrayBuffers / MiB,
    anonMb: rollup?.anon ?? null,
    fileMb: rollup?.file ?? null,
    largeObjectsMb: spaces.large_object_space ?? null
  }
}

// The JS thread's busy time and the process's CPU time over connect() and login() (scripts/bench/login-alone.ts).
const busy0 = performance.eventLoopUtilization()
const cpu0 = process.cpuUsage()
await player.connect()
// The propagation trace's middle step: when this viewer's catalog core appended an edit (a
// bench-only look inside the SDK; apps see only 'streams').
const catalogCore = player.catalog.bee.core
catalogCore.on('append', () => out({ type: 'catalog-append', length: catalogCore.length, hr: performance.timeOrigin + performance.now() }))
const delay = Number(process.env.BENCH_LOGIN_DELAY_MS ?? 0)
if (delay > 0) await sleep(delay)
const t0 = Date.now()
// One call, no host retry: login waits for the panel link itself (within its bound).
await player.login(env('BENCH_USER'), env('BENCH_PASSWORD'))
const busy = performance.eventLoopUtilization(busy0)
const cpu = process.cpuUsage(cpu0)
out({ type: 'login', ms: Date.now() - t0, mainMs: busy.active, cpuMs: (cpu.user + cpu.system) / 1000, phases: player.diagnostics().lastLogin?.phases ?? null })

const rl = createInterface({ input: process.stdin })
rl.on('line', (line) => {
  void (async () => {
    const msg = JSON.parse(line)
    try {
      if (msg.cmd === 'tune') await tune(msg.id)
      else if (msg.cmd === 'resolve') {
        playing?.abort()
        const t0 = Date.now()
        const { url } = await player.resolve(msg.id)
        out({ type: 'resolved', id: msg.id, ms: Date.now() - t0, url })
      }
      else if (msg.cmd === 'stats') {
        const feed = player.diagnostics().feed
        const fromPeers = Object.values(feed?.bytesByPeer ?? {})
        out({ type: 'stats', ...memory(), peers: feed?.peers ?? 0, uploaded: fromPeers.reduce((a, b) => a + b.uploaded, 0) })
      } else if (msg.cmd === 'stop') {
        playing?.abort()
        await player.stop()
        process.exit(0)
      }
    } catch (err) {
      out({ type: 'error', cmd: msg.cmd, message: err.message })
    }
  })()
})
rl.on('close', () => { void player.stop().finally(() => process.exit(0)) })
