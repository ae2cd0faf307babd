import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { chromium, type Browser } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { createTestnet, startLibrary, tmpDir } from '@arus/testkit'

// The dashboard in a real browser: Debian's Chromium, headless, driven by playwright-core
// (never a downloaded browser), against the built `arus-library run` on a local testnet.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run']
/** Long and large enough that a transcode takes seconds: the UI polls once a second while it runs. */
const MEDIA_SECONDS = 40

/** A 640x360 H.264/AAC test pattern made by real ffmpeg (test/library/media.ts's arguments, a larger frame). */
async function makeInput (dir: string): Promise<string> {
  const out = join(dir, 'film one.mp4')
  await promisify(execFile)('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y',
    '-f', 'lavfi', '-i', `testsrc=size=640x360:rate=25:duration=${MEDIA_SECONDS}`,
    '-f', 'lavfi', '-i', `sine=frequency=440:duration=${MEDIA_SECONDS}`,
    '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '50', '-keyint_min', '50', '-sc_threshold', '0', '-pix_fmt', 'yuv420p',
    '-c:a', 'aac', '-b:a', '64k', `file:${out}`], { timeout: 120_000 })
  return out
}

describe('library dashboard in Chromium', () => {
  it('logs in, adds a title through the form, shows its ingest progress until ready, its logs, re-ingests, stops polling when logged out, refuses then performs a delete', async (t) => {
    expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium`).toBe(true)
    const testnet = await createTestnet(t)
    const [lib, input] = await Promise.all([
      startLibrary(t, { bootstrap: testnet.bootstrapString }),
      makeInput(tmpDir(t, 'arus-lib-media-'))
    ])
    const base = lib.controlUrl!

    const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS })
    t.onTestFinished(() => browser.close())
    const page = await browser.newPage()
    page.setDefaultTimeout(15_000)
    page.on('dialog', (d) => { void d.accept() })
    const problems: string[] = []
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`))
    page.on('console', (msg) => {
      // The delete refused mid-ingest below is a 409 the browser reports as a failed resource load.
      if (msg.type() === 'error' && !msg.text().includes('409')) problems.push(`console: ${msg.text()}`)
    })
    const titleCalls: string[] = []
    page.on('request', (req) => { if (new URL(req.url()).pathname === '/api/titles') titleCalls.push(req.method()) })

    await page.goto(`${base}/`)
    await page.fill('#login-username', lib.operator.name)
    await page.fill('#login-password', lib.operator.password)
    await page.click('#login-submit')
    await page.waitForSelector('#nav:not([hidden])')
    await expect.poll(() => page.textContent('#titles-table')).toContain('No titles yet')
    expect(await page.textContent('#title-status')).toContain('0 (0 ready')
    expect(await page.textContent('#subtitle')).toBe('panel: not configured')

    // Add a title through the form: a forced transcode, 2 s segments.
    await page.fill('#title-add-id', 'vod.film1')
    await page.fill('#title-add-input', input)
    await page.fill('#title-add-title', 'Film One')
    await page.fill('#title-add-category', 'Films, Tests')
    await page.selectOption('#title-add-mode', 'transcode')
    await page.fill('#title-add-hlstime', '2')
    await page.click('#title-add-submit')
    const row = page.locator('#titles-table tr[data-title="vod.film1"]')
    await row.waitFor()
    expect(await row.textContent()).toContain('Film One')
    expect(await lib.api('GET', '/api/titles/vod.film1')).toMatchObject({ title: 'Film One', category: ['Films', 'Tests'], mode: 'transcode', hlsTime: 2, input })

    // While it ingests, the row carries a progress bar labelled with the phase and percentage.
    const bar = row.locator('progress.progress[data-phase]')
    await bar.waitFor({ timeout: 30_000 })
    expect(await row.getAttribute('data-state')).toBe('ingesting')
    const [phase, pct, max] = await bar.evaluate((b: HTMLProgressElement) => [b.dataset.phase, b.value, b.max])
    expect(['probe', 'convert', 'import']).toContain(phase)
    expect(pct).toBeGreaterThanOrEqual(0)
    expect(pct).toBeLessThanOrEqual(100)
    expect(max).toBe(100)
    expect(await row.locator('.progress-label').textContent()).toMatch(/^(probe|convert|import) \d+(\.\d)?%$/)

    // A delete mid-ingest is refused: the shell shows the API's code and the row stays.
    await row.locator('button', { hasText: 'Delete' }).click()
    await expect.poll(() => page.textContent('#message.error')).toContain('LIBRARY_INGESTING')
    expect(await row.count()).toBe(1)

    // The bar moves (a later phase or a percentage above 0) until the row reaches ready.
    const seen: string[] = []
    await expect.poll(async () => {
      seen.push(...await row.locator('progress.progress[data-phase]').evaluateAll((bs: HTMLProgressElement[]) => bs.map((b) => `${b.dataset.phase} ${b.value}`)))
      return row.getAttribute('data-state')
    }, { timeout: 90_000, interval: 200 }).toBe('ready')
    expect(seen.some((x) => x !== 'probe 0'), seen.join(', ')).toBe(true)

    // Ready: the bar is gone; duration, segments and size are shown.
    expect(await row.locator('progress').count()).toBe(0)
    const view = await lib.api('GET', '/api/titles/vod.film1')
    expect(view).toMatchObject({ state: 'ready', durationSec: expect.closeTo(MEDIA_SECONDS, 0), segments: expect.any(Number) })
    const text = await row.textContent()
    expect(text).toContain('0:40')
    expect(text).toMatch(/\d+(\.\d)? (KiB|MiB)/)
    expect(text).toContain(String(view.segments))
    expect(text).toContain('no panel configured')
    expect(await page.textContent('#title-status')).toContain('1 (1 ready')

    // Its logs show the pipeline's phases.
    await row.locator('button', { hasText: 'Logs' }).click()
    await page.waitForSelector('#title-logs-view:not([hidden])')
    expect(await page.textContent('#title-logs-id')).toBe('vod.film1 (ready)')
    const logs = await page.textContent('#title-logs')
    for (const line of ['phase: probe', 'phase: convert', 'convert: transcode', 'phase: import', 'ready: ']) expect(logs).toContain(line)

    // Re-ingest queues it again; logging out mid-ingest stops the one-second polling.
    await row.locator('button', { hasText: 'Re-ingest' }).click()
    await expect.poll(() => row.getAttribute('data-state')).toMatch(/^(queued|ingesting)$/)
    await page.click('#nav button.logout')
    await page.waitForSelector('#login-view:not([hidden])')
    const before = titleCalls.length
    await page.waitForTimeout(2500)
    expect(titleCalls.length).toBe(before)

    // Back in, the second generation becomes ready; delete (confirmed) removes the row and its logs.
    await page.fill('#login-username', lib.operator.name)
    await page.fill('#login-password', lib.operator.password)
    await page.click('#login-submit')
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 90_000, interval: 250 }).toBe('ready')
    expect(await lib.api('GET', '/api/titles/vod.film1')).toMatchObject({ state: 'ready', feedGeneration: 2 })
    await row.locator('button', { hasText: 'Logs' }).click()
    await page.waitForSelector('#title-logs-view:not([hidden])')
    expect(await page.textContent('#title-logs')).toContain('ingest of generation 2')
    await row.locator('button', { hasText: 'Delete' }).click()
    await row.waitFor({ state: 'detached' })
    expect(await page.isHidden('#title-logs-view')).toBe(true)
    expect((await lib.api('GET', '/api/titles')).titles).toEqual([])
    await expect.poll(() => page.textContent('#titles-table')).toContain('No titles yet')
    expect(problems).toEqual([])
  }, 180_000)
})
