import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPlayer, loginWithRetry } from '@arus/sdk'
import { cleanupAll, createStack, decodeWithFfmpeg, freePort, startReseller, tmpDir, type ResellerHandle, type Stack } from '@arus/testkit'
import { fakeClock } from './clock.js'

// Issue 16, Done means 1, against the built panel, broadcaster and reseller processes and a
// real SDK viewer: root mints → transfers to a super → the super's reseller activates an
// account with a package → the viewer plays → after expiry (the reseller's clock moved 31
// days ahead with libfaketime) the sweep disables it on the panel → the next login is
// refused → a renew brings it back.

const ctx = { onTestFinished: () => {} }
let stack: Stack
let reseller: ResellerHandle

beforeAll(async () => {
  const port = await freePort()
  stack = await createStack(ctx, { panel: { env: { ADMIN_PORT: String(port) } }, broadcasters: 1 })
  await stack.broadcasters[0]!.channel('news', { title: 'News', category: ['News'] })
  await stack.panel.api('POST', '/api/packages', { name: 'basic', members: ['news'] })
  reseller = await startReseller(ctx, { panel: stack.panel, panelUrl: `http://127.0.0.1:${port}`, env: { DAYS_PER_MONTH: '30' } })
}, 120_000)

afterAll(async () => { await cleanupAll() }, 60_000)

describe('reseller end to end', () => {
  it('mint → transfer → activate with a package → play → expire → refused → renew → plays again', async (t) => {
    const login = await reseller.call('POST', '/api/login', { username: 'root', password: reseller.root.password })
    expect(login.status).toBe(200)
    expect(login.body.role).toBe('admin')

    await reseller.api('POST', '/api/credits/mint', { amount: 10, note: 'opening stock' })
    const sup = { name: 'sup', password: 'super-password' }
    await reseller.api('POST', '/api/principals', { username: sup.name, password: sup.password, role: 'super' })
    await reseller.api('POST', '/api/credits/transfer', { to: 'sup', amount: 6 })
    const asSuper = reseller.as(sup)
    const rs = { name: 'shop', password: 'shop-password' }
    expect((await asSuper.call('POST', '/api/principals', { username: rs.name, password: rs.password, role: 'reseller' })).status).toBe(201)
    await asSuper.api('POST', '/api/credits/transfer', { to: 'shop', amount: 3 })
    const asShop = reseller.as(rs)
    const shopLogin = await asShop.call('POST', '/api/login', { username: rs.name, password: rs.password })
    expect(shopLogin.body.role).toBe('reseller')

    const acct = await asShop.api('POST', '/api/accounts', { name: 'viewer1', password: 'viewer-pass', months: 1, packages: ['basic'] })
    expect(acct).toMatchObject({ name: 'viewer1', owner: 'shop', status: 'active', trial: false, months: 1, packages: ['basic'] })
    expect((await asShop.api('GET', '/api/me')).balance).toBe(2)
    const onPanel = await stack.panel.api('GET', '/api/users/viewer1')
    expect(onPanel).toMatchObject({ status: 'active', packages: ['basic'], grants: ['news'] })
    const detail = await asShop.api('GET', '/api/accounts/viewer1')
    expect(detail.panel).toMatchObject({ status: 'active', grants: ['news'] })

    const player = createPlayer({ panelPubKey: stack.panel.panelKey, storeDir: tmpDir(t, 'arus-viewer-'), swarm: { bootstrap: stack.testnet!.bootstrap } })
    t.onTestFinished(() => player.stop())
    await player.connect()
    await loginWithRetry(player, 'viewer1', 'viewer-pass', { attempts: 40, delayMs: 500 })
    const first = await decodeWithFfmpeg((await player.resolve('news')).url, 2, { timeoutMs: 60_000 })
    expect(first.code, first.stderr).toBe(0)

    // 31 days later, for the reseller only.
    await reseller.stop()
    Object.assign(reseller.env, fakeClock('+31d'))
    await reseller.start()
    const swept = await reseller.api('POST', '/api/ops/sweep')
    expect(swept).toMatchObject({ disabled: 1, failed: 0 })
    expect((await reseller.api('GET', '/api/accounts/viewer1')).status).toBe('expired')
    expect((await stack.panel.api('GET', '/api/users/viewer1')).status).toBe('disabled')
    const refused = await player.login('viewer1', 'viewer-pass').then(() => null, (e: { code?: string }) => e)
    expect(refused?.code).toBe('SDK_ACCOUNT_DISABLED')
    // Enabling an expired account is refused: it needs a renew.
    expect((await reseller.as(rs).call('POST', '/api/accounts/viewer1/status', { status: 'active' })).body.error.code).toBe('RESELLER_ACCOUNT_EXPIRED')

    const renewed = await reseller.as(rs).api('POST', '/api/accounts/viewer1/renew', { months: 1 })
    expect(renewed.status).toBe('active')
    // From the later of now (31 days on) and the expiry (30 days on): about 61 days from the start.
    expect(renewed.expiresAt - acct.createdAt).toBeGreaterThan(60.9 * 86_400_000)
    expect((await stack.panel.api('GET', '/api/users/viewer1')).status).toBe('active')
    await loginWithRetry(player, 'viewer1', 'viewer-pass', { attempts: 40, delayMs: 500 })
    const again = await decodeWithFfmpeg((await player.resolve('news')).url, 2, { timeoutMs: 60_000 })
    expect(again.code, again.stderr).toBe(0)

    const lines = (await reseller.api('GET', '/api/ledger?limit=20')).lines.map((l: { type: string; principal: string; amount: number }) => `${l.type} ${l.principal} ${l.amount}`)
    expect(lines).toEqual(['RENEW shop -1', 'ACTIVATE shop -1', 'TRANSFER shop 3', 'TRANSFER sup 6', 'MINT root 10'])
    expect((await reseller.call('GET', '/healthz')).body.ledger).toEqual({ seq: 5, invariantOk: true })
  })
})
