/**
 * Lineup benchmark (issue 13 "Done means"): the cost of keeping entitlements and imported
 * lineups in step. Not a test: it measures and prints the rows of docs/benchmarks.md "Lineup".
 *
 *   pnpm exec tsc -b && pnpm exec tsx scripts/bench-lineup.ts [--users 10000] [--channels 500] [--feed 5000]
 *
 * 1. Reconcile: an in-process panel (real store, real Argon2id at test cost) with N users and
 *    M channels; half the users hold package `news` (a category member), half `sports`. One
 *    member edit of `news` (one more channel): wall time, users written, catalog blocks and
 *    bytes appended — only the holders are written.
 * 2. Feed sync: the built panel daemon pulls a F-entry JSON feed from a real HTTPS server on
 *    127.0.0.1 (NODE_EXTRA_CA_CERTS): wall time and catalog bytes of the first sync, then the
 *    same feed again (a changed ETag, so the body is read and diffed) and a 304.
 */
import { register } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { mkdtemp, rm } from 'node:fs/promises'

register('./docs/alias-hooks.mjs', import.meta.url)
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? Number(process.argv[i + 1]) : fallback
}
const USERS = arg('users', 10_000)
const CHANNELS = arg('channels', 500)
const FEED = arg('feed', 5000)

const { createLogger } = await import('@arus/service')
const { cleanupAll, createTestnet, linkToPanel, startHttpsFixture, startPanel } = await import('@arus/testkit')
const { createIdentity, saveIdentity } = await import('../apps/panel/src/identity.js')
const { panelPaths } = await import('../apps/panel/src/paths.js')
const { loadPanelConfig, panelSettings } = await import('../apps/panel/src/config.js')
const { openPanel } = await import('../apps/panel/src/open.js')
const { panelActivity } = await import('../apps/panel/src/audit.js')
const { addStream } = await import('../apps/panel/src/ops/streams.js')
const { createUser } = await import('../apps/panel/src/ops/users.js')
const { addPackage, setPackage } = await import('../apps/panel/src/ops/packages.js')
const { reconcileUsers } = await import('../apps/panel/src/ops/entitlements.js')
const { ensurePrivateDir } = await import('@arus/service')

const rows: string[] = []
const mib = (b: number) => `${(b / 1048576).toFixed(2)} MiB`

// --- 1. reconcile --------------------------------------------------------------------------
{
  const dir = await mkdtemp(join(tmpdir(), 'arus-bench-lineup-'))
  const paths = panelPaths(dir)
  await ensurePrivateDir(dir)
  await ensurePrivateDir(paths.privateDir)
  await saveIdentity(paths, createIdentity())
  const config = loadPanelConfig({ DATA_DIR: dir, ARGON2_MEM_KIB: '8', ARGON2_OPS: '1' })
  const log = createLogger({ name: 'bench', level: 'silent' })
  const opened = await openPanel(dir, panelSettings(config), { log, activity: panelActivity(log) })
  const ctx = opened.ctx
  const t0 = Date.now()
  for (let i = 0; i < CHANNELS; i++) await addStream(ctx, { id: `ch${i}`, category: [i % 2 === 0 ? 'News' : 'Sports'] })
  await addPackage(ctx, { name: 'news', members: ['category:news'] })
  await addPackage(ctx, { name: 'sports', members: ['category:sports'] })
  // One real account, then copies of its record under other names (same size; creating
  // 10,000 accounts one by one measures Argon2id, not the reconcile).
  await createUser(ctx, { username: 'u0', password: 'pw' })
  const template = (await ctx.catalog.getUser('u0'))!
  for (let i = 1; i < USERS; i++) await ctx.catalog.putUser(`u${i}`, { ...template, wrapped: {} })
  await ctx.registries.entitlements.update((users) => {
    for (let i = 0; i < USERS; i++) users[`u${i}`] = { packages: [i % 2 === 0 ? 'news' : 'sports'], manual: [] }
  })
  await reconcileUsers(ctx, 'all')
  console.error(`[bench] set up ${USERS} users and ${CHANNELS} channels in ${((Date.now() - t0) / 1000).toFixed(0)} s`)
  const before = ctx.catalog.stats()
  const started = performance.now()
  await setPackage(ctx, 'news', { members: ['category:news', 'ch1'] })
  const ms = performance.now() - started
  const after = ctx.catalog.stats()
  const written = after.length - before.length
  rows.push(`| reconcile after one package member edit (${USERS} users, ${CHANNELS} channels, ${USERS / 2} holders) | ${(ms / 1000).toFixed(2)} s | ${written} users written | ${mib(after.byteLength - before.byteLength)} appended (${written} blocks) |`)
  const again = performance.now()
  await setPackage(ctx, 'news', { members: ['ch1', 'category:news'] })
  const after2 = ctx.catalog.stats()
  rows.push(`| the same members again (order changed) | ${((performance.now() - again) / 1000).toFixed(2)} s | ${after2.length - after.length} users written | ${after2.byteLength - after.byteLength} bytes appended |`)
  await opened.close()
  await rm(dir, { recursive: true, force: true })
}

// --- 2. feed sync ---------------------------------------------------------------------------
{
  const testnet = await createTestnet()
  const feeds = await startHttpsFixture(undefined)
  const panel = await startPanel(undefined, { testnet, env: { NODE_EXTRA_CA_CERTS: feeds.caFile, SOURCES_MAX_CHANNELS: String(FEED + 10) } })
  const link = await linkToPanel({ onTestFinished: () => {} }, testnet, panel.panelKey)
  const body = JSON.stringify({ channels: Array.from({ length: FEED }, (_, i) => ({ id: `c${i}`, name: `Channel ${i}`, url: `https://cdn.example/${i}/index.m3u8`, logo: `https://img.example/${i}.png` })) })
  feeds.set('/big.json', { body, etag: '"v1"' })
  const core = async () => { await link.reader.update({ wait: true }); return { length: link.reader.bee.core.length, byteLength: link.reader.bee.core.byteLength } }
  await panel.api('POST', '/api/sources', { name: 'big', url: feeds.url('/big.json'), category: 'Big', autoGrant: false, enabled: false }).catch(() => null)
  // The POST synced already; measure a clean first sync on a second source of the same feed.
  await panel.api('DELETE', '/api/sources/big')
  let before = await core()
  let started = performance.now()
  await panel.api('POST', '/api/sources', { name: 'big', url: feeds.url('/big.json'), category: 'Big', autoGrant: false, enabled: false })
  let after = await core()
  rows.push(`| first sync of a ${FEED}-entry JSON feed (${mib(body.length)}) | ${((performance.now() - started) / 1000).toFixed(2)} s | ${FEED} channels added | ${mib(after.byteLength - before.byteLength)} appended (${after.length - before.length} blocks) |`)
  feeds.set('/big.json', { body, etag: '"v2"' })
  before = after
  started = performance.now()
  await panel.api('POST', '/api/sources/big/sync')
  after = await core()
  rows.push(`| the same feed again (new ETag: read and diffed) | ${((performance.now() - started) / 1000).toFixed(2)} s | 0 changed | ${after.byteLength - before.byteLength} bytes appended |`)
  started = performance.now()
  const r = await panel.api('POST', '/api/sources/big/sync')
  const after304 = await core()
  rows.push(`| the same feed, 304 on the stored ETag | ${((performance.now() - started) / 1000).toFixed(2)} s | notModified ${String(r.notModified)} | ${after304.byteLength - after.byteLength} bytes appended |`)
  await cleanupAll()
}

console.log('| Case | Wall time | Work | Catalog cost |\n|---|---|---|---|\n' + rows.join('\n'))
