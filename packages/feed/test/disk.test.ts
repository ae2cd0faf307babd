import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import b4a from 'b4a'
import { COMPACT_AFTER_BYTES, removalGrace } from '@arus/feed'
import { allocatedBytes, playlistOf, storedBlocks, storeIn, writerOn } from './helpers.js'

const SEGMENT_BYTES = 64 * 1024
const WINDOW = 6
// What the origin keeps: the listed window plus the segments in their removal grace.
const RETAINED = WINDOW + removalGrace(WINDOW)
const WINDOW_BYTES = RETAINED * SEGMENT_BYTES
// hypercore-storage opens RocksDB with a 64 MiB write buffer; RocksDB preallocates the
// active WAL to 1.1 x that (73,822,208 bytes) on its first write, and the MANIFEST to
// 4 MiB. Both are fixed: they do not grow with what is written.
const WAL_PREALLOCATION = Math.round(1.1 * 64 * 1024 * 1024)
// Enough segments that everything written is far more than the fixed overhead plus the
// allowance: without clearing and compaction the bound below cannot hold.
const SEGMENTS = 1800

describe("disk use of a live feed (keep 'window') stays O(window)", () => {
  it(`${SEGMENTS} segments of 64 KiB through a window of ${WINDOW}: allocated bytes stay within the fixed overhead + 4 x what is retained (window + removal grace)`, async (t) => {
    const { store, dir } = storeIn(t)
    const writer = await writerOn(t, { store })
    const payload = new Uint8Array(randomBytes(SEGMENT_BYTES))
    const put = async (n: number): Promise<void> => {
      new DataView(payload.buffer).setUint32(0, n)
      await writer.putSegment(`seg${n}.ts`, payload)
      const first = Math.max(0, n - WINDOW + 1)
      await writer.putPlaylist(playlistOf(Array.from({ length: n - first + 1 }, (_, i) => first + i)))
    }

    // The fixed overhead, measured after the first write preallocated the WAL.
    await put(0)
    const baseline = allocatedBytes(dir)
    const wal = Object.entries(baseline.files).filter(([name]) => name.endsWith('.log')).reduce((sum, [, bytes]) => sum + bytes, 0)
    expect(wal, JSON.stringify(baseline.files)).toBeGreaterThanOrEqual(WAL_PREALLOCATION)
    expect(baseline.total, JSON.stringify(baseline.files)).toBeLessThan(80 * 1024 * 1024)

    const bound = baseline.total + 4 * WINDOW_BYTES
    // The test can fail: kept, what is written would not fit in the WAL's preallocation
    // plus the allowance (mutation-checked: without clearing, or without compaction, the
    // peak exceeds the bound).
    expect(SEGMENTS * SEGMENT_BYTES).toBeGreaterThan(WAL_PREALLOCATION + 4 * WINDOW_BYTES + COMPACT_AFTER_BYTES)

    let peak = baseline
    for (let n = 1; n < SEGMENTS; n++) {
      await put(n)
      const now = allocatedBytes(dir)
      if (now.total > peak.total) peak = now
    }
    expect(peak.total, `peak ${peak.total} over baseline ${baseline.total}: ${JSON.stringify(peak.files)}`).toBeLessThanOrEqual(bound)

    // What is left: the window's blocks, and a bounded number of metadata blocks.
    const blobs = (await writer.drive.getBlobs())!
    expect(await storedBlocks(blobs.core)).toBeLessThanOrEqual(RETAINED + 2)
    expect(writer.drive.core.length).toBeGreaterThan(2 * SEGMENTS) // put, playlist, del per segment
    expect(await storedBlocks(writer.drive.core)).toBeLessThanOrEqual(4 * (RETAINED + 2))
    expect(writer.stats().segments).toBe(RETAINED)

    // And the feed still reads correctly.
    const last = await writer.drive.get(`/seg${SEGMENTS - 1}.ts`)
    expect(last?.byteLength).toBe(SEGMENT_BYTES)
    expect(new DataView(last!.buffer, last!.byteOffset).getUint32(0)).toBe(SEGMENTS - 1)
    expect(b4a.toString((await writer.drive.get('/index.m3u8'))!)).toBe(playlistOf(Array.from({ length: WINDOW }, (_, i) => SEGMENTS - WINDOW + i)))
  })

  it("keep 'all' (VOD) keeps every block of both cores", async (t) => {
    const { store } = storeIn(t)
    const writer = await writerOn(t, { store, keep: 'all' })
    const payload = new Uint8Array(randomBytes(SEGMENT_BYTES))
    for (let n = 0; n < 40; n++) {
      await writer.putSegment(`seg${n}.ts`, payload)
      await writer.putPlaylist(playlistOf([Math.max(0, n - 5), n].filter((x, i, a) => a.indexOf(x) === i)))
    }
    const blobs = (await writer.drive.getBlobs())!
    expect(await storedBlocks(blobs.core)).toBe(blobs.core.length)
    expect(blobs.core.length).toBe(80) // 40 one-block segments and 40 playlists
    expect(await storedBlocks(writer.drive.core)).toBe(writer.drive.core.length)
  })
})
