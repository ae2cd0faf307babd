import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { adminApi } from './http-helpers.js'

// The panel's config snapshots in process (the built-daemon scenario is test/config): a snapshot
// before every destructive change, and restores that write nothing when nothing differs — the
// catalog is append-only, so an unchanged record must cost no block.

describe('panel config snapshots', () => {
  it('takes one before removing a publisher, an admin, a stream or a user', async (t) => {
    const a = await adminApi(t)
    await a.call('POST', '/api/admins', { name: 'ops', password: 'ops-pw' })
    await a.call('POST', '/api/publishers', { name: 'site1' })
    await a.call('POST', '/api/streams', { id: 'news' })
    await a.call('POST', '/api/users', { username: 'bob', password: 'bob-pw' })
    for (const url of ['/api/publishers/site1', '/api/admins/ops', '/api/streams/news', '/api/users/bob']) {
      expect((await a.call('DELETE', url)).status, url).toBe(200)
    }
    const { body } = await a.call('GET', '/api/config/snapshots')
    expect(body.snapshots.map((s: { reason: string }) => s.reason)).toEqual([
      'before-delete user bob', 'before-delete stream news', 'before-remove admin ops', 'before-remove publisher site1'
    ])
    // A refused delete (unknown name) takes none.
    expect((await a.call('DELETE', '/api/users/ghost')).status).toBe(404)
    expect((await a.call('GET', '/api/config/snapshots')).body.snapshots).toHaveLength(4)
    const dir = join(a.dataDir, 'config-snapshots')
    expect(statSync(dir).mode & 0o777).toBe(0o700)
    for (const f of readdirSync(dir)) expect(statSync(join(dir, f)).mode & 0o777, f).toBe(0o600)
  })

  it('a restore over an unchanged panel writes no catalog block and no private file', async (t) => {
    const a = await adminApi(t)
    await a.call('POST', '/api/streams', { id: 'news', title: 'News', category: ['Info'] })
    await a.call('POST', '/api/users', { username: 'alice', password: 'alice-pw' })
    await a.call('POST', '/api/users/alice/grants', { streamId: 'news' })
    await a.call('POST', '/api/categories', { name: 'Info', order: 1 })
    const taken = (await a.call('POST', '/api/config/snapshots', {})).body
    const before = a.opened.ctx.catalog.stats()
    const keys = readFileSync(join(a.dataDir, 'private/stream-keys.json'), 'utf8')
    const plan = (await a.call('POST', `/api/config/snapshots/${taken.id}/plan`, {})).body
    const restored = (await a.call('POST', `/api/config/snapshots/${taken.id}/restore`, { confirm: true })).body
    for (const r of [plan, restored]) {
      for (const [name, s] of Object.entries(r.sections) as Array<[string, { added: string[]; changed: string[]; removed: string[] }]>) {
        expect([...s.added, ...s.changed, ...s.removed], name).toEqual([])
      }
    }
    const after = a.opened.ctx.catalog.stats()
    expect([after.length, after.byteLength]).toEqual([before.length, before.byteLength])
    expect(readFileSync(join(a.dataDir, 'private/stream-keys.json'), 'utf8')).toBe(keys)
  })

  it('restores a changed title and a removed grant, leaving a live stream key alone', async (t) => {
    const a = await adminApi(t)
    const { key } = (await a.call('POST', '/api/streams', { id: 'news', title: 'News' })).body
    await a.call('POST', '/api/users', { username: 'alice', password: 'alice-pw' })
    await a.call('POST', '/api/users/alice/grants', { streamId: 'news' })
    const taken = (await a.call('POST', '/api/config/snapshots', {})).body
    await a.call('PATCH', '/api/streams/news', { title: 'Renamed' })
    await a.call('DELETE', '/api/users/alice/grants/news')
    const plan = (await a.call('POST', `/api/config/snapshots/${taken.id}/plan`, {})).body
    expect(plan.sections.streams.changed).toEqual(['news'])
    expect(plan.sections.users.changed).toEqual(['alice'])
    await a.call('POST', `/api/config/snapshots/${taken.id}/restore`, { confirm: true })
    expect((await a.call('GET', '/api/streams')).body.streams[0].title).toBe('News')
    expect((await a.call('GET', '/api/users/alice')).body.grants).toEqual(['news'])
    expect(JSON.parse(readFileSync(join(a.dataDir, 'private/stream-keys.json'), 'utf8')).keys.news).toBe(key)
  })

  it('imports a template as structure: a new stream key, no users, publishers left to enroll', async (t) => {
    const a = await adminApi(t)
    const { key } = (await a.call('POST', '/api/streams', { id: 'news', title: 'News' })).body
    await a.call('POST', '/api/users', { username: 'alice', password: 'alice-pw' })
    await a.call('POST', '/api/publishers', { name: 'site1' })
    const template = (await a.call('GET', '/api/config/template')).body
    expect(template.sections.users).toBeUndefined()
    expect(JSON.stringify(template)).not.toContain(key)
    const b = await adminApi(t)
    expect((await b.call('POST', '/api/config/template/import', { template })).body.error.code).toBe('CONFIG_CONFIRM_REQUIRED')
    const imported = (await b.call('POST', '/api/config/template/import', { template, confirm: true })).body
    expect(imported.sections.streams.added).toEqual(['news'])
    expect(imported.sections.publishers.skipped.map((s: { id: string }) => s.id)).toEqual(['site1'])
    const newKey = JSON.parse(readFileSync(join(b.dataDir, 'private/stream-keys.json'), 'utf8')).keys.news
    expect(newKey).toMatch(/^[0-9a-f]{64}$/)
    expect(newKey).not.toBe(key)
    expect((await b.call('GET', '/api/users')).body.users).toEqual([])
  })
})

