import { describe, expect, it } from 'vitest'
import { parsePlaylist } from '@arus/feed'
import { playlistOf } from './helpers.js'

const FFMPEG_LIVE = `#EXTM3U
#EXT-X-VERSION:3
#EXT-X-TARGETDURATION:2
#EXT-X-MEDIA-SEQUENCE:17
#EXTINF:2.000000,
seg17.ts
#EXTINF:1.960000,
seg18.ts
#EXTINF:2.040000,
seg19.ts
`

describe('parsePlaylist', () => {
  it('reads an ffmpeg live playlist: media sequence, target duration, EXTINF durations in order', () => {
    const p = parsePlaylist(FFMPEG_LIVE)
    expect(p).toEqual({
      mediaSequence: 17,
      targetDuration: 2,
      endList: false,
      segments: [{ uri: 'seg17.ts', duration: 2 }, { uri: 'seg18.ts', duration: 1.96 }, { uri: 'seg19.ts', duration: 2.04 }],
      text: FFMPEG_LIVE
    })
  })

  it('sees #EXT-X-ENDLIST, CRLF line ends, a BOM, titles after the duration and unknown tags', () => {
    const text = '\uFEFF#EXTM3U\r\n#EXT-X-TARGETDURATION:4\r\n#EXT-X-PLAYLIST-TYPE:VOD\r\n#EXTINF:3.5,Title, with comma\r\nseg0.ts\r\n#EXT-X-DISCONTINUITY\r\n#EXTINF:4\r\nseg1.ts\r\n#EXT-X-ENDLIST\r\n'
    const p = parsePlaylist(text)
    expect(p.endList).toBe(true)
    expect(p.mediaSequence).toBe(0) // absent: RFC 8216 says 0
    expect(p.targetDuration).toBe(4)
    expect(p.segments).toEqual([{ uri: 'seg0.ts', duration: 3.5 }, { uri: 'seg1.ts', duration: 4 }])
  })

  it('round-trips the test helper playlists', () => {
    const p = parsePlaylist(playlistOf([5, 6, 7], { endList: true, duration: 2 }))
    expect(p.mediaSequence).toBe(5)
    expect(p.segments.map((s) => s.uri)).toEqual(['seg5.ts', 'seg6.ts', 'seg7.ts'])
    expect(p.endList).toBe(true)
  })

  it('an empty live playlist has no segments', () => {
    expect(parsePlaylist('#EXTM3U\n#EXT-X-TARGETDURATION:1\n').segments).toEqual([])
  })

  it.each([
    ['no header', 'seg1.ts\n'],
    ['header not first', '#EXT-X-VERSION:3\n#EXTM3U\n'],
    ['empty text', ''],
    ['URI without EXTINF', '#EXTM3U\nseg1.ts\n'],
    ['bad duration', '#EXTM3U\n#EXTINF:abc,\nseg1.ts\n'],
    ['negative duration', '#EXTM3U\n#EXTINF:-1,\nseg1.ts\n'],
    ['bad media sequence', '#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:x\n'],
    ['bad target duration', '#EXTM3U\n#EXT-X-TARGETDURATION:1.5\n'],
    ['master playlist', '#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nlow.m3u8\n']
  ])('refuses %s with FEED_BAD_PLAYLIST', (_name, text) => {
    expect(() => parsePlaylist(text)).toThrow(expect.objectContaining({ code: 'FEED_BAD_PLAYLIST' }))
  })

  it('refuses a non-string with FEED_INVALID_ARGUMENT', () => {
    expect(() => parsePlaylist(42 as unknown as string)).toThrow(expect.objectContaining({ code: 'FEED_INVALID_ARGUMENT' }))
  })
})
