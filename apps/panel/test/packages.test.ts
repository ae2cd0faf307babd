import { describe, expect, it } from 'vitest'
import { newStreamRecord } from '../src/ops/stream-meta.js'
import { adminApi, type AdminApi } from './http-helpers.js'

// Channel packages (issue 13 item 1) through the admin API of an in-process panel: member
// kinds, default packages, reconcile on member edits and stream changes, provenance, and
// the catalog cost of a reconcile (only affected users are written, each once).

async function lineup (a: AdminApi): Promise<void> {
  await a.call('POST', '/api/streams', { id: 'news', category: ['Info'] })
  await a.call('POST', '/api/streams', { id: 'tv.one' })
  await a.call('POST', '/api/streams', { id: 'tv.two' })
  await a.call('POST', '/api/streams', { id: 'match', category: ['Sports'] })
  await a.call('POST', '/api/streams', { id: 'other' })
  // A channel imported by a source carries its name (sources write it; here by hand).
  await a.opened.ctx.catalog.putStream('prov.1', { ...newStreamRecord({ title: 'Imported' }), source: 'prov' } as never)
  await a.opened.ctx.registries.streamKeys.update((k) => { k['prov.1'] = 'ab'.repeat(32) })
}

const grantsOf = async (a: AdminApi, u: string) => (await a.call('GET', `/api/users/${u}`)).body.grants as string[]
const stats = (a: AdminApi) => { const s = a.opened.ctx.catalog.stats(); return { length: s.length, byteLength: s.byteLength } }

