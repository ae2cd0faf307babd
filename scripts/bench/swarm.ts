/**
 * `pnpm bench:swarm` (issue 41): does the origin's delivery cost stay flat as the audience
 * grows, under real network conditions? Runs the origin (panel + broadcaster, real ffmpeg)
 * and a DHT inside the network lab (packages/lab), and a heterogeneous audience of real SDK
 * viewers in NAT homes: a third are phones on cellular that upload nothing (uploadPolicy
 * 'client-only', randomizing NAT, long RTTs), the rest home viewers with uplink caps drawn
 * from UPLINKS, RTTs drawn from 20-200 ms, a quarter of their homes behind a randomizing
 * NAT. Half the audience stays for the whole run (the core); the other half churns: each
 * watches for an exponential time (mean CHURN_WATCH_S), leaves, and comes back after an
 * exponential gap (mean CHURN_GAP_S), half of the time as the same app (its store kept: a
 * returning viewer) and half as a new install (a cold start). Every viewer runs the player
 * model (packages/lab/src/player-model.ts). Needs root. Not a test.
 *
 *   pnpm bench:swarm                          # sizes 16 and 32, 30 s warm-up, 180 s window each
 *   pnpm bench:swarm -- --sizes=8 --window=60 # a quick look (not written to the doc)
 *
 * Writes bench-results/swarm-<date>.json and, for a full default run, the "Swarm under real
 * networks" block of docs/benchmarks.md.
 */
import { randomBytes } from 'node:crypto'
import { setMaxListeners } from 'node:events'
import { mkdir, writeFile } from 'node:fs/promises'
import { cpus, loadavg } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { startAgent, startLab } from '@arus/lab'
import type { Agent, Lab, PlayerModelStats, ViewerReport } from '@arus/lab'
import { seededRandom, startBroadcaster, startPanel, startRepeater, waitFor } from '@arus/testkit'
import type { BroadcasterHandle, PanelHandle, RepeaterHandle } from '@arus/testkit'
import { procStats } from './stack.js'
import { writeDocBlock } from './doc-block.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const flag = (name: string): string | undefined => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3)
const SIZES = (flag('sizes') ?? (process.argv.includes('--scenario=repeater') ? '24' : '16,32')).split(',').map(Number).filter((n) => Number.isInteger(n) && n >= 2 && n <= 200)
const WINDOW_S = Number(flag('window') ?? 180)
const WARMUP_S = Number(flag('warmup') ?? 30)
const PER_DEVICE = Number(flag('per-device') ?? 2)
const SEED = Number(flag('seed') ?? 41)
/** `--warm-dial=off`: returning viewers start cold (the SDK's swarm.warmDial false), to measure what it saves. */
const WARM_DIAL = flag('warm-dial') !== 'off'
/** `--unshaped`: the broadcaster without origin upload shaping (ORIGIN_PEERS_PER_BLOCK=0), for comparison. */
const UNSHAPED = process.argv.includes('--unshaped')
/** `--all-client-only`: every viewer uploads nothing (a diagnostic: only the origin and a repeater serve; not written to the doc). */
const ALL_CLIENT_ONLY = process.argv.includes('--all-client-only')
const TIMELINE = process.argv.includes('--timeline')
/** `--panel-box=dht`: the panel on the DHT's box at the core (a fat link) instead of the origin's (a diagnostic). */
const PANEL_BOX = flag('panel-box') === 'dht' ? 'dht' : 'origin'
/** `--rep-env=K=V,K=V`: extra repeater environment (e.g. PANEL_DATA=true,ANNOUNCE=true). */
const REP_ENV: Record<string, string> = Object.fromEntries((flag('rep-env') ?? '').split(',').filter((kv) => kv.includes('=')).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]))
/** `--bc-env=K=V,K=V`: extra broadcaster environment (a shaping experiment; not written to the doc). */
const BC_ENV: Record<string, string> = Object.fromEntries((flag('bc-env') ?? '').split(',').filter((kv) => kv.includes('=')).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]))
/**
 * `--scenario=repeater` (issue 42): the origin's uplink capped at ORIGIN_UP_X × the channel's
 * bitrate, each size run twice — without, then with a repeater on a fat uplink at the core
 * (ORIGIN_RELAY_KEYS trusts it) — written to its own docs block.
 */
