import { describe, expect, it } from 'vitest'
import { NOTIFY_QUEUE_MAX } from '@arus/reports'
import { input, receiver, reportsFor, who } from './helpers.js'

/** Opens one alert on each of `n` channels (3 distinct reporters each). */
async function storms (reports: Awaited<ReturnType<typeof reportsFor>>['reports'], n: number): Promise<void> {
  for (let c = 0; c < n; c++) for (let r = 0; r < 3; r++) await reports.ingest(input(`ch${c}`), who(c * 10 + r))
}

describe('notifications (fail-dark)', () => {
  it('posts {chat_id, text} to <api base>/bot<token>/sendMessage and the JSON body to the webhook', async (t) => {
    const msgr = await receiver(t)
    const hook = await receiver(t)
    const { reports } = await reportsFor(t, { webhookUrl: `${hook.url}/w/CRED`, messenger: { apiBase: `${msgr.url}/`, botToken: '123:ABC', chatId: '-100' } })
    const out = await reports.testNotify()
    expect(out).toMatchObject({ enabled: true, targets: ['webhook', 'messenger'] })
    expect(out.results).toEqual([{ target: 'webhook', ok: true, status: 200, attempts: 1 }, { target: 'messenger', ok: true, status: 200, attempts: 1 }])
    expect(msgr.got[0]!.url).toBe('/bot123:ABC/sendMessage')
    expect(JSON.parse(msgr.got[0]!.body)).toEqual({ chat_id: '-100', text: expect.stringContaining('arus-test: test notification') })
    expect(hook.got[0]!.url).toBe('/w/CRED')
  })

  it('tries a failing target 3 times with growing waits, then drops it with a warning naming no URL', async (t) => {
    const hook = await receiver(t, (_q, _b, res) => { res.statusCode = 500; res.end('no') })
    const { reports, sink } = await reportsFor(t, { webhookUrl: `${hook.url}/w/CRED`, notifyRetryMs: 100 })
    await storms(reports, 1)
    await expect.poll(() => sink.entries().some((e) => e.event === 'reports.notify.dropped'), { timeout: 5000 }).toBe(true)
    expect(hook.got).toHaveLength(3)
    const gaps = [hook.got[1]!.at - hook.got[0]!.at, hook.got[2]!.at - hook.got[1]!.at]
    expect(gaps[0]).toBeGreaterThanOrEqual(90)
    expect(gaps[1]).toBeGreaterThanOrEqual(190)
    expect(sink.entries().find((e) => e.event === 'reports.notify.dropped')).toMatchObject({ target: 'webhook', attempts: 3, reason: 'HTTP 500' })
    expect(sink.text()).not.toContain('CRED')
    expect(sink.text()).not.toContain(hook.url)
  })

  it('reads at most 64 KiB of an answer: a 10 MB reply is cut off and the delivery still counts', async (t) => {
    const big = Buffer.alloc(10 * 1024 * 1024, 0x61)
    const hook = await receiver(t, (_q, _b, res) => { res.setHeader('content-length', big.length); res.end(big) })
    const { reports } = await reportsFor(t, { webhookUrl: `${hook.url}/w` })
    const rss = process.memoryUsage().rss
    const out = await reports.testNotify()
    expect(out.results).toEqual([{ target: 'webhook', ok: true, status: 200, attempts: 1 }])
    expect(process.memoryUsage().rss - rss).toBeLessThan(64 * 1024 * 1024)
  })

  it(`bounds the queue at ${NOTIFY_QUEUE_MAX} behind a hanging target (oldest dropped first), and never blocks ingest`, async (t) => {
    const hook = await receiver(t, () => { /* never answers */ })
    const { reports, sink } = await reportsFor(t, { webhookUrl: `${hook.url}/w`, globalPerMinute: 100_000 })
    const started = Date.now()
    await storms(reports, NOTIFY_QUEUE_MAX + 12)
    expect(Date.now() - started).toBeLessThan(5000) // ingest never waited on the hanging target
    expect(reports.notifyQueue()).toBe(NOTIFY_QUEUE_MAX)
    expect(sink.entries().filter((e) => e.event === 'reports.notify.queue-full')).toHaveLength(11) // 62 queued, 1 in flight
    expect(hook.got.length).toBeLessThanOrEqual(1)
  })

  it('with no target test-notify reports it is not enabled', async (t) => {
    const { reports } = await reportsFor(t)
    expect(await reports.testNotify()).toEqual({ enabled: false, targets: [], results: [] })
  })
})
