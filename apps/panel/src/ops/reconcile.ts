import { keys, type CatalogBatch, type GroupRecord, type UserRecord } from '@arus/catalog'
import { ownValue } from '@arus/service'
import type { PanelCore } from '../context.js'
import { PanelError } from '../errors.js'
import type { Entitlement, GroupKeyEntry } from '../registries.js'
import { dueGroups, entitlementOf, GLOB, liveGroups, loadLineup, type Lineup } from './entitlements.js'
import { planGroup, type GroupPlan } from './grant-groups.js'
import { withGrantLock } from './grant-lock.js'
import { grantedIds, materializeUser, type GroupKeyState } from './materialize.js'
import { allUsers } from './user-scan.js'

/**
 * Reconcile (spec 1 "Package", "User record"; issue 43, docs/architecture.md "Grants and the
 * catalog"): every group's record made to hold exactly its resolved, keyed channels, then each
 * named user's record made to hold its groups and its manual grants. Unchanged records are
 * never written (the catalog appends every write forever): a package member edit writes one
 * group record and no user record.
 *
 * Lazy revocation: a user that stops holding a group marks it stale; a stale group rotates
 * (gen + 1, a fresh key) before its record would gain a channel or a changed channel key, and
 * then every holder's sealed group key is written again — in the same catalog batch as the
 * group record, so no reader sees a user record and a group record of different generations.
 */

/** Users written per catalog batch when no generation changed (one append each, a bounded lock). */
const USER_BATCH = 500

/** What a reconcile did. `granted`/`removed` count (user, stream) pairs the named users gained or lost. */
export interface ReconcileReport {
  users: number
  written: number
  granted: number
  removed: number
  /** Group records written or deleted. */
  groups: number
  /** Groups that rotated to a new generation. */
  rotated: string[]
}

export interface ReconcileInit {
  /** The lineup, when the caller resolved it already. */
  lineup?: Lineup
  /** The operation's own change of one user's record (status, password), written in the same write as its grants. */
  edit?: { username: string; apply: (record: UserRecord) => UserRecord }
  /** Stream ids whose key changed: their manual grants are sealed again. */
  resealed?: readonly string[]
  /** The caller records its own activity event (a user created, a grant added): no 'grants.reconciled' entry. */
  quiet?: boolean
  /** Users to create (createUser, a restore): each written once, with its grants; PANEL_EXISTS if a name is taken. */
  create?: ReadonlyArray<{ username: string; record: UserRecord }>
}

/**
 * Reconciles the groups, then `usernames` (every user when 'all'). A generation change (a
 * rotation) reconciles every user, in one batch with the group records.
 */
export async function reconcileUsers (ctx: PanelCore, usernames: Iterable<string> | 'all', init: ReconcileInit = {}): Promise<ReconcileReport> {
  return withGrantLock(ctx, () => reconcile(ctx, usernames, init))
}

