import { describe, expect, it } from 'vitest'
import { parseSelection, selects } from '../src/selection.js'
import { targetOf } from '../src/repeater.js'
import { loadRepeaterConfig } from '../src/config.js'

const KEY = 'a'.repeat(64)

describe('CHANNELS', () => {
  it('parses all, none, ids and categories', () => {
    expect(parseSelection('all')).toEqual({ kind: 'all' })
    expect(parseSelection('')).toEqual({ kind: 'all' })
    expect(parseSelection('NONE')).toEqual({ kind: 'none' })
    const ids = parseSelection('news, sport ,movie-1')
    expect(ids).toEqual({ kind: 'ids', ids: new Set(['news', 'sport', 'movie-1']) })
    const cats = parseSelection('category:Sports,News')
    expect(cats).toEqual({ kind: 'category', names: new Set(['sports', 'news']) })
  })

  it('refuses what is not an id, and an empty category list', () => {
    expect(parseSelection('news,__proto__')).toMatch(/not a stream id/)
    expect(parseSelection('a b')).toMatch(/not a stream id/)
    expect(parseSelection('category:')).toMatch(/at least one category/)
  })

  it('selects by id or by any category, without case', () => {
    const cats = parseSelection('category:sports') as Exclude<ReturnType<typeof parseSelection>, string>
    expect(selects(cats, 'x', ['News', 'Sports'])).toBe(true)
    expect(selects(cats, 'x', ['News'])).toBe(false)
    const ids = parseSelection('x') as Exclude<ReturnType<typeof parseSelection>, string>
    expect(selects(ids, 'x', [])).toBe(true)
    expect(selects(ids, 'y', [])).toBe(false)
  })

  it('an invalid CHANNELS aborts boot naming the variable', () => {
    expect(() => loadRepeaterConfig({ PANEL_PUBKEY: KEY, CHANNELS: 'a b' })).toThrow(/CHANNELS/)
    expect(() => loadRepeaterConfig({ CHANNELS: 'all' })).toThrow(/PANEL_PUBKEY is required/)
    expect(() => loadRepeaterConfig({ PANEL_PUBKEY: KEY, RETENTION_SECONDS: '5' })).toThrow(/RETENTION_SECONDS/)
    expect(loadRepeaterConfig({ PANEL_PUBKEY: KEY }).CHANNELS).toBe('all')
  })
})

describe('targetOf', () => {
  const live = { type: 'live', feedKey: KEY, blobsKey: 'b'.repeat(64), category: ['News'], status: 'live' } as any
  const all = parseSelection('all') as Exclude<ReturnType<typeof parseSelection>, string>
  it('mirrors a record with both keys; not a redirect, a deleted record or an unavailable title', () => {
    expect(targetOf(all, 'n', live)).toEqual({ id: 'n', type: 'live', feedKey: KEY, blobsKey: 'b'.repeat(64) })
    expect(targetOf(all, 'n', { ...live, feedKey: null, blobsKey: null })).toBeNull()
    expect(targetOf(all, 'n', { ...live, blobsKey: null })).toBeNull()
    expect(targetOf(all, 'n', null)).toBeNull()
    expect(targetOf(all, 'v', { ...live, type: 'vod', status: 'unavailable' })).toBeNull()
    expect(targetOf(all, 'v', { ...live, type: 'vod', status: 'available' })?.type).toBe('vod')
    expect(targetOf(parseSelection('none') as any, 'n', live)).toBeNull()
  })
})
