import { ARUS_BINS, daemonInit, runBin, secret, spawnLibraryDaemon } from './daemons.js'
import { createDaemonSlot } from './daemon-slot.js'
import type { PanelRef } from './broadcaster.js'
import type { HttpCallOptions, HttpLogin, HttpReply } from './http-client.js'
import type { SpawnedProcess } from './process.js'
import { registerTeardown } from './teardown.js'
import type { TestContextLike } from './teardown.js'
import { ownedTmpDir } from './tmp.js'
import { waitFor } from './wait.js'

/** Cheap Argon2id and 1 s segments (tests' titles are seconds long). */
export const LIBRARY_TEST_ENV: Readonly<Record<string, string>> = Object.freeze({ ARGON2_MEM_KIB: '8', ARGON2_OPS: '1', HLS_TIME: '1' })

/** Options for {@link startLibrary}. */
export interface LibraryInit {
  /** The panel it registers with; omit for a library without a panel. */
  panel?: PanelRef
  /** Its publisher's name. Default `library`. */
  name?: string
  /** Stream id globs the publisher may register. Default `*`. */
  scopes?: string
  operator?: HttpLogin
  env?: Record<string, string>
  dataDir?: string
  testEnv?: boolean
  /** Tee the daemon's output to `<logs>/library.log`. */
  logs?: string
  /** BOOTSTRAP when there is no panel. */
  bootstrap?: string
  readyTimeoutMs?: number
  signal?: AbortSignal
}

/** A library started by {@link startLibrary}. */
export interface LibraryHandle {
  readonly env: Record<string, string>
  readonly dataDir: string
  readonly publisher: { name: string; scopes: string; secretKey: string } | null
  readonly operator: HttpLogin
  readonly controlUrl: string | null
  readonly proc: SpawnedProcess | null
  api<T = any>(method: string, path: string, body?: unknown, opts?: HttpCallOptions): Promise<T>
  call<T = any>(method: string, path: string, body?: unknown, opts?: HttpCallOptions): Promise<HttpReply<T>>
  /** Waits until the title reaches `state` (default `ready`; `registered` too when a panel is linked); resolves its view. */
  waitTitle(id: string, opts?: { state?: string; registered?: boolean; timeoutMs?: number }): Promise<any>
  /** One `arus-library --json <args>` command; resolves its parsed output. */
  cli<T = any>(args: string[], input?: string): Promise<T>
  start(): Promise<void>
  stop(): Promise<void>
  close(): Promise<void>
}

/**
 * Enrolls the library's publisher through the panel (when given), creates the control
 * operator, starts `arus-library run` (CONTROL_PORT=0) and waits for `library.ready`. Torn
 * down with `t`, by `close()` or by `cleanupAll()`.
 */
export async function startLibrary (t: TestContextLike | undefined, init: LibraryInit): Promise<LibraryHandle> {
  const name = init.name ?? 'library'
  const scopes = init.scopes ?? '*'
  const operator = init.operator ?? { name: 'op', password: secret() }
  const owned = init.dataDir === undefined ? ownedTmpDir(t, 'arus-lib-') : null
  const dataDir = init.dataDir ?? owned!.dir
  let env: Record<string, string> = {}
  const slot = createDaemonSlot('library', (bound) => spawnLibraryDaemon(undefined, env, { ...daemonInit(init, 'library'), signal: bound }), operator)
  const close = registerTeardown(t, async () => { try { await slot.stop() } finally { await owned?.remove() } })
  try {
    init.signal?.throwIfAborted()
    const publisher = init.panel ? { name, scopes, secretKey: (await init.panel.addPublisher(name, scopes)).secretKey } : null
    env = {
      DATA_DIR: dataDir,
      BOOTSTRAP: init.panel?.bootstrap ?? init.bootstrap ?? '',
      ...(init.panel && publisher ? { PANEL_PUBKEY: init.panel.panelKey, PUBLISHER_KEY: publisher.secretKey, PUBLISHER_NAME: name } : {}),
      LOG_FORMAT: 'json',
      ...(init.testEnv ?? true ? LIBRARY_TEST_ENV : {}),
      CONTROL_ENABLED: '1',
      CONTROL_PORT: '0',
      ...init.env
    }
    const added = await runBin(ARUS_BINS.library, ['add-admin', operator.name], { env, input: `${operator.password}\n`, signal: init.signal })
    if (added.code !== 0) throw new Error(`arus-library add-admin exited ${added.code ?? added.signal}: ${added.stderr.trim()}`)
    await slot.start(init.signal)
    const handle: LibraryHandle = {
      env,
      dataDir,
      publisher,
      operator,
      get controlUrl () { return slot.url },
      get proc () { return slot.proc },
      api: (method, path, body, opts) => slot.client().api(method, path, body, opts),
      call: (method, path, body, opts) => slot.client().call(method, path, body, opts),
      async waitTitle (id, opts = {}) {
        const state = opts.state ?? 'ready'
        const registered = opts.registered ?? (init.panel !== undefined && state === 'ready')
        let view: any
        let failed = false
        await waitFor(async () => {
          view = await handle.api('GET', `/api/titles/${id}`)
          // A failed title ends the wait at once (waitFor would treat a throw as "not yet").
          failed = state !== 'error' && view.state === 'error'
          return failed || (view.state === state && (!registered || view.registered === true))
        }, { timeoutMs: opts.timeoutMs ?? 120_000, intervalMs: 200, message: `title ${id} ${state}` })
        if (failed) throw new Error(`title ${id} failed: ${String(view.error)}`)
        return view
      },
      cli: async (args, input) => {
        const r = await runBin(ARUS_BINS.library, ['--json', ...args], { env, input: input ?? '' })
        if (r.code !== 0) throw new Error(`arus-library ${args.join(' ')} exited ${r.code ?? r.signal}: ${r.stderr.trim()}`)
        return JSON.parse(r.stdout)
      },
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
