/**
 * Lineup benchmark (issue 13 "Done means", issue 43): the cost of keeping entitlements and
 * imported lineups in step. Not a test: it measures and prints the rows of docs/benchmarks.md
 * "Lineup".
 *
 *   pnpm exec tsc -b && pnpm exec tsx scripts/bench-lineup.ts [--users 10000] [--channels 500] [--feed 5000]
 *
 * 1. Reconcile: an in-process panel (real store, real Argon2id at test cost) with N users and
 *    M channels; half the users hold package `news` (a category member), half `sports`. Grants
 *    go through grant groups (docs/architecture.md "Grants and the catalog"): measured, with
 *    wall time, user records written and catalog blocks and bytes appended —
 *    (a) one member edit of `news` (one more channel), (b) the same members again,
 *    (c) disabling one holder, (d) the next member edit (the group is stale: it rotates and
 *    every remaining holder's group key is sealed again), (e) a login's catalog read: a fresh
 *    replica (its own store, replicating over an in-process pipe) reads one holder's user record
 *    and its group record, as the SDK does; the blocks it downloaded (the records, and the B-tree path to them: hyperbee keeps each
 *    key in its entry's block, so a lookup reads neighbouring entries), wire bytes and time.
 * 2. Feed sync: the built panel daemon pulls a F-entry JSON feed from a real HTTPS server on
 *    127.0.0.1 (NODE_EXTRA_CA_CERTS): wall time and catalog bytes of the first sync, then the
 *    same feed again (a changed ETag, so the body is read and diffed) and a 304.
 */
import { register } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Transform } from 'node:stream'
import { mkdtemp, rm } from 'node:fs/promises'

register('./docs/alias-hooks.mjs', import.meta.url)
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? Number(process.argv[i + 1]) : fallback
}
const USERS = arg('users', 10_000)
const CHANNELS = arg('channels', 500)
const FEED = arg('feed', 5000)

const { openCatalogReader } = await import('@arus/catalog')
const { createLogger } = await import('@arus/service')
const { cleanupAll, createTestnet, linkToPanel, startHttpsFixture, startPanel, tmpStore } = await import('@arus/testkit')
const { createIdentity, saveIdentity } = await import('../apps/panel/src/identity.js')
const { panelPaths } = await import('../apps/panel/src/paths.js')
const { loadPanelConfig, panelSettings } = await import('../apps/panel/src/config.js')
const { openPanel } = await import('../apps/panel/src/open.js')
const { panelActivity } = await import('../apps/panel/src/audit.js')
const { addStream } = await import('../apps/panel/src/ops/streams.js')
const { createUser, setStatus } = await import('../apps/panel/src/ops/users.js')
const { addPackage, setPackage } = await import('../apps/panel/src/ops/packages.js')
const { reconcileUsers } = await import('../apps/panel/src/ops/reconcile.js')
const { ensurePrivateDir } = await import('@arus/service')

