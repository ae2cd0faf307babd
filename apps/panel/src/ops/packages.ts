import { z } from 'zod'
import type { PanelContext, PanelCore } from '../context.js'
import { PanelError } from '../errors.js'
import type { PackageEntry } from '../registries.js'
import { loadLineup, resolveMembers, type LineupCtx } from './entitlements.js'
import { holdersOf, reconcileUsers, type ReconcileReport } from './reconcile.js'
import { parseUsername } from './ids.js'

/**
 * Channel packages (spec 1 "Package", the Packages routes): named member lists granted to
 * users as a whole. Members resolve at reconcile time, so a channel that later matches a
 * glob, a category or a source joins every holder. Every change reconciles the holders it
 * affects at once.
 */

const NAME = /^(?!__proto__$)[A-Za-z0-9_.-]{1,64}$/
const MEMBER = /^(category:.{1,200}|source:[A-Za-z0-9_.-]{1,64}|[A-Za-z0-9_.*?-]{1,64})$/

// --- schemas of these operations: the HTTP routes' request and reply, the CLI, the docs ---

export const PackageName = z.string().regex(NAME, '1-64 letters, digits, _ . -').describe('Package name')
export const PackageMember = z.string().regex(MEMBER, 'a stream id, an id glob (* ?), category:<label or slug> or source:<name>')
  .describe('A stream id, an id glob, category:<slug> or source:<name>')
export const AddPackageBody = z.strictObject({
  name: PackageName,
  label: z.string().min(1).max(200).optional(),
  members: z.array(PackageMember).max(1000).optional(),
  default: z.boolean().optional().describe('Assigned to every new user')
})
export const PatchPackageBody = z.strictObject({
  label: z.string().min(1).max(200).nullable().optional().describe('null clears it'),
  members: z.array(PackageMember).max(1000).optional().describe('Replaces the list; applies to every holder at once'),
  default: z.boolean().optional()
}).refine((p) => Object.values(p).some((v) => v !== undefined), 'give at least one field')
export const PackageView = z.object({
  name: z.string(),
  label: z.string().nullable(),
  members: z.array(z.string()),
  default: z.boolean(),
  createdAt: z.number(),
  channels: z.array(z.string()).describe('Stream ids the members resolve to now'),
  channelCount: z.number().int(),
  holders: z.number().int().describe('Users holding it')
})
export type PackageView = z.infer<typeof PackageView>
export const PackageList = z.object({ packages: z.array(PackageView) })
export const UserPackagesBody = z.strictObject({ packages: z.array(PackageName).max(256).describe('Replaces the user\'s packages; grants follow at once') })

async function views (ctx: LineupCtx, only?: string): Promise<PackageView[]> {
  const lineup = await loadLineup(ctx)
  const entitlements = Object.values(await ctx.registries.entitlements.all())
  return Object.entries(lineup.packages)
    .filter(([name]) => only === undefined || name === only)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, p]) => {
      const channels = resolveMembers(p.members, lineup.streams)
      return { name, ...p, channels, channelCount: channels.length, holders: entitlements.filter((e) => e.packages.includes(name)).length }
    })
}

const must = (map: Record<string, PackageEntry>, name: string): PackageEntry => {
  if (!Object.hasOwn(map, name)) throw PanelError.notFound(`package "${name}"`)
  return map[name]!
}

/** Read-only: `ctx` may be the CLI's read-only view beside a running panel. */
export async function listPackages (ctx: LineupCtx): Promise<PackageView[]> {
  return views(ctx)
}

export async function getPackage (ctx: LineupCtx, name: string): Promise<PackageView> {
  must(await ctx.registries.packages.all(), name)
  return (await views(ctx, name))[0]!
}

/** The registry side of the package operations: safe beside a running panel, which reconciles what they change (registry-watch.ts). */
export type PackageRegistryCtx = Pick<PanelCore, 'registries' | 'activity'>

/** Adds the registry entry (no holder yet, so nothing to reconcile). */
export async function writeNewPackage (ctx: PackageRegistryCtx, input: z.input<typeof AddPackageBody>): Promise<PackageEntry & { name: string }> {
  const p = AddPackageBody.parse(input)
  const entry: PackageEntry = { label: p.label ?? null, members: [...new Set(p.members ?? [])], default: p.default ?? false, createdAt: Date.now() }
  await ctx.registries.packages.update((map) => {
    if (Object.hasOwn(map, p.name)) throw PanelError.exists(`package "${p.name}"`)
    map[p.name] = entry
  })
  ctx.activity.record({ event: 'package.added', package: p.name }, 'package added')
  return { name: p.name, ...entry }
}

