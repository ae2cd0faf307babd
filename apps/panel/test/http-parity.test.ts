import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { UserRecord } from '@arus/catalog'
import { createLogger } from '@arus/service'
import { tmpDir } from '@arus/testkit'
import { loadPanelConfig, panelSettings } from '../src/config.js'
import type { PanelContext } from '../src/context.js'
import { openPanel } from '../src/open.js'
import { panelActivity } from '../src/audit.js'
import { cliJson, initPanel, panelEnv } from './helpers.js'
import { adminApi, PNG, type AdminApi } from './http-helpers.js'

// The CLI and the HTTP API call the same ops/ functions (spec 1 "What the service does" 7;
// issue 6 item 4): one scenario through each door, on two DATA_DIRs, must leave the same
// catalog records, minus what is random per panel (keys, salts, sealed boxes, timestamps).

const FEED = 'ab'.repeat(32)
const KEY = 'cd'.repeat(32)

async function throughCli (env: Record<string, string>, png: string): Promise<void> {
  const run = (args: string[], input = '') => cliJson(env, args, input)
  await run(['add-stream', 'news', '--title', 'News', '--category', 'News,Local', '--feed', FEED, '--key', KEY])
  await run(['add-stream', 'sport', '--title', 'Sport'])
  await run(['add-stream', 'tmp'])
  await run(['set-meta', 'news', '--description', 'Daily news', '--featured', 'true', '--order', '5', '--epg-url', 'https://epg.example/guide.xml', '--epg-id', 'news.1'])
  await run(['set-meta', 'sport', '--title', 'Sport HD', '--category', 'Sport', '--order', '9'])
  await run(['set-meta', 'sport', '--order', 'null'])
  await run(['upload-art', 'news', 'poster', png])
  await run(['create-user', 'alice'], 'alice-pw\n')
  await run(['create-user', 'bob'], 'bob-pw\n')
  await run(['create-user', 'carol'], 'carol-pw\n')
  await run(['grant', 'alice', 'news'])
  await run(['grant', 'alice', 'sport'])
  await run(['grant', 'bob', 'news'])
  await run(['grant', 'bob', 'tmp'])
  await run(['revoke', 'alice', 'sport'])
  await run(['set-max-devices', 'bob', '3'])
  await run(['set-status', 'bob', 'disabled'])
  await run(['logout-all', 'alice'])
  await run(['set-password', 'alice'], 'alice-pw2\n')
  await run(['delete-user', 'carol'])
  await run(['delete-stream', 'tmp'])
  await run(['add-publisher', 'site-a', '--scopes', 'news*,sport'])
  await run(['set-publisher-status', 'site-a', 'revoked'])
  await run(['add-admin', 'ops'], 'ops-pw\n')
  await run(['set-admin-password', 'ops'], 'ops-pw2\n')
}

async function throughHttp (a: AdminApi): Promise<void> {
  const ok = async (method: string, url: string, body?: unknown, headers?: Record<string, string>) => {
    const r = await a.call(method, url, body, headers)
    if (r.status >= 300) throw new Error(`${method} ${url} → ${r.status} ${JSON.stringify(r.body)}`)
  }
  await ok('POST', '/api/streams', { id: 'news', title: 'News', category: ['News', 'Local'], feedKey: FEED, key: KEY })
  await ok('POST', '/api/streams', { id: 'sport', title: 'Sport' })
  await ok('POST', '/api/streams', { id: 'tmp' })
  await ok('PATCH', '/api/streams/news', { description: 'Daily news', featured: true, order: 5, epgUrl: 'https://epg.example/guide.xml', epgId: 'news.1' })
  await ok('PATCH', '/api/streams/sport', { title: 'Sport HD', category: ['Sport'], order: 9 })
  await ok('PATCH', '/api/streams/sport', { order: null })
  await ok('POST', '/api/streams/news/art/poster', PNG, { 'content-type': 'image/png' })
  for (const u of ['alice', 'bob', 'carol']) await ok('POST', '/api/users', { username: u, password: `${u}-pw` })
  await ok('POST', '/api/users/alice/grants', { streamId: 'news' })
  await ok('POST', '/api/users/alice/grants', { streamId: 'sport' })
  await ok('POST', '/api/users/bob/grants', { streamId: 'news' })
  await ok('POST', '/api/users/bob/grants', { streamId: 'tmp' })
  await ok('DELETE', '/api/users/alice/grants/sport')
  await ok('POST', '/api/users/bob/max-devices', { maxDevices: 3 })
  await ok('POST', '/api/users/bob/status', { status: 'disabled' })
  await ok('POST', '/api/users/alice/logout-all')
  await ok('POST', '/api/users/alice/password', { password: 'alice-pw2' })
  await ok('DELETE', '/api/users/carol')
  await ok('DELETE', '/api/streams/tmp')
  await ok('POST', '/api/publishers', { name: 'site-a', scopes: ['news*', 'sport'] })
  await ok('POST', '/api/publishers/site-a/status', { status: 'revoked' })
  await ok('POST', '/api/admins', { name: 'ops', password: 'ops-pw' })
  await ok('POST', '/api/admins/ops/password', { password: 'ops-pw2' })
}

