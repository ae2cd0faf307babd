// Ambient declarations for the untyped Holepunch modules (CommonJS, no bundled types).
// Kept in one place; every package's tsconfig includes this folder. Grow these facades
// as more of each module's API is used — only what Arus calls is declared.

declare module 'b4a' {
  const b4a: {
    from(input: string | ArrayLike<number> | ArrayBuffer, encoding?: string): Buffer
    alloc(size: number, fill?: number): Buffer
    allocUnsafe(size: number): Buffer
    toString(buf: Uint8Array, encoding?: string): string
    equals(a: Uint8Array, b: Uint8Array): boolean
    concat(list: Uint8Array[], totalLength?: number): Buffer
    isBuffer(value: unknown): value is Buffer
    byteLength(input: string | Uint8Array, encoding?: string): number
  }
  export default b4a
}

declare module 'hypercore-crypto' {
  const crypto: {
    keyPair(seed?: Uint8Array): { publicKey: Buffer; secretKey: Buffer }
    discoveryKey(publicKey: Uint8Array): Buffer
    randomBytes(n: number): Buffer
    hash(data: Uint8Array | Uint8Array[]): Buffer
    sign(message: Uint8Array, secretKey: Uint8Array): Buffer
    verify(message: Uint8Array, signature: Uint8Array, publicKey: Uint8Array): boolean
  }
  export default crypto
}

declare module 'hyperdht' {
  import type { EventEmitter } from 'node:events'
  import type { Duplex } from 'node:stream'

  namespace HyperDHT {
    interface KeyPair { publicKey: Buffer; secretKey: Buffer }
    interface BootstrapNode { host: string; port: number }
    interface HyperDHTOptions {
      bootstrap?: Array<string | BootstrapNode>
      host?: string
      port?: number
      firewalled?: boolean
      ephemeral?: boolean
      keyPair?: KeyPair
      [key: string]: unknown
    }
    interface NoiseSocket extends Duplex {
      remotePublicKey: Buffer
      publicKey: Buffer
      rawStream?: { remoteHost?: string; remotePort?: number; [key: string]: unknown }
      [key: string]: any
    }
  }

  class HyperDHT extends EventEmitter {
    constructor(opts?: HyperDHT.HyperDHTOptions)
    static keyPair(seed?: Uint8Array): HyperDHT.KeyPair
    static bootstrapper(port: number, host: string, opts?: Record<string, unknown>): HyperDHT
    readonly bootstrapNodes: HyperDHT.BootstrapNode[]
    readonly destroyed: boolean
    readonly firewalled: boolean
    readonly host: string | null
    readonly port: number
    ready(): Promise<void>
    fullyBootstrapped(): Promise<void>
    address(): { host: string | null; port: number }
    destroy(opts?: { force?: boolean }): Promise<void>
    connect(publicKey: Uint8Array, opts?: Record<string, unknown>): HyperDHT.NoiseSocket
    createServer(opts?: Record<string, unknown>, onconnection?: (socket: HyperDHT.NoiseSocket) => void): any
    [key: string]: any
  }
  export = HyperDHT
}

declare module 'hyperdht/testnet.js' {
  import type HyperDHT from 'hyperdht'
  interface Testnet {
    nodes: HyperDHT[]
    bootstrap: Array<{ host: string; port: number }>
    createNode(opts?: Record<string, unknown>): HyperDHT
    destroy(): Promise<void>
    [Symbol.iterator](): Iterator<HyperDHT>
  }
  function createTestnet(size?: number, opts?: { host?: string; port?: number; bootstrap?: unknown[]; teardown?: (fn: () => Promise<void>) => void }): Promise<Testnet>
  export = createTestnet
}

declare module 'hyperswarm' {
  import type { EventEmitter } from 'node:events'
  import type HyperDHT from 'hyperdht'

