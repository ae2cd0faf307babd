import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  cleanupAll, createTestnet, linkToPanel, startHttpsFixture, startPanel, waitFor,
  type HttpsFixture, type PanelHandle, type PanelLink, type Testnet
} from '@arus/testkit'

// Remote sources (issue 13 item 2) against the built panel process and a real HTTPS feed
// server on 127.0.0.1 (trusted through NODE_EXTRA_CA_CERTS): one test per rule of spec 1
// "Source sync policy", the M3U format, and the limits. Catalog costs are read from a
// viewer-side replica (core length and byte length).

const ctx = { onTestFinished: () => {} }
let testnet: Testnet
let feeds: HttpsFixture
let panel: PanelHandle
let link: PanelLink

beforeAll(async () => {
  testnet = await createTestnet()
  feeds = await startHttpsFixture(undefined)
  panel = await startPanel(undefined, {
    testnet,
    users: [{ name: 'ann', password: 'ann-pw' }],
    env: { NODE_EXTRA_CA_CERTS: feeds.caFile, SOURCES_MAX_BYTES: '20000', SOURCES_MAX_CHANNELS: '40' }
  })
  link = await linkToPanel(ctx, testnet, panel.panelKey)
}, 60_000)

afterAll(async () => { await cleanupAll() }, 30_000)

const hls = (n: string | number) => `https://cdn.example/${n}/index.m3u8`
const json = (channels: unknown) => JSON.stringify({ channels })

async function core (): Promise<{ length: number; byteLength: number }> {
  await link.reader.update({ wait: true })
  const c = link.reader.bee.core
  return { length: c.length, byteLength: c.byteLength }
}

/**
 * The catalog once the panel's background work is done (its registry watch reconciles users
 * whose provenance earlier tests changed, every 2 s): unchanged for 3 s, within 30 s.
 */
async function settled (): Promise<{ length: number; byteLength: number }> {
  let last = await core()
  let since = Date.now()
  await waitFor(async () => {
    const now = await core()
    if (now.length !== last.length) { last = now; since = Date.now() }
    return Date.now() - since >= 3000
  }, { timeoutMs: 30_000, intervalMs: 250, message: 'catalog settled' })
  return last
}

/** Adds a paused source (the POST still syncs it once): the syncs a test asserts are its own, never the scheduler's. */
async function addSource (name: string, path: string, extra: Record<string, unknown> = {}) {
  return panel.api('POST', '/api/sources', { name, url: feeds.url(path), category: `${name} TV`, enabled: false, ...extra })
}

const stream = async (id: string) => (await panel.api('GET', '/api/streams')).streams.find((s: { id: string }) => s.id === id)
const sync = (name: string) => panel.api('POST', `/api/sources/${name}/sync`)

