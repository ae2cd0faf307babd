import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { parsePlaylist, runPlayerModel } from '@arus/lab'
import { waitFor } from '@arus/testkit'

/** A live HLS origin on 127.0.0.1: a new 1 s segment every second while `live`, a window of 6. */
async function liveOrigin (t: { onTestFinished: (fn: () => unknown) => void }): Promise<{ url: string; pause: (on: boolean) => void; newest: () => number }> {
  let newest = 10
  let paused = false
  const timer = setInterval(() => { if (!paused) newest++ }, 1_000)
  const server = createServer((req, res) => {
    if (req.url === '/index.m3u8') {
      const first = Math.max(0, newest - 5)
      const lines = ['#EXTM3U', '#EXT-X-VERSION:3', '#EXT-X-TARGETDURATION:1', `#EXT-X-MEDIA-SEQUENCE:${first}`]
      for (let s = first; s <= newest; s++) lines.push('#EXTINF:1.000,', `seg${s}.ts`)
      res.end(`${lines.join('\n')}\n`)
      return
    }
    const m = /^\/seg(\d+)\.ts$/.exec(req.url ?? '')
    if (m && Number(m[1]) <= newest) { res.end(Buffer.alloc(1000)); return }
    res.statusCode = 404
    res.end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.onTestFinished(() => { clearInterval(timer); server.close() })
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/index.m3u8`, pause: (on) => { paused = on }, newest: () => newest }
}

describe('the player model', () => {
  it('parses a live playlist', () => {
    const p = parsePlaylist('#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:7\n#EXTINF:2.0,\nseg7.ts\n#EXTINF:1.5,\nseg8.ts\n')
    expect(p).toEqual({ target: 2, mediaSequence: 7, ended: false, segments: [{ seq: 7, uri: 'seg7.ts', duration: 2 }, { seq: 8, uri: 'seg8.ts', duration: 1.5 }] })
  })

  it('starts three segments behind the live edge and plays without a stall while the origin keeps up', async (t) => {
    const origin = await liveOrigin(t)
    const stop = new AbortController()
    t.onTestFinished(() => stop.abort())
    const edge = origin.newest()
    const model = runPlayerModel({ url: origin.url, signal: stop.signal })
    await waitFor(() => model.stats().segments >= 5, { timeoutMs: 10_000, message: 'five segments' })
    const s = model.stats()
    expect(s.loaded[0]!.seq).toBe(edge - 2) // three segments behind: the newest three listed
    expect(s.joinMs).not.toBeNull()
    expect(s.stalls).toBe(0)
    expect(s.playedMs).toBeGreaterThan(0)
    stop.abort()
    await model.done
  }, 20_000)

  it('counts a stall when the origin stops for longer than the buffer, and its length', async (t) => {
    const origin = await liveOrigin(t)
    const stop = new AbortController()
    t.onTestFinished(() => stop.abort())
    const model = runPlayerModel({ url: origin.url, signal: stop.signal })
    await waitFor(() => model.stats().segments >= 4, { timeoutMs: 10_000, message: 'playing' })
    // The buffer holds ~3 s; a 6 s outage drains it.
    origin.pause(true)
    await new Promise((resolve) => setTimeout(resolve, 6_000))
    expect(model.stats().stallMs).toBeGreaterThan(0) // stalled now, counted while it lasts
    origin.pause(false)
    await waitFor(() => model.stats().stalls === 1, { timeoutMs: 5_000, message: 'the stall ended' })
    const s = model.stats()
    expect(s.stallMs).toBeGreaterThan(1_000)
    expect(s.stallMs).toBeLessThan(6_000)
    expect(s.longestStallMs).toBe(s.stallMs)
    expect(s.stallLog).toEqual([{ at: expect.any(Number), ms: s.stallMs }])
    expect(s.rebufferRatio).toBeGreaterThan(0)
    stop.abort()
    await model.done
  }, 30_000)
})
