/**
 * `pnpm bench` (issue 7): what viewers feel and what the origin pays, on this machine, over a
 * local DHT testnet on 127.0.0.1 with real daemons and viewers as separate processes. Not a
 * test. Runs two passes — origin upload shaping at its defaults ("shaped") and off
 * (ORIGIN_PEERS_PER_BLOCK=0, "unshaped") — and writes bench-results/bench-<date>.json plus,
 * unless `--quick`, the "Viewer and origin" section of docs/benchmarks.md.
 *
 *   pnpm bench            # full: 3 latency runs, 60 s egress windows for N = 1, 4, 8 (~16 min on 2 cores)
 *   pnpm bench --quick    # smoke: 1 latency run, 15 s windows for N = 1, 2 (~4 min)
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { cpus, loadavg } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { cleanupAll } from '@arus/testkit'
import { CHANNEL, procStats, startStack, type Stack, type Viewer } from './stack.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const QUICK = process.argv.includes('--quick')
const RUNS = QUICK ? 1 : 3
const WINDOW_S = QUICK ? 15 : 60
const WARMUP_S = QUICK ? 5 : 10
const COUNTS = QUICK ? [1, 2] : [1, 4, 8]
const LATENCY = ['c0', 'c1', 'c2', 'c3']
const EGRESS = 'eg'
const log = (s: string) => console.error(`[bench] ${s}`)

type Samples = Record<string, number[]>
const push = (s: Samples, k: string, v: number) => { (s[k] ??= []).push(v) }

/** Edge delay samples: viewer first byte of a segment − the broadcaster's feed.segment log time. */
function edgeDelays (stack: Stack, viewers: Viewer[], since = 0): number[] {
  const appended = new Map<string, number>()
  for (const line of stack.broadcaster.stdoutLines()) {
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

async function tune (v: Viewer, id: string): Promise<number> {
  const from = v.lines.length
  v.send({ cmd: 'tune', id })
  return (await v.next((l) => l.type === 'tune' && l.id === id, 90_000, from)).ms
}

async function latency (stack: Stack, s: Samples): Promise<void> {
  for (let r = 0; r < RUNS; r++) {
    const ch = LATENCY[r % LATENCY.length]!
    const next = LATENCY[(r + 1) % LATENCY.length]!
    log(`  run ${r + 1}/${RUNS}: login, cold tune ${ch}, edge delay, title edit, zap to ${next}`)
    const v = await stack.viewer()
    push(s, 'login_ms', (await v.next((l) => l.type === 'login')).ms)
    push(s, 'cold_tune_ms', await tune(v, ch))
    const playing = Date.now()
    await sleep((QUICK ? 6 : 10) * 1000)
    for (const d of edgeDelays(stack, [v], playing)) push(s, 'edge_delay_ms', d)
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

interface EgressResult { viewers: number; streamBytes: number; uploadedBytes: number; multiple: number; shaping: unknown; viewerRssMb: number; broadcasterRssMb: number; cpuPerChannelPct: number }

async function egress (stack: Stack, s: Samples): Promise<EgressResult[]> {
  const viewers: Viewer[] = []
  const results: EgressResult[] = []
  const channels = LATENCY.length + 1
  for (const n of COUNTS) {
    while (viewers.length < n) {
      const v = await stack.viewer()
      push(s, 'login_ms', (await v.next((l) => l.type === 'login')).ms)
      viewers.push(v)
      push(s, `tune_ms(join ${EGRESS} as viewer ${viewers.length})`, await tune(v, EGRESS))
    }
    log(`  egress_multiple(${n}): warm-up ${WARMUP_S} s, window ${WINDOW_S} s`)
    await sleep(WARMUP_S * 1000)
    const a = (await stack.bc('GET', `/api/channels/${EGRESS}`))
    const pa = await procStats(stack.broadcaster.child.pid!)
    const t0 = Date.now()
    const rss: number[] = []
    for (let t = 0; t < WINDOW_S; t += 10) {
      await sleep(Math.min(10, WINDOW_S - t) * 1000)
      for (const v of viewers) {
        const from = v.lines.length
        v.send({ cmd: 'stats' })
        rss.push((await v.next((l) => l.type === 'stats', 10_000, from)).rssMb)
      }
    }
    const b = (await stack.bc('GET', `/api/channels/${EGRESS}`))
    const pb = await procStats(stack.broadcaster.child.pid!)
    const wall = (Date.now() - t0) / 1000
    const streamBytes = b.playlist.bytesWritten - a.playlist.bytesWritten
    const uploadedBytes = b.egress.uploadedBytes - a.egress.uploadedBytes
    const r: EgressResult = {
      viewers: n, streamBytes, uploadedBytes, multiple: uploadedBytes / streamBytes, shaping: b.egress.shaping,
      viewerRssMb: rss.reduce((x, y) => x + y, 0) / rss.length,
      broadcasterRssMb: pb.rssMb,
      cpuPerChannelPct: ((pb.ticks - pa.ticks + pb.childTicks - pa.childTicks) / 100 / wall) * 100 / channels
    }
    log(`    ${(uploadedBytes / 1e6).toFixed(2)} MB uploaded / ${(streamBytes / 1e6).toFixed(2)} MB stream = ${r.multiple.toFixed(2)}×`)
    results.push(r)
    push(s, `egress_multiple(${n})`, r.multiple)
    for (const x of rss) push(s, 'viewer_rss_mb', x)
    push(s, 'broadcaster_rss_mb', r.broadcasterRssMb)
    push(s, 'cpu_pct_per_channel', r.cpuPerChannelPct)
    for (const d of edgeDelays(stack, viewers, t0)) push(s, `edge_delay_ms(${n} viewers)`, d)
  }
  return results
}

const summary = (xs: number[]) => {
  const v = [...xs].sort((a, b) => a - b)
  const median = v.length % 2 ? v[(v.length - 1) / 2]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2
  return { min: v[0]!, median, max: v[v.length - 1]!, n: v.length }
}

async function pass (name: string, origin: Record<string, string>) {
  log(`${name}: starting panel, broadcaster (${LATENCY.length + 1} test channels) on a local testnet`)
  const stack = await startStack(origin, [...LATENCY, EGRESS])
  try {
    const s: Samples = {}
    await latency(stack, s)
    const egressResults = await egress(stack, s)
    return { origin, metrics: Object.fromEntries(Object.entries(s).map(([k, v]) => [k, summary(v)])), egress: egressResults }
  } finally {
    await stack.close()
  }
}

function render (res: Awaited<ReturnType<typeof pass>>[], names: string[], meta: { date: string; cores: number; model: string; load: string }): string {
  const keys = [...new Set(res.flatMap((r) => Object.keys(r.metrics)))]
  const fmt = (x: number) => (Math.abs(x) < 10 ? x.toFixed(2) : x.toFixed(0))
  const cell = (m?: { min: number; median: number; max: number; n: number }) => (m ? `${fmt(m.median)} (${fmt(m.min)}–${fmt(m.max)}, n=${m.n})` : '—')
  return [
    `Measured by \`pnpm bench\` (scripts/bench/run.ts) on ${meta.date}: ${meta.cores} cores (${meta.model}), Node ${process.version}; 1-minute load average at the end ${meta.load}.`,
    `Channels: \`test\` input, ${CHANNEL.transcode.width}x${CHANNEL.transcode.height} H.264 ${CHANNEL.transcode.videoBitrateKbps} kb/s + AAC ${CHANNEL.transcode.audioBitrateKbps} kb/s, ${CHANNEL.hlsTime} s segments; ${LATENCY.length + 1} running. ` +
      `Viewers are separate processes (scripts/bench/viewer.ts, @arus/sdk, reseed mode) that play the live edge. ${RUNS} latency runs; egress over ${WINDOW_S} s windows after ${WARMUP_S} s of warm-up, viewers added to one channel (${COUNTS.join(', then ')}). The tune_ms(join ...) rows time each added viewer (warm swarm); edge_delay_ms(N viewers) is sampled during the egress windows.`,
    '',
    `| Metric: median (min–max, samples) | ${names.join(' | ')} |`,
    `|---|${names.map(() => '---').join('|')}|`,
    ...keys.map((k) => `| ${k} | ${res.map((r) => cell(r.metrics[k])).join(' | ')} |`)
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
try {
  const shaped = await pass('shaped (ORIGIN_PEERS_PER_BLOCK=2, ORIGIN_HOLD_MS=1500: the defaults)', {})
  const unshaped = await pass('unshaped (ORIGIN_PEERS_PER_BLOCK=0)', { ORIGIN_PEERS_PER_BLOCK: '0' })
  const meta = { date: new Date().toISOString().slice(0, 10), cores: cpus().length, model: cpus()[0]?.model.trim() ?? 'cpu', load: loadavg().map((x) => x.toFixed(1)).join(', ') }
  const result = { ...meta, node: process.version, quick: QUICK, seconds: Math.round((Date.now() - started) / 1000), channel: CHANNEL, shaped, unshaped }
  await mkdir(join(root, 'bench-results'), { recursive: true })
  const file = join(root, 'bench-results', `bench-${new Date().toISOString().replace(/[:.]/g, '-')}${QUICK ? '-quick' : ''}.json`)
  await writeFile(file, JSON.stringify(result, null, 2))
  const body = render([shaped, unshaped], ['shaped (defaults)', 'unshaped (ORIGIN_PEERS_PER_BLOCK=0)'], meta)
  console.log(body)
  log(`results: ${file}`)
  if (!QUICK) {
    await writeDoc(body)
    log('docs/benchmarks.md updated')
  }
} finally {
  await cleanupAll()
}
