import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { generateSigningKeyPair, signToken } from '@arus/crypto'
import {
  ArusError, ServiceError, isLoopbackHost, listenControlServer, requestAdmin, route, routeTable, SERVICE_ERROR_CODES
} from '@arus/service'
import { bearer, testServer } from './http-helpers.js'

describe('control server: health, metrics, envelope', () => {
  it('answers /healthz and /metrics without a token', async (t) => {
    const s = await testServer(t, { health: () => ({ swarmConnections: 3 }), startedAt: Date.now() - 5000 })
    const h = await s.app.inject({ method: 'GET', url: '/healthz' })
    expect(h.statusCode).toBe(200)
    expect(h.json()).toEqual({ up: true, uptimeSec: 5, swarmConnections: 3 })
    const m = await s.app.inject({ method: 'GET', url: '/metrics' })
    expect(m.statusCode).toBe(200)
    expect(m.headers['content-type']).toMatch(/^text\/plain/)
    expect(m.body).toContain('process_resident_memory_bytes')
    expect(m.body).toContain('nodejs_heap_size_used_bytes')
    expect(m.body).toContain('arus_admin_logins_total')
  })

  it('answers an unknown route 404 SERVICE_NOT_FOUND, with or without a token', async (t) => {
    const s = await testServer(t)
    for (const url of ['/nope', '/api/nope']) {
      const r = await s.app.inject({ method: 'GET', url })
      expect(r.statusCode).toBe(404)
      expect(r.json()).toEqual({ error: { code: 'SERVICE_NOT_FOUND', message: `no route GET ${url}` } })
    }
  })

  it("answers the router's refusals (an over-long path parameter, a malformed percent-encoding) in the envelope, without echoing the path", async (t) => {
    const s = await testServer(t)
    route(s.app, { method: 'GET', url: '/x/:id', auth: false, summary: 'x' }, async () => undefined)
    for (const url of [`/x/${'y'.repeat(5000)}`, '/x/%E0%A4%A']) {
      const r = await s.app.inject({ method: 'GET', url })
      expect(r.statusCode).toBe(400)
      expect(r.json()).toEqual({ error: { code: 'SERVICE_VALIDATION_FAILED', message: expect.stringMatching(/^request refused \(FST_ERR_(MAX_PARAM_LENGTH|BAD_URL)\)$/) } })
    }
  })

  it('sets security headers on every answer', async (t) => {
    const s = await testServer(t)
    const r = await s.app.inject({ method: 'GET', url: '/healthz' })
    expect(r.headers['x-content-type-options']).toBe('nosniff')
    expect(r.headers['content-security-policy']).toContain("frame-ancestors 'none'")
  })

  it('maps thrown errors: ArusError keeps its status, mapped errors, unknown errors are 500 without detail', async (t) => {
    class Foreign extends Error { code = 'FOREIGN_BAD' }
    const s = await testServer(t, { mapError: (e) => e instanceof Foreign ? new ArusError('FOREIGN_BAD', 'mapped', { status: 400 }) : undefined })
    route(s.app, { method: 'GET', url: '/x/conflict', auth: false, summary: 'x' }, async () => { throw new ArusError('PANEL_EXISTS', 'exists', { status: 409 }) })
    route(s.app, { method: 'GET', url: '/x/foreign', auth: false, summary: 'x' }, async () => { throw new Foreign('secret detail') })
    route(s.app, { method: 'GET', url: '/x/boom', auth: false, summary: 'x' }, async () => { throw new Error('db password is hunter2') })
    route(s.app, { method: 'GET', url: '/x/locked', auth: false, summary: 'x' }, async () => { throw ServiceError.locked(42) })
    expect((await s.app.inject({ url: '/x/conflict' })).json()).toEqual({ error: { code: 'PANEL_EXISTS', message: 'exists' } })
    const foreign = await s.app.inject({ url: '/x/foreign' })
    expect([foreign.statusCode, foreign.json()]).toEqual([400, { error: { code: 'FOREIGN_BAD', message: 'mapped' } }])
    const boom = await s.app.inject({ url: '/x/boom' })
    expect([boom.statusCode, boom.json()]).toEqual([500, { error: { code: 'SERVICE_INTERNAL', message: 'internal error' } }])
    expect(s.records().some((r) => r.msg === 'request failed' && r.code === 'SERVICE_INTERNAL')).toBe(true)
    const locked = await s.app.inject({ url: '/x/locked' })
    expect(locked.statusCode).toBe(429)
    expect(locked.headers['retry-after']).toBe('42')
    expect(locked.json()).toEqual({ error: { code: 'SERVICE_LOCKED', message: expect.any(String) }, retryAfter: 42 })
  })

  it('every HTTP code of the kit has the status its table gives', () => {
    const made = [
      ServiceError.validationFailed('x'), ServiceError.unauthorized(), ServiceError.badCredentials(), ServiceError.forbidden('x'),
      ServiceError.notFound('GET', '/x'), ServiceError.payloadTooLarge(), ServiceError.unsupportedMediaType('x'), ServiceError.locked(1),
      ServiceError.verifyBusy(), ServiceError.verifyTimeout(1), ServiceError.internal()
    ]
    expect(made.map((e) => [e.code, e.status])).toEqual(made.map((e) => [e.code, SERVICE_ERROR_CODES[e.code].status]))
    expect(made.map((e) => e.status)).toEqual([400, 401, 401, 403, 404, 413, 415, 429, 503, 503, 500])
  })
})

