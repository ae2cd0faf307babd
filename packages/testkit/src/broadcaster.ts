import { ARUS_BINS, daemonInit, runBin, secret, spawnBroadcasterDaemon } from './daemons.js'
import { createDaemonSlot } from './daemon-slot.js'
import type { HttpCallOptions, HttpLogin, HttpReply } from './http-client.js'
import type { SpawnedProcess } from './process.js'
import { registerTeardown } from './teardown.js'
import type { TestContextLike } from './teardown.js'
import { ownedTmpDir } from './tmp.js'
import { waitFor } from './wait.js'

/** Cheap Argon2id, 1 s segments, short watchdog backoffs, unpaced resume. */
export const BROADCASTER_TEST_ENV: Readonly<Record<string, string>> = Object.freeze({
  ARGON2_MEM_KIB: '8',
  ARGON2_OPS: '1',
  HLS_TIME: '1',
  RESPAWN_MIN_MS: '200',
  RESPAWN_MAX_MS: '1000',
  RESUME_PACE: '0'
})

/** The `test` pattern kept light: 320x180, ultrafast, 1 s segments, 4 in the playlist. */
export const LIGHT_CHANNEL = { input: 'test', transcode: { width: 320, height: 180, preset: 'ultrafast' }, hlsTime: 1, hlsListSize: 4 } as const

/** What a broadcaster needs of its panel: a {@link PanelHandle} fits. */
export interface PanelRef {
  panelKey: string
  bootstrap: string
  /** Enrolls a publisher (`arus-panel add-publisher <name> --scopes <scopes>`). */
  addPublisher(name: string, scopes?: string): Promise<{ secretKey: string }>
}

/** Options for {@link startBroadcaster}. */
export interface BroadcasterInit {
  panel: PanelRef
  /** Its publisher's name (also the log file's). Default `site<n>`. */
  name?: string
  /** Stream id globs the publisher may register. Default `*`. */
  scopes?: string
  /** The control API operator, made with `arus-broadcaster add-admin`. Default `op` with a generated password. */
  operator?: HttpLogin
  /** Extra environment, over the helper's defaults. */
  env?: Record<string, string>
  /** Data directory, kept afterwards. Default: a temp dir removed on teardown. */
  dataDir?: string
  /** Apply {@link BROADCASTER_TEST_ENV}. Default true; false keeps the daemon's own defaults. */
  testEnv?: boolean
  /** Tee the daemon's output to `<logs>/broadcaster-<name>.log` (the directory is created). */
  logs?: string
  /** Bound on the ready line. Default 30000 ms. */
  readyTimeoutMs?: number
  /** Ends the start-up: what it made is torn down and the call rejects with the signal's reason. */
  signal?: AbortSignal
  /** Runs the daemon and `add-admin` inside this network namespace (`@arus/lab`); needs `exposeUrl` for the control API. */
  netns?: string
  /** Maps the control API's URL inside `netns` to one this process reaches (a lab's `expose`). */
  exposeUrl?: (url: string) => Promise<string>
}

/** A broadcaster started by {@link startBroadcaster}. */
export interface BroadcasterHandle {
  /** The environment of `add-admin` and of the daemon (`DATA_DIR`, `PANEL_PUBKEY`, `PUBLISHER_KEY`, …). */
  readonly env: Record<string, string>
  readonly dataDir: string
  /** Its publisher's name. */
  readonly name: string
  readonly publisher: { name: string; scopes: string; secretKey: string }
  readonly operator: HttpLogin
  /** The control API base URL while running (a new port at each start), else `null`. */
  readonly controlUrl: string | null
  /** The running `arus-broadcaster run` process, else `null`. */
  readonly proc: SpawnedProcess | null
  /** Control API call as the operator (logged in lazily); the JSON body. @throws Error with status and body on non-2xx. */
  api<T = any>(method: string, path: string, body?: unknown, opts?: HttpCallOptions): Promise<T>
  /** Control API call as the operator; never throws on the status. */
  call<T = any>(method: string, path: string, body?: unknown, opts?: HttpCallOptions): Promise<HttpReply<T>>
  /**
   * Adds and starts a {@link LIGHT_CHANNEL} (`extra` overrides its fields) and waits until
   * the panel has acknowledged its registration; resolves its feedKey.
   */
  channel(id: string, extra?: Record<string, unknown>, opts?: { timeoutMs?: number }): Promise<string>
  /** Sends `sig` to the running daemon: SIGSTOP/SIGCONT freeze and thaw it, SIGKILL ends it abruptly. */
  signal(sig: NodeJS.Signals): void
  /** Starts `arus-broadcaster run` on the same data dir (no-op while running or starting). */
  start(): Promise<void>
  /** Thaws and stops the daemon (SIGTERM, SIGKILL after 15 s); `start()` runs it again. */
  stop(): Promise<void>
  /** Stops the daemon and removes the temp data dir (not a given one); the teardown. */
  close(): Promise<void>
}


