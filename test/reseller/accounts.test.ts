import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cleanupAll, createStack, startReseller, type HttpClient, type ResellerHandle, type Stack } from '@arus/testkit'

// Accounts, trials and principals against the built panel and reseller processes: trials and
// their daily cap, a trial renewed into a paid account, packages replacing the panel's default
// ones, grants with stillGranted, the reconcile repairing drifted packages, list search,
// filters, sorting and paging, device limits inherited down the tree, suspension with
// accounts, and principal deletion reclaiming the balance.

const ctx = { onTestFinished: () => {} }
let stack: Stack
let reseller: ResellerHandle
let sup: HttpClient
let shop: HttpClient

beforeAll(async () => {
  stack = await createStack(ctx, {})
  for (const id of ['news', 'sport', 'kids']) await stack.panel.api('POST', '/api/streams', { id })
  await stack.panel.api('POST', '/api/packages', { name: 'starter', members: ['news'], default: true })
  await stack.panel.api('POST', '/api/packages', { name: 'sports', members: ['sport'] })
  reseller = await startReseller(ctx, { panel: stack.panel, env: { TRIAL_DAILY_CAP_DEFAULT: '2', MAX_DEVICES_LIMIT_DEFAULT: '3', TRIAL_HOURS: '6' } })
  await reseller.api('POST', '/api/credits/mint', { amount: 500 })
  await reseller.api('POST', '/api/principals', { username: 'sup', password: 'super-password', role: 'super', maxDevicesLimit: 5 })
  await reseller.api('POST', '/api/credits/transfer', { to: 'sup', amount: 200 })
  sup = reseller.as({ name: 'sup', password: 'super-password' })
  await sup.api('POST', '/api/principals', { username: 'shop', password: 'shop-password', role: 'reseller', trialDailyCap: 3 })
  await sup.api('POST', '/api/credits/transfer', { to: 'shop', amount: 150 })
  shop = reseller.as({ name: 'shop', password: 'shop-password' })
}, 120_000)

afterAll(async () => { await cleanupAll() }, 60_000)

