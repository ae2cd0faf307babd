import { describe, expect, it } from 'vitest'
import { adminApi, PNG } from './http-helpers.js'

const FEED = 'ab'.repeat(32)

describe('admin API: streams', () => {
  it('adds live and redirect streams; the key is returned once and never listed', async (t) => {
    const a = await adminApi(t)
    const live = await a.call('POST', '/api/streams', { id: 'news', title: 'News', category: ['News'], feedKey: FEED, order: 3, featured: true })
    expect(live.status).toBe(201)
    expect(live.body.key).toMatch(/^[0-9a-f]{64}$/)
    expect(live.body.stream).toMatchObject({ id: 'news', title: 'News', category: ['News'], feedKey: FEED, order: 3, featured: true, type: 'live', isLive: false, status: 'idle', redirect: false })
    const redirect = await a.call('POST', '/api/streams', { id: 'ext', url: 'https://cdn.example/live/index.m3u8?token=a&b=c' })
    expect(redirect.body.stream).toMatchObject({ redirect: true, url: 'https://cdn.example/live/index.m3u8?token=a&b=c', feedKey: null, isLive: true, status: 'live' })
    const list = await a.call('GET', '/api/streams')
    expect(list.body.streams.map((s: any) => s.id)).toEqual(['ext', 'news'])
    expect(JSON.stringify(list.body)).not.toContain(live.body.key)
    expect(JSON.stringify(await a.call('GET', '/api/observability'))).not.toContain(live.body.key)
    expect(await a.opened.ctx.registries.streamKeys.get('news')).toBe(live.body.key)
    const given = await a.call('POST', '/api/streams', { id: 'given', key: 'cd'.repeat(32) })
    expect(given.body.key).toBe('cd'.repeat(32))
  })

  it('refuses what the spec names with 400: feedKey with url, http url, bad order; 409 for a duplicate', async (t) => {
    const a = await adminApi(t)
    const both = await a.call('POST', '/api/streams', { id: 'x', feedKey: FEED, url: 'https://a.example/x.m3u8' })
    expect([both.status, both.body.error.code]).toEqual([400, 'PANEL_INVALID_INPUT'])
    const http = await a.call('POST', '/api/streams', { id: 'x', url: 'http://a.example/x.m3u8' })
    expect([http.status, http.body.error.code]).toEqual([400, 'SERVICE_VALIDATION_FAILED'])
    expect(http.body.error.message).toContain('body.url')
    for (const order of [10_000, -1, 1.5, '3']) expect((await a.call('POST', '/api/streams', { id: 'x', order })).status).toBe(400)
    expect((await a.call('POST', '/api/streams', { id: 'bad id' })).status).toBe(400)
    expect((await a.call('POST', '/api/streams', { id: 'x', unknownField: 1 })).status).toBe(400)
    await a.call('POST', '/api/streams', { id: 'x' })
    const dup = await a.call('POST', '/api/streams', { id: 'x' })
    expect([dup.status, dup.body.error.code]).toEqual([409, 'PANEL_EXISTS'])
  })

  it('PATCH with one half of the EPG pair on a record without the other answers 400 PANEL_EPG_INCOMPLETE naming it', async (t) => {
    const a = await adminApi(t)
    await a.call('POST', '/api/streams', { id: 'news' })
    const urlOnly = await a.call('PATCH', '/api/streams/news', { epgUrl: 'https://epg.example/guide.xml' })
    expect([urlOnly.status, urlOnly.body.error.code]).toEqual([400, 'PANEL_EPG_INCOMPLETE'])
    expect(urlOnly.body.error.message).toMatch(/^epgId is missing/)
    const idOnly = await a.call('PATCH', '/api/streams/news', { epgId: 'news.1', title: 'News' })
    expect([idOnly.status, idOnly.body.error.code]).toEqual([400, 'PANEL_EPG_INCOMPLETE'])
    expect(idOnly.body.error.message).toMatch(/^epgUrl is missing/)
    // Nothing was written by the refused edits.
    expect((await a.call('GET', '/api/streams')).body.streams.find((s: { id: string }) => s.id === 'news').title).toBe('news')
    // Both halves set the pair; then one half alone edits it; an empty value clears both.
    expect((await a.call('PATCH', '/api/streams/news', { epgUrl: 'https://epg.example/guide.xml', epgId: 'news.1' })).body)
      .toMatchObject({ epgUrl: 'https://epg.example/guide.xml', epgId: 'news.1' })
    expect((await a.call('PATCH', '/api/streams/news', { epgId: 'news.2' })).body).toMatchObject({ epgUrl: 'https://epg.example/guide.xml', epgId: 'news.2' })
    expect((await a.call('PATCH', '/api/streams/news', { epgUrl: 'https://epg.example/other.xml' })).body).toMatchObject({ epgUrl: 'https://epg.example/other.xml', epgId: 'news.2' })
    const cleared = (await a.call('PATCH', '/api/streams/news', { epgId: '' })).body
    expect([cleared.epgUrl, cleared.epgId]).toEqual([undefined, undefined])
  })

  it('PATCH edits every field the spec lists, with the redirect and isLive defaults of rules 3-4', async (t) => {
    const a = await adminApi(t)
    await a.call('POST', '/api/streams', { id: 'news', feedKey: FEED })
    const patch = {
      title: 'Evening News', description: 'Daily', category: ['News', 'Local'], order: 7, featured: true,
      epgUrl: 'https://epg.example/guide.xml', epgId: 'news.1',
      poster: 'https://img.example/p.jpg', backdrop: 'https://img.example/b.jpg', logo: 'https://img.example/l.png', isLive: true
    }
    const r = await a.call('PATCH', '/api/streams/news', patch)
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ ...patch, status: 'live', feedKey: FEED })
    expect((await a.call('PATCH', '/api/streams/news', { isLive: false })).body).toMatchObject({ isLive: false, status: 'idle' })
    expect((await a.call('PATCH', '/api/streams/news', { order: null, poster: '' })).body).toMatchObject({ order: null, poster: '' })
    const noEpg = (await a.call('PATCH', '/api/streams/news', { epgUrl: '' })).body
    expect(noEpg.epgUrl).toBeUndefined()
    expect(noEpg.epgId).toBeUndefined()
    // Rule 4: a url makes it a redirect (feedKey gone), live unless the same request says otherwise.
    expect((await a.call('PATCH', '/api/streams/news', { url: 'https://cdn.example/a.m3u8' })).body)
      .toMatchObject({ redirect: true, url: 'https://cdn.example/a.m3u8', feedKey: null, isLive: true, status: 'live' })
    expect((await a.call('PATCH', '/api/streams/news', { url: 'https://cdn.example/b.m3u8', isLive: false })).body)
      .toMatchObject({ url: 'https://cdn.example/b.m3u8', isLive: false, status: 'idle' })
    // Rule 3: a feedKey cannot join a redirect.
    const mixed = await a.call('PATCH', '/api/streams/news', { feedKey: FEED })
    expect([mixed.status, mixed.body.error.code]).toEqual([400, 'PANEL_INVALID_INPUT'])
    expect((await a.call('PATCH', '/api/streams/news', { url: '' })).body).toMatchObject({ redirect: false, url: null, isLive: false, status: 'idle' })
    expect((await a.call('PATCH', '/api/streams/news', { feedKey: FEED })).body.feedKey).toBe(FEED)
    // http art or url, a bad order, an unknown field, an empty patch: 400.
    for (const body of [{ poster: 'http://img.example/p.jpg' }, { url: 'http://cdn.example/a.m3u8' }, { order: 10_000 }, { nope: 1 }, {}]) {
      const bad = await a.call('PATCH', '/api/streams/news', body)
      expect([bad.status, bad.body.error.code], JSON.stringify(body)).toEqual([400, 'SERVICE_VALIDATION_FAILED'])
    }
    expect((await a.call('PATCH', '/api/streams/ghost', { title: 'x' })).status).toBe(404)
  })

  it('sets and clears the parental flag; a cleared record is byte-identical to one never flagged', async (t) => {
    const a = await adminApi(t)
    await a.call('POST', '/api/streams', { id: 'late' })
    const plain = a.opened.ctx.catalog.stats()
    expect((await a.call('PATCH', '/api/streams/late', { restricted: true })).body).toMatchObject({ restricted: true })
    expect((await a.call('GET', '/api/streams')).body.streams[0].restricted).toBe(true)
    const cleared = (await a.call('PATCH', '/api/streams/late', { restricted: false })).body
    expect(cleared.restricted).toBeUndefined()
    const after = a.opened.ctx.catalog.stats()
    expect(after.length - plain.length).toBe(2)
    // Clearing again changes nothing: no block appended.
    await a.call('PATCH', '/api/streams/late', { restricted: false })
    expect(a.opened.ctx.catalog.stats()).toEqual(after)
    expect((await a.call('PATCH', '/api/streams/late', { restricted: 'yes' })).status).toBe(400)
  })

  it('uploads art as a raw body to the assets drive and serves it back', async (t) => {
    const a = await adminApi(t)
    await a.call('POST', '/api/streams', { id: 'news' })
    const up = await a.call('POST', '/api/streams/news/art/poster', PNG, { 'content-type': 'image/png' })
    expect(up.status).toBe(200)
    expect(up.body.path).toMatch(/^assets\/[0-9a-f]{64}\.png$/)
    expect(up.body.stream.poster).toBe(up.body.path)
    const byKind = await a.call('GET', '/api/assets/news/poster')
    expect(byKind.status).toBe(200)
    expect(byKind.headers['content-type']).toBe('image/png')
    expect(byKind.headers['content-security-policy']).toContain('sandbox')
    expect(Buffer.compare(byKind.raw, PNG)).toBe(0)
    const byFile = await a.call('GET', `/api/assets/news/${up.body.path.slice('assets/'.length)}`)
    expect(Buffer.compare(byFile.raw, PNG)).toBe(0)
    expect((await a.call('GET', '/api/assets/news/logo')).status).toBe(404)
    expect((await a.call('GET', `/api/assets/news/${'0'.repeat(64)}.png`)).status).toBe(404)
    expect((await a.call('GET', '/api/assets/ghost/poster')).status).toBe(404)

    const svg = await a.call('POST', '/api/streams/news/art/logo', '<svg xmlns="http://www.w3.org/2000/svg"/>', { 'content-type': 'image/svg+xml' })
    expect(svg.body.path).toMatch(/\.svg$/)
    expect((await a.call('GET', '/api/assets/news/logo')).headers['content-type']).toBe('image/svg+xml')

    const json = await a.call('POST', '/api/streams/news/art/poster', { a: 1 })
    expect([json.status, json.body.error.code]).toEqual([415, 'SERVICE_UNSUPPORTED_MEDIA_TYPE'])
    const bmp = await a.call('POST', '/api/streams/news/art/poster', PNG, { 'content-type': 'image/bmp' })
    expect([bmp.status, bmp.body.error.code]).toEqual([400, 'PANEL_INVALID_INPUT'])
    const big = await a.call('POST', '/api/streams/news/art/poster', Buffer.alloc(10 * 1024 * 1024 + 1), { 'content-type': 'image/png' })
    expect([big.status, big.body.error.code]).toEqual([413, 'SERVICE_PAYLOAD_TOO_LARGE'])
    expect((await a.call('POST', '/api/streams/news/art/banner', PNG, { 'content-type': 'image/png' })).status).toBe(400)
    expect((await a.call('POST', '/api/streams/ghost/art/poster', PNG, { 'content-type': 'image/png' })).status).toBe(404)
  })

  it('DELETE purges the record, its key, every grant and its art; re-adding mints a fresh key', async (t) => {
    const a = await adminApi(t)
    const { key } = (await a.call('POST', '/api/streams', { id: 'news' })).body
    await a.call('POST', '/api/users', { username: 'ann', password: 'pw' })
    await a.call('POST', '/api/users/ann/grants', { streamId: 'news' })
    const { path } = (await a.call('POST', '/api/streams/news/art/poster', PNG, { 'content-type': 'image/png' })).body
    expect(await a.call('DELETE', '/api/streams/news')).toMatchObject({ status: 200, body: { deleted: 'news' } })
    expect((await a.call('GET', '/api/streams')).body.streams).toEqual([])
    expect((await a.call('GET', '/api/users/ann')).body.grants).toEqual([])
    expect(await a.opened.ctx.registries.streamKeys.get('news')).toBeNull()
    expect(await a.opened.ctx.assets.entry('/' + path)).toBeNull()
    expect((await a.call('DELETE', '/api/streams/news')).status).toBe(404)
    const again = (await a.call('POST', '/api/streams', { id: 'news' })).body
    expect(again.key).not.toBe(key)
  })
})
