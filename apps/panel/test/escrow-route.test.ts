import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  cleanupAll, collectSecrets, createHttpClient, createTestnet, findSecrets, startPanel, tmpDir, waitFor,
  type PanelHandle, type SecretValue, type Testnet
} from '@arus/testkit'

// POST /api/identity/escrow (spec 1 "Health, status, monitoring", "Authentication" 5, "Events"
// 3, "Errors", "Limits") against the built panel process: absent without ESCROW_EXPORT=1; with
// it, the caller's own password is re-checked, 3 attempts per hour, every attempt a security
// event, and the returned envelope opens with the real `arus-panel verify-escrow`. The tests of
// the ESCROW_EXPORT=1 panel run in order: they share its hourly attempt budget.

const ctx = { onTestFinished: () => {} }
const URL_PATH = '/api/identity/escrow'
const PASSPHRASE = 'escrow passphrase, typed twice'
const OPS = { name: 'ops', password: 'ops-password-2' }

let testnet: Testnet
let off: PanelHandle
let on: PanelHandle
let logDir: string
/** Every value the test typed; none may reach the ring or the logs. */
const typed: SecretValue[] = [{ kind: 'escrow passphrase', value: PASSPHRASE }, { kind: 'ops password', value: OPS.password }]

beforeAll(async () => {
  testnet = await createTestnet()
  logDir = tmpDir(ctx, 'arus-escrow-logs-')
  ;[off, on] = await Promise.all([
    startPanel(undefined, { testnet }),
    startPanel(undefined, { testnet, env: { ESCROW_EXPORT: '1' }, logs: logDir })
  ])
  typed.push({ kind: 'admin password', value: on.admin.password })
  await on.cli(['add-admin', OPS.name], `${OPS.password}\n`)
}, 90_000)

afterAll(async () => { await cleanupAll() }, 30_000)

/** One raw POST as the holder of `token` (headers included, for Retry-After). */
async function post (panel: PanelHandle, token: string | null, body: unknown): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(panel.adminUrl! + URL_PATH, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
    body: JSON.stringify(body)
  })
  return { status: res.status, headers: res.headers, body: await res.json() }
}

const token = (panel: PanelHandle, who: { name: string; password: string }) => createHttpClient(panel.adminUrl!).login(who.name, who.password)

const escrowEntries = async () => ((await on.api('GET', '/api/observability')).activity as Array<Record<string, unknown>>)
  .filter((e) => e.event === 'security.escrow')
  .reverse()

describe('POST /api/identity/escrow without ESCROW_EXPORT', () => {
  it('does not exist (404 like any unknown route) and /api/status says escrowExport false', async () => {
    const r = await post(off, await token(off, off.admin), { password: off.admin.password, passphrase: PASSPHRASE })
    expect([r.status, r.body.error.code]).toEqual([404, 'SERVICE_NOT_FOUND'])
    expect((await off.api('GET', '/api/status')).escrowExport).toBe(false)
    const routes = Object.keys((await off.api('GET', '/api/openapi.json')).paths)
    expect(routes).not.toContain(URL_PATH)
  })
})

