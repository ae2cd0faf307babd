import { describe, expect, it } from 'vitest'
import { pipeline } from 'node:stream'
import { tmpStore, waitFor, type TestContextLike } from '@arus/testkit'
import { originProofs } from '@arus/feed'
import { CoreMirror } from '../src/core-mirror.js'

// Real hypercores on disk, replicated over an in-process stream pair: a writer (the origin)
// and the repeater's keyless mirror of it. The clock is injected: expiry is not timed.

const block = (i: number): Buffer => Buffer.alloc(4096, i % 251)

async function originAndMirror (t: TestContextLike, mode: 'window' | 'all', blocks: number) {
  const origin = tmpStore(t)
  const writer = origin.get({ name: 'feed' })
  await writer.ready()
  for (let i = 0; i < blocks; i++) await writer.append(block(i))
  const mirrorStore = tmpStore(t)
  let now = 1_000_000
  const mirror = new CoreMirror({ store: mirrorStore, key: writer.key!, mode, retentionMs: 10_000, now: () => now })
  t.onTestFinished(() => mirror.close())
  const a = origin.replicate(true)
  const b = mirrorStore.replicate(false)
  pipeline(a, b, a, () => {})
  t.onTestFinished(() => { a.destroy(); b.destroy() })
  await mirror.ready()
  return { origin, writer, mirror, link: { a, b }, advance: (ms: number) => { now += ms } }
}

/** A viewer replicating with the mirror only (never with the origin). */
async function viewerOf (t: TestContextLike, writer: { key: Buffer | null }, mirror: CoreMirror) {
  const viewerStore = tmpStore(t)
  const viewer = viewerStore.get({ key: writer.key! })
  await viewer.ready()
  const a = viewerStore.replicate(true)
  const b = mirror.core.replicate(false) as NodeJS.ReadWriteStream
  pipeline(a, b as any, a, () => {})
  t.onTestFinished(() => { a.destroy(); (b as any).destroy() })
  return viewer
}

const has = async (m: CoreMirror, i: number): Promise<boolean> => m.core.has(i)

describe('a window mirror', () => {
  it('downloads new blocks, clears each retentionMs after it arrived, and never fetches a cleared block again', async (t) => {
    const { writer, mirror, advance } = await originAndMirror(t, 'window', 10)
    await waitFor(() => mirror.stats().blocksHeld === 10, { timeoutMs: 15_000, message: 'the origin\'s blocks mirrored' })
    expect(mirror.stats().bytesHeld).toBe(10 * 4096)
    advance(5_000)
    for (let i = 10; i < 13; i++) await writer.append(block(i))
    await waitFor(() => mirror.stats().blocksHeld === 13, { timeoutMs: 15_000, message: 'appends mirrored' })
    expect(mirror.stats().lag).toBe(0)
    advance(6_000) // the first 10 are 11 s old, the last 3 are 6 s old
    await mirror.expire()
    expect(mirror.stats().blocksHeld).toBe(3)
    expect(await has(mirror, 0)).toBe(false)
    expect(await has(mirror, 9)).toBe(false)
    expect(await has(mirror, 10)).toBe(true)
    const bytesIn = mirror.stats().bytesIn
    await writer.append(block(13))
    await waitFor(() => mirror.stats().blocksHeld === 4, { timeoutMs: 15_000, message: 'the next append mirrored' })
    // Only the new block came in: the cleared ones were not fetched again.
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(mirror.stats().bytesIn - bytesIn).toBe(4096)
    expect(await has(mirror, 0)).toBe(false)
  })

  it('sheds its oldest blocks for the budget, but not those younger than keepMs', async (t) => {
    const { writer, mirror, advance } = await originAndMirror(t, 'window', 4)
    await waitFor(() => mirror.stats().blocksHeld === 4, { timeoutMs: 15_000, message: 'mirrored' })
    advance(3_000)
    for (let i = 4; i < 8; i++) await writer.append(block(i))
    await waitFor(() => mirror.stats().blocksHeld === 8, { timeoutMs: 15_000, message: 'mirrored' })
    const freed = await mirror.shed(100 * 4096, 2_000)
    expect(freed).toBe(4 * 4096)
    expect(mirror.stats().blocksHeld).toBe(4)
    expect(await has(mirror, 3)).toBe(false)
    expect(await has(mirror, 4)).toBe(true)
  })
})

