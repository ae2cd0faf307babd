import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it, type TestContext } from 'vitest'
import b4a from 'b4a'
import { openFeedReader, removalGrace } from '@arus/feed'
import { createTestnet, waitFor } from '@arus/testkit'
import { collect, key32, link, peerSwarm, playlistOf, readerOn, rejection, segmentBytes, storeIn, writerOn } from './helpers.js'

// Every wait here must end near its bound: at least the bound, and well before the test's.
async function timed<T> (fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = Date.now()
  const value = await fn()
  return { value, ms: Date.now() - start }
}

/** A writer holding seg0 (300 KB) and its playlist, and a reader linked to it that knows seg0's entry. */
async function linkedSeg0 (t: TestContext) {
  const net = await createTestnet(t)
  const encryptionKey = key32()
  const w = storeIn(t)
  const writer = await writerOn(t, { store: w.store, encryptionKey })
  await writer.putSegment('seg0.ts', segmentBytes(0, 300_000))
  await writer.putPlaylist(playlistOf([0]))
  const r = storeIn(t)
  const reader = await readerOn(t, r.store, writer.feedKey, encryptionKey)
  const writerSwarm = peerSwarm(net, w.store)
  const readerSwarm = peerSwarm(net, r.store)
  await link(writer.discoveryKey, writerSwarm, readerSwarm)
  expect(await reader.waitFor('/seg0.ts', { timeoutMs: 20_000 })).toEqual({ byteLength: 300_000 })
  return { net, encryptionKey, w, writer, reader, writerSwarm, readerSwarm }
}

