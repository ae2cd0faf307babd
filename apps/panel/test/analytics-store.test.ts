import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createLogger } from '@arus/service'
import { waitFor } from '@arus/testkit'
import { createAnalytics } from '../src/analytics/index.js'
import { analyticsFixture, dayTotals } from './analytics-helpers.js'

const readJson = async (path: string) => JSON.parse(await readFile(path, 'utf8'))
const emptyHourOnDisk = { logins: { ok: 1, failed: 0 }, sessions: 1, onlineApps: { min: 1, max: 1, sum: 1, samples: 1 } }

describe('analytics storage', () => {
  it('keeps the counts and the viewer set across a restart mid-day', async (t) => {
    const f = await analyticsFixture(t, '2025-03-01T09:10:00Z')
    let a = f.analytics
    a.loginSucceeded(); a.sessionIssued('ann'); a.sessionIssued('bob'); a.loginFailed()
    await a.close()
    f.clock.advance(5 * 60_000)
    a = await f.open()
    a.loginSucceeded(); a.sessionIssued('ann'); a.sessionIssued('cid')
    const v = await a.query()
    expect(dayTotals(v.days[0]!)).toEqual({ ok: 2, failed: 1, sessions: 4 })
    // ann before and after the restart is one viewer: the day salt was reloaded.
    expect(v.days[0]!.day.uniqueViewers).toBe(3)
  })

  it('loses at most the counts since the last flush when killed (no close), and ignores a torn temp file', async (t) => {
    const f = await analyticsFixture(t, '2025-03-01T09:10:00Z')
    const a = f.analytics
    a.loginSucceeded(); a.sessionIssued('ann')
    f.clock.advance(60_000)
    await a.tick() // the minute's flush
    a.loginSucceeded(); a.sessionIssued('bob') // never flushed: the process "dies" here
    // What a kill in the middle of writeJsonAtomic leaves: a temp file beside the target.
    await writeFile(join(f.dir, '.2025-03-01.json.0a1b2c3d4e5f.tmp'), '{"v":1,"date":"2025-03-01","hou')
    const b = await f.open() // a second process on the same files
    const v = await b.query()
    expect(v.days.map((d) => d.date)).toEqual(['2025-03-01'])
    expect(dayTotals(v.days[0]!)).toEqual({ ok: 1, failed: 0, sessions: 1 })
    expect(v.days[0]!.day.uniqueViewers).toBe(1)
    // Only whole files are ever read: each write is temp file + fsync + rename.
    expect(await readJson(join(f.dir, '2025-03-01.json'))).toMatchObject({ v: 1, date: '2025-03-01' })
  })

  it('flushes on its own timer, without close', async (t) => {
    const f = await analyticsFixture(t, '2025-03-01T09:10:00Z', { intervalMs: 20 })
    f.analytics.loginSucceeded(); f.analytics.sessionIssued('ann')
    const day = await waitFor(async () => {
      const d = await readJson(join(f.dir, '2025-03-01.json')).catch(() => null)
      return d?.hours['9']?.logins.ok === 1 ? d : null
    }, { timeoutMs: 5000, message: 'the timer flush' })
    expect(day.uniqueViewers).toBe(1)
  })

  it('prunes days older than the retention, at start and at each day rollover', async (t) => {
    const f = await analyticsFixture(t, '2025-03-10T12:00:00Z', { retentionDays: 3 })
    await f.analytics.close()
    for (const date of ['2025-02-01', '2025-03-07', '2025-03-08', '2025-03-09']) {
      await writeFile(join(f.dir, `${date}.json`), JSON.stringify({ v: 1, date, hours: { 5: emptyHourOnDisk }, uniqueViewers: 1 }))
    }
    const a = await f.open()
    expect((await readdir(f.dir)).sort()).toEqual(['2025-03-08.json', '2025-03-09.json', '2025-03-10.json'])
    f.clock.set('2025-03-11T00:00:30Z')
    await a.tick()
    expect((await readdir(f.dir)).sort()).toEqual(['2025-03-09.json', '2025-03-10.json', '2025-03-11.json'])
    expect((await a.query({ days: 30 })).days.map((d) => d.date)).toEqual(['2025-03-09', '2025-03-10', '2025-03-11'])
  })

  it('closes a day left open by a panel that was down at midnight: hashes and salt erased', async (t) => {
    const f = await analyticsFixture(t, '2025-03-01T22:00:00Z')
    let a = f.analytics
    a.sessionIssued('ann'); a.sessionIssued('bob')
    await a.close()
    expect((await readJson(join(f.dir, '2025-03-01.json'))).viewers.hashes).toHaveLength(2)
    f.clock.set('2025-03-03T07:00:00Z')
    a = await f.open()
    expect(await readJson(join(f.dir, '2025-03-01.json'))).toEqual({ v: 1, date: '2025-03-01', hours: expect.any(Object), uniqueViewers: 2 })
    await expect(stat(f.saltFile)).rejects.toMatchObject({ code: 'ENOENT' })
    expect((await a.query()).days.map((d) => [d.date, d.day.uniqueViewers])).toEqual([['2025-03-01', 2], ['2025-03-03', 0]])
  })

  it('with retention 0 counts nothing, writes nothing and erases a leftover salt', async (t) => {
    const f = await analyticsFixture(t, '2025-03-01T10:00:00Z')
    f.analytics.sessionIssued('ann')
    await f.analytics.close()
    const day = await readJson(join(f.dir, '2025-03-01.json'))
    expect(day.viewers.hashes).toHaveLength(1)
    const a = await f.open({ retentionDays: 0 })
    expect(a.enabled).toBe(false)
    a.loginSucceeded(); a.sessionIssued('bob')
    await a.tick()
    expect(await a.query({ days: 3 })).toEqual({ enabled: false, retentionDays: 0, days: [], current: null })
    await expect(stat(f.saltFile)).rejects.toMatchObject({ code: 'ENOENT' })
    // The open day's hashes are gone; its counts stay until analytics is enabled again and prunes.
    expect(await readJson(join(f.dir, '2025-03-01.json'))).not.toHaveProperty('viewers')
  })

  it('with retention 0 on a fresh data dir creates no directory at all', async (t) => {
    const f = await analyticsFixture(t, '2025-03-01T10:00:00Z')
    const dir = join(f.dataDir, 'fresh', 'analytics')
    await mkdir(join(f.dataDir, 'fresh'))
    const a = createAnalytics({ log: createLogger({ name: 'x', level: 'silent' }), now: f.clock.now, onlineApps: () => 1 },
      { dir, saltFile: join(f.dataDir, 'fresh', 'salt.json'), retentionDays: 0, intervalMs: 0 })
    await a.ready()
    a.sessionIssued('ann')
    await a.close()
    expect(await readdir(join(f.dataDir, 'fresh'))).toEqual([])
  })
})