describe('which peers a mirror asks', () => {
  it('stops asking a peer that asked it for a block (a viewer), and fetches from the origin', async (t) => {
    const { writer, mirror } = await originAndMirror(t, 'window', 4)
    await waitFor(() => mirror.stats().blocksHeld === 4, { timeoutMs: 15_000, message: 'mirrored' })
    // A viewer that reads from the mirror only: it asks the mirror for blocks.
    const viewer = await viewerOf(t, writer, mirror)
    expect((await viewer.get(2, { timeout: 15_000 }))!.byteLength).toBe(4096)
    const asViewer = () => mirror.core.peers.find((p: any) => p.arusConsumer === true) as any
    await waitFor(() => asViewer() !== undefined, { timeoutMs: 15_000, message: 'the viewer marked a consumer' })
    expect(asViewer().remoteUploading).toBe(false)
    // The origin stays a source: new blocks still come, from it.
    const from: boolean[] = []
    mirror.core.on('download', (_i: number, _b: number, peer: any) => { from.push(peer?.arusConsumer === true) })
    for (let i = 4; i < 8; i++) await writer.append(block(i))
    await waitFor(() => mirror.stats().blocksHeld === 8, { timeoutMs: 15_000, message: 'new blocks mirrored' })
    expect(from).toEqual([false, false, false, false])
  })

  it('asks only a peer that proved it is the origin, while one is connected', async (t) => {
    const { origin, writer, mirror, link } = await originAndMirror(t, 'window', 4)
    await waitFor(() => mirror.stats().blocksHeld === 4, { timeoutMs: 15_000, message: 'mirrored' })
    // A viewer holding the whole core that never asks the mirror for anything: a source so far.
    const viewerStore = tmpStore(t)
    const viewer = viewerStore.get({ key: writer.key! })
    await viewer.ready()
    const va = viewerStore.replicate(true)
    const vb = origin.replicate(false)
    pipeline(va, vb, va, () => {})
    t.onTestFinished(() => { va.destroy(); vb.destroy() })
    await viewer.download({ start: 0, end: 4 }).done()
    const ma = viewerStore.replicate(true)
    const mb = mirror.core.replicate(false) as any
    pipeline(ma, mb, ma, () => {})
    t.onTestFinished(() => { ma.destroy(); mb.destroy() })
    const atMirror = (remote: Uint8Array) => mirror.core.peers.find((p: any) => Buffer.from(p.stream.remotePublicKey).equals(Buffer.from(remote))) as any
    await waitFor(() => atMirror(ma.publicKey) !== undefined, { timeoutMs: 15_000, message: 'the viewer connected' })
    expect(atMirror(ma.publicKey).remoteUploading).toBe(true)
    // The origin proves itself (as its upload shaping does for a trusted relay).
    const proofs = originProofs(writer)
    t.onTestFinished(() => proofs.close())
    proofs.send(writer.peers.find((p: any) => Buffer.from(p.stream.remotePublicKey).equals(Buffer.from(link.b.publicKey))))
    await waitFor(() => mirror.stats().origins === 1, { timeoutMs: 10_000, message: 'the origin proven' })
    expect(atMirror(ma.publicKey).remoteUploading).toBe(false)
    expect(atMirror(link.a.publicKey).remoteUploading).toBe(true)
    // What hypercore does after 32 "no data" answers (replicator _onnodata): the origin stays asked.
    atMirror(link.a.publicKey).paused = true
    expect(atMirror(link.a.publicKey).remoteUploading).toBe(true)
    // New blocks come from the origin only, though the viewer has them too.
    const from: string[] = []
    mirror.core.on('download', (_i: number, _b: number, peer: any) => { from.push(Buffer.from(peer.stream.remotePublicKey).toString('hex')) })
    for (let i = 4; i < 12; i++) { await writer.append(block(i)); await viewer.download({ start: i, end: i + 1 }).done() }
    await waitFor(() => mirror.stats().blocksHeld === 12, { timeoutMs: 15_000, message: 'new blocks mirrored' })
    expect(new Set(from)).toEqual(new Set([Buffer.from(link.a.publicKey).toString('hex')]))
    // The origin gone, the viewer is a source again (unless it asked the mirror for a block meanwhile).
    link.a.destroy()
    await waitFor(() => mirror.stats().origins === 0, { timeoutMs: 15_000, message: 'the origin gone' })
    expect(atMirror(ma.publicKey).remoteUploading).toBe(atMirror(ma.publicKey).arusConsumer !== true)
  })

  it('tells a proven origin its length again when the origin acknowledged another (else it never asks it for more)', async (t) => {
    const { writer, mirror, link } = await originAndMirror(t, 'window', 4)
    await waitFor(() => mirror.stats().blocksHeld === 4, { timeoutMs: 15_000, message: 'mirrored' })
    const proofs = originProofs(writer)
    t.onTestFinished(() => proofs.close())
    const mirrorAtOrigin = writer.peers.find((p: any) => Buffer.from(p.stream.remotePublicKey).equals(Buffer.from(link.b.publicKey))) as any
    proofs.send(mirrorAtOrigin)
    await waitFor(() => mirror.stats().origins === 1, { timeoutMs: 10_000, message: 'the origin proven' })
    // The origin's view of the mirror's length goes stale (in the lab: its syncs arrived after
    // the mirror had a longer length); its next syncs acknowledge the wrong length.
    mirrorAtOrigin.remoteLength = 1
    for (let i = 4; i < 8; i++) await writer.append(block(i))
    // hypercore alone would never ask the origin again; the mirror's nudge resyncs, and it does.
    await waitFor(() => mirror.stats().blocksHeld === 8, { timeoutMs: 15_000, message: 'new blocks mirrored after the nudge' })
    expect(mirror.stats().originNudges).toBeGreaterThan(0)
  })

  it('keeps serving a peer hypercore pauses (after its "no data" answers): it is only no longer asked', async (t) => {
    const { writer, mirror } = await originAndMirror(t, 'window', 4)
    await waitFor(() => mirror.stats().blocksHeld === 4, { timeoutMs: 15_000, message: 'mirrored' })
    const viewer = await viewerOf(t, writer, mirror)
    await waitFor(() => mirror.core.peers.length === 2, { timeoutMs: 15_000, message: 'the viewer connected' })
    const toViewer = mirror.core.peers.find((p: any) => p !== mirror.core.peers[0]) as any
    // What hypercore does after 32 "no data" answers from a peer (replicator _onnodata).
    toViewer.paused = true
    expect(toViewer.paused).toBe(false)
    expect(toViewer.remoteUploading).toBe(false)
    expect(toViewer.isActive()).toBe(true)
    // The viewer's requests are still answered.
    expect((await viewer.get(3, { timeout: 15_000 }))!.byteLength).toBe(4096)
    expect(mirror.stats().bytesOut).toBeGreaterThan(0)
  })
})

