// patches/hypercore@11.37.1.patch, replicator part: when an upgrade lands, hypercore resolves the
// waiting block requests from local storage without awaiting that work. If the store closed while
// the upgrade was being verified, `storage.read()` throws, and unpatched 11.37.1 turns that into
// an unhandled rejection (a fresh-clone CI run met it at a test's teardown, with the catalog
// reader's allowLatestBlock keeping a block request waiting beside every upgrade).
import { afterEach, expect, it } from 'vitest'
import { cleanup, defer, tempStore } from './helpers.js'

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
