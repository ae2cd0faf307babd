/**
 * Report-storm benchmark (issue 14 "Storm behavior": reports must not slow login and
 * session). Not a test: it measures viewer logins against the built panel daemon on a local
 * DHT testnet on 127.0.0.1, first alone, then while 100 enrolled devices storm one channel
 * with problem reports, and prints (and, at the default settings, writes) the "Report storm"
 * section of docs/benchmarks.md. Exits 1 when a login failed during the storm.
 *
 *   pnpm exec tsc -b && pnpm exec tsx scripts/bench-reports.ts [--logins 200] [--seconds 60] [--rate 6000] [--panel-env K=V ...] [--no-doc]
 *
 * Each phase lasts --seconds; its --logins logins run one after another, paced evenly over it
 * (the same pacing in both phases, so the storm covers the whole login series: the first
 * seconds, when each device's first reports pass the throttle and open the alert, and the
 * rest, when the throttle answers `locked`). --rate: reports per minute the 100 devices aim
 * for together (each device paced at rate/100 per minute). Each login is the viewer flow of
 * @arus/testkit `viewerLogin` (hello → PoW → OPRF login → catalog read → Argon2id verifier →
 * session), timed as a whole and for the `session` round trip alone, with a fresh device key
 * every time (so every session enrolls a device: one catalog write).
 */
import { register } from 'node:module'
import { readFile, writeFile } from 'node:fs/promises'
import { cpus, loadavg } from 'node:os'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'

register('./docs/alias-hooks.mjs', import.meta.url)
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? Number(process.argv[i + 1]) : fallback
}
const LOGINS = arg('logins', 200)
const RATE = arg('rate', 6000)
const SECONDS = arg('seconds', 60)
/** Extra panel environment (e.g. REPORTS_MAX_PER_WINDOW=10000 to take the throttle out of the storm). */
const PANEL_ENV = Object.fromEntries(process.argv.flatMap((a, i) => (process.argv[i - 1] === '--panel-env' ? [a.split('=', 2) as [string, string]] : [])))
const WARMUP_LOGINS = 10
const USERS = 4
const PER_USER = 25 // DEFAULT_MAX_DEVICES
const DEVICES = USERS * PER_USER
/** The storm starts this long before the first measured login, so the first logins meet its costly start. */
const LEAD_MS = 1000
/** Hard bound on the storm, whatever the logins do. */
const STORM_MAX_MS = 120_000
const LOGIN_TIMEOUT_MS = 20_000
const DEFAULTS = LOGINS === 200 && RATE === 6000 && SECONDS === 60 && Object.keys(PANEL_ENV).length === 0
const WRITE_DOC = DEFAULTS && !process.argv.includes('--no-doc')
const DOC = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url))
const TICK = 100 // CLK_TCK on Linux
if (!Number.isInteger(LOGINS) || LOGINS < 10 || !(RATE >= 100) || !(SECONDS >= 5 && SECONDS <= 100)) throw new Error('--logins must be an integer >= 10, --rate a number >= 100, --seconds 5-100')

const {
  computeVerifier, constantTimeEqual, deriveAuthKeyPair, deriveRwd, deriveWrapKey, fromHex, generateSigningKeyPair, oprf, openGrant, openSecret, sign, solvePow, toHex
} = await import('@arus/crypto')
const { sessionSignedBytes } = await import('@arus/rpc')
const { cleanupAll, createTestnet, linkToPanel, startPanel, viewerLogin, withTimeout } = await import('@arus/testkit')
type PanelLink = Awaited<ReturnType<typeof linkToPanel>>

const log = (s: string) => console.error(`[bench] ${s}`)
const noTest = { onTestFinished: () => {} } // torn down by cleanupAll()
const pw = (i: number) => `bench-report-pw-${i}`

