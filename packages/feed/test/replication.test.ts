import { describe, expect, it } from 'vitest'
import b4a from 'b4a'
import Hyperdrive from 'hyperdrive'
import { removalGrace } from '@arus/feed'
import { createTestnet, waitFor, withTimeout } from '@arus/testkit'
import { collect, key32, link, peerSwarm, playlistOf, readerOn, rejection, segmentBytes, storeIn, writerOn } from './helpers.js'

describe('replication between a writer peer and a reader peer (testnet on 127.0.0.1)', () => {
  it('the reader with the key reads the playlist and segments byte-identical, and Range reads exact bytes', async (t) => {
    const net = await createTestnet(t)
    const encryptionKey = key32()
    const w = storeIn(t)
    const writer = await writerOn(t, { store: w.store, encryptionKey })
    const seg0 = segmentBytes(0, 150_000) // three 64 KiB blocks
    const seg1 = segmentBytes(1, 9_000)
    await writer.putSegment('seg0.ts', seg0)
    await writer.putSegment('seg1.ts', seg1)
    const text = playlistOf([0, 1], { duration: 2 })
    await writer.putPlaylist(text)

    const r = storeIn(t)
    const reader = await readerOn(t, r.store, writer.feedKey, encryptionKey)
    expect(b4a.equals(reader.discoveryKey, writer.discoveryKey)).toBe(true)
    await link(writer.discoveryKey, peerSwarm(net, w.store), peerSwarm(net, r.store))

    expect(await reader.waitFor('/seg0.ts', { timeoutMs: 20_000 })).toEqual({ byteLength: 150_000 })
    expect(reader.peers()).toBeGreaterThan(0)
    const playlist = await reader.playlist({ timeoutMs: 20_000 })
    expect(playlist.text).toBe(text)
    expect(playlist.segments).toEqual([{ uri: 'seg0.ts', duration: 2 }, { uri: 'seg1.ts', duration: 2 }])
    expect(b4a.equals(await reader.readFile('seg1.ts'), seg1)).toBe(true)
    expect(b4a.equals(await collect(reader.createReadStream('/seg0.ts')), seg0)).toBe(true)

    const range = await collect(reader.createReadStream('/seg0.ts', { start: 100, end: 5000 }))
    expect(range.byteLength).toBe(4901)
    expect(b4a.equals(range, seg0.subarray(100, 5001))).toBe(true)
    // Across block boundaries (64 KiB) and clamped at the end, like HTTP Range.
    expect(b4a.equals(await collect(reader.createReadStream('/seg0.ts', { start: 65_000, end: 140_000 })), seg0.subarray(65_000, 140_001))).toBe(true)
    expect(b4a.equals(await collect(reader.createReadStream('/seg0.ts', { start: 149_990, end: 10_000_000 })), seg0.subarray(149_990))).toBe(true)
    const beyond = await rejection(collect(reader.createReadStream('/seg0.ts', { start: 150_000 })))
    expect(beyond.code).toBe('FEED_RANGE_NOT_SATISFIABLE')

    // Live: a segment written after the reader connected arrives through waitFor.
    const seg2 = segmentBytes(2)
    const waiting = reader.waitFor('/seg2.ts', { timeoutMs: 20_000 })
    await writer.putSegment('seg2.ts', seg2)
    await writer.putPlaylist(playlistOf([1, 2]))
    expect(await waiting).toEqual({ byteLength: seg2.byteLength })
    expect(b4a.equals(await reader.readFile('/seg2.ts'), seg2)).toBe(true)
    expect((await reader.playlist()).mediaSequence).toBe(1)
    // seg0 left the playlist but is in its removal grace: still readable.
    expect(b4a.equals(await reader.readFile('/seg0.ts'), seg0)).toBe(true)
    // Once the grace has run out, the newest version a peer confirms has no such path.
    for (let n = 3; n < 3 + removalGrace(2); n++) {
      await writer.putSegment(`seg${n}.ts`, segmentBytes(n))
      await writer.putPlaylist(playlistOf([n - 1, n]))
    }
    await waitFor(async () => (await reader.playlist()).mediaSequence === 1 + removalGrace(2), { timeoutMs: 10_000, message: 'newest playlist on the reader' })
    expect((await rejection(reader.readFile('/seg0.ts'))).code).toBe('FEED_NOT_FOUND')
    expect(await reader.stat('/seg0.ts')).toBeNull()
    expect(await reader.stat('/seg2.ts')).toEqual({ byteLength: seg2.byteLength })
  })

  it('a reader never broadcasts its lookups: no Hyperbee extension traffic reaches the writer (it would grow with the audience)', async (t) => {
    const net = await createTestnet(t)
    const encryptionKey = key32()
    const w = storeIn(t)
    const writer = await writerOn(t, { store: w.store, encryptionKey })
    const segs = Array.from({ length: 40 }, (_, n) => segmentBytes(n, 2_000))
    for (const [n, seg] of segs.entries()) await writer.putSegment(`seg${n}.ts`, seg) // a tree of a few levels
    await writer.putPlaylist(playlistOf([38, 39]))
    // The writer's own Hyperbee keeps its extension: count what arrives on it.
    const extension = writer.drive.db.extension as unknown as { onmessage: (...args: unknown[]) => unknown }
    let messages = 0
    const onmessage = extension.onmessage.bind(extension)
    extension.onmessage = (...args: unknown[]) => { messages++; return onmessage(...args) }

    const r = storeIn(t)
    const reader = await readerOn(t, r.store, writer.feedKey, encryptionKey)
    await link(writer.discoveryKey, peerSwarm(net, w.store), peerSwarm(net, r.store))
    // Cold lookups that must wait for tree blocks from the writer.
    expect(await reader.waitFor('/seg3.ts', { timeoutMs: 20_000 })).toEqual({ byteLength: 2_000 })
    expect(b4a.equals(await reader.readFile('/seg37.ts'), segs[37]!)).toBe(true)
    expect((await reader.playlist()).segments.map((s) => s.uri)).toEqual(['seg38.ts', 'seg39.ts'])
    expect(messages).toBe(0)
  })

  it('after the writer clears expired blocks, a reader still fetches every block the writer kept (hypercore drop/want workaround)', async (t) => {
    const net = await createTestnet(t)
    const encryptionKey = key32()
    const w = storeIn(t)
    const writer = await writerOn(t, { store: w.store, encryptionKey })
    const segs = [0, 1, 2, 3, 4, 5].map((n) => segmentBytes(n, 100_000))
    for (let n = 0; n < 4; n++) await writer.putSegment(`seg${n}.ts`, segs[n]!)
    await writer.putPlaylist(playlistOf([0, 1, 2, 3]))
    const r = storeIn(t)
    const reader = await readerOn(t, r.store, writer.feedKey, encryptionKey)
    await link(writer.discoveryKey, peerSwarm(net, w.store), peerSwarm(net, r.store))
    expect(b4a.equals(await reader.readFile('/seg0.ts', { timeoutMs: 20_000 }), segs[0]!)).toBe(true)

    // The reader once asks for blocks the writer does not have yet (as a live reader
    // waiting at the edge does): hypercore sends a 'want' for each core's batch.
    const blobs = (await reader.drive.getBlobs())!
    await Promise.all([reader.drive.core, blobs.core].map((core) => core.get(core.length + 2, { timeout: 300 }).catch(() => null)))

    // The writer moves on: seg0 expires (a drop below everything the reader saw as contiguous).
    for (const n of [4, 5]) {
      await writer.putSegment(`seg${n}.ts`, segs[n]!)
      await writer.putPlaylist(playlistOf([n - 3, n - 2, n - 1, n]))
    }
    // Blocks written before the drop and never fetched by the reader are still served.
    for (const n of [2, 3, 4, 5]) expect(b4a.equals(await reader.readFile(`/seg${n}.ts`, { timeoutMs: 5000 }), segs[n]!), `seg${n}`).toBe(true)
    expect((await reader.playlist({ timeoutMs: 5000 })).mediaSequence).toBe(2)
  })

  it('a peer with a wrong key or no key cannot recover the plaintext', async (t) => {
    const net = await createTestnet(t)
    const w = storeIn(t)
    const writer = await writerOn(t, { store: w.store, keep: 'all' })
    const secret = segmentBytes(0, 100_000)
    await writer.putSegment('seg0.ts', secret)
    await writer.putPlaylist(playlistOf([0]))
    const writerSwarm = peerSwarm(net, w.store)

    // Wrong key through the reader API: the drive's metadata does not decode.
    const r1 = storeIn(t)
    const wrong = await readerOn(t, r1.store, writer.feedKey, key32())
    await link(writer.discoveryKey, writerSwarm, peerSwarm(net, r1.store))
    expect((await rejection(wrong.readFile('/seg0.ts', { timeoutMs: 20_000 }))).code).toBe('FEED_DECRYPT_FAILED')

    // No key at all, with Hyperdrive directly: the metadata is ciphertext too.
    const r2 = storeIn(t)
    const keyless = new Hyperdrive(r2.store.session(), writer.feedKey)
    t.onTestFinished(() => keyless.close())
    await keyless.ready()
    const s2 = peerSwarm(net, r2.store)
    s2.join(writer.discoveryKey, { server: false, client: true })
    await withTimeout(s2.flush(), 15_000, 'keyless peer flush')
    await withTimeout(keyless.update({ wait: true }), 15_000, 'keyless update')
    // The header and every node are ciphertext: hyperbee cannot decode them. Which decoder gives
    // up first depends on the random bytes (hyperbee's DECODING_ERROR for the header, or the
    // protobuf decoder of a node that random bytes happened to get past), so any rejection counts.
    const err = await withTimeout(rejection(keyless.get('/seg0.ts')), 15_000, 'keyless read')
    expect(err).toBeInstanceOf(Error)
  })

  it('a keyless mirror replicates the blob core by blobsKey (ciphertext only) and serves a keyed reader alone', async (t) => {
    const net = await createTestnet(t)
    const encryptionKey = key32()
    const w = storeIn(t)
    const writer = await writerOn(t, { store: w.store, encryptionKey, keep: 'all' })
    const seg0 = segmentBytes(0, 200_000)
    await writer.putSegment('seg0.ts', seg0)
    await writer.putPlaylist(playlistOf([0]))
    const blobsKey = await writer.blobsKey()
    const writerSwarm = peerSwarm(net, w.store)
    await withTimeout(writerSwarm.join(writer.discoveryKey, { server: true, client: false }).flushed(), 15_000, 'writer announce')

    // The mirror knows feedKey and blobsKey, never the content key.
    const m = storeIn(t)
    const blobCore = m.store.get({ key: blobsKey })
    const metaCore = m.store.get({ key: writer.feedKey })
    await Promise.all([blobCore.ready(), metaCore.ready()])
    const mirrorSwarm = peerSwarm(net, m.store)
    mirrorSwarm.join(writer.discoveryKey, { server: true, client: true })
    await withTimeout(mirrorSwarm.flush(), 15_000, 'mirror flush')
    await withTimeout(Promise.all([blobCore.update({ wait: true }), metaCore.update({ wait: true })]), 15_000, 'mirror update')
    expect(blobCore.length).toBeGreaterThanOrEqual(4)
    await withTimeout(Promise.all([
      blobCore.download({ start: 0, end: blobCore.length }).done(),
      metaCore.download({ start: 0, end: metaCore.length }).done()
    ]), 15_000, 'mirror download')
    expect(await blobCore.has(0, blobCore.length)).toBe(true)
    const cipher = b4a.concat(await Promise.all(Array.from({ length: blobCore.length }, (_, i) => blobCore.get(i) as Promise<Buffer>)))
    expect(cipher.byteLength).toBeGreaterThan(seg0.byteLength)
    expect(cipher.includes(Buffer.from(seg0.subarray(1000, 1064)))).toBe(false)
    expect(cipher.includes(Buffer.from(seg0.subarray(150_000, 150_064)))).toBe(false)

    // Writer gone: a reader with the key reads everything from the keyless mirror.
    await writerSwarm.destroy()
    const r = storeIn(t)
    const reader = await readerOn(t, r.store, writer.feedKey, encryptionKey)
    const readerSwarm = peerSwarm(net, r.store)
    readerSwarm.join(writer.discoveryKey, { server: false, client: true })
    expect(b4a.equals(await reader.readFile('/seg0.ts', { timeoutMs: 20_000 }), seg0)).toBe(true)
    expect((await reader.playlist()).segments).toEqual([{ uri: 'seg0.ts', duration: 1 }])
  })
})
