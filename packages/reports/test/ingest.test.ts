import { readdir, readFile } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { MAX_STORED_REPORTS, pseudonym } from '@arus/reports'
import { reportPseudonym } from '@arus/crypto'
import { tmpDir } from '@arus/testkit'
import { input, receiver, reportsFor, who } from './helpers.js'

describe('pseudonym', () => {
  it('is the first 16 hex of HMAC-SHA256(salt, user NUL device), different per device and per salt', () => {
    const salt = new Uint8Array(32).fill(1)
    const p = pseudonym(salt, 'alice', 'aa'.repeat(32))
    expect(p).toMatch(/^[0-9a-f]{16}$/)
    expect(pseudonym(salt, 'alice', 'aa'.repeat(32))).toBe(p)
    expect(pseudonym(salt, 'alice', 'bb'.repeat(32))).not.toBe(p)
    expect(pseudonym(new Uint8Array(32).fill(2), 'alice', 'aa'.repeat(32))).not.toBe(p)
    // The separator keeps (al, ice…) and (alice, …) apart.
    expect(pseudonym(salt, 'al', 'ice')).not.toBe(pseudonym(salt, 'ali', 'ce'))
  })

  it('is @arus/crypto reportPseudonym, the one implementation: a stored reporter is what it computes', async (t) => {
    expect(pseudonym).toBe(reportPseudonym)
    // Known answer (salt 32 × 0x01, alice, 32 × 0xaa): what stored reports carry.
    expect(pseudonym(new Uint8Array(32).fill(1), 'alice', 'aa'.repeat(32))).toBe('dc38fc2d6f12fe3a')
    const { reports, dir } = await reportsFor(t)
    const w = who(1)
    expect(await reports.ingest(input('news'), w)).toEqual({ ok: true })
    const stored = JSON.parse(await readFile(join(dir, 'reports.json'), 'utf8'))
    expect(stored.reports.map((r: { reporter: string }) => r.reporter)).toEqual([reportPseudonym(new Uint8Array(32).fill(7), w.userId, w.deviceId)])
  })
})

