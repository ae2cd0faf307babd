import { startBroadcaster } from './broadcaster.js'
import type { BroadcasterHandle, BroadcasterInit } from './broadcaster.js'
import { spawnTestnetDaemon } from './daemons.js'
import { startPanel } from './panel.js'
import type { PanelHandle, PanelInit } from './panel.js'
import type { SpawnedProcess } from './process.js'
import { registerTeardown } from './teardown.js'
import type { TestContextLike } from './teardown.js'
import { createTestnet } from './testnet.js'
import type { Testnet } from './testnet.js'
import { join } from 'node:path'

/** A broadcaster of a stack: {@link BroadcasterInit} without what the stack supplies. */
export type StackBroadcasterInit = Omit<BroadcasterInit, 'panel' | 'logs' | 'signal'>

/** Options for {@link createStack}. */
export interface StackInit {
  /**
   * The DHT: a given {@link Testnet}; `'local'` (default) a fresh `createTestnet` in this
   * process; `'process'` an `arus-testnet` child process (logged to `<logs>/testnet.log`).
   */
  testnet?: Testnet | 'local' | 'process'
  /** A `BOOTSTRAP` of a DHT already running; no testnet is made. */
  bootstrap?: string
  panel?: Omit<PanelInit, 'testnet' | 'logs' | 'signal'>
  /** How many broadcasters to start (default 0), or the options of each. */
  broadcasters?: number | StackBroadcasterInit[]
  /** A directory for every daemon's log (`panel.log`, `broadcaster-<name>.log`, `testnet.log`). */
  logs?: string
  /** Checked between the start-up steps: an abort ends the start-up and tears down what it made. */
  signal?: AbortSignal
}

/** A testnet, a panel and broadcasters, made by {@link createStack}. */
export interface Stack {
  /** The in-process testnet, or `null` (`'process'` or a given `bootstrap`). */
  testnet: Testnet | null
  /** The `arus-testnet` process with `testnet: 'process'`, else `null`. */
  testnetProc: SpawnedProcess | null
  /** The `BOOTSTRAP` value every daemon uses. */
  bootstrap: string
  panel: PanelHandle
  /** In start order. */
  broadcasters: BroadcasterHandle[]
  /** Starts one more broadcaster enrolled with this panel (appended to `broadcasters`). */
  addBroadcaster(init?: StackBroadcasterInit): Promise<BroadcasterHandle>
  /** Tears everything down, newest first (broadcasters, panel, testnet). Idempotent. */
  close(): Promise<void>
}

/**
 * Starts a testnet (or uses a given one), a panel and N broadcasters, each with its own
 * publisher. Torn down with `t`, by `close()` or by `cleanupAll()`, newest first.
 */
export async function createStack (t: TestContextLike | undefined, init: StackInit = {}): Promise<Stack> {
  const broadcasters: BroadcasterHandle[] = []
  let panel: PanelHandle | null = null
  let testnet: Testnet | null = null
  let testnetProc: SpawnedProcess | null = null
  const ownTestnet = init.bootstrap === undefined && (init.testnet === undefined || typeof init.testnet === 'string')
  const close = registerTeardown(t, async () => {
    for (const b of [...broadcasters].reverse()) await b.close()
    await panel?.close()
    await testnetProc?.stop('SIGTERM', 10_000)
    if (ownTestnet) await testnet?.destroy()
  })
  const logs = init.logs === undefined ? {} : { logs: init.logs }
  const signal = init.signal === undefined ? {} : { signal: init.signal }

  try {
    let bootstrap = init.bootstrap
    if (bootstrap === undefined && init.testnet === 'process') {
      const daemon = await spawnTestnetDaemon(undefined, init.logs === undefined ? {} : { logFile: join(init.logs, 'testnet.log') })
      testnetProc = daemon.proc
      bootstrap = daemon.bootstrap
    } else if (bootstrap === undefined) {
      testnet = typeof init.testnet === 'object' ? init.testnet : await createTestnet(undefined)
      bootstrap = testnet.bootstrapString
    }
    init.signal?.throwIfAborted()
    const startedPanel = await startPanel(undefined, { ...init.panel, testnet: bootstrap, ...logs, ...signal })
    panel = startedPanel
    const addBroadcaster = async (b: StackBroadcasterInit = {}): Promise<BroadcasterHandle> => {
      const handle = await startBroadcaster(undefined, { ...b, panel: startedPanel, ...logs, ...signal })
      broadcasters.push(handle)
      return handle
    }
    const specs = typeof init.broadcasters === 'number' ? Array.from({ length: init.broadcasters }, () => ({})) : init.broadcasters ?? []
    for (const spec of specs) await addBroadcaster(spec)
    return { testnet, testnetProc, bootstrap, panel: startedPanel, broadcasters, addBroadcaster, close }
  } catch (err) {
    await close()
    throw err
  }
}
