import { randomBytes } from 'node:crypto'
import HyperDHT from 'hyperdht'
import createTestnet from 'hyperdht/testnet.js'
import Hyperswarm from 'hyperswarm'

const CONNECT_TIMEOUT_MS = 15_000

/** Both ends of one swarm connection on a private loopback testnet. */
export interface SwarmPair {
  /** The panel side's connection (server role). */
  serverConn: HyperDHT.NoiseSocket
  /** The viewer/publisher side's connection (client role). */
  clientConn: HyperDHT.NoiseSocket
  serverPublicKey: Uint8Array
  clientPublicKey: Uint8Array
  destroy (): Promise<void>
}

/**
 * A local DHT testnet on 127.0.0.1, a server swarm joined to a random topic as
 * server (firewalled: false, see VERSIONS.md) and a client swarm joined as
 * client; resolves once both sides hold the connection. `destroy` tears all
 * of it down and is idempotent.
 */
export async function createSwarmPair (): Promise<SwarmPair> {
  const testnet = await createTestnet(3, { host: '127.0.0.1' })
  const server = new Hyperswarm({ dht: new HyperDHT({ bootstrap: testnet.bootstrap, host: '127.0.0.1', firewalled: false }) })
  const client = new Hyperswarm({ dht: testnet.createNode() })
  let destroyed: Promise<void> | null = null
  const destroy = (): Promise<void> => {
    destroyed ??= (async () => {
      await client.destroy()
      await server.destroy()
      await testnet.destroy()
    })()
    return destroyed
  }
  try {
    const serverConn = firstConnection(server)
    const clientConn = firstConnection(client)
    const topic = randomBytes(32)
    await server.join(topic, { server: true, client: false }).flushed()
    client.join(topic, { server: false, client: true })
    const [s, c] = await withTimeout(Promise.all([serverConn, clientConn]), CONNECT_TIMEOUT_MS, 'swarm connection')
    return { serverConn: s, clientConn: c, serverPublicKey: server.keyPair.publicKey, clientPublicKey: client.keyPair.publicKey, destroy }
  } catch (err) {
    await destroy()
    throw err
  }
}

function firstConnection (swarm: Hyperswarm): Promise<HyperDHT.NoiseSocket> {
  return new Promise((resolve) => {
    swarm.on('connection', (conn) => {
      // A peer closing its end surfaces as an error event; tests close ends on purpose.
      conn.on('error', () => {})
      resolve(conn)
    })
  })
}

/** Reject with a clear message when `promise` takes longer than `ms`. */
export async function withTimeout<T> (promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms)
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}

/** A promise plus its resolver, for holding a handler open. */
export function gate (): { promise: Promise<void>, open: () => void } {
  let open = (): void => {}
  const promise = new Promise<void>((resolve) => { open = resolve })
  return { promise, open }
}

/** `n` bytes as lowercase hex, filled with `byte`. */
export function hexOf (n: number, byte = 0xab): string {
  return Buffer.alloc(n, byte).toString('hex')
}