const SCENARIO_REPEATER = flag('scenario') === 'repeater'
/** `--origin-up=<Mbit/s>`: the origin's uplink cap (default: the lab's 1 Gbit/s; 1.5 in the repeater scenario). */
/**
 * The repeater scenario's default is 1.5 × the stream as measured: the "1 Mbit/s" channel
 * (900 kbit/s video capped by -maxrate, 128 kbit/s audio) is 1.08-1.27 Mbit/s of feed bytes
 * (MPEG-TS and encryption overhead; the test pattern's rate varies), so 1.9 Mbit/s; the table
 * reports the measured ratio.
 */
const ORIGIN_UP = flag('origin-up') === undefined ? (SCENARIO_REPEATER ? 1.9 : null) : Number(flag('origin-up'))
const FULL = !SCENARIO_REPEATER && ORIGIN_UP === null && WARM_DIAL && !UNSHAPED && Object.keys(BC_ENV).length === 0 && flag('sizes') === undefined && flag('window') === undefined && flag('warmup') === undefined
/** Home uplink caps (Mbit/s) and their weights. */
const UPLINKS: Array<[number, number]> = [[1, 0.25], [2, 0.25], [5, 0.3], [10, 0.2]]
const CHURN_WATCH_S = 60
const CHURN_GAP_S = 20
const SEGMENT_S = 2
const CHANNEL = { transcode: { width: 640, height: 360, preset: 'ultrafast', videoBitrateKbps: 900 }, hlsTime: SEGMENT_S, hlsListSize: 6 }
const log = (s: string): void => { console.error(`[bench:swarm] ${s}`) }


type ViewerClass = 'phone' | 'home'
interface Slot {
  name: string
  cls: ViewerClass
  stays: boolean
  home: number
  device: number
  user: { name: string; password: string }
  /** Store generation: a new install bumps it (a fresh store, a cold start). */
  gen: number
  on: boolean
  joins: Array<{ kind: 'cold' | 'returning'; joinMs: number | null; at: number; phases: ViewerReport['phases'] | null }>
  /** Uploaded bytes counted so far this window, and the base of the current session. */
  uploaded: number
  base: number
  startedAt: number
}

/** The audience for N viewers: homes with their devices and the viewers on them. */
function population (n: number, rand: () => number): { homes: Array<Record<string, unknown>>; slots: Slot[] } {
  const phones = Math.round(n / 3)
  const homesSpec: Array<Record<string, unknown>> = []
  const slots: Slot[] = []
  const pick = (): number => { let r = rand(); for (const [mbit, w] of UPLINKS) { if ((r -= w) <= 0) return mbit } return UPLINKS.at(-1)![0] }
  let placed = 0
  while (placed < n) {
    const cls: ViewerClass = placed < phones ? 'phone' : 'home'
    const count = Math.min(PER_DEVICE, (cls === 'phone' ? phones : n) - placed)
    const rtt = Math.round(20 + rand() * 180)
    homesSpec.push(cls === 'phone'
      ? { devices: 1, nat: 'random', upMbit: 2, downMbit: 20, rttMs: Math.max(60, rtt), jitterMs: 10 }
      : { devices: 1, nat: rand() < 0.25 ? 'random' : 'preserving', upMbit: pick(), downMbit: 50, rttMs: rtt, jitterMs: 4 })
    for (let i = 0; i < count; i++) {
      const name = `v${slots.length + 1}`
      slots.push({ name, cls, stays: false, home: homesSpec.length, device: 1, user: { name, password: randomBytes(9).toString('base64url') }, gen: 0, on: false, joins: [], uploaded: 0, base: 0, startedAt: 0 })
      placed++
    }
  }
  // Half of each class stays (the core), the other half churns.
  for (const cls of ['phone', 'home'] as const) {
    const of = slots.filter((s) => s.cls === cls)
    of.forEach((s, i) => { s.stays = i % 2 === 0 })
  }
  return { homes: homesSpec, slots }
}

const quantile = (xs: number[], q: number): number | null => {
  if (xs.length === 0) return null
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!
}
const exp = (mean: number, rand: () => number): number => -Math.log(1 - rand()) * mean

/** Median of each join phase's end (ms after the app started): connect, login, resolve, first segment. */
function breakdown (joins: Slot['joins'], kind: 'cold' | 'returning'): { connect: number | null; login: number | null; resolve: number | null; first: number | null } {
  const of = joins.filter((j) => j.kind === kind && j.joinMs !== null && j.phases !== null)
  const med = (f: (j: Slot['joins'][number]) => number | null): number | null => quantile(of.map(f).filter((x): x is number => x !== null), 0.5)
  return { connect: med((j) => j.phases!.connect), login: med((j) => j.phases!.login), resolve: med((j) => j.phases!.resolve), first: med((j) => j.joinMs) }
}

