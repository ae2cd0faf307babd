import { randomBytes } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { ARUS_BINS, runBinJson, spawnPanelDaemon } from './daemons.js'
import type { DaemonInit } from './daemons.js'
import { TestkitError } from './errors.js'
import { createHttpClient } from './http-client.js'
import type { HttpClient, HttpLogin, HttpReply } from './http-client.js'
import type { SpawnedProcess } from './process.js'
import { registerTeardown } from './teardown.js'
import type { TestContextLike } from './teardown.js'
import type { Testnet } from './testnet.js'
import { ownedTmpDir } from './tmp.js'

/** Cheap Argon2id and proof of work: a test login costs milliseconds. */
export const PANEL_TEST_ENV: Readonly<Record<string, string>> = { ARGON2_MEM_KIB: '8', ARGON2_OPS: '1', POW_DIFFICULTY: '4' }

/** Options for {@link startPanel}. */
export interface PanelInit {
  /** The DHT: a {@link Testnet} or its `BOOTSTRAP` string. */
  testnet: Testnet | string
  /** Extra environment, over the helper's defaults. */
  env?: Record<string, string>
  /** Data directory, kept afterwards. Default: a temp dir removed on teardown. */
  dataDir?: string
  /** The admin created with `add-admin`. Default `admin` with a generated password. */
  admin?: HttpLogin
  /** Viewer accounts created with `create-user` before the panel runs. */
  users?: HttpLogin[]
  /** Serve the admin API (`ADMIN_ENABLED=1`, `ADMIN_PORT=0`). Default true. */
  adminApi?: boolean
  /** Apply {@link PANEL_TEST_ENV}. Default true; false keeps the daemon's own costs. */
  testCosts?: boolean
  /** Tee the daemon's stdout and stderr to `<logs>/panel.log`. */
  logs?: string
  /** Run the daemon now. Default true; false prepares the data dir only (call `start()`). */
  start?: boolean
  /** Bound on each ready line. Default 30000 ms. */
  readyTimeoutMs?: number
  /** Checked between the set-up steps: an abort ends the start-up (and tears down what it made). */
  signal?: AbortSignal
}

/** A panel set up by {@link startPanel}. */
export interface PanelHandle {
  readonly env: Record<string, string>
  readonly dataDir: string
  readonly panelKey: string
  readonly bootstrap: string
  readonly admin: HttpLogin
  /** The admin API base URL while running with the admin API, else `null`. */
  readonly adminUrl: string | null
  /** The running `arus-panel run` process, else `null`. */
  readonly proc: SpawnedProcess | null
  /**
   * One `arus-panel --json <args>` command; resolves its parsed output. Registry commands
   * (admins, publishers) work beside the running daemon; store commands need it stopped.
   * @throws Error with stderr on a non-zero exit.
   */
  cli<T = any>(args: string[], input?: string): Promise<T>
  /** `add-publisher <name> --scopes <scopes>`; resolves the enrollment (with `secretKey`). */
  addPublisher(name: string, scopes?: string): Promise<{ name: string; secretKey: string }>
  /** Admin API call as the admin (logged in lazily); the JSON body. @throws Error with status and body on non-2xx. */
  api<T = any>(method: string, path: string, body?: unknown, contentType?: string): Promise<T>
  /** Admin API call as the admin; never throws on the status. */
  call<T = any>(method: string, path: string, body?: unknown, contentType?: string): Promise<HttpReply<T>>
  /** Starts `arus-panel run` on the same data dir (no-op while running). */
  start(): Promise<void>
  /** Stops the daemon (SIGTERM, SIGKILL after 15 s); `start()` runs it again. */
  stop(): Promise<void>
  /** Stops the daemon and removes the temp data dir (not a given one); the teardown. */
  close(): Promise<void>
}

const secret = (): string => randomBytes(9).toString('base64url')

/**
 * Sets up a panel with the CLI (`init`, `add-admin`, `create-user` as one-shot processes),
 * then starts `arus-panel run` as a separate process and waits for `panel.ready` (and
 * `admin.listening`). Torn down with `t`, by `close()` or by `cleanupAll()`; a failed
 * start-up tears down what it made before it throws.
 */
export async function startPanel (t: TestContextLike | undefined, init: PanelInit): Promise<PanelHandle> {
  const bootstrap = typeof init.testnet === 'string' ? init.testnet : init.testnet.bootstrapString
  const owned = init.dataDir === undefined ? ownedTmpDir(t, 'arus-panel-') : null
  const dataDir = init.dataDir ?? owned!.dir
  const adminApi = init.adminApi ?? true
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    BOOTSTRAP: bootstrap,
    LOG_FORMAT: 'json',
    ...(init.testCosts ?? true ? PANEL_TEST_ENV : {}),
    ...(adminApi ? { ADMIN_ENABLED: '1', ADMIN_PORT: '0' } : {}),
    ...init.env
  }
  const admin = init.admin ?? { name: 'admin', password: secret() }
  const daemonInit: DaemonInit = { readyTimeoutMs: init.readyTimeoutMs ?? 30_000 }
  if (init.logs !== undefined) {
    mkdirSync(init.logs, { recursive: true, mode: 0o700 })
    daemonInit.logFile = join(init.logs, 'panel.log')
  }
  const cli = <T>(args: string[], input?: string): Promise<T> => runBinJson<T>(ARUS_BINS.panel, args, { env, input: input ?? '' })

  let proc: SpawnedProcess | null = null
  let http: HttpClient | null = null
  const stop = async (): Promise<void> => {
    const running = proc
    proc = null
    http = null
    await running?.stop('SIGTERM', 15_000)
  }
  const close = registerTeardown(t, async () => { try { await stop() } finally { await owned?.remove() } })
  const client = (): HttpClient => {
    if (http === null) throw TestkitError.badOption('panel', adminApi ? 'not running' : 'started without the admin API')
    return http
  }
  const start = async (): Promise<void> => {
    if (proc !== null) return
    const daemon = await spawnPanelDaemon(undefined, env, { ...daemonInit, admin: adminApi })
    proc = daemon.proc
    http = daemon.url === null ? null : createHttpClient(daemon.url, { login: admin })
  }

  try {
    init.signal?.throwIfAborted()
    const { panelKey } = await cli<{ panelKey: string }>(['init'])
    await cli(['add-admin', admin.name], `${admin.password}\n`)
    for (const user of init.users ?? []) await cli(['create-user', user.name], `${user.password}\n`)
    init.signal?.throwIfAborted()
    if (init.start ?? true) await start()
    return {
      env,
      dataDir,
      panelKey,
      bootstrap,
      admin,
      get adminUrl () { return http?.url ?? null },
      get proc () { return proc },
      cli,
      addPublisher: (name, scopes = '*') => cli(['add-publisher', name, '--scopes', scopes]),
      api: (method, path, body, contentType) => client().api(method, path, body, contentType),
      call: (method, path, body, contentType) => client().call(method, path, body, contentType),
      start,
      stop,
      close
    }
  } catch (err) {
    await close()
    throw err
  }
}