  namespace Hyperswarm {
    interface PeerInfo {
      publicKey: Buffer
      topics: Buffer[]
      client: boolean
      server?: boolean
      prioritized: boolean
      ban(banned?: boolean): void
      [key: string]: any
    }
    interface Discovery {
      flushed(): Promise<void>
      refresh(opts?: { client?: boolean; server?: boolean }): Promise<void>
      destroy(): Promise<void>
      [key: string]: any
    }
    interface SwarmOptions {
      dht?: HyperDHT
      bootstrap?: Array<string | { host: string; port: number }>
      keyPair?: HyperDHT.KeyPair
      maxPeers?: number
      firewall?: (remotePublicKey: Buffer) => boolean
      [key: string]: unknown
    }
  }

  class Hyperswarm extends EventEmitter {
    constructor(opts?: Hyperswarm.SwarmOptions)
    readonly dht: HyperDHT
    readonly keyPair: HyperDHT.KeyPair
    readonly connections: Set<HyperDHT.NoiseSocket>
    readonly peers: Map<string, Hyperswarm.PeerInfo>
    readonly connecting: number
    readonly destroyed: boolean
    maxPeers: number
    join(topic: Uint8Array, opts?: { server?: boolean; client?: boolean }): Hyperswarm.Discovery
    leave(topic: Uint8Array): Promise<void>
    joinPeer(publicKey: Uint8Array): void
    leavePeer(publicKey: Uint8Array): void
    status(topic: Uint8Array): Hyperswarm.Discovery | undefined
    listen(): Promise<void>
    flush(): Promise<void>
    destroy(opts?: { force?: boolean }): Promise<void>
    on(event: 'connection', listener: (socket: HyperDHT.NoiseSocket, info: Hyperswarm.PeerInfo) => void): this
    on(event: 'update', listener: () => void): this
    on(event: string, listener: (...args: any[]) => void): this
  }
  export = Hyperswarm
}

declare module 'hypercore' {
  import type { EventEmitter } from 'node:events'

  namespace Hypercore {
    interface Peer { remotePublicKey: Buffer; [key: string]: any }
    interface Info { length: number; contiguousLength: number; byteLength: number; fork: number; padding: number; storage?: { oplog: number; tree: number; blocks: number; bitfield: number } }
  }

  class Hypercore extends EventEmitter {
    constructor(storage: unknown, key?: Uint8Array | null, opts?: Record<string, unknown>)
    readonly key: Buffer | null
    readonly discoveryKey: Buffer | null
    readonly keyPair: { publicKey: Buffer; secretKey: Buffer | null } | null
    readonly length: number
    readonly contiguousLength: number
    readonly byteLength: number
    readonly fork: number
    readonly writable: boolean
    readonly readable: boolean
    readonly opened: boolean
    readonly closed: boolean
    readonly peers: Hypercore.Peer[]
    readonly id: string
    ready(): Promise<void>
    close(): Promise<void>
    get(index: number, opts?: Record<string, unknown>): Promise<Buffer | null>
    has(start: number, end?: number): Promise<boolean>
    append(block: Uint8Array | Uint8Array[]): Promise<{ length: number; byteLength: number }>
    update(opts?: { wait?: boolean }): Promise<boolean>
    clear(start: number, end?: number, opts?: Record<string, unknown>): Promise<unknown>
    truncate(length: number, opts?: Record<string, unknown>): Promise<void>
    info(opts?: { storage?: boolean }): Promise<Hypercore.Info>
    download(range?: Record<string, unknown>): { done(): Promise<void>; destroy(): void }
    replicate(isInitiatorOrStream: boolean | unknown, opts?: Record<string, unknown>): any
    findingPeers(): () => void
    session(opts?: { weak?: boolean; [key: string]: unknown }): Hypercore
    [key: string]: any
  }
  export = Hypercore
}

declare module 'corestore' {
  import type { EventEmitter } from 'node:events'
  import type Hypercore from 'hypercore'

