import { existsSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { chromium, type Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { listenControlServer } from '@arus/service'
import type { TestContextLike } from '@arus/testkit'
import { analyticsFixture } from './analytics-helpers.js'
import { adminApi, type AdminApi } from './http-helpers.js'

// The Reports, Alerts and Analytics tabs in a real browser (Debian's Chromium through
// playwright-core, as in http-browser.test.ts): what the UI does is what the API then holds,
// and no username or device id a report or session came with ever reaches the page.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run']
const HOUR = 3_600_000

/** Who reported: each a distinct pseudonym; none of these strings may appear on the page. */
const WHO = [
  { userId: 'reporter-zelda', deviceId: 'dev-zelda-9f1c2e' },
  { userId: 'reporter-ymir', deviceId: 'dev-ymir-4b7a10' },
  { userId: 'reporter-xena', deviceId: 'dev-xena-c3d5e7' },
  { userId: 'reporter-wanda', deviceId: 'dev-wanda-88aa01' }
]
const VIEWERS = ['viewer-quinn', 'viewer-rosalind', 'viewer-sigurd']
const SECRETS = [...WHO.flatMap((w) => [w.userId, w.deviceId]), ...VIEWERS]

const input = (channel: string, category: 'black-screen' | 'no-audio' | 'buffering', events: Array<{ kind: 'error'; at: number; detail: string }> = []) =>
  ({ channel, category, text: null, appVersion: '1.4.2', platform: 'android-tv', peers: 3, events })

/** A logged-in dashboard on `a`; `problems` collects page errors and console errors. */
async function openDashboard (t: TestContextLike, a: AdminApi): Promise<{ page: Page; problems: string[] }> {
  expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium`).toBe(true)
  const base = await listenControlServer(a.app, { host: '127.0.0.1', port: 0 })
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS })
  t.onTestFinished(() => browser.close())
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
  page.setDefaultTimeout(15_000)
  const problems: string[] = []
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`))
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console: ${msg.text()}`) })
  await page.goto(`${base}/`)
  await page.fill('#login-username', 'root')
  await page.fill('#login-password', 'root-pw')
  await page.click('#login-submit')
  await page.waitForSelector('#nav:not([hidden])')
  return { page, problems }
}

/** Secrets found in the page's text (visible text, and the text of hidden tabs too). */
async function leaked (page: Page): Promise<string[]> {
  const text = `${await page.innerText('body')}\n${await page.textContent('body') ?? ''}`
  return SECRETS.filter((s) => text.toLowerCase().includes(s.toLowerCase()))
}

/** A loopback webhook that answers 204 and keeps what it was sent. */
async function webhook (t: TestContextLike): Promise<{ url: string; bodies: string[] }> {
  const bodies: string[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => { body += c.toString() })
    req.on('end', () => { bodies.push(body); res.writeHead(204).end() })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.onTestFinished(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, bodies }
}

describe('reports, alerts and analytics tabs in Chromium', () => {
  it('shows the summary and chart, acks and resolves a report with a note, resolves an alert, tests the webhook, draws analytics', async (t) => {
    // Analytics with data: 27 hours up to now, over two UTC days, on an injected clock.
    const start = Math.floor(Date.now() / HOUR) * HOUR - 26 * HOUR
    const fx = await analyticsFixture(t, new Date(start).toISOString())
    let ok = 0
    let failed = 0
    for (let i = 0; i < 27; i++) {
      fx.clock.set(new Date(start + i * HOUR + 60_000).toISOString())
      fx.online.value = 2 + (i % 4)
      for (let n = 0; n <= i % 3; n++, ok++) fx.analytics.loginSucceeded()
      if (i % 5 === 0) { fx.analytics.loginFailed(); failed++ }
      fx.analytics.sessionIssued(VIEWERS[i % VIEWERS.length]!)
      await fx.analytics.tick()
    }

    const hook = await webhook(t)
    const a = await adminApi(t, { env: { REPORTS_WEBHOOK_URL: hook.url, REPORTS_NOTIFY_RETRY_MS: '0' }, deps: { analytics: fx.analytics } })
    // Three distinct reporters on news open an alert; a fourth reports sports.
    for (const [i, category] of (['black-screen', 'black-screen', 'no-audio'] as const).entries()) {
      expect(await a.reports.ingest(input('news', category), WHO[i]!)).toEqual({ ok: true })
    }
    expect(await a.reports.ingest(input('sports', 'buffering', [{ kind: 'error', at: Date.now(), detail: 'segment 404' }]), WHO[3]!)).toEqual({ ok: true })
    const sports = (await a.call('GET', '/api/reports?channel=sports')).body.reports[0]
    const [alert] = (await a.call('GET', '/api/alerts')).body.alerts
    expect(alert).toMatchObject({ kind: 'channel', channel: 'news', reporters: 3, status: 'open' })

    const { page, problems } = await openDashboard(t, a)

    // Reports: summary facts, the by-hour chart (a uPlot canvas), counts by channel and category.
    await page.click('[data-tab=reports]')
    const summary = page.locator('#reports-summary')
    await expect.poll(() => summary.textContent()).toContain('Open alerts1')
    expect(await summary.textContent()).toContain('4 (4 occurrences, 30 days retention)')
    expect(await summary.textContent()).toContain('New4')
    await page.locator('#reports-by-hour canvas').first().waitFor()
    expect(await page.textContent('#reports-by-channel')).toContain('news3')
    expect(await page.textContent('#reports-by-category')).toContain('black-screen2')
    await expect.poll(() => page.locator('#reports-table tr[data-report]').count()).toBe(4)

    // Filter to the sports report; ack it, then resolve it with a note, all from the UI.
    await page.selectOption('#reports-channel', 'sports')
    await expect.poll(() => page.locator('#reports-table tr[data-report]').count()).toBe(1)
    const row = page.locator(`#reports-table tr[data-report="${sports.id as string}"]`)
    expect(await row.textContent()).toContain(sports.reporter)
    expect(await row.textContent()).toContain('1.4.2 / android-tv')
    await row.locator('button', { hasText: 'Ack' }).click()
    await expect.poll(() => row.getAttribute('data-status')).toBe('ack')
    await row.locator('input.note').fill('CDN edge restarted')
    await row.locator('button', { hasText: 'Resolve' }).click()
    await expect.poll(() => row.getAttribute('data-status')).toBe('resolved')
    expect(await row.textContent()).toContain('CDN edge restarted')
    const resolved = (await a.call('GET', '/api/reports?channel=sports')).body.reports[0]
    expect(resolved).toMatchObject({ id: sports.id, status: 'resolved', note: 'CDN edge restarted', ackAt: expect.any(Number), resolvedAt: expect.any(Number) })
    await page.selectOption('#reports-channel', '')
    await page.selectOption('#reports-status', 'resolved')
    await expect.poll(() => page.locator('#reports-table tr[data-report]').count()).toBe(1)
    await page.selectOption('#reports-status', '')
    await expect.poll(() => summary.textContent()).toContain('Resolved1')

    // Test notification: one result per target, from the real webhook.
    await page.click('#reports-test-notify')
    const target = page.locator('#reports-notify-results tr[data-target="webhook"]')
    await expect.poll(() => target.textContent()).toContain('delivered')
    expect(await target.textContent()).toContain('204')
    expect(await leaked(page)).toEqual([])

    // Alerts: the news storm with its distinct viewers, acked and resolved from the UI.
    await page.click('[data-tab=alerts]')
    const alertRow = page.locator(`#alerts-table tr[data-alert="${alert.id as string}"]`)
    await alertRow.waitFor()
    expect(await alertRow.locator('.viewers').textContent()).toBe('3')
    expect(await alertRow.textContent()).toContain('news')
    expect(await alertRow.textContent()).toContain('black-screen 2, no-audio 1')
    await alertRow.locator('button', { hasText: 'Ack' }).click()
    await expect.poll(() => alertRow.getAttribute('data-status')).toBe('ack')
    await alertRow.locator('button', { hasText: 'Resolve' }).click()
    await expect.poll(() => alertRow.getAttribute('data-status')).toBe('resolved')
    expect((await a.call('GET', '/api/alerts')).body.alerts[0]).toMatchObject({ id: alert.id, status: 'resolved', resolvedAt: expect.any(Number) })
    await page.selectOption('#alerts-status', 'open')
    await expect.poll(() => page.textContent('#alerts-table tbody')).toBe('No alerts.')

    // Analytics: three charts, the current hour's facts, and the totals of the seeded hours.
    await page.click('[data-tab=analytics]')
    await expect.poll(() => page.locator('#analytics-charts canvas').count()).toBe(3)
    expect(await page.isHidden('#analytics-disabled')).toBe(true)
    const current = page.locator('#analytics-current')
    await expect.poll(() => current.textContent()).toContain(`${ok} logins ok, ${failed} failed, 27 sessions`)
    expect(await current.textContent()).toContain('Retention30 days')
    expect(await page.textContent('#analytics-logins .u-legend')).toContain('logins failed')
    expect(await page.textContent('#analytics-online .u-legend')).toContain('mean')
    const choices = await Promise.all((await page.locator('#analytics-days option').all()).map((o) => o.getAttribute('value')))
    expect(choices).toEqual(['7', '14', '30'])
    await page.selectOption('#analytics-days', '30')
    await expect.poll(() => current.textContent()).toContain('Last 30 days')
    await expect.poll(() => page.locator('#analytics-charts canvas').count()).toBe(3)

    expect(await leaked(page)).toEqual([])
    // The alert's notification reached the webhook with counts only.
    await expect.poll(() => hook.bodies.length).toBeGreaterThanOrEqual(2)
    for (const s of SECRETS) expect(hook.bodies.join('\n')).not.toContain(s)
    expect(problems).toEqual([])
  }, 60_000)

  it('shows the disabled states when reports and analytics are off', async (t) => {
    const a = await adminApi(t, { env: { REPORTS_RETENTION_DAYS: '0' } })
    const { page, problems } = await openDashboard(t, a)

    await page.click('[data-tab=reports]')
    await page.waitForSelector('#reports-disabled:not([hidden])')
    expect(await page.textContent('#reports-disabled')).toContain('REPORTS_RETENTION_DAYS=0')
    expect(await page.isHidden('#reports-body')).toBe(true)
    await page.click('#reports-test-notify')
    await expect.poll(() => page.textContent('#reports-notify-results')).toContain('No notification target is configured')

    await page.click('[data-tab=alerts]')
    await page.waitForSelector('#alerts-disabled:not([hidden])')
    expect(await page.textContent('#alerts-table tbody')).toBe('Reports are disabled.')

    await page.click('[data-tab=analytics]')
    await page.waitForSelector('#analytics-disabled:not([hidden])')
    expect(await page.isHidden('#analytics-charts')).toBe(true)
    expect(await page.locator('#analytics-charts canvas').count()).toBe(0)
    expect(problems).toEqual([])
  }, 60_000)
})