const rows: string[] = []
const mib = (b: number) => `${(b / 1048576).toFixed(2)} MiB`
const kib = (b: number) => `${(b / 1024).toFixed(1)} KiB`
const bytes = (b: number) => (b < 10_240 ? `${b} bytes` : b < 2 * 1048576 ? kib(b) : mib(b))
const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`

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
  for (let i = 1; i < USERS; i++) await ctx.catalog.putUser(`u${i}`, { ...template, wrapped: {}, groups: {} })
  await ctx.registries.entitlements.update((users) => {
    for (let i = 0; i < USERS; i++) users[`u${i}`] = { packages: [i % 2 === 0 ? 'news' : 'sports'], manual: [] }
  })
  await reconcileUsers(ctx, 'all')
  console.error(`[bench] set up ${USERS} users and ${CHANNELS} channels in ${((Date.now() - t0) / 1000).toFixed(0)} s`)
  const measure = async (fn: () => Promise<unknown>) => {
    const before = ctx.catalog.stats()
    const started = performance.now()
    await fn()
    const ms = performance.now() - started
    const after = ctx.catalog.stats()
    return { ms, blocks: after.length - before.length, bytes: after.byteLength - before.byteLength }
  }
  const holders = USERS / 2
  const usersWritten = (m: { blocks: number }, groupRecords: number) => `${m.blocks - groupRecords} users written, ${groupRecords} group record${groupRecords === 1 ? '' : 's'}`
  const a = await measure(() => setPackage(ctx, 'news', { members: ['category:news', 'ch1'] }))
  rows.push(`| (a) one package member edit: one more channel for ${holders} holders (${USERS} users, ${CHANNELS} channels) | ${secs(a.ms)} | ${usersWritten(a, 1)} | ${bytes(a.bytes)} appended (${a.blocks} block${a.blocks === 1 ? '' : 's'}) |`)
  const b = await measure(() => setPackage(ctx, 'news', { members: ['ch1', 'category:news'] }))
  rows.push(`| (b) the same members again (order changed) | ${secs(b.ms)} | ${b.blocks} written | ${b.bytes} bytes appended |`)
  const c = await measure(() => setStatus(ctx, 'u0', 'disabled'))
  rows.push(`| (c) disabling one account (a holder of the edited package) | ${secs(c.ms)} | ${c.blocks} user written | ${c.bytes} bytes appended (${c.blocks} block) |`)
  const d = await measure(() => setPackage(ctx, 'news', { members: ['category:news', 'ch1', 'ch3'] }))
  rows.push(`| (d) the next member edit, after that holder left: the group rotates (one batch) | ${secs(d.ms)} | ${usersWritten(d, 1)} | ${bytes(d.bytes)} appended (${d.blocks} blocks) |`)

  // (e) A fresh replica reads one holder's user record and the group records it names, as the
  // SDK's login does (docs/architecture.md "Grants and the catalog").
  {
    const replicaStore = tmpStore() // removed by cleanupAll below
    const reader = openCatalogReader({ store: replicaStore, panelPublicKey: ctx.identity.publicKey })
    let wire = 0
    const counter = new Transform({ transform (chunk: Buffer, _enc, cb) { wire += chunk.length; cb(null, chunk) } })
    const panelSide = opened.store.replicate(true)
    const replicaSide = replicaStore.replicate(false)
    panelSide.pipe(counter).pipe(replicaSide).pipe(panelSide)
    await reader.ready()
    await reader.update({ wait: true })
    const core = reader.bee.core
    const local = async () => { const have = new Set<number>(); for (let i = 0; i < core.length; i++) if (await core.has(i)) have.add(i); return have }
    const before = await local()
    const wireBefore = wire
    const started = performance.now()
    const user = (await reader.getUser('u2'))!
    const groups = await Promise.all(Object.keys(user.groups ?? {}).map((id) => reader.getGroup(id)))
    const readMs = performance.now() - started
    const channels = groups.reduce((n, g) => n + Object.keys(g?.keys ?? {}).length, 0)
    const wanted = new Set(['user/u2', ...Object.keys(user.groups ?? {}).map((id) => `grp/${id}`)])
    let blocks = 0
    let recordBytes = 0
    let pathBytes = 0
    for (const i of await local()) {
      if (before.has(i)) continue
      blocks++
      const size = (await core.get(i, { wait: false }) as Buffer).byteLength
      const entry = await ctx.catalog.bee.getBySeq(i)
      const latest = entry !== null && wanted.has(entry.key as string) ? await ctx.catalog.bee.get(entry.key as string) : null
      if (latest !== null && latest.seq === i) recordBytes += size
      else pathBytes += size
    }
    rows.push(`| (e) a login's catalog read on a fresh replica: the user record and its ${groups.length} group record (${channels} channels) | ${(readMs / 1000).toFixed(3)} s | ${blocks} blocks downloaded | ${bytes(recordBytes + pathBytes)} of blocks (the two records ${bytes(recordBytes)}, the tree's path to them ${bytes(pathBytes)}), ${bytes(wire - wireBefore)} on the wire |`)
    panelSide.destroy()
    replicaSide.destroy()
    await reader.close()
  }
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
