import { Transform } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { paceRequests } from '@arus/feed'
import { tmpStore, withTimeout } from '@arus/testkit'

// Requester-side pacing (issue 42, found in the network lab): a viewer keeps few requests in
// flight at a peer that answers slowly and many at one that answers fast.

function throttle (bytesPerSecond: number): Transform {
  return new Transform({
    highWaterMark: 4096,
    transform (chunk: Buffer, _enc, cb) { setTimeout(() => cb(null, chunk), Math.ceil(chunk.length / bytesPerSecond * 1000)) }
  })
}

/** Replicates two stores; `a`'s uplink (a → b) passes `upBps` when given. */
function link (a: any, b: any, upBps?: number): () => void {
  const s1 = a.replicate(true)
  const s2 = b.replicate(false)
  if (upBps === undefined) s1.pipe(s2)
  else s1.pipe(throttle(upBps)).pipe(s2)
  s2.pipe(s1)
  s1.on('error', () => {})
  s2.on('error', () => {})
  return () => { s1.destroy(); s2.destroy() }
}

/** A store holding a full replica of `core`. */
async function replica (t: any, origin: { store: any; core: any }, blocks: number): Promise<{ store: any; core: any }> {
  const store = tmpStore(t)
  const core = store.get({ key: origin.core.key })
  await core.ready()
  const unlink = link(origin.store, store)
  await withTimeout(core.download({ start: 0, end: blocks }).done(), 15_000, 'replica download')
  unlink()
  return { store, core }
}

