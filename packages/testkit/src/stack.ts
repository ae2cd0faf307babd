import { startBroadcaster } from './broadcaster.js'
import type { BroadcasterHandle, BroadcasterInit } from './broadcaster.js'
import { daemonInit, spawnTestnetDaemon } from './daemons.js'
import { TestkitError } from './errors.js'
import { startPanel } from './panel.js'
import type { PanelHandle, PanelInit } from './panel.js'
import type { SpawnedProcess } from './process.js'
import { registerTeardown } from './teardown.js'
import type { TestContextLike } from './teardown.js'
import { createTestnet } from './testnet.js'
import type { Testnet } from './testnet.js'

/** A broadcaster of a stack: {@link BroadcasterInit} without what the stack supplies. */
export type StackBroadcasterInit = Omit<BroadcasterInit, 'panel' | 'logs' | 'signal'>

/** Options for {@link createStack}. */
export interface StackInit {
  /**
   * The DHT: a given {@link Testnet} (not destroyed with the stack); `'local'` (default) a
   * fresh `createTestnet` in this process; `'process'` an `arus-testnet` child process.
   */
  testnet?: Testnet | 'local' | 'process'
  /** A `BOOTSTRAP` of a DHT already running; no testnet is made (`testnet` is ignored). */
  bootstrap?: string
  /** The panel's options (see {@link PanelInit}). */
  panel?: Omit<PanelInit, 'testnet' | 'logs' | 'signal'>
  /** How many broadcasters to start (default 0), or the options of each. */
  broadcasters?: number | StackBroadcasterInit[]
  /** A directory (created) for every daemon's log: `testnet.log`, `panel.log`, `broadcaster-<name>.log`. */
  logs?: string
  /** Ends the start-up: what it made is torn down and the call rejects with the signal's reason. */
  signal?: AbortSignal
}

/** A testnet, a panel and broadcasters, made by {@link createStack}. */
export interface Stack {
  /** The in-process testnet, or `null` (`'process'` or a given `bootstrap`). */
  readonly testnet: Testnet | null
  /** The `arus-testnet` process with `testnet: 'process'`, else `null`. */
  readonly testnetProc: SpawnedProcess | null
  /** The `BOOTSTRAP` value every daemon uses. */
  readonly bootstrap: string
  readonly panel: PanelHandle
  /** In start order, those of {@link addBroadcaster} included. */
  readonly broadcasters: BroadcasterHandle[]
  /** Starts one more broadcaster enrolled with this panel, torn down with the stack. */
  addBroadcaster(init?: StackBroadcasterInit): Promise<BroadcasterHandle>
  /**
   * Tears everything down, newest first (broadcasters, panel, testnet); every step runs
   * even if one fails. Idempotent. @throws TestkitError `TESTKIT_CLEANUP_FAILED`.
   */
  close(): Promise<void>
}

/**
 * Starts a testnet (or uses a given one), a panel and N broadcasters, each with its own
 * publisher. Torn down with `t`, by `close()` or by `cleanupAll()`; a failed or aborted
 * start-up tears down what it made before it throws.
 */
export async function createStack (t: TestContextLike | undefined, init: StackInit = {}): Promise<Stack> {
  const broadcasters: BroadcasterHandle[] = []
  let panel: PanelHandle | null = null
  let testnet: Testnet | null = null
  let testnetProc: SpawnedProcess | null = null
  const ownTestnet = typeof init.testnet !== 'object'
  const close = registerTeardown(t, async () => {
    const errors: unknown[] = []
    const step = async (fn: () => Promise<unknown> | undefined): Promise<void> => { try { await fn() } catch (err) { errors.push(err) } }
    for (const b of [...broadcasters].reverse()) await step(() => b.close())
    await step(() => panel?.close())
    await step(() => testnetProc?.stop('SIGTERM', 10_000))
    if (ownTestnet) await step(() => testnet?.destroy())
    if (errors.length > 0) throw TestkitError.cleanupFailed(errors)
  })
  const shared = { logs: init.logs, signal: init.signal }

  try {
    init.signal?.throwIfAborted()
    let bootstrap = init.bootstrap
    if (bootstrap === undefined && init.testnet === 'process') {
      const daemon = await spawnTestnetDaemon(undefined, { ...daemonInit(init, 'testnet'), signal: init.signal })
      testnetProc = daemon.proc
      bootstrap = daemon.bootstrap
    } else if (bootstrap === undefined) {
      testnet = typeof init.testnet === 'object' ? init.testnet : await createTestnet(undefined)
      bootstrap = testnet.bootstrapString
    }
    const startedPanel = await startPanel(undefined, { ...init.panel, testnet: bootstrap, ...shared })
    panel = startedPanel
    const addBroadcaster = async (b: StackBroadcasterInit = {}, signal?: AbortSignal): Promise<BroadcasterHandle> => {
      const handle = await startBroadcaster(undefined, { ...b, panel: startedPanel, logs: init.logs, signal })
      broadcasters.push(handle)
      return handle
    }
    const specs = typeof init.broadcasters === 'number' ? Array.from({ length: init.broadcasters }, () => ({})) : init.broadcasters ?? []
    for (const spec of specs) await addBroadcaster(spec, init.signal)
    return {
      testnet,
      testnetProc,
      bootstrap,
      panel: startedPanel,
      broadcasters,
      addBroadcaster: (b) => addBroadcaster(b),
      close
    }
  } catch (err) {
    await close().catch(() => {})
    throw init.signal?.aborted === true ? init.signal.reason : err
  }
}
