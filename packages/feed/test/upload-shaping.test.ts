import { describe, expect, it } from 'vitest'
import b4a from 'b4a'
import { shapeUploads } from '@arus/feed'
import { createTestnet, waitFor, withTimeout } from '@arus/testkit'
import { key32, peerSwarm, playlistOf, readerOn, segmentBytes, storeIn, writerOn } from './helpers.js'

// Functional, not timed: with shaping, the origin answers each block to one peer at once
// and holds the rest; the viewers, which re-seed to each other, fill in from one another.

describe('origin upload shaping', () => {
  it('with 3 re-seeding readers, blocks reach readers from other readers and the origin uploads each block about once', async (t) => {
    const net = await createTestnet(t)
    const encryptionKey = key32()
    const w = storeIn(t)
    const writer = await writerOn(t, { store: w.store, encryptionKey })
    await writer.putSegment('seg0.ts', segmentBytes(0, 1000))
    await writer.putPlaylist(playlistOf([0]))
    const blobs = writer.drive.blobs!.core
    // A hold far beyond any loopback relay time: released requests would show up as origin uploads.
    const shaper = shapeUploads(blobs, { peersPerBlock: 1, holdMs: 30_000 })
    t.onTestFinished(() => shaper.close())

    const origin = peerSwarm(net, w.store)
    await withTimeout(origin.join(writer.discoveryKey, { server: true, client: false }).flushed(), 15_000, 'origin announce')
    const readers = []
    for (let i = 0; i < 3; i++) {
      const r = storeIn(t)
      const reader = await readerOn(t, r.store, writer.feedKey, encryptionKey)
      const swarm = peerSwarm(net, r.store)
      // Re-seeding viewers announce too, so they connect to each other.
      await withTimeout(swarm.join(writer.discoveryKey, { server: true, client: true }).flushed(), 15_000, 'reader announce')
      readers.push({ reader, swarm })
    }
    await waitFor(() => readers.every(({ swarm }) => swarm.connections.size >= 3), { timeoutMs: 20_000, message: 'full mesh' })
    for (const { reader } of readers) await reader.waitFor('/seg0.ts', { timeoutMs: 20_000 })

    const originKey = b4a.toString(origin.keyPair.publicKey, 'hex')
    const fromOrigin = { bytes: 0 }
    const fromPeers = { bytes: 0 }
    let uploaded = 0
    blobs.on('upload', (_i: number, bytes: number) => { uploaded += bytes })
    const segment = segmentBytes(1, 16 * 65_536) // 16 blocks
    for (const { reader } of readers) {
      const core = (await reader.drive.getBlobs())!.core
      core.on('download', (_i: number, bytes: number, from: { remotePublicKey: Uint8Array }) => {
        if (b4a.toString(from.remotePublicKey, 'hex') === originKey) fromOrigin.bytes += bytes
        else fromPeers.bytes += bytes
      })
    }
    await writer.putSegment('seg1.ts', segment)
    await writer.putPlaylist(playlistOf([0, 1]))
    const copies = await Promise.all(readers.map(({ reader }) => withTimeout(reader.readFile('/seg1.ts', { timeoutMs: 25_000 }), 28_000, 'segment read')))
    for (const copy of copies) expect(b4a.equals(copy, segment)).toBe(true)

    expect(fromPeers.bytes).toBeGreaterThan(0) // at least one reader got blocks from another reader
    expect(fromOrigin.bytes + fromPeers.bytes).toBeGreaterThanOrEqual(3 * segment.byteLength)
    // Each block leaves the origin once, give or take a block requested twice by one peer.
    expect(uploaded).toBeLessThan(1.5 * segment.byteLength)
    const s = shaper.stats()
    expect(s.held).toBeGreaterThan(0)
    expect(s.cancelled).toBeGreaterThan(0)
    expect(s.released).toBe(0)
  }, 90_000)

  it('releases a held request after holdMs when nobody else has the block', async (t) => {
    const net = await createTestnet(t)
    const encryptionKey = key32()
    const w = storeIn(t)
    const writer = await writerOn(t, { store: w.store, encryptionKey })
    await writer.putSegment('seg0.ts', segmentBytes(0, 65_536))
    await writer.putPlaylist(playlistOf([0]))
    const shaper = shapeUploads(writer.drive.blobs!.core, { peersPerBlock: 1, holdMs: 200 })
    t.onTestFinished(() => shaper.close())
    const origin = peerSwarm(net, w.store)
    await withTimeout(origin.join(writer.discoveryKey, { server: true, client: false }).flushed(), 15_000, 'origin announce')
    // Two readers that never meet each other (clients only): the second can only get it from the origin.
    for (let i = 0; i < 2; i++) {
      const r = storeIn(t)
      const reader = await readerOn(t, r.store, writer.feedKey, encryptionKey)
      peerSwarm(net, r.store).join(writer.discoveryKey, { server: false, client: true })
      expect((await reader.readFile('/seg0.ts', { timeoutMs: 20_000 })).byteLength).toBe(65_536)
    }
    expect(shaper.stats().released).toBeGreaterThan(0)
  }, 60_000)

  it('is a writer option: uploadShaping shapes the blob core and stats() reports uploads', async (t) => {
    const net = await createTestnet(t)
    const encryptionKey = key32()
    const w = storeIn(t)
    const writer = await writerOn(t, { store: w.store, encryptionKey, uploadShaping: { peersPerBlock: 1, holdMs: 30_000 } })
    await writer.putSegment('seg0.ts', segmentBytes(0, 8 * 65_536))
    await writer.putPlaylist(playlistOf([0]))
    await withTimeout(peerSwarm(net, w.store).join(writer.discoveryKey, { server: true, client: false }).flushed(), 15_000, 'origin announce')
    const readers = []
    for (let i = 0; i < 2; i++) {
      const r = storeIn(t)
      const reader = await readerOn(t, r.store, writer.feedKey, encryptionKey)
      const swarm = peerSwarm(net, r.store)
      await withTimeout(swarm.join(writer.discoveryKey, { server: true, client: true }).flushed(), 15_000, 'reader announce')
      readers.push({ reader, swarm })
    }
    await waitFor(() => readers.every(({ swarm }) => swarm.connections.size >= 2), { timeoutMs: 20_000, message: 'mesh' })
    await Promise.all(readers.map(({ reader }) => reader.readFile('/seg0.ts', { timeoutMs: 25_000 })))
    const stats = writer.stats()
    expect(stats.uploadedBytes).toBeGreaterThan(8 * 65_536)
    expect(stats.uploadedBytes).toBeLessThan(1.5 * 8 * 65_536 + 64 * 1024)
    expect(stats.shaping!.held).toBeGreaterThan(0)
    const plain = await writerOn(t)
    expect(plain.stats().shaping).toBeNull()
  }, 90_000)

  // A receiver that left cannot relay: holding for it would stall the newcomer for holdMs.
  async function originWithOneBlock (t: Parameters<typeof writerOn>[0]) {
    const net = await createTestnet(t)
    const encryptionKey = key32()
    const w = storeIn(t)
    const writer = await writerOn(t, { store: w.store, encryptionKey })
    await writer.putSegment('seg0.ts', segmentBytes(0, 65_536))
    await writer.putPlaylist(playlistOf([0]))
    // holdMs far beyond the reads' own bounds: a request that waits for it fails the test.
    const shaper = shapeUploads(writer.drive.blobs!.core, { peersPerBlock: 1, holdMs: 60_000 })
    t.onTestFinished(() => shaper.close())
    await withTimeout(peerSwarm(net, w.store).join(writer.discoveryKey, { server: true, client: false }).flushed(), 15_000, 'origin announce')
    // Client-only readers: they meet the origin, never each other.
    const reader = async () => {
      const r = storeIn(t)
      const feed = await readerOn(t, r.store, writer.feedKey, encryptionKey)
      const swarm = peerSwarm(net, r.store)
      swarm.join(writer.discoveryKey, { server: false, client: true })
      return { feed, swarm, store: r.store }
    }
    return { writer, shaper, reader }
  }

  it('answers at once a block whose receivers have all left', async (t) => {
    const { shaper, reader } = await originWithOneBlock(t)
    const first = await reader()
    expect((await first.feed.readFile('/seg0.ts', { timeoutMs: 20_000 })).byteLength).toBe(65_536)
    await first.feed.close()
    await first.swarm.destroy()
    await waitFor(() => first.swarm.connections.size === 0, { timeoutMs: 10_000, message: 'first reader gone' })
    const second = await reader()
    expect((await second.feed.readFile('/seg0.ts', { timeoutMs: 20_000 })).byteLength).toBe(65_536)
    expect(shaper.stats().held).toBe(0)
  }, 60_000)

  it('answers a held request as soon as the last receiver of its block leaves', async (t) => {
    const { shaper, reader } = await originWithOneBlock(t)
    const first = await reader()
    expect((await first.feed.readFile('/seg0.ts', { timeoutMs: 20_000 })).byteLength).toBe(65_536)
    const second = await reader()
    const read = second.feed.readFile('/seg0.ts', { timeoutMs: 30_000 })
    read.catch(() => {})
    // The first reader is still here (though unreachable for the second): the request waits.
    await waitFor(() => shaper.stats().held > 0, { timeoutMs: 20_000, message: 'request held' })
    expect(shaper.stats().released).toBe(0)
    await first.feed.close()
    await first.swarm.destroy()
    expect((await read).byteLength).toBe(65_536)
    expect(shaper.stats().released).toBeGreaterThan(0)
  }, 60_000)

  it('refuses bad options', async (t) => {
    const writer = await writerOn(t)
    expect(() => shapeUploads(writer.drive.blobs!.core, { peersPerBlock: 0 })).toThrow(/peersPerBlock/)
    expect(() => shapeUploads(writer.drive.blobs!.core, { holdMs: -1 })).toThrow(/holdMs/)
  })
})
