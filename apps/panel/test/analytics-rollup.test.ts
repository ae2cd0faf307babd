import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { emptyHour, reduceHour } from '../src/analytics/rollup.js'
import { analyticsFixture, dayTotals } from './analytics-helpers.js'

const HOUR = 3_600_000

describe('analytics rollups', () => {
  it('counts logins and sessions into UTC hour buckets and crosses an hour boundary', async (t) => {
    const f = await analyticsFixture(t, '2025-03-01T10:58:00Z')
    const a = f.analytics
    a.loginSucceeded(); a.sessionIssued('ann')
    a.loginFailed(); a.loginFailed()
    f.clock.set('2025-03-01T11:00:05Z')
    a.loginSucceeded(); a.sessionIssued('bob')
    const v = await a.query()
    expect(v.enabled).toBe(true)
    expect(v.days.map((d) => d.date)).toEqual(['2025-03-01'])
    const hours = v.days[0]!.hours
    expect(Object.keys(hours)).toEqual(['10', '11'])
    expect(hours['10']).toMatchObject({ logins: { ok: 1, failed: 2 }, sessions: 1 })
    expect(hours['11']).toMatchObject({ logins: { ok: 1, failed: 0 }, sessions: 1 })
    expect(v.current).toMatchObject({ date: '2025-03-01', hour: 11, logins: { ok: 1, failed: 0 }, sessions: 1 })
    expect(v.days[0]!.day.uniqueViewers).toBe(2)
  })

  it('closes the day at UTC midnight: yesterday keeps its counts, today starts empty', async (t) => {
    const f = await analyticsFixture(t, '2025-03-01T23:59:00Z')
    const a = f.analytics
    a.loginSucceeded(); a.sessionIssued('ann'); a.loginFailed()
    f.clock.set('2025-03-02T00:00:01Z')
    a.loginSucceeded(); a.sessionIssued('ann'); a.sessionIssued('cid')
    const v = await a.query()
    expect(v.days.map((d) => d.date)).toEqual(['2025-03-01', '2025-03-02'])
    expect(dayTotals(v.days[0]!)).toEqual({ ok: 1, failed: 1, sessions: 1 })
    expect(v.days[0]!.day.uniqueViewers).toBe(1)
    expect(Object.keys(v.days[1]!.hours)).toEqual(['0'])
    expect(dayTotals(v.days[1]!)).toEqual({ ok: 1, failed: 0, sessions: 2 })
    // ann again on the new day: a new day, a new count.
    expect(v.days[1]!.day.uniqueViewers).toBe(2)
    // The closed day is on disk with counts only.
    const closed = JSON.parse(await readFile(join(f.dir, '2025-03-01.json'), 'utf8'))
    expect(closed).toEqual({ v: 1, date: '2025-03-01', hours: expect.any(Object), uniqueViewers: 1 })
  })

  it('reduces online apps to min, max, mean and samples per hour (a sample each tick and one at rollover)', async (t) => {
    const f = await analyticsFixture(t, '2025-03-01T10:00:00Z')
    const a = f.analytics // ready() took the first sample: 0
    for (const n of [4, 10, 7]) { f.online.value = n; f.clock.advance(60_000); await a.tick() }
    f.online.value = 3
    f.clock.set('2025-03-01T11:00:30Z')
    await a.tick() // the rollover sample only
    const v = await a.query()
    expect(v.days[0]!.hours['10']!.onlineApps).toEqual({ min: 0, max: 10, mean: 5.25, samples: 4 })
    expect(v.days[0]!.hours['11']!.onlineApps).toEqual({ min: 3, max: 3, mean: 3, samples: 1 })
  })

  it('reports an hour without samples with null min, max and mean', async (t) => {
    const f = await analyticsFixture(t, '2025-03-01T10:00:00Z')
    const v = await f.analytics.query()
    expect(v.current!.onlineApps.samples).toBe(1)
    expect(reduceHour(emptyHour()).onlineApps).toEqual({ min: null, max: null, mean: null, samples: 0 })
  })

  it('samples the catalog once per hour bucket', async (t) => {
    const f = await analyticsFixture(t, '2025-03-01T10:00:00Z')
    const a = f.analytics
    f.catalog.value = { live: 2, redirect: 1, vod: 5 }
    for (let i = 0; i < 5; i++) { f.clock.advance(60_000); await a.tick() }
    expect(f.catalog.calls).toBe(1)
    f.catalog.value = { live: 3, redirect: 1, vod: 5 }
    f.clock.advance(HOUR)
    await a.tick()
    await a.close()
    expect(f.catalog.calls).toBe(2)
    const v = await (await f.open()).query()
    // The first sample ran at ready(), before the value was set; the next hour's saw the new one.
    expect(v.days[0]!.hours['10']!.catalog).toEqual({ live: 0, redirect: 0, vod: 0 })
    expect(v.days[0]!.hours['11']!.catalog).toEqual({ live: 3, redirect: 1, vod: 5 })
  })

  it('returns 7 days by default, capped at the retention, oldest first with today last', async (t) => {
    const f = await analyticsFixture(t, '2025-03-01T12:00:00Z', { retentionDays: 10 })
    let a = f.analytics
    for (let d = 0; d < 12; d++) {
      a.loginSucceeded()
      f.clock.advance(24 * HOUR)
      await a.tick()
    }
    await a.close()
    a = await f.open()
    const dates = (v: { days: Array<{ date: string }> }) => v.days.map((d) => d.date)
    expect(dates(await a.query())).toEqual(['2025-03-07', '2025-03-08', '2025-03-09', '2025-03-10', '2025-03-11', '2025-03-12', '2025-03-13'])
    expect(dates(await a.query({ days: 1 }))).toEqual(['2025-03-13'])
    const all = await a.query({ days: 365 })
    expect(all.retentionDays).toBe(10)
    expect(dates(all)).toHaveLength(10)
    expect(dates(all)[0]).toBe('2025-03-04')
  })
})
