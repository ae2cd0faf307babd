import { describe, expect, it } from 'vitest'
import { fromHex, sign, verify as verifySig } from '@arus/crypto'
import { adminApi } from './http-helpers.js'

describe('admin API: admins', () => {
  it('lists, adds, rotates (ending that admin\'s sessions) and removes admins', async (t) => {
    const a = await adminApi(t)
    expect((await a.call('GET', '/api/admins')).body.admins.map((x: any) => x.name)).toEqual(['root'])
    const added = await a.call('POST', '/api/admins', { name: 'ops', password: 'ops-pw' })
    expect([added.status, added.body]).toEqual([201, { name: 'ops', tokenVersion: 0, createdAt: expect.any(Number) }])
    expect((await a.call('POST', '/api/admins', { name: 'ops', password: 'x' })).status).toBe(409)
    expect((await a.call('POST', '/api/admins', { name: 'bad name', password: 'x' })).status).toBe(400)

    const ops = await a.login('ops', 'ops-pw')
    expect(ops.status).toBe(200)
    const opsAuth = { authorization: `Bearer ${ops.body.token as string}` }
    expect((await a.call('GET', '/api/status', undefined, opsAuth)).status).toBe(200)

    // Rotation bumps tokenVersion: the old session ends, the new password works.
    expect((await a.call('POST', '/api/admins/ops/password', { password: 'ops-pw2' })).body).toMatchObject({ name: 'ops', tokenVersion: 1 })
    const ended = await a.call('GET', '/api/status', undefined, opsAuth)
    expect([ended.status, ended.body.error.code]).toEqual([401, 'SERVICE_UNAUTHORIZED'])
    expect((await a.login('ops', 'ops-pw')).status).toBe(401)
    const again = await a.login('ops', 'ops-pw2')
    expect(again.status).toBe(200)

    // Rotating one's own password signs one out.
    expect((await a.call('POST', '/api/admins/root/password', { password: 'root-pw2' })).status).toBe(200)
    expect((await a.call('GET', '/api/admins')).status).toBe(401)

    const opsAuth2 = { authorization: `Bearer ${again.body.token as string}` }
    expect((await a.call('DELETE', '/api/admins/root', undefined, opsAuth2)).body).toEqual({ deleted: 'root' })
    expect((await a.login('root', 'root-pw2')).status).toBe(401)
    expect((await a.call('DELETE', '/api/admins/root', undefined, opsAuth2)).status).toBe(404)
    expect((await a.call('POST', '/api/admins/root/password', { password: 'x' }, opsAuth2)).status).toBe(404)
  })
})

describe('admin API: publishers', () => {
  it('enrolls (secretKey once), lists, revokes, rescopes and deletes', async (t) => {
    const a = await adminApi(t)
    const enrolled = await a.call('POST', '/api/publishers', { name: 'site-a', scopes: ['news*', 'sport.?'] })
    expect(enrolled.status).toBe(201)
    expect(enrolled.body).toMatchObject({ name: 'site-a', scopes: ['news*', 'sport.?'], status: 'active' })
    const { secretKey, publicKey } = enrolled.body
    const probe = new Uint8Array([1, 2, 3])
    expect(verifySig(probe, sign(probe, fromHex(secretKey, 64)), fromHex(publicKey, 32))).toBe(true)
    const list = await a.call('GET', '/api/publishers')
    expect(list.body.publishers).toEqual([{ name: 'site-a', publicKey, scopes: ['news*', 'sport.?'], status: 'active', createdAt: expect.any(Number) }])
    expect(JSON.stringify(list.body)).not.toContain(secretKey)
    expect((await a.call('POST', '/api/publishers', { name: 'site-b' })).body.scopes).toEqual(['*'])
    expect((await a.call('POST', '/api/publishers', { name: 'site-a' })).status).toBe(409)
    expect((await a.call('POST', '/api/publishers', { name: 'x', scopes: ['bad glob!'] })).status).toBe(400)

    expect((await a.call('POST', '/api/publishers/site-a/status', { status: 'revoked' })).body.status).toBe('revoked')
    expect((await a.call('POST', '/api/publishers/site-a/status', { status: 'active' })).body.status).toBe('active')
    expect((await a.call('POST', '/api/publishers/site-a/status', { status: 'gone' })).status).toBe(400)
    expect((await a.call('POST', '/api/publishers/site-a/scopes', { scopes: ['vod.*'] })).body.scopes).toEqual(['vod.*'])
    expect((await a.call('POST', '/api/publishers/ghost/scopes', { scopes: ['*'] })).status).toBe(404)
    expect((await a.call('DELETE', '/api/publishers/site-a')).body).toEqual({ deleted: 'site-a' })
    expect((await a.call('GET', '/api/publishers')).body.publishers.map((p: any) => p.name)).toEqual(['site-b'])
    expect((await a.call('DELETE', '/api/publishers/site-a')).status).toBe(404)
  })
})

