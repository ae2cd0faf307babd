import { ARUS_BINS, daemonInit, runBinJson, secret, spawnPanelDaemon } from './daemons.js'
import { createDaemonSlot } from './daemon-slot.js'
import type { HttpCallOptions, HttpLogin, HttpReply } from './http-client.js'
import type { SpawnedProcess } from './process.js'
import { registerTeardown } from './teardown.js'
import type { TestContextLike } from './teardown.js'
import type { Testnet } from './testnet.js'
import { ownedTmpDir } from './tmp.js'

/** Cheap Argon2id and proof of work: a test login costs milliseconds. */
export const PANEL_TEST_ENV: Readonly<Record<string, string>> = Object.freeze({ ARGON2_MEM_KIB: '8', ARGON2_OPS: '1', POW_DIFFICULTY: '4' })

/** Options for {@link startPanel}. */
export interface PanelInit {
  /** The DHT: a {@link Testnet} or its `BOOTSTRAP` string. */
  testnet: Testnet | string
  /** Extra environment, over the helper's defaults. */
  env?: Record<string, string>
  /** Data directory, kept afterwards. Default: a temp dir removed on teardown. */
  dataDir?: string
  /** `dataDir` already holds a panel (`init` was run there, e.g. a committed fixture) whose key is this: no `init`. */
  existingPanelKey?: string
  /** The admin created with `add-admin`. Default `admin` with a generated password. */
  admin?: HttpLogin
  /** Viewer accounts created with `create-user` before the panel runs. */
  users?: HttpLogin[]
  /** Serve the admin API (`ADMIN_ENABLED=1`, `ADMIN_PORT=0`). Default true. */
  adminApi?: boolean
  /** Apply {@link PANEL_TEST_ENV}. Default true; false keeps the daemon's own costs. */
  testEnv?: boolean
  /** Tee the daemon's stdout and stderr to `<logs>/panel.log` (the directory is created). */
  logs?: string
  /** Run the daemon now. Default true; false prepares the data dir only (call `start()`). */
  start?: boolean
  /** Bound on each ready line. Default 30000 ms. */
  readyTimeoutMs?: number
  /** Ends the start-up: what it made is torn down and the call rejects with the signal's reason. */
  signal?: AbortSignal
  /** Runs the daemon and its commands inside this network namespace (`@arus/lab`); needs `exposeUrl` for the admin API. */
  netns?: string
  /** Maps the admin API's URL inside `netns` to one this process reaches (a lab's `expose`). */
  exposeUrl?: (url: string) => Promise<string>
}

/** A panel set up by {@link startPanel}. */
export interface PanelHandle {
  /** The environment of every command and of the daemon (`DATA_DIR`, `BOOTSTRAP`, …). */
  readonly env: Record<string, string>
  readonly dataDir: string
  /** The panel public key (hex) from `init`. */
  readonly panelKey: string
  /** The `BOOTSTRAP` value. */
  readonly bootstrap: string
  readonly admin: HttpLogin
  /** The admin API base URL while running with the admin API, else `null`. */
  readonly adminUrl: string | null
  /** The running `arus-panel run` process, else `null`. */
  readonly proc: SpawnedProcess | null
  /**
   * One `arus-panel --json <args>` command (stdin `input`); resolves its parsed output.
   * Registry commands (admins, publishers) work beside the running daemon; store commands
   * (users, streams) need it stopped.
   * @throws Error with stderr when it does not exit 0.
   */
  cli<T = any>(args: string[], input?: string): Promise<T>
  /** `add-publisher <name> --scopes <scopes>` (default `*`); resolves the enrollment (with `secretKey`). */
  addPublisher(name: string, scopes?: string): Promise<{ name: string; secretKey: string }>
  /** Admin API call as the admin (logged in lazily); the JSON body. @throws Error with status and body on non-2xx. */
  api<T = any>(method: string, path: string, body?: unknown, opts?: HttpCallOptions): Promise<T>
  /** Admin API call as the admin; never throws on the status. */
  call<T = any>(method: string, path: string, body?: unknown, opts?: HttpCallOptions): Promise<HttpReply<T>>
  /** Starts `arus-panel run` on the same data dir (no-op while running or starting). */
  start(): Promise<void>
  /** Stops the daemon (SIGTERM, SIGKILL after 15 s); `start()` runs it again. */
  stop(): Promise<void>
  /** Stops the daemon and removes the temp data dir (not a given one); the teardown. */
  close(): Promise<void>
}

/**
 * Sets up a panel with the CLI (`init`, `add-admin`, `create-user` as one-shot processes),
 * then starts `arus-panel run` as a separate process and waits for `panel.ready` (and
 * `admin.listening`). Torn down with `t`, by `close()` or by `cleanupAll()`; a failed or
 * aborted start-up tears down what it made before it throws.
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
    ...(init.testEnv ?? true ? PANEL_TEST_ENV : {}),
    ...(adminApi ? { ADMIN_ENABLED: '1', ADMIN_PORT: '0' } : {}),
    ...init.env
  }
  const admin = init.admin ?? { name: 'admin', password: secret() }
  const place = { ...(init.netns === undefined ? {} : { netns: init.netns }), ...(init.exposeUrl === undefined ? {} : { exposeUrl: init.exposeUrl }) }
  const where = init.netns === undefined ? {} : { netns: init.netns }
  const cli = <T>(args: string[], input?: string): Promise<T> =>
    runBinJson<T>(ARUS_BINS.panel, args, { env, input: input ?? '', signal: init.signal, ...where })

  const slot = createDaemonSlot('panel', (bound) =>
    spawnPanelDaemon(undefined, env, { ...daemonInit(init, 'panel'), signal: bound, admin: adminApi, ...place }), admin)
  const close = registerTeardown(t, async () => { try { await slot.stop() } finally { await owned?.remove() } })

  try {
    init.signal?.throwIfAborted()
    const panelKey = init.existingPanelKey ?? (await cli<{ panelKey: string }>(['init'])).panelKey
    await cli(['add-admin', admin.name], `${admin.password}\n`)
    for (const user of init.users ?? []) await cli(['create-user', user.name], `${user.password}\n`)
    // Only this first start-up is bound to init.signal: a later start() is the caller's own.
    if (init.start ?? true) await slot.start(init.signal)
    return {
      env,
      dataDir,
      panelKey,
      bootstrap,
      admin,
      get adminUrl () { return slot.url },
      get proc () { return slot.proc },
      cli: (args, input) => runBinJson(ARUS_BINS.panel, args, { env, input: input ?? '', ...where }),
      addPublisher: (name, scopes = '*') => runBinJson(ARUS_BINS.panel, ['add-publisher', name, '--scopes', scopes], { env, ...where }),
      api: (method, path, body, opts) => slot.client().api(method, path, body, opts),
      call: (method, path, body, opts) => slot.client().call(method, path, body, opts),
      start: () => slot.start(),
      stop: () => slot.stop(),
      close
    }
  } catch (err) {
    await close()
    throw init.signal?.aborted === true ? init.signal.reason : err
  }
}