let sites = 0

/**
 * Enrolls a publisher through the panel, creates the control operator with `add-admin`,
 * starts `arus-broadcaster run` (control API on a free port: `CONTROL_PORT=0`) and waits for
 * `broadcaster.ready`. Torn down with `t`, by `close()` or by `cleanupAll()`; a failed or
 * aborted start-up tears down what it made before it throws.
 */
export async function startBroadcaster (t: TestContextLike | undefined, init: BroadcasterInit): Promise<BroadcasterHandle> {
  const where = init.netns === undefined ? {} : { netns: init.netns }
  const place = { ...where, ...(init.exposeUrl === undefined ? {} : { exposeUrl: init.exposeUrl }) }
  const name = init.name ?? `site${++sites}`
  const scopes = init.scopes ?? '*'
  const operator = init.operator ?? { name: 'op', password: secret() }
  const owned = init.dataDir === undefined ? ownedTmpDir(t, 'arus-bc-') : null
  const dataDir = init.dataDir ?? owned!.dir
  let env: Record<string, string> = {}
  const slot = createDaemonSlot('broadcaster', (bound) =>
    spawnBroadcasterDaemon(undefined, env, { ...daemonInit(init, `broadcaster-${name}`), signal: bound, ...place }), operator)
  const close = registerTeardown(t, async () => { try { await slot.stop() } finally { await owned?.remove() } })

  try {
    init.signal?.throwIfAborted()
    const { secretKey } = await init.panel.addPublisher(name, scopes)
    env = {
      DATA_DIR: dataDir,
      BOOTSTRAP: init.panel.bootstrap,
      PANEL_PUBKEY: init.panel.panelKey,
      PUBLISHER_KEY: secretKey,
      PUBLISHER_NAME: name,
      LOG_FORMAT: 'json',
      ...(init.testEnv ?? true ? BROADCASTER_TEST_ENV : {}),
      CONTROL_ENABLED: '1',
      CONTROL_PORT: '0',
      ...init.env
    }
    const added = await runBin(ARUS_BINS.broadcaster, ['add-admin', operator.name],
      { env, input: `${operator.password}\n`, signal: init.signal, ...where })
    if (added.code !== 0) throw new Error(`arus-broadcaster add-admin exited ${added.code ?? added.signal}: ${added.stderr.trim()}`)
    // Only this first start-up is bound to init.signal: a later start() is the caller's own.
    await slot.start(init.signal)
    const handle: BroadcasterHandle = {
      env,
      dataDir,
      name,
      publisher: { name, scopes, secretKey },
      operator,
      get controlUrl () { return slot.url },
      get proc () { return slot.proc },
      api: (method, path, body, opts) => slot.client().api(method, path, body, opts),
      call: (method, path, body, opts) => slot.client().call(method, path, body, opts),
      async channel (id, extra = {}, opts = {}) {
        await handle.api('POST', '/api/channels', { id, title: id, ...LIGHT_CHANNEL, ...extra })
        const started = await handle.api<{ feedKey: string }>('POST', `/api/channels/${id}/start`)
        await waitFor(async () => (await handle.api<{ registered?: boolean }>('GET', `/api/channels/${id}`)).registered === true,
          { timeoutMs: opts.timeoutMs ?? 30_000, intervalMs: 200, message: `channel ${id} registered with the panel` })
        return started.feedKey
      },
      signal (sig) { slot.proc?.child.kill(sig) },
      start: () => slot.start(),
      stop: () => slot.stop(),
      close
    }
    return handle
  } catch (err) {
    await close()
    throw init.signal?.aborted === true ? init.signal.reason : err
  }
}
