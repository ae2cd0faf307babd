import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import { generateSigningKeyPair } from '@arus/crypto'
import { cleanupAll, collectSecrets, createTestnet, envSecrets, findSecrets, startPanel, tmpDir, viewerLogin, waitFor } from '@arus/testkit'
import { enrollDevices, identitiesIn, link, receiver, report, type Device } from './helpers.js'

// Issue 14 "Storm", against the built panel: 100 enrolled devices (the real login flow) send
// 3,000 reports within a minute, 2,400 at one channel. One alert, one notification per
// target, every report accounted for, alert writes at most once per 5 s, a viewer login in the
// middle of it succeeds, and no username or device id anywhere the reports reach.

afterAll(async () => { await cleanupAll() }, 60_000)

const ROUNDS = 30

describe('report storm', () => {
  it('3,000 reports from 100 devices: one alert, one delivery per target, counts that add up, no identity anywhere', async (t) => {
    const testnet = await createTestnet(t)
    const hookSecret = randomBytes(12).toString('hex')
    const botToken = `4242:${randomBytes(12).toString('hex')}`
    const hook = await receiver(t)
    const msgr = await receiver(t)
    const users = Array.from({ length: 4 }, (_, i) => ({ name: `storm-viewer-${i}-${randomBytes(3).toString('hex')}`, password: randomBytes(9).toString('hex') }))
    const late = { name: `late-viewer-${randomBytes(3).toString('hex')}`, password: randomBytes(9).toString('hex') }
    const logs = tmpDir(t, 'arus-storm-logs-')
    const panel = await startPanel(t, {
      testnet,
      users: [...users, late],
      logs,
      env: {
        DEFAULT_MAX_DEVICES: '25',
        REPORTS_GLOBAL_PER_MIN: '40',
        REPORTS_WEBHOOK_URL: `${hook.url}/hooks/${hookSecret}`,
        REPORTS_MSGR_BOT_TOKEN: botToken,
        REPORTS_MSGR_CHAT_ID: '-1001',
        REPORTS_MSGR_API_BASE: msgr.url
      }
    })
    await panel.api('POST', '/api/streams', { id: 'news', title: 'News' })
    const viewers = await link(t, testnet, panel)
    const devices = await enrollDevices(viewers, users, 25)
    expect(new Set(devices.map((d) => d.deviceId)).size).toBe(100)

    // Watch alerts.json: every write replaces the file (a new inode).
    const alertsFile = join(panel.dataDir, 'reports', 'alerts.json')
    const writes: number[] = []
    let lastIno = -1
    const watch = setInterval(() => {
      try {
        const s = statSync(alertsFile)
        if (s.ino !== lastIno) { lastIno = s.ino; writes.push(Date.now()) }
      } catch { /* not written yet */ }
    }, 25)
    t.onTestFinished(() => clearInterval(watch))

    const replies: Record<string, number> = {}
    const send = async (d: Device, channel: string, category = 'buffering') => {
      const r = await viewers.rpc.request('report', { v: 1, ...report(d.token, channel, category) }) as { ok?: true; collapsed?: true; error?: string }
      const kind = r.error ?? (r.collapsed ? 'collapsed' : r.ok ? 'ok' : JSON.stringify(r))
      replies[kind] = (replies[kind] ?? 0) + 1
    }

    const started = Date.now()
    // Phase 1: 80 devices storm "news"; a fresh viewer logs in on its own connection meanwhile.
    const lateLink = await link(t, testnet, panel)
    let lateLogin: Promise<unknown> | null = null
    for (let round = 0; round < ROUNDS; round++) {
      if (round === 10) lateLogin = viewerLogin(lateLink.rpc, lateLink.reader, { username: late.name, password: late.password, device: generateSigningKeyPair() })
      await Promise.all(devices.slice(0, 80).map((d, i) => send(d, 'news', i % 4 === 0 ? 'no-audio' : 'buffering')))
    }
    // Phase 2: 20 devices, each on its own channel: no alert, but the panel-wide bucket runs dry.
    for (let round = 0; round < ROUNDS; round++) await Promise.all(devices.slice(80).map((d, i) => send(d, `side-${i}`)))
    const elapsed = Date.now() - started
    expect(elapsed).toBeLessThan(60_000)
    expect(await lateLogin).toMatchObject({ token: expect.any(String) })

    // Every report answered: taken, collapsed into the alert, or throttled (5 per device per window).
    expect(replies).toEqual({ ok: expect.any(Number), collapsed: expect.any(Number), locked: 2500 })
    expect(replies.ok! + replies.collapsed! + replies.locked!).toBe(3000)

    const summary = await panel.api('GET', '/api/reports/summary')
    expect(summary.throttled).toBe(2500)
    expect(summary.collapsed).toBe(replies.collapsed)
    expect(summary.collapsed).toBeGreaterThan(0)
    expect(summary.shed).toBeGreaterThan(0)
    expect(summary.occurrences + summary.collapsed + summary.shed + summary.throttled).toBe(3000)
    expect(summary.occurrences + summary.shed).toBe(replies.ok)
    expect(summary.byHour).toHaveLength(24)

    const { alerts } = await panel.api('GET', '/api/alerts')
    expect(alerts).toHaveLength(1)
    expect(alerts[0]).toMatchObject({ kind: 'channel', channel: 'news', status: 'open', reporters: 80, reportersLowerBound: false, sampled: 20 })
    expect(alerts[0].categories.buffering + alerts[0].categories['no-audio']).toBe(400)

    // Exactly one delivery per target, and nothing more.
    await waitFor(() => hook.got.length === 1 && msgr.got.length === 1, { timeoutMs: 15_000, message: 'one delivery per target' })
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect(hook.got).toHaveLength(1)
    expect(msgr.got).toHaveLength(1)
    expect(hook.got[0]!.url).toBe(`/hooks/${hookSecret}`)
    const body = JSON.parse(hook.got[0]!.body)
    expect(body.title).toBe('arus: problem on news (3 distinct viewers)')
    expect(hook.got[0]!.headers['x-title']).toBe(body.title)
    expect(msgr.got[0]!.url).toBe(`/bot${botToken}/sendMessage`)
    expect(JSON.parse(msgr.got[0]!.body)).toEqual({ chat_id: '-1001', text: body.message })

    // alerts.json: at most one write per 5 s while ingest drives it.
    await new Promise((resolve) => setTimeout(resolve, 5500))
    clearInterval(watch)
    expect(writes.length).toBeGreaterThan(0)
    for (let i = 1; i < writes.length; i++) expect(writes[i]! - writes[i - 1]!).toBeGreaterThanOrEqual(4800)
    expect(writes.length).toBeLessThanOrEqual(Math.ceil((Date.now() - started) / 5000) + 1)

    // Pseudonymity: no username and no device id in the files, the answers, the ring, the deliveries or the logs.
    const answers = [
      await panel.api('GET', '/api/reports?limit=1000'), summary, await panel.api('GET', '/api/alerts'), await panel.api('GET', '/api/observability')
    ].map((a) => JSON.stringify(a))
    expect((JSON.parse(answers[0]!).reports as unknown[]).length).toBe(summary.total)
    const reportFiles = readdirSync(join(panel.dataDir, 'reports')).map((f) => readFileSync(join(panel.dataDir, 'reports', f), 'utf8'))
    const deliveries = [...hook.got, ...msgr.got].map((g) => g.body + JSON.stringify(g.headers))
    const log = readFileSync(join(logs, 'panel.log'), 'utf8')
    expect(log).toContain('report.received') // the log did capture the ingest
    const everything = [...reportFiles, ...answers, ...deliveries, log]
    expect(everything.flatMap((text) => identitiesIn(text, devices))).toEqual([])
    expect(identitiesIn(reportFiles[0]! + devices[7]!.deviceId, devices)).toEqual([devices[7]!.deviceId]) // the scan can fail
    // The webhook URL and the bot token are secrets: never in an answer or a log line.
    const secrets = collectSecrets({ panel: panel.dataDir }, envSecrets(panel.env))
    expect(secrets.map((s) => s.kind)).toEqual(expect.arrayContaining(['REPORTS_WEBHOOK_URL path', 'REPORTS_MSGR_BOT_TOKEN']))
    expect([...answers, log].flatMap((text) => findSecrets(text, secrets)).map((s) => s.kind)).toEqual([])
  }, 180_000)
})
