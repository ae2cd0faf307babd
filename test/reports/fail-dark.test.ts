import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { cleanupAll, createTestnet, envSecrets, findSecrets, startPanel, tmpDir, waitFor } from '@arus/testkit'
import { enrollDevices, link, receiver, report } from './helpers.js'

// Issue 14 "Fail-dark", against the built panel: a webhook that never answers and a messenger
// API that answers 500 with a 10 MB body. Each gets 3 attempts (the hanging one times out
// after 8 s each), the queue stays at 50 while 60 alerts open, and the panel keeps answering.

afterAll(async () => { await cleanupAll() }, 60_000)

const NOTIFY_TIMEOUT_S = 8

describe('fail-dark notifications', () => {
  it('hanging, failing and oversized targets: 3 attempts each, queue ≤ 50, the panel keeps answering', async (t) => {
    const testnet = await createTestnet(t)
    const hang = await receiver(t, () => { /* never answers */ })
    const big = Buffer.alloc(10 * 1024 * 1024, 0x7a)
    const fail = await receiver(t, (_q, res) => { res.statusCode = 500; res.setHeader('content-length', big.length); res.end(big) })
    const logs = tmpDir(t, 'arus-faildark-logs-')
    const user = { name: 'carol', password: 'carol-pw' }
    const panel = await startPanel(t, {
      testnet,
      users: [user],
      logs,
      env: {
        REPORTS_WEBHOOK_URL: `${hang.url}/hook`,
        REPORTS_MSGR_BOT_TOKEN: '77:abc',
        REPORTS_MSGR_CHAT_ID: '5',
        REPORTS_MSGR_API_BASE: fail.url,
        REPORTS_NOTIFY_RETRY_MS: '500',
        REPORTS_MAX_PER_WINDOW: '1000',
        REPORTS_GLOBAL_PER_MIN: '10000'
      }
    })
    const viewers = await link(t, testnet, panel)
    const devices = await enrollDevices(viewers, [user], 3)
    const started = Date.now()
    // 60 alerts: 3 distinct devices on each of 60 channels.
    for (let c = 0; c < 60; c++) {
      const replies = await Promise.all(devices.map((d) => viewers.rpc.request('report', { v: 1, ...report(d.token, `ch${c}`) })))
      expect(replies).toEqual(Array(3).fill({ v: 1, ok: true }))
    }
    expect((await panel.api('GET', '/api/alerts')).alerts).toHaveLength(60)
    const queue = async () => Number(/^arus_panel_reports_notify_queue (\d+)$/m.exec(await (await fetch(`${panel.adminUrl}/metrics`)).text())?.[1])
    expect(await queue()).toBe(50) // one in flight, 9 dropped oldest first

    // While the first notification is stuck, the panel answers: health, the API, and viewers.
    const health = await fetch(`${panel.adminUrl}/healthz`, { signal: AbortSignal.timeout(5000) })
    expect(health.status).toBe(200)
    expect((await panel.api('GET', '/api/reports/summary')).total).toBe(180)
    const more = await viewers.rpc.request('report', { v: 1, ...report(devices[0]!.token, 'later') })
    expect(more).toEqual({ v: 1, ok: true })

    // The first notification: 3 attempts at each target (8 s timeouts on the hanging one), then dropped.
    await waitFor(() => hang.got.length >= 3 && fail.got.length >= 3, { timeoutMs: 3 * NOTIFY_TIMEOUT_S * 1000 + 15_000, intervalMs: 250, message: '3 attempts per target' })
    const drops = () => readFileSync(join(logs, 'panel.log'), 'utf8').split('\n').filter((l) => l.includes('"reports.notify.dropped"')).map((l) => JSON.parse(l))
    await waitFor(() => drops().length >= 2, { timeoutMs: 10_000, message: 'both targets dropped' })
    expect(drops().slice(0, 2).map((d) => [d.target, d.attempts, d.reason]).sort()).toEqual([['messenger', 3, 'HTTP 500'], ['webhook', 3, 'timeout']])
    expect(Date.now() - started).toBeGreaterThanOrEqual(3 * NOTIFY_TIMEOUT_S * 1000)
    const gaps = [hang.got[1]!.at - hang.got[0]!.at, hang.got[2]!.at - hang.got[1]!.at]
    expect(gaps[0]).toBeGreaterThanOrEqual(NOTIFY_TIMEOUT_S * 1000 + 400)
    expect(gaps[1]).toBeGreaterThanOrEqual(NOTIFY_TIMEOUT_S * 1000 + 900)
    const log = readFileSync(join(logs, 'panel.log'), 'utf8')
    expect(log.match(/"reports\.notify\.queue-full"/g)).toHaveLength(9)
    expect(findSecrets(log, envSecrets(panel.env))).toEqual([])
    expect(log).not.toContain(hang.url)
    expect(await queue()).toBeLessThanOrEqual(50)
    expect((await fetch(`${panel.adminUrl}/healthz`, { signal: AbortSignal.timeout(5000) })).status).toBe(200)
  }, 120_000)
})