/** `viewerLogin`'s flow (packages/testkit/src/viewer-login.ts) with the session round trip timed on its own. */
async function timedLogin (link: PanelLink, username: string, password: string): Promise<{ totalMs: number; sessionMs: number }> {
  const started = performance.now()
  const device = generateSigningKeyPair()
  const hello = await link.rpc.hello()
  const nonce = solvePow(fromHex(hello.challenge, 32), hello.difficulty)
  const input = new TextEncoder().encode(password)
  const { blind, blindedElement } = oprf.blind(input)
  const reply = await link.rpc.login({ username, blinded: toHex(blindedElement), powNonce: toHex(nonce) })
  const rwd = deriveRwd(oprf.finalize(input, blind, fromHex(reply.evaluated, 32)))
  await link.reader.update({ wait: true })
  const user = await link.reader.getUser(username)
  if (!user) throw new Error('login user not in the replicated catalog')
  if (!constantTimeEqual(await computeVerifier(rwd, fromHex(user.salt, 16), user.argon), fromHex(user.verifier, 32))) throw new Error('wrong password')
  const priv = openSecret(deriveWrapKey(rwd), user.encPriv)
  const auth = deriveAuthKeyPair(rwd)
  const deviceId = toHex(device.publicKey)
  const msg = sessionSignedBytes(fromHex(reply.sessionChallenge, 32), username, deviceId)
  const req = { username, deviceId, authSig: toHex(sign(msg, auth.secretKey)), deviceSig: toHex(sign(msg, device.secretKey)) }
  const sent = performance.now()
  await link.rpc.session(req)
  const sessionMs = performance.now() - sent
  for (const sealed of Object.values(user.wrapped)) openGrant(sealed, fromHex(user.pub, 32), priv)
  return { totalMs: performance.now() - started, sessionMs }
}

interface Phase {
  session: number[]; total: number[]; early: number[]; failures: string[]; startedAt: number; endedAt: number
  /** CPU over the phase, % of one core: the panel daemon, this process (logins, storm senders, testnet). */
  panelCpuPct: number; benchCpuPct: number
  /** 1-minute load average at the end (the machine is shared: other work shows here). */
  load: number
  /** Event-loop delay of this process (the client side of every round trip), ms. */
  benchLoopDelayP99: number; benchLoopDelayMax: number
}
/** Logins started this soon after a phase began count as "early" too (the storm's costly start: stores, the alert, collapse). */
const EARLY_MS = 6000
const LOOP_RES_MS = 10

async function cpuTicks (pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return Number(f[11]) + Number(f[12])
}

/** `n` logins one after another, the i-th started at `i × seconds / n` (or at once when the one before ran late). */
async function measureLogins (link: PanelLink, username: string, n: number, seconds: number, phaseStart: number, panelPid: number): Promise<Phase> {
  const out: Phase = {
    session: [], total: [], early: [], failures: [], startedAt: Date.now(), endedAt: 0, panelCpuPct: 0, benchCpuPct: 0, load: 0, benchLoopDelayP99: 0, benchLoopDelayMax: 0
  }
  const ticks0 = await cpuTicks(panelPid)
  const self0 = process.cpuUsage()
  const loop = monitorEventLoopDelay({ resolution: LOOP_RES_MS })
  loop.enable()
  const t = performance.now()
  for (let i = 0; i < n; i++) {
    await sleep(Math.max(0, t + (i * seconds * 1000) / n - performance.now()))
    const at = performance.now()
    try {
      const r = await withTimeout(timedLogin(link, username, pw(0)), LOGIN_TIMEOUT_MS, 'login')
      out.session.push(r.sessionMs)
      out.total.push(r.totalMs)
      if (at - phaseStart < EARLY_MS) out.early.push(r.sessionMs)
    } catch (err) {
      out.failures.push(`${(err as { code?: string }).code ?? 'ERROR'}: ${(err as Error).message}`)
    }
  }
  out.endedAt = Date.now()
  const wall = (out.endedAt - out.startedAt) / 1000
  loop.disable()
  // The histogram holds whole timer intervals: the delay is what exceeds the resolution.
  out.benchLoopDelayP99 = Math.max(0, loop.percentile(99) / 1e6 - LOOP_RES_MS)
  out.benchLoopDelayMax = Math.max(0, loop.max / 1e6 - LOOP_RES_MS)
  out.panelCpuPct = ((await cpuTicks(panelPid) - ticks0) / TICK / wall) * 100
  out.load = loadavg()[0]!
  const self = process.cpuUsage(self0)
  out.benchCpuPct = ((self.user + self.system) / 1e6 / wall) * 100
  return out
}

