// patches/hypercore@11.37.1.patch, replicator part: when an upgrade lands, hypercore resolves the
// waiting block requests from local storage without awaiting that work. If the store closed while
// the upgrade was being verified, `storage.read()` throws, and unpatched 11.37.1 turns that into
// an unhandled rejection (a fresh-clone CI run met it at a test's teardown, with the catalog
// reader's allowLatestBlock keeping a block request waiting beside every upgrade).
import { afterEach, expect, it } from 'vitest'
import { cleanup, defer, replicate, tempStore } from './helpers.js'

afterEach(cleanup)

interface CoreInternals { core: { storage: { read: () => unknown }, replicator: { onupgrade: () => void, _blocks: { isEmpty: () => boolean } } } }

it('an upgrade landing on a closed store leaves no unhandled rejection', async () => {
  const store = await tempStore()
  // A remote core nobody serves, and a block of it: the request waits in the block tracker.
  const core = store.get({ key: Buffer.alloc(32, 7) })
  await core.ready()
  const done = core.findingPeers()
  defer(done)
  const waiting = core.get(5, { timeout: 10_000 })
  waiting.catch(() => {})
  const inner = (core as unknown as CoreInternals).core
  for (let i = 0; i < 100 && inner.replicator._blocks.isEmpty(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
  expect(inner.replicator._blocks.isEmpty()).toBe(false)
  const unhandled: unknown[] = []
  const onUnhandled = (reason: unknown): void => { unhandled.push(reason) }
  process.on('unhandledRejection', onUnhandled)
  defer(() => { process.off('unhandledRejection', onUnhandled) })

  const read = inner.storage.read
  inner.storage.read = () => { throw new Error('RocksDB session is closed') }
  try {
    inner.replicator.onupgrade()
    await new Promise((resolve) => setTimeout(resolve, 50))
  } finally {
    inner.storage.read = read
  }
  expect(unhandled).toEqual([])
  await core.close()
})

// patches/hypercore@11.37.1.patch, the append's sync: unpatched, a writer tells a peer that was
// synced at its previous length about an append only after a storage read (is the peer's length
// upgradeable?) and after the append's range, as a second message that waits behind whatever the
// process does next (an admin edit's HTTP answer); the peer, told the length before it learns the
// writer holds the new block, asks for the upgrade without the block and needs a second round trip.
interface PeerInternals {
  remoteLength: number
  wireSync: { send: (m: { length: number }) => void }
  wireRange: { send: (m: unknown) => void }
  wireRequest: { send: (m: { upgrade: unknown, block: unknown }) => void }
}
interface ReplicatingCore { length: number, core: { replicator: { peers: PeerInternals[] } } }

async function until (what: string, done: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
  if (!done()) throw new Error(`timed out waiting for ${what}`)
}

it("an append's sync goes out at once, after its range, and the peer asks for the new block with the upgrade", async () => {
  const ws = await tempStore()
  const rs = await tempStore()
  const writer = ws.get({ name: 'feed' })
  await writer.ready()
  await writer.append([Buffer.from('one'), Buffer.from('two')])
  const reader = rs.get({ key: writer.key, allowLatestBlock: true }) // as the catalog reader opens it
  await reader.ready()
  replicate(ws, rs)
  await reader.get(1, { timeout: 10_000 }) // synced at length 2
  const w = (writer as unknown as ReplicatingCore).core
  const r = (reader as unknown as ReplicatingCore).core
  await until('the writer to see the reader at length 2', () => w.replicator.peers[0]?.remoteLength === 2)

  const sent: string[] = []
  let rangeTurn = false // true from the range's send until the next microtask
  const wp = w.replicator.peers[0]!
  const sync = wp.wireSync.send.bind(wp.wireSync)
  wp.wireSync.send = (m) => { sent.push(`sync ${m.length}${rangeTurn ? ' in the same turn' : ' later'}`); sync(m) }
  const range = wp.wireRange.send.bind(wp.wireRange)
  wp.wireRange.send = (m) => {
    sent.push('range')
    rangeTurn = true
    queueMicrotask(() => { rangeTurn = false })
    range(m)
  }
  const requests: Array<{ upgrade: boolean, block: boolean }> = []
  const rp = r.replicator.peers[0]!
  const request = rp.wireRequest.send.bind(rp.wireRequest)
  rp.wireRequest.send = (m) => { requests.push({ upgrade: m.upgrade !== null, block: m.block !== null }); request(m) }

  await writer.append(Buffer.from('three'))
  await until('the reader to upgrade', () => reader.length === 3)
  // Unpatched: the sync waits for a storage read (upgradeable?) and leaves on a later turn.
  expect(sent.slice(0, 2)).toEqual(['range', 'sync 3 in the same turn'])
  expect(requests[0]).toEqual({ upgrade: true, block: true })
  expect(requests).toHaveLength(1)
})
