import HyperDHT from 'hyperdht'
import type { BootstrapNode } from './bootstrap.js'
import { isLoopbackHost } from './bootstrap.js'
import { LOOPBACK_HOST } from './constants.js'

/** Options for {@link startLocalTestnet}. */
export interface LocalTestnetInit {
  /** Address advertised to peers (and bound, when loopback). Default `127.0.0.1`. */
  host?: string
  /** UDP port of the first (bootstrap) node; `0` picks a free one. Default `0`. */
  port?: number
  /** Number of DHT nodes, bootstrap node included. Default 3. */
  size?: number
  /**
   * One node per address, each bound to exactly that address (and `port`, or a free one),
   * the first being the bootstrap node; `host` and `size` are then ignored. A network lab
   * needs its DHT nodes on distinct addresses: a NATed node learns its outside address from
   * what several nodes report, and checks its firewall by asking several nodes to ping it.
   */
  hosts?: readonly string[]
}

/** A running local DHT. */
export interface LocalTestnet {
  /** The bootstrap list peers pass as `BOOTSTRAP` (the first node only). */
  bootstrap: BootstrapNode[]
  nodes: HyperDHT[]
  destroy(): Promise<void>
}

/**
 * Starts a small private DHT: a persistent, unfirewalled bootstrap node on exactly
 * `host:port` (no silent fallback to another port) plus `size - 1` nodes that join through
 * it, so lookups and announces have enough nodes to land on. A loopback host binds
 * loopback; any other host binds 0.0.0.0 and is only advertised.
 */
export async function startLocalTestnet (init: LocalTestnetInit = {}): Promise<LocalTestnet> {
  if (init.hosts !== undefined) return startSpread(init.hosts, init.port ?? 0)
  const host = init.host ?? LOOPBACK_HOST
  const size = init.size ?? 3
  const bindHost = isLoopbackHost(host) ? LOOPBACK_HOST : '0.0.0.0'
  const nodes: HyperDHT[] = []
  const destroy = async (): Promise<void> => {
    for (const node of [...nodes].reverse()) await node.destroy()
  }
  try {
    // port 0 must be passed as a range: hyperdht turns a falsy port into its default 49737.
    const port = init.port === undefined || init.port === 0 ? [0, 0] : init.port
    const first = new HyperDHT({ bootstrap: [], host: bindHost, port: port as number, anyPort: false, ephemeral: false, firewalled: false })
    nodes.push(first)
    await first.fullyBootstrapped()
    const bootstrap = [{ host, port: first.address().port }]
    while (nodes.length < size) {
      const node = new HyperDHT({ bootstrap, host: bindHost, ephemeral: false, firewalled: false })
      nodes.push(node)
      await node.fullyBootstrapped()
    }
    return { bootstrap, nodes, destroy }
  } catch (err) {
    await destroy().catch(() => {})
    throw err
  }
}

/** {@link startLocalTestnet} with `hosts`: node i binds hosts[i] exactly. */
async function startSpread (hosts: readonly string[], port: number): Promise<LocalTestnet> {
  if (hosts.length === 0) throw new TypeError('hosts must name at least one address')
  const nodes: HyperDHT[] = []
  const destroy = async (): Promise<void> => {
    for (const node of [...nodes].reverse()) await node.destroy()
  }
  try {
    const bind = port === 0 ? [0, 0] : port
    let bootstrap: BootstrapNode[] = []
    for (const host of hosts) {
      const node = new HyperDHT({ bootstrap, host, port: bind as number, anyPort: false, ephemeral: false, firewalled: false })
      nodes.push(node)
      await node.fullyBootstrapped()
      if (bootstrap.length === 0) bootstrap = [{ host, port: node.address().port }]
    }
    return { bootstrap, nodes, destroy }
  } catch (err) {
    await destroy().catch(() => {})
    throw err
  }
}
