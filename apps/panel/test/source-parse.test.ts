import { describe, expect, it } from 'vitest'
import { HttpsUrl, TITLE_MAX } from '@arus/catalog'
import { parseFeed } from '../src/sources/parse.js'
import { retryDelayMs, SOURCE_RETRY_BASE_MS, syncDue } from '../src/sources/scheduler.js'

// The feed parser checks every value with the catalog's own schemas (issue 39 item 2), so
// what it accepts the catalog stores: one bad entry is skipped or loses its art, never the
// batch. And the schedule's backoff for a failing source.

const m3u = (...lines: string[]) => ['#EXTM3U', ...lines].join('\n')

describe('feed entries against the catalog rules', () => {
  it('an M3U logo with a space is dropped and reported; a spaced or http url skips its entry; a spaced url-tvg is not used', () => {
    const feed = parseFeed(m3u(
      '#EXTINF:-1 tvg-id="art" tvg-logo="https://img.example/My Logo.png",With Art',
      'https://cdn.example/art/index.m3u8',
      '#EXTINF:-1 tvg-id="spaced" tvg-logo="https://img.example/ok.png",Spaced',
      'https://cdn.example/my stream/index.m3u8',
      '#EXTINF:-1 tvg-id="plain",Plain',
      'http://cdn.example/plain/index.m3u8'
    ).replace('#EXTM3U', '#EXTM3U url-tvg="https://epg.example/my guide.xml"'), 'p.')
    expect(feed.entries.map((e) => [e.id, e.logo])).toEqual([['p.art', '']])
    expect(feed.entries[0]!.epgUrl).toBeUndefined()
    expect(feed.dropped).toEqual([{ feedId: 'art', id: 'p.art', field: 'logo', reason: expect.stringMatching(/^logo must be https: .*spaces/) }])
    expect(feed.skipped).toEqual([
      { feedId: 'spaced', reason: expect.stringMatching(/^url must be https: .*spaces/) },
      { feedId: 'plain', reason: 'url must be https' }
    ])
  })

  it('JSON: a non-string, http or over-long logo is dropped and reported, an absent or empty one is not; every kept value passes the catalog', () => {
    const long = `https://img.example/${'x'.repeat(2100)}.png`
    const feed = parseFeed(JSON.stringify([
      { id: 'num', url: 'https://cdn.example/1.m3u8', logo: 42 },
      { id: 'http', url: 'https://cdn.example/2.m3u8', logo: 'http://img.example/2.png' },
      { id: 'long', url: 'https://cdn.example/3.m3u8', logo: long, name: 'n'.repeat(300) },
      { id: 'none', url: 'https://cdn.example/4.m3u8', logo: '' },
      { id: 'absent', url: 'https://cdn.example/5.m3u8' },
      { id: 'good', url: 'https://cdn.example/6.m3u8?token=a%20b', logo: 'https://img.example/6.png' }
    ]), 'j.')
    expect(feed.dropped.map((d) => [d.feedId, d.reason])).toEqual([
      ['num', 'logo must be https'], ['http', 'logo must be https'], ['long', expect.stringMatching(/at most 2048 characters/)]
    ])
    expect(feed.entries.map((e) => e.feedId)).toEqual(['num', 'http', 'long', 'none', 'absent', 'good'])
    for (const e of feed.entries) {
      expect(HttpsUrl.safeParse(e.url).success).toBe(true)
      expect(e.logo === '' || HttpsUrl.safeParse(e.logo).success).toBe(true)
      expect(e.title.length).toBeLessThanOrEqual(TITLE_MAX)
    }
    expect(feed.entries.at(-1)!.logo).toBe('https://img.example/6.png')
  })
})

describe('retry backoff of a failing source', () => {
  it('doubles from 5 s per consecutive failure, capped at intervalMs', () => {
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(n, 3_600_000))).toEqual([5000, 10_000, 20_000, 40_000, 80_000])
    expect(retryDelayMs(0, 3_600_000)).toBe(SOURCE_RETRY_BASE_MS)
    expect(retryDelayMs(8, 60_000)).toBe(60_000)
    expect(retryDelayMs(1000, 21_600_000)).toBe(21_600_000)
  })

  it('a failing source is due after its backoff; a good sync resets it to intervalMs', () => {
    const s = { intervalMs: 3_600_000 }
    const failing = { etag: null, lastSync: { at: 1000, report: {} }, lastError: { at: 100_000, message: 'HTTP 500' }, failures: 3 }
    expect(syncDue(s, failing, 100_000 + 19_999)).toBe(false)
    expect(syncDue(s, failing, 100_000 + 20_000)).toBe(true)
    // A state written before the failure count existed backs off as after one failure.
    expect(syncDue(s, { ...failing, failures: undefined }, 100_000 + 5000)).toBe(true)
    const good = { ...failing, lastSync: { at: 200_000, report: {} }, lastError: null, failures: 0 }
    expect(syncDue(s, good, 200_000 + 60_000)).toBe(false)
    expect(syncDue(s, good, 200_000 + 3_600_000)).toBe(true)
    expect(syncDue(s, undefined, 0)).toBe(true)
  })
})
