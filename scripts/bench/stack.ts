/**
 * The processes of a `pnpm bench` run: a local DHT testnet, a real panel (`arus-panel run`)
 * with a user at the default Argon2id cost, one real broadcaster (`arus-broadcaster run`) per
 * configuration under test, each with its own `test` channels and publisher (testkit's
 * createStack), and viewer processes (scripts/bench/viewer.ts). Everything lives in one temp
 * dir and is torn down by `close()`.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { connect as netConnect, type Socket } from 'node:net'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { createStack, waitFor, type SpawnedProcess, type Stack as KitStack, type Testnet } from '@arus/testkit'

const root = fileURLToPath(new URL('../..', import.meta.url))
const VIEWER = join(root, 'scripts/bench/viewer.mjs')
/**
 * Node flags of every viewer process: BENCH_VIEWER_NODE_FLAGS (space separated; '' for Node's
 * defaults). Default: a small V8 young generation, what a memory-constrained host sets
 * (docs/architecture.md "Viewer memory").
 */
export const VIEWER_NODE_FLAGS = (process.env.BENCH_VIEWER_NODE_FLAGS ?? '--max-semi-space-size=1').split(' ').filter(Boolean)
/**
 * glibc malloc arenas of every viewer process: BENCH_VIEWER_MALLOC_ARENA_MAX ('' for glibc's
 * default, 8 per core). Default 2, the same host setting (docs/architecture.md "Viewer memory").
 */
export const VIEWER_MALLOC_ARENA_MAX = process.env.BENCH_VIEWER_MALLOC_ARENA_MAX ?? '2'
export const USER = { name: 'bench', password: 'bench-viewer-pw' }
const ADMIN = { name: 'admin', password: 'bench-admin-pw' }

/** A fixed-bitrate `test` channel: 2 s segments, 320x180 ultrafast at 400 kb/s video + 64 kb/s audio. */
export const CHANNEL = { input: 'test', transcode: { width: 320, height: 180, preset: 'ultrafast', videoBitrateKbps: 400, audioBitrateKbps: 64 }, hlsTime: 2, hlsListSize: 6 }
export type ChannelConfig = typeof CHANNEL

/** The bitrate dimension: a low and a high bitrate `test` channel (same 2 s segments). */
export const RATES = {
  low: { ...CHANNEL, transcode: { width: 640, height: 360, preset: 'ultrafast', videoBitrateKbps: 900, audioBitrateKbps: 96 } },
  high: { ...CHANNEL, transcode: { width: 1280, height: 720, preset: 'ultrafast', videoBitrateKbps: 4800, audioBitrateKbps: 128 } }
} satisfies Record<string, ChannelConfig>

export interface Line { type: string; at: number; [k: string]: any }

/** A viewer process: JSON commands in, JSON lines out. */
export class Viewer {
  readonly lines: Line[] = []
  private waiters = new Set<() => void>()
  constructor (readonly child: ChildProcess) {
    createInterface({ input: child.stdout! }).on('line', (l) => {
      try { this.lines.push(JSON.parse(l) as Line) } catch { return }
      for (const w of this.waiters) w()
    })
  }

  send (cmd: Record<string, unknown>): void { this.child.stdin!.write(`${JSON.stringify(cmd)}\n`) }

  /** The first line (from index `from`) matching `pred`; bounded. */
  async next (pred: (l: Line) => boolean, timeoutMs = 60_000, from = 0): Promise<Line> {
    return waitFor(() => {
      const err = this.lines.slice(from).find((l) => l.type === 'error' && l.cmd)
      if (err) throw new Error(`viewer: ${err.cmd}: ${err.message}`)
      if (this.child.exitCode !== null) throw new Error(`viewer exited with ${this.child.exitCode}`)
      return this.lines.slice(from).find(pred) ?? null
    }, { timeoutMs, intervalMs: 20, message: 'viewer line' })
  }

  async stop (): Promise<void> {
    if (this.child.exitCode !== null) return
    const closed = new Promise((resolve) => this.child.once('close', resolve))
    this.send({ cmd: 'stop' })
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000)
    await closed
    clearTimeout(timer)
  }
}

/** One broadcaster process of the stack and its operator's control API. */
export interface Broadcaster {
  name: string
  proc: SpawnedProcess
  controlUrl: string
  channels: string[]
  /** Control API call as the broadcaster's operator. */
  bc(method: string, path: string, body?: unknown): Promise<any>
}

