import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { chromium, type Browser, type Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { createTestnet, startPanel, startReseller, tmpDir } from '@arus/testkit'

// The white-label reseller UI in a real browser: Debian's Chromium, headless, driven by
// playwright-core (never a downloaded browser), against the built `arus-reseller run` in front
// of a real `arus-panel`. Branding is checked in the rendered page (text, classes, computed
// styles, loaded images), never by screenshots.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run']
/** The theme's accent #ff5500 as the browser computes it. */
const ACCENT = 'rgb(255, 85, 0)'
/** The default --brand-bg (#0f172a): the theme sets only the accent. */
const BRAND_BG = 'rgb(15, 23, 42)'

/** A theme with the accent and a real 32x32 PNG logo made by ffmpeg. */
async function brandFiles (dir: string): Promise<{ theme: string; logo: string }> {
  const theme = join(dir, 'theme.json')
  const logo = join(dir, 'logo.png')
  await writeFile(theme, JSON.stringify({ accent: '#ff5500' }))
  await promisify(execFile)('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'color=c=red:s=32x32', '-frames:v', '1', `file:${logo}`], { timeout: 60_000 })
  return { theme, logo }
}

async function logIn (page: Page, name: string, password: string): Promise<void> {
  await page.fill('#login-username', name)
  await page.fill('#login-password', password)
  await page.click('#login-submit')
  await page.waitForSelector('#nav:not([hidden])')
}

/** The account names in the table, in order. */
function accountNames (page: Page): Promise<string[]> {
  return page.$$eval('#accounts-table tr[data-account]', (rows) => rows.map((r) => (r as HTMLElement).dataset.account!))
}

function ledgerTypes (page: Page): Promise<string[]> {
  return page.$$eval('#ledger-table tr[data-seq]', (rows) => rows.map((r) => (r as HTMLElement).dataset.type!))
}

/** The error line the shell shows for a refused call. */
function errorMessage (page: Page): Promise<string | null> {
  return page.evaluate(() => {
    const m = document.querySelector('#message.error')
    return m && !(m as HTMLElement).hidden ? m.textContent : null
  })
}

describe('reseller UI in Chromium', () => {
  it('shows the brand on the login page; root mints, creates, searches, filters, pages, renews, suspends and deletes accounts, reads the ledger and builds the principals tree; a reseller sees neither principals nor minting', async (t) => {
    expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium`).toBe(true)
    const testnet = await createTestnet(t)
    const [panel, brand] = await Promise.all([startPanel(t, { testnet }), brandFiles(tmpDir(t, 'arus-res-brand-'))])
    const reseller = await startReseller(t, {
      panel,
      env: {
        BRAND_NAME: 'Acme TV',
        BRAND_LOGIN_STYLE: 'grid',
        BRAND_THEME_FILE: brand.theme,
        BRAND_LOGO_FILE: brand.logo,
        BRAND_FAVICON_FILE: brand.logo,
        // Enough trials for the paging below.
        TRIAL_DAILY_CAP_DEFAULT: '50'
      }
    })
    const base = reseller.url!

    const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS })
    t.onTestFinished(() => browser.close())
    const page = await browser.newPage()
    page.setDefaultTimeout(15_000)
    page.on('dialog', (d) => { void d.accept() })
    const problems: string[] = []
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`))
    page.on('console', (msg) => {
      // The refusals provoked below (409, 402) are reported by the browser as failed resource loads.
      if (msg.type() === 'error' && !/status of 4\d\d/.test(msg.text())) problems.push(`console: ${msg.text()}`)
    })

    // ---- the login page carries the brand ----
    await page.goto(`${base}/`)
    await page.waitForSelector('#login-view:not([hidden])')
    await expect.poll(() => page.title()).toBe('Acme TV')
    expect(await page.textContent('#login-brand-name')).toBe('Acme TV')
    expect(await page.isVisible('#login-brand-name')).toBe(true)
    expect(await page.isVisible('#login-form')).toBe(true)
    expect((await page.getAttribute('body', 'class'))!.split(' ')).toContain('login-style-grid')
    await page.waitForFunction(() => (document.querySelector('#login-logo') as HTMLImageElement | null)?.complete === true)
    const login = await page.evaluate(() => {
      const css = (sel: string) => getComputedStyle(document.querySelector(sel)!)
      const logo = document.querySelector('#login-logo') as HTMLImageElement
      return {
        submitBg: css('#login-submit').backgroundColor,
        submitColor: css('#login-submit').color,
        bodyBg: css('body').backgroundColor,
        bodyImage: css('body').backgroundImage,
        bodySize: css('body').backgroundSize,
        cardBorder: css('#login-view').borderTopColor,
        headerShown: css('header').display !== 'none',
        logoWidth: logo.naturalWidth,
        logoSrc: logo.src,
        favicon: (document.querySelector('link[rel~="icon"]') as HTMLLinkElement).href
      }
    })
    expect(login.submitBg).toBe(ACCENT)
    expect(login.submitColor).toBe('rgb(255, 255, 255)')
    expect(login.cardBorder).toBe(ACCENT)
    expect(login.bodyBg).toBe(BRAND_BG)
    // The grid style: two 1px line gradients repeated every 32px (no login background image is set).
    expect(login.bodyImage).toMatch(/^none, linear-gradient\(.+\), linear-gradient\(90deg, .+\)$/)
    expect(login.bodySize).toBe('cover, 32px 32px, 32px 32px')
    expect(login.headerShown).toBe(false)
    expect(login.logoWidth).toBe(32)
    expect(login.logoSrc).toBe(`${base}/branding/logo`)
    expect(login.favicon).toBe(`${base}/branding/favicon`)

    // ---- root: the header carries the brand, the accent marks the current tab ----
    await logIn(page, reseller.root.name, reseller.root.password)
    await expect.poll(() => page.textContent('#subtitle')).toBe('root · admin · 0 credits')
    expect(await page.textContent('header h1')).toContain('Acme TV')
    expect(await page.$eval('#header-logo', (img) => (img as HTMLImageElement).naturalWidth)).toBe(32)
    expect(await page.$eval('#nav button.active', (b) => [(b as HTMLElement).dataset.tab, getComputedStyle(b).backgroundColor])).toEqual(['accounts', ACCENT])
    expect(await page.$eval('body', (b) => getComputedStyle(b).backgroundImage)).toBe('none')
    expect(await page.isVisible('#nav button[data-tab="principals"]')).toBe(true)
    expect(await page.isVisible('#mint-form')).toBe(true)
    expect(await page.textContent('#balance')).toBe('0')
    await expect.poll(() => page.textContent('#accounts-table')).toContain('No accounts yet')

    // Mint 5 credits through the form.
    await page.fill('#mint-amount', '5')
    await page.click('#mint-submit')
    await expect.poll(() => page.textContent('#balance')).toBe('5')
    expect(await page.textContent('#subtitle')).toBe('root · admin · 5 credits')

    // Create an account (no packages: the panel's default): the row, the debit, the panel user.
    await page.fill('#account-name', 'alice1')
    await page.fill('#account-password', 'alice-pass')
    await page.fill('#account-months', '1')
    await page.click('#account-create-submit')
    const alice = page.locator('#accounts-table tr[data-account="alice1"]')
    await alice.waitFor()
    expect(await alice.getAttribute('data-status')).toBe('active')
    expect(await alice.textContent()).toContain('panel default')
    await expect.poll(() => page.textContent('#balance')).toBe('4')
    expect(await panel.api('GET', '/api/users/alice1')).toMatchObject({ username: 'alice1', status: 'active' })
    // The same name again: the server's code and message are shown, nothing is debited.
    await page.fill('#account-name', 'alice1')
    await page.fill('#account-password', 'alice-pass')
    await page.click('#account-create-submit')
    await expect.poll(() => errorMessage(page)).toMatch(/^RESELLER_EXISTS: .*alice1/)
    expect(await page.textContent('#balance')).toBe('4')
    await page.fill('#account-name', '')
    await page.fill('#account-password', '')

    // A free trial.
    await page.fill('#trial-name', 'trial1')
    await page.fill('#trial-password', 'trial-pass')
    await page.click('#trial-submit')
    const trial = page.locator('#accounts-table tr[data-account="trial1"]')
    await trial.waitFor()
    expect(await trial.getAttribute('data-trial')).toBe('true')
    await expect.poll(() => page.textContent('#trials-today')).toBe('1 of 50')
    expect(await accountNames(page)).toEqual(['alice1', 'trial1'])
    expect(await page.textContent('#accounts-range')).toBe('1–2 of 2')

    // Search and filter narrow the table.
    await page.fill('#accounts-q', 'ali')
    await expect.poll(() => accountNames(page)).toEqual(['alice1'])
    await page.fill('#accounts-q', 'nobody')
    await expect.poll(() => page.textContent('#accounts-table')).toContain('No accounts match.')
    await page.fill('#accounts-q', '')
    await expect.poll(() => accountNames(page)).toEqual(['alice1', 'trial1'])
    await page.selectOption('#accounts-filter', 'trial')
    await expect.poll(() => accountNames(page)).toEqual(['trial1'])
    await page.selectOption('#accounts-filter', 'disabled')
    await expect.poll(() => page.textContent('#accounts-table')).toContain('No accounts match.')
    await page.selectOption('#accounts-filter', '')
    await expect.poll(() => accountNames(page)).toEqual(['alice1', 'trial1'])

    // Renew from the row: 2 months more, paid by root.
    await alice.locator('input.months').fill('2')
    await alice.locator('button.renew').click()
    await expect.poll(() => page.textContent('#balance')).toBe('2')
    expect(await reseller.api('GET', '/api/accounts/alice1')).toMatchObject({ months: 3, status: 'active' })

    // Suspend and resume from the row, on the panel too; the disabled filter finds it meanwhile.
    await alice.locator('button.suspend').click()
    await expect.poll(() => alice.getAttribute('data-status')).toBe('disabled')
    expect((await panel.api('GET', '/api/users/alice1')).status).toBe('disabled')
    await page.selectOption('#accounts-filter', 'disabled')
    await expect.poll(() => accountNames(page)).toEqual(['alice1'])
    await alice.locator('button.resume').click()
    await expect.poll(() => page.textContent('#accounts-table')).toContain('No accounts match.')
    expect((await panel.api('GET', '/api/users/alice1')).status).toBe('active')
    await page.selectOption('#accounts-filter', '')

    // Paging: ten more trials (through the API), ten a page.
    for (let i = 10; i < 20; i++) await reseller.api('POST', '/api/trials', { name: `page${i}`, password: 'trial-pass' })
    await page.selectOption('#accounts-page-size', '10')
    await expect.poll(() => page.textContent('#accounts-range')).toBe('1–10 of 12')
    expect(await page.isDisabled('#accounts-prev')).toBe(true)
    await page.click('#accounts-next')
    await expect.poll(() => page.textContent('#accounts-range')).toBe('11–12 of 12')
    expect(await accountNames(page)).toEqual(['page19', 'trial1'])
    expect(await page.isDisabled('#accounts-next')).toBe(true)
    await page.click('#accounts-prev')
    await expect.poll(() => page.textContent('#accounts-range')).toBe('1–10 of 12')
    expect((await accountNames(page))[0]).toBe('alice1')
    await page.click('#accounts-next')
    await expect.poll(() => page.textContent('#accounts-range')).toBe('11–12 of 12')

    // Delete from the row (confirmed): gone here and on the panel.
    await trial.locator('button.delete').click()
    await trial.waitFor({ state: 'detached' })
    await expect.poll(() => page.textContent('#accounts-range')).toBe('11–11 of 11')
    expect((await reseller.call('GET', '/api/accounts/trial1')).status).toBe(404)
    expect((await panel.call('GET', '/api/users/trial1')).status).toBe(404)
    await page.selectOption('#accounts-page-size', '25')
    await expect.poll(() => page.textContent('#accounts-range')).toBe('1–11 of 11')

    // ---- the ledger: newest first, a page of 25, 'More' for the rest ----
    for (let i = 0; i < 12; i++) await reseller.api('POST', '/api/credits/mint', { amount: 1, note: `batch ${i}` })
    await page.click('#nav button[data-tab="ledger"]')
    await expect.poll(() => page.locator('#ledger-table tr[data-seq]').count()).toBe(25)
    const firstPage = await ledgerTypes(page)
    expect(firstPage.slice(0, 12)).toEqual(Array(12).fill('MINT'))
    expect(firstPage).toEqual(expect.arrayContaining(['RENEW', 'ACTIVATE', 'TRIAL']))
    expect(await page.locator('#ledger-table tr[data-seq="1"]').count()).toBe(0)
    expect(await page.isVisible('#ledger-more')).toBe(true)
    await page.click('#ledger-more')
    await expect.poll(() => page.locator('#ledger-table tr[data-seq]').count()).toBe(26)
    expect(await page.isHidden('#ledger-more')).toBe(true)
    const seqs = await page.$$eval('#ledger-table tr[data-seq]', (rows) => rows.map((r) => Number((r as HTMLElement).dataset.seq)))
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a))
    expect(await page.textContent('#ledger-table tr[data-seq="1"]')).toMatch(/MINTroot\+55/)
    const renew = page.locator('#ledger-table tr[data-type="RENEW"]')
    expect(await renew.count()).toBe(1)
    expect(await renew.textContent()).toMatch(/RENEWroot-22.*alice1/)
    expect(await page.textContent('#ledger-table tr[data-type="ACTIVATE"]')).toContain('alice1')
    await page.selectOption('#ledger-type', 'RENEW')
    await expect.poll(() => ledgerTypes(page)).toEqual(['RENEW'])
    await page.selectOption('#ledger-type', '')
    await expect.poll(() => page.locator('#ledger-table tr[data-seq]').count()).toBe(25)

    // ---- principals: a tree by parent; create a reseller and give it credits ----
    await page.click('#nav button[data-tab="principals"]')
    const root = page.locator('#principals-tree li[data-principal="root"]')
    await root.waitFor()
    expect(await root.getAttribute('data-role')).toBe('admin')
    expect(await root.locator('.balance').first().textContent()).toBe('14 credits')
    expect(await page.$$eval('#principal-role option', (os) => os.map((o) => (o as HTMLOptionElement).value))).toEqual(['co-admin', 'super', 'reseller'])
    await page.fill('#principal-username', 'shop1')
    await page.fill('#principal-password', 'shop1-password')
    await page.selectOption('#principal-role', 'reseller')
    await page.click('#principal-create-submit')
    const shop = root.locator('li[data-principal="shop1"]')
    await shop.waitFor()
    expect(await shop.getAttribute('data-role')).toBe('reseller')
    expect(await shop.getAttribute('data-parent')).toBe('root')
    await page.selectOption('#transfer-to', 'shop1')
    await page.fill('#transfer-amount', '2')
    await page.click('#transfer-submit')
    await expect.poll(() => shop.locator('.balance').textContent()).toBe('2 credits')
    expect(await root.locator('.balance').first().textContent()).toBe('12 credits')
    expect(await reseller.api('GET', '/api/principals/shop1')).toMatchObject({ role: 'reseller', parent: 'root', balance: 2 })

    // ---- the reseller: no principals tab, no minting, only its own accounts and lines ----
    // (root's search is not carried over to the next principal)
    await page.click('#nav button[data-tab="accounts"]')
    await page.fill('#accounts-q', 'page1')
    await expect.poll(() => page.textContent('#accounts-range')).toBe('1–10 of 10')
    await page.click('#nav button.logout')
    await page.waitForSelector('#login-view:not([hidden])')
    await logIn(page, 'shop1', 'shop1-password')
    await expect.poll(() => page.textContent('#subtitle')).toBe('shop1 · reseller · 2 credits')
    expect(await page.isHidden('#nav button[data-tab="principals"]')).toBe(true)
    expect(await page.isHidden('#mint-form')).toBe(true)
    await expect.poll(() => page.textContent('#balance')).toBe('2')
    await expect.poll(() => page.textContent('#accounts-table')).toContain('No accounts yet')
    expect(await page.inputValue('#accounts-q')).toBe('')
    // More months than credits: 402 with the server's code, nothing made.
    await page.fill('#account-name', 'bob1')
    await page.fill('#account-password', 'bob-pass')
    await page.fill('#account-months', '5')
    await page.click('#account-create-submit')
    await expect.poll(() => errorMessage(page)).toMatch(/^RESELLER_INSUFFICIENT_CREDITS: /)
    await page.fill('#account-months', '1')
    await page.click('#account-create-submit')
    await expect.poll(() => accountNames(page)).toEqual(['bob1'])
    expect(await page.textContent('#accounts-table tr[data-account="bob1"]')).toContain('shop1')
    await expect.poll(() => page.textContent('#balance')).toBe('1')
    await page.click('#nav button[data-tab="ledger"]')
    await expect.poll(() => ledgerTypes(page)).toEqual(['ACTIVATE', 'TRANSFER'])

    expect(problems).toEqual([])
  }, 180_000)
})
