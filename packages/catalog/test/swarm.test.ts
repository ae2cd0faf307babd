import Hyperswarm from 'hyperswarm'
import createTestnet from 'hyperdht/testnet.js'
import { afterEach, describe, expect, it } from 'vitest'
import { createCatalogWriter, openCatalogReader } from '@arus/catalog'
import { changeQueue, cleanup, defer, liveRecord, panelKeyPair, tempStore } from './helpers.js'

afterEach(cleanup)

describe('catalog over a local DHT testnet (127.0.0.1)', () => {
  it('a viewer swarm replicates the panel catalog and watches an edit', async () => {
    const testnet = await createTestnet(3, { host: '127.0.0.1' })
    defer(() => testnet.destroy())
    const kp = panelKeyPair()
    const ws = await tempStore()
    const rs = await tempStore()
    const writer = createCatalogWriter({ store: ws, keyPair: kp })
    defer(() => writer.close())
    await writer.putStream('ch1', liveRecord())

    const topic = writer.key // any shared 32-byte topic does for this test
    const panelSwarm = new Hyperswarm({ dht: testnet.createNode() })
    defer(() => panelSwarm.destroy())
    panelSwarm.on('connection', (conn) => { ws.replicate(conn) })
    await panelSwarm.join(topic, { server: true, client: false }).flushed()

    const reader = openCatalogReader({ store: rs, panelPublicKey: kp.publicKey })
    defer(() => reader.close())
    await reader.ready()
    const viewerSwarm = new Hyperswarm({ dht: testnet.createNode() })
    defer(() => viewerSwarm.destroy())
    viewerSwarm.on('connection', (conn) => { rs.replicate(conn) })
    viewerSwarm.join(topic, { server: false, client: true })

    expect(await reader.update({ wait: true, timeoutMs: 20_000 })).toBe(true)
    expect(await reader.getStream('ch1')).toEqual(liveRecord())
    const q = changeQueue()
    const watch = reader.watch('catalog/', q.push)
    await watch.ready()
    await writer.putStream('ch1', liveRecord({ title: 'Over the swarm' }))
    expect(await q.next(20_000)).toEqual([{ key: 'catalog/ch1', value: liveRecord({ title: 'Over the swarm' }) }])
  })
})