describe('packages', () => {
  it('resolves every member kind: ids, id globs, category:<slug>, source:<name>', async (t) => {
    const a = await adminApi(t)
    await lineup(a)
    const created = await a.call('POST', '/api/packages', { name: 'all-kinds', label: 'All kinds', members: ['news', 'tv.*', 'category:sports', 'source:prov', 'missing'] })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ name: 'all-kinds', channels: ['match', 'news', 'prov.1', 'tv.one', 'tv.two'], channelCount: 5, holders: 0, default: false })
    expect((await a.call('POST', '/api/packages', { name: 'all-kinds' })).body.error.code).toBe('PANEL_EXISTS')
    expect((await a.call('POST', '/api/packages', { name: 'bad', members: ['no spaces allowed'] })).status).toBe(400)
    expect((await a.call('GET', '/api/packages')).body.packages.map((p: { name: string }) => p.name)).toEqual(['all-kinds'])
    expect((await a.call('GET', '/api/packages/nope')).status).toBe(404)
  })

  it('default packages reach every new user in its first write; provenance is real', async (t) => {
    const a = await adminApi(t)
    await lineup(a)
    await a.call('POST', '/api/packages', { name: 'basic', members: ['tv.*'], default: true })
    await a.call('POST', '/api/packages', { name: 'extra', members: ['match'] })
    const before = stats(a)
    const u = (await a.call('POST', '/api/users', { username: 'ann', password: 'ann-pw' })).body
    expect(u).toMatchObject({ packages: ['basic'], grants: ['tv.one', 'tv.two'], manualGrants: [] })
    expect(stats(a).length - before.length).toBe(1)
    await a.call('POST', '/api/users/ann/grants', { streamId: 'news' })
    expect((await a.call('GET', '/api/users/ann')).body).toMatchObject({ grants: ['news', 'tv.one', 'tv.two'], manualGrants: ['news'] })
    const set = await a.call('POST', '/api/users/ann/packages', { packages: ['basic', 'extra'] })
    expect(set.body).toMatchObject({ packages: ['basic', 'extra'], grants: ['match', 'news', 'tv.one', 'tv.two'] })
    expect((await a.call('POST', '/api/users/ann/packages', { packages: ['ghost'] })).body.error.code).toBe('PANEL_NOT_FOUND')
  })

  it('a member edit reaches every holder, writing one group record and no user', async (t) => {
    const a = await adminApi(t)
    await lineup(a)
    await a.call('POST', '/api/packages', { name: 'basic', members: ['news'] })
    for (const u of ['h1', 'h2', 'h3']) {
      await a.call('POST', '/api/users', { username: u, password: 'pw' })
      await a.call('POST', `/api/users/${u}/packages`, { packages: ['basic'] })
    }
    await a.call('POST', '/api/users', { username: 'bystander', password: 'pw' })
    let before = stats(a)
    const edited = await a.call('PATCH', '/api/packages/basic', { members: ['news', 'category:sports'] })
    expect(edited.body).toMatchObject({ channels: ['match', 'news'], holders: 3 })
    // One block: the package's group record (issue 43); the holders' records are untouched.
    expect(stats(a).length - before.length).toBe(1)
    for (const u of ['h1', 'h2', 'h3']) expect(await grantsOf(a, u)).toEqual(['match', 'news'])
    expect(await grantsOf(a, 'bystander')).toEqual([])
    // A label edit, or the same members again, writes no user.
    before = stats(a)
    await a.call('PATCH', '/api/packages/basic', { label: 'Basic' })
    await a.call('PATCH', '/api/packages/basic', { members: ['category:sports', 'news'] })
    expect(stats(a)).toEqual(before)
    expect((await a.call('PATCH', '/api/packages/basic', {})).status).toBe(400)
  })

  it('a stream added or re-categorized into a package joins its holders at once', async (t) => {
    const a = await adminApi(t)
    await lineup(a)
    await a.call('POST', '/api/packages', { name: 'tv', members: ['tv.*', 'category:kids'] })
    await a.call('POST', '/api/users', { username: 'kim', password: 'pw' })
    await a.call('POST', '/api/users/kim/packages', { packages: ['tv'] })
    await a.call('POST', '/api/streams', { id: 'tv.three' })
    expect(await grantsOf(a, 'kim')).toEqual(['tv.one', 'tv.three', 'tv.two'])
    await a.call('PATCH', '/api/streams/other', { category: ['Kids'] })
    expect(await grantsOf(a, 'kim')).toContain('other')
    await a.call('PATCH', '/api/streams/other', { category: [] })
    expect(await grantsOf(a, 'kim')).not.toContain('other')
    await a.call('DELETE', '/api/streams/tv.three')
    expect(await grantsOf(a, 'kim')).toEqual(['tv.one', 'tv.two'])
  })

  it('a grant delete keeps a still-covered id and says so; a package delete keeps manual and other-package grants', async (t) => {
    const a = await adminApi(t)
    await lineup(a)
    await a.call('POST', '/api/packages', { name: 'basic', members: ['news', 'match'] })
    await a.call('POST', '/api/packages', { name: 'sports', members: ['match'] })
    await a.call('POST', '/api/users', { username: 'lee', password: 'pw' })
    await a.call('POST', '/api/users/lee/grants', { streamId: 'news' })
    await a.call('POST', '/api/users/lee/grants', { streamId: 'other' })
    await a.call('POST', '/api/users/lee/packages', { packages: ['basic', 'sports'] })
    const kept = await a.call('DELETE', '/api/users/lee/grants/news')
    expect(kept.body).toEqual({ changed: true, stillGranted: true, coveredBy: ['package:basic'] })
    expect(await grantsOf(a, 'lee')).toEqual(['match', 'news', 'other'])
    expect((await a.call('GET', '/api/users/lee')).body.manualGrants).toEqual(['other'])
    await a.call('POST', '/api/users/lee/grants', { streamId: 'news' })
    expect((await a.call('DELETE', '/api/packages/basic')).body).toEqual({ deleted: 'basic' })
    // news stays (manual), match stays (sports), other stays (manual).
    expect((await a.call('GET', '/api/users/lee')).body).toMatchObject({ packages: ['sports'], grants: ['match', 'news', 'other'] })
    await a.call('DELETE', '/api/packages/sports')
    expect(await grantsOf(a, 'lee')).toEqual(['news', 'other'])
    const gone = await a.call('DELETE', '/api/users/lee/grants/other')
    expect(gone.body).toEqual({ changed: true, stillGranted: false, coveredBy: [] })
    expect(await grantsOf(a, 'lee')).toEqual(['news'])
    const reasons = (await a.call('GET', '/api/config/snapshots')).body.snapshots.map((s: { reason: string }) => s.reason)
    expect(reasons).toEqual(expect.arrayContaining(['before-remove package basic', 'before-remove package sports']))
  })
})
