import { slugify, type StreamEntry, type UserRecord } from '@arus/catalog'
import { fromHex, sealGrant } from '@arus/crypto'
import type { PanelCore } from '../context.js'
import type { Entitlement, PackageEntry } from '../registries.js'
import { allUsers } from './user-scan.js'

/**
 * Where a user's grants come from (spec 1 "Package", "User record" provenance): the manual
 * grants, the channels its packages resolve to, and the channels of auto-granting sources.
 * A reconcile seals what is due and drops what no longer is, writing each affected user
 * once — and an unchanged user never (the catalog appends every write forever).
 */

/** Everything a reconcile resolves against, read once per reconcile. */
export interface Lineup {
  streams: StreamEntry[]
  keys: Record<string, string>
  packages: Record<string, PackageEntry>
  /** Channels granted to every user (imported by a source with autoGrant on). */
  auto: Set<string>
}

const GLOB = /[*?]/

function globMatcher (glob: string): RegExp {
  return new RegExp('^' + glob.replace(/[.+^${}()|[\]\\-]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.') + '$')
}

/** The stream ids `members` resolve to among `streams`: ids, id globs, `category:<slug>`, `source:<name>`. Sorted. */
export function resolveMembers (members: readonly string[], streams: readonly StreamEntry[]): string[] {
  const out = new Set<string>()
  for (const m of members) {
    if (m.startsWith('category:')) {
      const slug = slugify(m.slice('category:'.length))
      for (const s of streams) if (s.record.category.some((c) => slugify(c) === slug)) out.add(s.id)
    } else if (m.startsWith('source:')) {
      const name = m.slice('source:'.length)
      for (const s of streams) if (s.record.source === name) out.add(s.id)
    } else if (GLOB.test(m)) {
      const re = globMatcher(m)
      for (const s of streams) if (re.test(s.id)) out.add(s.id)
    } else if (streams.some((s) => s.id === m)) {
      out.add(m)
    }
  }
  return [...out].sort()
}

/** What resolving the lineup reads: the catalog's streams and the private registries (a read-only view will do). */
export type LineupCtx = Pick<PanelCore, 'registries'> & { catalog: Pick<PanelCore['catalog'], 'listStreams'> }

export async function loadLineup (ctx: LineupCtx): Promise<Lineup> {
  const streams = await ctx.catalog.listStreams()
  const sources = await ctx.registries.sources.all()
  const autoGranting = new Set(Object.entries(sources).filter(([, s]) => s.autoGrant).map(([n]) => n))
  return {
    streams,
    keys: await ctx.registries.streamKeys.all(),
    packages: await ctx.registries.packages.all(),
    // Rule 6: every channel of an auto-granting source is due to every user.
    auto: new Set(streams.filter((s) => s.record.source !== undefined && autoGranting.has(s.record.source)).map((s) => s.id))
  }
}

/** A user's provenance; a user without an entry (made before packages) counts every grant as manual. */
export function entitlementOf (entitlements: Record<string, Entitlement>, username: string, record: UserRecord): Entitlement {
  return Object.hasOwn(entitlements, username) ? entitlements[username]! : { packages: [], manual: Object.keys(record.wrapped).sort() }
}

/** The ids `ent` is due, with why: 'manual', 'package:<name>', 'auto'. */
export function dueGrants (ent: Entitlement, lineup: Lineup, resolved = new Map<string, string[]>()): Map<string, string[]> {
  const due = new Map<string, string[]>()
  const add = (id: string, why: string) => { const w = due.get(id); if (w) w.push(why); else due.set(id, [why]) }
  for (const id of ent.manual) add(id, 'manual')
  for (const name of ent.packages) {
    const pkg = lineup.packages[name]
    if (pkg === undefined) continue
    let ids = resolved.get(name)
    if (ids === undefined) { ids = resolveMembers(pkg.members, lineup.streams); resolved.set(name, ids) }
    for (const id of ids) add(id, `package:${name}`)
  }
  for (const id of lineup.auto) add(id, 'auto')
  return due
}

/** `record.wrapped` made to match what is due: kept, sealed when missing (and keyed), dropped when not due. */
export function reconciledWrapped (record: UserRecord, due: Map<string, string[]>, keys: Record<string, string>): Record<string, string> {
  const next: Record<string, string> = {}
  for (const id of [...due.keys()].sort()) {
    if (Object.hasOwn(record.wrapped, id)) next[id] = record.wrapped[id]!
    else if (Object.hasOwn(keys, id)) next[id] = sealGrant(fromHex(keys[id]!, 32), fromHex(record.pub, 32))
  }
  return next
}

const sameKeys = (a: Record<string, string>, b: Record<string, string>) => {
  const ka = Object.keys(a)
  return ka.length === Object.keys(b).length && ka.every((k) => b[k] === a[k])
}

/** What a reconcile did. */
export interface ReconcileReport { users: number; written: number; granted: number; removed: number }

/**
 * Reconciles `usernames` (every user when 'all') against the current lineup: one write per
 * changed user, none for an unchanged one.
 */
export async function reconcileUsers (ctx: PanelCore, usernames: Iterable<string> | 'all', lineup?: Lineup): Promise<ReconcileReport> {
  const l = lineup ?? await loadLineup(ctx)
  const entitlements = await ctx.registries.entitlements.all()
  const resolved = new Map<string, string[]>()
  const report: ReconcileReport = { users: 0, written: 0, granted: 0, removed: 0 }
  const one = async (username: string) => {
    report.users++
    await ctx.catalog.updateUser(username, (u) => {
      if (!u) return undefined
      const wrapped = reconciledWrapped(u, dueGrants(entitlementOf(entitlements, username, u), l, resolved), l.keys)
      if (sameKeys(wrapped, u.wrapped)) return undefined
      report.written++
      report.granted += Object.keys(wrapped).filter((id) => !Object.hasOwn(u.wrapped, id)).length
      report.removed += Object.keys(u.wrapped).filter((id) => !Object.hasOwn(wrapped, id)).length
      return { ...u, wrapped }
    })
  }
  if (usernames === 'all') {
    const names: string[] = []
    for await (const { username } of allUsers(ctx)) names.push(username)
    for (const n of names) await one(n)
  } else {
    for (const n of new Set(usernames)) await one(n)
  }
  if (report.written > 0) ctx.activity.record({ event: 'grants.reconciled', count: report.written }, 'grants reconciled')
  return report
}

/** Users holding any of `packages`. */
export async function holdersOf (ctx: PanelCore, packages: readonly string[]): Promise<string[]> {
  const wanted = new Set(packages)
  return Object.entries(await ctx.registries.entitlements.all()).filter(([, e]) => e.packages.some((p) => wanted.has(p))).map(([u]) => u)
}

/**
 * After streams were added, re-categorized or removed: reconciles the holders of every package
 * whose resolution may have changed — those with a glob, category or source member, or naming
 * one of `ids`.
 */
export async function reconcileForStreams (ctx: PanelCore, ids: readonly string[]): Promise<ReconcileReport | null> {
  const packages = await ctx.registries.packages.all()
  const touched = Object.entries(packages)
    .filter(([, p]) => p.members.some((m) => m.startsWith('category:') || m.startsWith('source:') || GLOB.test(m) || ids.includes(m)))
    .map(([name]) => name)
  if (touched.length === 0) return null
  return reconcileUsers(ctx, await holdersOf(ctx, touched))
}
