import { describe, expect, it } from 'vitest'
import b4a from 'b4a'
import { createFeedWriter, removalGrace } from '@arus/feed'
import type { FeedWriter } from '@arus/feed'
import { key32, playlistOf, rejection, segmentBytes, storeIn, writerOn } from './helpers.js'

async function blobPresent (writer: FeedWriter, blob: { blockOffset: number; blockLength: number }): Promise<boolean> {
  const blobs = await writer.drive.getBlobs()
  for (let i = blob.blockOffset; i < blob.blockOffset + blob.blockLength; i++) if (await blobs!.core.has(i)) return true
  return false
}

describe('writer', () => {
  it('mints a drive: feedKey, discoveryKey and blobsKey after ready(), FEED_NOT_READY before', async (t) => {
    const writer = createFeedWriter({ store: storeIn(t).store, encryptionKey: key32() })
    t.onTestFinished(() => writer.close())
    expect(() => writer.feedKey).toThrow(expect.objectContaining({ code: 'FEED_NOT_READY' }))
    expect(() => writer.discoveryKey).toThrow(expect.objectContaining({ code: 'FEED_NOT_READY' }))
    await writer.ready()
    await writer.ready() // idempotent
    expect(writer.feedKey).toHaveLength(32)
    expect(writer.discoveryKey).toHaveLength(32)
    const blobsKey = await writer.blobsKey()
    expect(blobsKey).toHaveLength(32)
    expect(b4a.equals(blobsKey, writer.feedKey)).toBe(false)
    expect(writer.stats()).toEqual({ segments: 0, bytesWritten: 0, lastSequence: null, playlistVersion: 0, uploadedBytes: 0, shaping: null })
  })

  it('writes segments and playlists at the flat layout and counts them', async (t) => {
    const writer = await writerOn(t)
    const s0 = segmentBytes(0)
    await writer.putSegment('seg0.ts', s0)
    await writer.putSegment('/seg1.ts', segmentBytes(1))
    const text = playlistOf([0, 1])
    await writer.putPlaylist(text)
    expect(b4a.equals((await writer.drive.get('/seg0.ts'))!, s0)).toBe(true)
    expect(b4a.toString((await writer.drive.get('/index.m3u8'))!)).toBe(text)
    expect(writer.stats()).toEqual({ segments: 2, bytesWritten: 40_000 + Buffer.byteLength(text), lastSequence: 1, playlistVersion: 1, uploadedBytes: 0, shaping: null })
  })

  it('refuses a playlist that lists a segment not yet written, and an unchanged playlist writes nothing', async (t) => {
    const writer = await writerOn(t)
    await writer.putSegment('seg3.ts', segmentBytes(3))
    expect((await rejection(writer.putPlaylist(playlistOf([3, 4])))).code).toBe('FEED_MISSING_SEGMENT')
    expect(await writer.drive.entry('/index.m3u8')).toBeNull()
    await writer.putPlaylist(playlistOf([3]))
    const length = writer.drive.core.length
    await writer.putPlaylist(playlistOf([3]))
    expect(writer.drive.core.length).toBe(length)
    expect(writer.stats().playlistVersion).toBe(1)
  })

  it('refuses bad paths, URIs, bytes and options with coded errors', async (t) => {
    const writer = await writerOn(t)
    for (const name of ['seg01.ts', 'seg1.mp4', '../seg1.ts', '/a/seg1.ts', 'index.m3u8', 'seg.ts', 'seg-1.ts', '']) {
      expect((await rejection(writer.putSegment(name, segmentBytes(1)))).code, name).toBe('FEED_BAD_PATH')
    }
    expect((await rejection(writer.putSegment('seg1.ts', 'text' as unknown as Uint8Array))).code).toBe('FEED_INVALID_ARGUMENT')
    await writer.putSegment('seg1.ts', segmentBytes(1))
    const abs = '#EXTM3U\n#EXTINF:1,\n/seg1.ts\n'
    expect((await rejection(writer.putPlaylist(abs))).code).toBe('FEED_BAD_PATH')
    expect((await rejection(writer.putPlaylist('#EXTM3U\n#EXTINF:1,\nhttp://x/seg1.ts\n'))).code).toBe('FEED_BAD_PATH')
    expect((await rejection(writer.putPlaylist('not a playlist'))).code).toBe('FEED_BAD_PLAYLIST')
    expect((await rejection(writer.putPlaylist('#EXTM3U\n' + '#'.repeat(1024 * 1024)))).code).toBe('FEED_INVALID_ARGUMENT')
    const { store } = storeIn(t)
    const bad = [
      { store, encryptionKey: new Uint8Array(31) },
      { store, encryptionKey: key32(), feedKey: new Uint8Array(16) },
      { store, encryptionKey: key32(), keep: 'some' },
      { store: {}, encryptionKey: key32() }
    ]
    for (const init of bad) expect(() => createFeedWriter(init as never)).toThrow(expect.objectContaining({ code: 'FEED_INVALID_ARGUMENT' }))
    expect(() => writer.mirror('', {})).toThrow(expect.objectContaining({ code: 'FEED_INVALID_ARGUMENT' }))
    expect(() => writer.mirror('/tmp', { pollMs: 1 })).toThrow(expect.objectContaining({ code: 'FEED_INVALID_ARGUMENT' }))
  })

  it("keep 'window': segments that left the playlist lose their entry and blocks after the removal grace; superseded playlists are cleared one update late", async (t) => {
    const writer = await writerOn(t)
    const playlistBlobs = []
    const N = 12
    // Three listed, so a segment stays removalGrace(3) = 4 playlists after it left.
    const grace = removalGrace(3)
    expect(grace).toBe(4)
    for (let n = 0; n < N; n++) {
      await writer.putSegment(`seg${n}.ts`, segmentBytes(n))
      await writer.putPlaylist(playlistOf([n - 2, n - 1, n].filter((x) => x >= 0)))
      playlistBlobs.push((await writer.drive.entry('/index.m3u8'))!.value.blob!)
      // seg k leaves with playlist k + 3 and is expired by playlist k + 3 + grace.
      const expired = n - 3 - grace
      if (expired >= 0) expect(await writer.drive.entry(`/seg${expired}.ts`), `seg${expired} after playlist ${n}`).toBeNull()
      if (expired + 1 >= 0 && expired + 1 <= n - 3) expect(await writer.drive.entry(`/seg${expired + 1}.ts`), `seg${expired + 1} after playlist ${n}`).not.toBeNull()
    }
    const oldestKept = N - 3 - grace
    for (let n = 0; n < oldestKept; n++) expect(await writer.drive.entry(`/seg${n}.ts`), `seg${n}`).toBeNull()
    for (let n = oldestKept; n < N; n++) expect(b4a.equals((await writer.drive.get(`/seg${n}.ts`))!.subarray(0, 4), segmentBytes(n).subarray(0, 4)), `seg${n}`).toBe(true)
    expect(writer.stats().segments).toBe(3 + grace)
    // Playlists 0..N-3 are gone; N-2 (superseded by N-1 one update ago) and N-1 (current) are kept.
    for (let i = 0; i < N - 2; i++) expect(await blobPresent(writer, playlistBlobs[i]!), `playlist ${i}`).toBe(false)
    expect(await blobPresent(writer, playlistBlobs[N - 2]!)).toBe(true)
    expect(await blobPresent(writer, playlistBlobs[N - 1]!)).toBe(true)
  })

  it("keep 'window': a segment written ahead of the playlist is not expired by it", async (t) => {
    const writer = await writerOn(t)
    await writer.putSegment('seg0.ts', segmentBytes(0))
    await writer.putPlaylist(playlistOf([0]))
    await writer.putSegment('seg1.ts', segmentBytes(1))
    await writer.putSegment('seg2.ts', segmentBytes(2))
    await writer.putPlaylist(playlistOf([0, 1])) // seg2 is pending: kept
    expect(await writer.drive.entry('/seg2.ts')).not.toBeNull()
    await writer.putPlaylist(playlistOf([1])) // seg0 and seg2 leave: kept for removalGrace(1) = 2 playlists
    expect(await writer.drive.entry('/seg0.ts')).not.toBeNull()
    expect(await writer.drive.entry('/seg2.ts')).not.toBeNull()
    await writer.putSegment('seg3.ts', segmentBytes(3))
    await writer.putPlaylist(playlistOf([1, 3]))
    expect(await writer.drive.entry('/seg2.ts')).not.toBeNull()
    await writer.putPlaylist(playlistOf([3]))
    expect(await writer.drive.entry('/seg0.ts')).toBeNull()
    expect(await writer.drive.entry('/seg2.ts')).toBeNull() // still unlisted two playlists later: expired
    expect(await writer.drive.entry('/seg1.ts')).not.toBeNull() // just left: in its grace
  })

  it("keep 'all' never clears: every segment and playlist stays readable", async (t) => {
    const writer = await writerOn(t, { keep: 'all' })
    const blobs = []
    for (let n = 0; n < 8; n++) {
      await writer.putSegment(`seg${n}.ts`, segmentBytes(n))
      await writer.putPlaylist(playlistOf([n]))
      blobs.push((await writer.drive.entry('/index.m3u8'))!.value.blob!)
    }
    await writer.putPlaylist(playlistOf([0, 1, 2, 3, 4, 5, 6, 7], { endList: true }))
    for (let n = 0; n < 8; n++) expect(await writer.drive.entry(`/seg${n}.ts`)).not.toBeNull()
    for (const blob of blobs) expect(await blobPresent(writer, blob)).toBe(true)
    const core = (await writer.drive.getBlobs())!.core
    expect(await core.has(0, core.length)).toBe(true)
    expect(writer.stats().segments).toBe(8)
  })

  it('reopens a generation from disk (feedKey given): writable, state picked up, same blobsKey', async (t) => {
    const encryptionKey = key32()
    const { store } = storeIn(t)
    const first = createFeedWriter({ store: store.namespace('gen1'), encryptionKey })
    await first.ready()
    const feedKey = first.feedKey
    const blobsKey = await first.blobsKey()
    await first.putSegment('seg7.ts', segmentBytes(7))
    await first.putPlaylist(playlistOf([7]))
    await first.close()

    const again = await writerOn(t, { store: store.namespace('gen1'), encryptionKey, feedKey })
    expect(b4a.equals(again.feedKey, feedKey)).toBe(true)
    expect(b4a.equals(await again.blobsKey(), blobsKey)).toBe(true)
    expect(again.stats()).toMatchObject({ segments: 1, lastSequence: 7, playlistVersion: 0 })
    const length = again.drive.core.length
    await again.putPlaylist(playlistOf([7])) // unchanged since before the restart
    expect(again.drive.core.length).toBe(length)
    await again.putSegment('seg8.ts', segmentBytes(8))
    await again.putPlaylist(playlistOf([8]))
    expect(await again.drive.entry('/seg7.ts')).not.toBeNull() // in its removal grace
    for (const n of [9, 10]) {
      await again.putSegment(`seg${n}.ts`, segmentBytes(n))
      await again.putPlaylist(playlistOf([n]))
    }
    expect(await again.drive.entry('/seg7.ts')).toBeNull()
  })

  it('a feedKey this store cannot write is FEED_NOT_WRITABLE; a wrong encryptionKey on reopen is FEED_DECRYPT_FAILED', async (t) => {
    const encryptionKey = key32()
    const { store } = storeIn(t)
    const first = await writerOn(t, { store: store.namespace('a'), encryptionKey })
    await first.putSegment('seg0.ts', segmentBytes(0))
    const feedKey = first.feedKey
    await first.close()

    const foreign = createFeedWriter({ store: storeIn(t).store, encryptionKey, feedKey })
    t.onTestFinished(() => foreign.close())
    expect((await rejection(foreign.ready())).code).toBe('FEED_NOT_WRITABLE')

    const wrongKey = createFeedWriter({ store: store.namespace('a'), encryptionKey: key32(), feedKey })
    t.onTestFinished(() => wrongKey.close())
    expect((await rejection(wrongKey.ready())).code).toBe('FEED_DECRYPT_FAILED')
  })

  it('writes are serialized in call order; after close() everything is FEED_CLOSED', async (t) => {
    const writer = await writerOn(t)
    const writes = [0, 1, 2, 3].map((n) => writer.putSegment(`seg${n}.ts`, segmentBytes(n)))
    const listing = writer.putPlaylist(playlistOf([0, 1, 2, 3])) // queued behind the segments
    await Promise.all([...writes, listing])
    expect(writer.stats().playlistVersion).toBe(1)
    await writer.close()
    await writer.close()
    expect((await rejection(writer.putSegment('seg9.ts', segmentBytes(9)))).code).toBe('FEED_CLOSED')
    expect((await rejection(writer.ready())).code).toBe('FEED_CLOSED')
    expect(() => writer.mirror('/tmp')).toThrow(expect.objectContaining({ code: 'FEED_CLOSED' }))
  })
})
