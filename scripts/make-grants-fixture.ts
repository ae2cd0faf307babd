/**
 * Makes apps/panel/test/fixtures/panel-before-groups.tar.gz: a panel data directory written by the
 * panel of before issue 43 (every grant sealed into the user's own record), for the migration
 * test (apps/panel/test/grant-groups-migration.test.ts). Run it only with that code: today's
 * panel writes grant groups, so a fixture made now would not be an old one. The fixture's
 * README says which commit made it.
 *
 *   pnpm exec tsc -b && pnpm exec tsx scripts/make-grants-fixture.ts [--out dir]
 *
 * It opens a panel in process (like scripts/bench-lineup.ts) at the test Argon2id cost and makes:
 * - channels `news` (category News), `sport` (Sports), `film`, each with a stream key, and
 *   `prov.one`, a channel imported by source `prov` (autoGrant on, disabled: the daemon never
 *   pulls its made-up URL), with its key;
 * - packages `basic` (news, film; default) and `sports` (category:sports);
 * - users `ann` (basic), `bob` (sports, plus a manual grant of film), `cat` (basic, disabled),
 *   each with a real password; `prov.one` reaches all three through the auto-granting source.
 * It writes the expected grants next to the data directory (`fixture.json`), then packs
 * `panel/` without the corestore's device file (see packages/testkit/fixtures/README.md).
 */
import { execFileSync } from 'node:child_process'
import { register } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'

register('./docs/alias-hooks.mjs', import.meta.url)
const outIndex = process.argv.indexOf('--out')
const OUT = resolve(outIndex >= 0 ? process.argv[outIndex + 1]! : 'apps/panel/test/fixtures')

const { createLogger, ensurePrivateDir } = await import('@arus/service')
const { toHex } = await import('@arus/crypto')
const { newStreamRecord } = await import('../apps/panel/src/ops/stream-meta.js')
const { createIdentity, saveIdentity } = await import('../apps/panel/src/identity.js')
const { panelPaths } = await import('../apps/panel/src/paths.js')
const { loadPanelConfig, panelSettings } = await import('../apps/panel/src/config.js')
const { openPanel } = await import('../apps/panel/src/open.js')
const { panelActivity } = await import('../apps/panel/src/audit.js')
const { addStream } = await import('../apps/panel/src/ops/streams.js')
const { createUser, setStatus } = await import('../apps/panel/src/ops/users.js')
const { grant } = await import('../apps/panel/src/ops/grants.js')
const { addPackage, setUserPackages } = await import('../apps/panel/src/ops/packages.js')
const { reconcileUsers } = await import('../apps/panel/src/ops/entitlements.js')

const root = await mkdtemp(join(tmpdir(), 'arus-grants-fixture-'))
const dir = join(root, 'panel')
const paths = panelPaths(dir)
await ensurePrivateDir(dir)
await ensurePrivateDir(paths.privateDir)
const identity = createIdentity()
await saveIdentity(paths, identity)
const config = loadPanelConfig({ DATA_DIR: dir, ARGON2_MEM_KIB: '8', ARGON2_OPS: '1' })
const log = createLogger({ name: 'fixture', level: 'silent' })
const opened = await openPanel(dir, panelSettings(config), { log, activity: panelActivity(log) })
const ctx = opened.ctx

await addStream(ctx, { id: 'news', title: 'News', category: ['News'] })
await addStream(ctx, { id: 'sport', title: 'Sport', category: ['Sports'] })
await addStream(ctx, { id: 'film', title: 'Film' })
// An imported channel as a sync leaves it (ops/source-sync.ts): the record, its key, the source.
await ctx.registries.sources.update((s) => {
  s.prov = { url: 'https://feeds.invalid/prov.json', category: 'Provider', prefix: 'prov.', autoGrant: true, enabled: false, intervalMs: 21_600_000, exclude: [], createdAt: Date.now() }
})
await ctx.catalog.putStream('prov.one', { ...newStreamRecord({ title: 'Provider one', category: ['Provider'] }), redirect: true, url: 'https://cdn.invalid/one/index.m3u8', isLive: true, status: 'live', source: 'prov' } as never)
await ctx.registries.streamKeys.update((k) => { k['prov.one'] = toHex(crypto.getRandomValues(new Uint8Array(32))) })
await addPackage(ctx, { name: 'basic', label: 'Basic', members: ['news', 'film'], default: true })
await addPackage(ctx, { name: 'sports', members: ['category:sports'] })

const users = {
  ann: { password: 'ann-grants-password', status: 'active' },
  bob: { password: 'bob-grants-password', status: 'active' },
  cat: { password: 'cat-grants-password', status: 'disabled' }
} as const
for (const [username, u] of Object.entries(users)) await createUser(ctx, { username, password: u.password })
await setUserPackages(ctx, 'bob', ['sports'])
await grant(ctx, 'bob', 'film')
await setStatus(ctx, 'cat', 'disabled')
await reconcileUsers(ctx, 'all')

const expected: Record<string, { password: string; status: string; grants: string[] }> = {}
for (const [username, u] of Object.entries(users)) {
  const record = (await ctx.catalog.getUser(username))!
  if ('groups' in record) throw new Error('this panel already writes grant groups: run the script with the code of before issue 43')
  expected[username] = { ...u, grants: Object.keys(record.wrapped).sort() }
}
const stats = ctx.catalog.stats()
await opened.close()
const fixture = {
  panelKey: toHex(identity.publicKey),
  users: expected,
  streamKeys: await ctx.registries.streamKeys.all(),
  catalog: { length: stats.length, byteLength: stats.byteLength }
}
await writeFile(join(OUT, 'panel-before-groups.json'), JSON.stringify(fixture, null, 2) + '\n')
execFileSync('sh', ['-c', 'rm -f panel/store/db/LOG.old.*'], { cwd: root })
execFileSync('tar', ['czf', join(OUT, 'panel-before-groups.tar.gz'), '-C', root, '--exclude=panel/store/CORESTORE', 'panel'])
await rm(root, { recursive: true, force: true })
console.log(JSON.stringify({ out: OUT, ...fixture.catalog, users: Object.fromEntries(Object.entries(expected).map(([u, e]) => [u, e.grants])) }))
