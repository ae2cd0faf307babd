import b4a from 'b4a'
import Corestore from 'corestore'
import HyperDHT from 'hyperdht'
import Hyperswarm from 'hyperswarm'
import { isLoopbackBootstrap, validateBootstrap } from './bootstrap.js'
import type { BootstrapNode } from './bootstrap.js'
import { DEFAULT_MAX_PEERS, LOOPBACK_HOST, PUBLIC_KEY_BYTES, SECRET_KEY_BYTES } from './constants.js'
import { SwarmError } from './errors.js'

/** Options for {@link createSwarm}. */
export interface SwarmInit {
  /** DHT bootstrap nodes; omitted or `[]` means the public DHT. */
  bootstrap?: BootstrapNode[]
  /** The swarm's Noise key pair (32-byte public, 64-byte secret); random when omitted. */
  keyPair?: { publicKey: Uint8Array; secretKey: Uint8Array }
  /** Connection cap. Default 64. */
  maxPeers?: number
  /** Address the DHT's UDP sockets bind to. Default `127.0.0.1` for a loopback bootstrap list, else hyperdht's `0.0.0.0`. */
  host?: string
  /** Preferred UDP port. Default (also for `0`): hyperdht's 49737, else one of the next few, else a random one. */
  port?: number
  /**
   * Whether this node is reachable only through hole punching. Default `false` for a
   * loopback bootstrap list (required for servers in separate processes, see VERSIONS.md),
   * else left to hyperdht's auto-detection. Set `false` on a host with an open UDP port.
   */
  firewalled?: boolean
  /**
   * DHT nodes known from an earlier run, added to the routing table at start (hyperdht's
   * `nodes`): the first queries start near their targets instead of at the bootstrap nodes.
   */
  nodes?: BootstrapNode[]
}

function toBuffer (bytes: Uint8Array): Buffer {
  return b4a.isBuffer(bytes) ? bytes : b4a.from(bytes)
}

function checkKeyPair (keyPair: NonNullable<SwarmInit['keyPair']>): HyperDHT.KeyPair {
  const { publicKey, secretKey } = keyPair ?? {}
  if (!(publicKey instanceof Uint8Array) || publicKey.byteLength !== PUBLIC_KEY_BYTES) {
    throw SwarmError.badKey('keyPair.publicKey', `expected a ${PUBLIC_KEY_BYTES}-byte Uint8Array`)
  }
  if (!(secretKey instanceof Uint8Array) || secretKey.byteLength !== SECRET_KEY_BYTES) {
    throw SwarmError.badKey('keyPair.secretKey', `expected a ${SECRET_KEY_BYTES}-byte Uint8Array`)
  }
  return { publicKey: toBuffer(publicKey), secretKey: toBuffer(secretKey) }
}

function checkInit (init: SwarmInit): void {
  const { maxPeers, host, port, firewalled } = init
  if (maxPeers !== undefined && !(Number.isInteger(maxPeers) && maxPeers >= 1)) {
    throw SwarmError.badOption('maxPeers', 'must be a positive integer')
  }
  if (host !== undefined && (typeof host !== 'string' || host === '')) {
    throw SwarmError.badOption('host', 'must be a non-empty string')
  }
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) {
    throw SwarmError.badOption('port', 'must be an integer in 0..65535')
  }
  if (firewalled !== undefined && typeof firewalled !== 'boolean') {
    throw SwarmError.badOption('firewalled', 'must be a boolean')
  }
}

/**
 * Builds a Hyperswarm over its own HyperDHT. A loopback bootstrap list implies
 * `host: '127.0.0.1'` and `firewalled: false` (each overridable). The swarm owns the DHT:
 * `swarm.destroy()` destroys both. Every connection gets a no-op `'error'` listener so a
 * peer's reset cannot crash the process; the socket still emits `'close'`.
 * @throws SwarmError `SWARM_BAD_BOOTSTRAP`, `SWARM_BAD_KEY` or `SWARM_BAD_OPTION`.
 */
export function createSwarm (init: SwarmInit = {}): Hyperswarm {
  checkInit(init)
  const bootstrap = validateBootstrap(init.bootstrap ?? [])
  const keyPair = init.keyPair === undefined ? undefined : checkKeyPair(init.keyPair)
  const loopback = isLoopbackBootstrap(bootstrap)

  const dhtOptions: HyperDHT.HyperDHTOptions = {}
  // hyperdht treats any bootstrap array, even an empty one, as "no public nodes".
  if (bootstrap.length > 0) dhtOptions.bootstrap = bootstrap
  const host = init.host ?? (loopback ? LOOPBACK_HOST : undefined)
  if (host !== undefined) dhtOptions.host = host
  if (init.port !== undefined) dhtOptions.port = init.port
  const firewalled = init.firewalled ?? (loopback ? false : undefined)
  if (firewalled !== undefined) dhtOptions.firewalled = firewalled
  if (init.nodes !== undefined && init.nodes.length > 0) (dhtOptions as HyperDHT.HyperDHTOptions & { nodes?: BootstrapNode[] }).nodes = validateBootstrap(init.nodes)

  const dht = new HyperDHT(dhtOptions)
  const swarmOptions: Hyperswarm.SwarmOptions = { dht, maxPeers: init.maxPeers ?? DEFAULT_MAX_PEERS }
  if (keyPair !== undefined) swarmOptions.keyPair = keyPair
  const swarm = new Hyperswarm(swarmOptions)
  // A peer resetting its connection (ECONNRESET, timeouts) emits 'error' on the socket; with
  // no listener that would crash the whole process. The socket still closes: watch 'close'.
  swarm.on('connection', (conn) => { conn.on('error', ignoreError) })
  return swarm
}

function ignoreError (): void {}

/**
 * Opens a Corestore (RocksDB storage) in `dir`. Corestore 7 has no in-memory storage;
 * use a temporary directory instead (`@arus/testkit` `tmpStore`).
 * @throws SwarmError `SWARM_BAD_OPTION` when `dir` is not a non-empty string.
 */
export function createStore (dir: string): Corestore {
  if (typeof dir !== 'string' || dir === '') throw SwarmError.badOption('dir', 'must be a non-empty path')
  return new Corestore(dir)
}