  class Corestore extends EventEmitter {
    constructor(storage: string | unknown, opts?: Record<string, unknown>)
    readonly closed: boolean
    readonly opened: boolean
    ready(): Promise<void>
    close(): Promise<void>
    get(opts: Uint8Array | { key?: Uint8Array | null; name?: string; keyPair?: { publicKey: Uint8Array; secretKey?: Uint8Array | null }; encryption?: unknown; encryptionKey?: Uint8Array; valueEncoding?: unknown; exclusive?: boolean; [key: string]: unknown }): Hypercore
    namespace(name: string | Uint8Array): Corestore
    session(opts?: Record<string, unknown>): Corestore
    replicate(isInitiatorOrStream: boolean | unknown, opts?: Record<string, unknown>): any
    createKeyPair(name: string): Promise<{ publicKey: Buffer; secretKey: Buffer }>
    [key: string]: any
  }
  export = Corestore
}

declare module 'hyperbee' {
  import type Hypercore from 'hypercore'
  import type { Readable } from 'node:stream'

  namespace Hyperbee {
    interface Entry<V = unknown> { seq: number; key: any; value: V }
    interface Range { gt?: any; gte?: any; lt?: any; lte?: any; limit?: number; reverse?: boolean }
    interface DiffEntry<V = unknown> { left: Entry<V> | null; right: Entry<V> | null }
    interface Watcher<V = unknown> extends AsyncIterable<[Hyperbee<V>, Hyperbee<V>]> {
      ready(): Promise<void>
      destroy(): Promise<void>
      [key: string]: any
    }
  }

  class Hyperbee<V = any> {
    constructor(core: Hypercore, opts?: { keyEncoding?: unknown; valueEncoding?: unknown; [key: string]: unknown })
    readonly core: Hypercore
    readonly version: number
    readonly key: Buffer | null
    readonly writable: boolean
    ready(): Promise<void>
    close(): Promise<void>
    get(key: any, opts?: Record<string, unknown>): Promise<Hyperbee.Entry<V> | null>
    put(key: any, value?: any, opts?: Record<string, unknown>): Promise<void>
    del(key: any, opts?: Record<string, unknown>): Promise<void>
    batch(opts?: Record<string, unknown>): { put(key: any, value?: any, opts?: Record<string, unknown>): Promise<void>; del(key: any, opts?: Record<string, unknown>): Promise<void>; flush(): Promise<void>; close(): Promise<void>; get(key: any): Promise<Hyperbee.Entry<V> | null>; [key: string]: any }
    createReadStream(range?: Hyperbee.Range, opts?: Record<string, unknown>): Readable & AsyncIterable<Hyperbee.Entry<V>>
    createDiffStream(otherVersion: number, range?: Hyperbee.Range, opts?: Record<string, unknown>): Readable & AsyncIterable<Hyperbee.DiffEntry<V>>
    createHistoryStream(opts?: Record<string, unknown>): Readable & AsyncIterable<Hyperbee.Entry<V> & { type: 'put' | 'del' }>
    watch(range?: Hyperbee.Range, opts?: Record<string, unknown>): Hyperbee.Watcher<V>
    getAndWatch(key: any, opts?: Record<string, unknown>): Promise<any>
    checkout(version: number): Hyperbee<V>
    snapshot(): Hyperbee<V>
    update(opts?: { wait?: boolean }): Promise<boolean>
    replicate(isInitiatorOrStream: boolean | unknown, opts?: Record<string, unknown>): any
    [key: string]: any
  }
  export = Hyperbee
}

declare module 'hyperbee/lib/messages.js' {
  /** One hyperbee block: the key it put or deleted, its value (null when none), its tree index. */
  export const Node: { decode(block: Uint8Array): { index: Uint8Array; key: Uint8Array; value: Uint8Array | null } }
}

declare module 'hyperdrive' {
  import type { EventEmitter } from 'node:events'
  import type { Readable, Writable } from 'node:stream'
  import type Corestore from 'corestore'
  import type Hypercore from 'hypercore'
  import type Hyperbee from 'hyperbee'

  namespace Hyperdrive {
    interface BlobRef { blockOffset: number; blockLength: number; byteOffset: number; byteLength: number }
    interface Entry { seq: number; key: string; value: { executable: boolean; linkname: string | null; blob: BlobRef | null; metadata: unknown } }
  }