describe('POST /api/identity/escrow with ESCROW_EXPORT=1', () => {
  let file: string

  it('/api/status says escrowExport true', async () => {
    expect((await on.api('GET', '/api/status')).escrowExport).toBe(true)
  })

  it('refuses a malformed request and a missing token without spending an attempt', async () => {
    const admin = await token(on, on.admin)
    const short = await post(on, admin, { password: on.admin.password, passphrase: 'short' })
    expect([short.status, short.body.error.code]).toEqual([400, 'SERVICE_VALIDATION_FAILED'])
    expect(short.body.error.message).toContain('body.passphrase')
    expect(JSON.stringify(short.body)).not.toContain(on.admin.password)
    const extra = await post(on, admin, { password: on.admin.password, passphrase: PASSPHRASE, note: 'x' })
    expect(extra.status).toBe(400)
    const anonymous = await post(on, null, { password: on.admin.password, passphrase: PASSPHRASE })
    expect([anonymous.status, anonymous.body.error.code]).toEqual([401, 'SERVICE_UNAUTHORIZED'])
  })

  it('refuses a wrong password (403) and another admin\'s password: it re-checks the caller\'s own', async () => {
    const wrong = await post(on, await token(on, on.admin), { password: 'not-the-password', passphrase: PASSPHRASE })
    expect([wrong.status, wrong.body.error.code]).toEqual([403, 'PANEL_ESCROW_WRONG_PASSWORD'])
    expect(wrong.body.escrow).toBeUndefined()
    // ops is logged in, but types the other admin's password.
    const borrowed = await post(on, await token(on, OPS), { password: on.admin.password, passphrase: PASSPHRASE })
    expect([borrowed.status, borrowed.body.error.code]).toEqual([403, 'PANEL_ESCROW_WRONG_PASSWORD'])
  })

  it('returns a self-verified envelope that the real `arus-panel verify-escrow` opens, with the panel key as fingerprint', async () => {
    const r = await post(on, await token(on, on.admin), { password: on.admin.password, passphrase: PASSPHRASE })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ fingerprint: on.panelKey, kdf: 'argon2id13', verified: true })
    expect(r.body.escrow).toMatchObject({ v: 1, kind: 'arus-escrow', fingerprint: on.panelKey })
    expect(r.body.filename).toBe(`arus-panel-escrow-${on.panelKey.slice(0, 8)}-${new Date().toISOString().slice(0, 10)}.json`)
    // The reply holds the keys only sealed.
    expect(findSecrets(JSON.stringify(r.body), collectSecrets({ panel: on.dataDir }, typed)).map((s) => s.kind)).toEqual([])

    file = join(tmpDir(ctx, 'arus-escrow-'), r.body.filename as string)
    await writeFile(file, JSON.stringify(r.body.escrow, null, 2))
    expect(await on.cli(['verify-escrow', file], `${PASSPHRASE}\n`)).toEqual({ fingerprint: on.panelKey, verified: true, restoredTo: null })
    await expect(on.cli(['verify-escrow', file], 'another passphrase\n')).rejects.toThrow(/CRYPTO_ESCROW_OPEN_FAILED/)
  })

  it('refuses a 4th attempt within the hour (429 with Retry-After), even with the right password', async () => {
    const r = await post(on, await token(on, on.admin), { password: on.admin.password, passphrase: PASSPHRASE })
    expect([r.status, r.body.error.code]).toEqual([429, 'PANEL_ESCROW_THROTTLED'])
    expect(r.body.retryAfter).toBeGreaterThan(3500)
    expect(r.body.retryAfter).toBeLessThanOrEqual(3600)
    expect(r.headers.get('retry-after')).toBe(String(r.body.retryAfter))
    expect(r.body.escrow).toBeUndefined()
  })

  it('records every attempt as a security event in the activity ring, with its outcome and caller', async () => {
    const entries = await escrowEntries()
    expect(entries.map((e) => [e.outcome, e.actor])).toEqual([
      ['invalid', on.admin.name],
      ['invalid', on.admin.name],
      ['unauthenticated', null],
      ['wrong-password', on.admin.name],
      ['wrong-password', OPS.name],
      ['ok', on.admin.name],
      ['throttled', on.admin.name]
    ])
    expect(entries.at(-1)!.retryAfter).toBeGreaterThan(3500)
  })

  it('never puts a password, the passphrase or a key in the ring or the daemon log', async () => {
    const secrets = collectSecrets({ panel: on.dataDir }, typed)
    expect(secrets.length).toBeGreaterThan(4)
    const ring = JSON.stringify((await on.api('GET', '/api/observability')).activity)
    expect(findSecrets(ring, secrets).map((s) => s.kind)).toEqual([])
    const logFile = join(logDir, 'panel.log')
    // The log is teed as it arrives: wait for the last attempt's line.
    const log = await waitFor(async () => {
      const text = await readFile(logFile, 'utf8').catch(() => '')
      return text.includes('"outcome":"throttled"') ? text : null
    }, { timeoutMs: 10_000, message: 'the throttled attempt in the daemon log' })
    expect(log.match(/"event":"security\.escrow"/g)).toHaveLength(7)
    expect(findSecrets(log, secrets).map((s) => s.kind)).toEqual([])
    expect(log).not.toContain('not-the-password')
  })
})