describe('bounded waits', () => {
  it('waitFor with no peer rejects with FEED_TIMEOUT after timeoutMs', async (t) => {
    const reader = await readerOn(t, storeIn(t).store, key32(), key32())
    const { value: err, ms } = await timed(() => rejection(reader.waitFor('/index.m3u8', { timeoutMs: 300 })))
    expect(err.code).toBe('FEED_TIMEOUT')
    expect(ms).toBeGreaterThanOrEqual(290)
    expect(ms).toBeLessThan(3000)
    expect(await reader.update({ wait: true, timeoutMs: 200 })).toBe(false)
  })

  it('waitFor for a path the writer never writes times out with a peer connected; abort is FEED_ABORTED', async (t) => {
    const net = await createTestnet(t)
    const encryptionKey = key32()
    const w = storeIn(t)
    const writer = await writerOn(t, { store: w.store, encryptionKey })
    await writer.putSegment('seg0.ts', segmentBytes(0))
    const r = storeIn(t)
    const reader = await readerOn(t, r.store, writer.feedKey, encryptionKey)
    await link(writer.discoveryKey, peerSwarm(net, w.store), peerSwarm(net, r.store))
    await reader.waitFor('/seg0.ts', { timeoutMs: 20_000 })

    const { value: err, ms } = await timed(() => rejection(reader.waitFor('/seg1.ts', { timeoutMs: 500 })))
    expect(err.code).toBe('FEED_TIMEOUT')
    expect(ms).toBeGreaterThanOrEqual(490)
    expect(ms).toBeLessThan(3000)

    const controller = new AbortController()
    const waiting = rejection(reader.waitFor('/seg1.ts', { timeoutMs: 20_000, signal: controller.signal }))
    setTimeout(() => controller.abort(new Error('zapped')), 100)
    const { value: aborted, ms: abortMs } = await timed(() => waiting)
    expect(aborted.code).toBe('FEED_ABORTED')
    expect(abortMs).toBeLessThan(3000)

    expect((await rejection(reader.readFile('/seg9.ts'))).code).toBe('FEED_NOT_FOUND')
    expect((await rejection(collect(reader.createReadStream('/seg9.ts')))).code).toBe('FEED_NOT_FOUND')
  })

  it('a read stream whose blocks stop arriving is destroyed with FEED_STALLED after stallMs', async (t) => {
    const { writer, reader, writerSwarm, encryptionKey } = await linkedSeg0(t)

    // The entry is known, but the only peer leaves before any content block is fetched.
    await writerSwarm.destroy()
    await waitFor(() => reader.peers() === 0, { timeoutMs: 10_000, message: 'writer gone' })
    const { value: err, ms } = await timed(() => rejection(collect(reader.createReadStream('/seg0.ts', { stallMs: 400 }))))
    expect(err.code).toBe('FEED_STALLED')
    expect(ms).toBeGreaterThanOrEqual(390)
    expect(ms).toBeLessThan(3000)

    // Before the entry is known, with no peer at all: the open is bounded by stallMs too.
    const lonely = await readerOn(t, storeIn(t).store, writer.feedKey, encryptionKey)
    const { value: err2, ms: ms2 } = await timed(() => rejection(collect(lonely.createReadStream('/seg0.ts', { stallMs: 300 }))))
    expect(err2.code).toBe('FEED_STALLED')
    expect(ms2).toBeLessThan(3000)
  })

  it('a read stream of a segment that expired meanwhile ends with FEED_NOT_FOUND as soon as the newer version arrives, not after stallMs', async (t) => {
    const { net, w, writer, reader, writerSwarm, readerSwarm } = await linkedSeg0(t)

    // The link drops before any content block came; the stream waits for them.
    await writerSwarm.destroy()
    await waitFor(() => reader.peers() === 0, { timeoutMs: 10_000, message: 'writer gone' })
    const blobs = (await reader.drive.getBlobs())!
    expect(await blobs.core.has(0)).toBe(false)
    const start = Date.now()
    const ended = rejection(collect(reader.createReadStream('/seg0.ts', { stallMs: 30_000 })))
    // Meanwhile the origin moves on: seg0 leaves the playlist and its removal grace runs out.
    for (let n = 1; n <= 1 + removalGrace(1); n++) {
      await writer.putSegment(`seg${n}.ts`, segmentBytes(n, 1_000))
      await writer.putPlaylist(playlistOf([n]))
    }
    expect(await writer.drive.entry('/seg0.ts')).toBeNull()
    // The link comes back: the newer version arrives, and the stream ends at once.
    const again = peerSwarm(net, w.store)
    await again.join(writer.discoveryKey, { server: true, client: false }).flushed()
    await readerSwarm.join(writer.discoveryKey, { server: false, client: true }).refresh()
    const err = await ended
    expect(err.code).toBe('FEED_NOT_FOUND')
    expect(Date.now() - start).toBeLessThan(15_000) // well before stallMs
    expect(await reader.stat('/seg0.ts', { timeoutMs: 5_000 })).toBeNull()
    expect(await reader.stat('/seg3.ts', { timeoutMs: 5_000 })).toEqual({ byteLength: 1_000 })
  })

  it('time the consumer spends not reading never counts as a stall', async (t) => {
    const net = await createTestnet(t)
    const encryptionKey = key32()
    const w = storeIn(t)
    const writer = await writerOn(t, { store: w.store, encryptionKey })
    const seg = segmentBytes(0, 400_000)
    await writer.putSegment('seg0.ts', seg)
    const r = storeIn(t)
    const reader = await readerOn(t, r.store, writer.feedKey, encryptionKey)
    await link(writer.discoveryKey, peerSwarm(net, w.store), peerSwarm(net, r.store))
    await reader.waitFor('/seg0.ts', { timeoutMs: 20_000 })

    const stream = reader.createReadStream('/seg0.ts', { stallMs: 150 })
    const chunks: Buffer[] = []
    for await (const chunk of stream) {
      chunks.push(chunk as Buffer)
      await sleep(250) // a slow player, longer than stallMs per chunk
    }
    expect(b4a.equals(Buffer.concat(chunks), seg)).toBe(true)
  })

  it('an aborted signal or a closed reader ends a stream with a coded error', async (t) => {
    const reader = await readerOn(t, storeIn(t).store, key32(), key32())
    const controller = new AbortController()
    const stream = reader.createReadStream('/seg0.ts', { signal: controller.signal, stallMs: 20_000 })
    setTimeout(() => controller.abort(), 50)
    expect((await rejection(collect(stream))).code).toBe('FEED_ABORTED')

    const open = reader.createReadStream('/seg0.ts', { stallMs: 20_000 })
    const ended = rejection(collect(open))
    await reader.close()
    expect((await ended).code).toBe('FEED_CLOSED')
    expect(() => reader.createReadStream('/seg0.ts')).toThrow(expect.objectContaining({ code: 'FEED_CLOSED' }))
    expect((await rejection(reader.waitFor('/seg0.ts'))).code).toBe('FEED_CLOSED')
  })

  it('refuses bad paths and options synchronously or with a rejection', async (t) => {
    const reader = await readerOn(t, storeIn(t).store, key32(), key32())
    expect(() => reader.createReadStream('/etc/passwd')).toThrow(expect.objectContaining({ code: 'FEED_BAD_PATH' }))
    expect(() => reader.createReadStream('/seg1.ts', { start: 10, end: 5 })).toThrow(expect.objectContaining({ code: 'FEED_INVALID_ARGUMENT' }))
    expect(() => reader.createReadStream('/seg1.ts', { start: -1 })).toThrow(expect.objectContaining({ code: 'FEED_INVALID_ARGUMENT' }))
    expect(() => reader.createReadStream('/seg1.ts', { stallMs: 0 })).toThrow(expect.objectContaining({ code: 'FEED_INVALID_ARGUMENT' }))
    expect((await rejection(reader.waitFor('seg1.mp4'))).code).toBe('FEED_BAD_PATH')
    expect((await rejection(reader.readFile('/index.m3u8', { timeoutMs: -5 }))).code).toBe('FEED_INVALID_ARGUMENT')
    expect(() => openFeedReader({ store: storeIn(t).store, feedKey: new Uint8Array(3), encryptionKey: key32() })).toThrow(expect.objectContaining({ code: 'FEED_INVALID_ARGUMENT' }))
  })
})
