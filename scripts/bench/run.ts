/**
 * `pnpm bench` (issue 7): what viewers feel and what the origin pays, on this machine, over a
 * local DHT testnet on 127.0.0.1 with real daemons and viewers as separate processes. Not a
 * test. One panel and two broadcasters run side by side: one with origin upload shaping at
 * its defaults ("shaped"), one with it off (ORIGIN_PEERS_PER_BLOCK=0, "unshaped"), each with
 * its own channels. Every measurement is taken for both, interleaved and in alternating
 * order (shaped first, then unshaped first, ...), so the two columns share the machine's
 * state and drift instead of being two runs at different times. Writes
 * bench-results/bench-<date>.json and, unless `--quick`, the "Viewer and origin" section of
 * docs/benchmarks.md.
 *
 *   pnpm bench            # full: 3 latency runs, 6 extra cold tunes, 60 s of egress per configuration for N = 1, 4, 8 (~15 min on 2 cores)
 *   pnpm bench --quick    # smoke: 1 latency run, 1 extra cold tune, 2 × 10 s per configuration for N = 1, 2 (~4 min)
 *   pnpm bench --counts=4,8 --window=30 --skip-latency [--swap]   # a focused egress run (not written to the doc)
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { cpus, loadavg } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { cleanupAll, waitFor } from '@arus/testkit'
import { startBrowser, type BrowserBench } from './browser.js'
import { writeDocBlock } from './doc-block.js'
import { CHANNEL, RATES, VIEWER_MALLOC_ARENA_MAX, VIEWER_NODE_FLAGS, procStats, startStack, type Broadcaster, type Stack, type Viewer } from './stack.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const flag = (name: string): string | undefined => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3)
const QUICK = process.argv.includes('--quick')
const SKIP_LATENCY = process.argv.includes('--skip-latency')
/**
 * `--only=rates`: only the bitrate phase (memory, login, propagation, first frame); `--only=latency`:
 * only the latency phase (logins, tunes, zaps, edge delay, propagation while ten channels encode).
 * Neither is written to the doc.
 */
const ONLY = flag('only')
const RATE_ROUNDS = Number(flag('rate-rounds') ?? (QUICK ? 1 : 3))
const RATE_PLAY_S = Number(flag('play') ?? (QUICK ? 10 : 30))
const EDITS = QUICK ? 3 : 6
const RUNS = QUICK ? 1 : 3
const COLD_RUNS = QUICK ? 1 : 6
const PLAY_S = QUICK ? 6 : 16
/**
 * Title edits per latency run, LATENCY_EDIT_GAP_S apart while the viewer keeps playing: each one
 * isolated (two segment periods between them), enough of them that the phase's median is not
 * three samples per run.
 */
const LATENCY_EDITS = QUICK ? 2 : 5
const LATENCY_EDIT_GAP_S = 4
const WINDOW_S = flag('window') !== undefined ? Math.min(600, Math.max(5, Number(flag('window')))) : QUICK ? 20 : 60
const WARMUP_S = QUICK ? 5 : 10
const COUNTS = flag('counts')?.split(',').map(Number).filter((n) => Number.isInteger(n) && n >= 1 && n <= 16) ?? (QUICK ? [1, 2] : [1, 4, 8])
/** Only a full default run rewrites docs/benchmarks.md. */
const FULL = !QUICK && !SKIP_LATENCY && ONLY === undefined && !process.argv.includes('--swap') && flag('window') === undefined && flag('counts') === undefined && flag('rate-rounds') === undefined
const log = (s: string) => console.error(`[bench] ${s}`)
const audience = (n: number) => `${n} viewer${n === 1 ? '' : 's'}`

/** The two configurations compared, each on its own broadcaster with its own channels. */
const CONFIGS = [
  { key: 'shaped', label: 'shaped (defaults)', env: {} as Record<string, string> },
  { key: 'unshaped', label: 'unshaped (ORIGIN_PEERS_PER_BLOCK=0)', env: { ORIGIN_PEERS_PER_BLOCK: '0' } }
] as const
type ConfigKey = typeof CONFIGS[number]['key']
/** Channel ids of a configuration: three for latency runs (never-opened cold tunes, adjacent zaps), one for egress. */
const latencyChannels = (key: ConfigKey) => [0, 1, 2].map((i) => `${key[0]}c${i}`)
const egressChannel = (key: ConfigKey) => `${key[0]}eg`
/** Alternating order: round r measures shaped first when r is even, unshaped first when odd. */
const inOrder = (r: number) => (r % 2 === 0 ? [...CONFIGS] : [...CONFIGS].reverse())

