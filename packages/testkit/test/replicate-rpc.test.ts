import { describe, expect, it } from 'vitest'
import b4a from 'b4a'
import Hyperbee from 'hyperbee'
import ProtomuxRPC from 'protomux-rpc'
import type HyperDHT from 'hyperdht'
import { replicateOnConnection, topicFor } from '@arus/swarm'
import { createTestnet, tmpStore, withTimeout } from '@arus/testkit'

const BEE_OPTIONS = { keyEncoding: 'utf-8', valueEncoding: 'json' }

describe('two peers on a testnet', () => {
  it('replicate a Hyperbee and exchange a protomux-rpc call on the same connection', async (t) => {
    const net = await createTestnet(t)
    const writerStore = tmpStore(t)
    const readerStore = tmpStore(t)
    const writer = net.createSwarm()
    const reader = net.createSwarm()
    replicateOnConnection(writer, writerStore)
    replicateOnConnection(reader, readerStore)

    // Peer A: writes the bee and answers 'echo' on every connection.
    const bee = new Hyperbee(writerStore.get({ name: 'catalog' }), BEE_OPTIONS)
    await bee.put('catalog/ch1', { title: 'Channel one' })
    const key = bee.core.key as Buffer
    writer.on('connection', (conn) => {
      new ProtomuxRPC(conn).respond('echo', (value: Buffer) => b4a.concat([b4a.from('echo:'), value]))
    })
    await withTimeout(writer.join(topicFor(key), { server: true, client: false }).flushed(), 15_000, 'writer announce')

    // Peer B: opens the bee by key and joins as a client.
    const replica = new Hyperbee(readerStore.get({ key }), BEE_OPTIONS)
    await replica.ready()
    const found = replica.core.findingPeers()
    const connected = new Promise<HyperDHT.NoiseSocket>((resolve) => reader.once('connection', resolve))
    reader.join(topicFor(key), { server: false, client: true })
    reader.flush().then(found, found)
    const conn = await withTimeout(connected, 15_000, 'reader connection')

    const reply: unknown = await withTimeout(new ProtomuxRPC(conn).request('echo', b4a.from('hello')), 10_000, 'echo reply')
    expect(b4a.isBuffer(reply) && b4a.toString(reply)).toBe('echo:hello')

    await withTimeout(replica.core.update({ wait: true }), 15_000, 'replica update')
    const entry = await withTimeout(replica.get('catalog/ch1'), 10_000, 'replica get')
    expect(entry?.value).toEqual({ title: 'Channel one' })
    expect(replica.core.length).toBe(bee.core.length)
  })
})