describe('source sync policy', () => {
  it('rules 1-2: an object or a bare array; id, https url, name, logo, description; position is order; the rest ignored', async () => {
    feeds.set('/r1.json', { body: json([
      { id: 'one', url: hls(1), name: 'One', logo: 'https://img.example/1.png', description: 'first', order: 99, category: 'Ignored', epg: 'x' },
      { id: 2, url: hls(2), name: 'Two', logo: 'http://img.example/2.png' },
      { id: 'plain', url: 'http://cdn.example/plain.m3u8', name: 'Plain' }
    ]) })
    const added = await addSource('r1', '/r1.json')
    expect(added.sync).toMatchObject({ added: ['r1.one', 'r1.2'], skipped: [{ feedId: 'plain', reason: 'url must be https' }], notModified: false })
    expect(await stream('r1.one')).toMatchObject({ title: 'One', url: hls(1), redirect: true, logo: 'https://img.example/1.png', description: 'first', order: 0, category: ['r1 TV'], source: 'r1' })
    expect(await stream('r1.2')).toMatchObject({ title: 'Two', order: 1, logo: '' })
    expect((await stream('r1.one')).epgUrl).toBeUndefined()
    feeds.set('/r1b.json', { body: JSON.stringify([{ id: 'x', url: hls('x') }]) })
    expect((await addSource('r1b', '/r1b.json')).sync.added).toEqual(['r1b.x'])
  })

  it('rule 3: no id, a bad id and a duplicate are skipped with a reason; the rest import', async () => {
    feeds.set('/r3.json', { body: json([{ url: hls(1) }, { id: 'bad id!', url: hls(2) }, { id: 'ok', url: hls(3) }, { id: 'ok', url: hls(4) }, { id: 'x'.repeat(70), url: hls(5) }]) })
    const r = (await addSource('r3', '/r3.json')).sync
    expect(r.added).toEqual(['r3.ok'])
    expect(r.skipped.map((s: { reason: string }) => s.reason)).toEqual(['no id', expect.stringMatching(/^bad id/), 'duplicate id', expect.stringMatching(/^bad id/)])
  })

  it('rule 4: the feed wins on title, url, logo, order, category; featured, restricted, isLive and the description stick', async () => {
    feeds.set('/r4.json', { body: json([{ id: 'a', url: hls('a'), name: 'A', description: 'seeded' }, { id: 'b', url: hls('b'), name: 'B' }]) })
    await addSource('r4', '/r4.json')
    await panel.api('PATCH', '/api/streams/r4.a', { featured: true, restricted: true, isLive: false, description: 'mine', title: 'Renamed by hand' })
    feeds.set('/r4.json', { body: json([{ id: 'b', url: hls('b2'), name: 'B2' }, { id: 'a', url: hls('a2'), name: 'A2', logo: 'https://img.example/a.png', description: 'changed' }]) })
    await panel.api('PATCH', '/api/sources/r4', { category: 'Renamed TV' })
    const r = await sync('r4')
    expect(r.updated.sort()).toEqual(['r4.a', 'r4.b'])
    expect(await stream('r4.a')).toMatchObject({ title: 'A2', url: hls('a2'), logo: 'https://img.example/a.png', order: 1, category: ['Renamed TV'], featured: true, restricted: true, isLive: false, description: 'mine' })
  })

  it('rule 5: a channel leaving the feed is purged with its grants; removing a source purges, or detaches with keepChannels', async () => {
    feeds.set('/r5.json', { body: json([{ id: 'stay', url: hls('s') }, { id: 'go', url: hls('g') }]) })
    await addSource('r5', '/r5.json', { autoGrant: false })
    await panel.api('POST', '/api/users/ann/grants', { streamId: 'r5.go' })
    feeds.set('/r5.json', { body: json([{ id: 'stay', url: hls('s') }]) })
    expect((await sync('r5')).removed).toEqual(['r5.go'])
    expect(await stream('r5.go')).toBeUndefined()
    expect((await panel.api('GET', '/api/users/ann')).grants).not.toContain('r5.go')
    expect(await panel.api('DELETE', '/api/sources/r5?keepChannels=1')).toEqual({ deleted: 'r5', purged: 0, detached: 1 })
    const kept = await stream('r5.stay')
    expect(kept).toMatchObject({ redirect: true, url: hls('s') })
    expect(kept.source).toBeUndefined()
    feeds.set('/r5b.json', { body: json([{ id: 'p', url: hls('p') }]) })
    await addSource('r5b', '/r5b.json')
    expect(await panel.api('DELETE', '/api/sources/r5b')).toEqual({ deleted: 'r5b', purged: 1, detached: 0 })
    expect(await stream('r5b.p')).toBeUndefined()
  })

  it('rule 6: autoGrant grants every imported channel to every user, at sync and at user creation; off, the grants go at the next reconcile', async () => {
    feeds.set('/r6.json', { body: json([{ id: 'free', url: hls('f') }]) })
    const r = (await addSource('r6', '/r6.json')).sync
    expect(r.granted).toBeGreaterThanOrEqual(1)
    expect((await panel.api('GET', '/api/users/ann')).grants).toContain('r6.free')
    expect((await panel.api('POST', '/api/users', { username: 'newbie', password: 'pw' })).grants).toContain('r6.free')
    await panel.api('PATCH', '/api/sources/r6', { autoGrant: false })
    await panel.api('POST', '/api/users/ann/packages', { packages: [] })
    expect((await panel.api('GET', '/api/users/ann')).grants).not.toContain('r6.free')
  })

  it('rule 7: an excluded entry goes at once, stays out of later syncs, feed updates and 304s', async () => {
    feeds.set('/r7.json', { body: json([{ id: 'keep', url: hls('k') }, { id: 'drop', url: hls('d') }]) })
    await addSource('r7', '/r7.json')
    const patched = await panel.api('PATCH', '/api/sources/r7', { exclude: [{ id: 'drop', title: 'Drop' }] })
    expect(patched.exclude).toEqual([{ id: 'drop', title: 'Drop' }])
    expect(await stream('r7.drop')).toBeUndefined()
    expect((await sync('r7')).added).toEqual([])
    expect((await sync('r7')).notModified).toBe(true)
    feeds.set('/r7.json', { body: json([{ id: 'drop', url: hls('d2') }, { id: 'keep', url: hls('k') }, { id: 'new', url: hls('n') }]) })
    expect((await sync('r7')).added).toEqual(['r7.new'])
    expect(await stream('r7.drop')).toBeUndefined()
    expect((await panel.api('GET', '/api/sources/r7/channels')).channels).toEqual(expect.arrayContaining([
      { feedId: 'drop', id: 'r7.drop', title: 'Drop', order: null, excluded: true }, expect.objectContaining({ feedId: 'keep', excluded: false })
    ]))
  })

  it('rule 8: an unchanged feed and a 304 append nothing; a failed pull keeps the last good state and reports the error', async () => {
    feeds.set('/r8.json', { body: json([{ id: 'a', url: hls('a') }]), etag: null })
    await addSource('r8', '/r8.json')
    let before = await settled()
    expect(await sync('r8')).toMatchObject({ added: [], updated: [], removed: [], notModified: false })
    expect(await core()).toEqual(before)
    feeds.set('/r8.json', { body: json([{ id: 'a', url: hls('a') }]) })
    await sync('r8')
    before = await core()
    const hits = feeds.hits('/r8.json').notModified
    expect((await sync('r8')).notModified).toBe(true)
    expect(feeds.hits('/r8.json').notModified).toBe(hits + 1)
    expect(await core()).toEqual(before)
    for (const [body, message] of [['{"channels": [', /invalid JSON/], ['#EXTM3U\nhttps://cdn.example/a.m3u8\n', /garbled M3U/], ['x'.repeat(30_000), /SOURCES_MAX_BYTES/]] as const) {
      feeds.set('/r8.json', { body, chunkBytes: 1000 })
      const failed = await panel.call('POST', '/api/sources/r8/sync')
      expect([failed.status, failed.body.error.code]).toEqual([502, 'PANEL_SOURCE_SYNC'])
      expect(failed.body.error.message).toMatch(message)
      expect((await panel.api('GET', '/api/sources')).sources.find((s: { name: string }) => s.name === 'r8').lastError.message).toMatch(message)
      expect(await stream('r8.a')).toBeDefined()
    }
    feeds.set('/r8.json', { body: json(Array.from({ length: 41 }, (_, i) => ({ id: `c${i}`, url: hls(i) }))) })
    expect((await panel.call('POST', '/api/sources/r8/sync')).body.error.message).toMatch(/SOURCES_MAX_CHANNELS/)
    expect(await core()).toEqual(before)
  })

  it('pulls follow https redirects (at most 3) and refuse one to http', async () => {
    feeds.set('/moved.json', { body: '', status: 302, etag: null, headers: { location: feeds.url('/moved2.json') } })
    feeds.set('/moved2.json', { body: '', status: 301, etag: null, headers: { location: '/final.json' } })
    feeds.set('/final.json', { body: json([{ id: 'a', url: hls('a') }]) })
    expect((await addSource('moved', '/moved.json')).sync.added).toEqual(['moved.a'])
    feeds.set('/loop.json', { body: '', status: 302, etag: null, headers: { location: feeds.url('/loop.json') } })
    expect((await addSource('loop', '/loop.json')).lastError.message).toMatch(/more than 3 redirects/)
    feeds.set('/downgrade.json', { body: '', status: 302, etag: null, headers: { location: 'http://127.0.0.1:1/feed.json' } })
    expect((await addSource('downgrade', '/downgrade.json')).lastError.message).toMatch(/only https/)
  })

  it('rule 9: an id of a manual channel or of another source is a conflict; a sync touches only its own records', async () => {
    await panel.api('POST', '/api/streams', { id: 'r9.manual' })
    feeds.set('/r9.json', { body: json([{ id: 'manual', url: hls('m') }, { id: 'own', url: hls('o') }]) })
    const r = (await addSource('r9', '/r9.json')).sync
    expect(r.added).toEqual(['r9.own'])
    expect(r.conflicts).toEqual([{ id: 'r9.manual', reason: 'a manual channel has this id' }])
    feeds.set('/r9b.json', { body: json([{ id: 'own', url: hls('theirs') }]) })
    const other = (await addSource('r9b', '/r9b.json', { prefix: 'r9.' })).sync
    expect(other.conflicts).toEqual([{ id: 'r9.own', reason: 'source r9 owns this id' }])
    expect((await stream('r9.own')).url).toBe(hls('o'))
    expect((await stream('r9.manual')).source).toBeUndefined()
  })

  it('rule 10 and M3U: tvg attributes and url-tvg import as records with EPG pointers, never a schedule', async () => {
    feeds.set('/tv.m3u', { body: [
      '#EXTM3U url-tvg="https://epg.example/guide.xml.gz,http://plain.example/x"',
      '#EXTINF:-1 tvg-id="news.uk" tvg-name="News UK" tvg-logo="https://img.example/news.png" group-title="News" tvg-chno="7",News Channel',
      'https://cdn.example/news/index.m3u8',
      '#EXTINF:-1 tvg-logo="http://img.example/x.png",Kids Fun!',
      'https://cdn.example/kids/index.m3u8',
      '#EXTINF:-1 tvg-id="bad id",Sports 24',
      'https://cdn.example/sports/index.m3u8',
      '#EXTINF:-1 tvg-id="plain",Plain',
      'http://cdn.example/plain/index.m3u8',
      '#EXTINF:-1,No Url'
    ].join('\n') })
    const r = (await addSource('m3u', '/tv.m3u')).sync
    expect(r.added).toEqual(['m3u.news.uk', 'm3u.kids-fun', 'm3u.sports-24'])
    expect(r.skipped).toEqual([{ feedId: 'plain', reason: 'url must be https' }, { feedId: 'no-url', reason: 'url must be https' }])
    expect(await stream('m3u.news.uk')).toMatchObject({
      title: 'News UK', logo: 'https://img.example/news.png', url: 'https://cdn.example/news/index.m3u8', order: 0, category: ['m3u TV'],
      epgUrl: 'https://epg.example/guide.xml.gz', epgId: 'news.uk'
    })
    expect(await stream('m3u.kids-fun')).toMatchObject({ title: 'Kids Fun!', logo: '', order: 1 })
    expect((await stream('m3u.kids-fun')).epgUrl).toBeUndefined()
    feeds.set('/garbled.m3u', { body: 'https://cdn.example/a.m3u8\nhttps://cdn.example/b.m3u8\n' })
    const bad = await panel.call('POST', '/api/sources', { name: 'garbled', url: feeds.url('/garbled.m3u'), category: 'X', enabled: false })
    expect(bad.body.sync).toBeNull()
    expect(bad.body.lastError.message).toMatch(/invalid JSON|garbled/)
  })

  it('an error or a log never shows the feed URL\'s query (provider credentials live there)', async () => {
    const secret = 'token=provider-secret-123'
    const failed = await panel.call('POST', '/api/sources', { name: 'secret', url: `${feeds.url('/missing.json')}?${secret}`, category: 'X' })
    expect(failed.body.lastError.message).toMatch(/HTTP 404/)
    expect(JSON.stringify(failed.body.lastError)).not.toContain('provider-secret-123')
    await waitFor(() => (panel.proc?.stdoutLines().some((l) => l.includes('source.sync-failed')) ?? false), { timeoutMs: 10_000, message: 'logged' })
    expect(panel.proc!.stdoutLines().join('\n')).not.toContain('provider-secret-123')
  })

})

