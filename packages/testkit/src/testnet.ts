import { closeAll, createSwarm as createSwarmOver, formatBootstrap, startLocalTestnet } from '@arus/swarm'
import type { BootstrapNode, SwarmInit } from '@arus/swarm'
import type Hyperswarm from 'hyperswarm'
import { registerTeardown } from './teardown.js'
import type { TestContextLike } from './teardown.js'
import { TestkitError } from './errors.js'

/** Options for {@link createTestnet}. */
export interface TestnetInit {
  /** Number of DHT nodes. Default 3. */
  size?: number
}

/** A local DHT on 127.0.0.1 and the swarms built on it. */
export interface Testnet {
  bootstrap: BootstrapNode[]
  /** `'127.0.0.1:port'`, the `BOOTSTRAP` value for a daemon process. */
  bootstrapString: string
  /** `@arus/swarm` `createSwarm` with this bootstrap (so loopback, `firewalled: false`); destroyed with the testnet. */
  createSwarm(init?: Omit<SwarmInit, 'bootstrap'>): Hyperswarm
  /** Destroys the swarms it created, then the DHT nodes. Idempotent. */
  destroy(): Promise<void>
}

/**
 * Starts a local DHT testnet on 127.0.0.1 (`@arus/swarm` `startLocalTestnet`), torn down
 * when the test finishes (with `t`) or by `destroy()` / `cleanupAll()`.
 */
export async function createTestnet (t?: TestContextLike, init: TestnetInit = {}): Promise<Testnet> {
  const size = init.size ?? 3
  if (!Number.isInteger(size) || size < 1) throw TestkitError.badOption('size', 'must be a positive integer')
  const local = await startLocalTestnet({ host: '127.0.0.1', size })
  const swarms: Hyperswarm[] = []
  let destroyed = false
  const destroy = registerTeardown(t, async () => {
    destroyed = true
    try {
      await closeAll(...swarms)
    } finally {
      await local.destroy()
    }
  })
  return {
    bootstrap: local.bootstrap.map((node) => ({ ...node })),
    bootstrapString: formatBootstrap(local.bootstrap),
    createSwarm (swarmInit = {}) {
      if (destroyed) throw TestkitError.badOption('testnet', 'already destroyed')
      const swarm = createSwarmOver({ ...swarmInit, bootstrap: local.bootstrap })
      swarms.push(swarm)
      return swarm
    },
    destroy
  }
}
