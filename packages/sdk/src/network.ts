import b4a from 'b4a'
import Corestore from 'corestore'
import CoreStorage from 'hypercore-storage'
import type HyperDHT from 'hyperdht'
import type Hyperswarm from 'hyperswarm'
import { createRpcClient, type RpcClient } from '@arus/rpc'
import { createSwarm, type BootstrapNode } from '@arus/swarm'
import { STORE_SUBDIR } from './constants.js'
import { isStoreCorruption } from './corruption.js'
import { SdkError } from './errors.js'
import { joinPath, type FsModule } from './runtime.js'
import { Topics } from './topics.js'

export interface NetworkInit {
  storeDir: string
  bootstrap: BootstrapNode[] | undefined
  /** DHT nodes remembered from an earlier run (warm dial), seeded into the routing table. */
  nodes?: BootstrapNode[]
  maxPeers: number
  /** RocksDB memtable size of the replica store, MiB (docs/architecture.md "Viewer memory"). */
  writeBufferMiB: number
  announce: boolean
  fs: FsModule
  /** Called after a corrupt store was purged and reopened (spec 3 'recovered'). */
  onRecovered(err: Error): void
}

/**
 * The engine's Corestore and Hyperswarm. Every connection replicates the store; the one whose
 * remotePublicKey is the panel key also gets the RPC channel, opened at once in the
 * 'connection' handler (protomux refuses a channel the other side opened first while this side
 * had none — docs/architecture.md "RPC channel rule"). Other peers never see an RPC.
 */
export class Network {
  readonly swarm: Hyperswarm
  readonly topics: Topics
  private storeRef: Corestore | null = null
  private panelKey: Uint8Array | null = null
  private panelConn: HyperDHT.NoiseSocket | null = null
  private panelRpc: RpcClient | null = null
  private readonly panelWaiters = new Set<() => void>()
  private destroyed = false

  constructor (private readonly init: NetworkInit) {
    this.swarm = createSwarm({
      ...(init.bootstrap === undefined ? {} : { bootstrap: init.bootstrap }),
      ...(init.nodes === undefined ? {} : { nodes: init.nodes }),
      maxPeers: init.maxPeers
    })
    this.topics = new Topics(this.swarm, init.announce)
    this.swarm.on('connection', (conn) => this.onConnection(conn))
  }

  get store (): Corestore {
    if (this.storeRef === null) throw SdkError.stopped()
    return this.storeRef
  }

  /** The swarm's Noise public key (this peer's identity towards other peers). */
  get publicKey (): Uint8Array { return this.swarm.keyPair.publicKey }

  /** Opens the replica store; a corrupt one is purged and reopened once ('recovered'). */
  async openStore (): Promise<void> {
    if (this.storeRef !== null) return
    await this.init.fs.mkdir(this.init.storeDir, { recursive: true })
    try {
      await this.tryOpen()
    } catch (err) {
      if (!isStoreCorruption(err)) throw err
      await this.purge()
      try {
        await this.tryOpen()
      } catch (again) {
        throw SdkError.storeCorrupt(again)
      }
      this.init.onRecovered(err as Error)
    }
  }

  /**
   * Runs `op`; when it fails because the store is damaged, closes and purges the store, reopens
   * it (re-replicating on live connections) and runs `op` once more ('recovered' fires).
   */
  async withRecovery<T> (op: () => Promise<T>, beforeRetry?: () => Promise<void>): Promise<T> {
    try {
      return await op()
    } catch (err) {
      if (!isStoreCorruption(err) || this.destroyed) throw err
      await this.purge()
      await this.tryOpen()
      if (beforeRetry !== undefined) await beforeRetry()
      this.init.onRecovered(err as Error)
      try {
        return await op()
      } catch (again) {
        throw isStoreCorruption(again) ? SdkError.storeCorrupt(again) : again
      }
    }
  }

  /** Sets the panel key; a connection to it opens the RPC channel. */
  setPanelKey (key: Uint8Array): void {
    this.panelKey = key
    for (const conn of this.swarm.connections) {
      if (this.panelConn === null && b4a.equals(conn.remotePublicKey, key)) this.attachPanel(conn)
    }
  }

  /** The RPC client of the current panel connection, or null while the link is dialing. */
  rpc (): RpcClient | null { return this.panelRpc }

  /** Resolves true once the panel link is up, false after `timeoutMs` or when `signal` aborts. */
  waitForPanel (timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (this.panelRpc !== null) return Promise.resolve(true)
    if (signal?.aborted === true) return Promise.resolve(false)
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer)
        this.panelWaiters.delete(done)
        signal?.removeEventListener('abort', done)
        resolve(this.panelRpc !== null)
      }
      const timer = setTimeout(done, timeoutMs)
      this.panelWaiters.add(done)
      signal?.addEventListener('abort', done, { once: true })
    })
  }

  /** Connections to other peers (not the panel). */
  peerConnections (): HyperDHT.NoiseSocket[] {
    return [...this.swarm.connections].filter((c) => this.panelKey === null || !b4a.equals(c.remotePublicKey, this.panelKey))
  }

  /** Destroys the connections whose remote key is in `keys` (hex), never the panel's. */
  dropConnections (keys: Set<string>): number {
    let n = 0
    for (const conn of this.peerConnections()) {
      if (keys.has(b4a.toString(conn.remotePublicKey, 'hex'))) { conn.destroy(); n++ }
    }
    return n
  }

  async destroy (): Promise<void> {
    if (this.destroyed) return
    this.destroyed = true
    this.panelRpc?.close()
    this.panelRpc = null
    for (const done of [...this.panelWaiters]) done()
    await this.topics.leaveAll()
    await this.swarm.destroy().catch(() => {})
    const store = this.storeRef
    this.storeRef = null
    await store?.close().catch(() => {})
  }

  private async tryOpen (): Promise<void> {
    // A small memtable: the default (64 MiB, two of them) fills with media at the stream's
    // bitrate before its first flush, so a viewer's memory would grow with the bitrate.
    const storage = new CoreStorage(joinPath(this.init.storeDir, STORE_SUBDIR), { writeBufferSize: this.init.writeBufferMiB * 1024 * 1024 })
    const store = new Corestore(storage)
    try {
      await store.ready()
    } catch (err) {
      await store.close().catch(() => {})
      throw err
    }
    this.storeRef = store
    // Connections made before (or during a purge) replicate the fresh store too.
    for (const conn of this.swarm.connections) store.replicate(conn)
  }

  private async purge (): Promise<void> {
    const old = this.storeRef
    this.storeRef = null
    await old?.close().catch(() => {})
    await this.init.fs.rm(joinPath(this.init.storeDir, STORE_SUBDIR), { recursive: true, force: true })
  }

  private onConnection (conn: HyperDHT.NoiseSocket): void {
    conn.on('error', () => {})
    if (this.destroyed) { conn.destroy(); return }
    if (this.panelKey !== null && b4a.equals(conn.remotePublicKey, this.panelKey)) this.attachPanel(conn)
    const store = this.storeRef
    if (store !== null && !store.closed && store.closing == null) store.replicate(conn)
  }

  private attachPanel (conn: HyperDHT.NoiseSocket): void {
    const rpc = createRpcClient(conn)
    this.panelRpc?.close()
    this.panelConn = conn
    this.panelRpc = rpc
    conn.on('close', () => {
      if (this.panelConn !== conn) return
      rpc.close()
      this.panelConn = null
      this.panelRpc = null
    })
    for (const done of [...this.panelWaiters]) done()
  }
}
