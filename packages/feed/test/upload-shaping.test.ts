import { describe, expect, it } from 'vitest'
import b4a from 'b4a'
import { RELAY_IDLE_MS, createEgressBudget, refuseUploads, shapeUploads, watchOrigins } from '@arus/feed'
import type { FeedWriterInit } from '@arus/feed'
import { createTestnet, waitFor, withTimeout } from '@arus/testkit'
import type { TestContextLike } from '@arus/testkit'
import { key32, peerSwarm, playlistOf, readerOn, segmentBytes, storeIn, writerOn } from './helpers.js'

// Functional, not timed: with shaping, the origin answers each block to one peer at once
// and holds the rest; the viewers, which re-seed to each other, fill in from one another.

/** A writer holding `seg0.ts` of `bytes` bytes, its store announced on the testnet as the origin. */
async function liveOrigin (t: TestContextLike, bytes: number, init: Partial<FeedWriterInit> = {}) {
  const net = await createTestnet(t)
  const encryptionKey = key32()
  const w = storeIn(t)
  const writer = await writerOn(t, { store: w.store, encryptionKey, ...init })
  await writer.putSegment('seg0.ts', segmentBytes(0, bytes))
  await writer.putPlaylist(playlistOf([0]))
  const swarm = peerSwarm(net, w.store)
  await withTimeout(swarm.join(writer.discoveryKey, { server: true, client: false }).flushed(), 15_000, 'origin announce')
  return { net, encryptionKey, writer, swarm }
}

/**
 * A reader of the origin's feed on its own store and swarm. 'reseed' announces too (so the
 * readers connect to each other); 'client' only looks up, so it meets the origin and never
 * another client.
 */
async function readerOf (t: TestContextLike, origin: Awaited<ReturnType<typeof liveOrigin>>, mode: 'reseed' | 'client') {
  const r = storeIn(t)
  const reader = await readerOn(t, r.store, origin.writer.feedKey, origin.encryptionKey)
  const swarm = peerSwarm(origin.net, r.store)
  const joined = swarm.join(origin.writer.discoveryKey, { server: mode === 'reseed', client: true })
  if (mode === 'reseed') await withTimeout(joined.flushed(), 15_000, 'reader announce')
  return { reader, swarm }
}

