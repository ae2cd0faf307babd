import { describe, expect, it } from 'vitest'
import { adminApi } from './http-helpers.js'

describe('admin API: categories', () => {
  it('lists categories from records, and renames, merges, orders, hides and deletes through catmeta records', async (t) => {
    const a = await adminApi(t)
    await a.call('POST', '/api/streams', { id: 'n1', category: ['News'] })
    await a.call('POST', '/api/streams', { id: 'n2', category: ['news', 'Local'] })
    await a.call('POST', '/api/streams', { id: 's1', category: ['Sport'] })
    const list = (await a.call('GET', '/api/categories')).body.categories
    expect(list.map((c: any) => [c.slug, c.label, c.names, c.streams, c.configured])).toEqual([
      ['local', 'Local', ['Local'], 1, false],
      ['news', 'News', ['News', 'news'], 2, false],
      ['sport', 'Sport', ['Sport'], 1, false]
    ])

    // Rename: only the presentation record changes; membership stays on the records.
    const renamed = await a.call('PATCH', '/api/categories/news', { label: 'Headlines' })
    expect(renamed.body).toMatchObject({ slug: 'news', label: 'Headlines', renamed: 'Headlines', streams: 2, configured: true })
    expect(await a.opened.ctx.catalog.getCatMeta('news')).toEqual({ v: 1, slug: 'news', label: 'Headlines' })
    expect((await a.call('GET', '/api/streams')).body.streams.find((s: any) => s.id === 'n1').category).toEqual(['News'])

    // Merge (by label or slug), and a loop is refused.
    expect((await a.call('PATCH', '/api/categories/Local', { mergedInto: 'News' })).body).toMatchObject({ slug: 'local', mergedInto: 'news', rail: 'news' })
    const loop = await a.call('PATCH', '/api/categories/news', { mergedInto: 'local' })
    expect([loop.status, loop.body.error.code]).toEqual([400, 'PANEL_INVALID_INPUT'])

    // Order several rails in one write; hide one; bad order values are refused.
    const ordered = (await a.call('PATCH', '/api/categories', { order: ['sport', 'news'] })).body.categories
    expect(ordered.slice(0, 2).map((c: any) => [c.slug, c.order])).toEqual([['sport', 0], ['news', 1]])
    expect((await a.call('PATCH', '/api/categories', { order: ['sport', 'sport'] })).status).toBe(400)
    expect((await a.call('PATCH', '/api/categories/sport', { order: 10_000 })).status).toBe(400)
    expect((await a.call('PATCH', '/api/categories/sport', {})).status).toBe(400)
    expect((await a.call('PATCH', '/api/categories/sport', { hidden: true })).body).toMatchObject({ hidden: true, order: 0 })

    // null clears; a record with nothing left is deleted.
    expect((await a.call('PATCH', '/api/categories/sport', { hidden: false, order: null })).body).toMatchObject({ hidden: false, order: null, configured: false })
    expect(await a.opened.ctx.catalog.getCatMeta('sport')).toBeNull()

    // Create a rail before any channel has it.
    const kids = await a.call('POST', '/api/categories', { name: 'Kids & Family', order: 5 })
    expect([kids.status, kids.body]).toEqual([201, expect.objectContaining({ slug: 'kids-family', label: 'Kids & Family', streams: 0, order: 5 })])
    expect((await a.call('POST', '/api/categories', { name: 'kids family' })).status).toBe(409)

    // Delete: the presentation record only, or ?strip=true also strips the label from records.
    expect((await a.call('DELETE', '/api/categories/kids-family')).body).toEqual({ deleted: 'kids-family', stripped: 0 })
    expect((await a.call('DELETE', '/api/categories/kids-family')).status).toBe(404)
    expect((await a.call('DELETE', '/api/categories/news?strip=true')).body).toEqual({ deleted: 'news', stripped: 2 })
    const streams = (await a.call('GET', '/api/streams')).body.streams
    expect(streams.map((s: any) => [s.id, s.category])).toEqual([['n1', []], ['n2', ['Local']], ['s1', ['Sport']]])
    expect((await a.call('GET', '/api/categories')).body.categories.map((c: any) => c.slug)).toEqual(['local', 'sport'])
  })
})