async function reconcile (ctx: PanelCore, usernames: Iterable<string> | 'all', init: ReconcileInit): Promise<ReconcileReport> {
  const lineup = init.lineup ?? await loadLineup(ctx)
  const creating = new Set((init.create ?? []).map((c) => c.username))
  const stored = await readUsers(ctx, usernames === 'all' ? 'all' : [...new Set(usernames)].filter((n) => !creating.has(n)))
  const entitlements = await provenance(ctx, stored)
  const edited = (name: string, r: UserRecord) => (init.edit?.username === name ? init.edit.apply(r) : r)
  // Who stops holding a group: known before any group decides whether to rotate.
  const leaves = new Set<string>()
  for (const [name, r] of stored) {
    const due = new Set(dueGroups(entitlementOf(entitlements, name, r), lineup, edited(name, r).status))
    for (const id of Object.keys(r.groups ?? {})) if (!due.has(id)) leaves.add(id)
  }
  const groups = await planGroups(ctx, lineup, leaves)
  if (groups.regenerated) for (const [name, r] of await readUsers(ctx, 'all')) if (!stored.has(name) && !creating.has(name)) stored.set(name, r)

  const states = new Map<string, GroupKeyState>([...groups.plans].map(([id, p]) => [id, { gen: p.entry.gen, key: p.entry.key }]))
  const after = new Map<string, GroupRecord | null>([...groups.before.keys()].map((id) => [id, groups.plans.get(id)?.record ?? null]))
  const report: ReconcileReport = { users: stored.size + creating.size, written: 0, granted: 0, removed: 0, groups: 0, rotated: groups.rotated }
  const resealed = new Set(init.resealed ?? [])
  const lateLeaves = new Set<string>()

  const writeUser = async (b: CatalogBatch, name: string) => {
    const { changed } = await b.update(keys.user(name), (cur) => {
      if (cur === null) return undefined
      const next = materializeUser(cur, edited(name, cur), entitlementOf(entitlements, name, cur), lineup, states, { resealed })
      for (const id of Object.keys(cur.groups ?? {})) if (!Object.hasOwn(next.groups ?? {}, id)) lateLeaves.add(id)
      count(report, grantedIds(cur, groups.before), grantedIds(next, after))
      return next
    })
    if (changed) report.written++
  }
  const names = [...stored.keys()]
  const perBatch = groups.regenerated ? Infinity : USER_BATCH
  for (let i = 0, first = true; first || i < names.length; i += perBatch, first = false) {
    await ctx.catalog.batch(async (b) => {
      if (first) report.groups = await writeGroups(b, groups)
      if (first) for (const c of init.create ?? []) await createIn(b, c, entitlements, lineup, states, after, report)
      for (const name of names.slice(i, i + perBatch)) await writeUser(b, name)
    })
  }
  await markStale(ctx, lateLeaves)
  for (const id of groups.rotated) ctx.activity.record({ event: 'grants.group-rotated', group: id, count: report.written }, 'grant group rotated')
  if (init.quiet !== true && report.written + report.groups > 0) ctx.activity.record({ event: 'grants.reconciled', count: report.written, groups: report.groups }, 'grants reconciled')
  return report
}

function count (report: ReconcileReport, before: Set<string>, after: Set<string>): void {
  for (const id of after) if (!before.has(id)) report.granted++
  for (const id of before) if (!after.has(id)) report.removed++
}

async function createIn (b: CatalogBatch, create: { username: string; record: UserRecord }, entitlements: Record<string, Entitlement>, lineup: Lineup, states: Map<string, GroupKeyState>, after: Map<string, GroupRecord | null>, report: ReconcileReport): Promise<void> {
  await b.update(keys.user(create.username), (cur) => {
    if (cur !== null) throw PanelError.exists(`user "${create.username}"`)
    const next = materializeUser(null, create.record, entitlementOf(entitlements, create.username, create.record), lineup, states)
    count(report, new Set(), grantedIds(next, after))
    return next
  })
  report.written++
}

/** The stored records of `names` (absent ones left out), or of every user. */
async function readUsers (ctx: PanelCore, names: string[] | 'all'): Promise<Map<string, UserRecord>> {
  const out = new Map<string, UserRecord>()
  if (names === 'all') {
    for await (const { username, record } of allUsers(ctx)) out.set(username, record)
    return out
  }
  for (const name of names) {
    const r = await ctx.catalog.getUser(name)
    if (r !== null) out.set(name, r)
  }
  return out
}

/**
 * The provenance registry, with an entry written for each user that has none (records from
 * before packages count every grant as manual): once a disabled account's grants are emptied,
 * its record no longer says what they were.
 */
async function provenance (ctx: PanelCore, stored: Map<string, UserRecord>): Promise<Record<string, Entitlement>> {
  const current = await ctx.registries.entitlements.all()
  const missing = [...stored].filter(([name]) => !Object.hasOwn(current, name))
  if (missing.length === 0) return current
  await ctx.registries.entitlements.update((users) => {
    for (const [name, r] of missing) if (!Object.hasOwn(users, name)) users[name] = { packages: [], manual: Object.keys(r.wrapped).sort() }
  })
  return ctx.registries.entitlements.all()
}

