import { rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import b4a from 'b4a'
import { parsePlaylist, removalGrace } from '@arus/feed'
import type { FeedMirror, FeedWriter, ParsedPlaylist } from '@arus/feed'
import { tmpDir, waitFor } from '@arus/testkit'
import { playlistOf, segmentBytes, writerOn } from './helpers.js'

/** Does what ffmpeg -hls_flags temp_file does: write a .tmp file, then rename it. */
async function atomicWrite (dir: string, name: string, data: Uint8Array | string): Promise<void> {
  await writeFile(join(dir, `${name}.tmp`), data)
  await rename(join(dir, `${name}.tmp`), join(dir, name))
}

function playlists (mirror: FeedMirror): ParsedPlaylist[] {
  const seen: ParsedPlaylist[] = []
  mirror.on('playlist', (p: ParsedPlaylist) => { seen.push(p) })
  return seen
}

async function drivePlaylist (writer: FeedWriter): Promise<string | null> {
  const bytes = await writer.drive.get('/index.m3u8')
  return bytes === null ? null : b4a.toString(bytes)
}

describe('mirror of an ffmpeg scratch dir', () => {
  it('copies listed segments before each playlist: no version of the drive lists a missing segment', async (t) => {
    const dir = tmpDir(t)
    const writer = await writerOn(t, { keep: 'all' })
    const mirror = writer.mirror(dir, { pollMs: 50 })
    t.onTestFinished(() => mirror.stop())
    const seen = playlists(mirror)
    const segments: Array<[string, number]> = []
    mirror.on('segment', (path: string, bytes: number) => { segments.push([path, bytes]) })
    expect(mirror.running).toBe(true)

    const bytes = new Map<number, Uint8Array>()
    for (let n = 0; n < 6; n++) {
      bytes.set(n, segmentBytes(n, 30_000 + n))
      await atomicWrite(dir, `seg${n}.ts`, bytes.get(n)!)
      const text = playlistOf([n - 2, n - 1, n].filter((x) => x >= 0))
      await atomicWrite(dir, 'index.m3u8', text)
      await waitFor(async () => (await drivePlaylist(writer)) === text, { timeoutMs: 10_000, message: `playlist ${n} in the drive` })
    }
    expect(seen.at(-1)?.mediaSequence).toBe(3)
    expect(segments).toEqual([0, 1, 2, 3, 4, 5].map((n) => [`/seg${n}.ts`, 30_000 + n]))
    for (const [n, b] of bytes) expect(b4a.equals((await writer.drive.get(`/seg${n}.ts`))!, b)).toBe(true)

    // Every historical version: the playlist there lists only segments present there.
    let checked = 0
    for (let version = 1; version <= writer.drive.version; version++) {
      const snap = writer.drive.checkout(version)
      try {
        const text = await snap.get('/index.m3u8')
        if (text === null) continue
        for (const { uri } of parsePlaylist(b4a.toString(text)).segments) {
          expect(await snap.entry('/' + uri), `${uri} at version ${version}`).not.toBeNull()
        }
        checked++
      } finally {
        await snap.close()
      }
    }
    expect(checked).toBeGreaterThanOrEqual(6)
    await mirror.stop()
    expect(mirror.running).toBe(false)
  })

  it("live (keep 'window'): expired segments are cleared as the playlist moves on", async (t) => {
    const dir = tmpDir(t)
    const writer = await writerOn(t)
    const mirror = writer.mirror(dir, { pollMs: 50 })
    t.onTestFinished(() => mirror.stop())
    const blobs = new Map<number, { blockOffset: number; blockLength: number }>()
    const N = 12
    for (let n = 0; n < N; n++) {
      await atomicWrite(dir, `seg${n}.ts`, segmentBytes(n, 70_000))
      const text = playlistOf([n - 2, n - 1, n].filter((x) => x >= 0))
      await atomicWrite(dir, 'index.m3u8', text)
      await waitFor(async () => (await drivePlaylist(writer)) === text, { timeoutMs: 10_000, message: `playlist ${n}` })
      blobs.set(n, (await writer.drive.entry(`/seg${n}.ts`))!.value.blob!)
    }
    // The playlist entry lands before its retention step runs; writes are serialized, so the
    // same text once more (which writes nothing) resolves after that step.
    await writer.putPlaylist(playlistOf([N - 3, N - 2, N - 1]))
    const core = (await writer.drive.getBlobs())!.core
    // Listed: the last 3; kept beside them: those within their removal grace.
    const oldestKept = N - 3 - removalGrace(3)
    expect(oldestKept).toBeGreaterThan(0)
    for (let n = 0; n < N; n++) {
      const blob = blobs.get(n)!
      const kept = n >= oldestKept
      expect(await writer.drive.entry(`/seg${n}.ts`) !== null, `seg${n} entry`).toBe(kept)
      expect(await core.has(blob.blockOffset), `seg${n} first block`).toBe(kept)
      expect(await core.has(blob.blockOffset + blob.blockLength - 1), `seg${n} last block`).toBe(kept)
    }
    expect(writer.stats().segments).toBe(3 + removalGrace(3))
  })

  it('an ffmpeg restarted in the same dir (numbering from 0 again) replaces reused names with the new bytes', async (t) => {
    const dir = tmpDir(t)
    const writer = await writerOn(t)
    const mirror = writer.mirror(dir, { pollMs: 50 })
    t.onTestFinished(() => mirror.stop())
    const first = [segmentBytes(0), segmentBytes(1)]
    for (const [n, bytes] of first.entries()) await atomicWrite(dir, `seg${n}.ts`, bytes)
    await atomicWrite(dir, 'index.m3u8', playlistOf([0, 1]))
    await waitFor(async () => (await drivePlaylist(writer)) === playlistOf([0, 1]), { timeoutMs: 10_000, message: 'first run' })

    const second = [segmentBytes(0, 25_000), segmentBytes(1, 25_000)]
    for (const [n, bytes] of second.entries()) await atomicWrite(dir, `seg${n}.ts`, bytes)
    const text = playlistOf([0, 1], { duration: 2 })
    await atomicWrite(dir, 'index.m3u8', text)
    await waitFor(async () => (await drivePlaylist(writer)) === text, { timeoutMs: 10_000, message: 'second run' })
    for (const [n, bytes] of second.entries()) expect(b4a.equals((await writer.drive.get(`/seg${n}.ts`))!, bytes), `seg${n}`).toBe(true)
  })

  it('reports an unreadable listed segment on error and recovers on the next playlist; stop() via signal', async (t) => {
    const dir = tmpDir(t)
    const writer = await writerOn(t)
    const controller = new AbortController()
    const mirror = writer.mirror(dir, { pollMs: 50, signal: controller.signal })
    const errors: Array<{ code?: string }> = []
    mirror.on('error', (err: { code?: string }) => { errors.push(err) })

    await atomicWrite(dir, 'index.m3u8', playlistOf([0])) // seg0.ts never appears (deleted by ffmpeg)
    await waitFor(() => errors.length > 0, { timeoutMs: 10_000, message: 'mirror error' })
    expect(errors[0]?.code).toBe('FEED_MIRROR_SOURCE')
    expect(await writer.drive.entry('/index.m3u8')).toBeNull()

    await atomicWrite(dir, 'seg1.ts', segmentBytes(1))
    const text = playlistOf([1])
    await atomicWrite(dir, 'index.m3u8', text)
    await waitFor(async () => (await drivePlaylist(writer)) === text, { timeoutMs: 10_000, message: 'recovered playlist' })

    await atomicWrite(dir, 'index.m3u8', 'garbage')
    await waitFor(() => errors.some((e) => e.code === 'FEED_BAD_PLAYLIST'), { timeoutMs: 10_000, message: 'bad playlist reported' })
    expect(await drivePlaylist(writer)).toBe(text)

    controller.abort()
    await waitFor(() => !mirror.running, { timeoutMs: 5000, message: 'mirror stopped by signal' })
  })

  it('the writer stops its mirrors on close()', async (t) => {
    const dir = tmpDir(t)
    const writer = await writerOn(t)
    const mirror = writer.mirror(dir, { pollMs: 50 })
    await writer.close()
    expect(mirror.running).toBe(false)
  })
})
