import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { viewerHash } from '../src/analytics/day-salt.js'
import { ViewerSketch } from '../src/analytics/sketch.js'
import { analyticsFixture, filesUnder, findNeedles } from './analytics-helpers.js'

const readJson = async (path: string) => JSON.parse(await readFile(path, 'utf8'))

describe('unique viewers', () => {
  it('counts distinct usernames exactly and de-duplicates repeats', async (t) => {
    const f = await analyticsFixture(t, '2025-03-01T08:00:00Z')
    const a = f.analytics
    for (const u of ['ann', 'bob', 'ann', 'cid', 'bob', 'ann', 'Ann']) a.sessionIssued(u)
    const v = await a.query()
    expect(v.days[0]!.day.uniqueViewers).toBe(4) // usernames are case-sensitive: Ann is another account
    expect(v.current!.sessions).toBe(7)
    for (let i = 0; i < 500; i++) a.sessionIssued(`viewer-${i % 250}`)
    expect((await a.query()).days[0]!.day.uniqueViewers).toBe(254)
  })

  it('keeps a 0600 day salt in the private dir and only salted hashes in the day file', async (t) => {
    const f = await analyticsFixture(t, '2025-03-01T08:00:00Z')
    const a = f.analytics
    a.sessionIssued('ann-secret-name'); a.sessionIssued('bob-secret-name')
    await a.flush()
    const salt = await readJson(f.saltFile)
    expect(salt).toMatchObject({ v: 1, date: '2025-03-01', salt: expect.stringMatching(/^[0-9a-f]{64}$/) })
    expect((await stat(f.saltFile)).mode & 0o777).toBe(0o600)
    expect((await stat(f.dir)).mode & 0o777).toBe(0o700)
    const day = await readJson(join(f.dir, '2025-03-01.json'))
    expect((await stat(join(f.dir, '2025-03-01.json'))).mode & 0o777).toBe(0o600)
    const saltBytes = Buffer.from(salt.salt, 'hex')
    // The set holds HMAC-SHA256(day salt, username) cut to 8 bytes, sorted, and nothing else.
    expect(day.viewers).toEqual({ kind: 'exact', hashes: [viewerHash(saltBytes, 'ann-secret-name'), viewerHash(saltBytes, 'bob-secret-name')].sort() })
    expect(findNeedles(await filesUnder(f.dataDir), ['ann-secret-name', 'bob-secret-name'])).toEqual([])
  })

  it('erases the set and the salt at day rollover, keeping only the count', async (t) => {
    const f = await analyticsFixture(t, '2025-03-01T23:58:00Z')
    const a = f.analytics
    a.sessionIssued('ann'); a.sessionIssued('bob')
    await a.flush()
    const first = (await readJson(f.saltFile)).salt
    f.clock.set('2025-03-02T00:00:10Z')
    await a.tick()
    // Yesterday: the count, no hashes; no salt until today's first session.
    expect(await readJson(join(f.dir, '2025-03-01.json'))).not.toHaveProperty('viewers')
    expect((await readJson(join(f.dir, '2025-03-01.json'))).uniqueViewers).toBe(2)
    await expect(stat(f.saltFile)).rejects.toMatchObject({ code: 'ENOENT' })
    expect((await readJson(join(f.dir, '2025-03-02.json'))).viewers).toEqual({ kind: 'exact', hashes: [] })
    a.sessionIssued('ann')
    await a.flush()
    const second = await readJson(f.saltFile)
    expect(second.date).toBe('2025-03-02')
    expect(second.salt).not.toBe(first)
    // The same viewer hashes differently on another day: days cannot be linked.
    expect((await readJson(join(f.dir, '2025-03-02.json'))).viewers.hashes).toEqual([viewerHash(Buffer.from(second.salt, 'hex'), 'ann')])
    expect(viewerHash(Buffer.from(first, 'hex'), 'ann')).not.toBe(viewerHash(Buffer.from(second.salt, 'hex'), 'ann'))
  })

  it('turns into a HyperLogLog above the exact cap: no hashes on disk, the count within a few percent', async (t) => {
    const f = await analyticsFixture(t, '2025-03-01T08:00:00Z', { exactCap: 1000 })
    const a = f.analytics
    for (let i = 0; i < 20_000; i++) a.sessionIssued(`user-${i}`)
    await a.flush()
    const day = await readJson(join(f.dir, '2025-03-01.json'))
    expect(day.viewers.kind).toBe('hll')
    expect(day.viewers).not.toHaveProperty('hashes')
    const n = (await a.query()).days[0]!.day.uniqueViewers
    expect(Math.abs(n - 20_000) / 20_000).toBeLessThan(0.04)
    // Repeats do not move the estimate.
    for (let i = 0; i < 20_000; i++) a.sessionIssued(`user-${i}`)
    expect((await a.query()).days[0]!.day.uniqueViewers).toBe(n)
  })

  it('estimates large counts with the default precision', () => {
    const sketch = new ViewerSketch(50_000)
    const salt = Buffer.alloc(32, 7)
    for (let i = 0; i < 120_000; i++) sketch.add(viewerHash(salt, `u${i}`))
    expect(sketch.isExact).toBe(false)
    expect(Math.abs(sketch.count() - 120_000) / 120_000).toBeLessThan(0.03)
    const copy = new ViewerSketch(50_000, sketch.toJSON())
    expect(copy.count()).toBe(sketch.count())
  })
})
