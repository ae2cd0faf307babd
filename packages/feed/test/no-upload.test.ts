import { describe, expect, it } from 'vitest'
import { refuseUploads } from '@arus/feed'
import { tmpStore, withTimeout } from '@arus/testkit'

// The 'client-only' policy's refusal (issue 41): a viewer that downloads a feed serves no
// block to a peer it is connected to, whichever side dialed; closing the refusal serves again.

/** Replicates two stores over an in-memory pipe (as a swarm connection would); returns the teardown. */
function link (a: any, b: any): () => void {
  const s1 = a.replicate(true)
  const s2 = b.replicate(false)
  s1.pipe(s2).pipe(s1)
  s1.on('error', () => {})
  s2.on('error', () => {})
  return () => { s1.destroy(); s2.destroy() }
}

describe('refuseUploads', () => {
  it('a refusing peer serves no block; other peers never wait on it; closing it serves again', async (t) => {
    const origin = tmpStore(t)
    const core = origin.get({ name: 'feed' })
    await core.ready()
    for (let i = 0; i < 8; i++) await core.append(Buffer.alloc(4096, i))

    // The phone downloads everything from the origin, then the origin goes away.
    const phoneStore = tmpStore(t)
    const phone = phoneStore.get({ key: core.key })
    await phone.ready()
    const unlinkOrigin = link(origin, phoneStore)
    await withTimeout(phone.download({ start: 0, end: 8 }).done(), 10_000, 'phone download')
    unlinkOrigin()

    const refusal = refuseUploads(phone)
    t.onTestFinished(() => refusal.close())
    let uploaded = 0
    phone.on('upload', () => { uploaded++ })

    // Another viewer connects to the phone: it learns the length but gets no block from it.
    const otherStore = tmpStore(t)
    const other = otherStore.get({ key: core.key })
    await other.ready()
    const unlink = link(phoneStore, otherStore)
    t.onTestFinished(unlink)
    await withTimeout(other.update({ wait: true }), 10_000, 'length from the phone')
    expect(other.length).toBe(8)
    await expect(other.get(3, { timeout: 1_500 })).rejects.toThrow()
    expect(uploaded).toBe(0)
    // The phone told it it does not upload: the request was never sent (nothing to refuse).
    expect(other.peers[0]?.remoteUploading).toBe(false)
    expect(refusal.refused()).toBe(0)

    // Reseed again: the same connection now serves.
    refusal.close()
    const block = await withTimeout(other.get(3, { timeout: 10_000 }), 12_000, 'block after close')
    expect(Buffer.from(block).equals(Buffer.alloc(4096, 3))).toBe(true)
    expect(uploaded).toBeGreaterThan(0)
  }, 30_000)

  it('answers a block request that arrives anyway with "no data" at once', async (t) => {
    const origin = tmpStore(t)
    const core = origin.get({ name: 'feed' })
    await core.ready()
    await core.append(Buffer.alloc(1024, 1))
    const phoneStore = tmpStore(t)
    const phone = phoneStore.get({ key: core.key })
    await phone.ready()
    const unlinkOrigin = link(origin, phoneStore)
    await withTimeout(phone.download({ start: 0, end: 1 }).done(), 10_000, 'phone download')
    unlinkOrigin()

    const otherStore = tmpStore(t)
    const other = otherStore.get({ key: core.key })
    await other.ready()
    t.onTestFinished(link(phoneStore, otherStore))
    await withTimeout(other.update({ wait: true }), 10_000, 'length')
    const refusal = refuseUploads(phone)
    t.onTestFinished(() => refusal.close())
    // A request sent straight at the phone's wire (as a peer that asked before the sync would).
    const peer = phone.peers[0] as any
    const sent: unknown[] = []
    const noData = peer.wireNoData.send.bind(peer.wireNoData)
    peer.wireNoData.send = (m: unknown) => { sent.push(m); return noData(m) }
    await peer.onrequest({ id: 99, fork: 0, block: { index: 0, nodes: 0 }, hash: null, seek: null, upgrade: null, manifest: false, priority: 0 })
    expect(sent).toEqual([{ request: 99, reason: 1 }])
    expect(refusal.refused()).toBe(1)
  }, 30_000)
})
