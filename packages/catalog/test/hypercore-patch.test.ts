// patches/hypercore@11.37.1.patch, replicator part: when an upgrade lands, hypercore resolves the
// waiting block requests from local storage without awaiting that work. If the store closed while
// the upgrade was being verified, `storage.read()` throws, and unpatched 11.37.1 turns that into
// an unhandled rejection (a fresh-clone CI run met it at a test's teardown, with the catalog
// reader's allowLatestBlock keeping a block request waiting beside every upgrade).
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Corestore from 'corestore'
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

/** A writer's store and a reader's store; the writer (`feed`) holds `first`. */
async function feedPair (first: string[]): Promise<{ ws: Corestore, rs: Corestore, writer: ReturnType<Corestore['get']> }> {
  const ws = await tempStore()
  const rs = await tempStore()
  const writer = ws.get({ name: 'feed' })
  await writer.ready()
  await writer.append(first.map((b) => Buffer.from(b)))
  return { ws, rs, writer }
}

it("an append's sync goes out at once, after its range, and the peer asks for the new block with the upgrade", async () => {
  const { ws, rs, writer } = await feedPair(['one', 'two'])
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

// patches/hypercore@11.37.1.patch, storage part: unpatched, every append reads back from storage
// the bitfield page it is about to rewrite, then writes, then writes its hints a second time (the
// same values its own batch just stored), and append() resolves only after that second write; a
// reader storing a downloaded block also reads the page back first. The default state holds every
// bitfield page in memory, so the patch starts the page from there and skips the repeated hints.
interface StorageCounts { writes: number, pageReads: number }
interface StateStorage { read: () => Record<string, unknown>, write: () => { flush: () => Promise<unknown> } }
interface CoreState { core: { state: { storage: StateStorage } } }

function countStorage (core: unknown): StorageCounts {
  const storage = (core as CoreState).core.state.storage
  const counts: StorageCounts = { writes: 0, pageReads: 0 }
  const read = storage.read.bind(storage)
  storage.read = () => {
    const rx = read()
    const page = rx.getBitfieldPage as (i: number) => Promise<unknown>
    rx.getBitfieldPage = (i: number) => { counts.pageReads++; return page.call(rx, i) }
    return rx
  }
  const write = storage.write.bind(storage)
  storage.write = () => {
    const tx = write()
    const flush = tx.flush.bind(tx)
    tx.flush = () => { counts.writes++; return flush() }
    return tx
  }
  return counts
}

it('an append is one storage write and reads no bitfield page back; a downloaded block reads none either', async () => {
  const { ws, rs, writer } = await feedPair(['zero', 'one'])
  const w = countStorage(writer)
  for (let i = 2; i < 7; i++) await writer.append(Buffer.from(`block ${i}`))
  expect(w).toEqual({ writes: 5, pageReads: 0 }) // unpatched: 10 writes, 5 page reads

  const reader = rs.get({ key: writer.key })
  await reader.ready()
  replicate(ws, rs)
  await reader.get(0, { timeout: 10_000 })
  await until('the reader to know length 7', () => reader.length === 7)
  const r = countStorage(reader)
  const next = reader.get(7, { timeout: 10_000 }) // comes with its upgrade, as a catalog edit does
  await writer.append(Buffer.from('block 7'))
  expect((await next)?.toString()).toBe('block 7')
  expect(r.pageReads).toBe(0) // unpatched: 1
  expect(r.writes).toBeGreaterThan(0)
})

it('bitfields and hints written from memory reopen exactly: a writer past a page boundary, a truncation, a sparse reader', async () => {
  const wdir = await mkdtemp(join(tmpdir(), 'arus-catalog-'))
  const rdir = await mkdtemp(join(tmpdir(), 'arus-catalog-'))
  defer(async () => { await rm(wdir, { recursive: true, force: true }); await rm(rdir, { recursive: true, force: true }) })
  const PAGE = 32768 // bits per bitfield page
  let ws = new Corestore(wdir)
  let rs = new Corestore(rdir)
  defer(async () => { await rs.close(); await ws.close() })
  const writer = ws.get({ name: 'feed' })
  await writer.ready()
  const blocks = (from: number, n: number): Buffer[] => Array.from({ length: n }, (_, i) => Buffer.from(String(from + i)))
  for (let i = 0; i < PAGE - 3; i += 4096) await writer.append(blocks(i, Math.min(4096, PAGE - 3 - i)))
  for (let i = 0; i < 6; i++) await writer.append(blocks(writer.length, 1)) // one at a time across the boundary
  await writer.truncate(PAGE + 1)
  await writer.append(blocks(PAGE + 1, 2)) // length PAGE + 3
  const key = writer.key
  const wanted = [5, PAGE - 1, PAGE, PAGE + 2]
  const reader = rs.get({ key })
  await reader.ready()
  const stop = replicate(ws, rs)
  for (const i of wanted) expect((await reader.get(i, { timeout: 10_000 }))?.toString()).toBe(String(i))
  stop()
  await rs.close()
  await ws.close()

  ws = new Corestore(wdir)
  rs = new Corestore(rdir)
  const w = ws.get({ key })
  const r = rs.get({ key })
  await Promise.all([w.ready(), r.ready()])
  expect(w.length).toBe(PAGE + 3)
  expect(w.contiguousLength).toBe(PAGE + 3)
  for (let i = 0; i < w.length; i += 997) expect(await w.has(i)).toBe(true)
  for (const i of [PAGE - 1, PAGE, PAGE + 1, PAGE + 2]) expect(await w.has(i)).toBe(true)
  expect(await w.has(PAGE + 3)).toBe(false)
  const held: number[] = []
  for (let i = 0; i < PAGE + 3; i++) if (await r.has(i)) held.push(i)
  expect(held).toEqual(wanted)
})
