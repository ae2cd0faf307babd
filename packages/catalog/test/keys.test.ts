import b4a from 'b4a'
import { afterEach, describe, expect, it } from 'vitest'
import { PREFIXES, createCatalogWriter, keys, parseKey, prefixRange } from '@arus/catalog'
import { cleanup, defer, liveRecord, panelKeyPair, tempStore, userRecord } from './helpers.js'

afterEach(cleanup)

describe('key layout', () => {
  it('builds and parses every kind of key', () => {
    expect(keys.stream('ch.1')).toBe('catalog/ch.1')
    expect(keys.user('Ana@home')).toBe('user/Ana@home')
    expect(keys.catMeta('news')).toBe('catmeta/news')
    expect(keys.vodConfig()).toBe('svcmeta/vod')
    expect(keys.meta('panel')).toBe('meta/panel')
    expect(keys.group('p.news')).toBe('grp/p.news')
    expect(keys.group('auto')).toBe('grp/auto')
    expect(parseKey('grp/p.news')).toEqual({ prefix: 'grp/', name: 'p.news' })
    expect(() => keys.group('news')).toThrowError(expect.objectContaining({ code: 'CATALOG_INVALID_KEY' }))
    expect(parseKey('user/Ana')).toEqual({ prefix: 'user/', name: 'Ana' })
    expect(() => keys.stream('a/b')).toThrowError(expect.objectContaining({ code: 'CATALOG_INVALID_KEY' }))
    expect(() => keys.user(undefined as unknown as string)).toThrowError(expect.objectContaining({ code: 'CATALOG_INVALID_KEY' }))
  })

  it('prefixRange replaces the final / with 0 and refuses prefixes without it', () => {
    expect(prefixRange('catalog/')).toEqual({ gte: 'catalog/', lt: 'catalog0' })
    expect(prefixRange('user/')).toEqual({ gte: 'user/', lt: 'user0' })
    expect(() => prefixRange('catalog')).toThrowError(expect.objectContaining({ code: 'CATALOG_INVALID_ARGUMENT' }))
  })

  it('a scan of one prefix never returns another prefix\'s keys', async () => {
    const store = await tempStore()
    const writer = createCatalogWriter({ store, keyPair: panelKeyPair() })
    defer(() => writer.close())
    await writer.ready()
    // Ids that start like other prefixes, on both sides of every boundary.
    for (const id of ['user', 'catmeta', 'meta', 'catalog', 'svcmeta.vod', '0', 'zzz']) await writer.putStream(id, liveRecord())
    for (const name of ['catalog', 'catalog.x', 'meta', 'user', '0', 'zzz']) await writer.putUser(name, userRecord())
    for (const slug of ['catalog', 'user', 'meta']) await writer.putCatMeta({ v: 1, slug })
    await writer.putVodConfig({ v: 1, enabled: false, apiBase: '', service: '', sources: {}, params: {} })
    await writer.putMeta('panel', { v: 1, assetsKey: null, serviceName: 'x' })
    for (const id of ['auto', 'p.user', 'p.0']) await writer.putGroup(id, { v: 1, gen: 1, keys: {} })
    // Raw neighbours just outside the ranges (written below the schema layer on purpose).
    for (const raw of ['catalog', 'catalog0', 'catalogue/x', 'user', 'user0', 'users/x', 'meta', 'meta0', 'metadata/x', 'catmeta0', 'svcmeta0', 'grp', 'grp0', 'grps/x']) {
      await writer.bee.put(raw, b4a.from('{}'))
    }

    const expected: Record<string, number> = { 'catalog/': 7, 'user/': 6, 'catmeta/': 3, 'svcmeta/': 1, 'meta/': 1, 'grp/': 3 }
    for (const prefix of Object.values(PREFIXES)) {
      const found: string[] = []
      for await (const { key } of writer.bee.createReadStream(prefixRange(prefix))) found.push(key as string)
      expect(found.length, prefix).toBe(expected[prefix])
      for (const key of found) expect(key.startsWith(prefix), `${key} in ${prefix}`).toBe(true)
    }
    expect((await writer.listStreams()).map((s) => s.id).sort()).toEqual(['0', 'catalog', 'catmeta', 'meta', 'svcmeta.vod', 'user', 'zzz'])
  })
})