describe('admin API: status, observability, health and metrics', () => {
  it('GET /api/status counts users, streams, live records and admins, and names the panel', async (t) => {
    const a = await adminApi(t)
    await a.call('POST', '/api/users', { username: 'ann', password: 'pw' })
    await a.call('POST', '/api/streams', { id: 'a' })
    await a.call('POST', '/api/streams', { id: 'b', url: 'https://cdn.example/b.m3u8' })
    const s = await a.call('GET', '/api/status')
    expect(s.body).toEqual({ users: 1, streams: 2, live: 1, admins: 1, panelKey: a.panelKey, serviceName: 'arus', pairingCode: expect.any(String), escrowExport: false })
  })

  it('GET /api/observability reports uptime, memory, swarm, disk and the activity ring (with the acting admin, no secrets)', async (t) => {
    const a = await adminApi(t)
    const { key } = (await a.call('POST', '/api/streams', { id: 'news' })).body
    await a.call('POST', '/api/users', { username: 'ann', password: 'very-secret-pw' })
    await a.call('POST', '/api/users/ann/grants', { streamId: 'news' })
    const o = (await a.call('GET', '/api/observability')).body
    expect(o).toMatchObject({ uptimeSec: expect.any(Number), swarm: { connections: 0, peers: 0 } })
    expect(o.memory.rss).toBeGreaterThan(0)
    expect(o.dataSize).toBeGreaterThan(0)
    expect(o.diskFree).toBeGreaterThan(0)
    expect(o.activity.map((e: any) => e.event)).toEqual(['grant.added', 'user.created', 'stream.added'])
    expect(o.activity[0]).toEqual({ at: expect.any(Number), event: 'grant.added', actor: 'root', username: 'ann', streamId: 'news' })
    const text = JSON.stringify(o)
    expect(text).not.toContain(key)
    expect(text).not.toContain('very-secret-pw')
  })

  it('the activity ring keeps the last 200 entries', async (t) => {
    const a = await adminApi(t)
    await a.call('POST', '/api/streams', { id: 'news' })
    for (let i = 0; i < 205; i++) await a.call('PATCH', '/api/streams/news', { order: i })
    const { activity } = (await a.call('GET', '/api/observability')).body
    expect(activity).toHaveLength(200)
    expect(activity[0]).toMatchObject({ event: 'stream.updated', fields: ['order'] })
  })

  it('/healthz and /metrics answer without a token, with the panel gauges and counters', async (t) => {
    const a = await adminApi(t)
    await a.call('POST', '/api/streams', { id: 'a' })
    await a.call('POST', '/api/streams', { id: 'b', url: 'https://cdn.example/b.m3u8' })
    const h = await a.app.inject({ url: '/healthz' })
    expect(h.json()).toEqual({ up: true, uptimeSec: expect.any(Number), swarmConnections: 0 })
    await a.login('root', 'wrong')
    const m = (await a.app.inject({ url: '/metrics' })).body
    for (const line of [
      'arus_panel_catalog_channels{class="live"} 1', 'arus_panel_catalog_channels{class="redirect"} 1', 'arus_panel_catalog_channels{class="vod"} 0',
      'arus_panel_logins_ok_total 0', 'arus_panel_logins_failed_total 0', 'arus_panel_sessions_issued_total 0',
      'arus_panel_admin_logins_total{result="ok"} 1', 'arus_panel_admin_logins_total{result="failed"} 1', 'arus_panel_swarm_connections 0'
    ]) expect(m).toContain(line)
    expect(m).toMatch(/^arus_panel_uptime_seconds \d+$/m)
    expect(m).toMatch(/^process_resident_memory_bytes \d+/m)
    expect(m).toMatch(/^nodejs_heap_size_used_bytes \d+/m)
  })
})