describe('ingest layers', () => {
  it('throttles a reporter past REPORTS_MAX_PER_WINDOW with retryAfter, and the window slides', async (t) => {
    let now = 1_000_000
    const { reports } = await reportsFor(t, { alertCount: 1000 }, { now: () => now })
    for (let i = 0; i < 5; i++) expect(await reports.ingest(input(`ch${i}`), who(1))).toEqual({ ok: true })
    now += 60_000
    expect(await reports.ingest(input('ch9'), who(1))).toEqual({ locked: true, retryAfter: 540 })
    expect(await reports.ingest(input('ch9'), who(2))).toEqual({ ok: true }) // another device is its own reporter
    now += 540_000
    expect(await reports.ingest(input('ch9'), who(1))).toEqual({ ok: true })
    expect((await reports.summary()).throttled).toBe(1)
  })

  it('opens one alert at REPORTS_ALERT_COUNT distinct reporters, notifies once, extends it, then collapses and sheds', async (t) => {
    let now = 5_000_000
    const hook = await receiver(t)
    const { reports } = await reportsFor(t, { stormSample: 4, globalPerMinute: 6, webhookUrl: `${hook.url}/hook/SECRET` }, { now: () => now })
    const results = []
    for (let i = 0; i < 12; i++) results.push(await reports.ingest(input('news'), who(i)))
    // 1-2: stored, no alert; 3: opens the alert (stored, sampled 1); 4-6 stored (sampled 4); then collapsed.
    expect(results.slice(0, 6)).toEqual(Array(6).fill({ ok: true }))
    expect(results.slice(6)).toEqual(Array(6).fill({ ok: true, collapsed: true }))
    const [alert] = reports.alerts().alerts
    expect(alert).toMatchObject({ kind: 'channel', channel: 'news', status: 'open', reporters: 12, reportersLowerBound: false, sampled: 4, collapsed: 6, categories: { buffering: 12 } })
    // Another channel hits the global bucket (6 per minute; 6 stored so far).
    expect(await reports.ingest(input('sport'), who(50))).toEqual({ ok: true })
    const s = await reports.summary()
    expect(s).toMatchObject({ total: 6, new: 6, openAlerts: 1, collapsed: 6, shed: 1, occurrences: 6 })
    expect(s.occurrences + s.collapsed + s.shed + s.throttled).toBe(13)
    now += 120_000
    expect(await reports.ingest(input('sport'), who(50))).toEqual({ ok: true })
    expect((await reports.summary()).occurrences).toBe(7)
    await expect.poll(() => hook.got.length, { timeout: 5000 }).toBe(1)
    const body = JSON.parse(hook.got[0]!.body)
    const title = 'arus-test: problem on news (3 distinct viewers)'
    expect(body).toMatchObject({ title, message: expect.stringContaining(title), channel: 'news', count: '3' })
    expect(body.text).toBe(body.message)
    expect(body.content).toBe(body.message)
    expect(body.message).toContain(`alert ${alert!.id}`)
    expect(body.message).toContain('buffering: 3')
    expect(hook.got[0]!.headers['x-title']).toBe(title)
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(hook.got).toHaveLength(1)
  })

  it('correlates category login panel-wide; a resolved alert lets the next storm open a new one', async (t) => {
    const now = 9_000_000
    const { reports } = await reportsFor(t, {}, { now: () => now })
    for (let i = 0; i < 3; i++) await reports.ingest(input(`ch${i}`, 'login'), who(i))
    const [login] = reports.alerts().alerts
    expect(login).toMatchObject({ kind: 'login', channel: null, reporters: 3, categories: { login: 3 } })
    expect((await reports.setAlert(login!.id, 'ack')).status).toBe('ack')
    expect((await reports.setAlert(login!.id, 'resolved')).status).toBe('resolved')
    expect((await reports.setAlert(login!.id, 'ack')).status).toBe('resolved') // never backwards
    await reports.ingest(input('ch0', 'login'), who(10))
    await reports.ingest(input('ch1', 'login'), who(11))
    expect(reports.alerts({ status: 'open' }).alerts).toHaveLength(0) // a fresh window: 2 so far
    await reports.ingest(input('ch2', 'login'), who(12))
    expect(reports.alerts({ status: 'open' }).alerts).toHaveLength(1)
    await expect(reports.setAlert('a-nope', 'ack')).rejects.toMatchObject({ code: 'REPORTS_NOT_FOUND' })
  })

  it('counts the same viewer on the same problem into one record; ack and resolve move forward only', async (t) => {
    let now = 1_000
    const { reports, activity } = await reportsFor(t, { alertCount: 100 }, { now: () => now })
    await reports.ingest({ ...input('news'), text: 'bad\u0007 picture\u001b' }, who(1))
    now += 1000
    await reports.ingest(input('news'), who(1))
    const [r] = (await reports.list()).reports
    expect(r).toMatchObject({ count: 2, at: 1000, lastAt: 2000, text: 'bad picture', status: 'new', reporter: expect.stringMatching(/^[0-9a-f]{16}$/) })
    expect((await reports.resolveReport(r!.id, ' fixed\u0000 upstream ')).note).toBe('fixed  upstream')
    expect((await reports.ackReport(r!.id)).status).toBe('resolved')
    await reports.ingest(input('news'), who(1)) // a new occurrence after resolving is a new record
    expect((await reports.list()).reports.map((x) => x.status)).toEqual(['new', 'resolved'])
    expect(activity.list().filter((e) => e.event.startsWith('report.')).every((e) => !('username' in e) && !('deviceId' in e))).toBe(true)
    await expect(reports.ackReport('r-missing')).rejects.toMatchObject({ code: 'REPORTS_NOT_FOUND' })
  })

  it('counts channels named like Object.prototype keys in the summary as any other (issue 39 item 9)', async (t) => {
    const { reports } = await reportsFor(t)
    const channels = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'news']
    for (const [i, channel] of channels.entries()) expect(await reports.ingest(input(channel), who(i))).toEqual({ ok: true })
    const s = await reports.summary()
    expect(Object.entries(s.byChannel).sort()).toEqual(channels.map((c) => [c, 1]).sort())
    expect(Object.entries(s.byCategory)).toEqual([['buffering', 5]])
  })

  it('keeps no username or device id on disk, and reloads after a restart', async (t) => {
    const dir = tmpDir(t)
    const first = await reportsFor(t, { alertCount: 2 }, { dir })
    for (let i = 0; i < 4; i++) await first.reports.ingest(input('news'), who(i))
    await first.reports.close()
    const files = await readdir(dir)
    expect(files.sort()).toEqual(['alerts.json', 'reports.json'])
    for (const f of files) {
      const text = await readFile(join(dir, f), 'utf8')
      for (let i = 0; i < 4; i++) {
        expect(text).not.toContain(who(i).userId)
        expect(text).not.toContain(who(i).deviceId)
      }
    }
    const planted = (await readFile(join(dir, 'reports.json'), 'utf8')) + who(0).userId
    expect(planted).toContain(who(0).userId) // the scan above can fail
    const second = await reportsFor(t, { alertCount: 2 }, { dir })
    expect((await second.reports.list()).reports).toHaveLength(4)
    expect(second.reports.alerts().alerts[0]).toMatchObject({ status: 'open', reporters: 4 })
  })

  it('with REPORTS_RETENTION_DAYS=0 touches no file and answers disabled', async (t) => {
    const dir = join(tmpDir(t), 'reports')
    const { reports } = await reportsFor(t, { retentionDays: 0 }, { dir })
    expect(reports.enabled).toBe(false)
    expect(await reports.list()).toEqual({ enabled: false, reports: [] })
    expect((await reports.summary()).enabled).toBe(false)
    expect(reports.alerts()).toEqual({ enabled: false, alerts: [] })
    await expect(reports.ackReport('r-1')).rejects.toMatchObject({ code: 'REPORTS_DISABLED' })
    expect(existsSync(dir)).toBe(false)
  })

  it(`caps stored reports at ${MAX_STORED_REPORTS}, evicting the oldest resolved first`, async (t) => {
    let now = 10_000_000
    const { reports } = await reportsFor(t, { alertCount: 100_000, globalPerMinute: 100_000, maxPerWindow: 10_000 }, { now: () => now })
    const first = await Promise.all(Array.from({ length: 10 }, (_, i) => reports.ingest(input(`old${i}`), who(i))))
    expect(first.every((r) => 'ok' in r)).toBe(true)
    const old = (await reports.list({ limit: 1000 })).reports
    await reports.resolveReport(old.find((r) => r.channel === 'old3')!.id)
    now += 1000
    for (let b = 0; b < MAX_STORED_REPORTS - 9; b += 500) {
      // In batches: more than 1000 waiting in the ingest lane are shed.
      const n = Math.min(500, MAX_STORED_REPORTS - 9 - b)
      await Promise.all(Array.from({ length: n }, (_, i) => reports.ingest(input(`c${b + i}`), who(100 + b + i))))
    }
    let s = await reports.summary()
    expect(s.total).toBe(MAX_STORED_REPORTS)
    const channels = new Set((await reports.list({ limit: 1000, since: 0, channel: 'old3' })).reports.map((r) => r.channel))
    expect(channels.has('old3')).toBe(false) // the resolved one went first
    expect((await reports.list({ channel: 'old0' })).reports).toHaveLength(1)
    await reports.ingest(input('newest'), who(99_999))
    expect((await reports.list({ channel: 'old0' })).reports).toHaveLength(0) // then the oldest
    s = await reports.summary()
    expect(s.total).toBe(MAX_STORED_REPORTS)
  }, 60_000)

  it('prunes reports and resolved alerts older than the retention when it starts (and hourly)', async (t) => {
    const dir = tmpDir(t)
    let now = 50_000_000
    const first = await reportsFor(t, { alertCount: 2, retentionDays: 2 }, { dir, now: () => now })
    for (let i = 0; i < 2; i++) await first.reports.ingest(input('news'), who(i))
    now += 24 * 3_600_000
    await first.reports.ingest(input('sport'), who(9))
    await first.reports.setAlert(first.reports.alerts().alerts[0]!.id, 'resolved')
    await first.reports.close()
    now += 36 * 3_600_000 // news is 60 h old, sport 36 h
    const second = await reportsFor(t, { alertCount: 2, retentionDays: 2 }, { dir, now: () => now })
    expect((await second.reports.list()).reports.map((r) => r.channel)).toEqual(['sport'])
    expect(second.reports.alerts().alerts).toEqual([])
  })
})