describe('a whole mirror (VOD)', () => {
  it('holds the whole core; evicted it holds nothing and fetches nothing; admitted it mirrors it again', async (t) => {
    const { mirror } = await originAndMirror(t, 'all', 12)
    await waitFor(() => mirror.stats().blocksHeld === 12, { timeoutMs: 15_000, message: 'the title mirrored' })
    await mirror.expire() // no window: nothing expires
    expect(mirror.stats().blocksHeld).toBe(12)
    const freed = await mirror.shed(1, 0)
    expect(freed).toBe(12 * 4096)
    expect(mirror.isEvicted).toBe(true)
    expect(mirror.stats().bytesHeld).toBe(0)
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(await has(mirror, 0)).toBe(false)
    mirror.admit()
    await waitFor(() => mirror.stats().blocksHeld === 12, { timeoutMs: 15_000, message: 'the title mirrored again' })
  })

  it('counts what an earlier run left on disk', async (t) => {
    const origin = tmpStore(t)
    const writer = origin.get({ name: 'feed' })
    await writer.ready()
    for (let i = 0; i < 6; i++) await writer.append(block(i))
    const store = tmpStore(t)
    const first = new CoreMirror({ store, key: writer.key!, mode: 'all', retentionMs: 10_000 })
    const a = origin.replicate(true)
    const b = store.replicate(false)
    pipeline(a, b, a, () => {})
    t.onTestFinished(() => { a.destroy(); b.destroy() })
    await first.ready()
    await waitFor(() => first.stats().blocksHeld === 6, { timeoutMs: 15_000, message: 'mirrored' })
    await first.close()
    const second = new CoreMirror({ store, key: writer.key!, mode: 'all', retentionMs: 10_000 })
    t.onTestFinished(() => second.close())
    await second.ready()
    expect(second.stats().blocksHeld).toBe(6)
    expect(second.stats().bytesHeld).toBe(6 * 4096)
    await second.purge()
    const third = new CoreMirror({ store, key: writer.key!, mode: 'all', retentionMs: 10_000 })
    t.onTestFinished(() => third.close())
    a.destroy()
    await third.ready()
    expect(third.stats().blocksHeld).toBe(0)
  })
})
