import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHmac } from 'node:crypto'
import { cleanupAll, createStack, freePort, startReseller, waitFor, type ResellerHandle, type Stack } from '@arus/testkit'
import { fakeClock } from './clock.js'

// Issue 16, Done means 4 and 5, against the built panel and reseller processes: the signed
// top-up webhook (valid, bad signature, stale timestamp, replayed id, no secret → 404), and
// a stopped panel (502 with 'PANEL:', every debit refunded, /api/system fills error, the
// sweep retries later and succeeds once the panel is back).

const ctx = { onTestFinished: () => {} }
let stack: Stack
let reseller: ResellerHandle
let panelPort: number
const SECRET = 'topup-secret-0123456789abcdef'

/** The sender's side, written here from the spec (not imported from the reseller). */
const webhookSignature = (secret: string, ts: string, body: string) => createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex')

beforeAll(async () => {
  panelPort = await freePort()
  stack = await createStack(ctx, { panel: { env: { ADMIN_PORT: String(panelPort) } } })
  reseller = await startReseller(ctx, { panel: stack.panel, panelUrl: `http://127.0.0.1:${panelPort}`, env: { WEBHOOK_SECRET: SECRET, PANEL_TIMEOUT_MS: '2000' } })
  await reseller.api('POST', '/api/principals', { username: 'shop', password: 'shop-password', role: 'reseller' })
}, 120_000)

afterAll(async () => { await cleanupAll() }, 60_000)

