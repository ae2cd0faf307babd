import { z } from 'zod'
import { CatMetaRecord, StreamRecord, UserRecord, VodConfigRecord, type CatalogWriter } from '@arus/catalog'
import type { ConfigSection, SectionPlan } from '@arus/config-snapshots'
import { randomBytes, toHex } from '@arus/crypto'
import type { PanelCore } from './context.js'
import { AUTO_GROUP, loadLineup, packageGroupId } from './ops/entitlements.js'
import { grantedIds } from './ops/materialize.js'
import { holdersOf, reconcileUsers } from './ops/reconcile.js'
import { purgeStream } from './ops/streams.js'
import { allUsers } from './ops/user-scan.js'
import { groupRecordsOf, purgeUser } from './ops/users.js'
import { Entitlement, PackageEntry, PublisherEntry, SourceEntry } from './registries.js'

/**
 * The panel's config sections (spec 1 "Config snapshots, templates, backups"), applied in
 * this order: categories, streams (records and private stream keys), packages, the VOD
 * provider settings, remote sources (restored to the registry: the running panel's scheduler
 * syncs them; removed ones leave their channels to it), publishers
 * (metadata; enrollments are never written back), the users' grant provenance and the users
 * with their grants (both snapshot only).
 *
 * Restore rules, the same code path for plan (dryRun) and restore:
 * - additive: what the snapshot has and the panel lacks is added; an existing stream's
 *   operator fields (title, description, category, order, featured, art, EPG) are set back;
 *   `removeExtra` also removes what the snapshot lacks;
 * - a live per-stream key is never overwritten (a differing one is reported as skipped);
 * - a restored user keeps its verifier and keys (same password), gets its grants sealed anew
 *   from the restored provenance (grant groups and manual grants, issue 43) under the keys
 *   the panel holds after the restore, no devices, and a bumped tokenVersion (sessions from
 *   before the deletion stay ended); an existing user that lacks a grant or a group its
 *   snapshot held is reconciled (it gains what its restored provenance covers);
 * - packages and grant provenance are written back without a reconcile of their own (so plan
 *   and restore report the same): the users section ends with one reconcile of everything the
 *   restore touched — the restored packages' groups and holders, the users whose provenance
 *   came back, the users it added or changed;
 * - a template import recreates structure only: streams get new keys, no users, no
 *   publisher enrollments.
 * Catalog writes go through put-if-changed, so an unchanged record costs no bytes.
 */

const Hex32 = z.string().regex(/^[0-9a-f]{64}$/)

const StreamsData = z.record(z.string(), z.object({ record: StreamRecord, key: Hex32.nullable() }))
type StreamsData = z.infer<typeof StreamsData>
const CategoriesData = z.array(CatMetaRecord)
type CategoriesData = z.infer<typeof CategoriesData>
const PublishersData = z.record(z.string(), PublisherEntry.partial({ publicKey: true }))
type PublishersData = z.infer<typeof PublishersData>
const VodData = VodConfigRecord.nullable()
type VodData = z.infer<typeof VodData>
const SourcesData = z.record(z.string(), SourceEntry.extend({ url: z.string() }))
type SourcesData = z.infer<typeof SourcesData>
const PackagesData = z.record(z.string(), PackageEntry)
type PackagesData = z.infer<typeof PackagesData>
const EntitlementsData = z.record(z.string(), Entitlement)
type EntitlementsData = z.infer<typeof EntitlementsData>
const UsersData = z.record(z.string(), UserRecord)
type UsersData = z.infer<typeof UsersData>

/** Fields an operator sets on a stream; the rest (feed keys, live state, origin) belongs to registers. */
const OPERATOR_FIELDS = ['title', 'description', 'category', 'order', 'featured', 'restricted', 'poster', 'backdrop', 'logo', 'epgUrl', 'epgId'] as const
const ART_FIELDS = ['poster', 'backdrop', 'logo'] as const

const emptyPlan = (): SectionPlan => ({ added: [], changed: [], leftAlone: [], removed: [], skipped: [], warnings: [] })
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/** A stream record as a template carries it: structure only, no feed, no live state. */
function structureOnly (r: StreamRecord): StreamRecord {
  const base = { ...r, feedKey: null, blobsKey: null, origin: null }
  return (r.type === 'live' ? { ...base, isLive: r.redirect, status: r.redirect ? 'live' : 'idle' } : { ...base, status: 'unavailable' }) as StreamRecord
}

