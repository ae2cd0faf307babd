import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  cleanupAll, createTestnet, linkToPanel, startHttpsFixture, startPanel, waitFor,
  type HttpsFixture, type PanelHandle, type PanelLink, type Testnet
} from '@arus/testkit'

// Remote sources (issue 39 items 2 and 3) against the built panel process and a real HTTPS
// feed server on 127.0.0.1: one bad entry costs only itself (spec 1 "Source sync policy"
// rules 1, 3, 8), a failing provider is backed off and every failure is recorded, autoGrant
// applies at each sync even on a 304 (rule 6), and an edit of what a sync writes is not
// hidden behind the provider's 304. Catalog costs are read from a viewer-side replica.

const ctx = { onTestFinished: () => {} }
let testnet: Testnet
let feeds: HttpsFixture
let panel: PanelHandle
let link: PanelLink

beforeAll(async () => {
  testnet = await createTestnet()
  feeds = await startHttpsFixture(undefined)
  panel = await startPanel(undefined, { testnet, users: [{ name: 'ann', password: 'ann-pw' }], env: { NODE_EXTRA_CA_CERTS: feeds.caFile } })
  link = await linkToPanel(ctx, testnet, panel.panelKey)
}, 60_000)

afterAll(async () => { await cleanupAll() }, 30_000)

const hls = (n: string) => `https://cdn.example/${n}/index.m3u8`
const json = (channels: unknown) => JSON.stringify({ channels })
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const stream = async (id: string) => (await panel.api('GET', '/api/streams')).streams.find((s: { id: string }) => s.id === id)
const source = async (name: string) => (await panel.api('GET', '/api/sources')).sources.find((s: { name: string }) => s.name === name)
const sync = (name: string) => panel.api('POST', `/api/sources/${name}/sync`)
const grantsOf = async (u: string) => (await panel.api('GET', `/api/users/${u}`)).grants as string[]

async function core (): Promise<{ length: number; byteLength: number }> {
  await link.reader.update({ wait: true })
  const c = link.reader.bee.core
  return { length: c.length, byteLength: c.byteLength }
}

/** The catalog once the panel's background work is done: unchanged for 3 s, within 30 s. */
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

/** Adds a paused source (the POST still syncs it once): the syncs a test asserts are its own. */
const addSource = (name: string, path: string, extra: Record<string, unknown> = {}) =>
  panel.api('POST', '/api/sources', { name, url: feeds.url(path), category: `${name} TV`, enabled: false, ...extra })

describe('one bad entry costs only itself', () => {
  it('a logo with a space loses only its art, a non-https or spaced url skips only its entry; both reported, lastError null, no retry storm', async () => {
    feeds.set('/bad.m3u', { body: [
      '#EXTM3U',
      '#EXTINF:-1 tvg-id="art" tvg-logo="https://img.example/My Logo.png",With Art',
      'https://cdn.example/art/index.m3u8',
      '#EXTINF:-1 tvg-id="plain",Plain',
      'http://cdn.example/plain/index.m3u8',
      '#EXTINF:-1 tvg-id="spaced",Spaced',
      'https://cdn.example/my stream/index.m3u8',
      '#EXTINF:-1 tvg-id="ok" tvg-logo="https://img.example/ok.png",Ok',
      'https://cdn.example/ok/index.m3u8'
    ].join('\n') })
    const added = await addSource('bad', '/bad.m3u')
    expect(added.lastError).toBeNull()
    expect(added.sync).toMatchObject({ added: ['bad.art', 'bad.ok'], notModified: false })
    expect(added.sync.skipped).toEqual([
      { feedId: 'plain', reason: 'url must be https' },
      { feedId: 'spaced', reason: expect.stringMatching(/^url must be https/) }
    ])
    expect(added.sync.dropped).toEqual([{ feedId: 'art', id: 'bad.art', field: 'logo', reason: expect.stringMatching(/https/) }])
    expect(await stream('bad.art')).toMatchObject({ title: 'With Art', url: hls('art'), logo: '', order: 0 })
    expect(await stream('bad.ok')).toMatchObject({ logo: 'https://img.example/ok.png', order: 1 })
    const view = await source('bad')
    expect(view).toMatchObject({ channels: 2, lastError: null, lastSync: { report: { dropped: [expect.objectContaining({ feedId: 'art' })] } } })

    // Scheduled: the edit syncs it once (a 304); a partial success is a success, so no retry storm follows.
    const before = feeds.hits('/bad.m3u').requests
    await panel.api('PATCH', '/api/sources/bad', { enabled: true })
    await sleep(12_000)
    expect(feeds.hits('/bad.m3u').requests - before).toBeLessThanOrEqual(1)
    expect((await source('bad')).lastError).toBeNull()
  }, 60_000)
})