type Samples = Record<string, number[]>
type BySample = Record<ConfigKey, Samples>
const push = (s: Samples, k: string, v: number) => { (s[k] ??= []).push(v) }

/** Edge delay samples: viewer first byte of a segment − the broadcaster's feed.segment log time. */
function edgeDelays (b: Broadcaster, viewers: Viewer[], since = 0): number[] {
  const appended = new Map<string, number>()
  for (const line of b.proc.stdoutLines()) {
    if (!line.includes('"feed.segment"')) continue
    const l = JSON.parse(line) as { channel: string; sequence: number; at: number }
    appended.set(`${l.channel}:${l.sequence}`, l.at)
  }
  const out: number[] = []
  for (const v of viewers) {
    for (const l of v.lines) {
      if (l.type !== 'segment' || l.at < since) continue
      const at = appended.get(`${l.id}:${l.sequence}`)
      if (at !== undefined) out.push(l.at - at)
    }
  }
  return out
}

/** Where in the segment cycle each channel's newest segment was appended (the channels' relative timing). */
function phases (broadcasters: Broadcaster[]): string {
  const cycle = CHANNEL.hlsTime * 1000
  const last = new Map<string, number>()
  for (const b of broadcasters) {
    for (const line of b.proc.stdoutLines()) {
      if (!line.includes('"feed.segment"')) continue
      const l = JSON.parse(line) as { channel: string; at: number }
      last.set(l.channel, l.at)
    }
  }
  return [...last].sort((x, y) => (x[1] % cycle) - (y[1] % cycle)).map(([ch, at]) => `${ch} ${at % cycle}`).join(', ')
}

async function tune (v: Viewer, id: string): Promise<number> {
  const from = v.lines.length
  v.send({ cmd: 'tune', id })
  return (await v.next((l) => l.type === 'tune' && l.id === id, 90_000, from)).ms
}

/** The answer time of the panel's first PATCH (the latency phase's warm-up edit), if made. */
let firstEditMs: number | null = null

/** Wall clock with sub-millisecond resolution, comparable across the processes of this machine. */
const hrNow = (): number => performance.timeOrigin + performance.now()

/**
 * One admin title edit, traced (docs/architecture.md "Edit propagation"): ms after the PATCH
 * was sent until the answer came, until the viewer's catalog core appended it, and until its
 * 'streams' event showed the new title.
 */
async function titleEdit (stack: Stack, v: Viewer, id: string): Promise<{ answered: number; appended: number | null; streams: number }> {
  const title = `${id} edit ${Date.now()}`
  const from = v.lines.length
  const sent = hrNow()
  await stack.edit('PATCH', `/api/streams/${id}`, { title })
  const answered = hrNow() - sent
  const seen = await v.next((l) => l.type === 'streams' && l.titles[id] === title, 30_000, from)
  // The append can come after 'streams': a live edit is reported once verified, before it is stored.
  const append = await v.next((l) => l.type === 'catalog-append' && l.hr >= sent, 2_000, from).catch(() => null)
  return { answered, appended: append === null ? null : append.hr - sent, streams: seen.hr - sent }
}
const notePropagation = (s: Samples, t: Awaited<ReturnType<typeof titleEdit>>) => {
  push(s, 'propagation_ms', t.streams)
  push(s, 'propagation.answered_ms', t.answered)
  if (t.appended !== null) push(s, 'propagation.viewer_append_ms', t.appended)
}

/**
 * Per run and configuration: a fresh viewer logs in, cold-tunes a never-opened channel, plays
 * the live edge alone (single-viewer edge delay), sees LATENCY_EDITS admin title edits arrive,
 * zaps to the adjacent channel; then a zap-prefetch viewer does the same zap after warming up.
 */
