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
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { cpus, loadavg } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { cleanupAll } from '@arus/testkit'
import { CHANNEL, procStats, startStack, type Broadcaster, type Stack, type Viewer } from './stack.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const flag = (name: string): string | undefined => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3)
const QUICK = process.argv.includes('--quick')
const SKIP_LATENCY = process.argv.includes('--skip-latency')
const RUNS = QUICK ? 1 : 3
const COLD_RUNS = QUICK ? 1 : 6
const PLAY_S = QUICK ? 6 : 16
const WINDOW_S = flag('window') !== undefined ? Math.min(600, Math.max(5, Number(flag('window')))) : QUICK ? 20 : 60
const WARMUP_S = QUICK ? 5 : 10
const COUNTS = flag('counts')?.split(',').map(Number).filter((n) => Number.isInteger(n) && n >= 1 && n <= 16) ?? (QUICK ? [1, 2] : [1, 4, 8])
/** Only a full default run rewrites docs/benchmarks.md. */
const FULL = !QUICK && !SKIP_LATENCY && !process.argv.includes('--swap') && flag('window') === undefined && flag('counts') === undefined
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

/**
 * Per run and configuration: a fresh viewer logs in, cold-tunes a never-opened channel, plays
 * the live edge alone (single-viewer edge delay), sees an admin title edit arrive, zaps to the
 * adjacent channel; then a zap-prefetch viewer does the same zap after warming up.
 */