/** Edits the registry entry; resolves whether the members changed (the holders need a reconcile then). */
export async function writePackagePatch (ctx: PackageRegistryCtx, name: string, patch: z.input<typeof PatchPackageBody>): Promise<{ entry: PackageEntry & { name: string }; membersChanged: boolean }> {
  const p = PatchPackageBody.parse(patch)
  const out = await ctx.registries.packages.update((map) => {
    const cur = must(map, name)
    const members = p.members === undefined ? cur.members : [...new Set(p.members)]
    map[name] = { ...cur, ...(p.label !== undefined ? { label: p.label } : {}), ...(p.default !== undefined ? { default: p.default } : {}), members }
    return { entry: { name, ...map[name] }, membersChanged: members.join('\n') !== cur.members.join('\n') }
  })
  ctx.activity.record({ event: 'package.updated', package: name }, 'package updated')
  return out
}

/** Deletes the registry entry and strips it from its holders' provenance; resolves the holders. */
export async function deletePackageEntry (ctx: PackageRegistryCtx, name: string): Promise<string[]> {
  must(await ctx.registries.packages.all(), name)
  const holders = Object.entries(await ctx.registries.entitlements.all()).filter(([, e]) => e.packages.includes(name)).map(([u]) => u)
  await ctx.registries.packages.update((map) => { delete map[name] })
  await ctx.registries.entitlements.update((users) => {
    for (const u of holders) if (users[u] !== undefined) users[u] = { ...users[u], packages: users[u].packages.filter((p) => p !== name) }
  })
  ctx.activity.record({ event: 'package.removed', package: name }, 'package removed')
  return holders
}

/** Adds a package; its grant group's record is written at once (no holder yet, so no user record). */
export async function addPackage (ctx: PanelCore, input: z.input<typeof AddPackageBody>): Promise<PackageView> {
  const { name } = await writeNewPackage(ctx, input)
  await reconcileUsers(ctx, [])
  return getPackage(ctx, name)
}

/** Edits a package; a member change reaches every holder before this resolves. */
export async function setPackage (ctx: PanelCore, name: string, patch: z.input<typeof PatchPackageBody>): Promise<PackageView> {
  const { membersChanged } = await writePackagePatch(ctx, name, patch)
  if (membersChanged) await reconcileUsers(ctx, await holdersOf(ctx, [name]))
  return getPackage(ctx, name)
}

/**
 * Removes a package (after a config snapshot) and strips it from its holders; only the grants
 * it alone covered go (manual grants, other packages and auto-granted channels stay).
 */
export async function removePackage (ctx: PanelContext, name: string): Promise<ReconcileReport> {
  must(await ctx.registries.packages.all(), name)
  await ctx.snapshots.beforeDestructive(`remove package ${name}`)
  return reconcileUsers(ctx, await deletePackageEntry(ctx, name))
}

/** Replaces a user's packages and materializes the grants at once. */
export async function setUserPackages (ctx: PanelCore, username: string, packages: readonly string[]): Promise<ReconcileReport> {
  parseUsername(username)
  const wanted = [...new Set(packages)].sort()
  const all = await ctx.registries.packages.all()
  for (const p of wanted) must(all, p)
  const user = await ctx.catalog.getUser(username)
  if (!user) throw PanelError.notFound(`user "${username}"`)
  await ctx.registries.entitlements.update((users) => {
    const cur = users[username] ?? { packages: [], manual: Object.keys(user.wrapped).sort() }
    users[username] = { ...cur, packages: wanted }
  })
  ctx.activity.record({ event: 'user.packages', username, count: wanted.length }, 'user packages set')
  return reconcileUsers(ctx, [username])
}

/** The default packages: what a new user starts with. */
export async function defaultPackages (ctx: PanelCore): Promise<string[]> {
  return Object.entries(await ctx.registries.packages.all()).filter(([, p]) => p.default).map(([n]) => n).sort()
}