async function latency (stack: Stack, bc: Record<ConfigKey, Broadcaster>, samples: BySample): Promise<void> {
  // The panel's first PATCH runs code nothing ran before (in the runs of 2026-11-25 the first
  // timed edit took 8-16 ms to the answer, the others 3-7): made here, untimed for
  // propagation_ms like the admin login, and reported on its own.
  const warm = latencyChannels(CONFIGS[0]!.key)[0]!
  const sent = hrNow()
  await stack.edit('PATCH', `/api/streams/${warm}`, { title: `${warm} first edit` })
  firstEditMs = hrNow() - sent
  const before = await Promise.all(CONFIGS.map((c) => procStats(bc[c.key].proc.child.pid!)))
  const t0 = Date.now()
  for (let r = 0; r < RUNS; r++) {
    for (const { key } of inOrder(r)) {
      const s = samples[key]
      const chans = latencyChannels(key)
      const ch = chans[r % chans.length]!
      const next = chans[r + 1] ?? chans[r - 1]!
      log(`  run ${r + 1}/${RUNS} ${key}: login, cold tune ${ch}, edge delay, ${LATENCY_EDITS} title edits, zap to ${next}`)
      const v = await stack.viewer()
      noteLogin(s, v)
      push(s, 'cold_tune_ms', await tune(v, ch))
      const playing = Date.now()
      await sleep(PLAY_S * 1000)
      for (const d of edgeDelays(bc[key], [v], playing)) push(s, 'edge_delay_ms(1 viewer)', d)
      for (let e = 0; e < LATENCY_EDITS; e++) {
        if (e > 0) await sleep(LATENCY_EDIT_GAP_S * 1000)
        notePropagation(s, await titleEdit(stack, v, ch))
      }
      push(s, 'zap_ms(prefetch off)', await tune(v, next))
      await v.stop()

      const w = await stack.viewer({ zapPrefetch: true })
      noteLogin(s, w)
      await tune(w, ch)
      await sleep(10_000) // zap prefetch warms the neighbors' newest segment (every 4 s)
      push(s, 'zap_ms(prefetch on)', await tune(w, next))
      await w.stop()
    }
  }
  // More cold tunes (the runs above give only RUNS): a fresh viewer, login, one tune, gone.
  for (let r = 0; r < COLD_RUNS; r++) {
    for (const { key } of inOrder(r)) {
      const ch = latencyChannels(key)[r % 3]!
      log(`  cold tune ${r + 1}/${COLD_RUNS} ${key}: ${ch}`)
      const v = await stack.viewer()
      noteLogin(samples[key], v)
      push(samples[key], 'cold_tune_ms', await tune(v, ch))
      await v.stop()
    }
  }
  // Broadcaster CPU over the whole latency phase, all channels running, per channel.
  const wall = (Date.now() - t0) / 1000
  for (const [i, c] of CONFIGS.entries()) {
    const b = bc[c.key]
    const after = await procStats(b.proc.child.pid!)
    const ticks = after.ticks - before[i]!.ticks + after.childTicks - before[i]!.childTicks
    push(samples[c.key], 'cpu_pct_per_channel', (ticks / 100 / wall) * 100 / b.channels.length)
  }
}


/** The bitrate dimension: the same measurements on a low and a high bitrate channel. */
type RateKey = keyof typeof RATES
const RATE_KEYS = Object.keys(RATES) as RateKey[]
const rateChannel = (key: RateKey) => `r${key}`
const rateOrder = (r: number) => (r % 2 === 0 ? [...RATE_KEYS] : [...RATE_KEYS].reverse())
const kbps = (key: RateKey) => RATES[key].transcode.videoBitrateKbps + RATES[key].transcode.audioBitrateKbps

/** Login phases of every fresh viewer (login does not depend on the channel or the broadcaster). */
const loginPhases: Array<Array<{ name: string; startMs: number; ms: number }>> = []
const noteLogin = (s: Samples, v: Viewer) => {
  const l = v.lines.find((x) => x.type === 'login')!
  push(s, 'login_ms', l.ms)
  if (Array.isArray(l.phases)) loginPhases.push(l.phases)
}

/**
 * Per round and bitrate: a fresh viewer logs in, cold-tunes the channel, plays its live edge
 * for RATE_PLAY_S (memory sampled every 10 s; the figure is the sample at the end), sees EDITS
 * admin title edits arrive one at a time, and stops; then another fresh viewer resolves the
 * channel and Chromium starts it with hls.js.
 */