describe('route helper', () => {
  const Body = z.strictObject({ name: z.string().min(2), count: z.number().int().max(5).optional() })
  const Query = z.object({ limit: z.coerce.number().int().min(1).max(10).default(3) })
  const Params = z.object({ id: z.string().regex(/^[a-z]+$/) })
  const Reply = z.object({ id: z.string(), name: z.string(), limit: z.number() })

  it('validates params, query and body with zod and strips the response to its schema', async (t) => {
    const s = await testServer(t)
    route(s.app, { method: 'POST', url: '/api/things/:id', auth: false, summary: 'make a thing', body: Body, query: Query, params: Params, response: Reply, status: 201 },
      async ({ body, query, params }) => ({ id: params.id, name: body.name, limit: query.limit, secret: 'never sent' }))
    const ok = await s.app.inject({ method: 'POST', url: '/api/things/abc?limit=7', payload: { name: 'xy' } })
    expect([ok.statusCode, ok.json()]).toEqual([201, { id: 'abc', name: 'xy', limit: 7 }])
    const bad = await s.app.inject({ method: 'POST', url: '/api/things/ABC?limit=99', payload: { name: 'x', extra: 1, password: 'p4ss' } })
    expect(bad.statusCode).toBe(400)
    const err = bad.json().error
    expect(err.code).toBe('SERVICE_VALIDATION_FAILED')
    expect(err.message).toContain('params.id')
    expect(bad.body).not.toContain('p4ss')
    const badBody = await s.app.inject({ method: 'POST', url: '/api/things/abc', payload: { name: 'x', extra: 1 } })
    expect(badBody.json().error.message).toMatch(/body\.name.*body/)
  })

  it('refuses malformed JSON without quoting it, and answers 500 when a response breaks its schema', async (t) => {
    const s = await testServer(t)
    route(s.app, { method: 'POST', url: '/api/echo', auth: false, summary: 'echo', body: Body }, async () => undefined)
    route(s.app, { method: 'GET', url: '/api/broken', auth: false, summary: 'broken', response: Reply }, async () => ({ id: 1 }) as any)
    const r = await s.app.inject({ method: 'POST', url: '/api/echo', headers: { 'content-type': 'application/json' }, payload: '{"password":"hunter2"' })
    expect([r.statusCode, r.json().error.code]).toEqual([400, 'SERVICE_VALIDATION_FAILED'])
    expect(r.body).not.toContain('hunter2')
    const none = await s.app.inject({ method: 'POST', url: '/api/echo', payload: { name: 'ok' } })
    expect(none.statusCode).toBe(204)
    const broken = await s.app.inject({ method: 'GET', url: '/api/broken' })
    expect([broken.statusCode, broken.json().error.code]).toEqual([500, 'SERVICE_INTERNAL'])
  })

  it('takes an empty body sent with content-type application/json as no body (POST and DELETE), and still refuses a bad one', async (t) => {
    const s = await testServer(t)
    const seen: unknown[] = []
    route(s.app, { method: 'POST', url: '/api/things/:id/start', auth: false, summary: 'no body', params: Params }, async ({ body }) => { seen.push(body) })
    route(s.app, { method: 'DELETE', url: '/api/things/:id', auth: false, summary: 'no body', params: Params, response: z.object({ deleted: z.string() }) }, async ({ params, body }) => { seen.push(body); return { deleted: params.id } })
    route(s.app, { method: 'POST', url: '/api/things/:id/opt', auth: false, summary: 'optional body', params: Params, body: Body.optional() }, async ({ body }) => { seen.push(body) })
    route(s.app, { method: 'POST', url: '/api/things', auth: false, summary: 'required body', body: Body }, async () => undefined)
    const json = { 'content-type': 'application/json' }
    const post = await s.app.inject({ method: 'POST', url: '/api/things/abc/start', headers: json })
    expect([post.statusCode, post.body]).toEqual([204, ''])
    const del = await s.app.inject({ method: 'DELETE', url: '/api/things/abc', headers: { ...json, 'content-length': '0' } })
    expect([del.statusCode, del.json()]).toEqual([200, { deleted: 'abc' }])
    const opt = await s.app.inject({ method: 'POST', url: '/api/things/abc/opt', headers: { 'content-type': 'application/json; charset=utf-8' }, payload: '' })
    expect(opt.statusCode).toBe(204)
    expect(seen).toEqual([undefined, undefined, undefined])
    // A route that needs a body names it; whitespace or broken JSON is still not JSON.
    const required = await s.app.inject({ method: 'POST', url: '/api/things', headers: json })
    expect([required.statusCode, required.json().error.code]).toEqual([400, 'SERVICE_VALIDATION_FAILED'])
    expect(required.json().error.message).toContain('body')
    for (const payload of [' ', '{"name":']) {
      const bad = await s.app.inject({ method: 'POST', url: '/api/things/abc/opt', headers: json, payload })
      expect([bad.statusCode, bad.json().error]).toEqual([400, { code: 'SERVICE_VALIDATION_FAILED', message: 'request body is not valid JSON' }])
    }
    const poisoned = await s.app.inject({ method: 'POST', url: '/api/things/abc/opt', headers: json, payload: '{"__proto__":{"x":1},"name":"ok"}' })
    expect(poisoned.statusCode).toBe(400)
  })

  it('takes raw bodies of the declared media types up to their limit', async (t) => {
    const s = await testServer(t)
    route(s.app, { method: 'POST', url: '/api/blob', auth: false, summary: 'upload', rawBody: { contentTypes: ['image/*'], maxBytes: 16 } },
      async ({ raw }) => ({ bytes: raw!.length }))
    const ok = await s.app.inject({ method: 'POST', url: '/api/blob', headers: { 'content-type': 'image/png' }, payload: Buffer.alloc(10) })
    expect([ok.statusCode, ok.json()]).toEqual([200, { bytes: 10 }])
    const big = await s.app.inject({ method: 'POST', url: '/api/blob', headers: { 'content-type': 'image/png' }, payload: Buffer.alloc(17) })
    expect([big.statusCode, big.json().error.code]).toEqual([413, 'SERVICE_PAYLOAD_TOO_LARGE'])
    const json = await s.app.inject({ method: 'POST', url: '/api/blob', payload: { a: 1 } })
    expect([json.statusCode, json.json().error.code]).toEqual([415, 'SERVICE_UNSUPPORTED_MEDIA_TYPE'])
    const other = await s.app.inject({ method: 'POST', url: '/api/blob', headers: { 'content-type': 'application/x-unknown' }, payload: 'x' })
    expect([other.statusCode, other.json().error.code]).toEqual([415, 'SERVICE_UNSUPPORTED_MEDIA_TYPE'])
  })

  it('records every route in the table and refuses a duplicate', async (t) => {
    const s = await testServer(t)
    route(s.app, { method: 'GET', url: '/api/a', auth: true, summary: 'a' }, async () => ({}))
    expect(routeTable(s.app).map((r) => `${r.method} ${r.url}`)).toEqual(['GET /healthz', 'GET /metrics', 'POST /api/login', 'GET /api/openapi.json', 'GET /api/a'])
    expect(() => route(s.app, { method: 'GET', url: '/api/a', auth: true, summary: 'a' }, async () => ({}))).toThrow(/declared twice/)
  })
})