async function withOperatorFields (ctx: PanelCore, current: StreamRecord, wanted: StreamRecord, warnings: string[], id: string): Promise<StreamRecord> {
  const next: Record<string, unknown> = { ...current }
  for (const f of OPERATOR_FIELDS) {
    if (wanted[f] === undefined) delete next[f]
    else next[f] = wanted[f]
  }
  return await dropMissingArt(ctx, next as StreamRecord, warnings, id)
}

/** Art whose file left the assets drive (purged with its last record) is cleared, with a warning. */
async function dropMissingArt (ctx: PanelCore, r: StreamRecord, warnings: string[], id: string): Promise<StreamRecord> {
  const next: Record<string, unknown> = { ...r }
  for (const f of ART_FIELDS) {
    const path = r[f]
    if (path === '' || /^https:/.test(path)) continue
    if (!(await ctx.assets.entry('/' + path))) {
      next[f] = ''
      warnings.push(`stream ${id}: ${f} file is gone from the assets drive; upload it again`)
    }
  }
  return next as StreamRecord
}

/** Users of the catalog, as a map. */
async function usersMap (ctx: PanelCore): Promise<UsersData> {
  const out: UsersData = {}
  for await (const { username, record } of allUsers(ctx)) out[username] = record
  return out
}

async function catMetas (catalog: CatalogWriter): Promise<CategoriesData> {
  return (await catalog.listCatMeta()).sort((a, b) => (a.slug < b.slug ? -1 : 1))
}