async function rates (stack: Stack, b: Broadcaster, browser: BrowserBench, samples: Record<RateKey, Samples>, all: Samples): Promise<void> {
  for (let r = 0; r < RATE_ROUNDS; r++) {
    for (const key of rateOrder(r)) {
      const s = samples[key]
      const id = rateChannel(key)
      log(`  rates ${r + 1}/${RATE_ROUNDS} ${key} (${kbps(key)} kb/s): login, cold tune, ${RATE_PLAY_S} s of play, ${EDITS} title edits, hls.js first frame`)
      const v = await stack.viewer()
      noteLogin(all, v)
      push(s, 'cold_tune_ms', await tune(v, id))
      const a = await procStats(v.child.pid!)
      const t0 = Date.now()
      let last: Record<string, number> = {}
      for (let t = 0; t < RATE_PLAY_S; t += 10) {
        await sleep(Math.min(10, RATE_PLAY_S - t) * 1000)
        const from = v.lines.length
        v.send({ cmd: 'stats' })
        last = await v.next((l) => l.type === 'stats', 10_000, from)
        push(s, 'viewer_rss_mb(while playing)', last.rssMb!)
      }
      const z = await procStats(v.child.pid!)
      push(s, 'viewer_cpu_pct', ((z.ticks - a.ticks) / 100 / ((Date.now() - t0) / 1000)) * 100)
      push(s, 'viewer_rss_mb', last.rssMb!)
      for (const k of ['heapUsedMb', 'heapTotalMb', 'externalMb', 'arrayBuffersMb', 'anonMb', 'fileMb'] as const) if (typeof last[k] === 'number') push(s, `mem.${k}`, last[k])
      for (let e = 0; e < EDITS; e++) {
        const t = await titleEdit(stack, v, id)
        notePropagation(s, t)
        push(all, 'propagation_ms', t.streams)
        await sleep(300)
      }
      await v.stop()

      const w = await stack.viewer()
      noteLogin(all, w)
      const from = w.lines.length
      w.send({ cmd: 'resolve', id })
      const resolved = await w.next((l) => l.type === 'resolved', 30_000, from)
      push(s, 'resolve_ms', resolved.ms)
      try {
        const ff = await browser.firstFrame(resolved.url)
        push(s, 'first_frame_ms', ff.frameMs)
        push(s, 'first_frame.manifest_ms', ff.manifestMs)
        push(s, 'first_frame.fragment_ms', ff.fragMs)
        push(s, 'first_frame.fragment_kib', ff.fragBytes / 1024)
      } catch (err) {
        log(`  first frame ${key}: ${(err as Error).message}`)
        push(s, 'first_frame_failures', 1)
      }
      await w.stop()
    }
  }
}

interface Shaping { served: number; held: number; cancelled: number; released: number; cancelWaitMs: number }
interface EgressResult { config: ConfigKey; viewers: number; seconds: number; streamBytes: number; uploadedBytes: number; multiple: number; shaping: Shaping | null; broadcasterRssMb: number }
type Part = Omit<EgressResult, 'multiple'>

const shapingDelta = (a: Shaping | null, z: Shaping | null): Shaping | null =>
  a === null || z === null ? null : { served: z.served - a.served, held: z.held - a.held, cancelled: z.cancelled - a.cancelled, released: z.released - a.released, cancelWaitMs: z.cancelWaitMs - a.cancelWaitMs }

/**
 * One part of an egress window: every viewer tunes to the configuration's egress channel,
 * warm-up, then `seconds` of counting. Per-sample metrics go straight into `s`.
 */
async function part (key: ConfigKey, b: Broadcaster, viewers: Viewer[], s: Samples, seconds: number, firstVisit: boolean): Promise<Part> {
  const id = egressChannel(key)
  const n = viewers.length
  // A join is a playing viewer zapping into the audience. Not counted: a fresh viewer's first
  // tune (a cold tune, and only ever in the first configuration of its audience size) and a
  // return visit (ABBA's middle pair re-tunes the channel the viewers just left: at once).
  for (const v of viewers) {
    const fresh = !v.lines.some((l) => l.type === 'tune')
    const ms = await tune(v, id)
    if (firstVisit && !fresh) push(s, `join_tune_ms(${audience(n)})`, ms)
  }
  log(`  ${audience(n)} on ${key}: warm-up ${WARMUP_S} s, ${seconds} s counted`)
  await sleep(WARMUP_S * 1000)
  const a = await b.bc('GET', `/api/channels/${id}`)
  const va = await Promise.all(viewers.map((v) => procStats(v.child.pid!)))
  const t0 = Date.now()
  for (let t = 0; t < seconds; t += 10) {
    await sleep(Math.min(10, seconds - t) * 1000)
    for (const v of viewers) {
      const from = v.lines.length
      v.send({ cmd: 'stats' })
      push(s, 'viewer_rss_mb', (await v.next((l) => l.type === 'stats', 10_000, from)).rssMb)
    }
  }
  const z = await b.bc('GET', `/api/channels/${id}`)
  const vz = await Promise.all(viewers.map((v) => procStats(v.child.pid!)))
  const pz = await procStats(b.proc.child.pid!)
  const wall = (Date.now() - t0) / 1000
  for (const [i, x] of vz.entries()) push(s, `viewer_cpu_pct(${audience(n)})`, ((x.ticks - va[i]!.ticks + x.childTicks - va[i]!.childTicks) / 100 / wall) * 100)
  for (const d of edgeDelays(b, viewers, t0)) push(s, `edge_delay_ms(${audience(n)})`, d)
  push(s, 'broadcaster_rss_mb', pz.rssMb)
  return {
    config: key, viewers: n, seconds: wall,
    streamBytes: z.playlist.bytesWritten - a.playlist.bytesWritten,
    uploadedBytes: z.egress.uploadedBytes - a.egress.uploadedBytes,
    shaping: shapingDelta(a.egress.shaping, z.egress.shaping),
    broadcasterRssMb: pz.rssMb
  }
}