/** CPU time (ms; 100 Hz ticks) and RSS (bytes) of a process, from the bench's shared reader. */
async function procStat (pid: number): Promise<{ cpuMs: number; rss: number } | null> {
  const s = await procStats(pid).catch(() => null)
  return s === null || (s.ticks === 0 && s.rssMb === 0) ? null : { cpuMs: s.ticks * 10, rss: s.rssMb * 1048576 }
}

interface RunResult {
  n: number
  /** The run had a repeater (and the origin trusted it). */
  repeater: boolean
  /** Viewers playing when the window began (everyone had had ~40 s to join, plus the warm-up). */
  playingAtStart: number
  /** The origin's uplink cap, Mbit/s (null: the lab's default, 1 Gbit/s). */
  originUpMbit: number | null
  repeaterStats: { sentBytes: number; multiple: number | null; cpuPct: number | null; rssMiB: number | null } | null
  homes: number
  phones: number
  stayers: number
  churners: number
  windowS: number
  churn: { leaves: number; joins: number; coldJoins: number; returningJoins: number }
  origin: { streamBytes: number; sentBytes: number; multiple: number | null; cpuPct: number | null }
  uploadedByClass: Record<string, { viewers: number; bytes: number; perViewerMultiple: number }>
  staying: Array<{ name: string; cls: ViewerClass; stalls: number; stallMs: number; longestStallMs: number; rebufferRatio: number }>
  join: { coldP50: number | null; coldP95: number | null; returningP50: number | null; returningP95: number | null; coldN: number; returningN: number; breakdown: Record<'cold' | 'returning', { connect: number | null; login: number | null; resolve: number | null; first: number | null }> }
  latency: { playheadP50: number | null; playheadP95: number | null; edgeP50: number | null; edgeP95: number | null; n: number }
  perViewer: { cpuPct: number | null; rssMiB: number | null }
  /** Each viewer at the window's end (diagnostics: who played what, and from whom it downloaded). */
  viewers: Array<{ name: string; cls: string; stays: boolean; on: boolean; joins: number; error: string | null; peers: number; joinMs: number | null; segments: number; skipped: number; errors: number; stalls: number; stallMs: number; playedMs: number; lastLoaded: { seq: number; behindMs: number | null } | null; downloadedFrom: Record<string, number>; uploaded: number }>
  delay: { cpuPct: number | null; packets: number; lateP99Us: number; lateMaxUs: number; queueDrops: number }
}