describe('accounts and principals', () => {
  it('trials: free, TRIAL_HOURS long, capped per principal per UTC day; a renew makes one paid', async () => {
    const t1 = await shop.api('POST', '/api/trials', { name: 'try1', password: 'viewer-pw' })
    expect(t1).toMatchObject({ trial: true, months: 0, status: 'active', owner: 'shop', maxDevices: 5 })
    expect(t1.expiresAt - t1.createdAt).toBeGreaterThan(6 * 3_600_000 - 5000)
    expect(t1.expiresAt - t1.createdAt).toBeLessThanOrEqual(6 * 3_600_000)
    await shop.api('POST', '/api/trials', { name: 'try2', password: 'viewer-pw' })
    await shop.api('POST', '/api/trials', { name: 'try3', password: 'viewer-pw' })
    const capped = await shop.call('POST', '/api/trials', { name: 'try4', password: 'viewer-pw' })
    expect(capped.status).toBe(429)
    expect(capped.body.error.code).toBe('RESELLER_TRIAL_CAP')
    expect((await stack.panel.call('GET', '/api/users/try4')).status).toBe(404)
    const me = await shop.api('GET', '/api/me')
    expect(me).toMatchObject({ trialsToday: 3, trialDailyCap: 3, trialDailyCapInherited: false, balance: 150 })
    // The super falls back to TRIAL_DAILY_CAP_DEFAULT (2).
    expect((await sup.api('GET', '/api/me')).trialDailyCap).toBe(2)
    // Concurrent trials cannot pass the cap together.
    const racing = await Promise.all(['r1', 'r2', 'r3', 'r4'].map((n) => sup.call('POST', '/api/trials', { name: `race-${n}`, password: 'viewer-pw' })))
    expect(racing.filter((r) => r.status === 201)).toHaveLength(2)
    expect(racing.filter((r) => r.status === 429)).toHaveLength(2)

    const paid = await shop.api('POST', '/api/accounts/try1/renew', { months: 2 })
    expect(paid).toMatchObject({ trial: false, months: 2 })
    expect(paid.expiresAt - t1.expiresAt).toBeGreaterThan(59 * 86_400_000)
    expect((await shop.api('GET', '/api/me')).balance).toBe(148)
    expect((await shop.api('GET', '/api/accounts?filter=trial')).items.map((a: { name: string }) => a.name)).toEqual(['try2', 'try3'])
  })

  it('packages replace the panel\'s defaults; grants report stillGranted; the reconcile re-asserts drifted packages', async () => {
    const plain = await shop.api('POST', '/api/accounts', { name: 'plain', password: 'viewer-pw', months: 1 })
    expect(plain.packages).toBeNull()
    expect((await stack.panel.api('GET', '/api/users/plain')).packages).toEqual(['starter'])
    await shop.api('POST', '/api/accounts', { name: 'fan', password: 'viewer-pw', months: 1, packages: ['sports'], grants: ['kids'] })
    const onPanel = await stack.panel.api('GET', '/api/users/fan')
    expect(onPanel).toMatchObject({ packages: ['sports'], grants: ['kids', 'sport'], maxDevices: 5 })
    expect((await shop.api('POST', '/api/accounts/fan/grants', { streamId: 'sport' })).changed).toBe(true)
    expect(await shop.api('DELETE', '/api/accounts/fan/grants/sport')).toMatchObject({ stillGranted: true, coveredBy: ['package:sports'] })
    expect(await shop.api('DELETE', '/api/accounts/fan/grants/kids')).toMatchObject({ changed: true, stillGranted: false })
    expect((await stack.panel.api('GET', '/api/users/fan')).grants).toEqual(['sport'])
    expect((await shop.call('POST', '/api/accounts/fan/packages', { packages: ['nope'] })).status).toBe(404)
    const both = await shop.api('POST', '/api/accounts/fan/packages', { packages: ['starter', 'sports'] })
    expect(both.packages).toEqual(['sports', 'starter'])
    expect((await shop.api('GET', '/api/me')).balance).toBe(146)

    // Someone changes the packages on the panel by hand: the reconcile puts them back.
    await stack.panel.api('POST', '/api/users/fan/packages', { packages: [] })
    const rec = await reseller.api('POST', '/api/ops/reconcile')
    expect(rec.drift).toEqual(expect.arrayContaining([expect.objectContaining({ account: 'fan', kind: 'packages', repaired: true })]))
    expect(rec.ledgerOk).toBe(true)
    expect((await stack.panel.api('GET', '/api/users/fan')).packages).toEqual(['sports', 'starter'])
    expect((await reseller.api('GET', '/api/ops/reconcile')).ranAt).toBe(rec.ranAt)
    expect((await reseller.api('POST', '/api/ops/reconcile')).drift.filter((d: { kind: string }) => d.kind === 'packages')).toEqual([])
  })

  it('lists: search, filters, sorting and paging (default 50, at most 500)', async () => {
    for (let i = 0; i < 55; i++) await shop.api('POST', '/api/accounts', { name: `bulk-${String(i).padStart(2, '0')}`, password: 'viewer-pw', months: 1 + (i % 3) })
    const first = await shop.api('GET', '/api/accounts?q=BULK')
    expect(first).toMatchObject({ total: 55, offset: 0, limit: 50 })
    expect(first.items).toHaveLength(50)
    const second = await shop.api('GET', '/api/accounts?q=bulk&offset=50')
    expect(second.items.map((a: { name: string }) => a.name)).toEqual(['bulk-50', 'bulk-51', 'bulk-52', 'bulk-53', 'bulk-54'])
    const desc = await shop.api('GET', '/api/accounts?q=bulk&sort=expires&dir=desc&limit=3')
    expect(desc.items.every((a: { months: number }) => a.months === 3)).toBe(true)
    expect((await shop.api('GET', '/api/accounts?q=sho&limit=500')).total).toBeGreaterThan(55)
    expect((await shop.api('GET', '/api/accounts?owner=sup')).total).toBe(0)
    await shop.api('POST', '/api/accounts/bulk-00/status', { status: 'disabled' })
    expect((await shop.api('GET', '/api/accounts?filter=disabled')).items.map((a: { name: string }) => a.name)).toEqual(['bulk-00'])
    expect((await stack.panel.api('GET', '/api/users/bulk-00')).status).toBe('disabled')
    expect((await shop.api('GET', '/api/accounts?filter=expiring')).items.map((a: { name: string }) => a.name)).toEqual(['try2', 'try3'])
    expect((await shop.api('GET', '/api/accounts?filter=active&q=bulk')).total).toBe(54)
    const status = await shop.api('GET', '/api/status')
    expect(status.accounts).toMatchObject({ total: 60, disabled: 1, trial: 2 })
    expect(status.principals).toBeUndefined()
  })

  it('device limits inherit down the tree; suspending with accounts disables and resumes exactly those', async () => {
    const view = await reseller.api('GET', '/api/principals/shop')
    expect(view).toMatchObject({ maxDevicesLimit: 5, maxDevicesLimitInherited: true })
    await reseller.api('POST', '/api/principals/shop/limits', { maxDevicesLimit: 1 })
    const own = await shop.api('POST', '/api/accounts', { name: 'solo', password: 'viewer-pw', months: 1 })
    expect(own.maxDevices).toBe(1)
    expect((await stack.panel.api('GET', '/api/users/solo')).maxDevices).toBe(1)
    await reseller.api('POST', '/api/principals/shop/limits', { maxDevicesLimit: null })
    expect((await reseller.api('GET', '/api/principals/shop')).maxDevicesLimit).toBe(5)
    await reseller.api('POST', '/api/principals/sup/limits', { maxDevicesLimit: null })
    expect((await reseller.api('GET', '/api/principals/shop')).maxDevicesLimit).toBe(3)
    expect((await reseller.api('POST', '/api/accounts/solo/max-devices', { maxDevices: 4 })).maxDevices).toBe(4)
    expect((await stack.panel.api('GET', '/api/users/solo')).maxDevices).toBe(4)

    const r = await sup.api('POST', '/api/principals/shop/status', { status: 'disabled', mode: 'with-accounts' })
    expect(r.effectiveStatus).toBe('disabled')
    expect(r.accountsFailed).toEqual([])
    expect(r.accountsChanged).toBeGreaterThan(55)
    expect((await stack.panel.api('GET', '/api/users/solo')).status).toBe('disabled')
    // Its session ended, and it cannot sign in.
    expect((await shop.call('GET', '/api/me')).status).toBe(401)
    expect((await shop.call('POST', '/api/login', { username: 'shop', password: 'shop-password' })).status).toBe(401)
    await sup.api('POST', '/api/principals/shop/status', { status: 'active', mode: 'with-accounts' })
    expect((await stack.panel.api('GET', '/api/users/solo')).status).toBe('active')
    // bulk-00 was suspended by hand before: it stays disabled.
    expect((await stack.panel.api('GET', '/api/users/bulk-00')).status).toBe('disabled')
    shop.reset()
    expect((await shop.api('GET', '/api/me')).effectiveStatus).toBe('active')
  })

  it('a principal with accounts cannot be deleted; once empty its balance is reclaimed to the caller; a reseller\'s delete refunds whole months', async () => {
    await sup.api('POST', '/api/principals', { username: 'tmp', password: 'temp-password', role: 'reseller' })
    await sup.api('POST', '/api/credits/transfer', { to: 'tmp', amount: 10 })
    const tmp = reseller.as({ name: 'tmp', password: 'temp-password' })
    await tmp.api('POST', '/api/accounts', { name: 'tmp-acct', password: 'viewer-pw', months: 3 })
    const refused = await sup.call('DELETE', '/api/principals/tmp')
    expect(refused.status).toBe(409)
    expect(refused.body.error.code).toBe('RESELLER_IN_USE')
    expect(await tmp.api('DELETE', '/api/accounts/tmp-acct')).toEqual({ deleted: 'tmp-acct', refunded: 2 })
    expect((await stack.panel.call('GET', '/api/users/tmp-acct')).status).toBe(404)
    expect((await tmp.api('GET', '/api/me')).balance).toBe(9)
    const supBefore = (await sup.api('GET', '/api/me')).balance
    expect(await sup.api('DELETE', '/api/principals/tmp')).toEqual({ deleted: 'tmp', reclaimed: 9 })
    expect((await sup.api('GET', '/api/me')).balance).toBe(supBefore + 9)
    // Passthroughs: the panel's packages, cached 60 s for every principal.
    const cached = await tmp.call('GET', '/api/packages')
    expect(cached.status).toBe(401)
    const pk1 = await sup.api('GET', '/api/packages')
    await stack.panel.api('POST', '/api/packages', { name: 'late', members: ['kids'] })
    expect((await sup.api('GET', '/api/packages')).packages.map((p: { name: string }) => p.name)).toEqual(pk1.packages.map((p: { name: string }) => p.name))
    expect((await stack.panel.api('GET', '/api/packages')).packages.map((p: { name: string }) => p.name)).toContain('late')
    expect((await sup.api('GET', '/api/streams')).streams.map((x: { id: string }) => x.id).sort()).toEqual(['kids', 'news', 'sport'])
    expect((await sup.call('GET', '/api/panel/status')).status).toBe(403)
    expect((await reseller.api('GET', '/api/panel/status')).panelKey).toBe(stack.panel.panelKey)
    const metrics = (await reseller.call('GET', '/metrics')).body as string
    expect(metrics).toMatch(/^arus_reseller_ledger_invariant_ok 1$/m)
    expect(metrics).toMatch(/^arus_reseller_panel_reachable 1$/m)
    expect(metrics).toMatch(/^arus_reseller_principals 3$/m)
    expect(metrics).toMatch(/^arus_reseller_accounts\{status="active"\} \d+$/m)
    // An admin tier's delete refunds nothing.
    expect((await reseller.api('DELETE', '/api/accounts/bulk-54')).refunded).toBe(0)
    expect((await reseller.call('GET', '/healthz')).body.ledger.invariantOk).toBe(true)
  })
})
