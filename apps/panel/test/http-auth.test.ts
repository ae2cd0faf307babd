import { describe, expect, it } from 'vitest'
import { generateSigningKeyPair, signToken } from '@arus/crypto'
import { routeTable, type RouteInfo } from '@arus/service'
import { adminApi } from './http-helpers.js'

/** A concrete URL for a route pattern. */
const SAMPLE: Record<string, string> = { u: 'ann', deviceId: 'd'.repeat(64), id: 'news', kind: 'poster', file: 'poster', slug: 'news', name: 'ops' }
const concrete = (url: string) => url.replace(/:(\w+)/g, (_m, p: string) => SAMPLE[p] ?? 'x')

/** The routes of spec 1's Health, Users, Streams, Categories, Admins and Publishers tables (issue 6). */
const SPEC_ROUTES = [
  'GET /healthz', 'GET /metrics', 'POST /api/login', 'GET /api/status', 'GET /api/observability',
  'GET /api/users', 'POST /api/users', 'GET /api/users/:u', 'DELETE /api/users/:u', 'GET /api/users/:u/devices',
  'DELETE /api/users/:u/devices/:deviceId', 'POST /api/users/:u/password', 'POST /api/users/:u/status',
  'POST /api/users/:u/logout-all', 'POST /api/users/:u/max-devices', 'POST /api/users/:u/grants', 'DELETE /api/users/:u/grants/:id',
  'GET /api/streams', 'POST /api/streams', 'PATCH /api/streams/:id', 'DELETE /api/streams/:id', 'POST /api/streams/:id/art/:kind',
  'GET /api/assets/:id/:file',
  'GET /api/categories', 'POST /api/categories', 'PATCH /api/categories', 'DELETE /api/categories/:slug',
  'GET /api/admins', 'POST /api/admins', 'DELETE /api/admins/:name', 'POST /api/admins/:name/password',
  'GET /api/publishers', 'POST /api/publishers', 'DELETE /api/publishers/:name', 'POST /api/publishers/:name/status', 'POST /api/publishers/:name/scopes'
]

const key = (r: RouteInfo) => `${r.method} ${r.url}`

describe('admin API route table', () => {
  it('has every route of the spec tables; only /healthz, /metrics and /api/login are open', async (t) => {
    const a = await adminApi(t)
    const table = routeTable(a.app)
    const keys = table.map(key)
    expect(SPEC_ROUTES.filter((r) => !keys.includes(r))).toEqual([])
    expect(table.filter((r) => !r.auth).map(key).sort()).toEqual(['GET /healthz', 'GET /metrics', 'POST /api/login'])
  })

  it('refuses every authenticated route without a valid admin token (generated from the route table)', async (t) => {
    const a = await adminApi(t)
    const now = Date.now()
    const viewer = signToken({ typ: 'session', sub: 'root', tv: 0, exp: now + 60_000 }, a.opened.ctx.identity.secretKey)
    const forged = signToken({ typ: 'admin', sub: 'root', tv: 0, iat: now, exp: now + 60_000 }, generateSigningKeyPair().secretKey)
    const expired = signToken({ typ: 'admin', sub: 'root', tv: 0, iat: now - 120_000, exp: now - 60_000 }, a.opened.ctx.identity.secretKey)
    const authed = routeTable(a.app).filter((r) => r.auth)
    expect(authed.length).toBeGreaterThanOrEqual(34)
    for (const r of authed) {
      const url = concrete(r.url)
      const send = (authorization?: string) => a.app.inject({ method: r.method, url, headers: authorization ? { authorization } : {}, ...(r.method === 'GET' || r.method === 'DELETE' ? {} : { payload: {} }) })
      for (const [authorization, status, code] of [
        [undefined, 401, 'SERVICE_UNAUTHORIZED'],
        [`Bearer ${forged}`, 401, 'SERVICE_UNAUTHORIZED'],
        [`Bearer ${expired}`, 401, 'SERVICE_UNAUTHORIZED'],
        [`Bearer ${viewer}`, 403, 'SERVICE_FORBIDDEN']
      ] as const) {
        const res = await send(authorization)
        expect([res.statusCode, res.json().error?.code], `${key(r)} with ${authorization === undefined ? 'no token' : authorization.slice(0, 20)}`).toEqual([status, code])
      }
      // With the admin token the gate lets it through (whatever the route then answers).
      expect((await send(a.auth.authorization)).statusCode, key(r)).not.toBe(401)
    }
  })

  it('serves an OpenAPI document (admins only) with every route of the table', async (t) => {
    const a = await adminApi(t)
    expect((await a.app.inject({ url: '/api/openapi.json' })).statusCode).toBe(401)
    const doc = (await a.call('GET', '/api/openapi.json')).body
    const ops = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([p, m]) => Object.keys(m).map((x) => `${x.toUpperCase()} ${p}`))
    expect(ops.sort()).toEqual(routeTable(a.app).map((r) => `${r.method} ${r.url.replace(/:(\w+)/g, '{$1}')}`).sort())
    expect(doc.info.title).toBe('arus-panel admin API')
    expect(doc.paths['/api/streams'].post.requestBody.content['application/json'].schema.properties.url).toBeDefined()
    expect(doc.paths['/api/streams/{id}/art/{kind}'].post.requestBody.content['image/*']).toBeDefined()
  })
})