async function runSize (n: number, withRepeater = false): Promise<RunResult> {
  const rand = seededRandom(SEED + n)
  const { homes, slots } = population(n, rand)
  log(`N=${n}${withRepeater ? ' with a repeater' : ''}: ${homes.length} homes, ${slots.filter((s) => s.cls === 'phone').length} phones, ${slots.filter((s) => s.stays).length} staying${ORIGIN_UP === null ? '' : `, origin uplink ${ORIGIN_UP} Mbit/s`}`)
  const lab: Lab = await startLab({ id: `s${n}${withRepeater ? 'r' : ''}`, homes: homes as any, ...(ORIGIN_UP === null ? {} : { origin: { upMbit: ORIGIN_UP } }), ...(withRepeater ? { repeater: { upMbit: 1000 } } : {}) })
  const ctx = { onTestFinished: () => {} }
  let panel: PanelHandle | null = null
  let bc: BroadcasterHandle | null = null
  let rep: RepeaterHandle | null = null
  const agents = new Map<number, Agent>()
  try {
    const origin = lab.plan.origin.ns
    const expose = async (url: string): Promise<string> => lab.expose(origin, Number(new URL(url).port))
    const panelNs = PANEL_BOX === 'dht' ? lab.plan.dht.ns : origin
    panel = await startPanel(ctx, { testnet: lab.bootstrap, users: slots.map((s) => s.user), netns: panelNs, exposeUrl: async (url: string) => lab.expose(panelNs, Number(new URL(url).port)), env: { DEFAULT_MAX_DEVICES: '100' }, logs: join(lab.dir, 'logs') })
    if (withRepeater) {
      const repNs = lab.plan.repeater!.ns
      rep = await startRepeater(ctx, { panel, netns: repNs, env: REP_ENV, exposeUrl: async (url) => lab.expose(repNs, Number(new URL(url).port)), logs: join(lab.dir, 'logs') })
    }
    bc = await startBroadcaster(ctx, { panel, netns: origin, exposeUrl: expose, logs: join(lab.dir, 'logs'), env: { ...(ORIGIN_UP === null ? {} : { ORIGIN_UPLINK_KBIT: String(Math.round(ORIGIN_UP * 1000)) }), ...BC_ENV, ...(UNSHAPED ? { ORIGIN_PEERS_PER_BLOCK: '0' } : {}), ...(rep === null ? {} : { ORIGIN_RELAY_KEYS: rep.publicKey }) } })
    await bc.channel('bench', CHANNEL, { timeoutMs: 60_000 })
    for (const s of slots) await panel.api('POST', `/api/users/${s.name}/grants`, { streamId: 'bench' })
    // Segment write times at the origin: the broadcaster's lastSequence, polled.
    const written = new Map<number, number>()
    const pollStop = new AbortController()
    const poller = (async () => {
      while (!pollStop.signal.aborted) {
        const v = await Promise.resolve().then(() => bc!.api<{ playlist: { lastSequence: number | null } | null }>('GET', '/api/channels/bench')).catch(() => null)
        const seq = v?.playlist?.lastSequence
        if (typeof seq === 'number' && !written.has(seq)) written.set(seq, Date.now())
        await sleep(100)
      }
    })()

    for (const h of lab.plan.homes) agents.set(h.index, await startAgent(lab, h.devices[0]!.ns, { logName: `agent-h${h.index}` }))
    const tuneIn = (s: Slot, kind: 'cold' | 'returning'): void => {
      s.on = true
      s.startedAt = Date.now()
      s.base = 0
      s.joins.push({ kind, joinMs: null, at: s.startedAt, phases: null })
      agents.get(s.home)!.start(panel!.panelKey, [{ name: s.name, user: s.user.name, password: s.user.password, channel: 'bench', uploadPolicy: s.cls === 'phone' || ALL_CLIENT_ONLY ? 'client-only' : 'reseed', warmDial: WARM_DIAL, storeDir: join(lab.dir, 'stores', `${s.name}-${s.gen}`) }])
    }
    const report = async (): Promise<Map<string, ViewerReport>> => {
      const all = await Promise.all([...agents.values()].map((a) => a.report(20_000).catch(() => [] as ViewerReport[])))
      return new Map(all.flat().map((r) => [r.name, r]))
    }
    const upOf = (r: ViewerReport | undefined): number => Object.values(r?.bytesByPeer ?? {}).reduce((a, b) => a + b.uploaded, 0)
    const noteJoin = (s: Slot, r: ViewerReport | undefined): void => {
      const last = s.joins.at(-1)
      if (last !== undefined && last.joinMs === null && r?.model?.joinMs != null) { last.joinMs = r.model.joinMs; last.phases = r.phases }
    }

    // Everyone joins at once-ish (a stagger of 0-10 s), all cold.
    for (const s of slots) setTimeout(() => { tuneIn(s, 'cold') }, Math.floor(rand() * 10_000))
    // `--timeline`: every 10 s, the repeater's mirror and the origin's shaping counters (diagnostics, stderr only).
    const timelineStop = new AbortController()
    const timeline = !TIMELINE
      ? Promise.resolve()
      : (async () => {
          const t0 = Date.now()
          while (!timelineStop.signal.aborted) {
            const m = (await rep?.health().catch(() => null))?.mirrors.find((x) => x.id === 'bench')
            const v = await Promise.resolve().then(() => bc!.api<any>('GET', '/api/channels/bench')).catch(() => null)
            log(`t=${Math.round((Date.now() - t0) / 1000)}s repeater ${JSON.stringify(m === undefined ? null : { in: m.bytesIn, out: m.bytesOut, lag: m.lag, peers: m.peers, blobPeers: m.blobPeers, requestsIn: m.requestsIn, origins: m.origins, originPeers: m.originPeers, blockReq: m.blockRequestsIn, pendingIn: m.pendingIn, queuedIn: m.queuedIn, undrained: m.undrained, noDataOut: m.noDataOut })} origin ${JSON.stringify({ up: v?.egress?.uploadedBytes ?? null, shaping: v?.egress?.shaping ?? null })}`)
            await sleep(10_000, undefined, { signal: timelineStop.signal }).catch(() => {})
          }
        })()
    await sleep(11_000)
    const playingNow = async (): Promise<number> => [...(await report()).values()].filter((r) => r.model?.joinMs != null).length
    await waitFor(async () => (await playingNow()) >= Math.ceil(n * 0.8),
      { timeoutMs: 180_000, intervalMs: 2_000, message: '80 % of the viewers playing' }).catch((err: unknown) => {
      // An origin on a capped uplink without help may never get there: that is the finding, so measure it.
      if (!SCENARIO_REPEATER) throw err
      log(`N=${n}: fewer than 80 % of the viewers play after 180 s; measuring anyway`)
    })
    log(`N=${n}: warming up ${WARMUP_S} s`)
    await sleep(WARMUP_S * 1000)

    // The window: churners leave and come back; measure.
    let leaves = 0
    let joins = 0
    const windowStart = Date.now()
    const first = await report()
    const playingAtStart = [...first.values()].filter((r) => r.model?.joinMs != null).length
    for (const s of slots) { noteJoin(s, first.get(s.name)); s.base = upOf(first.get(s.name)); s.uploaded = 0 }
    const model0 = new Map<string, PlayerModelStats | null>([...first].map(([k, r]) => [k, r.model]))
    const bc0 = await bc.api<any>('GET', '/api/channels/bench')
    const bcPid = bc.proc!.child.pid!
    const bcCpu0 = await procStat(bcPid)
    const repOut = async (): Promise<number> => (await rep?.health().catch(() => null))?.mirrors.find((m) => m.id === 'bench')?.bytesOut ?? 0
    const rep0 = { out: await repOut(), cpu: rep === null ? null : await procStat(rep.proc!.child.pid!) }
    const delay0 = lab.delayStats()
    const agentCpu0 = new Map(await Promise.all([...agents].map(async ([k, a]) => [k, await procStat(a.proc.child.pid!)] as const)))
    const churnStop = new AbortController()
    setMaxListeners(0, churnStop.signal) // one sleep per churning viewer waits on it
    const churners = slots.filter((s) => !s.stays)
    const churn = Promise.all(churners.map(async (s) => {
      while (!churnStop.signal.aborted) {
        await sleep(exp(CHURN_WATCH_S, rand) * 1000, undefined, { signal: churnStop.signal }).catch(() => {})
        if (churnStop.signal.aborted) return
        const before = (await agents.get(s.home)!.report(20_000).catch(() => [])).find((r) => r.name === s.name)
        noteJoin(s, before)
        s.uploaded += Math.max(0, upOf(before) - s.base)
        await agents.get(s.home)!.stop([s.name]).catch(() => {})
        s.on = false
        leaves++
        await sleep(exp(CHURN_GAP_S, rand) * 1000, undefined, { signal: churnStop.signal }).catch(() => {})
        if (churnStop.signal.aborted) return
        const returning = rand() < 0.5
        if (!returning) s.gen++
        tuneIn(s, returning ? 'returning' : 'cold')
        joins++
      }
    }))
    // Note join times as they come.
    const watcher = (async () => {
      while (!churnStop.signal.aborted) {
        const rs = await report()
        for (const s of slots) noteJoin(s, rs.get(s.name))
        await sleep(2_000, undefined, { signal: churnStop.signal }).catch(() => {})
      }
    })()
    await sleep(WINDOW_S * 1000)
    const windowS = (Date.now() - windowStart) / 1000
    const end = await report()
    const bc1 = await bc.api<any>('GET', '/api/channels/bench')
    const bcCpu1 = await procStat(bcPid)
    const rep1 = { out: await repOut(), cpu: rep === null ? null : await procStat(rep.proc!.child.pid!) }
    const delay1 = lab.delayStats()
    const agentCpu1 = new Map(await Promise.all([...agents].map(async ([k, a]) => [k, await procStat(a.proc.child.pid!)] as const)))
    churnStop.abort()
    await Promise.all([churn, watcher])
    for (const s of slots) { noteJoin(s, end.get(s.name)); if (s.on) s.uploaded += Math.max(0, upOf(end.get(s.name)) - s.base) }

    const streamBytes = bc1.playlist.bytesWritten - bc0.playlist.bytesWritten
    const sentBytes = bc1.egress.uploadedBytes - bc0.egress.uploadedBytes
    const byClass: RunResult['uploadedByClass'] = {}
    for (const cls of ['phone', 'home'] as const) {
      const of = slots.filter((s) => s.cls === cls)
      const bytes = of.reduce((a, s) => a + s.uploaded, 0)
      byClass[cls] = { viewers: of.length, bytes, perViewerMultiple: streamBytes > 0 ? bytes / of.length / streamBytes : 0 }
    }
    const staying = slots.filter((s) => s.stays).map((s) => {
      const a = model0.get(s.name) ?? null
      const b = end.get(s.name)?.model ?? null
      const stalls = (b?.stalls ?? 0) - (a?.stalls ?? 0)
      const stallMs = (b?.stallMs ?? 0) - (a?.stallMs ?? 0)
      const played = (b?.playedMs ?? 0) - (a?.playedMs ?? 0)
      return { name: s.name, cls: s.cls, stalls, stallMs, longestStallMs: b?.longestStallMs ?? 0, rebufferRatio: played + stallMs > 0 ? stallMs / (played + stallMs) : 1 }
    })
    const joinsAll = slots.flatMap((s) => s.joins)
    const cold = joinsAll.filter((j) => j.kind === 'cold' && j.joinMs !== null).map((j) => j.joinMs!)
    const ret = joinsAll.filter((j) => j.kind === 'returning' && j.joinMs !== null).map((j) => j.joinMs!)
    // Latency: staying viewers' segments played / loaded inside the window, against the origin's write time.
    const playhead: number[] = []
    const edge: number[] = []
    for (const s of slots.filter((x) => x.stays)) {
      const m = end.get(s.name)?.model
      for (const p of m?.played ?? []) { const w = written.get(p.seq); if (w !== undefined && p.at >= windowStart) playhead.push(p.at - w) }
      for (const l of m?.loaded ?? []) { const w = written.get(l.seq); if (w !== undefined && l.at >= windowStart) edge.push(l.at - w) }
    }
    let agentCpuMs = 0
    for (const [k, a0] of agentCpu0) { const a1 = agentCpu1.get(k); if (a0 && a1) agentCpuMs += a1.cpuMs - a0.cpuMs }
    const rss = await Promise.all([...agents.values()].map(async (a) => (await procStat(a.proc.child.pid!))?.rss ?? 0))
    timelineStop.abort()
    await timeline
    pollStop.abort()
    await poller
    const result: RunResult = {
      n,
      repeater: rep !== null,
      originUpMbit: ORIGIN_UP,
      playingAtStart,
      repeaterStats: rep === null
        ? null
        : { sentBytes: rep1.out - rep0.out, multiple: streamBytes > 0 ? (rep1.out - rep0.out) / streamBytes : null, cpuPct: rep0.cpu && rep1.cpu ? (rep1.cpu.cpuMs - rep0.cpu.cpuMs) / (windowS * 10) : null, rssMiB: rep1.cpu === null ? null : rep1.cpu.rss / 1048576 },
      homes: homes.length,
      phones: slots.filter((s) => s.cls === 'phone').length,
      stayers: slots.filter((s) => s.stays).length,
      churners: churners.length,
      windowS,
      churn: { leaves, joins, coldJoins: joinsAll.filter((j) => j.kind === 'cold' && j.at >= windowStart).length, returningJoins: joinsAll.filter((j) => j.kind === 'returning').length },
      origin: { streamBytes, sentBytes, multiple: streamBytes > 0 ? sentBytes / streamBytes : null, cpuPct: bcCpu0 && bcCpu1 ? (bcCpu1.cpuMs - bcCpu0.cpuMs) / (windowS * 10) : null },
      uploadedByClass: byClass,
      staying,
      join: { coldP50: quantile(cold, 0.5), coldP95: quantile(cold, 0.95), returningP50: quantile(ret, 0.5), returningP95: quantile(ret, 0.95), coldN: cold.length, returningN: ret.length, breakdown: { cold: breakdown(joinsAll, 'cold'), returning: breakdown(joinsAll, 'returning') } },
      latency: { playheadP50: quantile(playhead, 0.5), playheadP95: quantile(playhead, 0.95), edgeP50: quantile(edge, 0.5), edgeP95: quantile(edge, 0.95), n: playhead.length },
      perViewer: { cpuPct: agentCpuMs / (windowS * 10) / n, rssMiB: rss.reduce((a, b) => a + b, 0) / n / 1048576 },
      viewers: slots.map((s) => {
        const r = end.get(s.name)
        const m = r?.model ?? null
        const last = m?.loaded.at(-1) ?? null
        const w = last === null ? undefined : written.get(last.seq)
        const from: Record<string, number> = {}
        for (const p of Object.values(r?.bytesByPeer ?? {})) {
          const host = p.remote?.split(':')[0] ?? 'unknown'
          const kind = host === lab.plan.origin.addr ? 'origin' : host === lab.plan.repeater?.addr ? 'repeater' : host
          from[kind] = (from[kind] ?? 0) + p.downloaded
        }
        return { name: s.name, cls: s.cls, stays: s.stays, on: s.on, joins: s.joins.length, error: r?.error ?? null, peers: r?.peers ?? 0, joinMs: m?.joinMs ?? null, segments: m?.segments ?? 0, skipped: m?.skipped ?? 0, errors: m?.errors ?? 0, stalls: m?.stalls ?? 0, stallMs: m?.stallMs ?? 0, playedMs: m?.playedMs ?? 0, lastLoaded: last === null ? null : { seq: last.seq, behindMs: w === undefined ? null : last.at - w }, downloadedFrom: from, uploaded: upOf(r) }
      }),
      delay: {
        cpuPct: delay0 && delay1 ? ((delay1.cpuUserMs + delay1.cpuSysMs) - (delay0.cpuUserMs + delay0.cpuSysMs)) / (windowS * 10) : null,
        packets: (delay1?.packets ?? 0) - (delay0?.packets ?? 0),
        lateP99Us: delay1?.lateP99Us ?? 0,
        lateMaxUs: delay1?.lateMaxUs ?? 0,
        queueDrops: delay1?.queueDrops ?? 0
      }
    }
    log(`N=${n}: ${JSON.stringify({ origin: result.origin, shaping: bc1.egress?.shaping ?? null, repeater: rep === null ? null : (await rep.health().catch(() => null))?.mirrors ?? null, join: result.join, latency: result.latency })}`)
    return result
  } finally {
    for (const a of agents.values()) await a.exit().catch(() => {})
    await bc?.close().catch(() => {})
    await rep?.close().catch(() => {})
    await panel?.close().catch(() => {})
    await lab.down()
  }
}

