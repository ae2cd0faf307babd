import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { removalGrace } from '@arus/feed'
import { createTestnet, spawnProcess, tmpDir, waitFor } from '@arus/testkit'
import { key32, link, peerSwarm, readerOn, storeIn, writerOn } from './helpers.js'

describe('a real ffmpeg HLS run mirrored into a feed', () => {
  it('replicates to a reader peer; ffprobe finds h264 + aac in a replicated segment', async (t) => {
    const net = await createTestnet(t)
    const scratch = tmpDir(t, 'arus-hls-')
    const encryptionKey = key32()
    const w = storeIn(t)
    const writer = await writerOn(t, { store: w.store, encryptionKey })
    const mirror = writer.mirror(scratch, { pollMs: 100 })
    t.onTestFinished(() => mirror.stop())
    const errors: unknown[] = []
    mirror.on('error', (err: unknown) => { errors.push(err) })

    const r = storeIn(t)
    const reader = await readerOn(t, r.store, writer.feedKey, encryptionKey)
    await link(writer.discoveryKey, peerSwarm(net, w.store), peerSwarm(net, r.store))

    // The broadcaster's flags; -re paces the test pattern so the playlist moves live (~5 s).
    const ffmpeg = spawnProcess(t, 'ffmpeg', [
      '-hide_banner', '-loglevel', 'error', '-nostdin',
      '-re', '-f', 'lavfi', '-i', 'testsrc=size=320x180:rate=25',
      '-re', '-f', 'lavfi', '-i', 'sine',
      '-t', '5', '-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-g', '25', '-c:a', 'aac',
      '-f', 'hls', '-hls_time', '1', '-hls_list_size', '4', '-hls_flags', 'delete_segments+temp_file',
      '-hls_segment_filename', join(scratch, 'seg%d.ts'), join(scratch, 'index.m3u8')
    ], { timeoutMs: 30_000 })

    // While ffmpeg runs, the reader sees a live window with at least two segments.
    const live = await waitFor(async () => {
      const p = await reader.playlist({ timeoutMs: 2000 })
      return p.segments.length >= 2 && !p.endList ? p : null
    }, { timeoutMs: 20_000, intervalMs: 100, message: 'live playlist on the reader' })
    const uri = live.segments[live.segments.length - 1]!.uri
    const bytes = await reader.readFile('/' + uri, { timeoutMs: 10_000 })
    expect(bytes.byteLength).toBeGreaterThan(1000)

    const status = await ffmpeg.waitForExit(20_000)
    expect(status, ffmpeg.stderrText()).toEqual({ code: 0, signal: null })
    const final = await waitFor(async () => {
      const p = await reader.playlist({ timeoutMs: 2000 })
      return p.endList ? p : null
    }, { timeoutMs: 10_000, intervalMs: 100, message: 'final playlist (ENDLIST) on the reader' })
    expect(final.segments.length).toBe(4)
    expect(writer.stats().playlistVersion).toBeGreaterThanOrEqual(3) // followed live, not just the end state
    // Older ones expired from the drive once their removal grace ran out (the same text once
    // more writes nothing and resolves after the last playlist's retention step).
    await writer.putPlaylist(final.text)
    expect(writer.stats().segments).toBeLessThanOrEqual(4 + removalGrace(4))
    expect(errors).toEqual([])

    const file = join(tmpDir(t), uri)
    await writeFile(file, bytes)
    const probe = spawnProcess(t, 'ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_name,codec_type', '-of', 'json', file])
    expect(await probe.waitForExit(10_000), probe.stderrText()).toEqual({ code: 0, signal: null })
    const streams = (JSON.parse(probe.stdoutLines().join('\n')) as { streams: Array<{ codec_name: string; codec_type: string }> }).streams
    expect(streams.map((s) => `${s.codec_type}:${s.codec_name}`).sort()).toEqual(['audio:aac', 'video:h264'])
  })
})
