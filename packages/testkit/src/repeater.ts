import { ARUS_BINS, daemonInit, runBin, spawnRepeaterDaemon, type DaemonInit } from './daemons.js'
import type { SpawnedProcess } from './process.js'
import { registerTeardown } from './teardown.js'
import type { TestContextLike } from './teardown.js'
import { ownedTmpDir } from './tmp.js'
import { freePort, waitFor } from './wait.js'

/** Options for {@link startRepeater}. */
export interface RepeaterInit {
  /** The panel it follows (its public key and the testnet's BOOTSTRAP). */
  panel: { panelKey: string; bootstrap: string }
  /** CHANNELS. Default `all`. */
  channels?: string
  env?: Record<string, string>
  /** Data directory, kept afterwards (a restart reuses it). Default: a temp dir removed on teardown. */
  dataDir?: string
  /** Tee the daemon's output to `<logs>/repeater.log`. */
  logs?: string
  readyTimeoutMs?: number
  signal?: AbortSignal
  /** Runs it in a lab namespace (`@arus/lab`), its status URL mapped by exposeUrl. */
  netns?: string
  exposeUrl?: DaemonInit['exposeUrl']
}

/** One mirror as /healthz reports it. */
export interface RepeaterMirror { id: string; type: 'live' | 'vod'; feedKey: string; state: 'mirroring' | 'evicted'; bytesIn: number; bytesOut: number; peers: number; blocksHeld: number; bytesHeld: number; lag: number; complete: boolean; blobPeers?: number; requestsIn?: number; noDataOut?: number; origins?: number; originPeers?: unknown[]; blockRequestsIn?: number; pendingIn?: number; queuedIn?: number; undrained?: number }

/** A repeater started by {@link startRepeater}. */
export interface RepeaterHandle {
  readonly env: Record<string, string>
  readonly dataDir: string
  /** Its swarm public key (hex), known before the first start (`arus-repeater key`). */
  readonly publicKey: string
  readonly statusUrl: string | null
  readonly proc: SpawnedProcess | null
  /** GET /healthz. */
  health(): Promise<{ publicKey: string; mirrors: RepeaterMirror[]; diskUsedBytes: number; diskBudgetBytes: number; overBudget: boolean; catalogUpdates: number; swarmConnections: number; [k: string]: unknown }>
  /** GET /metrics (Prometheus text). */
  metrics(): Promise<string>
  /** Waits until `id` is mirrored (optionally with at least `bytes` held); resolves that mirror. */
  waitMirror(id: string, opts?: { bytes?: number; feedKey?: string; complete?: boolean; timeoutMs?: number }): Promise<RepeaterMirror>
  /** One `arus-repeater --json <args>` command. */
  cli<T = any>(args: string[]): Promise<T>
  start(): Promise<void>
  /** SIGTERM, then SIGKILL past the bound. */
  stop(): Promise<void>
  /** SIGKILL at once (a crash). */
  kill(): Promise<void>
  close(): Promise<void>
}

/**
 * Starts `arus-repeater run` for a panel, with a status port on loopback, and waits for
 * `repeater.ready`. Its identity is minted first (`arus-repeater key`), so an origin can be
 * told to trust it before it runs. Torn down with `t`, by `close()` or by `cleanupAll()`.
 */
export async function startRepeater (t: TestContextLike | undefined, init: RepeaterInit): Promise<RepeaterHandle> {
  const owned = init.dataDir === undefined ? ownedTmpDir(t, 'arus-rep-') : null
  const dataDir = init.dataDir ?? owned!.dir
  let proc: SpawnedProcess | null = null
  let url: string | null = null
  const stopProc = async (how: 'stop' | 'kill'): Promise<void> => {
    const p = proc
    proc = null
    url = null
    if (p === null) return
    await p.stop(how === 'kill' ? 'SIGKILL' : 'SIGTERM')
  }
  const close = registerTeardown(t, async () => { try { await stopProc('stop') } finally { await owned?.remove() } })
  try {
    const port = await freePort()
    const env: Record<string, string> = {
      DATA_DIR: dataDir,
      PANEL_PUBKEY: init.panel.panelKey,
      BOOTSTRAP: init.panel.bootstrap,
      CHANNELS: init.channels ?? 'all',
      STATUS_PORT: String(port),
      LOG_FORMAT: 'json',
      ...init.env
    }
    const key = await runBin(ARUS_BINS.repeater, ['--json', 'key'], { env, signal: init.signal })
    if (key.code !== 0) throw new Error(`arus-repeater key exited ${key.code ?? key.signal}: ${key.stderr.trim()}`)
    const publicKey = (JSON.parse(key.stdout) as { publicKey: string }).publicKey
    const start = async (): Promise<void> => {
      if (proc !== null) return
      const d = await spawnRepeaterDaemon(undefined, env, { ...daemonInit(init, 'repeater'), signal: init.signal, ...(init.netns === undefined ? {} : { netns: init.netns }), ...(init.exposeUrl === undefined ? {} : { exposeUrl: init.exposeUrl }) })
      proc = d.proc
      url = d.url
    }
    const get = async (path: string): Promise<Response> => {
      if (url === null) throw new Error('the repeater is not running')
      const res = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(10_000) })
      if (!res.ok) throw new Error(`GET ${path} answered ${res.status}`)
      return res
    }
    const handle: RepeaterHandle = {
      env,
      dataDir,
      publicKey,
      get statusUrl () { return url },
      get proc () { return proc },
      health: async () => (await get('/healthz')).json() as Promise<any>,
      metrics: async () => (await get('/metrics')).text(),
      async waitMirror (id, opts = {}) {
        let found: RepeaterMirror | undefined
        await waitFor(async () => {
          found = (await handle.health()).mirrors.find((m) => m.id === id && (opts.feedKey === undefined || m.feedKey === opts.feedKey))
          return found !== undefined && found.bytesHeld >= (opts.bytes ?? 0) && (opts.complete !== true || found.complete)
        }, { timeoutMs: opts.timeoutMs ?? 60_000, intervalMs: 250, message: `repeater mirrors ${id}` })
        return found!
      },
      cli: async (args) => {
        const r = await runBin(ARUS_BINS.repeater, ['--json', ...args], { env })
        if (r.code !== 0) throw new Error(`arus-repeater ${args.join(' ')} exited ${r.code ?? r.signal}: ${r.stderr.trim()}`)
        return JSON.parse(r.stdout)
      },
      start,
      stop: () => stopProc('stop'),
      kill: () => stopProc('kill'),
      close
    }
    await start()
    return handle
  } catch (err) {
    await close()
    throw init.signal?.aborted === true ? init.signal.reason : err
  }
}