  class Hyperdrive extends EventEmitter {
    constructor(store: Corestore, key?: Uint8Array | null, opts?: Record<string, unknown>)
    readonly core: Hypercore
    readonly db: Hyperbee
    readonly key: Buffer
    readonly discoveryKey: Buffer
    readonly version: number
    readonly writable: boolean
    readonly blobs: { core: Hypercore; [key: string]: any } | null
    ready(): Promise<void>
    close(): Promise<void>
    getBlobs(): Promise<{ core: Hypercore; [key: string]: any } | null>
    get(path: string, opts?: Record<string, unknown>): Promise<Buffer | null>
    put(path: string, data: Uint8Array | string, opts?: Record<string, unknown>): Promise<void>
    del(path: string): Promise<void>
    clear(path: string, opts?: { diff?: boolean }): Promise<{ blocks: number } | null>
    entry(path: string, opts?: Record<string, unknown>): Promise<Hyperdrive.Entry | null>
    exists(path: string): Promise<boolean>
    list(folder?: string, opts?: Record<string, unknown>): AsyncIterable<Hyperdrive.Entry>
    readdir(folder?: string): AsyncIterable<string>
    createReadStream(path: string, opts?: { start?: number; end?: number; length?: number; wait?: boolean; timeout?: number; [key: string]: unknown }): Readable
    createWriteStream(path: string, opts?: Record<string, unknown>): Writable
    update(opts?: { wait?: boolean }): Promise<boolean>
    download(folder?: string, opts?: Record<string, unknown>): Promise<void>
    checkout(version: number): Hyperdrive
    replicate(isInitiatorOrStream: boolean | unknown, opts?: Record<string, unknown>): any
    findingPeers(): () => void
    [key: string]: any
  }
  export = Hyperdrive
}

declare module 'protomux' {
  class Protomux {
    static from(stream: unknown, opts?: Record<string, unknown>): Protomux
    static isProtomux(value: unknown): boolean
    readonly stream: any
    [key: string]: any
  }
  export = Protomux
}

declare module 'protomux-rpc' {
  import type { EventEmitter } from 'node:events'

  namespace ProtomuxRPC {
    interface Options {
      id?: Uint8Array
      protocol?: string
      valueEncoding?: unknown
      handshake?: unknown
      handshakeEncoding?: unknown
    }
    interface MethodOptions { requestEncoding?: unknown; responseEncoding?: unknown; valueEncoding?: unknown }
  }

  class ProtomuxRPC extends EventEmitter {
    constructor(stream: unknown, opts?: ProtomuxRPC.Options)
    readonly closed: boolean
    readonly opened: boolean
    readonly stream: any
    readonly mux: any
    respond(method: string, handler: (value: any) => unknown): this
    respond(method: string, opts: ProtomuxRPC.MethodOptions, handler: (value: any) => unknown): this
    unrespond(method: string): this
    request(method: string, value: unknown, opts?: ProtomuxRPC.MethodOptions & { timeout?: number }): Promise<any>
    event(method: string, value: unknown, opts?: ProtomuxRPC.MethodOptions): void
    fullyOpened(): Promise<boolean>
    cork(): void
    uncork(): void
    end(): Promise<void>
    destroy(err?: Error): void
  }
  export = ProtomuxRPC
}

declare module 'compact-encoding' {
  const c: {
    raw: unknown
    buffer: unknown
    string: unknown
    json: unknown
    uint: unknown
    none: unknown
    encode(enc: unknown, value: unknown): Buffer
    decode(enc: unknown, buf: Uint8Array): any
    [key: string]: any
  }
  export default c
}

declare module 'hypercore-storage' {
  /** Hypercore's RocksDB storage; the options reach RocksDB (writeBufferSize: memtable bytes). */
  class CoreStorage {
    constructor(dir: string, opts?: { writeBufferSize?: number; treeCache?: { maxSize: number }; maxBackgroundJobs?: number; [key: string]: unknown })
    static isCoreStorage(s: unknown): boolean
    close(): Promise<void>
    [key: string]: any
  }
  export = CoreStorage
}
