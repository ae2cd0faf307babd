import { GROUP_ID_PATTERN, slugify, type StreamEntry, type UserRecord } from '@arus/catalog'
import type { PanelCore } from '../context.js'
import type { Entitlement, PackageEntry } from '../registries.js'

/**
 * Where a user's grants come from (spec 1 "Package", "User record" provenance): the manual
 * grants, the channels its packages resolve to, and the channels of auto-granting sources —
 * and the grant groups (issue 43) they are sealed through: a package's channels reach its
 * holders through group `p.<package>`, the auto-granting sources' through group `auto`, and
 * only manual grants are sealed into the user's own record. Pure: reconcile.ts writes.
 */

/** Everything a reconcile resolves against, read once per reconcile. */
export interface Lineup {
  streams: StreamEntry[]
  keys: Record<string, string>
  packages: Record<string, PackageEntry>
  /** Channels granted to every user (imported by a source with autoGrant on). */
  auto: Set<string>
}

export const GLOB = /[*?]/

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

/** The group a package's channels are sealed through. */
export const packageGroupId = (name: string): string => `p.${name}`
/** The group of every auto-granting source's channels. */
export const AUTO_GROUP = 'auto'

/**
 * The groups `ent` holds: one per package it holds that exists (a name the catalog could not
 * key is left out), and `auto` while any channel is auto-granted. An account that is not
 * active holds none (it holds no grants at all).
 */
export function dueGroups (ent: Entitlement, lineup: Lineup, status: UserRecord['status'] = 'active'): string[] {
  if (status !== 'active') return []
  const out = new Set<string>()
  for (const name of ent.packages) {
    const id = packageGroupId(name)
    if (Object.hasOwn(lineup.packages, name) && GROUP_ID_PATTERN.test(id)) out.add(id)
  }
  if (lineup.auto.size > 0) out.add(AUTO_GROUP)
  return [...out].sort()
}

/**
 * Every group that exists now, with the channels its record must hold: each resolved channel
 * that has a stream key (id → key hex). `resolved` caches package resolutions.
 */
export function liveGroups (lineup: Lineup, resolved = new Map<string, string[]>()): Map<string, Map<string, string>> {
  const keyed = (ids: Iterable<string>) => new Map([...ids].filter((id) => Object.hasOwn(lineup.keys, id)).sort().map((id) => [id, lineup.keys[id]!]))
  const out = new Map<string, Map<string, string>>()
  for (const [name, pkg] of Object.entries(lineup.packages)) {
    const id = packageGroupId(name)
    if (!GROUP_ID_PATTERN.test(id)) continue
    let ids = resolved.get(name)
    if (ids === undefined) { ids = resolveMembers(pkg.members, lineup.streams); resolved.set(name, ids) }
    out.set(id, keyed(ids))
  }
  if (lineup.auto.size > 0) out.set(AUTO_GROUP, keyed(lineup.auto))
  return out
}
