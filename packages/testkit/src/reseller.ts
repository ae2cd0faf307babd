import { ARUS_BINS, daemonInit, runBin, secret, spawnResellerDaemon } from './daemons.js'
import { createDaemonSlot } from './daemon-slot.js'
import { createHttpClient } from './http-client.js'
import type { HttpCallOptions, HttpClient, HttpLogin, HttpReply } from './http-client.js'
import type { SpawnedProcess } from './process.js'
import { registerTeardown } from './teardown.js'
import type { TestContextLike } from './teardown.js'
import { ownedTmpDir } from './tmp.js'

/** Cheap Argon2id for principals; sweeps every second; no periodic reconcile during a test. */
export const RESELLER_TEST_ENV: Readonly<Record<string, string>> = Object.freeze({ ARGON2_MEM_KIB: '8', ARGON2_OPS: '1', SWEEP_INTERVAL_SEC: '1', RECONCILE_INTERVAL_SEC: '604800' })

/** The panel a reseller drives: its admin API URL and a way to add the reseller's panel admin. */
export interface ResellerPanelRef {
  readonly adminUrl: string | null
  cli<T = any>(args: string[], input?: string): Promise<T>
}

/** Options for {@link startReseller}. */
export interface ResellerInit {
  /** The panel: a panel admin `reseller` is added with `arus-panel add-admin`. Omit for a reseller without a panel. */
  panel?: ResellerPanelRef
  /**
   * PANEL_ADMIN_URL when it is not the panel's current adminUrl (a fixed port the panel keeps
   * across restarts); `null` leaves it unset, so the reseller uses its default.
   */
  panelUrl?: string | null
  /** The root admin, seeded with `arus-reseller create-admin`. */
  root?: HttpLogin
  env?: Record<string, string>
  dataDir?: string
  testEnv?: boolean
  logs?: string
  readyTimeoutMs?: number
  signal?: AbortSignal
}

/** A reseller started by {@link startReseller}. */
export interface ResellerHandle {
  readonly env: Record<string, string>
  readonly dataDir: string
  readonly root: HttpLogin
  readonly url: string | null
  readonly proc: SpawnedProcess | null
  /** API call as the root admin; the JSON body. @throws on non-2xx. */
  api<T = any>(method: string, path: string, body?: unknown, opts?: HttpCallOptions): Promise<T>
  call<T = any>(method: string, path: string, body?: unknown, opts?: HttpCallOptions): Promise<HttpReply<T>>
  /** A client logged in as another principal (logs in lazily). */
  as(login: HttpLogin): HttpClient
  /** One `arus-reseller --json <args>` command. */
  cli<T = any>(args: string[], input?: string): Promise<T>
  start(): Promise<void>
  stop(): Promise<void>
  close(): Promise<void>
}

/**
 * Adds the reseller's panel admin (when a panel is given), seeds the root admin, starts
 * `arus-reseller run` (CONTROL_PORT=0) and waits for `reseller.ready`. Torn down with `t`, by
 * `close()` or by `cleanupAll()`.
 */
export async function startReseller (t: TestContextLike | undefined, init: ResellerInit = {}): Promise<ResellerHandle> {
  const root = init.root ?? { name: 'root', password: secret() }
  const owned = init.dataDir === undefined ? ownedTmpDir(t, 'arus-res-') : null
  const dataDir = init.dataDir ?? owned!.dir
  let env: Record<string, string> = {}
  const slot = createDaemonSlot('reseller', (bound) => spawnResellerDaemon(undefined, env, { ...daemonInit(init, 'reseller'), signal: bound }), root)
  const close = registerTeardown(t, async () => { try { await slot.stop() } finally { await owned?.remove() } })
  try {
    init.signal?.throwIfAborted()
    const panelPass = secret()
    if (init.panel) await init.panel.cli(['add-admin', 'reseller'], `${panelPass}\n`)
    const panelUrl = init.panelUrl === undefined ? init.panel?.adminUrl ?? 'http://127.0.0.1:9' : init.panelUrl
    env = {
      DATA_DIR: dataDir,
      ...(panelUrl !== null ? { PANEL_ADMIN_URL: panelUrl } : {}),
      PANEL_ADMIN_USER: 'reseller',
      ...(init.panel ? { PANEL_ADMIN_PASS: panelPass } : {}),
      LOG_FORMAT: 'json',
      ...(init.testEnv ?? true ? RESELLER_TEST_ENV : {}),
      CONTROL_PORT: '0',
      ...init.env
    }
    const seeded = await runBin(ARUS_BINS.reseller, ['create-admin', root.name], { env, input: `${root.password}\n`, signal: init.signal })
    if (seeded.code !== 0) throw new Error(`arus-reseller create-admin exited ${seeded.code ?? seeded.signal}: ${seeded.stderr.trim()}`)
    await slot.start(init.signal)
    return {
      env,
      dataDir,
      root,
      get url () { return slot.url },
      get proc () { return slot.proc },
      api: (method, path, body, opts) => slot.client().api(method, path, body, opts),
      call: (method, path, body, opts) => slot.client().call(method, path, body, opts),
      as (login) {
        if (slot.url === null) throw new Error('the reseller is not running')
        return createHttpClient(slot.url, { login })
      },
      cli: async (args, input) => {
        const r = await runBin(ARUS_BINS.reseller, ['--json', ...args], { env, input: input ?? '' })
        if (r.code !== 0) throw new Error(`arus-reseller ${args.join(' ')} exited ${r.code ?? r.signal}: ${r.stderr.trim()}`)
        return JSON.parse(r.stdout)
      },
      start: () => slot.start(),
      stop: () => slot.stop(),
      close
    }
  } catch (err) {
    await close()
    throw init.signal?.aborted === true ? init.signal.reason : err
  }
}