/** Records minus per-panel randomness: user secrets and sealed boxes (keep which ids are sealed), timestamps, public keys. */
async function snapshot (ctx: PanelContext) {
  const streams = await ctx.catalog.listStreams()
  const users: Array<{ username: string; record: Omit<UserRecord, 'salt' | 'verifier' | 'pub' | 'encPriv' | 'authPub' | 'wrapped'> & { wrapped: string[] } }> = []
  for (const { username, record } of (await ctx.catalog.listUsers({ limit: 1000 })).users) {
    const { salt: _s, verifier: _v, pub: _p, encPriv: _e, authPub: _a, wrapped, ...rest } = record
    users.push({ username, record: { ...rest, wrapped: Object.keys(wrapped).sort() } })
  }
  const keys = await ctx.registries.streamKeys.all()
  const publishers = Object.entries(await ctx.registries.publishers.all()).map(([name, p]) => ({ name, scopes: p.scopes, status: p.status }))
  const admins = Object.entries(await ctx.admins.entries()).map(([name, x]) => ({ name, tokenVersion: x.tokenVersion, argon: x.argon }))
  return { streams, users, catmeta: await ctx.catalog.listCatMeta(), keyIds: Object.keys(keys).sort(), newsKey: keys.news, publishers, admins }
}

describe('CLI and HTTP parity', () => {
  it('one scenario through the CLI and through the admin API leaves the same catalog records', async (t) => {
    const cliEnv = panelEnv(tmpDir(t, 'panel-parity-cli-'))
    await initPanel(cliEnv)
    await cliJson(cliEnv, ['add-admin', 'root'], 'root-pw\n')
    const png = join(tmpDir(t), 'poster.png')
    await writeFile(png, PNG)
    await throughCli(cliEnv, png)
    const log = createLogger({ name: 'parity', level: 'warn', destination: { write: () => {} } })
    const opened = await openPanel(cliEnv.DATA_DIR!, panelSettings(loadPanelConfig(cliEnv)), { log, activity: panelActivity(log) })
    let viaCli
    try { viaCli = await snapshot(opened.ctx) } finally { await opened.close() }

    const a = await adminApi(t)
    await throughHttp(a)
    const viaHttp = await snapshot(a.opened.ctx)

    expect(viaHttp).toEqual(viaCli)
    // The comparison is not vacuous.
    expect(viaCli.streams.map((s) => s.id)).toEqual(['news', 'sport'])
    expect(viaCli.streams[0]!.record).toMatchObject({ title: 'News', description: 'Daily news', featured: true, order: 5, poster: expect.stringMatching(/^assets\//), epgId: 'news.1' })
    expect(viaCli.users.map((u) => [u.username, u.record.wrapped, u.record.status, u.record.tokenVersion, u.record.maxDevices]))
      .toEqual([['alice', ['news'], 'active', 2, 5], ['bob', [], 'disabled', 2, 3]]) // a disabled account holds no grants (issue 43)
    expect(viaCli.admins.find((x) => x.name === 'ops')).toMatchObject({ tokenVersion: 1 })
  })
})
