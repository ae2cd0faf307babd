import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { collectSecrets, findSecrets } from '@arus/testkit'
import { newStreamRecord } from '../src/ops/stream-meta.js'
import { adminApi, type AdminApi } from './http-helpers.js'
import { openedKeys, stats, streamKeys, userSecret, writtenSince } from './grant-groups-helpers.js'

// Grant groups (issue 43) through the user and stream operations: a password rotation re-seals
// the groups and manual grants to the new key pair, a deleted stream leaves every group and
// grant (a re-added id gets a fresh key), auto-granted channels go through group `auto`, and
// the group keys stay panel-private.

async function lineup (a: AdminApi): Promise<void> {
  for (const id of ['news', 'film', 'kids']) await a.call('POST', '/api/streams', { id })
  await a.call('POST', '/api/packages', { name: 'basic', members: ['news', 'film'] })
  await a.call('POST', '/api/users', { username: 'ann', password: 'ann-pw' })
  await a.call('POST', '/api/users/ann/packages', { packages: ['basic'] })
  await a.call('POST', '/api/users/ann/grants', { streamId: 'kids' })
}

describe('grant groups: users and streams', () => {
  it('a new password re-seals the groups and the manual grants to the new key pair in one write', async (t) => {
    const a = await adminApi(t)
    const ctx = a.opened.ctx
    await lineup(a)
    const old = (await ctx.catalog.getUser('ann'))!
    const before = stats(a)
    await a.call('POST', '/api/users/ann/password', { password: 'ann-new-pw' })
    expect(await writtenSince(ctx, before.length)).toEqual(['user/ann'])
    const now = (await ctx.catalog.getUser('ann'))!
    expect(now.pub).not.toBe(old.pub)
    expect(now.groups!['p.basic']!.key).not.toBe(old.groups!['p.basic']!.key)
    expect(now.wrapped.kids).not.toBe(old.wrapped.kids)
    const keys = await streamKeys(ctx)
    expect(await openedKeys(ctx, 'ann', 'ann-new-pw')).toEqual({ film: keys.film, kids: keys.kids, news: keys.news })
    await expect(userSecret(ctx, 'ann', 'ann-pw')).rejects.toThrow()
  })

  it('a deleted stream leaves the group record and the manual grants; the id re-added comes back under a fresh key', async (t) => {
    const a = await adminApi(t)
    const ctx = a.opened.ctx
    await lineup(a)
    const first = await streamKeys(ctx)
    await a.call('DELETE', '/api/streams/news')
    await a.call('DELETE', '/api/streams/kids')
    expect(Object.keys((await ctx.catalog.getGroup('p.basic'))!.keys)).toEqual(['film'])
    expect((await ctx.catalog.getUser('ann'))!.wrapped).toEqual({})
    expect((await a.call('GET', '/api/users/ann')).body).toMatchObject({ grants: ['film'], manualGrants: [] })
    await a.call('POST', '/api/streams', { id: 'news' })
    await a.call('POST', '/api/streams', { id: 'kids' })
    const second = await streamKeys(ctx)
    expect(second.news).not.toBe(first.news)
    // news is a package member again; kids was a manual grant and stays gone (spec 1 rule 5).
    expect(await openedKeys(ctx, 'ann', 'ann-pw')).toEqual({ film: second.film, news: second.news })
  })

  it('auto-granted channels reach every active user through group auto, listed in its grants', async (t) => {
    const a = await adminApi(t)
    const ctx = a.opened.ctx
    await lineup(a)
    await ctx.registries.sources.update((s) => {
      s.prov = { url: 'https://feeds.invalid/x.json', category: 'Prov', prefix: 'prov.', autoGrant: true, enabled: false, intervalMs: 3_600_000, exclude: [], createdAt: 0 }
    })
    await ctx.catalog.putStream('prov.one', { ...newStreamRecord({ title: 'One' }), source: 'prov' } as never)
    await ctx.registries.streamKeys.update((k) => { k['prov.one'] = 'cd'.repeat(32) })
    await a.call('POST', '/api/users', { username: 'bo', password: 'bo-pw' })
    expect(Object.keys((await ctx.catalog.getUser('bo'))!.groups!)).toEqual(['auto'])
    expect((await a.call('GET', '/api/users/bo')).body.grants).toEqual(['prov.one'])
    const keys = await streamKeys(ctx)
    expect(await openedKeys(ctx, 'ann', 'ann-pw')).toEqual({ film: keys.film, kids: keys.kids, news: keys.news })
    await a.call('POST', '/api/users/ann/packages', { packages: ['basic'] }) // reconciles ann: she joins auto
    expect(await openedKeys(ctx, 'ann', 'ann-pw')).toEqual({ film: keys.film, kids: keys.kids, news: keys.news, 'prov.one': 'cd'.repeat(32) })
    const listed = (await a.call('GET', '/api/users')).body.users.map((u: { username: string; grants: string[] }) => [u.username, u.grants])
    expect(listed).toEqual([['ann', ['film', 'kids', 'news', 'prov.one']], ['bo', ['prov.one']]])
  })

  it('group keys are panel-private: the secret scan knows them, no answer carries one, a planted one is found', async (t) => {
    const a = await adminApi(t)
    await lineup(a)
    const snapshot = (await a.call('POST', '/api/config/snapshots', {})).body
    const secrets = collectSecrets({ panel: a.dataDir })
    const groupKey = JSON.parse(readFileSync(join(a.dataDir, 'private/group-keys.json'), 'utf8')).groups['p.basic'].key as string
    expect(secrets).toContainEqual({ kind: 'grant group key', value: groupKey })
    // A snapshot holds each user's sealed group key: the scan reads those too.
    const sealed = (await a.opened.ctx.catalog.getUser('ann'))!.groups!['p.basic']!.key
    expect(secrets).toContainEqual({ kind: 'user verifier, salt or sealed key (from snapshots)', value: sealed })
    const answers = [
      await a.call('GET', '/api/users'), await a.call('GET', '/api/users/ann'), await a.call('GET', '/api/packages'),
      await a.call('GET', '/api/config/template'), await a.call('GET', `/api/config/snapshots/${snapshot.id as string}`), await a.call('GET', '/api/observability')
    ].map((r) => JSON.stringify(r.body))
    for (const text of answers) expect(findSecrets(text, secrets).filter((s) => s.kind === 'grant group key')).toEqual([])
    expect(findSecrets(`${answers[0]!}${groupKey}`, secrets).map((s) => s.kind)).toContain('grant group key')
  })
})
