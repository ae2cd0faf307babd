import { describe, expect, it } from 'vitest'
import { fromHex, openGrant, openGroupChannelKey, toHex } from '@arus/crypto'
import { resealStream } from '../src/ops/grants.js'
import { adminApi, type AdminApi } from './http-helpers.js'
import { heldGroupKey, openedKeys, stats, streamKeys, userSecret, writtenSince } from './grant-groups-helpers.js'

// Grant groups (issue 43): lazy revocation. A holder that leaves marks its group stale; the
// next time the group's record would gain a channel or a changed key it rotates (a new
// generation under a fresh key, every current holder re-sealed in the same append), so a
// leaver's kept group key opens nothing added after it left.

async function lineup (a: AdminApi, holders: string[]): Promise<void> {
  for (const id of ['news', 'film', 'sport', 'kids']) await a.call('POST', '/api/streams', { id })
  await a.call('POST', '/api/packages', { name: 'basic', members: ['news', 'film'] })
  for (const u of holders) {
    await a.call('POST', '/api/users', { username: u, password: `${u}-pw` })
    await a.call('POST', `/api/users/${u}/packages`, { packages: ['basic'] })
  }
}

/** Appends to the catalog core while `fn` runs (one per atomic batch). */
async function appendsDuring (a: AdminApi, fn: () => Promise<unknown>): Promise<number> {
  const core = a.opened.ctx.catalog.bee.core
  let n = 0
  const onAppend = () => { n++ }
  core.on('append', onAppend)
  try { await fn() } finally { core.off('append', onAppend) }
  return n
}

const opens = (key: Uint8Array, gen: number, streamId: string, sealed: string): boolean => {
  try { openGroupChannelKey(key, 'p.basic', gen, streamId, sealed); return true } catch { return false }
}

