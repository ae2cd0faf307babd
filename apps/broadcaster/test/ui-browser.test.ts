import { createSocket } from 'node:dgram'
import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { createLogger } from '@arus/service'
import { createTestnet, tmpDir, waitFor } from '@arus/testkit'
import { loadBroadcasterConfig } from '../src/config.js'
import { main as startBroadcaster } from '../src/main.js'
import { broadcasterEnv, cli } from './helpers.js'

// The dashboard in a real browser: Debian's Chromium, headless, driven by playwright-core
// (never a downloaded browser), against a broadcaster built by the real composition root.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run']

async function freeUdpPort (): Promise<number> {
  return new Promise((resolve) => {
    const sock = createSocket('udp4').bind(0, '127.0.0.1', () => { const p = sock.address().port; sock.close(() => resolve(p)) })
  })
}

describe('broadcaster dashboard in Chromium', () => {
  it('logs in through the kit shell, lists and adds channels, shows logs, incidents and the analytics chart, logs out', async (t) => {
    expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium`).toBe(true)
    const testnet = await createTestnet(t)
    // The legacy env channel: a UDP push listener (an idle ffmpeg until a publisher sends).
    const env = broadcasterEnv(tmpDir(t, 'bc-ui-'), {
      BOOTSTRAP: testnet.bootstrapString, CONTROL_ENABLED: '1', CONTROL_PORT: '0', LOG_LEVEL: 'warn',
      STREAM_ID: 'env1', INPUT: JSON.stringify({ kind: 'udp', port: await freeUdpPort() }), TITLE: 'Env One'
    })
    expect((await cli(env, ['add-admin', 'root'], 'root-pw\n')).code).toBe(0)
    const running = await startBroadcaster(loadBroadcasterConfig(env), createLogger({ name: 'test', level: 'silent' }))
    t.onTestFinished(() => running.close())
    const base = running.controlUrl!
    await waitFor(() => running.manager.list().find((c) => c.id === 'env1' && c.running), { timeoutMs: 20_000, message: 'env1 resumed' })
    await running.analytics.sample()

    const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS })
    t.onTestFinished(() => browser.close())
    const page = await browser.newPage()
    page.setDefaultTimeout(15_000)
    page.on('dialog', (d) => { void d.accept() })
    const problems: string[] = []
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`))
    page.on('console', (msg) => {
      // The refused login below is a 401 the browser reports as a failed resource load.
      if (msg.type() === 'error' && !msg.text().includes('401')) problems.push(`console: ${msg.text()}`)
    })

    // A refused login shows the API's error code in the shell's message area.
    await page.goto(`${base}/`)
    await page.fill('#login-username', 'root')
    await page.fill('#login-password', 'wrong')
    await page.click('#login-submit')
    await expect.poll(() => page.textContent('#message.error')).toContain('SERVICE_BAD_CREDENTIALS')

    await page.fill('#login-password', 'root-pw')
    await page.click('#login-submit')
    await page.waitForSelector('#nav:not([hidden])')
    const env1 = page.locator('#channels tr[data-channel="env1"]')
    await env1.waitFor()
    expect(await env1.textContent()).toContain('Env One')
    await expect.poll(() => env1.locator('.badge').textContent(), { timeout: 15_000 }).toBe('WAITING FOR PUBLISHER')
    expect(await page.textContent('#subtitle')).toBe('panel: not configured')

    // Add a channel through the form, then delete it (confirmed) from its row.
    const add = page.locator('#add-form')
    await add.locator('input[name=id]').fill('web1')
    await add.locator('input[name=title]').fill('Web One')
    await add.locator('input[name=input]').fill('test')
    await add.locator('button[type=submit]').click()
    const web1 = page.locator('#channels tr[data-channel="web1"]')
    await expect.poll(() => web1.locator('.badge').textContent()).toBe('STOPPED')
    expect(running.manager.get('web1').title).toBe('Web One')
    await web1.locator('button', { hasText: 'Delete' }).click()
    await web1.waitFor({ state: 'detached' })

    // The log ring of a running channel.
    await env1.locator('button', { hasText: 'Logs' }).click()
    await page.waitForSelector('#logs-view:not([hidden])')
    expect(await page.textContent('#logs-id')).toMatch(/^env1 \(/)

    await page.click('[data-tab=incidents]')
    await page.waitForSelector('#tab-incidents:not([hidden]) #incidents table')

    // The analytics tab draws the sampled hour with uPlot: a canvas with a size, env1 in the legend.
    await page.click('[data-tab=analytics]')
    const canvas = page.locator('#peers-chart canvas')
    await canvas.waitFor()
    expect(await canvas.evaluate((c: HTMLCanvasElement) => [c.width > 0, c.height > 0])).toEqual([true, true])
    expect(await page.textContent('#peers-chart .u-legend')).toContain('env1')
    await page.locator('#egress-chart canvas').waitFor()
    expect(await page.textContent('#analytics-facts')).toContain('Hours sampled')

    // The session survives a reload (sessionStorage), and logging out returns to the login form.
    await page.reload()
    await page.waitForSelector('#nav:not([hidden])')
    await page.click('#nav button.logout')
    await page.waitForSelector('#login-form')
    expect(await page.isVisible('#login-view')).toBe(true)
    expect(await page.isHidden('#nav')).toBe(true)
    expect(await page.evaluate(() => sessionStorage.getItem('arus-admin-token'))).toBeNull()
    await page.reload()
    await page.waitForSelector('#login-view:not([hidden])')
    expect(problems).toEqual([])
  }, 90_000)
})
