import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { routesWithoutReply, routeTable } from '@arus/service'
import { server, subject } from './helpers.js'

describe('config routes', () => {
  it('declares every route authenticated, tagged config, with a response schema', async (t) => {
    const { app, headers } = await server(t, subject(t).snapshots)
    const routes = routeTable(app).filter((r) => r.tag === 'config')
    expect(routes.map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET /api/config', 'GET /api/config/snapshots', 'POST /api/config/snapshots', 'GET /api/config/snapshots/:id',
      'POST /api/config/snapshots/:id/plan', 'POST /api/config/snapshots/:id/restore', 'DELETE /api/config/snapshots/:id',
      'GET /api/config/template', 'POST /api/config/template/plan', 'POST /api/config/template/import', 'GET /api/backups'
    ])
    expect(routesWithoutReply(routes)).toEqual([])
    const openapi = await app.inject({ method: 'GET', url: '/api/openapi.json', headers })
    expect(openapi.statusCode).toBe(200)
    expect(Object.keys(openapi.json().paths)).toEqual(expect.arrayContaining(['/api/config/snapshots/{id}/restore', '/api/backups']))
    for (const r of routes) {
      expect(r.auth, r.url).toBe(true)
      expect(r.response, r.url).toBeDefined()
      const res = await app.inject({ method: r.method, url: r.url.replace(':id', '20261124T101500123Z-3fa9c2') })
      expect(res.statusCode, `${r.method} ${r.url}`).toBe(401)
    }
  })

  it('takes, lists, shows, plans, restores and deletes over HTTP, never serving contents', async (t) => {
    const s = subject(t)
    const { app, headers } = await server(t, s.snapshots)
    expect((await app.inject({ method: 'GET', url: '/api/config', headers })).json()).toMatchObject({ service: 'panel', restoreSupported: true, snapshotDir: s.dir })
    const taken = await app.inject({ method: 'POST', url: '/api/config/snapshots', headers, payload: { note: 'by http' } })
    expect(taken.statusCode).toBe(201)
    const meta = taken.json()
    expect(meta).toMatchObject({ note: 'by http', reason: 'manual' })
    const bare = await app.inject({ method: 'POST', url: '/api/config/snapshots', headers })
    expect(bare.statusCode).toBe(201)
    // HTTP cannot set the reason
    expect((await app.inject({ method: 'POST', url: '/api/config/snapshots', headers, payload: { reason: 'before-x' } })).json().error.code).toBe('SERVICE_VALIDATION_FAILED')

    const list = await app.inject({ method: 'GET', url: '/api/config/snapshots', headers })
    expect(list.json().snapshots.map((m: { id: string }) => m.id)).toEqual([bare.json().id, meta.id])
    const shown = await app.inject({ method: 'GET', url: `/api/config/snapshots/${meta.id}`, headers })
    expect(shown.json()).toEqual(meta)
    for (const res of [list, shown, taken]) expect(res.body).not.toContain('secret-a')

    s.streams.live.delete('b')
    const plan = await app.inject({ method: 'POST', url: `/api/config/snapshots/${meta.id}/plan`, headers })
    expect(plan.statusCode).toBe(200)
    expect(plan.json().sections.streams.added).toEqual(['b'])
    const planExtra = await app.inject({ method: 'POST', url: `/api/config/snapshots/${meta.id}/plan`, headers, payload: { removeExtra: true } })
    expect(planExtra.statusCode).toBe(200)

    const noConfirm = await app.inject({ method: 'POST', url: `/api/config/snapshots/${meta.id}/restore`, headers, payload: {} })
    expect([noConfirm.statusCode, noConfirm.json().error.code]).toEqual([400, 'CONFIG_CONFIRM_REQUIRED'])
    const noBody = await app.inject({ method: 'POST', url: `/api/config/snapshots/${meta.id}/restore`, headers })
    expect([noBody.statusCode, noBody.json().error.code]).toEqual([400, 'CONFIG_CONFIRM_REQUIRED'])
    expect(s.streams.live.has('b')).toBe(false)
    const restored = await app.inject({ method: 'POST', url: `/api/config/snapshots/${meta.id}/restore`, headers, payload: { confirm: true } })
    expect(restored.statusCode).toBe(200)
    expect(restored.json()).toMatchObject({ id: meta.id, preRestoreSnapshot: expect.any(String), sections: plan.json().sections })
    expect(s.streams.live.has('b')).toBe(true)

    const del = await app.inject({ method: 'DELETE', url: `/api/config/snapshots/${meta.id}`, headers })
    expect([del.statusCode, del.json()]).toEqual([200, { deleted: meta.id }])
    const gone = await app.inject({ method: 'GET', url: `/api/config/snapshots/${meta.id}`, headers })
    expect([gone.statusCode, gone.json().error.code]).toEqual([404, 'CONFIG_SNAPSHOT_NOT_FOUND'])
  })

  it('answers traversal and malformed ids 404, reading nothing outside the directory', async (t) => {
    const s = subject(t)
    const { app, headers } = await server(t, s.snapshots)
    const meta = await s.snapshots.take()
    const planted = await readFile(join(s.dir, `${meta.id}.json`), 'utf8')
    await writeFile(join(s.root, 'data', 'x.json'), planted) // where ../x would land
    await writeFile(join(s.root, 'x.json'), planted)
    const ids = ['..%2fx', '%2e%2e', '%2e%2e%2fx', '..%2f..%2fetc', '..%2f..%2fetc%2fpasswd', '%2fetc%2fpasswd', encodeURIComponent(join(s.root, 'x')), '..%5cx', `${meta.id}%2f..%2f..%2fx`, `${meta.id}.json`, '..']
    for (const id of ids) {
      for (const [method, suffix] of [['GET', ''], ['DELETE', ''], ['POST', '/plan'], ['POST', '/restore']] as const) {
        const res = await app.inject({ method, url: `/api/config/snapshots/${id}${suffix}`, headers, ...(suffix === '/restore' ? { payload: { confirm: true } } : {}) })
        expect(res.statusCode, `${method} ${id}${suffix}`).toBe(404)
        // encoded dots the router decodes resolve to no route (SERVICE_NOT_FOUND); the rest reach the op
        expect(['CONFIG_SNAPSHOT_NOT_FOUND', 'SERVICE_NOT_FOUND'], `${method} ${id}${suffix}`).toContain(res.json().error.code)
        if (id.includes('%2f') || id.includes('%5c') || id.endsWith('.json')) expect(res.json().error.code).toBe('CONFIG_SNAPSHOT_NOT_FOUND')
        expect(res.body).not.toContain('secret')
      }
    }
    // unescaped traversal is resolved by the router: no config route, plain 404
    for (const url of ['/api/config/snapshots/../x', '/api/config/snapshots/../../etc/passwd', '/api/config/snapshots//etc/passwd']) {
      const res = await app.inject({ method: 'GET', url, headers })
      expect(res.statusCode, url).toBe(404)
      expect(res.body).not.toContain('secret')
    }
    expect(await readdir(s.dir)).toEqual([`${meta.id}.json`])
    expect(await readFile(join(s.root, 'data', 'x.json'), 'utf8')).toBe(planted)
  })

  it('serves the template and plans and imports one; another service is 409', async (t) => {
    const s = subject(t)
    const { app, headers } = await server(t, s.snapshots)
    const tpl = await app.inject({ method: 'GET', url: '/api/config/template', headers })
    expect(tpl.json()).toMatchObject({ kind: 'arus-config-template', contains: 'no-secrets' })
    expect(tpl.body).not.toContain('secret-a')
    const template = tpl.json()
    s.streams.live.clear()
    const plan = await app.inject({ method: 'POST', url: '/api/config/template/plan', headers, payload: { template } })
    expect(plan.json().sections.streams.added).toEqual(['a', 'b'])
    const noConfirm = await app.inject({ method: 'POST', url: '/api/config/template/import', headers, payload: { template } })
    expect([noConfirm.statusCode, noConfirm.json().error.code]).toEqual([400, 'CONFIG_CONFIRM_REQUIRED'])
    const done = await app.inject({ method: 'POST', url: '/api/config/template/import', headers, payload: { template, confirm: true } })
    expect(done.statusCode).toBe(200)
    expect(s.streams.live.size).toBe(2)
    const foreign = { ...template, service: 'broadcaster' }
    for (const url of ['/api/config/template/plan', '/api/config/template/import']) {
      const res = await app.inject({ method: 'POST', url, headers, payload: url.endsWith('/import') ? { template: foreign, confirm: true } : { template: foreign } })
      expect([res.statusCode, res.json().error.code]).toEqual([409, 'CONFIG_WRONG_SERVICE'])
    }
    const bad = await app.inject({ method: 'POST', url: '/api/config/template/plan', headers, payload: { template: { kind: 'nope' } } })
    expect([bad.statusCode, bad.json().error.code]).toEqual([400, 'CONFIG_INVALID_TEMPLATE'])
    const missing = await app.inject({ method: 'POST', url: '/api/config/template/plan', headers, payload: {} })
    expect([missing.statusCode, missing.json().error.code]).toEqual([400, 'SERVICE_VALIDATION_FAILED'])
  })

  it('answers 409 for restores on an export-only service, and serves the backups index', async (t) => {
    const s = subject(t, { service: 'reseller', restoreSupported: false })
    const { app, headers } = await server(t, s.snapshots)
    const meta = await s.snapshots.take()
    const res = await app.inject({ method: 'POST', url: `/api/config/snapshots/${meta.id}/restore`, headers, payload: { confirm: true } })
    expect([res.statusCode, res.json().error.code]).toEqual([409, 'CONFIG_RESTORE_UNSUPPORTED'])
    const backups = await app.inject({ method: 'GET', url: '/api/backups', headers })
    expect([backups.statusCode, backups.json()]).toEqual([200, expect.objectContaining({ available: false, canRunHere: false })])
  })
})
