import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cleanupAll, createStack, freePort, startReseller, waitFor, type ResellerHandle, type Stack } from '@arus/testkit'

// Operations a crash cuts short are settled at the next boot (docs/reseller.md "Interrupted
// operations"). The ledger lines here are real (made by the running reseller); only
// accounts.json is put back, with the daemon stopped, to what a kill -9 between the ledger
// line and the account write leaves behind.

const ctx = { onTestFinished: () => {} }
let stack: Stack
let reseller: ResellerHandle
const DAY = 86_400_000

beforeAll(async () => {
  const port = await freePort()
  stack = await createStack(ctx, { panel: { env: { ADMIN_PORT: String(port) } } })
  reseller = await startReseller(ctx, { panel: stack.panel, panelUrl: `http://127.0.0.1:${port}`, env: { DAYS_PER_MONTH: '30' } })
}, 120_000)

afterAll(async () => { await cleanupAll() }, 60_000)

type Accounts = { v: 1; accounts: Record<string, Record<string, unknown>> }

describe('settling interrupted account operations', () => {
  it('finishes a paid activation, refunds one the panel lacks, drops an unpaid one, finishes a delete with its refund once, applies a renew; a second boot changes nothing', async () => {
    await reseller.api('POST', '/api/credits/mint', { amount: 50 })
    await reseller.api('POST', '/api/principals', { username: 'p-del-me', password: 'principal-pw', role: 'reseller' })
    // The root admin pays for the others (admin tiers pay like anyone).
    const a1 = await reseller.api('POST', '/api/accounts', { name: 'paid-ok', password: 'viewer-pw', months: 1 })
    await reseller.api('POST', '/api/accounts', { name: 'paid-gone', password: 'viewer-pw', months: 2 })
    // A reseller's delete refunds; give p-del-me credits and let it own del-me.
    await reseller.api('POST', '/api/credits/transfer', { to: 'p-del-me', amount: 10 })
    const owner = reseller.as({ name: 'p-del-me', password: 'principal-pw' })
    await owner.api('POST', '/api/accounts', { name: 'del-me', password: 'viewer-pw', months: 3 })
    const before = await reseller.api('POST', '/api/accounts', { name: 'renewed', password: 'viewer-pw', months: 1 })
    const renewedRec = JSON.parse(await readFile(join(reseller.dataDir, 'accounts.json'), 'utf8')).accounts.renewed
    await reseller.api('POST', '/api/accounts/renewed/renew', { months: 2 })
    // Someone else's panel user, with the name of an unpaid reservation.
    await stack.panel.api('POST', '/api/users', { username: 'not-ours', password: 'someone-else' })
    const seq = (await reseller.call('GET', '/healthz')).body.ledger.seq

    await reseller.stop()
    const file = join(reseller.dataDir, 'accounts.json')
    const state = JSON.parse(await readFile(file, 'utf8')) as Accounts
    const acts = (await reseller.cli<{ lines: Array<{ seq: number; account?: string; type: string }> }>(['ledger', '--limit', '100'])).lines
    const activateSeq = (name: string) => acts.find((l) => l.type === 'ACTIVATE' && l.account === name)!.seq
    const pendingActivate = (name: string) => ({ ...state.accounts[name], seq: 0, pending: { op: 'activate', at: a1.createdAt, by: 'root', cleanup: false, after: activateSeq(name) - 1 } })
    state.accounts['paid-ok'] = pendingActivate('paid-ok')
    state.accounts['paid-gone'] = pendingActivate('paid-gone')
    state.accounts['not-ours'] = { ...state.accounts['paid-ok'], pending: { op: 'activate', at: Date.now(), by: 'root', cleanup: false, after: seq } }
    state.accounts['del-me'] = { ...state.accounts['del-me'], pending: { op: 'delete', at: Date.now(), by: 'p-del-me', refund: 2 } }
    state.accounts.renewed = renewedRec
    await writeFile(file, JSON.stringify(state))
    // The panel never got paid-gone (the crash came before its create).
    await stack.panel.api('DELETE', '/api/users/paid-gone')

    await reseller.start()
    const root = reseller.as(reseller.root)
    // The paid renew is local work, applied before the daemon serves: the first read has it.
    const renewed = await root.api('GET', '/api/accounts/renewed')
    expect(renewed.expiresAt - before.expiresAt).toBeGreaterThan(2 * 30 * DAY - 60_000)
    expect(renewed.months).toBe(3)
    await waitFor(async () => (await root.api('GET', '/api/accounts?limit=500')).items.every((a: { status: string }) => a.status !== 'pending'), { timeoutMs: 20_000, message: 'settled' })
    const names = (await root.api('GET', '/api/accounts?limit=500')).items.map((a: { name: string }) => a.name).sort()
    expect(names).toEqual(['paid-ok', 'renewed'])
    expect((await root.api('GET', '/api/accounts/paid-ok'))).toMatchObject({ status: 'active', panel: { status: 'active' } })
    expect(await root.api('GET', '/api/accounts/renewed')).toMatchObject({ expiresAt: renewed.expiresAt, months: 3 })
    expect((await stack.panel.call('GET', '/api/users/not-ours')).status).toBe(200)
    expect((await stack.panel.call('GET', '/api/users/del-me')).status).toBe(404)
    const lines = (await root.api('GET', '/api/ledger?limit=100')).lines
    const added = lines.filter((l: { seq: number }) => l.seq > seq)
    expect(added.map((l: { type: string; account: string; amount: number; principal: string }) => `${l.type} ${l.account} ${l.amount} ${l.principal}`).sort()).toEqual([
      'REFUND del-me 2 p-del-me',
      'REFUND paid-gone 2 root'
    ])
    expect((await reseller.call('GET', '/healthz')).body.ledger).toEqual({ seq: seq + 2, invariantOk: true })

    await reseller.stop()
    await reseller.start()
    await new Promise((r) => setTimeout(r, 1000))
    expect((await reseller.call('GET', '/healthz')).body.ledger).toEqual({ seq: seq + 2, invariantOk: true })
    expect((await reseller.as(reseller.root).api('GET', '/api/accounts/renewed')).expiresAt).toBe(renewed.expiresAt)
  })
})
