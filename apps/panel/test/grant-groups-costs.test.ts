import { describe, expect, it } from 'vitest'
import { reconcileUsers } from '../src/ops/reconcile.js'
import { adminApi, type AdminApi } from './http-helpers.js'
import { openedKeys, stats, streamKeys, writtenSince } from './grant-groups-helpers.js'

// Grant groups (issue 43): what an entitlement change costs the append-only catalog, measured
// on the catalog core of an in-process panel, and what the holders can open afterwards.

const HOLDERS = ['h1', 'h2', 'h3', 'h4', 'h5']

async function lineup (a: AdminApi): Promise<void> {
  for (const id of ['news', 'film', 'sport', 'kids']) await a.call('POST', '/api/streams', { id })
  await a.call('POST', '/api/packages', { name: 'basic', members: ['news', 'film'] })
  for (const u of [...HOLDERS, 'other']) await a.call('POST', '/api/users', { username: u, password: `${u}-pw` })
  for (const u of HOLDERS) await a.call('POST', `/api/users/${u}/packages`, { packages: ['basic'] })
}

describe('grant groups: catalog cost', () => {
  it('a reconcile of an unchanged panel appends 0 bytes', async (t) => {
    const a = await adminApi(t)
    await lineup(a)
    await a.call('POST', '/api/users/other/grants', { streamId: 'kids' })
    const before = stats(a)
    const report = await reconcileUsers(a.opened.ctx, 'all')
    expect(report).toMatchObject({ users: 6, written: 0, groups: 0, granted: 0, removed: 0, rotated: [] })
    await a.call('PATCH', '/api/packages/basic', { members: ['film', 'news'] }) // the same channels
    await a.call('POST', '/api/users/h1/packages', { packages: ['basic'] })
    expect(stats(a)).toEqual(before)
  })

  it('adding a channel to a package with 5 holders appends its group record only; every holder opens it', async (t) => {
    const a = await adminApi(t)
    await lineup(a)
    const before = stats(a)
    await a.call('PATCH', '/api/packages/basic', { members: ['news', 'film', 'sport'] })
    const after = stats(a)
    expect(after.length - before.length).toBe(1)
    expect(await writtenSince(a.opened.ctx, before.length)).toEqual(['grp/p.basic'])
    // Three 72-byte entries in hex plus the bee's node: far below one user record per holder.
    expect(after.byteLength - before.byteLength).toBeLessThan(1024)
    const keys = await streamKeys(a.opened.ctx)
    for (const u of HOLDERS) {
      expect(await openedKeys(a.opened.ctx, u, `${u}-pw`), u).toEqual({ film: keys.film, news: keys.news, sport: keys.sport })
      expect((await a.call('GET', `/api/users/${u}`)).body.grants).toEqual(['film', 'news', 'sport'])
    }
    expect(await openedKeys(a.opened.ctx, 'other', 'other-pw')).toEqual({})
    // The entries already there stay byte-identical: only the new one was sealed.
    const record = (await a.opened.ctx.catalog.getGroup('p.basic'))!
    await reconcileUsers(a.opened.ctx, 'all')
    expect(await a.opened.ctx.catalog.getGroup('p.basic')).toEqual(record)
  })

  it('disabling one account appends one record under 1 KiB; it holds nothing until enabled again', async (t) => {
    const a = await adminApi(t)
    await lineup(a)
    await a.call('POST', '/api/users/h1/grants', { streamId: 'kids' })
    const before = stats(a)
    expect((await a.call('POST', '/api/users/h1/status', { status: 'disabled' })).body).toMatchObject({ status: 'disabled', grants: [], packages: ['basic'] })
    const after = stats(a)
    expect(await writtenSince(a.opened.ctx, before.length)).toEqual(['user/h1'])
    expect(after.byteLength - before.byteLength).toBeLessThanOrEqual(1024)
    expect(await a.opened.ctx.catalog.getUser('h1')).toMatchObject({ status: 'disabled', groups: {}, wrapped: {} })
    expect((await a.opened.ctx.registries.groupKeys.get('p.basic'))!.stale).toBe(true)
    // Disabled again: nothing to write.
    await a.call('POST', '/api/users/h1/status', { status: 'disabled' })
    expect(stats(a)).toEqual(after)
    // Enabled: its package and its manual grant are sealed again, in one write.
    await a.call('POST', '/api/users/h1/status', { status: 'active' })
    expect(await writtenSince(a.opened.ctx, after.length)).toEqual(['user/h1'])
    const keys = await streamKeys(a.opened.ctx)
    expect(await openedKeys(a.opened.ctx, 'h1', 'h1-pw')).toEqual({ film: keys.film, kids: keys.kids, news: keys.news })
  })

  it('a new user is one write in the grouped layout; its record carries no package channel', async (t) => {
    const a = await adminApi(t)
    await lineup(a)
    await a.call('PATCH', '/api/packages/basic', { default: true })
    const before = stats(a)
    const created = (await a.call('POST', '/api/users', { username: 'new', password: 'new-pw' })).body
    expect(created).toMatchObject({ packages: ['basic'], grants: ['film', 'news'], manualGrants: [] })
    expect(await writtenSince(a.opened.ctx, before.length)).toEqual(['user/new'])
    const record = (await a.opened.ctx.catalog.getUser('new'))!
    expect(record.wrapped).toEqual({})
    expect(Object.keys(record.groups!)).toEqual(['p.basic'])
  })
})