/**
 * The same audience (N viewer processes) watches each configuration's egress channel in turn,
 * in ABBA order and WINDOW_S / 2 at a time, so each configuration is counted for WINDOW_S in
 * two halves that bracket the other's: drift during the run weighs on both alike.
 */
async function egress (stack: Stack, bc: Record<ConfigKey, Broadcaster>, samples: BySample): Promise<EgressResult[]> {
  // Only the egress channels keep running: the latency channels' encoders would otherwise eat
  // CPU the viewer processes need (every process shares this machine's cores).
  for (const c of CONFIGS) for (const id of latencyChannels(c.key)) await bc[c.key].bc('POST', `/api/channels/${id}/stop`)
  const viewers: Viewer[] = []
  const results: EgressResult[] = []
  for (const [i, n] of COUNTS.entries()) {
    while (viewers.length < n) {
      const v = await stack.viewer()
      noteLogin(samples[inOrder(i)[0]!.key], v)
      viewers.push(v)
    }
    const order = inOrder(i)
    const parts: Part[] = []
    for (const [j, { key }] of [...order, ...[...order].reverse()].entries()) parts.push(await part(key, bc[key], viewers, samples[key], WINDOW_S / 2, j < order.length))
    for (const { key } of CONFIGS) {
      const mine = parts.filter((p) => p.config === key)
      const sum = (f: (p: Part) => number) => mine.reduce((x, p) => x + f(p), 0)
      const shaping = mine.every((p) => p.shaping !== null)
        ? { served: sum((p) => p.shaping!.served), held: sum((p) => p.shaping!.held), cancelled: sum((p) => p.shaping!.cancelled), released: sum((p) => p.shaping!.released), cancelWaitMs: sum((p) => p.shaping!.cancelWaitMs) }
        : null
      const r: EgressResult = {
        config: key, viewers: n, seconds: sum((p) => p.seconds), streamBytes: sum((p) => p.streamBytes), uploadedBytes: sum((p) => p.uploadedBytes),
        multiple: sum((p) => p.uploadedBytes) / sum((p) => p.streamBytes), shaping, broadcasterRssMb: Math.max(...mine.map((p) => p.broadcasterRssMb))
      }
      const relay = shaping !== null && shaping.cancelled > 0 ? shaping.cancelWaitMs / shaping.cancelled : null
      log(`  egress_multiple(${n}) ${key}: ${(r.uploadedBytes / 1e6).toFixed(2)} MB uploaded / ${(r.streamBytes / 1e6).toFixed(2)} MB stream = ${r.multiple.toFixed(2)}×` +
        (relay === null ? '' : `; ${shaping!.held} requests held, ${shaping!.cancelled} relayed by a viewer after ${relay.toFixed(0)} ms on average, ${shaping!.released} released`))
      push(samples[key], `egress_multiple(${n})`, r.multiple)
      if (relay !== null) push(samples[key], `relay_ms(${audience(n)}, mean)`, relay)
      results.push(r)
    }
  }
  // The audience leaves with its phase: the bitrate phase measures one fresh viewer at a time,
  // like the latency runs (eight idle viewer processes would share the two cores with it).
  await Promise.all(viewers.map((v) => v.stop()))
  return results
}

interface Summary { min: number; median: number; max: number; n: number }
const summary = (xs: number[]): Summary => {
  const v = [...xs].sort((a, b) => a - b)
  const median = v.length % 2 ? v[(v.length - 1) / 2]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2
  return { min: v[0]!, median, max: v[v.length - 1]!, n: v.length }
}
const summarize = (s: Samples) => Object.fromEntries(Object.entries(s).map(([k, v]) => [k, summary(v)]))

