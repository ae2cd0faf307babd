import { EventEmitter } from 'node:events'
import { describe, expect, it, onTestFinished } from 'vitest'
import b4a from 'b4a'
import createTestnet from 'hyperdht/testnet.js'
import type Corestore from 'corestore'
import type Hyperswarm from 'hyperswarm'
import { closeAll, createStore, createSwarm, replicateOnConnection, SwarmError, topicFor } from '@arus/swarm'
import { tempDir, within } from './helpers.js'

describe('closeAll', () => {
  it('destroys swarm-likes first, then closes the rest, each group in order', async () => {
    const calls: string[] = []
    const destroyable = (name: string) => ({ destroy: async () => { calls.push(`destroy ${name}`) } })
    const closable = (name: string) => ({ close: async () => { calls.push(`close ${name}`) } })
    await closeAll(closable('storeA'), destroyable('swarm1'), null, closable('storeB'), undefined, destroyable('swarm2'))
    expect(calls).toEqual(['destroy swarm1', 'destroy swarm2', 'close storeA', 'close storeB'])
  })

  it('is harmless on already-closed swarms and stores', async () => {
    const swarm = createSwarm({ bootstrap: [{ host: '127.0.0.1', port: 9 }] })
    const store = createStore(await tempDir())
    onTestFinished(() => closeAll(swarm, store))
    await store.ready()
    await closeAll(swarm, store)
    expect(swarm.destroyed).toBe(true)
    expect(store.closed).toBe(true)
    await expect(closeAll(swarm, store)).resolves.toBeUndefined()
  })

  it('attempts every resource and then throws SWARM_CLOSE_FAILED with the causes', async () => {
    const closed: string[] = []
    const boom = new Error('boom')
    const error = await closeAll(
      { destroy: async () => { throw boom } },
      { destroy: async () => { closed.push('swarm') } },
      { close: async () => { closed.push('store') } }
    ).catch((err: unknown) => err)
    expect(closed).toEqual(['swarm', 'store'])
    expect(error).toBeInstanceOf(SwarmError)
    expect((error as SwarmError).code).toBe('SWARM_CLOSE_FAILED')
    expect(((error as SwarmError).cause as AggregateError).errors).toEqual([boom])
  })
})

describe('replicateOnConnection', () => {
  it('replicates each new connection until unsubscribed', () => {
    const swarm = new EventEmitter()
    const replicated: unknown[] = []
    const store = { closing: null, closed: false, replicate: (conn: unknown) => replicated.push(conn) }
    const stop = replicateOnConnection(swarm as unknown as Hyperswarm, store as unknown as Corestore)
    swarm.emit('connection', 'conn1')
    stop()
    swarm.emit('connection', 'conn2')
    expect(replicated).toEqual(['conn1'])
    expect(swarm.listenerCount('connection')).toBe(0)
  })

  it('skips connections once the store is closing', () => {
    const swarm = new EventEmitter()
    const store = { closing: Promise.resolve(), closed: false, replicate: () => { throw new Error('Corestore is closed') } }
    replicateOnConnection(swarm as unknown as Hyperswarm, store as unknown as Corestore)
    expect(() => swarm.emit('connection', 'conn')).not.toThrow()
  })

  it('lets a reader fetch a writer\'s core over the swarm', async () => {
    const testnet = await createTestnet(3, { host: '127.0.0.1' })
    const writerSwarm = createSwarm({ bootstrap: testnet.bootstrap })
    const readerSwarm = createSwarm({ bootstrap: testnet.bootstrap })
    const writerStore = createStore(await tempDir())
    const readerStore = createStore(await tempDir())
    onTestFinished(async () => {
      await closeAll(writerSwarm, readerSwarm, writerStore, readerStore)
      await testnet.destroy()
    })
    replicateOnConnection(writerSwarm, writerStore)
    replicateOnConnection(readerSwarm, readerStore)

    const core = writerStore.get({ name: 'feed' })
    await core.append([b4a.from('a'), b4a.from('b')])
    const key = core.key as Buffer
    await within(15_000, 'announce', writerSwarm.join(topicFor(key), { server: true, client: false }).flushed())

    const replica = readerStore.get({ key })
    await replica.ready()
    // Hypercore's pattern: update({ wait }) waits for peers only while findingPeers() is open.
    const found = replica.findingPeers()
    readerSwarm.join(topicFor(key), { server: false, client: true })
    readerSwarm.flush().then(found, found)
    await within(15_000, 'replica update', replica.update({ wait: true }))
    expect(replica.length).toBe(2)
    expect(b4a.toString((await within(10_000, 'block', replica.get(1))) as Buffer)).toBe('b')
  })
})