/** A broadcaster to start: its name (also its publisher's), extra env, channel ids. */
export interface BroadcasterSpec { name: string; env: Record<string, string>; channels: string[]; configs?: Record<string, ChannelConfig> }

export interface Stack {
  work: string
  testnet: Testnet
  panelKey: string
  adminUrl: string
  broadcasters: Broadcaster[]
  /** Admin HTTP API call on the panel. */
  panel(method: string, path: string, body?: unknown): Promise<any>
  /**
   * The same over a kept-alive node:http connection (status and JSON only): the timed admin
   * edits, so the figure is the system's, not a fetch client's per-call overhead (~1 ms).
   */
  edit(method: string, path: string, body: unknown): Promise<{ status: number }>
  viewer(opts?: { zapPrefetch?: boolean; loginDelayMs?: number }): Promise<Viewer>
  close(): Promise<void>
}

export async function startStack (specs: BroadcasterSpec[]): Promise<Stack> {
  const work = await mkdtemp(join(tmpdir(), 'arus-bench-'))
  const viewers: Viewer[] = []
  let kit: KitStack | null = null
  const close = async () => {
    await Promise.allSettled(viewers.map((v) => v.stop()))
    await kit?.close().catch(() => {})
    await rm(work, { recursive: true, force: true })
  }
  try {
    // The daemons' own costs and defaults (login_ms measures what a user feels), testkit's processes.
    kit = await createStack(undefined, {
      panel: { dataDir: join(work, 'panel'), admin: ADMIN, users: [USER], testEnv: false },
      broadcasters: specs.map((spec) => ({
        name: spec.name, dataDir: join(work, `broadcaster-${spec.name}`), testEnv: false,
        env: { LOG_LEVEL: 'debug', RESUME_PACE: '0', REGISTER_HEARTBEAT_SEC: '10', ...spec.env }
      }))
    })
    const { panel, testnet } = kit
    const broadcasters: Broadcaster[] = kit.broadcasters.map((b, i) => ({
      name: b.name, proc: b.proc!, controlUrl: b.controlUrl!, channels: specs[i]!.channels, bc: (method, path, body) => b.api(method, path, body)
    }))
    // Every channel starts before any is awaited: their segment phases are part of what is measured.
    for (const b of broadcasters) {
      for (const id of b.channels) {
        await b.bc('POST', '/api/channels', { id, title: id, ...(specs[broadcasters.indexOf(b)]!.configs?.[id] ?? CHANNEL) })
        await b.bc('POST', `/api/channels/${id}/start`)
      }
    }
    for (const b of broadcasters) {
      await waitFor(async () => (await Promise.all(b.channels.map((id) => b.bc('GET', `/api/channels/${id}`)))).every((c) => c.registered && c.state === 'up'), { timeoutMs: 60_000, intervalMs: 250, message: `${b.name}: channels up and registered` })
      for (const id of b.channels) await panel.api('POST', `/api/users/${USER.name}/grants`, { streamId: id })
    }

    // Logged in now: the admin login (an Argon2id verification) must not land in a timed edit.
    const edit = adminClient(panel.adminUrl!, ADMIN)
    await edit('GET', '/api/streams', undefined)
    let n = 0
    return {
      work, testnet: testnet as Testnet, panelKey: panel.panelKey, adminUrl: panel.adminUrl!, broadcasters,
      panel: (method, path, body) => panel.api(method, path, body),
      edit,
      async viewer (opts = {}) {
        // BENCH_PROFILE_DIR=<dir>: every viewer writes a V8 CPU profile there when it stops.
        const prof = process.env.BENCH_PROFILE_DIR
        const flags = [...VIEWER_NODE_FLAGS, ...(prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : [])]
        const child = spawn(process.execPath, [...flags, VIEWER], {
          env: {
            ...process.env, BENCH_PANEL_KEY: panel.panelKey, BENCH_BOOTSTRAP: kit!.bootstrap, BENCH_STORE: join(work, `viewer-${++n}`),
            BENCH_USER: USER.name, BENCH_PASSWORD: USER.password, BENCH_ZAP_PREFETCH: opts.zapPrefetch ? '1' : '0',
            BENCH_LOGIN_DELAY_MS: String(opts.loginDelayMs ?? 0),
            ...(VIEWER_MALLOC_ARENA_MAX === '' ? {} : { MALLOC_ARENA_MAX: VIEWER_MALLOC_ARENA_MAX })
          },
          stdio: ['pipe', 'pipe', 'inherit']
        })
        const v = new Viewer(child)
        viewers.push(v)
        await v.next((l) => l.type === 'login', 120_000)
        return v
      },
      close
    }
  } catch (err) {
    await close()
    throw err
  }
}