/** The panel's sections over `ctx`. */
export function panelConfigSections (ctx: PanelCore): ConfigSection<any>[] {
  /** Stream keys the panel holds once the streams section ran (or would run, in a plan): the users section seals grants with them. */
  let keysAfter = new Map<string, string>()
  /** Package names once the packages section ran (or would run): the groups a restored user can hold. */
  let packagesAfter: Set<string> | null = null
  /** Users whose grants the packages and entitlements sections changed: the users section reconciles them. */
  let touchedUsers = new Set<string>()

  const categories: ConfigSection<CategoriesData> = {
    name: 'categories',
    describe: 'category presentation: rename, merge, order, hidden',
    schema: CategoriesData,
    export: () => catMetas(ctx.catalog),
    toTemplate: (data) => ({ data, omitted: [] }),
    async apply (data, { dryRun, removeExtra }) {
      const plan = emptyPlan()
      const live = new Map((await catMetas(ctx.catalog)).map((m) => [m.slug, m]))
      for (const m of data) {
        const cur = live.get(m.slug)
        if (cur !== undefined && same(cur, m)) { plan.leftAlone.push(m.slug); continue }
        ;(cur === undefined ? plan.added : plan.changed).push(m.slug)
        if (!dryRun) await ctx.catalog.putCatMeta(m)
      }
      if (removeExtra) {
        const wanted = new Set(data.map((m) => m.slug))
        for (const slug of live.keys()) {
          if (wanted.has(slug)) continue
          plan.removed.push(slug)
          if (!dryRun) await ctx.catalog.deleteCatMeta(slug)
        }
      }
      return plan
    }
  }

  const streams: ConfigSection<StreamsData> = {
    name: 'streams',
    describe: 'stream records and their private stream keys (keys never in a template)',
    schema: StreamsData,
    async export () {
      const keys = await ctx.registries.streamKeys.all()
      const out: StreamsData = {}
      for (const { id, record } of await ctx.catalog.listStreams()) out[id] = { record, key: Object.hasOwn(keys, id) ? keys[id]! : null }
      return out
    },
    toTemplate (data) {
      const omitted: Array<{ path: string; reason: string }> = []
      const out: StreamsData = {}
      for (const [id, { record, key }] of Object.entries(data)) {
        if (key !== null) omitted.push({ path: `streams.${id}.key`, reason: 'stream key (secret): an import generates a new one' })
        out[id] = { record: structureOnly(record), key: null }
      }
      return { data: out, omitted }
    },
    async apply (data, { dryRun, removeExtra, source }) {
      const plan = emptyPlan()
      const liveKeys = await ctx.registries.streamKeys.all()
      keysAfter = new Map(Object.entries(liveKeys))
      const newKeys: Record<string, string> = {}
      for (const [id, { record, key }] of Object.entries(data)) {
        const current = await ctx.catalog.getStream(id)
        const liveKey = Object.hasOwn(liveKeys, id) ? liveKeys[id] : undefined
        let keyNote = ''
        if (liveKey === undefined) {
          const k = source === 'snapshot' && key !== null ? key : toHex(randomBytes(32))
          newKeys[id] = k
          keysAfter.set(id, k)
          if (current !== null) keyNote = 'key'
        } else if (source === 'snapshot' && key !== null && key !== liveKey) {
          plan.skipped.push({ id: `${id}.key`, reason: 'a live stream key is never overwritten' })
        }
        if (current === null) {
          plan.added.push(id)
          const restored = await dropMissingArt(ctx, source === 'template' ? structureOnly(record) : record, plan.warnings, id)
          if (!dryRun) await ctx.catalog.putStream(id, restored)
          continue
        }
        const next = await withOperatorFields(ctx, current, record, plan.warnings, id)
        if (same(next, current) && keyNote === '') { plan.leftAlone.push(id); continue }
        plan.changed.push(keyNote !== '' && same(next, current) ? `${id}.key` : id)
        if (!dryRun) await ctx.catalog.putStream(id, next)
      }
      if (!dryRun && Object.keys(newKeys).length > 0) {
        await ctx.registries.streamKeys.update((keys) => { for (const [id, k] of Object.entries(newKeys)) if (!Object.hasOwn(keys, id)) keys[id] = k })
      }
      if (removeExtra) {
        for (const { id } of await ctx.catalog.listStreams()) {
          if (Object.hasOwn(data, id)) continue
          plan.removed.push(id)
          keysAfter.delete(id)
          if (!dryRun) await purgeStream(ctx, id)
        }
      }
      return plan
    }
  }

  const publishers: ConfigSection<PublishersData> = {
    name: 'publishers',
    describe: 'publisher enrollments (metadata; never written back: enroll again)',
    schema: PublishersData,
    export: () => ctx.registries.publishers.all(),
    toTemplate (data) {
      const omitted = Object.keys(data).map((name) => ({ path: `publishers.${name}.publicKey`, reason: 'enrollment key: enroll the publisher again with add-publisher' }))
      return { data: Object.fromEntries(Object.entries(data).map(([name, { publicKey: _k, ...rest }]) => [name, rest])), omitted }
    },
    async apply (data) {
      const plan = emptyPlan()
      const live = await ctx.registries.publishers.all()
      for (const [name, p] of Object.entries(data)) {
        const cur = Object.hasOwn(live, name) ? live[name] : undefined
        if (cur !== undefined && (p.publicKey === undefined || cur.publicKey === p.publicKey) && same(cur.scopes, p.scopes) && cur.status === p.status) plan.leftAlone.push(name)
        else plan.skipped.push({ id: name, reason: 'publisher enrollments are never written back: enroll it again with add-publisher' })
      }
      return plan
    }
  }

  const packages: ConfigSection<PackagesData> = {
    name: 'packages',
    describe: 'channel packages (members, label, default)',
    schema: PackagesData,
    export: () => ctx.registries.packages.all(),
    toTemplate: (data) => ({ data, omitted: [] }),
    async apply (data, { dryRun, removeExtra }) {
      const plan = emptyPlan()
      const live = await ctx.registries.packages.all()
      const touched: string[] = []
      for (const [name, p] of Object.entries(data)) {
        const cur = Object.hasOwn(live, name) ? live[name] : undefined
        if (cur !== undefined && same(cur, p)) { plan.leftAlone.push(name); continue }
        ;(cur === undefined ? plan.added : plan.changed).push(name)
        touched.push(name)
      }
      const extra = removeExtra ? Object.keys(live).filter((n) => !Object.hasOwn(data, n)) : []
      plan.removed.push(...extra)
      packagesAfter = new Set([...Object.keys(live), ...Object.keys(data)].filter((n) => !extra.includes(n)))
      touchedUsers = new Set()
      if (dryRun || (touched.length === 0 && extra.length === 0)) return plan
      for (const u of await holdersOf(ctx, [...touched, ...extra])) touchedUsers.add(u)
      await ctx.registries.packages.update((map) => {
        for (const n of touched) map[n] = data[n]!
        for (const n of extra) delete map[n]
      })
      if (extra.length > 0) {
        await ctx.registries.entitlements.update((users) => {
          for (const [u, e] of Object.entries(users)) if (e.packages.some((p) => extra.includes(p))) users[u] = { ...e, packages: e.packages.filter((p) => !extra.includes(p)) }
        })
      }
      return plan
    }
  }

  const vod: ConfigSection<VodData> = {
    name: 'vod-config',
    describe: 'the external VOD provider settings (svcmeta/vod); params never in a template',
    schema: VodData,
    export: () => ctx.catalog.getVodConfig(),
    toTemplate (data) {
      if (data === null || Object.keys(data.params).length === 0) return { data, omitted: [] }
      // Provider params often carry an account token: a template keeps their names, not their values.
      return {
        data: { ...data, params: Object.fromEntries(Object.keys(data.params).map((k) => [k, ''])) },
        omitted: Object.keys(data.params).map((k) => ({ path: `vod-config.params.${k}`, reason: 'provider parameter value (may be a credential): set it again' }))
      }
    },
    async apply (data, { dryRun, removeExtra }) {
      const plan = emptyPlan()
      const cur = await ctx.catalog.getVodConfig()
      if (data === null) {
        if (cur !== null && removeExtra) { plan.removed.push('svcmeta/vod'); if (!dryRun) await ctx.catalog.putVodConfig(null) }
        return plan
      }
      if (cur !== null && same(cur, data)) { plan.leftAlone.push('svcmeta/vod'); return plan }
      ;(cur === null ? plan.added : plan.changed).push('svcmeta/vod')
      if (!dryRun) await ctx.catalog.putVodConfig(data)
      return plan
    }
  }

  const sources: ConfigSection<SourcesData> = {
    name: 'sources',
    describe: 'remote sources (their URLs often hold a provider credential: never in a template)',
    schema: SourcesData,
    export: () => ctx.registries.sources.all(),
    toTemplate (data) {
      return {
        data: Object.fromEntries(Object.entries(data).map(([n, s]) => [n, { ...s, url: '', enabled: false }])),
        omitted: Object.keys(data).map((n) => ({ path: `sources.${n}.url`, reason: 'feed URL (often holds a provider credential): set it again, the source stays paused until then' }))
      }
    },
    async apply (data, { dryRun, removeExtra, source }) {
      const plan = emptyPlan()
      const live = await ctx.registries.sources.all()
      const next: SourcesData = {}
      for (const [n, s] of Object.entries(data)) {
        const cur = Object.hasOwn(live, n) ? live[n] : undefined
        // A template carries no URL: an imported source waits, paused, for one; a live URL is kept.
        const wanted = source === 'template' ? { ...s, url: cur?.url ?? 'https://invalid.invalid/set-the-feed-url', enabled: cur?.enabled ?? false } : s
        if (cur !== undefined && same(cur, wanted)) { plan.leftAlone.push(n); continue }
        ;(cur === undefined ? plan.added : plan.changed).push(n)
        if (source === 'template' && cur === undefined) plan.warnings.push(`source ${n}: set its feed URL (PATCH /api/sources/${n}) and enable it`)
        next[n] = wanted
      }
      const extra = removeExtra ? Object.keys(live).filter((n) => !Object.hasOwn(data, n)) : []
      plan.removed.push(...extra)
      if (!dryRun && (Object.keys(next).length > 0 || extra.length > 0)) {
        await ctx.registries.sources.update((m) => { Object.assign(m, next); for (const n of extra) delete m[n] })
      }
      return plan
    }
  }

  const entitlements: ConfigSection<EntitlementsData> = {
    name: 'entitlements',
    describe: "users' packages and manual grants (snapshot only: entitlements; restored additively)",
    schema: EntitlementsData,
    snapshotOnly: true,
    export: () => ctx.registries.entitlements.all(),
    async apply (data, { dryRun }) {
      const plan = emptyPlan()
      const live = await ctx.registries.entitlements.all()
      const known = await ctx.registries.packages.all()
      const union = (a: string[], b: string[]) => [...new Set([...a, ...b])].sort()
      const next: EntitlementsData = {}
      for (const [u, e] of Object.entries(data)) {
        // Additive: the packages (still defined) and manual grants of the snapshot join the live ones.
        const wanted = { packages: e.packages.filter((p) => Object.hasOwn(known, p) || dryRun), manual: e.manual }
        const cur = Object.hasOwn(live, u) ? live[u]! : undefined
        const merged = cur === undefined ? wanted : { packages: union(cur.packages, wanted.packages), manual: union(cur.manual, wanted.manual) }
        if (cur !== undefined && same(cur, merged)) { plan.leftAlone.push(u); continue }
        ;(cur === undefined ? plan.added : plan.changed).push(u)
        next[u] = merged
      }
      if (!dryRun && Object.keys(next).length > 0) {
        await ctx.registries.entitlements.update((users) => { Object.assign(users, next) })
        for (const u of Object.keys(next)) touchedUsers.add(u)
      }
      return plan
    }
  }

  const users: ConfigSection<UsersData> = {
    name: 'users',
    describe: 'viewer accounts and their grants (snapshot only: verifiers and entitlements)',
    schema: UsersData,
    snapshotOnly: true,
    export: () => usersMap(ctx),
    async apply (data, { dryRun, removeExtra }) {
      const plan = emptyPlan()
      const live = await usersMap(ctx)
      const groups = await groupRecordsOf(ctx.catalog, Object.values(live))
      const lineup = await loadLineup(ctx)
      const groupsAfter = new Set([...(packagesAfter ?? Object.keys(lineup.packages))].map(packageGroupId))
      if (lineup.auto.size > 0) groupsAfter.add(AUTO_GROUP)
      const toReconcile = new Set(dryRun ? [] : touchedUsers)
      touchedUsers = new Set()
      packagesAfter = null
      const creates: Array<{ username: string; record: UserRecord }> = []
      for (const [username, u] of Object.entries(data)) {
        const cur = Object.hasOwn(live, username) ? live[username] : undefined
        // What the snapshot's record held that the live one lacks: its own grants (every grant,
        // on a record from before grant groups) and its groups; a disabled account holds none.
        const has = cur === undefined ? new Set<string>() : grantedIds(cur, groups)
        const missing = Object.keys(u.wrapped).filter((id) => !has.has(id))
        const sealable = missing.filter((id) => keysAfter.has(id))
        for (const id of missing) if (!keysAfter.has(id)) plan.skipped.push({ id: `${username}.grants.${id}`, reason: `stream ${id} has no key on this panel` })
        const lacksGroup = Object.keys(u.groups ?? {}).some((g) => groupsAfter.has(g) && !Object.hasOwn(cur?.groups ?? {}, g))
        if (cur !== undefined && (cur.status !== 'active' || (sealable.length === 0 && !lacksGroup))) { plan.leftAlone.push(username); continue }
        ;(cur === undefined ? plan.added : plan.changed).push(username)
        toReconcile.add(username)
        if (dryRun || cur !== undefined) continue
        toReconcile.delete(username)
        // Same keys (same password), no devices, sessions from before the deletion stay ended;
        // its grants are sealed in the same write, from the restored provenance (a user the
        // snapshot has no provenance for counts its sealed grants as manual, as before packages).
        creates.push({ username, record: { ...u, wrapped: {}, groups: {}, devices: [], tokenVersion: u.tokenVersion + 1 } })
        await ctx.registries.entitlements.update((ents) => { if (!Object.hasOwn(ents, username)) ents[username] = { packages: [], manual: Object.keys(u.wrapped).sort() } })
      }
      if (removeExtra) {
        for (const username of Object.keys(live)) {
          if (Object.hasOwn(data, username)) continue
          plan.removed.push(username)
          toReconcile.delete(username)
          if (!dryRun) await purgeUser(ctx, username)
        }
      }
      // One reconcile for everything the restore changed: the groups of restored packages, their
      // holders, users whose provenance came back, and the users above (nothing when unchanged).
      if (!dryRun) await reconcileUsers(ctx, toReconcile, { create: creates })
      return plan
    }
  }

  return [categories, streams, packages, vod, sources, publishers, entitlements, users]
}
