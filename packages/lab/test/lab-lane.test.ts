import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { labLeftovers, startAgent, startLab } from '@arus/lab'
import type { Agent, Lab, ViewerReport } from '@arus/lab'
import { startBroadcaster, startPanel, waitFor } from '@arus/testkit'
import type { BroadcasterHandle, PanelHandle } from '@arus/testkit'

// Issue 41's CI lane: an internet in network namespaces (packages/lab). The origin (a panel
// and a broadcaster process, real ffmpeg) and a 5-node DHT sit at the core; three homes,
// each a NAT router with two devices, hang off it with real round-trip times (a userspace
// delay stage), capped up- and downlinks (tbf), and one home behind a randomizing NAT.
// Every viewer is the real SDK in its own device namespace, playing with the player model.
// The test proves that the caps and delays are real, and that a viewer uploads stream
// bytes to a viewer in another home over a hole-punched path (its peer's address is the
// other home's router, not the origin). Needs root, nftables and gcc (scripts/setup.sh).

const id = `c${randomBytes(2).toString('hex')}`
const HOMES = [
  { devices: 2, nat: 'preserving' as const, upMbit: 2, downMbit: 20, rttMs: 40, jitterMs: 4 },
  { devices: 2, nat: 'preserving' as const, upMbit: 5, downMbit: 20, rttMs: 80, jitterMs: 4 },
  { devices: 2, nat: 'random' as const, upMbit: 1, downMbit: 20, rttMs: 120, jitterMs: 4 }
]
let lab: Lab
let panel: PanelHandle | null = null
let bc: BroadcasterHandle | null = null
const agents: Agent[] = []
const ctx = { onTestFinished: () => {} }

async function teardown (): Promise<void> {
  for (const a of agents.splice(0)) await a.exit().catch(() => {})
  await bc?.close().catch(() => {})
  await panel?.close().catch(() => {})
  await lab?.down()
}

beforeAll(async () => {
  lab = await startLab({ id, homes: HOMES })
}, 90_000)

afterAll(teardown, 90_000)

/** Runs a small Node program inside a namespace and resolves its last stdout line as JSON. */
async function nodeIn (ns: string, program: string, args: string[] = [], timeoutMs = 30_000): Promise<any> {
  const p = lab.node(ns, ['--input-type=module', '-e', program, ...args])
  const st = await Promise.race([p.exited, new Promise<null>((resolve) => setTimeout(() => resolve(null), timeoutMs))])
  if (st === null) { await p.stop(); throw new Error(`${ns}: program timed out; stderr ${p.stderrText()}`) }
  if (st.code !== 0) throw new Error(`${ns}: program exited ${st.code ?? st.signal}: ${p.stderrText()}`)
  return JSON.parse(p.lines().at(-1) ?? 'null')
}

const UDP_ECHO = `import { createSocket } from 'node:dgram'
const s = createSocket('udp4'); s.on('message', (m, r) => s.send(m, r.port, r.address)); s.bind(9000, () => console.log('up'))`
const UDP_PING = `import { createSocket } from 'node:dgram'
const [host, n] = [process.argv[1], Number(process.argv[2])]
const s = createSocket('udp4'); const rtts = []; const sent = new Map()
s.on('message', (m) => { const t = sent.get(m.toString()); if (t !== undefined) rtts.push(Number(process.hrtime.bigint() - t) / 1e6) })
for (let i = 0; i < n; i++) { sent.set(String(i), process.hrtime.bigint()); s.send(String(i), 9000, host); await new Promise((r) => setTimeout(r, 20)) }
await new Promise((r) => setTimeout(r, 1500)); rtts.sort((a, b) => a - b); s.close()
console.log(JSON.stringify({ n: rtts.length, p50: rtts[Math.floor(rtts.length / 2)] }))`
const TCP_SINK = `import { createServer } from 'node:net'
createServer((c) => { let n = 0; const t0 = Date.now(); c.on('data', (d) => { n += d.length }); c.on('end', () => { c.end(JSON.stringify({ bytes: n, ms: Date.now() - t0, from: c.remoteAddress })) }) }).listen(9001, '0.0.0.0', () => console.log('up'))`
const TCP_SEND = `import { connect } from 'node:net'
const [host, size] = [process.argv[1], Number(process.argv[2])]
const c = connect(9001, host, () => { c.end(Buffer.alloc(size)) }); let out = ''
c.on('data', (d) => { out += d }); c.on('close', () => console.log(out))`

