import { segmentSequence, type FeedSession } from './feed-session.js'
import type { MediaSource } from './server/routes.js'
import type { BodySource } from './server/pump.js'

/**
 * The local server's view of a feed session. Segment URIs of the playlist are the flat layout's
 * `seg<N>.ts`, relative, so `/index.m3u8` resolves them to `/seg<N>.ts` on the same server. A vod
 * playlist is served as a finished rendition: `#EXT-X-PLAYLIST-TYPE:VOD` is added when missing.
 */
export function feedMedia (session: FeedSession, now: () => number): MediaSource {
  let order: string[] = []
  return {
    type: session.type,
    async playlist ({ timeoutMs }) {
      const list = await session.playlist(timeoutMs, now())
      order = list.segments.map((s) => s.uri).filter((u) => /^seg\d+\.ts$/.test(u))
      const text = session.type === 'vod' ? asVod(list.text) : list.text
      return { text, segments: order }
    },
    async size (path, { timeoutMs, signal }) {
      const sequence = segmentSequence(path)
      if (session.type === 'live' && sequence !== null) {
        if (session.newestListed === null) await session.playlist(timeoutMs, now()).catch(() => null)
        // A segment a playlist already listed was written before it: it is there (also in the
        // origin's removal grace) or gone for good, so its answer never waits for it to appear.
        if (session.newestListed !== null && sequence <= session.newestListed) {
          const entry = await session.reader.stat(path, { timeoutMs, signal })
          if (entry === null) throw new Error(`${path} left the live window`)
          return entry.byteLength
        }
      }
      // A segment not listed yet (the next one at the live edge, or a vod title's): held until it appears.
      const entry = await session.reader.waitFor(path, { timeoutMs, signal })
      return entry.byteLength
    },
    read (path, { start, end, stallMs, signal }): BodySource {
      return session.reader.createReadStream(path, { start, end, stallMs, signal }) as unknown as BodySource
    },
    readAhead (paths) { session.readAhead(paths) },
    segmentRequested (path, ahead) {
      session.segmentRequested(path)
      const i = order.indexOf(path.slice(1))
      if (i >= 0) session.readAhead(order.slice(i + 1, i + 1 + ahead).map((u) => '/' + u))
    }
  }
}

/** Spec 3 "resolve contract" 2: a vod playlist is a finished rendition (type VOD, end marker). */
export function asVod (text: string): string {
  if (/^#EXT-X-PLAYLIST-TYPE:/m.test(text)) return text.replace(/^#EXT-X-PLAYLIST-TYPE:.*$/m, '#EXT-X-PLAYLIST-TYPE:VOD')
  return text.replace(/^#EXTM3U[^\n]*\n/, (m) => `${m}#EXT-X-PLAYLIST-TYPE:VOD\n`)
}