async function post (url: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}/api/webhooks/credits`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, signal: AbortSignal.timeout(10_000) })
  return { status: res.status, body: await res.json() }
}

const signed = (body: string, ts = Math.floor(Date.now() / 1000), secret = SECRET) => ({ 'x-topup-timestamp': String(ts), 'x-topup-signature': webhookSignature(secret, String(ts), body) })

describe('top-up webhook', () => {
  it('mints once per id with actor webhook; refuses a bad signature and a stale timestamp', async () => {
    const body = JSON.stringify({ id: 'pay-1', to: 'shop', amount: 7, note: 'card' })
    const ok = await post(reseller.url!, body, signed(body))
    expect(ok.status).toBe(200)
    expect(ok.body).toMatchObject({ ok: true, duplicate: false, line: { type: 'MINT', actor: 'webhook', principal: 'shop', amount: 7, balance: 7, ref: 'webhook:pay-1' } })
    const again = await post(reseller.url!, body, signed(body))
    expect(again.body).toMatchObject({ ok: true, duplicate: true, line: { seq: ok.body.line.seq } })
    // A retry with another body but the same id is still the same payment.
    const other = JSON.stringify({ id: 'pay-1', to: 'shop', amount: 700 })
    expect((await post(reseller.url!, other, signed(other))).body.duplicate).toBe(true)

    const badSig = await post(reseller.url!, body, { ...signed(body), 'x-topup-signature': webhookSignature('another-secret-value', String(Math.floor(Date.now() / 1000)), body) })
    expect(badSig).toMatchObject({ status: 401, body: { error: { code: 'RESELLER_WEBHOOK_SIGNATURE' } } })
    const tampered = body.replace('"amount":7', '"amount":9')
    expect((await post(reseller.url!, tampered, signed(body))).body.error.code).toBe('RESELLER_WEBHOOK_SIGNATURE')
    const stale = Math.floor(Date.now() / 1000) - 301
    expect(await post(reseller.url!, body, signed(body, stale))).toMatchObject({ status: 401, body: { error: { code: 'RESELLER_WEBHOOK_STALE' } } })
    const future = Math.floor(Date.now() / 1000) + 301
    expect((await post(reseller.url!, body, signed(body, future))).status).toBe(401)
    const noHeaders = await post(reseller.url!, body, {})
    expect(noHeaders.status).toBe(401)
    const unknown = JSON.stringify({ id: 'pay-2', to: 'nobody', amount: 1 })
    expect((await post(reseller.url!, unknown, signed(unknown))).status).toBe(404)

    const mints = (await reseller.api('GET', '/api/ledger?type=MINT')).lines
    expect(mints.filter((l: { actor: string }) => l.actor === 'webhook')).toHaveLength(1)
    expect((await reseller.api('GET', '/api/principals/shop')).balance).toBe(7)

    // Idempotent across a restart: the id is in the ledger.
    await reseller.stop()
    await reseller.start()
    expect((await post(reseller.url!, body, signed(body))).body.duplicate).toBe(true)
    expect((await reseller.api('GET', '/api/principals/shop')).balance).toBe(7)
  })

  it('answers 404 when no WEBHOOK_SECRET is set', async (t) => {
    const bare = await startReseller(t, {})
    const body = JSON.stringify({ id: 'pay-1', to: 'root', amount: 1 })
    expect(await post(bare.url!, body, signed(body))).toMatchObject({ status: 404, body: { error: { code: 'RESELLER_WEBHOOK_DISABLED' } } })
    expect((await bare.call('GET', '/healthz')).body.ledger.seq).toBe(0)
  })
})

describe('with the panel stopped', () => {
  it('answers 502 PANEL: and refunds every debit; /api/system fills error; the sweep retries and then succeeds', async () => {
    await reseller.api('POST', '/api/credits/mint', { amount: 20 })
    await reseller.api('POST', '/api/accounts', { name: 'steady', password: 'viewer-pw', months: 1 })
    const seqBefore = (await reseller.call('GET', '/healthz')).body.ledger.seq
    const balanceBefore = (await reseller.api('GET', '/api/me')).balance
    await stack.panel.stop()
    // 31 days on for the reseller: "steady" expires while the panel is away.
    await reseller.stop()
    Object.assign(reseller.env, fakeClock('+31d'))
    await reseller.start()
    const failedSweep = await reseller.api('POST', '/api/ops/sweep')
    expect(failedSweep).toMatchObject({ disabled: 0, failed: 1 })
    expect(failedSweep.lastError).toMatch(/^PANEL: unreachable/)
    expect((await reseller.api('GET', '/api/accounts/steady')).status).toBe('active')

    const activate = await reseller.call('POST', '/api/accounts', { name: 'while-down', password: 'viewer-pw', months: 2 })
    expect(activate.status).toBe(502)
    expect(activate.body.error.message).toMatch(/^PANEL: /)
    const renew = await reseller.call('POST', '/api/accounts/steady/renew', { months: 3 })
    expect(renew.status).toBe(502)
    expect(renew.body.error.message).toMatch(/^PANEL: /)
    for (const [method, path, body] of [['POST', '/api/accounts/steady/status', { status: 'disabled' }], ['POST', '/api/accounts/steady/password', { password: 'new-viewer-pw' }], ['GET', '/api/accounts/steady/devices', undefined], ['DELETE', '/api/accounts/steady', undefined], ['POST', '/api/trials', { name: 'trial-down', password: 'viewer-pw' }]] as const) {
      const r = await reseller.call(method, path, body)
      expect(r.status, `${method} ${path}`).toBe(502)
      expect(r.body.error.message, `${method} ${path}`).toMatch(/^PANEL: /)
    }
    expect((await reseller.api('GET', '/api/me')).balance).toBe(balanceBefore)
    const lines = (await reseller.api('GET', '/api/ledger?limit=50')).lines.filter((l: { seq: number }) => l.seq > seqBefore)
    // Every debit made while the panel was down was refunded at once.
    for (const l of lines) expect(['ACTIVATE', 'RENEW', 'REFUND']).toContain(l.type)
    expect(lines.reduce((n: number, l: { amount: number }) => n + l.amount, 0)).toBe(0)
    expect((await reseller.api('GET', '/api/accounts?q=while-down')).total).toBe(0)
    const detail = await reseller.api('GET', '/api/accounts/steady')
    expect(detail.panel).toBeNull()
    expect(detail.panelError).toMatch(/^PANEL: /)
    const system = await reseller.api('GET', '/api/system')
    expect(system.panel.reachable).toBe(false)
    expect(system.panel.error).toMatch(/^PANEL: unreachable/)
    expect(system.host.cpuCount).toBeGreaterThan(0)
    expect((await reseller.call('GET', '/healthz')).body.panel.reachable).toBe(false)
    expect((await reseller.call('GET', '/api/streams')).status).toBe(502)

    await stack.panel.start()
    await waitFor(async () => (await reseller.call('GET', '/api/system')).body.panel.reachable === true, { timeoutMs: 20_000, message: 'panel reachable again' })
    // The periodic sweep (every second here) retries and disables the expired account.
    await waitFor(async () => (await reseller.api('GET', '/api/accounts/steady')).status === 'expired', { timeoutMs: 20_000, message: 'swept after the panel came back' })
    expect((await stack.panel.api('GET', '/api/users/steady')).status).toBe('disabled')
    expect((await reseller.api('POST', '/api/accounts', { name: 'after-up', password: 'viewer-pw', months: 1 })).status).toBe('active')
    expect((await reseller.call('GET', '/healthz')).body.ledger.invariantOk).toBe(true)
  })
})
