import { describe, expect, it } from 'vitest'
import {
  CatalogError, CatMetaRecord, PanelMetaRecord, RECORD_VERSION, StreamId, StreamRecord, UserRecord, Username,
  VodConfigRecord, canonicalJson, decodeRecord, encodeRecord, slugify, sourceStreamId
} from '@arus/catalog'
import { HEX32, liveRecord, userRecord, vodRecord } from './helpers.js'

function refusal (key: string, record: unknown): CatalogError {
  try {
    encodeRecord(key, record)
  } catch (err) {
    expect(err).toBeInstanceOf(CatalogError)
    return err as CatalogError
  }
  throw new Error('expected a refusal')
}

describe('StreamRecord', () => {
  it('accepts live, vod and redirect records', () => {
    expect(StreamRecord.parse(liveRecord())).toEqual(liveRecord())
    expect(StreamRecord.parse(vodRecord())).toEqual(vodRecord())
    const redirect = liveRecord({ redirect: true, url: 'https://cdn.example.com/a.m3u8?token=x&b=1', feedKey: null })
    expect(StreamRecord.parse(redirect).url).toBe('https://cdn.example.com/a.m3u8?token=x&b=1')
    expect(RECORD_VERSION).toBe(1)
  })

  it.each([
    ['http art', liveRecord({ poster: 'http://example.com/p.png' }), 'poster'],
    ['art with a bad extension', liveRecord({ logo: 'assets/' + 'ab'.repeat(16) + '.exe' }), 'logo'],
    ['order 10000', liveRecord({ order: 10000 }), 'order'],
    ['order 1.5', liveRecord({ order: 1.5 }), 'order'],
    ['url + feedKey', liveRecord({ redirect: true, url: 'https://cdn.example.com/a.m3u8' }), 'feedKey'],
    ['url without redirect', liveRecord({ url: 'https://cdn.example.com/a.m3u8', feedKey: null }), 'redirect'],
    ['redirect without url', liveRecord({ redirect: true, feedKey: null }), 'url'],
    ['http redirect url', liveRecord({ redirect: true, url: 'http://cdn.example.com/a.m3u8', feedKey: null }), 'url'],
    ['url over 2048', liveRecord({ redirect: true, url: 'https://e.com/' + 'a'.repeat(2040), feedKey: null }), 'url'],
    ['vod with isLive', vodRecord({ isLive: true }), 'isLive'],
    ['vod without durationSec', vodRecord({ durationSec: undefined }), 'durationSec'],
    ['live with durationSec', liveRecord({ durationSec: 10 } as never), 'durationSec'],
    ['vod with a live status', vodRecord({ status: 'live' }), 'status'],
    ['live with a vod status', liveRecord({ status: 'available' } as never), 'status'],
    ['viewerCount', liveRecord({ viewerCount: 3 } as never), 'viewerCount'],
    ['key material', liveRecord({ key: HEX32 } as never), 'key'],
    ['uppercase feedKey', liveRecord({ feedKey: HEX32.toUpperCase() }), 'feedKey'],
    ['blobsKey without feedKey', liveRecord({ feedKey: null, blobsKey: HEX32 }), 'blobsKey'],
    ['title over 200', liveRecord({ title: 'x'.repeat(201) }), 'title'],
    ['17 categories', liveRecord({ category: Array.from({ length: 17 }, (_, i) => `c${i}`) }), 'category'],
    ['a 65-char category', liveRecord({ category: ['x'.repeat(65)] }), 'category.0'],
    ['protection other than self', liveRecord({ protection: 'drm' } as never), 'protection'],
    ['http epgUrl', liveRecord({ epgUrl: 'http://epg.example.com/x.xml' }), 'epgUrl'],
    ['version 2', liveRecord({ v: 2 } as never), 'v']
  ])('refuses %s with CATALOG_INVALID_RECORD naming the field', (_name, record, field) => {
    const err = refusal('catalog/ch1', record)
    expect(err.code).toBe('CATALOG_INVALID_RECORD')
    expect(err.fields).toContain(field)
    expect(err.message).toContain(field)
  })

  it('refuses a redirect vod record', () => {
    const err = refusal('catalog/ch1', vodRecord({ redirect: true, url: 'https://e.com/a.m3u8', feedKey: null, blobsKey: null }))
    expect(err.fields).toContain('type')
  })
})