describe('the network lab (3 NAT homes, real RTTs and caps)', () => {
  it('delays by the configured round-trip time, caps the uplink at its rate, and NATs every home', async () => {
    const origin = lab.plan.origin
    const echo = lab.node(origin.ns, ['--input-type=module', '-e', UDP_ECHO])
    await echo.waitForLine(/^up$/, 10_000)
    const sink = lab.node(origin.ns, ['--input-type=module', '-e', TCP_SINK])
    await sink.waitForLine(/^up$/, 10_000)

    // Round trips: each home's configured RTT to the core (+ up to 2 × its jitter).
    for (const home of lab.plan.homes) {
      const r = await nodeIn(home.devices[0]!.ns, UDP_PING, [origin.addr, '20'])
      expect(r.n).toBe(20)
      expect(r.p50).toBeGreaterThanOrEqual(home.rttMs)
      expect(r.p50).toBeLessThan(home.rttMs + 2 * home.jitterMs + 25)
    }

    // The uplink cap: 600 KB through home 1's 2 Mbit/s uplink takes at least 2.4 s of it
    // (tbf lets one ~4 ms burst through early); the origin sees the router's address.
    const size = 600_000
    const home = lab.plan.homes[0]!
    const sent = await nodeIn(home.devices[1]!.ns, TCP_SEND, [origin.addr, String(size)], 60_000)
    expect(sent.bytes).toBe(size)
    expect(sent.from).toBe(home.wan)
    const capMs = (size * 8) / (home.upMbit * 1000)
    expect(sent.ms).toBeGreaterThanOrEqual(capMs * 0.95)
    expect(sent.ms).toBeLessThan(capMs * 2.5)
    await echo.stop()
    await sink.stop()
  }, 120_000)

  it('every viewer logs in through the DHT and plays; one uploads stream bytes to a viewer in another home, hole-punched', async () => {
    const origin = lab.plan.origin.ns
    const expose = async (url: string): Promise<string> => lab.expose(origin, Number(new URL(url).port))
    const devices = lab.plan.homes.flatMap((h) => h.devices)
    const users = devices.map((d) => ({ name: `v${d.home}${d.index}`, password: randomBytes(9).toString('base64url') }))
    panel = await startPanel(ctx, { testnet: lab.bootstrap, users, netns: origin, exposeUrl: expose, logs: `${lab.dir}/logs` })
    bc = await startBroadcaster(ctx, { panel, netns: origin, exposeUrl: expose, logs: `${lab.dir}/logs` })
    // A 1 Mbit/s channel: 640×360 at ~900 kbit/s video plus audio, 2 s segments.
    await bc.channel('lab1', { transcode: { width: 640, height: 360, preset: 'ultrafast', videoBitrateKbps: 900 }, hlsTime: 2, hlsListSize: 6 }, { timeoutMs: 60_000 })
    for (const u of users) await panel.api('POST', `/api/users/${u.name}/grants`, { streamId: 'lab1' })

    for (const d of devices) {
      const agent = await startAgent(lab, d.ns)
      agents.push(agent)
      const u = users[agents.length - 1]!
      agent.start(panel.panelKey, [{ name: u.name, user: u.name, password: u.password, channel: 'lab1' }])
    }
    const reports = async (): Promise<Array<ViewerReport & { home: number }>> =>
      (await Promise.all(agents.map(async (a, i) => (await a.report()).map((r) => ({ ...r, home: devices[i]!.home }))))).flat()

    // Every viewer plays: logged in, resolved, and its model past its first segment.
    await waitFor(async () => {
      const rs = await reports()
      const failed = rs.find((r) => r.error !== null)
      if (failed) throw new Error(`${failed.name}: ${failed.error}`)
      return rs.length === devices.length && rs.every((r) => (r.model?.segments ?? 0) >= 2)
    }, { timeoutMs: 150_000, intervalMs: 1_000, message: 'every viewer playing' })

    // A viewer uploads stream bytes to a viewer of another home, on a direct path: the
    // address its socket talks to is that home's router (a hole through two NATs).
    const crossHome = async (): Promise<Array<{ from: string; to: string; bytes: number; remote: string }>> => {
      const rs = await reports()
      const byKey = new Map(rs.filter((r) => r.publicKey !== null).map((r) => [r.publicKey!, r]))
      const out: Array<{ from: string; to: string; bytes: number; remote: string }> = []
      for (const r of rs) {
        for (const [key, b] of Object.entries(r.bytesByPeer)) {
          const peer = byKey.get(key)
          if (peer === undefined || peer.home === r.home || b.uploaded === 0 || b.remote === null) continue
          out.push({ from: r.name, to: peer.name, bytes: b.uploaded, remote: b.remote })
        }
      }
      return out
    }
    await waitFor(async () => (await crossHome()).length > 0, { timeoutMs: 150_000, intervalMs: 2_000, message: 'a viewer uploaded to a viewer in another home' })
    const flows = await crossHome()
    for (const f of flows) {
      const toHome = lab.plan.homes[Number(f.to[1]) - 1]!
      expect(f.remote.split(':')[0]).toBe(toHome.wan)
    }
    expect(Math.max(...flows.map((f) => f.bytes))).toBeGreaterThan(0)
    console.log(JSON.stringify({ flows, delay: lab.delayStats() }))

    // Everyone kept playing through it.
    const rs = await reports()
    for (const r of rs) expect(r.model?.joinMs ?? null).not.toBeNull()
    const stats = lab.delayStats()
    expect(stats?.packets ?? 0).toBeGreaterThan(1000)
  }, 360_000)

  it('leaves no namespace, link or process behind', async () => {
    await teardown()
    const left = await labLeftovers(id)
    expect(left).toEqual({ namespaces: [], pids: [] })
  }, 90_000)
})