function table (runs: RunResult[]): string {
  const f = (x: number | null, d = 0): string => (x === null ? '–' : x.toFixed(d))
  const row = (label: string, fn: (r: RunResult) => string): string => `| ${label} | ${runs.map(fn).join(' | ')} |`
  const worst = (r: RunResult): RunResult['staying'][number] | undefined => [...r.staying].sort((a, b) => b.longestStallMs - a.longestStallMs)[0]
  return [
    `| | ${runs.map((r) => `N = ${r.n}${SCENARIO_REPEATER ? (r.repeater ? ', with a repeater' : ', origin alone') : ''}`).join(' | ')} |`,
    `|---|${runs.map(() => '---').join('|')}|`,
    row('homes (phones / staying / churning)', (r) => `${r.homes} (${r.phones} / ${r.stayers} / ${r.churners})`),
    row('viewers playing when the window began', (r) => `${r.playingAtStart} of ${r.n}`),
    row('churn in the window: leaves, joins (cold / returning)', (r) => `${r.churn.leaves}, ${r.churn.joins} (${r.churn.coldJoins} / ${r.churn.returningJoins})`),
    ...(runs.some((r) => r.originUpMbit !== null)
      ? [row('origin uplink (Mbit/s; ÷ the stream as measured)', (r) => r.originUpMbit === null ? '–' : `${r.originUpMbit}; ${f(r.windowS > 0 && r.origin.streamBytes > 0 ? r.originUpMbit * 1e6 / (r.origin.streamBytes * 8 / r.windowS) : null, 2)}`)]
      : []),
    row('**origin egress multiple** (sent ÷ stream bytes)', (r) => f(r.origin.multiple, 2)),
    row('uploaded per home viewer / per phone (× stream)', (r) => `${f(r.uploadedByClass.home?.perViewerMultiple ?? null, 2)} / ${f(r.uploadedByClass.phone?.perViewerMultiple ?? null, 2)}`),
    row('staying viewers with a stall; total stalls', (r) => `${r.staying.filter((s) => s.stalls > 0).length} of ${r.staying.length}; ${r.staying.reduce((a, s) => a + s.stalls, 0)}`),
    row('longest stall (ms); worst rebuffer ratio', (r) => `${f(worst(r)?.longestStallMs ?? 0)}; ${f(Math.max(0, ...r.staying.map((s) => s.rebufferRatio)) * 100, 2)} %`),
    row('join p50 / p95, cold (ms, n)', (r) => `${f(r.join.coldP50)} / ${f(r.join.coldP95)} (${r.join.coldN})`),
    row('join p50 / p95, returning (ms, n)', (r) => `${f(r.join.returningP50)} / ${f(r.join.returningP95)} (${r.join.returningN})`),
    row('cold join, median end of: connect / login / resolve / first segment (ms)', (r) => { const b = r.join.breakdown.cold; return `${f(b.connect)} / ${f(b.login)} / ${f(b.resolve)} / ${f(b.first)}` }),
    row('returning join, same (ms)', (r) => { const b = r.join.breakdown.returning; return `${f(b.connect)} / ${f(b.login)} / ${f(b.resolve)} / ${f(b.first)}` }),
    row('latency at the playhead p50 / p95 (ms)', (r) => `${f(r.latency.playheadP50)} / ${f(r.latency.playheadP95)}`),
    row('edge delay p50 / p95 (ms)', (r) => `${f(r.latency.edgeP50)} / ${f(r.latency.edgeP95)}`),
    row('CPU per viewer (% of a core); RSS per viewer (MiB)', (r) => `${f(r.perViewer.cpuPct, 1)}; ${f(r.perViewer.rssMiB)}`),
    row('broadcaster CPU (%)', (r) => f(r.origin.cpuPct, 1)),
    ...(runs.some((r) => r.repeater) ? [row('repeater egress multiple; CPU (%); RSS (MiB)', (r) => r.repeaterStats === null ? '–' : `${f(r.repeaterStats.multiple, 2)}; ${f(r.repeaterStats.cpuPct, 1)}; ${f(r.repeaterStats.rssMiB)}`)] : []),
    row('delay stage: CPU (%), packets, late p99 / max (µs), drops', (r) => `${f(r.delay.cpuPct, 1)}, ${r.delay.packets}, ${r.delay.lateP99Us} / ${r.delay.lateMaxUs}, ${r.delay.queueDrops}`)
  ].join('\n')
}