describe('paceRequests', () => {
  it('a slow peer keeps few requests in flight, a fast one many; the download completes mostly from the fast one', async (t) => {
    const blocks = 240
    const originStore = tmpStore(t)
    const core = originStore.get({ name: 'feed' })
    await core.ready()
    for (let i = 0; i < blocks; i++) await core.append(Buffer.alloc(16 * 1024, i % 256))
    const origin = { store: originStore, core }
    const fast = await replica(t, origin, blocks)
    const slow = await replica(t, origin, blocks)

    const viewerStore = tmpStore(t)
    const viewer = viewerStore.get({ key: core.key })
    await viewer.ready()
    const pacer = paceRequests(viewer)
    t.onTestFinished(() => pacer.close())
    const fromPeer = new Map<string, number>()
    viewer.on('download', (_i: number, _n: number, from: { remotePublicKey: Uint8Array }) => {
      const k = Buffer.from(from.remotePublicKey).toString('hex')
      fromPeer.set(k, (fromPeer.get(k) ?? 0) + 1)
    })
    // The slow peer first (32 KiB/s: half a second a block), then the fast one (4 MiB/s).
    t.onTestFinished(link(slow.store, viewerStore, 32 * 1024))
    await withTimeout(viewer.update({ wait: true }), 10_000, 'length')
    t.onTestFinished(link(fast.store, viewerStore, 4 * 1024 * 1024))
    await withTimeout(new Promise<void>((resolve) => { const check = (): void => { if (viewer.peers.length >= 2) resolve(); else setTimeout(check, 20) }; check() }), 10_000, 'two peers')
    const slowKey = Buffer.from(viewer.peers[0].remotePublicKey).toString('hex')

    await withTimeout(viewer.download({ start: 0, end: blocks }).done(), 60_000, 'download')
    const peers = pacer.peers()
    const slowState = peers.find((p) => p.peer === slowKey)!
    const fastState = peers.find((p) => p.peer !== slowKey)!
    expect(slowState.estimateMs).not.toBeNull()
    expect(fastState.estimateMs).not.toBeNull()
    expect(slowState.estimateMs!).toBeGreaterThan(fastState.estimateMs! * 2)
    expect(slowState.limit).toBeLessThanOrEqual(3)
    expect(fastState.limit).toBeGreaterThan(slowState.limit * 3)
    // At most the first window of requests went to the slow peer before its estimate existed.
    expect(fromPeer.get(slowKey) ?? 0).toBeLessThan(blocks / 4)
  }, 90_000)

  it('abandonAfterMs: a request stuck at a peer is cancelled there and asked of another', async (t) => {
    const originStore = tmpStore(t)
    const core = originStore.get({ name: 'feed' })
    await core.ready()
    for (let i = 0; i < 8; i++) await core.append(Buffer.alloc(4096, i))
    const origin = { store: originStore, core }
    const stuck = await replica(t, origin, 8)
    const fast = await replica(t, origin, 8)
    const viewerStore = tmpStore(t)
    const viewer = viewerStore.get({ key: core.key })
    await viewer.ready()
    const pacer = paceRequests(viewer, { abandonAfterMs: 300 })
    t.onTestFinished(() => pacer.close())
    // The stuck peer's answers never arrive (its uplink passes nothing once the length is known).
    let open = true
    const s1 = stuck.store.replicate(true)
    const s2 = viewerStore.replicate(false)
    const gate = new Transform({ transform (chunk: Buffer, _enc, cb) { if (open) cb(null, chunk) } })
    s1.pipe(gate).pipe(s2)
    s2.pipe(s1)
    s1.on('error', () => {})
    s2.on('error', () => {})
    t.onTestFinished(() => { s1.destroy(); s2.destroy() })
    await withTimeout(viewer.update({ wait: true }), 10_000, 'length from the stuck peer')
    open = false
    const block = viewer.get(5, { timeout: 20_000 })
    await withTimeout((async () => { while (pacer.abandoned() === 0) await new Promise((resolve) => setTimeout(resolve, 20)) })(), 10_000, 'the stuck request abandoned')
    // Another peer arrives: the block is asked again there and arrives.
    t.onTestFinished(link(fast.store, viewerStore))
    expect(Buffer.from(await withTimeout(block, 15_000, 'block from the other peer')).equals(Buffer.alloc(4096, 5))).toBe(true)
    expect(pacer.abandoned()).toBeGreaterThanOrEqual(1)
  }, 60_000)

  it('the fastest peer keeps hypercore\'s own limit and is never abandoned, however slow it is', async (t) => {
    // The lab's case: a repeater whose one real source is an origin on a capped uplink, slower
    // than targetMs. Paced to one request there, it was fed less than the stream; abandoned
    // there, a block would go to the back of the same queue and never arrive.
    const blocks = 24
    const originStore = tmpStore(t)
    const core = originStore.get({ name: 'feed' })
    await core.ready()
    for (let i = 0; i < blocks; i++) await core.append(Buffer.alloc(8 * 1024, i))
    const viewerStore = tmpStore(t)
    const viewer = viewerStore.get({ key: core.key })
    await viewer.ready()
    const pacer = paceRequests(viewer, { targetMs: 100, abandonAfterMs: 300 })
    t.onTestFinished(() => pacer.close())
    // 32 KiB/s: a quarter of a second a block, seconds for a window of them.
    t.onTestFinished(link(originStore, viewerStore, 32 * 1024))
    await withTimeout(viewer.update({ wait: true }), 10_000, 'length')
    let most = 0
    const sample = setInterval(() => { for (const p of pacer.peers()) most = Math.max(most, p.outstanding) }, 20)
    t.onTestFinished(() => clearInterval(sample))
    await withTimeout(viewer.download({ start: 0, end: blocks }).done(), 30_000, 'download from the one slow peer')
    const [only] = pacer.peers()
    expect(only.estimateMs!).toBeGreaterThan(300)
    expect(pacer.abandoned()).toBe(0)
    expect(most).toBeGreaterThan(3)
    expect(only.limit).toBeGreaterThan(3)
  }, 60_000)

  it('exempt: a peer the caller names (a proven origin) keeps hypercore\'s limit and is never abandoned, though another is faster', async (t) => {
    const blocks = 48
    const originStore = tmpStore(t)
    const core = originStore.get({ name: 'feed' })
    await core.ready()
    for (let i = 0; i < blocks; i++) await core.append(Buffer.alloc(8 * 1024, i))
    const origin = { store: originStore, core }
    const fast = await replica(t, origin, blocks)
    const viewerStore = tmpStore(t)
    const viewer = viewerStore.get({ key: core.key })
    await viewer.ready()
    let slowKey = ''
    const keyOf = (peer: any): string => Buffer.from(peer.stream?.remotePublicKey ?? []).toString('hex')
    const pacer = paceRequests(viewer, { targetMs: 100, abandonAfterMs: 300, exempt: (peer) => keyOf(peer) === slowKey })
    t.onTestFinished(() => pacer.close())
    // The exempt peer is the slow one (the origin itself at 32 KiB/s), the other a fast replica.
    t.onTestFinished(link(originStore, viewerStore, 32 * 1024))
    await withTimeout(viewer.update({ wait: true }), 10_000, 'length')
    slowKey = keyOf(viewer.peers[0])
    t.onTestFinished(link(fast.store, viewerStore, 4 * 1024 * 1024))
    await withTimeout(viewer.download({ start: 0, end: blocks }).done(), 30_000, 'download')
    const slow = pacer.peers().find((p) => p.peer === slowKey)!
    expect(slow.estimateMs!).toBeGreaterThan(100)
    expect(slow.limit).toBeGreaterThan(3)
    expect(pacer.abandoned()).toBe(0)
  }, 60_000)

  it('refuses nonsense settings', () => {
    const core = { on () {}, off () {}, peers: [] } as any
    expect(() => paceRequests(core, { targetMs: 10 })).toThrow(/targetMs/)
    expect(() => paceRequests(core, { minInflight: 0 })).toThrow(/minInflight/)
    expect(() => paceRequests(core, { abandonAfterMs: 5 })).toThrow(/abandonAfterMs/)
  })
})