describe('autoGrant and edits at each sync, 304 or not', () => {
  it('rule 6: switching autoGrant on grants at the next sync although the provider answers 304; a repeat writes nothing', async () => {
    feeds.set('/grant.json', { body: json([{ id: 'a', url: hls('a') }, { id: 'b', url: hls('b') }]) })
    await addSource('grant', '/grant.json', { autoGrant: false })
    expect(await grantsOf('ann')).not.toContain('grant.a')
    await panel.api('PATCH', '/api/sources/grant', { autoGrant: true })
    const notModified = feeds.hits('/grant.json').notModified
    const r = await sync('grant')
    expect(r).toMatchObject({ notModified: true, added: [], updated: [], removed: [], granted: 2 })
    expect(feeds.hits('/grant.json').notModified).toBe(notModified + 1)
    expect(await grantsOf('ann')).toEqual(expect.arrayContaining(['grant.a', 'grant.b']))

    // Nothing changed since: a 304 and an unchanged full feed both append nothing.
    const before = await settled()
    expect(await sync('grant')).toMatchObject({ notModified: true, granted: 0 })
    expect(await core()).toEqual(before)
    feeds.set('/grant.json', { body: json([{ id: 'a', url: hls('a') }, { id: 'b', url: hls('b') }]), etag: null })
    expect(await sync('grant')).toMatchObject({ notModified: false, added: [], updated: [], removed: [], granted: 0 })
    expect(await core()).toEqual(before)
  })

  it('a category edit (CLI set-source) and a prefix edit (PATCH) apply at the next sync although the provider would answer 304', async () => {
    feeds.set('/edit.json', { body: json([{ id: 'a', url: hls('a') }]) })
    await addSource('edit', '/edit.json')
    expect((await sync('edit')).notModified).toBe(true)
    expect(await panel.cli(['set-source', 'edit', '--category', 'New TV'])).toMatchObject({ category: 'New TV' })
    expect(await sync('edit')).toMatchObject({ notModified: false, updated: ['edit.a'] })
    expect(await stream('edit.a')).toMatchObject({ category: ['New TV'] })
    expect((await sync('edit')).notModified).toBe(true)
    await panel.api('PATCH', '/api/sources/edit', { prefix: 'ed-' })
    expect(await sync('edit')).toMatchObject({ notModified: false, added: ['ed-a'], removed: ['edit.a'] })
    expect(await stream('ed-a')).toMatchObject({ category: ['New TV'], source: 'edit' })
    expect(await stream('edit.a')).toBeUndefined()
  })
})

describe('a failing provider', () => {
  it('HTTP 500: every failure recorded and logged, retried with backoff (a handful of pulls in a minute), the manual sync answers 502', async () => {
    feeds.set('/down.json', { body: 'oops', status: 500, etag: null })
    const added = await addSource('down', '/down.json')
    expect(added.sync).toBeNull()
    expect(added.lastError.message).toMatch(/HTTP 500/)
    const first = feeds.hits('/down.json').requests
    const started = Date.now()
    await panel.api('PATCH', '/api/sources/down', { enabled: true, intervalMs: 3_600_000 })
    // Backoff from 5 s doubling (not a fixed wait of min(intervalMs, 5 min)): the edit's sync, then a retry within seconds.
    await waitFor(() => feeds.hits('/down.json').requests >= first + 2, { timeoutMs: 25_000, intervalMs: 200, message: 'a backed-off retry' })
    await sleep(Math.max(0, 60_000 - (Date.now() - started)))
    const pulls = feeds.hits('/down.json').requests - first
    expect(pulls).toBeGreaterThanOrEqual(2)
    expect(pulls).toBeLessThanOrEqual(5)
    expect((await source('down')).lastError.message).toMatch(/HTTP 500/)
    const failed = await panel.call('POST', '/api/sources/down/sync')
    expect([failed.status, failed.body.error.code]).toEqual([502, 'PANEL_SOURCE_SYNC'])
    const logged = panel.proc!.stdoutLines().map((l) => { try { return JSON.parse(l) } catch { return null } })
      .filter((l) => l?.event === 'source.sync-failed' && l.source === 'down')
    expect(logged.length).toBeGreaterThanOrEqual(pulls)
    expect(logged.every((l) => l.level === 40)).toBe(true)
    feeds.set('/down.json', { body: json([{ id: 'up', url: hls('up') }]) })
    expect((await sync('down')).added).toEqual(['down.up'])
    expect((await source('down')).lastError).toBeNull()
  }, 120_000)
})