describe('ids', () => {
  it('StreamId allows letters, digits, _ . - up to 64', () => {
    expect(StreamId.safeParse('a.B_c-9').success).toBe(true)
    expect(StreamId.safeParse('x'.repeat(64)).success).toBe(true)
    for (const bad of ['', 'x'.repeat(65), 'a/b', 'a b', 'ä', 'a:b', '__proto__']) expect(StreamId.safeParse(bad).success).toBe(false)
    // Only the exact key no JSON map can hold is refused (issue 39 item 9).
    for (const ok of ['constructor', '__proto__x', 'x__proto__', 'toString']) expect(StreamId.safeParse(ok).success).toBe(true)
  })

  it('sourceStreamId builds <prefix><feedId> and enforces rule 7', () => {
    expect(sourceStreamId('iptv.', 'bbc-1')).toBe('iptv.bbc-1')
    expect(sourceStreamId('src.', 42)).toBe('src.42')
    for (const [prefix, feed] of [['iptv.', 'a/b'], ['iptv.', ''], ['x'.repeat(60), 'abcde'], ['bad prefix ', 'a']] as const) {
      expect(() => sourceStreamId(prefix, feed)).toThrowError(expect.objectContaining({ code: 'CATALOG_INVALID_STREAM_ID' }))
    }
  })

  it('Username is case-sensitive letters, digits, _ . - @', () => {
    expect(Username.safeParse('Ana.Maria_1-x@home').success).toBe(true)
    for (const bad of ['', 'x'.repeat(65), 'a b', 'a/b', 'ñ', '__proto__']) expect(Username.safeParse(bad).success).toBe(false)
  })

  it('slugify gives stable slugs for any label', () => {
    expect(slugify('News & Sport')).toBe('news-sport')
    expect(slugify('  Café Crème ')).toBe('café-crème')
    expect(slugify('समाचार')).toBe('समाचार')
    expect(slugify('أخبار')).toBe('أخبار')
    expect(slugify('+++')).toBe('c2b2b2b')
    expect(slugify('x'.repeat(100)).length).toBe(64)
    expect(slugify('News & Sport')).toBe(slugify('news-sport'))
  })
})

describe('UserRecord', () => {
  it('accepts a full record', () => {
    const u = userRecord({
      wrapped: { ch1: 'aa'.repeat(80) },
      devices: [{ deviceId: HEX32, label: 'TV', enrolledAt: 1, expiresAt: null, tokenVersion: 0, status: 'active' }]
    })
    expect(UserRecord.parse(u)).toEqual(u)
  })

  it.each([
    ['short salt', userRecord({ salt: '01'.repeat(15) }), 'salt'],
    ['maxDevices 0', userRecord({ maxDevices: 0 }), 'maxDevices'],
    ['maxDevices 101', userRecord({ maxDevices: 101 }), 'maxDevices'],
    ['negative tokenVersion', userRecord({ tokenVersion: -1 }), 'tokenVersion'],
    ['bad grant id', userRecord({ wrapped: { 'a/b': 'aa'.repeat(80) } }), 'wrapped.a/b'],
    ['non-hex grant', userRecord({ wrapped: { ch1: 'zz'.repeat(80) } }), 'wrapped.ch1'],
    ['duplicate device', userRecord({ devices: [0, 1].map(() => ({ deviceId: HEX32, label: '', enrolledAt: 1, expiresAt: null, tokenVersion: 0, status: 'active' as const })) }), 'devices.1.deviceId'],
    ['a password field', { ...userRecord(), password: 'x' }, 'password'],
    ['bad group id', userRecord({ groups: { news: { gen: 1, key: 'aa'.repeat(80) } } as any }), 'groups.news'],
    ['group generation 0', userRecord({ groups: { 'p.news': { gen: 0, key: 'aa'.repeat(80) } } }), 'groups.p.news.gen'],
    ['an unknown field in a group grant', userRecord({ groups: { auto: { gen: 1, key: 'aa'.repeat(80), x: 1 } as any } }), 'groups.auto.x']
  ])('refuses %s', (_name, record, field) => {
    const err = refusal('user/ana', record)
    expect(err.code).toBe('CATALOG_INVALID_RECORD')
    expect(err.fields).toContain(field)
  })
})