describe('grant groups: revocation', () => {
  it('after a holder leaves, the next channel added rotates the group: holders open it, the leaver\'s kept key does not', async (t) => {
    const a = await adminApi(t)
    const ctx = a.opened.ctx
    await lineup(a, ['ann', 'bob', 'cy'])
    const kept = await heldGroupKey(ctx, 'cy', 'cy-pw', 'p.basic')
    expect(kept.gen).toBe(1)
    await a.call('POST', '/api/users/cy/packages', { packages: [] })
    expect(await ctx.registries.groupKeys.get('p.basic')).toMatchObject({ gen: 1, stale: true })
    // Only losing a channel never rotates.
    await a.call('PATCH', '/api/packages/basic', { members: ['news'] })
    expect((await ctx.catalog.getGroup('p.basic'))!.gen).toBe(1)

    const before = stats(a)
    const appends = await appendsDuring(a, () => a.call('PATCH', '/api/packages/basic', { members: ['news', 'sport'] }))
    expect(appends).toBe(1) // the group record and the holders' re-sealed keys: one atomic append
    expect((await writtenSince(ctx, before.length)).sort()).toEqual(['grp/p.basic', 'user/ann', 'user/bob'])
    expect(await ctx.registries.groupKeys.get('p.basic')).toMatchObject({ gen: 2, stale: false })
    const record = (await ctx.catalog.getGroup('p.basic'))!
    expect(record.gen).toBe(2)
    const keys = await streamKeys(ctx)
    for (const u of ['ann', 'bob']) expect(await openedKeys(ctx, u, `${u}-pw`), u).toEqual({ news: keys.news, sport: keys.sport })
    // The leaver kept its generation-1 key: it opens no entry of the new record, whatever the generation it tries.
    for (const [id, sealed] of Object.entries(record.keys)) {
      expect(opens(kept.key, 1, id, sealed), id).toBe(false)
      expect(opens(kept.key, 2, id, sealed), id).toBe(false)
    }
    expect(await openedKeys(ctx, 'cy', 'cy-pw')).toEqual({})
    // Rotated once: the next channel goes in under generation 2 with no user record written.
    const rotated = stats(a)
    await a.call('PATCH', '/api/packages/basic', { members: ['news', 'sport', 'kids'] })
    expect(await writtenSince(ctx, rotated.length)).toEqual(['grp/p.basic'])
  })

  it('a deleted user and a disabled one mark the group stale too', async (t) => {
    const a = await adminApi(t)
    const ctx = a.opened.ctx
    await lineup(a, ['ann', 'bob'])
    await a.call('DELETE', '/api/users/bob')
    expect(await ctx.registries.groupKeys.get('p.basic')).toMatchObject({ gen: 1, stale: true })
    await a.call('PATCH', '/api/packages/basic', { members: ['news', 'film', 'kids'] })
    expect(await ctx.registries.groupKeys.get('p.basic')).toMatchObject({ gen: 2, stale: false })
    await a.call('POST', '/api/users/ann/status', { status: 'disabled' })
    expect(await ctx.registries.groupKeys.get('p.basic')).toMatchObject({ gen: 2, stale: true })
  })

  it('manual grants survive package changes: members edited away, the package taken away, the package deleted', async (t) => {
    const a = await adminApi(t)
    const ctx = a.opened.ctx
    await lineup(a, ['ann'])
    await a.call('POST', '/api/users/ann/grants', { streamId: 'news' })
    await a.call('POST', '/api/users/ann/grants', { streamId: 'kids' })
    const keys = await streamKeys(ctx)
    expect(Object.keys((await ctx.catalog.getUser('ann'))!.wrapped)).toEqual(['kids', 'news'])
    await a.call('PATCH', '/api/packages/basic', { members: ['film'] })
    expect(await openedKeys(ctx, 'ann', 'ann-pw')).toEqual({ film: keys.film, kids: keys.kids, news: keys.news })
    await a.call('POST', '/api/users/ann/packages', { packages: [] })
    expect(await openedKeys(ctx, 'ann', 'ann-pw')).toEqual({ kids: keys.kids, news: keys.news })
    await a.call('POST', '/api/users/ann/packages', { packages: ['basic'] })
    await a.call('DELETE', '/api/packages/basic')
    expect(await ctx.catalog.getGroup('p.basic')).toBeNull()
    expect(await openedKeys(ctx, 'ann', 'ann-pw')).toEqual({ kids: keys.kids, news: keys.news })
    expect((await a.call('GET', '/api/users/ann')).body).toMatchObject({ grants: ['kids', 'news'], manualGrants: ['kids', 'news'], packages: [] })
  })

  it('a re-keyed stream (a register carried a new key): its group entry and its manual grants follow; a stale group rotates first', async (t) => {
    const a = await adminApi(t)
    const ctx = a.opened.ctx
    await lineup(a, ['ann', 'bob'])
    await a.call('POST', '/api/users/ann/grants', { streamId: 'news' })
    await a.call('POST', '/api/users/bob/packages', { packages: [] })
    const newKey = toHex(crypto.getRandomValues(new Uint8Array(32)))
    await ctx.registries.streamKeys.update((k) => { k.news = newKey })
    const before = stats(a)
    expect(await resealStream(ctx, 'news')).toBe(1)
    expect((await writtenSince(ctx, before.length)).sort()).toEqual(['grp/p.basic', 'user/ann'])
    expect(await ctx.registries.groupKeys.get('p.basic')).toMatchObject({ gen: 2, stale: false })
    const ann = (await ctx.catalog.getUser('ann'))!
    expect(await openedKeys(ctx, 'ann', 'ann-pw')).toMatchObject({ news: newKey })
    // Both routes to the new key: the manual grant and the group entry.
    const group = await heldGroupKey(ctx, 'ann', 'ann-pw', 'p.basic')
    expect(toHex(openGroupChannelKey(group.key, 'p.basic', group.gen, 'news', (await ctx.catalog.getGroup('p.basic'))!.keys.news!))).toBe(newKey)
    expect(toHex(openGrant(ann.wrapped.news!, fromHex(ann.pub, 32), await userSecret(ctx, 'ann', 'ann-pw')))).toBe(newKey)
  })
})
