import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import b4a from 'b4a'
import HyperDHT from 'hyperdht'
import createTestnet from 'hyperdht/testnet.js'
import type Hyperswarm from 'hyperswarm'
import { closeAll, createStore, createSwarm, DEFAULT_MAX_PEERS, SwarmError, topicFor } from '@arus/swarm'
import type { SwarmInit } from '@arus/swarm'
import { firstData, tempDir, within } from './helpers.js'

// One local DHT for the whole file; tests that need an isolated one build their own.
let shared: Awaited<ReturnType<typeof createTestnet>>
beforeAll(async () => { shared = await createTestnet(3, { host: '127.0.0.1' }) })
afterAll(() => shared.destroy())

// Teardown runs last-registered first, so swarms go before the testnet they use.
const cleanup: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn()
})

function track (init: SwarmInit): Hyperswarm {
  const swarm = createSwarm(init)
  cleanup.push(() => swarm.destroy())
  return swarm
}

// Bound socket address of the DHT; reads dht-rpc internals, only to check the bind option.
function boundHost (swarm: Hyperswarm): string {
  return swarm.dht.io.serverSocket.address().host
}

describe('createSwarm options', () => {
  it('a loopback bootstrap implies host 127.0.0.1 and firewalled: false', async () => {
    const swarm = track({ bootstrap: shared.bootstrap })
    expect(swarm.dht.firewalled).toBe(false)
    expect(swarm.maxPeers).toBe(DEFAULT_MAX_PEERS)
    await swarm.dht.ready()
    expect(boundHost(swarm)).toBe('127.0.0.1')
  })

  it('explicit host and firewalled override the loopback defaults', async () => {
    const swarm = track({ bootstrap: shared.bootstrap, firewalled: true, host: '127.0.0.2', maxPeers: 5 })
    expect(swarm.dht.firewalled).toBe(true)
    expect(swarm.maxPeers).toBe(5)
    await swarm.dht.ready()
    expect(boundHost(swarm)).toBe('127.0.0.2')
  })

  it('uses the given key pair', () => {
    const keyPair = HyperDHT.keyPair()
    const swarm = track({ bootstrap: shared.bootstrap, keyPair: { publicKey: new Uint8Array(keyPair.publicKey), secretKey: new Uint8Array(keyPair.secretKey) } })
    expect(b4a.equals(swarm.keyPair.publicKey, keyPair.publicKey)).toBe(true)
  })

  it.each<[string, SwarmInit, string]>([
    ['maxPeers 0', { maxPeers: 0 }, 'SWARM_BAD_OPTION'],
    ['maxPeers 1.5', { maxPeers: 1.5 }, 'SWARM_BAD_OPTION'],
    ['port 70000', { port: 70000 }, 'SWARM_BAD_OPTION'],
    ['empty host', { host: '' }, 'SWARM_BAD_OPTION'],
    ['non-boolean firewalled', { firewalled: 'no' as unknown as boolean }, 'SWARM_BAD_OPTION'],
    ['bad bootstrap node', { bootstrap: [{ host: '127.0.0.1', port: 0 }] }, 'SWARM_BAD_BOOTSTRAP'],
    ['short public key', { keyPair: { publicKey: new Uint8Array(31), secretKey: new Uint8Array(64) } }, 'SWARM_BAD_KEY'],
    ['short secret key', { keyPair: { publicKey: new Uint8Array(32), secretKey: new Uint8Array(32) } }, 'SWARM_BAD_KEY']
  ])('rejects %s before building anything', (_name, init, code) => {
    let error: unknown
    try { track(init) } catch (err) { error = err }
    expect(error).toBeInstanceOf(SwarmError)
    expect((error as SwarmError).code).toBe(code)
  })

  it('the swarm owns its DHT: destroying the swarm destroys the DHT', async () => {
    const swarm = track({ bootstrap: shared.bootstrap })
    await swarm.dht.ready()
    await swarm.destroy()
    expect(swarm.dht.destroyed).toBe(true)
  })
})

describe('createSwarm on a local testnet', () => {
  it('two swarms find each other on topicFor(key) and exchange bytes', async () => {
    const testnet = await createTestnet(3, { host: '127.0.0.1' })
    cleanup.push(() => testnet.destroy())
    const server = track({ bootstrap: testnet.bootstrap })
    const client = track({ bootstrap: testnet.bootstrap })
    const topic = topicFor(HyperDHT.keyPair().publicKey)

    server.on('connection', (conn) => {
      conn.once('data', (data: Buffer) => conn.write(b4a.concat([b4a.from('pong:'), data])))
    })
    await within(15_000, 'server announce', server.join(topic, { server: true, client: false }).flushed())

    const connected = new Promise<HyperDHT.NoiseSocket>((resolve) => client.once('connection', resolve))
    client.join(topic, { server: false, client: true })
    const conn = await within(15_000, 'client connection', connected)
    expect(b4a.equals(conn.remotePublicKey, server.keyPair.publicKey)).toBe(true)
    const reply = firstData(conn)
    conn.write(b4a.from('ping'))
    expect(b4a.toString(await within(10_000, 'reply', reply))).toBe('pong:ping')
  })
})

describe('createStore', () => {
  it('opens a Corestore in the directory and reopens its data', async () => {
    const dir = await tempDir()
    const store = createStore(dir)
    cleanup.push(() => store.close())
    const core = store.get({ name: 'x' })
    await core.append(b4a.from('hello'))
    const key = core.key
    await closeAll(store)
    const again = createStore(dir)
    cleanup.push(() => again.close())
    const reopened = again.get({ name: 'x' })
    await reopened.ready()
    expect(reopened.key && key && b4a.equals(reopened.key, key)).toBe(true)
    expect(b4a.toString((await reopened.get(0)) as Buffer)).toBe('hello')
  })

  it('rejects an empty path with SWARM_BAD_OPTION', () => {
    expect(() => createStore('')).toThrowError(expect.objectContaining({ code: 'SWARM_BAD_OPTION' }) as Error)
  })
})