/** Sort key of a metric row: latency first, then per audience size. */
const rowOrder = (k: string) => {
  const n = Number(/\((\d+) viewer/.exec(k)?.[1] ?? 0)
  const base = ['login_ms', 'cold_tune_ms', 'zap_ms(prefetch off)', 'zap_ms(prefetch on)', 'propagation_ms', 'propagation.answered_ms', 'propagation.viewer_append_ms', 'viewer_rss_mb', 'broadcaster_rss_mb', 'cpu_pct_per_channel'].indexOf(k)
  return base >= 0 ? base : 100 + n * 10 + ['join', 'edge', 'relay', 'egress', 'viewer_cpu'].findIndex((p) => k.startsWith(p))
}

function render (metrics: Record<ConfigKey, Record<string, Summary>>, meta: { date: string; cores: number; model: string; load: string }): string {
  const keys = [...new Set(CONFIGS.flatMap((c) => Object.keys(metrics[c.key])))].sort((a, b) => rowOrder(a) - rowOrder(b) || a.localeCompare(b))
  const fmt = (x: number) => (Math.abs(x) < 10 ? x.toFixed(2) : x.toFixed(0))
  const cell = (m?: Summary) => (m ? `${fmt(m.median)} (${fmt(m.min)}–${fmt(m.max)}, n=${m.n})` : '—')
  const delta = (a?: Summary, b?: Summary) => {
    if (!a || !b || b.median <= 0) return '—'
    const pct = Math.round((a.median / b.median - 1) * 100)
    return `${pct > 0 ? '+' : pct < 0 ? '−' : '±'}${Math.abs(pct)} %`
  }
  return [
    `Measured by \`pnpm bench\` (scripts/bench/run.ts) on ${meta.date}: ${meta.cores} cores (${meta.model}), Node ${process.version}; 1-minute load average at the end ${meta.load}.`,
    `One panel and two broadcasters side by side, shaped (defaults) and unshaped (ORIGIN_PEERS_PER_BLOCK=0), each with ${latencyChannels('shaped').length + 1} \`test\` channels: ${CHANNEL.transcode.width}x${CHANNEL.transcode.height} H.264 ${CHANNEL.transcode.videoBitrateKbps} kb/s + AAC ${CHANNEL.transcode.audioBitrateKbps} kb/s, ${CHANNEL.hlsTime} s segments. ` +
      `Viewers are separate processes (scripts/bench/viewer.ts, @arus/sdk, reseed mode) that play the live edge. Every measurement is taken for both configurations, interleaved in alternating order. ` +
      `${RUNS} latency runs (a fresh viewer each, playing ${PLAY_S} s alone, then ${LATENCY_EDITS} title edits ${LATENCY_EDIT_GAP_S} s apart while it plays on) and ${COLD_RUNS} more cold tunes (fresh viewers); cpu_pct_per_channel is the broadcaster (with its ffmpeg) over that phase, all channels running. ` +
      `Then only the egress channels run, and the same ${COUNTS.join(', then ')} viewer processes watch one channel of each broadcaster in turn, ABBA: ${WINDOW_S / 2} s counted after ${WARMUP_S} s of warm-up, four times per audience size, so each configuration is counted for ${WINDOW_S} s in two halves that bracket the other's. ` +
      'join_tune_ms(N viewers) times each playing viewer zapping into the audience after the others (first visits; fresh viewers\' cold first tunes excluded); edge_delay_ms(1 viewer) pools the latency runs and the 1-viewer windows; relay_ms is how long the origin held a request before a viewer served the block and the requester cancelled it; viewer_cpu_pct is per viewer process (100 = one core); propagation_ms is a title PATCH sent (its bytes written to a kept-alive admin connection) → the viewer\'s \'streams\' event, and its trace: propagation.answered_ms when the panel\'s answer came back, propagation.viewer_append_ms when the viewer\'s catalog core appended the edit (sub-millisecond wall clocks of the processes).',
    ...(firstEditMs === null ? [] : ['', `The panel's first PATCH, a title edit before the latency runs (not in propagation_ms, like the admin login): answered in ${firstEditMs.toFixed(1)} ms.`]),
    '',
    `| Metric: median (min–max, samples) | ${CONFIGS.map((c) => c.label).join(' | ')} | shaped vs unshaped (medians) |`,
    `|---|${CONFIGS.map(() => '---').join('|')}|---|`,
    ...keys.map((k) => `| ${k} | ${CONFIGS.map((c) => cell(metrics[c.key][k])).join(' | ')} | ${delta(metrics.shaped[k], metrics.unshaped[k])} |`)
  ].join('\n')
}


function renderRates (m: Record<RateKey, Record<string, Summary>>, measured: Record<string, number>, all: Record<string, Summary>): string {
  const keys = [...new Set(RATE_KEYS.flatMap((k) => Object.keys(m[k])))]
  const fmt = (x: number) => (Math.abs(x) < 10 ? x.toFixed(2) : x.toFixed(0))
  const cell = (x?: Summary) => (x ? `${fmt(x.median)} (${fmt(x.min)}–${fmt(x.max)}, n=${x.n})` : '—')
  const label = (k: RateKey) => `${k}: ${RATES[k].transcode.width}x${RATES[k].transcode.height}, ${kbps(k)} kb/s set, ${measured[k]} kb/s measured`
  return [
    `Bitrate dimension (same run): a third broadcaster at its defaults with two \`test\` channels, ${RATE_KEYS.map(label).join('; ')}; ${CHANNEL.hlsTime} s segments. ` +
      `Only these two channels run in this phase (after the others stopped), and no other viewer process (the egress audience left with its phase). Viewer processes run \`${VIEWER_MALLOC_ARENA_MAX === '' ? '' : `MALLOC_ARENA_MAX=${VIEWER_MALLOC_ARENA_MAX} `}node ${VIEWER_NODE_FLAGS.join(' ') || '(default flags)'}\` (docs/architecture.md "Viewer memory"). ` +
      `${RATE_ROUNDS} rounds, alternating order; per round and bitrate a fresh viewer process logs in (one login() call right after connect(), no host retry), cold-tunes, plays the live edge for ${RATE_PLAY_S} s ` +
      `(viewer_rss_mb is the sample at the end; (while playing) pools the samples every 10 s; mem.* split it: V8 heap, external and array buffers, anonymous and file-backed resident pages), then sees ${EDITS} admin title edits (PATCH sent → 'streams' event); ` +
      'then another fresh viewer resolves the channel and Debian Chromium starts it with hls.js (npm, default config) in a page on 127.0.0.1: first_frame_ms is hls.loadSource() → the first video frame presented (requestVideoFrameCallback).',
    '',
    `| Metric: median (min–max, samples) | ${RATE_KEYS.map((k) => k).join(' | ')} | high vs low (medians) |`,
    `|---|${RATE_KEYS.map(() => '---').join('|')}|---|`,
    ...keys.map((k) => {
      const lo = m.low[k]
      const hi = m.high[k]
      const d = lo && hi ? `${hi.median - lo.median >= 0 ? '+' : '−'}${fmt(Math.abs(hi.median - lo.median))}` : '—'
      return `| ${k} | ${RATE_KEYS.map((r) => cell(m[r][k])).join(' | ')} | ${d} |`
    }),
    '',
    `Pooled over every fresh viewer of the run: login_ms ${cell(all.login_ms)}; propagation_ms (all bitrates) ${cell(all.propagation_ms)}.`
  ].join('\n')
}

/** Median start and duration of each login phase, over every fresh viewer's login. */
function renderPhases (logins: Array<Array<{ name: string; startMs: number; ms: number }>>): string {
  if (logins.length === 0) return ''
  const names: string[] = []
  for (const l of logins) for (const p of l) if (!names.includes(p.name)) names.push(p.name)
  const med = (xs: number[]) => (xs.length === 0 ? NaN : summary(xs).median)
  const rows = names.map((name) => {
    const ps = logins.flatMap((l) => l.filter((p) => p.name === name))
    return { name, start: med(ps.map((p) => p.startMs)), ms: med(ps.map((p) => p.ms)), max: Math.max(...ps.map((p) => p.ms)), n: ps.length }
  }).sort((a, b) => a.start - b.start)
  return [
    `Login phases (diagnostics().lastLogin of ${logins.length} fresh viewers, the default proof-of-work cost; the login runs no Argon2id): median start after login() was called, median and max duration. Phases that overlap ran side by side.`,
    '',
    '| Phase | starts at (ms) | takes (ms) | max (ms) | n |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.name} | ${r.start.toFixed(1)} | ${r.ms.toFixed(1)} | ${r.max.toFixed(1)} | ${r.n} |`)
  ].join('\n')
}


const started = Date.now()
const stop = async () => { await cleanupAll(); process.exit(130) }
process.once('SIGINT', () => { void stop() })
process.once('SIGTERM', () => { void stop() })
log(`starting a panel and three broadcasters (shaped, unshaped: ${latencyChannels('shaped').length + 1} test channels each; rates: ${RATE_KEYS.map((k) => `${k} ${kbps(k)} kb/s`).join(', ')}) on a local testnet`)
/** `--swap` starts the unshaped broadcaster first: a gap that follows the process slot is not shaping. */
const SPAWN = process.argv.includes('--swap') ? [...CONFIGS].reverse() : [...CONFIGS]
const RATES_SPEC = { name: 'rates', env: {}, channels: RATE_KEYS.map(rateChannel), configs: Object.fromEntries(RATE_KEYS.map((k) => [rateChannel(k), RATES[k]])) }
const stack = await startStack([...SPAWN.map((c) => ({ name: c.key, env: c.env, channels: [...latencyChannels(c.key), egressChannel(c.key)] })), RATES_SPEC])
let browser: BrowserBench | null = null
try {
  const bc = Object.fromEntries(SPAWN.map((c, i) => [c.key, stack.broadcasters[i]!])) as Record<ConfigKey, Broadcaster>
  const rb = stack.broadcasters[SPAWN.length]!
  log(`segment phases (ms into the cycle, as appended): ${phases(stack.broadcasters)}`)
  const samples: BySample = { shaped: {}, unshaped: {} }
  const rateSamples = Object.fromEntries(RATE_KEYS.map((k) => [k, {}])) as Record<RateKey, Samples>
  const all: Samples = {}
  // The rate channels run only in their own phase (last): their encoders (a 720p one among them)
  // would otherwise take CPU from every other figure, and the other channels from theirs.
  for (const k of RATE_KEYS) await rb.bc('POST', `/api/channels/${rateChannel(k)}/stop`)
  let egressResults: EgressResult[] = []
  if (ONLY !== 'rates') {
    if (!SKIP_LATENCY) await latency(stack, bc, samples)
    if (ONLY !== 'latency') egressResults = await egress(stack, bc, samples)
  }
  for (const c of CONFIGS) for (const id of [...latencyChannels(c.key), egressChannel(c.key)]) await bc[c.key].bc('POST', `/api/channels/${id}/stop`).catch(() => {})
  if (ONLY !== 'latency') for (const k of RATE_KEYS) await rb.bc('POST', `/api/channels/${rateChannel(k)}/start`)
  if (ONLY !== 'latency') await waitFor(async () => (await Promise.all(RATE_KEYS.map((k) => rb.bc('GET', `/api/channels/${rateChannel(k)}`)))).every((c) => c.state === 'up' && c.registered && (c.playlist?.segments ?? 0) >= CHANNEL.hlsListSize),
    { timeoutMs: 90_000, intervalMs: 500, message: 'rate channels up with a full playlist' })
  let measuredKbps: Record<string, number> = {}
  if (ONLY !== 'latency') {
    browser = await startBrowser()
    const r0 = await Promise.all(RATE_KEYS.map((k) => rb.bc('GET', `/api/channels/${rateChannel(k)}`)))
    const rt0 = Date.now()
    await rates(stack, rb, browser, rateSamples, all)
    const r1 = await Promise.all(RATE_KEYS.map((k) => rb.bc('GET', `/api/channels/${rateChannel(k)}`)))
    measuredKbps = Object.fromEntries(RATE_KEYS.map((k, i) => [k, Math.round((r1[i].playlist.bytesWritten - r0[i].playlist.bytesWritten) * 8 / 1000 / ((Date.now() - rt0) / 1000))]))
    await browser.close()
    browser = null
  }
  const metrics = { shaped: summarize(samples.shaped), unshaped: summarize(samples.unshaped) }
  const rateMetrics = Object.fromEntries(RATE_KEYS.map((k) => [k, summarize(rateSamples[k])])) as Record<RateKey, Record<string, Summary>>
  const meta = { date: new Date().toISOString().slice(0, 10), cores: cpus().length, model: cpus()[0]?.model.trim() ?? 'cpu', load: loadavg().map((x) => x.toFixed(1)).join(', ') }
  const result = { ...meta, node: process.version, quick: QUICK, seconds: Math.round((Date.now() - started) / 1000), channel: CHANNEL, rates: RATES, measuredKbps, configs: CONFIGS, metrics, rateMetrics, all: summarize(all), loginPhases, firstEditMs, samples, rateSamples, egress: egressResults }
  await mkdir(join(root, 'bench-results'), { recursive: true })
  const file = join(root, 'bench-results', `bench-${new Date().toISOString().replace(/[:.]/g, '-')}${QUICK ? '-quick' : FULL ? '' : '-focused'}.json`)
  await writeFile(file, JSON.stringify(result, null, 2))
  const body = [ONLY === 'rates' ? '' : render(metrics, meta), ONLY === 'latency' ? '' : renderRates(rateMetrics, measuredKbps, summarize(all)), renderPhases(loginPhases)].filter(Boolean).join('\n\n')
  console.log(body)
  log(`results: ${file} (${result.seconds} s)`)
  if (FULL) {
    await writeDocBlock('bench', '## Viewer and origin (`pnpm bench`)', body)
    log('docs/benchmarks.md updated')
  }
} finally {
  await browser?.close()
  await stack.close()
  await cleanupAll()
}
