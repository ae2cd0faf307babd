import { describe, expect, it } from 'vitest'
import { createEpgService, useEpg, type FetchLike } from '@arus/sdk'

const URL_A = 'https://guide.example/epg.json'
const T0 = Date.parse('2026-11-21T12:00:00Z')
const iso = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString()

function doc (id = 'news') {
  return JSON.stringify({
    channels: [
      { id, epg: [0, 1, 2, 3, 4, 5, 6].map((h) => ({ title: `show ${h}`, start: iso(h * 60 - 30), stop: iso(h * 60 + 30) })) },
      { id: 'other', epg: [{ title: 'x', start: iso(0), stop: iso(10) }] }
    ]
  })
}

/** A fake fetch: answers from `respond`, records requests. */
function fakeFetch (respond: (url: string, headers: Record<string, string>) => { status: number; body?: string; etag?: string } | 'fail') {
  const calls: Array<{ url: string; headers: Record<string, string> }> = []
  const fetchImpl: FetchLike = async (url, init) => {
    calls.push({ url, headers: init.headers })
    const r = respond(url, init.headers)
    if (r === 'fail') throw new Error('unreachable')
    const bytes = new TextEncoder().encode(r.body ?? '')
    return {
      status: r.status,
      headers: { get: (n: string) => (n === 'etag' ? r.etag ?? null : n === 'content-length' ? String(bytes.byteLength) : null) },
      body: null,
      arrayBuffer: async () => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer
    }
  }
  return { fetchImpl, calls }
}

describe('EPG service', () => {
  it('returns now and the next 4 entries, and loaded', async () => {
    const f = fakeFetch(() => ({ status: 200, body: doc(), etag: '"v1"' }))
    let now = T0
    const svc = createEpgService({ fetchImpl: f.fetchImpl, now: () => now })
    expect(svc.peek(URL_A, 'news')).toEqual({ data: { now: null, next: [] }, loaded: false })
    const r = await svc.useEpg(URL_A, 'news')
    expect(r.loaded).toBe(true)
    expect(r.data.now).toEqual({ title: 'show 0', start: iso(-30), stop: iso(30) })
    expect(r.data.next.map((e) => e.title)).toEqual(['show 1', 'show 2', 'show 3', 'show 4'])
    now = T0 + 61 * 60_000
    expect((await svc.useEpg(URL_A, 'news', { nextCount: 2 })).data).toMatchObject({ now: { title: 'show 1' }, next: [{ title: 'show 2' }, { title: 'show 3' }] })
  })

  it('revalidates with the ETag no sooner than minRefetchMs, and keeps the document on 304', async () => {
    const f = fakeFetch((_u, h) => (h['if-none-match'] === '"v1"' ? { status: 304 } : { status: 200, body: doc(), etag: '"v1"' }))
    let now = T0
    const svc = createEpgService({ fetchImpl: f.fetchImpl, now: () => now })
    await svc.useEpg(URL_A, 'news')
    await svc.useEpg(URL_A, 'other')
    expect(f.calls).toHaveLength(1) // one document per URL, shared by ids
    now += 4 * 60_000
    await svc.useEpg(URL_A, 'news')
    expect(f.calls).toHaveLength(1) // < 5 min
    now += 60_000
    const r = await svc.useEpg(URL_A, 'news')
    expect(f.calls).toHaveLength(2)
    expect(f.calls[1]?.headers['if-none-match']).toBe('"v1"')
    expect(r.data.now?.title).toBe('show 0')
  })

  it('a missing, unreachable, oversized or malformed feed yields no guide (never throws)', async () => {
    for (const respond of [
      () => ({ status: 404 }),
      () => 'fail' as const,
      () => ({ status: 200, body: 'not json' }),
      () => ({ status: 200, body: JSON.stringify({ nope: true }) }),
      () => ({ status: 200, body: 'x'.repeat(2000) })
    ]) {
      const f = fakeFetch(respond)
      const r = await createEpgService({ fetchImpl: f.fetchImpl, now: () => T0, maxBytes: 1000 }).useEpg(URL_A, 'news')
      expect(r).toEqual({ data: { now: null, next: [] }, loaded: true })
    }
  })

  it('an unknown epgId yields no guide', async () => {
    const f = fakeFetch(() => ({ status: 200, body: doc() }))
    const r = await createEpgService({ fetchImpl: f.fetchImpl, now: () => T0 }).useEpg(URL_A, 'missing')
    expect(r).toEqual({ data: { now: null, next: [] }, loaded: true })
  })

  it('keeps the last good document through failures until maxAgeMs', async () => {
    let up = true
    const f = fakeFetch(() => (up ? { status: 200, body: doc() } : 'fail'))
    let now = T0
    const svc = createEpgService({ fetchImpl: f.fetchImpl, now: () => now, maxAgeMs: 3 * 3600_000 })
    await svc.useEpg(URL_A, 'news')
    up = false
    now += 2 * 3600_000
    expect((await svc.useEpg(URL_A, 'news')).data.now?.title).toBe('show 2')
    now += 2 * 3600_000
    expect((await svc.useEpg(URL_A, 'news')).data).toEqual({ now: null, next: [] })
  })

  it('aborts a fetch after fetchTimeoutMs', async () => {
    const fetchImpl: FetchLike = (_url, init) => new Promise((_resolve, reject) => {
      init.signal.addEventListener('abort', () => reject(new Error('aborted')))
    })
    const started = Date.now()
    const r = await createEpgService({ fetchImpl, fetchTimeoutMs: 50 }).useEpg(URL_A, 'news')
    expect(r.loaded).toBe(true)
    expect(Date.now() - started).toBeLessThan(5000)
  })

  it('useEpg() uses a shared service unless one is given', async () => {
    const f = fakeFetch(() => ({ status: 200, body: doc('n2') }))
    const svc = createEpgService()
    const r = await useEpg('https://guide.example/other.json', 'n2', { service: svc, fetchImpl: f.fetchImpl, now: () => T0 })
    expect(r.data.now?.title).toBe('show 0')
    expect(svc.peek('https://guide.example/other.json', 'n2', { now: () => T0 }).loaded).toBe(true)
  })
})