/**
 * A bearer-token admin client on one kept-alive TCP connection, HTTP/1.1 written and read by hand
 * (logs in on first use; a non-2xx answer throws). Also scripts/trace-propagation.ts's client.
 * A timed edit starts when its bytes go to the socket: node:http's request object spent about
 * 0.5 ms of the bench process before that (traced: the panel's `request` event 0.9 → 0.4 ms).
 */
export function adminClient (base: string, admin: { name: string; password: string }): (method: string, path: string, body: unknown) => Promise<{ status: number }> {
  const url = new URL(base)
  let socket: Socket | null = null
  let buffered = Buffer.alloc(0)
  let waiting: { resolve: (r: { status: number; text: string }) => void; reject: (err: Error) => void } | null = null
  const answer = (): void => {
    const end = buffered.indexOf('\r\n\r\n')
    if (end < 0 || waiting === null) return
    const head = buffered.subarray(0, end).toString('latin1')
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0)
    // The panel frames every JSON answer with content-length; anything else would be misread.
    if (/\r\ntransfer-encoding: *chunked/i.test(head)) { const w = waiting; waiting = null; socket?.destroy(); w.reject(new Error('the admin client reads only content-length answers (got chunked)')); return }
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0)
    if (buffered.byteLength < end + 4 + length) return
    const text = buffered.subarray(end + 4, end + 4 + length).toString('utf8')
    buffered = buffered.subarray(end + 4 + length)
    const w = waiting
    waiting = null
    w.resolve({ status, text })
  }
  const connect = (): Promise<Socket> => new Promise((resolve, reject) => {
    const s = netConnect({ host: url.hostname, port: Number(url.port) })
    s.setNoDelay(true)
    s.once('connect', () => { s.off('error', reject); resolve(s) })
    s.once('error', reject)
    s.on('data', (chunk: Buffer) => { buffered = Buffer.concat([buffered, chunk]); answer() })
    let failure: Error | null = null
    s.on('error', (err) => { failure = err })
    s.on('close', () => {
      if (socket === s) socket = null
      buffered = Buffer.alloc(0)
      waiting?.reject(failure ?? new Error('the admin connection closed'))
      waiting = null
    })
  })
  const send = async (method: string, path: string, body: unknown, auth: string | null): Promise<{ status: number; text: string }> => {
    if (socket === null) socket = await connect()
    const data = body === undefined ? '' : JSON.stringify(body)
    const head = `${method} ${path} HTTP/1.1\r\nHost: ${url.host}\r\n` +
      (auth === null ? '' : `Authorization: Bearer ${auth}\r\n`) +
      (data === '' ? '' : `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(data)}\r\n`) + '\r\n'
    const s = socket
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => { s.destroy(new Error(`${method} ${path}: no answer in 30 s`)) }, 30_000)
      waiting = { resolve: (r) => { clearTimeout(timer); resolve(r) }, reject: (err) => { clearTimeout(timer); reject(err) } }
      s.write(head + data)
    })
  }
  let token: string | null = null
  return async (method, path, body) => {
    if (token === null) {
      const r = await send('POST', '/api/login', { username: admin.name, password: admin.password }, null)
      if (r.status !== 200) throw new Error(`admin login: ${r.status} ${r.text}`)
      token = (JSON.parse(r.text) as { token: string }).token
    }
    const r = await send(method, path, body, token)
    if (r.status < 200 || r.status > 299) throw new Error(`${method} ${path}: ${r.status} ${r.text}`)
    return { status: r.status }
  }
}

/** Resident set (MiB) and CPU ticks of a process and its children (ffmpeg) from /proc. */
export async function procStats (pid: number): Promise<{ rssMb: number; ticks: number; childTicks: number }> {
  const one = async (p: number) => {
    try {
      const stat = await readFile(`/proc/${p}/stat`, 'utf8')
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      const status = await readFile(`/proc/${p}/status`, 'utf8')
      return { ticks: Number(f[11]) + Number(f[12]), rssKb: Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0), ppid: Number(f[1]) }
    } catch { return null }
  }
  const self = await one(pid)
  let childTicks = 0
  const { readdir } = await import('node:fs/promises')
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const s = await one(Number(name))
    if (s && s.ppid === pid) childTicks += s.ticks
  }
  return { rssMb: (self?.rssKb ?? 0) / 1024, ticks: self?.ticks ?? 0, childTicks }
}