const started = new Date()
const runs: RunResult[] = []
for (const n of SIZES) {
  if (SCENARIO_REPEATER && !process.argv.includes('--skip-alone')) runs.push(await runSize(n, false))
  runs.push(await runSize(n, SCENARIO_REPEATER))
}
const machine = { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', loadavg: loadavg() }
await mkdir(join(root, 'bench-results'), { recursive: true })
const file = join(root, 'bench-results', `swarm-${started.toISOString().replace(/[:.]/g, '-')}.json`)
await writeFile(file, JSON.stringify({ started, scenario: SCENARIO_REPEATER ? 'repeater' : null, originUpMbit: ORIGIN_UP, warmDial: WARM_DIAL, unshaped: UNSHAPED, bcEnv: BC_ENV, repEnv: REP_ENV, panelBox: PANEL_BOX, sizes: SIZES, windowS: WINDOW_S, warmupS: WARMUP_S, perDevice: PER_DEVICE, seed: SEED, uplinks: UPLINKS, churn: { watchMeanS: CHURN_WATCH_S, gapMeanS: CHURN_GAP_S }, machine, runs }, null, 2))
const body = [
  `${started.toISOString().slice(0, 16).replace('T', ' ')} UTC, ${machine.cpus} cores; ${SIZES.join(' and ')} viewers, ${WARMUP_S} s warm-up, ${WINDOW_S} s window each, warm dial ${WARM_DIAL ? 'on' : 'off'}; a 1 Mbit/s channel (640×360, ${SEGMENT_S} s segments). Result: \`${file.slice(root.length)}\`.`,
  '',
  table(runs)
].join('\n')
console.log(body)
if (FULL) await writeDocBlock('bench-swarm', '## Swarm under real networks (`pnpm bench:swarm`)', body)
const SCENARIO_DEFAULTS = flag('window') === undefined && flag('warmup') === undefined && WARM_DIAL && !UNSHAPED && !ALL_CLIENT_ONLY && Object.keys(BC_ENV).length === 0
if (SCENARIO_REPEATER && SCENARIO_DEFAULTS) await writeDocBlock('bench-swarm-repeater', '## Swarm with a repeater (`pnpm bench:swarm -- --scenario=repeater`, issue 42)', body)
process.exit(0)
