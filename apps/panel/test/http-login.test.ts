import { describe, expect, it } from 'vitest'
import { fromHex, verifyToken } from '@arus/crypto'
import { loadPanelConfig } from '../src/config.js'
import { controlSettings } from '@arus/service'
import { cliJson } from './helpers.js'
import { adminApi } from './http-helpers.js'

describe('panel admin login', () => {
  it('issues a panel-signed admin token that expires after ADMIN_SESSION_TTL_HOURS', async (t) => {
    const env = { ADMIN_SESSION_TTL_HOURS: '2' }
    const settings = controlSettings(loadPanelConfig({ DATA_DIR: '/unused', ...env }), 'ADMIN')
    const a = await adminApi(t, { env, deps: { settings } })
    const before = Date.now()
    const r = await a.login('root', 'root-pw')
    expect(r.status).toBe(200)
    const payload = verifyToken(r.body.token, fromHex(a.panelKey, 32))
    expect(payload).toMatchObject({ typ: 'admin', sub: 'root', tv: 0 })
    expect(r.body.expiresAt - before).toBeGreaterThanOrEqual(2 * 3_600_000 - 1000)
    expect(r.body.expiresAt - before).toBeLessThanOrEqual(2 * 3_600_000 + 1000)
    const wrong = await a.login('root', 'nope')
    const unknown = await a.login('nobody', 'nope')
    expect(wrong).toEqual({ status: 401, body: { error: { code: 'SERVICE_BAD_CREDENTIALS', message: 'unknown name or wrong password' } } })
    expect(unknown).toEqual(wrong)
  })

  it('locks out after LOCKOUT_THRESHOLD attempts per LOCKOUT_SECONDS (429 with retryAfter)', async (t) => {
    const a = await adminApi(t, { env: { LOCKOUT_THRESHOLD: '2', LOCKOUT_SECONDS: '120' } })
    await a.login('root', 'root-pw') // adminApi's own login already counted and reset; this one too
    expect((await a.login('root', 'bad')).status).toBe(401)
    expect((await a.login('root', 'bad')).status).toBe(401)
    const locked = await a.app.inject({ method: 'POST', url: '/api/login', payload: { username: 'root', password: 'root-pw' } })
    expect(locked.statusCode).toBe(429)
    expect(locked.json().error.code).toBe('SERVICE_LOCKED')
    expect(locked.json().retryAfter).toBeGreaterThan(0)
    expect(locked.json().retryAfter).toBeLessThanOrEqual(120)
    expect(locked.headers['retry-after']).toBe(String(locked.json().retryAfter))
  })

  it('ADMIN_VERIFY_TIMEOUT_MS: a verification over budget gets 503 and the next login works on a fresh worker', async (t) => {
    const env = { ADMIN_VERIFY_TIMEOUT_MS: '250' }
    const settings = controlSettings(loadPanelConfig({ DATA_DIR: '/unused', ...env }), 'ADMIN')
    expect(settings.verifyTimeoutMs).toBe(250)
    const a = await adminApi(t, { env, deps: { settings } })
    // Registry-only command, beside the open panel: an admin whose recorded cost (256 MiB, 8
    // passes: over a second here) is far over the budget, while root's (8 KiB) is far under it.
    await cliJson({ ...a.env, ARGON2_MEM_KIB: '262144', ARGON2_OPS: '8' }, ['add-admin', 'slow'], 'slow-pw\n')
    const slow = await a.login('slow', 'slow-pw')
    expect(slow).toEqual({ status: 503, body: { error: { code: 'SERVICE_VERIFY_TIMEOUT', message: 'password verification exceeded 250 ms' } } })
    expect((await a.login('root', 'root-pw')).status).toBe(200)
    const metrics = (await a.app.inject({ url: '/metrics' })).body
    expect(metrics).toContain('arus_panel_admin_logins_total{result="timeout"} 1')
  })
})