const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return NaN
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!
}
const stats = (xs: number[]) => ({ n: xs.length, p50: round(pct(xs, 50)), p99: round(pct(xs, 99)), max: round(Math.max(...xs)) })
const round = (x: number) => Math.round(x * 10) / 10

// --- set-up --------------------------------------------------------------------------------
const t0 = Date.now()
let exitCode = 0
try {
  const testnet = await createTestnet()
  const stormUsers = Array.from({ length: USERS }, (_, i) => ({ name: `storm-${i}`, password: pw(i + 1) }))
  const panel = await startPanel(undefined, {
    testnet,
    users: [{ name: 'bench-login', password: pw(0) }, ...stormUsers],
    env: { DEFAULT_MAX_DEVICES: String(PER_USER), ...PANEL_ENV }
  })
  const panelPid = panel.proc!.child.pid!
  await panel.api('POST', '/api/streams', { id: 'news', title: 'News' })
  // One storm link per user (enrolled in parallel), and the login link apart from them.
  const stormLinks = await Promise.all(stormUsers.map(() => linkToPanel(noTest, testnet, panel.panelKey)))
  const loginLink = await linkToPanel(noTest, testnet, panel.panelKey)
  const devices = (await Promise.all(stormUsers.map(async (u, i) => {
    const link = stormLinks[i]!
    const out: Array<{ link: PanelLink; token: string }> = []
    for (let d = 0; d < PER_USER; d++) {
      const s = await viewerLogin(link.rpc, link.reader, { username: u.name, password: u.password, device: generateSigningKeyPair() })
      out.push({ link, token: s.token })
    }
    return out
  }))).flat()
  log(`set up: panel, ${devices.length} enrolled devices on ${USERS} links, in ${((Date.now() - t0) / 1000).toFixed(1)} s`)
  for (let i = 0; i < WARMUP_LOGINS; i++) await timedLogin(loginLink, 'bench-login', pw(0))

  // --- baseline --------------------------------------------------------------------------
  const baseline = await measureLogins(loginLink, 'bench-login', LOGINS, SECONDS, performance.now() - LEAD_MS, panelPid)
  log(`baseline: ${LOGINS} logins in ${((baseline.endedAt - baseline.startedAt) / 1000).toFixed(1)} s, session p50 ${stats(baseline.session).p50} ms`)

  // --- storm -----------------------------------------------------------------------------
  const intervalMs = (DEVICES * 60_000) / RATE
  const perLoopMax = Math.ceil((RATE / DEVICES) * (STORM_MAX_MS / 60_000)) + 1
  const replies: Array<{ at: number; kind: string; ms: number }> = []
  let stop = false
  const stormStart = performance.now()
  const hardEnd = stormStart + STORM_MAX_MS
  const loops = devices.map(async (d, i) => {
    let next = stormStart + (i * intervalMs) / DEVICES // spread the devices over one interval
    for (let n = 0; n < perLoopMax && !stop; n++) {
      await sleep(Math.max(0, next - performance.now()))
      if (stop || performance.now() > hardEnd) break
      const sent = performance.now()
      let kind: string
      try {
        const r = await d.link.rpc.request('report', {
          v: 1, token: d.token, category: 'buffering', text: null, channel: 'news', appVersion: '1.0.0', platform: 'bench', peers: 3,
          events: [{ kind: 'status', at: Date.now(), detail: 'stalled at live edge' }]
        }) as { ok?: true; collapsed?: true; error?: string }
        kind = r.error ?? (r.collapsed ? 'collapsed' : r.ok ? 'ok' : 'other')
      } catch (err) {
        kind = `thrown:${(err as { code?: string }).code ?? 'ERROR'}`
      }
      replies.push({ at: Date.now(), kind, ms: performance.now() - sent })
      // Paced: a slow reply delays this device's next report rather than piling up a burst.
      next = Math.max(next + intervalMs, performance.now())
    }
  })
  await sleep(LEAD_MS)
  const storm = await measureLogins(loginLink, 'bench-login', LOGINS, SECONDS, stormStart, panelPid)
  const stormCovered = performance.now() < hardEnd
  stop = true
  await Promise.all(loops)
  const stormEnd = performance.now()

  // --- results ---------------------------------------------------------------------------
  const inWindow = replies.filter((r) => r.at >= storm.startedAt && r.at <= storm.endedAt)
  const windowS = (storm.endedAt - storm.startedAt) / 1000
  const mix = (rs: typeof replies) => rs.reduce<Record<string, number>>((m, r) => { m[r.kind] = (m[r.kind] ?? 0) + 1; return m }, {})
  const summary = await panel.api('GET', '/api/reports/summary')
  const phase = (p: Phase) => ({
    session_ms: stats(p.session), login_ms: stats(p.total), session_ms_first_6s: stats(p.early), failures: p.failures.length, failureSamples: p.failures.slice(0, 5),
    seconds: round((p.endedAt - p.startedAt) / 1000), panel_cpu_pct: round(p.panelCpuPct), bench_cpu_pct: round(p.benchCpuPct), load_1min: round(p.load),
    bench_loop_delay_ms: { p99: round(p.benchLoopDelayP99), max: round(p.benchLoopDelayMax) }
  })
  const result = {
    date: new Date().toISOString(),
    machine: `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, Node ${process.version}`,
    settings: { logins: LOGINS, seconds: SECONDS, warmupLogins: WARMUP_LOGINS, devices: DEVICES, users: USERS, ratePerMin: RATE, perDeviceIntervalMs: round(intervalMs), leadMs: LEAD_MS, panelEnvOverrides: PANEL_ENV, panelEnv: { ...panel.env, DATA_DIR: undefined, BOOTSTRAP: undefined } },
    baseline: phase(baseline),
    storm: {
      ...phase(storm),
      coveredAllLogins: stormCovered,
      reports: {
        total: replies.length,
        stormSeconds: round((stormEnd - stormStart) / 1000),
        inLoginWindow: inWindow.length,
        perMinuteInLoginWindow: Math.round((inWindow.length / windowS) * 60),
        replyMix: mix(replies),
        replyMixInLoginWindow: mix(inWindow),
        reply_ms: stats(replies.map((r) => r.ms))
      },
      panelSummary: { occurrences: summary.occurrences, collapsed: summary.collapsed, shed: summary.shed, throttled: summary.throttled }
    },
    loadavg: loadavg().map(round),
    wallSeconds: round((Date.now() - t0) / 1000)
  }
  console.log(JSON.stringify(result, null, 2))
  const table = render(result)
  console.log(`\n${table}`)
  if (WRITE_DOC) await writeSection(table)
  if (storm.failures.length > 0 || !stormCovered) {
    log(`FAIL: ${storm.failures.length} login(s) failed during the storm${stormCovered ? '' : '; the storm ended before the logins did'}`)
    exitCode = 1
  }
} finally {
  await cleanupAll()
}
process.exit(exitCode)