describe('source commands beside the running panel', () => {
  it('add-source, set-source --exclude and remove-source edit the registry; the panel syncs, excludes and purges on its own', async () => {
    feeds.set('/cli.json', { body: json([{ id: 'a', url: hls('a') }, { id: 'b', url: hls('b') }]) })
    const added = await panel.cli(['add-source', 'cli', feeds.url('/cli.json'), '--category', 'CLI TV', '--interval-hours', '1'])
    expect(added).toMatchObject({ name: 'cli', pending: expect.stringContaining('syncs') })
    await waitFor(async () => (await stream('cli.b')) !== undefined, { timeoutMs: 20_000, message: 'scheduled first sync' })
    await panel.cli(['set-source', 'cli', '--exclude', 'b'])
    await waitFor(async () => (await stream('cli.b')) === undefined, { timeoutMs: 20_000, message: 'exclude applied by the panel' })
    expect(await stream('cli.a')).toBeDefined()
    expect((await panel.cli(['list-sources'])).sources.map((x: { name: string }) => x.name)).toContain('cli')
    expect(String(await panel.cli(['sync-source', 'cli']).catch((e: Error) => e))).toContain('PANEL_ELOCKED')
    expect(await panel.cli(['remove-source', 'cli'])).toMatchObject({ deleted: 'cli' })
    await waitFor(async () => (await stream('cli.a')) === undefined, { timeoutMs: 20_000, message: 'orphans purged by the panel' })
  })
})
