import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { listenControlServer } from '@arus/service'
import { adminApi, PNG } from './http-helpers.js'

// The dashboard in a real browser: Debian's Chromium, headless, driven by playwright-core
// (never a downloaded browser). CI installs `chromium` when it is missing.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run']

describe('dashboard in Chromium', () => {
  it('logs in, creates a user, adds a redirect stream and sees it listed, shows a refusal, logs out', async (t) => {
    expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium`).toBe(true)
    const a = await adminApi(t)
    const base = await listenControlServer(a.app, { host: '127.0.0.1', port: 0 })
    const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS })
    t.onTestFinished(() => browser.close())
    const page = await browser.newPage()
    page.setDefaultTimeout(15_000)
    const problems: string[] = []
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`))
    page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console: ${msg.text()}`) })

    await page.goto(`${base}/`)
    await page.fill('#login-username', 'root')
    await page.fill('#login-password', 'root-pw')
    await page.click('#login-submit')
    await page.waitForSelector('#nav:not([hidden])')
    await expect.poll(() => page.textContent('#status-list')).toContain(a.panelKey)

    await page.click('[data-tab=users]')
    await page.fill('#user-create-name', 'alice')
    await page.fill('#user-create-password', 'alice-pw')
    await page.click('#user-create-submit')
    const row = page.locator('#users-table tr[data-user="alice"]')
    await row.waitFor()
    expect(await row.textContent()).toContain('active')
    await row.locator('button', { hasText: 'Open' }).click()
    await expect.poll(() => page.textContent('#user-detail h3')).toBe('User alice')

    await page.click('[data-tab=streams]')
    await page.fill('#stream-add-id', 'ext')
    await page.fill('#stream-add-title', 'External')
    await page.fill('#stream-add-category', 'News')
    await page.fill('#stream-add-url', 'https://cdn.example/live/index.m3u8')
    await page.click('#stream-add-submit')
    const stream = page.locator('#streams-table tr[data-stream="ext"]')
    await stream.waitFor()
    const text = await stream.textContent()
    expect(text).toContain('External')
    expect(text).toContain('redirect https://cdn.example/live/index.m3u8')
    expect(await page.textContent('#stream-key')).toMatch(/shown once\): [0-9a-f]{64}$/)

    // Edit EPG pointers and order, upload a poster: the row shows them, the poster as a fetched blob.
    await stream.locator('button', { hasText: 'Edit' }).click()
    const detail = page.locator('#stream-detail')
    await detail.locator('input[name=order]').fill('7')
    await detail.locator('input[name=epgUrl]').fill('https://epg.example/guide.xml')
    await detail.locator('input[name=epgId]').fill('ext.1')
    await detail.locator('button', { hasText: 'Save' }).click()
    await expect.poll(() => stream.textContent()).toContain('ext.1 @ https://epg.example/guide.xml')
    await stream.locator('button', { hasText: 'Edit' }).click()
    await detail.locator('input[type=file]').setInputFiles({ name: 'poster.png', mimeType: 'image/png', buffer: PNG })
    await detail.locator('button', { hasText: 'Upload art' }).click()
    await expect.poll(() => stream.locator('img.thumb').getAttribute('src')).toMatch(/^blob:/)

    // The other views render from the same API.
    await page.click('[data-tab=categories]')
    await page.locator('#categories-table tr[data-category="news"]').waitFor()
    await page.click('[data-tab=admins]')
    await expect.poll(() => page.textContent('#admins-table tbody')).toContain('root')
    await page.click('[data-tab=publishers]')
    await page.waitForSelector('#tab-publishers:not([hidden])')

    // What the browser did is what the API holds.
    const streams = (await a.call('GET', '/api/streams')).body.streams
    expect(streams).toEqual([expect.objectContaining({
      id: 'ext', title: 'External', redirect: true, url: 'https://cdn.example/live/index.m3u8', isLive: true,
      order: 7, epgUrl: 'https://epg.example/guide.xml', epgId: 'ext.1', poster: expect.stringMatching(/^assets\/[0-9a-f]{64}\.png$/)
    })])
    expect((await a.call('GET', '/api/users/alice')).status).toBe(200)
    expect(problems).toEqual([])

    // A refusal shows its code in the shell's message area (the browser also logs the failed
    // load); logging out returns to the login form.
    await page.click('[data-tab=users]')
    await page.fill('#user-create-name', 'alice')
    await page.fill('#user-create-password', 'alice-pw')
    await page.click('#user-create-submit')
    await expect.poll(() => page.textContent('#message.error')).toMatch(/^PANEL_[A-Z_]+: /)
    await page.click('#nav button.logout')
    await page.waitForSelector('#login-view:not([hidden])')
    expect(await page.isHidden('#nav')).toBe(true)
  }, 60_000)
})