describe('packages in config snapshots', () => {
  it('a deleted package comes back with its holders and their grants; templates carry packages, not entitlements', async (t) => {
    const a = await adminApi(t)
    await a.call('POST', '/api/streams', { id: 'tv.one' })
    await a.call('POST', '/api/packages', { name: 'basic', members: ['tv.*'] })
    await a.call('POST', '/api/users', { username: 'ann', password: 'pw' })
    await a.call('POST', '/api/users/ann/packages', { packages: ['basic'] })
    const taken = (await a.call('POST', '/api/config/snapshots', {})).body
    await a.call('DELETE', '/api/packages/basic')
    expect((await a.call('GET', '/api/users/ann')).body).toMatchObject({ packages: [], grants: [] })
    const plan = (await a.call('POST', `/api/config/snapshots/${taken.id}/plan`, {})).body
    expect(plan.sections.packages.added).toEqual(['basic'])
    await a.call('POST', `/api/config/snapshots/${taken.id}/restore`, { confirm: true })
    expect(plan.sections.entitlements.changed).toEqual(['ann'])
    // The package is back, and so is ann's holding of it (entitlements restore additively).
    expect((await a.call('GET', '/api/packages/basic')).body.channels).toEqual(['tv.one'])
    expect((await a.call('GET', '/api/users/ann')).body).toMatchObject({ packages: ['basic'], grants: ['tv.one'] })
    await a.call('PATCH', '/api/vod-config', { apiBase: 'https://vod.example/api', service: 'acme', params: { token: 'provider-secret-token' } })
    const template = (await a.call('GET', '/api/config/template')).body
    expect(Object.keys(template.sections)).toEqual(expect.arrayContaining(['packages', 'vod-config']))
    expect(JSON.stringify(template)).not.toContain('provider-secret-token')
    expect(template.sections['vod-config'].params).toEqual({ token: '' })
    await a.opened.ctx.registries.sources.update((m) => {
      m.prov = { url: 'https://feeds.example/list.m3u?user=u&pass=provider-feed-pass', category: 'Prov', prefix: 'prov.', autoGrant: true, enabled: true, intervalMs: 3_600_000, exclude: [], createdAt: 0 }
    })
    const withSource = (await a.call('GET', '/api/config/template')).body
    expect(JSON.stringify(withSource)).not.toContain('provider-feed-pass')
    expect(withSource.sections.sources.prov).toMatchObject({ url: '', enabled: false, category: 'Prov' })
    expect(withSource.omitted).toEqual(expect.arrayContaining([expect.objectContaining({ section: 'sources', path: 'sources.prov.url' })]))
    expect(template.sections.entitlements).toBeUndefined()
    expect(template.omitted.map((o: { section: string }) => o.section)).toEqual(expect.arrayContaining(['entitlements', 'users']))
  })
})

describe('panel ops', () => {
  it('import each other one way (no cycle among src/ops)', () => {
    const dir = new URL('../src/ops/', import.meta.url)
    const deps = new Map(readdirSync(dir).filter((f) => f.endsWith('.ts')).map((f) => [
      f.replace(/\.ts$/, ''),
      [...readFileSync(new URL(f, dir), 'utf8').matchAll(/^import [^'"]*'\.\/([\w-]+)\.js'/gm)].map((m) => m[1]!)
    ]))
    const cycle = (start: string): boolean => {
      const seen = new Set<string>()
      const walk = (n: string): boolean => (deps.get(n) ?? []).some((d) => d === start || (!seen.has(d) && (seen.add(d), walk(d))))
      return walk(start)
    }
    expect([...deps.keys()].filter(cycle)).toEqual([])
    expect(deps.get('ids')).toEqual([])
  })
})