describe('origin upload shaping', () => {
  it('with 3 re-seeding readers, blocks reach readers from other readers and the origin uploads each block about once', async (t) => {
    const o = await liveOrigin(t, 1000)
    const writer = o.writer
    const blobs = writer.drive.blobs!.core
    // A hold far beyond any loopback relay time: released requests would show up as origin uploads.
    const shaper = shapeUploads(blobs, { peersPerBlock: 1, holdMs: 30_000 })
    t.onTestFinished(() => shaper.close())

    const origin = o.swarm
    const readers = []
    for (let i = 0; i < 3; i++) readers.push(await readerOf(t, o, 'reseed'))
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
    const o = await liveOrigin(t, 65_536)
    const shaper = shapeUploads(o.writer.drive.blobs!.core, { peersPerBlock: 1, holdMs: 200, freshMs: 0 })
    t.onTestFinished(() => shaper.close())
    // Two readers that never meet each other (clients only): the second can only get it from the origin.
    for (let i = 0; i < 2; i++) {
      const { reader } = await readerOf(t, o, 'client')
      expect((await reader.readFile('/seg0.ts', { timeoutMs: 20_000 })).byteLength).toBe(65_536)
    }
    expect(shaper.stats().released).toBeGreaterThan(0)
  }, 60_000)

  it('with a budget, every block answer goes through it (a relay first) and the reads complete', async (t) => {
    const o = await liveOrigin(t, 65_536)
    const blobs = o.writer.drive.blobs!.core
    const budget = createEgressBudget({ bytesPerSecond: 200_000, burstMs: 0 })
    t.onTestFinished(() => budget.close())
    const relay = await readerOf(t, o, 'client')
    const relayKey = hexKey(relay.swarm.keyPair.publicKey)
    await relay.reader.drive.getBlobs()
    await waitFor(() => blobs.peers.some((p) => hexKey(p.remotePublicKey) === relayKey), { timeoutMs: 20_000, message: 'relay on the blob core' })
    const shaper = shapeUploads(blobs, { peersPerBlock: 2, holdMs: 200, freshMs: 0, relays: [relayKey], budget })
    t.onTestFinished(() => shaper.close())
    let answers = 0
    blobs.on('upload', () => { answers++ })
    expect((await relay.reader.readFile('/seg0.ts', { timeoutMs: 20_000 })).byteLength).toBe(65_536)
    const afterRelay = budget.stats()
    expect(afterRelay.admitted).toBeGreaterThan(0)
    expect(afterRelay.bytes).toBeGreaterThan(0)
    // A second segment: 256 kB through a 200 kB/s budget makes answers wait, and both readers still get it.
    await o.writer.putSegment('seg1.ts', segmentBytes(1, 262_144))
    await o.writer.putPlaylist(playlistOf([0, 1]))
    const viewer = await readerOf(t, o, 'client')
    const [a, b] = await Promise.all([
      relay.reader.readFile('/seg1.ts', { timeoutMs: 30_000 }),
      viewer.reader.readFile('/seg1.ts', { timeoutMs: 30_000 })
    ])
    expect(a.byteLength).toBe(262_144)
    expect(b.byteLength).toBe(262_144)
    expect(budget.stats().waited).toBeGreaterThan(0)
    expect(budget.stats().admitted).toBeGreaterThan(afterRelay.admitted)
    expect(budget.stats().admitted).toBeGreaterThanOrEqual(answers)
  }, 60_000)

  it('with a budget, a block asked together with a length or a proof waits for it too; a request without a block does not', () => {
    // The wire peer as hypercore 11 hands it to shaping (its request handler and remote key).
    const answered: number[] = []
    const peer = { onrequest (msg: { id: number }) { answered.push(msg.id) }, oncancel () {}, stream: { remotePublicKey: key32() } }
    const core = { peers: [peer], length: 10, byteLength: 10 * 65_536, on () {}, off () {} } as any
    const budget = createEgressBudget({ bytesPerSecond: 1000, burstMs: 0 })
    const shaper = shapeUploads(core, { budget })
    try {
      const upgrade = { start: 0, length: 10 }
      // The first answer takes the budget (64 kB at 1 kB/s: a minute)...
      peer.onrequest({ id: 1, block: { index: 4 }, hash: null, seek: null, upgrade: null } as any)
      // ...so a block asked with the length waits behind it, and a length alone does not.
      peer.onrequest({ id: 2, block: { index: 3 }, hash: null, seek: null, upgrade } as any)
      peer.onrequest({ id: 3, block: null, hash: null, seek: null, upgrade } as any)
      expect(answered).toEqual([1, 3])
      expect(budget.stats().queued).toBe(1)
    } finally {
      shaper.close()
      budget.close()
    }
  })

  it('a viewer asking for a block an active relay already has is sent there once ("no data", no back-off); asked again, it is held', () => {
    const relayKey = key32()
    const noData: Array<{ request: number; reason: number }> = []
    const answered: string[] = []
    const relay = { onrequest (msg: { id: number }) { answered.push(`relay:${msg.id}`) }, oncancel () {}, stream: { remotePublicKey: relayKey } }
    const viewer = {
      onrequest (msg: { id: number }) { answered.push(`viewer:${msg.id}`) },
      oncancel () {},
      stream: { remotePublicKey: key32() },
      wireNoData: { send (m: { request: number; reason: number }) { noData.push(m) } }
    }
    const core = { peers: [relay, viewer], key: null, length: 10, byteLength: 10 * 65_536, on () {}, off () {}, registerExtension: () => ({ send () {}, destroy () {} }) } as any
    const shaper = shapeUploads(core, { peersPerBlock: 2, holdMs: 60_000, freshMs: 0, relays: [hexKey(relayKey)] })
    try {
      const plain = (id: number, index: number) => ({ id, block: { index }, hash: null, seek: null, upgrade: null }) as any
      relay.onrequest(plain(1, 3))
      expect(answered).toEqual(['relay:1'])
      // The viewer asks for block 3: the relay has it, so "no data" with reason 0 (hypercore counts no back-off).
      viewer.onrequest(plain(7, 3))
      expect(noData).toEqual([{ request: 7, reason: 0 }])
      expect(shaper.stats().bounced).toBe(1)
      // It asks the origin again for the same block (it chose the origin again): held, not bounced twice.
      viewer.onrequest(plain(8, 3))
      expect(noData).toHaveLength(1)
      expect(shaper.stats().held).toBe(1)
      expect(answered).toEqual(['relay:1'])
    } finally {
      shaper.close()
    }
  })

  it('is a writer option: uploadShaping shapes the blob core and stats() reports uploads', async (t) => {
    const o = await liveOrigin(t, 8 * 65_536, { uploadShaping: { peersPerBlock: 1, holdMs: 30_000 } })
    const writer = o.writer
    const readers = []
    for (let i = 0; i < 2; i++) readers.push(await readerOf(t, o, 'reseed'))
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
  async function originWithOneBlock (t: TestContextLike) {
    const o = await liveOrigin(t, 65_536)
    // holdMs far beyond the reads' own bounds: a request that waits for it fails the test.
    // freshMs 0: seg0 was written before shaping began, and would otherwise count as old.
    const shaper = shapeUploads(o.writer.drive.blobs!.core, { peersPerBlock: 1, holdMs: 60_000, freshMs: 0 })
    t.onTestFinished(() => shaper.close())
    // Client-only readers: they meet the origin, never each other.
    return { shaper, reader: () => readerOf(t, o, 'client') }
  }

  it('answers at once a block whose receivers have all left', async (t) => {
    const { shaper, reader } = await originWithOneBlock(t)
    const first = await reader()
    expect((await first.reader.readFile('/seg0.ts', { timeoutMs: 20_000 })).byteLength).toBe(65_536)
    await first.reader.close()
    await first.swarm.destroy()
    await waitFor(() => first.swarm.connections.size === 0, { timeoutMs: 10_000, message: 'first reader gone' })
    const second = await reader()
    expect((await second.reader.readFile('/seg0.ts', { timeoutMs: 20_000 })).byteLength).toBe(65_536)
    expect(shaper.stats().held).toBe(0)
  }, 60_000)

  it('answers a held request as soon as the last receiver of its block leaves', async (t) => {
    const { shaper, reader } = await originWithOneBlock(t)
    const first = await reader()
    expect((await first.reader.readFile('/seg0.ts', { timeoutMs: 20_000 })).byteLength).toBe(65_536)
    const second = await reader()
    const read = second.reader.readFile('/seg0.ts', { timeoutMs: 30_000 })
    read.catch(() => {})
    // The first reader is still here (though unreachable for the second): the request waits.
    await waitFor(() => shaper.stats().held > 0, { timeoutMs: 20_000, message: 'request held' })
    expect(shaper.stats().released).toBe(0)
    await first.reader.close()
    await first.swarm.destroy()
    expect((await read).byteLength).toBe(65_536)
    expect(shaper.stats().released).toBeGreaterThan(0)
  }, 60_000)

  it('does not hold a request for a receiver that does not upload (a client-only viewer cannot relay)', async (t) => {
    const { shaper, reader } = await originWithOneBlock(t)
    const phone = await reader()
    const blobs = (await phone.reader.drive.getBlobs())!.core
    const refusal = refuseUploads(blobs)
    t.onTestFinished(() => refusal.close())
    expect((await phone.reader.readFile('/seg0.ts', { timeoutMs: 20_000 })).byteLength).toBe(65_536)
    // The phone is still here, but it said it uploads nothing: the next reader is served at once.
    const second = await reader()
    expect((await second.reader.readFile('/seg0.ts', { timeoutMs: 20_000 })).byteLength).toBe(65_536)
    expect(shaper.stats().held).toBe(0)
  }, 60_000)

  it('answers at once a request for a block older than freshMs (a viewer catching up is not held)', async (t) => {
    const o = await liveOrigin(t, 1000)
    const blobs = o.writer.drive.blobs!.core
    const shaper = shapeUploads(blobs, { peersPerBlock: 1, holdMs: 60_000, freshMs: 1_000 })
    t.onTestFinished(() => shaper.close())
    await o.writer.putSegment('seg1.ts', segmentBytes(1, 65_536))
    await o.writer.putPlaylist(playlistOf([0, 1]))
    const first = await readerOf(t, o, 'client')
    expect((await first.reader.readFile('/seg1.ts', { timeoutMs: 20_000 })).byteLength).toBe(65_536)
    // seg1's block is now older than freshMs; its receiver is still here but the next reader
    // (who cannot reach it) is answered at once instead of after the 60 s hold.
    await new Promise((resolve) => setTimeout(resolve, 1_200))
    const second = await readerOf(t, o, 'client')
    expect((await second.reader.readFile('/seg1.ts', { timeoutMs: 20_000 })).byteLength).toBe(65_536)
    expect(shaper.stats()).toMatchObject({ held: 0 })
    expect(shaper.stats().late).toBeGreaterThan(0)
  }, 60_000)

  // Trusted relays (repeaters): while one is here, the origin's copy of a block goes to it
  // and the viewers wait for it to pass the block on.
  const hexKey = (key: Uint8Array): string => b4a.toString(key, 'hex')

  it('a trusted relay gets every block first; readers get them from it', async (t) => {
    const o = await liveOrigin(t, 1000)
    const blobs = o.writer.drive.blobs!.core
    const relay = await readerOf(t, o, 'reseed')
    const relayKey = hexKey(relay.swarm.keyPair.publicKey)
    // A hold far beyond any loopback relay time: released requests would show up as origin uploads.
    const shaper = shapeUploads(blobs, { peersPerBlock: 2, holdMs: 30_000, relays: [relayKey] })
    t.onTestFinished(() => shaper.close())
    // The relay mirrors the blob core as it grows, as a repeater does.
    const relayBlobs = (await relay.reader.drive.getBlobs())!.core
    // The relay learns which peer is the origin (origin-proof.ts): the proof comes again with its first request.
    const origins = watchOrigins(relayBlobs)
    t.onTestFinished(() => origins.close())
    const mirror = relayBlobs.download({ start: 0, end: -1 })
    t.onTestFinished(() => mirror.destroy())

    const readers = []
    for (let i = 0; i < 3; i++) readers.push(await readerOf(t, o, 'reseed'))
    const all = [relay, ...readers]
    await waitFor(() => all.every(({ swarm }) => swarm.connections.size >= 4), { timeoutMs: 20_000, message: 'full mesh' })
    for (const { reader } of readers) await reader.waitFor('/seg0.ts', { timeoutMs: 20_000 })
    await waitFor(() => relayBlobs.contiguousLength >= blobs.length, { timeoutMs: 20_000, message: 'relay has seg0' })

    const uploadedTo = new Map<string, number>()
    blobs.on('upload', (_i: number, bytes: number, to: { remotePublicKey: Uint8Array }) => {
      const key = hexKey(to.remotePublicKey)
      uploadedTo.set(key, (uploadedTo.get(key) ?? 0) + bytes)
    })
    const fromRelay = { bytes: 0 }
    for (const { reader } of readers) {
      const core = (await reader.drive.getBlobs())!.core
      core.on('download', (_i: number, bytes: number, from: { remotePublicKey: Uint8Array }) => {
        if (hexKey(from.remotePublicKey) === relayKey) fromRelay.bytes += bytes
      })
    }
    const segment = segmentBytes(1, 16 * 65_536) // 16 blocks
    await o.writer.putSegment('seg1.ts', segment)
    await o.writer.putPlaylist(playlistOf([0, 1]))
    const copies = await Promise.all(readers.map(({ reader }) => withTimeout(reader.readFile('/seg1.ts', { timeoutMs: 25_000 }), 28_000, 'segment read')))
    for (const copy of copies) expect(b4a.equals(copy, segment)).toBe(true)

    let toReaders = 0
    let total = 0
    for (const [key, bytes] of uploadedTo) {
      total += bytes
      if (key !== relayKey) toReaders += bytes
    }
    // Each block leaves the origin once, to the relay, give or take a block or two.
    expect(total).toBeLessThanOrEqual(segment.byteLength + 2 * 65_536)
    expect(toReaders).toBeLessThanOrEqual(2 * 65_536)
    expect(fromRelay.bytes).toBeGreaterThan(0)
    expect(origins.count()).toBe(1)
    // The relay's transport, for the lab's diagnostics: its UDX stream's round trip and window.
    const [transport] = shaper.stats().relayTransport!
    expect(transport!.rtt).toBeTypeOf('number')
    expect(transport!.bytesTransmitted).toBeGreaterThan(segment.byteLength)
    const s = shaper.stats()
    expect(s.relayServed).toBeGreaterThanOrEqual(16)
    expect(s.held).toBeGreaterThan(0)
    expect(s.released).toBe(0)
  }, 90_000)

  it('without a connected relay, shaping is as before', async (t) => {
    const o = await liveOrigin(t, 65_536)
    // The relay is configured but never comes. holdMs beyond the reads' bounds: a held read fails.
    const shaper = shapeUploads(o.writer.drive.blobs!.core, { peersPerBlock: 2, holdMs: 60_000, freshMs: 0, relays: [hexKey(key32())] })
    t.onTestFinished(() => shaper.close())
    // The first peersPerBlock readers are served at once.
    for (let i = 0; i < 2; i++) {
      const { reader } = await readerOf(t, o, 'client')
      expect((await reader.readFile('/seg0.ts', { timeoutMs: 20_000 })).byteLength).toBe(65_536)
    }
    expect(shaper.stats()).toMatchObject({ held: 0, relayServed: 0 })
    // The next one waits for them, as without relays.
    const third = await readerOf(t, o, 'client')
    third.reader.readFile('/seg0.ts', { timeoutMs: 30_000 }).catch(() => {})
    await waitFor(() => shaper.stats().held > 0, { timeoutMs: 20_000, message: 'request held' })
  }, 60_000)

  /** A relay connected on the blob core that has asked the origin for seg0 (so it is active). */
  async function askingRelay (t: TestContextLike, o: Awaited<ReturnType<typeof liveOrigin>>, opts: { freshMs?: number; holdMs?: number } = {}) {
    const blobs = o.writer.drive.blobs!.core
    const relay = await readerOf(t, o, 'client')
    const relayKey = hexKey(relay.swarm.keyPair.publicKey)
    await relay.reader.drive.getBlobs()
    await waitFor(() => blobs.peers.some((p) => hexKey(p.remotePublicKey) === relayKey), { timeoutMs: 20_000, message: 'relay on the blob core' })
    // freshMs 0: seg0 (written before shaping began) counts as fresh, so a viewer waits for the relay.
    const shaper = shapeUploads(blobs, { peersPerBlock: 2, holdMs: opts.holdMs ?? 60_000, freshMs: opts.freshMs ?? 0, relays: [relayKey] })
    t.onTestFinished(() => shaper.close())
    expect((await relay.reader.readFile('/seg0.ts', { timeoutMs: 20_000 })).byteLength).toBe(65_536)
    expect(shaper.stats().relayServed).toBeGreaterThan(0)
    return { relay, shaper }
  }

  it('a held request is released when the relay leaves', async (t) => {
    const o = await liveOrigin(t, 65_536)
    const { relay, shaper } = await askingRelay(t, o)
    // seg1, written now: the relay has not asked for it yet, the viewer's request waits for it.
    await o.writer.putSegment('seg1.ts', segmentBytes(1, 65_536))
    await o.writer.putPlaylist(playlistOf([0, 1]))
    const viewer = await readerOf(t, o, 'client')
    const read = viewer.reader.readFile('/seg1.ts', { timeoutMs: 30_000 })
    read.catch(() => {})
    await waitFor(() => shaper.stats().held > 0, { timeoutMs: 20_000, message: 'request held' })
    expect(shaper.stats().released).toBe(0)
    await relay.reader.close()
    await relay.swarm.destroy()
    expect((await read).byteLength).toBe(65_536)
    expect(shaper.stats().released).toBeGreaterThan(0)
  }, 60_000)

  it('an older block at or above what the relay asked for first is held for it too (not sent twice)', async (t) => {
    const o = await liveOrigin(t, 65_536)
    const { relay, shaper } = await askingRelay(t, o, { freshMs: 1 })
    await o.writer.putSegment('seg1.ts', segmentBytes(1, 65_536))
    await o.writer.putPlaylist(playlistOf([0, 1]))
    await new Promise((resolve) => setTimeout(resolve, 50)) // seg1 is no longer fresh
    const viewer = await readerOf(t, o, 'client')
    const read = viewer.reader.readFile('/seg1.ts', { timeoutMs: 30_000 })
    read.catch(() => {})
    await waitFor(() => shaper.stats().held > 0, { timeoutMs: 20_000, message: 'request held for the relay' })
    expect(shaper.stats().late).toBe(0)
    // The relay fetches it; the viewer is answered (by the relay, or by the origin when the relay leaves).
    expect((await relay.reader.readFile('/seg1.ts', { timeoutMs: 20_000 })).byteLength).toBe(65_536)
    await relay.reader.close()
    await relay.swarm.destroy()
    expect((await read).byteLength).toBe(65_536)
  }, 60_000)

  it('a request waiting for an active relay that will have its block outlasts holdMs; released once the relay goes quiet', async (t) => {
    const o = await liveOrigin(t, 65_536)
    // The viewer is connected first, so its request follows the relay's within well under RELAY_IDLE_MS.
    const viewer = await readerOf(t, o, 'client')
    await viewer.reader.readFile('/seg0.ts', { timeoutMs: 20_000 })
    const { shaper } = await askingRelay(t, o, { holdMs: 200 })
    await o.writer.putSegment('seg1.ts', segmentBytes(1, 65_536))
    await o.writer.putPlaylist(playlistOf([0, 1]))
    const read = viewer.reader.readFile('/seg1.ts', { timeoutMs: 30_000 })
    read.catch(() => {})
    await waitFor(() => shaper.stats().held > 0, { timeoutMs: 20_000, intervalMs: 20, message: 'request held' })
    // Several hold periods later it still waits: the relay asked less than RELAY_IDLE_MS ago.
    await new Promise((resolve) => setTimeout(resolve, 700))
    expect(shaper.stats().released).toBe(0)
    // The relay never fetches seg1 and goes quiet: the request is answered.
    expect((await read).byteLength).toBe(65_536)
    expect(shaper.stats().released).toBe(1)
  }, 60_000)

  it('a relay that stopped asking (dead, its connection not yet timed out) is not waited for', async (t) => {
    const o = await liveOrigin(t, 65_536)
    const { shaper } = await askingRelay(t, o)
    // The relay stays connected and asks for nothing more, as a killed process would.
    await new Promise((resolve) => setTimeout(resolve, RELAY_IDLE_MS + 500))
    await o.writer.putSegment('seg1.ts', segmentBytes(1, 65_536))
    await o.writer.putPlaylist(playlistOf([0, 1]))
    const viewer = await readerOf(t, o, 'client')
    // holdMs is 60 s, beyond this read's bound: a held request would fail it.
    expect((await viewer.reader.readFile('/seg1.ts', { timeoutMs: 30_000 })).byteLength).toBe(65_536)
    expect(shaper.stats().held).toBe(0)
    // Counted as answered because no relay was active (the lab's diagnostics read this).
    expect(shaper.stats().viewerServed.noRelay).toBeGreaterThan(0)
    expect(shaper.stats().viewerServed.repeat).toBe(0)
  }, 60_000)

  it('refuses a relays value that is not a list of 64-character hex keys', async (t) => {
    const core = (await writerOn(t)).drive.blobs!.core
    for (const relays of [['zz'], ['ab'.repeat(31)], ['ab'.repeat(32), 'ab'.repeat(33)], 'ab'.repeat(32)]) {
      let err: unknown
      try {
        shapeUploads(core, { relays })
      } catch (e) {
        err = e
      }
      expect(err).toMatchObject({ code: 'FEED_INVALID_ARGUMENT' })
    }
    shapeUploads(core, { relays: new Set(['AB'.repeat(32)]) }).close() // any case, any iterable
  })

  it('refuses bad options', async (t) => {
    const writer = await writerOn(t)
    expect(() => shapeUploads(writer.drive.blobs!.core, { peersPerBlock: 0 })).toThrow(/peersPerBlock/)
    expect(() => shapeUploads(writer.drive.blobs!.core, { holdMs: -1 })).toThrow(/holdMs/)
    expect(() => shapeUploads(writer.drive.blobs!.core, { freshMs: -1 })).toThrow(/freshMs/)
  })
})