describe('GroupRecord (grp/<id>)', () => {
  it('accepts a group with channel keys, and a user record that holds it', () => {
    const g = { v: 1, gen: 2, keys: { ch1: 'ab'.repeat(72), 'news.x': 'cd'.repeat(72) } }
    expect(decodeRecord('grp/p.news', encodeRecord('grp/p.news', g).bytes)).toEqual(g)
    const u = userRecord({ groups: { 'p.news': { gen: 2, key: 'aa'.repeat(80) }, auto: { gen: 1, key: 'bb'.repeat(80) } } })
    expect(UserRecord.parse(u)).toEqual(u)
  })

  it.each([
    ['a short channel key', { v: 1, gen: 1, keys: { ch1: 'ab'.repeat(71) } }, 'keys.ch1'],
    ['a bad stream id', { v: 1, gen: 1, keys: { 'a/b': 'ab'.repeat(72) } }, 'keys.a/b'],
    ['generation 0', { v: 1, gen: 0, keys: {} }, 'gen'],
    ['an unknown field', { v: 1, gen: 1, keys: {}, members: [] }, 'members']
  ])('refuses %s', (_name, record, field) => {
    const err = refusal('grp/auto', record)
    expect(err.code).toBe('CATALOG_INVALID_RECORD')
    expect(err.fields).toContain(field)
  })
})

describe('other records', () => {
  it('CatMetaRecord: rename, merge, order, hide; slug must match the key', () => {
    expect(CatMetaRecord.parse({ v: 1, slug: 'news', label: 'Nachrichten', order: 3, hidden: false })).toBeTruthy()
    expect(refusal('catmeta/news', { v: 1, slug: 'news', mergedInto: 'news' }).fields).toContain('mergedInto')
    expect(refusal('catmeta/news', { v: 1, slug: 'sport' }).fields).toContain('slug')
  })

  it('VodConfigRecord: https apiBase without query or credentials; enabled needs apiBase and service', () => {
    const ok = { v: 1, enabled: true, apiBase: 'https://vod.example.com/api', service: 'acme', sources: { movies: 'm' }, params: { lang: 'en' } }
    expect(VodConfigRecord.parse(ok)).toEqual(ok)
    expect(VodConfigRecord.parse({ ...ok, enabled: false, apiBase: '', service: '' }).enabled).toBe(false)
    expect(refusal('svcmeta/vod', { ...ok, apiBase: 'https://vod.example.com/api?k=1' }).fields).toContain('apiBase')
    expect(refusal('svcmeta/vod', { ...ok, apiBase: 'https://u:p@vod.example.com/' }).fields).toContain('apiBase')
    expect(refusal('svcmeta/vod', { ...ok, apiBase: 'http://vod.example.com/' }).fields).toContain('apiBase')
    expect(refusal('svcmeta/vod', { ...ok, apiBase: '' }).fields).toContain('apiBase')
    expect(refusal('svcmeta/vod', { ...ok, sources: { tv: 'x' } }).fields).toContain('sources.tv')
  })

  it('PanelMetaRecord', () => {
    expect(PanelMetaRecord.parse({ v: 1, assetsKey: null, serviceName: 'Arus TV' })).toBeTruthy()
    expect(refusal('meta/panel', { v: 1, assetsKey: 'xyz', serviceName: 'a' }).fields).toContain('assetsKey')
  })

  it('keys outside the layout are refused with CATALOG_INVALID_KEY', () => {
    for (const key of ['catalog/a b', 'catalog/', 'users/ana', 'svcmeta/other', 'meta/unknown', 'meta/Bad', 'user/' + 'x'.repeat(65)]) {
      expect(refusal(key, liveRecord()).code).toBe('CATALOG_INVALID_KEY')
    }
  })
})

describe('canonical encoding', () => {
  it('sorts keys at every depth and drops whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' }, u: undefined })).toBe('{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}')
  })

  it('equal records give equal bytes whatever the field order', () => {
    const a = liveRecord()
    const b = Object.fromEntries(Object.entries(a).reverse()) as StreamRecord
    expect(Buffer.from(encodeRecord('catalog/x', a).bytes)).toEqual(Buffer.from(encodeRecord('catalog/x', b).bytes))
  })

  it('decodeRecord returns null for junk and drops unknown fields of a valid record', () => {
    expect(decodeRecord('catalog/x', Buffer.from('not json'))).toBeNull()
    expect(decodeRecord('catalog/x', Buffer.from('{"v":1}'))).toBeNull()
    expect(decodeRecord('catalog/x', Buffer.from(canonicalJson(liveRecord({ v: 2 } as never))))).toBeNull()
    expect(decodeRecord('bogus/x', Buffer.from(canonicalJson(liveRecord())))).toBeNull()
    const extra = Buffer.from(canonicalJson({ ...liveRecord(), futureField: 1 }))
    expect(decodeRecord('catalog/x', extra)).toEqual(liveRecord())
  })
})