describe('auth gate', () => {
  it('lets a valid admin token through and refuses missing, forged, expired, foreign-type and ended sessions', async (t) => {
    let clock = Date.now()
    const s = await testServer(t, { auth: { now: () => clock, sessionTtlMs: 60_000 } })
    route(s.app, { method: 'GET', url: '/api/me', auth: true, summary: 'who am I' }, async (_i, req) => ({ name: requestAdmin(req)?.name }))
    const { body } = await s.login()
    expect((await s.app.inject({ url: '/api/me', headers: bearer(body.token) })).json()).toEqual({ name: 'root' })

    const code = async (headers: Record<string, string>) => {
      const r = await s.app.inject({ url: '/api/me', headers })
      return [r.statusCode, r.json().error?.code]
    }
    const unauthorized = [401, 'SERVICE_UNAUTHORIZED']
    expect(await code({})).toEqual(unauthorized)
    expect(await code({ authorization: 'Basic cm9vdDpyb290LXB3' })).toEqual(unauthorized)
    expect(await code(bearer('not.a-token'))).toEqual(unauthorized)
    const other = generateSigningKeyPair()
    expect(await code(bearer(signToken({ typ: 'admin', sub: 'root', tv: 0, iat: clock, exp: clock + 1e6 }, other.secretKey)))).toEqual(unauthorized)
    // A viewer session token signed by the same key is authentic but not an admin token.
    expect(await code(bearer(signToken({ typ: 'session', sub: 'root', tv: 0, exp: clock + 1e6 }, s.keys.secretKey)))).toEqual([403, 'SERVICE_FORBIDDEN'])
    // A token checked once is remembered by its exact string: the same payload under another
    // signature, or a cut-off token, is still refused.
    const [payloadPart, sigPart] = body.token.split('.') as [string, string]
    const flipped = sigPart.slice(0, -2) + (sigPart.at(-2) === 'A' ? 'B' : 'A') + sigPart.at(-1)
    expect(await code(bearer(`${payloadPart}.${flipped}`))).toEqual(unauthorized)
    expect(await code(bearer(body.token.slice(0, -1)))).toEqual(unauthorized)
    expect(await code(bearer(body.token))).toEqual([200, undefined])
    // Expiry (the remembered token too).
    clock += 60_001
    expect(await code(bearer(body.token))).toEqual(unauthorized)
    clock -= 60_001
    // tokenVersion bump (password rotation) and removal end the session.
    s.admins.bump('root')
    expect(await code(bearer(body.token))).toEqual(unauthorized)
    const fresh = (await s.login()).body.token
    expect(await code(bearer(fresh))).toEqual([200, undefined])
    s.admins.remove('root')
    expect(await code(bearer(fresh))).toEqual(unauthorized)
  })

  it('has every route Fastify serves in its route table, so the OpenAPI document and route fuzzing see them all', async (t) => {
    const s = await testServer(t)
    route(s.app, { method: 'PATCH', url: '/api/things/:id', auth: true, summary: 'x', params: z.object({ id: z.string() }) }, async () => undefined)
    await s.app.ready()
    // printRoutes lines look like `├── /api/things/:id (PATCH)`; HEAD is Fastify's own twin of each GET.
    const served = [...s.app.printRoutes({ commonPrefix: false }).matchAll(/(\/\S*) \(([A-Z, ]+)\)/g)]
      .flatMap(([, url, methods]) => methods!.split(', ').filter((m) => m !== 'HEAD').map((m) => `${m} ${url}`))
    expect(served.sort()).toEqual(routeTable(s.app).map((r) => `${r.method} ${r.url}`).sort())
  })

  it('serves the OpenAPI document to admins only, covering every route of the table', async (t) => {
    const s = await testServer(t)
    route(s.app, { method: 'DELETE', url: '/api/users/:u/devices/:deviceId', auth: true, summary: 'drop', params: z.object({ u: z.string(), deviceId: z.string() }) }, async () => undefined)
    route(s.app, { method: 'GET', url: '/api/users', auth: true, summary: 'list', query: z.object({ prefix: z.string().optional(), limit: z.coerce.number().optional() }) }, async () => ({}))
    expect((await s.app.inject({ url: '/api/openapi.json' })).statusCode).toBe(401)
    const token = (await s.login()).body.token
    const doc = (await s.app.inject({ url: '/api/openapi.json', headers: bearer(token) })).json()
    expect(doc.openapi).toBe('3.0.3')
    const ops = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([p, m]) => Object.keys(m).map((k) => `${k.toUpperCase()} ${p}`))
    expect(ops.sort()).toEqual(routeTable(s.app).map((r) => `${r.method} ${r.url.replace(/:(\w+)/g, '{$1}')}`).sort())
    const drop = doc.paths['/api/users/{u}/devices/{deviceId}'].delete
    expect(drop.security).toEqual([{ bearer: [] }])
    expect(drop.parameters.map((p: any) => `${p.in}:${p.name}`)).toEqual(['path:u', 'path:deviceId'])
    expect(doc.paths['/api/users'].get.parameters.map((p: any) => `${p.in}:${p.name}:${p.required}`)).toEqual(['query:prefix:false', 'query:limit:false'])
    expect(doc.paths['/api/login'].post.security).toEqual([])
    expect(doc.paths['/api/login'].post.requestBody.content['application/json'].schema.required).toEqual(['username', 'password'])
  })
})

describe('listen', () => {
  it('binds loopback only and serves over real HTTP', async (t) => {
    const s = await testServer(t)
    await expect(listenControlServer(s.app, { host: '0.0.0.0', port: 0 })).rejects.toMatchObject({ code: 'SERVICE_INVALID_CONFIG' })
    const url = await listenControlServer(s.app, { host: '127.0.0.1', port: 0 })
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const health = await fetch(`${url}/healthz`)
    expect(health.status).toBe(200)
    const login = await fetch(`${url}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'root', password: 'root-pw' }) })
    const { token } = await login.json() as { token: string }
    const doc = await fetch(`${url}/api/openapi.json`, { headers: bearer(token) })
    expect(doc.status).toBe(200)
  })

  it('knows loopback addresses', () => {
    for (const h of ['127.0.0.1', '127.5.0.9', '::1', '[::1]', 'localhost', '::ffff:127.0.0.1', '0:0:0:0:0:0:0:1']) expect(isLoopbackHost(h), h).toBe(true)
    for (const h of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.2', 'example.com', '::ffff:10.0.0.1', '128.0.0.1']) expect(isLoopbackHost(h), h).toBe(false)
  })
})