async function latency (stack: Stack, bc: Record<ConfigKey, Broadcaster>, samples: BySample): Promise<void> {
  const before = await Promise.all(CONFIGS.map((c) => procStats(bc[c.key].proc.child.pid!)))
  const t0 = Date.now()
  for (let r = 0; r < RUNS; r++) {
    for (const { key } of inOrder(r)) {
      const s = samples[key]
      const chans = latencyChannels(key)
      const ch = chans[r % chans.length]!
      const next = chans[r + 1] ?? chans[r - 1]!
      log(`  run ${r + 1}/${RUNS} ${key}: login, cold tune ${ch}, edge delay, title edit, zap to ${next}`)
      const v = await stack.viewer()
      push(s, 'login_ms', (await v.next((l) => l.type === 'login')).ms)
      push(s, 'cold_tune_ms', await tune(v, ch))
      const playing = Date.now()
      await sleep(PLAY_S * 1000)
      for (const d of edgeDelays(bc[key], [v], playing)) push(s, 'edge_delay_ms(1 viewer)', d)
      const title = `${ch} edit ${Date.now()}`
      const from = v.lines.length
      const sent = Date.now()
      await stack.panel('PATCH', `/api/streams/${ch}`, { title })
      push(s, 'propagation_ms', (await v.next((l) => l.type === 'streams' && l.titles[ch] === title, 30_000, from)).at - sent)
      push(s, 'zap_ms(prefetch off)', await tune(v, next))
      await v.stop()

      const w = await stack.viewer({ zapPrefetch: true })
      push(s, 'login_ms', (await w.next((l) => l.type === 'login')).ms)
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
      push(samples[key], 'login_ms', (await v.next((l) => l.type === 'login')).ms)
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
  // A viewer is tsx's launcher process plus the node process running the SDK (its child).
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
      push(samples[inOrder(i)[0]!.key], 'login_ms', (await v.next((l) => l.type === 'login')).ms)
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
  const base = ['login_ms', 'cold_tune_ms', 'zap_ms(prefetch off)', 'zap_ms(prefetch on)', 'propagation_ms', 'viewer_rss_mb', 'broadcaster_rss_mb', 'cpu_pct_per_channel'].indexOf(k)
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
      `${RUNS} latency runs (a fresh viewer each, playing ${PLAY_S} s alone) and ${COLD_RUNS} more cold tunes (fresh viewers); cpu_pct_per_channel is the broadcaster (with its ffmpeg) over that phase, all channels running. ` +
      `Then only the egress channels run, and the same ${COUNTS.join(', then ')} viewer processes watch one channel of each broadcaster in turn, ABBA: ${WINDOW_S / 2} s counted after ${WARMUP_S} s of warm-up, four times per audience size, so each configuration is counted for ${WINDOW_S} s in two halves that bracket the other's. ` +
      'join_tune_ms(N viewers) times each playing viewer zapping into the audience after the others (first visits; fresh viewers\' cold first tunes excluded); edge_delay_ms(1 viewer) pools the latency runs and the 1-viewer windows; relay_ms is how long the origin held a request before a viewer served the block and the requester cancelled it; viewer_cpu_pct is per viewer process (100 = one core).',
    '',
    `| Metric: median (min–max, samples) | ${CONFIGS.map((c) => c.label).join(' | ')} | shaped vs unshaped (medians) |`,
    `|---|${CONFIGS.map(() => '---').join('|')}|---|`,
    ...keys.map((k) => `| ${k} | ${CONFIGS.map((c) => cell(metrics[c.key][k])).join(' | ')} | ${delta(metrics.shaped[k], metrics.unshaped[k])} |`)
  ].join('\n')
}

async function writeDoc (body: string): Promise<void> {
  const doc = join(root, 'docs/benchmarks.md')
  const begin = '<!-- bench:begin -->'
  const end = '<!-- bench:end -->'
  let text = await readFile(doc, 'utf8')
  const block = `${begin}\n${body}\n${end}`
  if (text.includes(begin) && text.includes(end)) text = text.slice(0, text.indexOf(begin)) + block + text.slice(text.indexOf(end) + end.length)
  else text = `${text.trimEnd()}\n\n## Viewer and origin (\`pnpm bench\`)\n\n${block}\n`
  await writeFile(doc, text)
}

const started = Date.now()
const stop = async () => { await cleanupAll(); process.exit(130) }
process.once('SIGINT', () => { void stop() })
process.once('SIGTERM', () => { void stop() })
log(`starting a panel and two broadcasters (shaped, unshaped; ${latencyChannels('shaped').length + 1} test channels each) on a local testnet`)
/** `--swap` starts the unshaped broadcaster first: a gap that follows the process slot is not shaping. */
const SPAWN = process.argv.includes('--swap') ? [...CONFIGS].reverse() : [...CONFIGS]
const stack = await startStack(SPAWN.map((c) => ({ name: c.key, env: c.env, channels: [...latencyChannels(c.key), egressChannel(c.key)] })))
try {
  const bc = Object.fromEntries(SPAWN.map((c, i) => [c.key, stack.broadcasters[i]!])) as Record<ConfigKey, Broadcaster>
  log(`segment phases (ms into the cycle, as appended): ${phases(stack.broadcasters)}`)
  const samples: BySample = { shaped: {}, unshaped: {} }
  if (!SKIP_LATENCY) await latency(stack, bc, samples)
  const egressResults = await egress(stack, bc, samples)
  const metrics = { shaped: summarize(samples.shaped), unshaped: summarize(samples.unshaped) }
  const meta = { date: new Date().toISOString().slice(0, 10), cores: cpus().length, model: cpus()[0]?.model.trim() ?? 'cpu', load: loadavg().map((x) => x.toFixed(1)).join(', ') }
  const result = { ...meta, node: process.version, quick: QUICK, seconds: Math.round((Date.now() - started) / 1000), channel: CHANNEL, configs: CONFIGS, metrics, samples, egress: egressResults }
  await mkdir(join(root, 'bench-results'), { recursive: true })
  const file = join(root, 'bench-results', `bench-${new Date().toISOString().replace(/[:.]/g, '-')}${QUICK ? '-quick' : FULL ? '' : '-focused'}.json`)
  await writeFile(file, JSON.stringify(result, null, 2))
  const body = render(metrics, meta)
  console.log(body)
  log(`results: ${file} (${result.seconds} s)`)
  if (FULL) {
    await writeDoc(body)
    log('docs/benchmarks.md updated')
  }
} finally {
  await stack.close()
  await cleanupAll()
}
