import { describe, expect, it } from 'vitest'
import { analyticsFixture } from './analytics-helpers.js'
import { adminApi } from './http-helpers.js'

describe('GET /api/analytics', () => {
  it('answers the days (default 7, capped at the retention) and the in-progress hour', async (t) => {
    const f = await analyticsFixture(t, '2025-03-01T10:30:00Z', { retentionDays: 10 })
    const a = f.analytics
    for (let d = 0; d < 12; d++) { a.loginSucceeded(); a.sessionIssued(`u${d % 2}`); f.clock.advance(86_400_000); await a.tick() }
    a.loginFailed()
    const api = await adminApi(t, { deps: { analytics: a } })

    const def = await api.call('GET', '/api/analytics')
    expect(def.status).toBe(200)
    expect(def.body).toMatchObject({ enabled: true, retentionDays: 10 })
    expect(def.body.days).toHaveLength(7)
    expect(def.body.days.at(-1)).toMatchObject({ date: '2025-03-13', hours: { 10: { logins: { ok: 0, failed: 1 }, sessions: 0 } }, day: { uniqueViewers: 0 } })
    expect(def.body.days[0]).toMatchObject({ date: '2025-03-07', hours: { 10: { logins: { ok: 1, failed: 0 }, sessions: 1 } }, day: { uniqueViewers: 1 } })
    expect(def.body.current).toMatchObject({ date: '2025-03-13', hour: 10, logins: { ok: 0, failed: 1 }, sessions: 0, onlineApps: { samples: 1 } })
    expect(def.body.current.catalog).toEqual({ live: 0, redirect: 0, vod: 0 })

    expect((await api.call('GET', '/api/analytics?days=2')).body.days.map((d: { date: string }) => d.date)).toEqual(['2025-03-12', '2025-03-13'])
    expect((await api.call('GET', '/api/analytics?days=3650')).body.days).toHaveLength(10)
  })

  it('refuses a bad days with 400 and the error envelope', async (t) => {
    const f = await analyticsFixture(t, '2025-03-01T10:30:00Z')
    const api = await adminApi(t, { deps: { analytics: f.analytics } })
    for (const bad of ['0', '-1', '1.5', 'abc', '', '3651']) {
      const r = await api.call('GET', `/api/analytics?days=${bad}`)
      expect([r.status, r.body.error?.code], bad).toEqual([400, 'SERVICE_VALIDATION_FAILED'])
    }
  })

  it('needs the admin token', async (t) => {
    const api = await adminApi(t)
    const r = await api.app.inject({ method: 'GET', url: '/api/analytics' })
    expect(r.statusCode).toBe(401)
  })

  it('answers enabled false when analytics is disabled', async (t) => {
    const f = await analyticsFixture(t, '2025-03-01T10:30:00Z', { retentionDays: 0 })
    const api = await adminApi(t, { deps: { analytics: f.analytics } })
    expect((await api.call('GET', '/api/analytics?days=5')).body).toEqual({ enabled: false, retentionDays: 0, days: [], current: null })
  })
})