function render (r: any): string {
  const mixText = (m: Record<string, number>) => Object.entries(m).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(', ')
  const ms = (s: { p50: number; p99: number; max: number }) => `${s.p50} / ${s.p99} / ${s.max}`
  const rep = r.storm.reports
  const cpu = (p: any) => `${p.panel_cpu_pct} / ${p.bench_cpu_pct}`
  return [
    `Measured by \`scripts/bench-reports.ts\` on ${r.date.slice(0, 10)}: ${r.machine}.`,
    `Each phase: ${r.settings.logins} logins one after another, paced evenly over ${r.settings.seconds} s (after ${r.settings.warmupLogins} unmeasured), each with a fresh device key; storm: ${r.settings.devices} enrolled devices ` +
      `(${r.settings.users} users × 25, DEFAULT_MAX_DEVICES=25) on ${r.settings.users} links, one \`report\` per device every ${r.settings.perDeviceIntervalMs} ms ` +
      `(aim ${r.settings.ratePerMin}/min), all at channel \`news\`, started ${r.settings.leadMs} ms before the first login and stopped after the last; ` +
      'reports defaults (5 per reporter per 600 s, alert at 3 reporters, sample 20, 120 stored/min); test login costs (Argon2id 8 KiB / 1 pass, PoW 4 bits).' +
      Object.entries(r.settings.panelEnvOverrides).map(([k, v]) => ` Override: ${k}=${String(v)}.`).join(''),
    '',
    '| Phase | session RPC p50 / p99 / max (ms) | full login p50 / p99 / max (ms) | failed logins | CPU % panel / bench | load (1 min) | reports answered |',
    '|---|---|---|---|---|---|---|',
    `| baseline (no reports) | ${ms(r.baseline.session_ms)} | ${ms(r.baseline.login_ms)} | ${r.baseline.failures} | ${cpu(r.baseline)} | ${r.baseline.load_1min} | — |`,
    `| storm | ${ms(r.storm.session_ms)} | ${ms(r.storm.login_ms)} | ${r.storm.failures} | ${cpu(r.storm)} | ${r.storm.load_1min} | ${rep.perMinuteInLoginWindow}/min during the logins (${rep.inLoginWindow} in ${r.storm.seconds} s) |`,
    '',
    'CPU % is (utime + stime) / wall time over the phase (100 = one core): the panel daemon, and this process (the login client, the 100 senders, ' +
      `the DHT testnet); the machine is shared, and the load average at the end of each phase shows other work. This process's event-loop delay (the client side of every round trip), p99 / max: ` +
      `baseline ${r.baseline.bench_loop_delay_ms.p99} / ${r.baseline.bench_loop_delay_ms.max} ms, storm ${r.storm.bench_loop_delay_ms.p99} / ${r.storm.bench_loop_delay_ms.max} ms.`,
    '',
    `Session RPC of the logins started in the first 6 s of each phase (the storm's costly start: each device's first 5 reports pass the throttle, ` +
      `the alert opens, stores and collapses): baseline ${ms(r.baseline.session_ms_first_6s)} ms (n = ${r.baseline.session_ms_first_6s.n}), ` +
      `storm ${ms(r.storm.session_ms_first_6s)} ms (n = ${r.storm.session_ms_first_6s.n}), p50 / p99 / max.`,
    '',
    `Storm replies (all ${rep.total}, over ${rep.stormSeconds} s): ${mixText(rep.replyMix)}; report round trip p50 ${rep.reply_ms.p50} ms, p99 ${rep.reply_ms.p99} ms. ` +
      `Panel counters: ${r.storm.panelSummary.occurrences} stored, ${r.storm.panelSummary.collapsed} collapsed, ${r.storm.panelSummary.shed} shed, ${r.storm.panelSummary.throttled} throttled.`
  ].join('\n')
}

/** Replaces the marked block of the "Report storm" section, or appends the section; re-read right before writing (a shared file). */
async function writeSection (body: string): Promise<void> {
  const begin = '<!-- bench-reports:begin -->'
  const end = '<!-- bench-reports:end -->'
  let doc = await readFile(DOC, 'utf8')
  const block = `${begin}\n${body}\n${end}`
  if (doc.includes(begin) && doc.includes(end)) doc = doc.slice(0, doc.indexOf(begin)) + block + doc.slice(doc.indexOf(end) + end.length)
  else doc = `${doc.trimEnd()}\n\n## Report storm\n\n${block}\n`
  await writeFile(DOC, doc)
}