/** The group side of one reconcile: each group's plan, the records before it, what goes. */
interface GroupsPlan {
  plans: Map<string, GroupPlan>
  before: Map<string, GroupRecord | null>
  /** Groups whose record goes (their package was deleted, or nothing is auto-granted any more). */
  gone: string[]
  rotated: string[]
  /** Some generation changed: every holder must be reconciled. */
  regenerated: boolean
}

/**
 * Plans every group (every live one and every one with a key entry), marks `leaves` stale, and
 * persists the key entries before anything is sealed under them.
 */
async function planGroups (ctx: PanelCore, lineup: Lineup, leaves: ReadonlySet<string>): Promise<GroupsPlan> {
  const live = liveGroups(lineup)
  const entries = await ctx.registries.groupKeys.all()
  const out: GroupsPlan = { plans: new Map(), before: new Map(), gone: [], rotated: [], regenerated: false }
  const next: Record<string, GroupKeyEntry> = {}
  for (const id of new Set([...live.keys(), ...Object.keys(entries)])) {
    let entry = ownValue(entries, id)
    if (entry !== undefined && !entry.stale && leaves.has(id)) entry = { ...entry, stale: true }
    const record = await ctx.catalog.getGroup(id)
    out.before.set(id, record)
    const wanted = live.get(id)
    if (wanted === undefined) {
      // Gone: the record goes, the entry stays as a stale tombstone (a generation is never reused).
      // Records still naming it grant nothing from it and drop it at their next reconcile (a
      // deleted package's holders are reconciled by the deletion itself).
      if (record !== null) out.gone.push(id)
      if (entry !== undefined) next[id] = { ...entry, stale: true }
      continue
    }
    const plan = planGroup(id, wanted, entry, record)
    out.plans.set(id, plan)
    next[id] = plan.entry
    if (plan.rotated) out.rotated.push(id)
    if (plan.regenerated) out.regenerated = true
  }
  await ctx.registries.groupKeys.update((map) => { Object.assign(map, next) })
  return out
}

async function writeGroups (b: CatalogBatch, groups: GroupsPlan): Promise<number> {
  let n = 0
  for (const [id, plan] of groups.plans) if (await b.put(keys.group(id), plan.record)) n++
  for (const id of groups.gone) if (await b.del(keys.group(id))) n++
  return n
}

/** Marks groups stale: a holder left, so the next channel they gain needs a new generation. */
export async function markStale (ctx: PanelCore, ids: Iterable<string>): Promise<void> {
  const wanted = new Set(ids)
  if (wanted.size === 0) return
  await ctx.registries.groupKeys.update((map) => {
    for (const id of wanted) if (Object.hasOwn(map, id) && !map[id]!.stale) map[id] = { ...map[id]!, stale: true }
  })
}

/** Users holding any of `packages`. */
export async function holdersOf (ctx: PanelCore, packages: readonly string[]): Promise<string[]> {
  const wanted = new Set(packages)
  return Object.entries(await ctx.registries.entitlements.all()).filter(([, e]) => e.packages.some((p) => wanted.has(p))).map(([u]) => u)
}

/**
 * After streams were added, re-categorized or removed: reconciles the groups, and the holders
 * of every package whose resolution may have changed — those with a glob, category or source
 * member, or naming one of `ids` (their records change only if a generation did; the report
 * counts what they gained).
 */
export async function reconcileForStreams (ctx: PanelCore, ids: readonly string[]): Promise<ReconcileReport> {
  const packages = await ctx.registries.packages.all()
  const touched = Object.entries(packages)
    .filter(([, p]) => p.members.some((m) => m.startsWith('category:') || m.startsWith('source:') || GLOB.test(m) || ids.includes(m)))
    .map(([name]) => name)
  return reconcileUsers(ctx, await holdersOf(ctx, touched))
}
