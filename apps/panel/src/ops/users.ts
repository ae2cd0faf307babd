import { z } from 'zod'
import { Username, type GroupRecord, type UserRecord } from '@arus/catalog'
import type { PanelContext, PanelCore } from '../context.js'
import { deriveAccountSecrets } from '../account-keys.js'
import { PanelError } from '../errors.js'
import type { Entitlement } from '../registries.js'
import { entitlementOf } from './entitlements.js'
import { withGrantLock } from './grant-lock.js'
import { parseUsername, Password } from './ids.js'
import { grantedIds } from './materialize.js'
import { defaultPackages } from './packages.js'
import { markStale, reconcileUsers } from './reconcile.js'

/** Admin operations on viewer accounts (spec 1 "Users" routes and Admin CLI). Shared by CLI and HTTP. */

/**
 * What every door shows of a user (the HTTP reply schema {@link UserView}): no secrets, no
 * record internals, and the provenance (spec 1 "User record": packages and manualGrants).
 */
export type UserSummary = z.infer<typeof UserView>

/**
 * `entitlements` is the whole provenance registry: without it every grant would look manual and
 * no package held. `groups` holds the group records the user's record names (issue 43): its
 * grants are its own sealed ones and the channels of each held group of the held generation.
 */
export function summarizeUser (username: string, u: UserRecord, entitlements: Record<string, Entitlement>, groups: ReadonlyMap<string, GroupRecord | null>): UserSummary {
  const ent = entitlementOf(entitlements, username, u)
  const grants = grantedIds(u, groups)
  return {
    username,
    status: u.status,
    tokenVersion: u.tokenVersion,
    maxDevices: u.maxDevices,
    devices: u.devices,
    grants: [...grants].sort(),
    manualGrants: ent.manual.filter((id) => Object.hasOwn(u.wrapped, id)),
    packages: ent.packages,
    pub: u.pub,
    keyVersion: u.keyVersion ?? 1
  }
}

/** The group records `records` name, each read once. */
export async function groupRecordsOf (catalog: Pick<PanelCore['catalog'], 'getGroup'>, records: Iterable<UserRecord>): Promise<Map<string, GroupRecord | null>> {
  const out = new Map<string, GroupRecord | null>()
  for (const r of records) for (const id of Object.keys(r.groups ?? {})) if (!out.has(id)) out.set(id, await catalog.getGroup(id))
  return out
}

/** {@link summarizeUser} with the user's provenance and groups read. */
async function summary (ctx: PanelCore, username: string, u: UserRecord): Promise<UserSummary> {
  return summarizeUser(username, u, await ctx.registries.entitlements.all(), await groupRecordsOf(ctx.catalog, [u]))
}

async function mustGet (ctx: PanelCore, username: string): Promise<UserRecord> {
  const u = await ctx.catalog.getUser(parseUsername(username))
  if (!u) throw PanelError.notFound(`user "${username}"`)
  return u
}

/**
 * Creates a user holding the default packages (and the channels of auto-granting sources):
 * one write of its record, its groups sealed in it (issue 43 layout).
 */
export async function createUser (ctx: PanelCore, input: { username: string; password: string }): Promise<UserSummary> {
  const username = parseUsername(input.username)
  if (await ctx.catalog.getUser(username)) throw PanelError.exists(`user "${username}"`)
  const secrets = await deriveAccountSecrets(ctx, username, input.password)
  const ent: Entitlement = { packages: await defaultPackages(ctx), manual: [] }
  await ctx.registries.entitlements.update((users) => { users[username] = ent })
  const record: UserRecord = { v: 1, ...secrets, wrapped: {}, groups: {}, devices: [], tokenVersion: 0, maxDevices: ctx.settings.defaultMaxDevices, status: 'active' }
  await reconcileUsers(ctx, [], { create: [{ username, record }], quiet: true })
  ctx.activity.record({ event: 'user.created', username, count: ent.packages.length }, 'user created')
  return summary(ctx, username, await mustGet(ctx, username))
}

export async function getUser (ctx: PanelCore, username: string): Promise<UserSummary> {
  return summary(ctx, username, await mustGet(ctx, username))
}

export async function listUsers (ctx: PanelCore, q: { prefix?: string; after?: string; limit?: number } = {}): Promise<{ users: UserSummary[]; next: string | null }> {
  const page = await ctx.catalog.listUsers(q)
  const entitlements = await ctx.registries.entitlements.all()
  const groups = await groupRecordsOf(ctx.catalog, page.users.map((u) => u.record))
  return { users: page.users.map(({ username, record }) => summarizeUser(username, record, entitlements, groups)), next: page.next }
}

/**
 * Every user, through the pages of {@link listUsers} (the CLI's `list`): the same summaries as
 * GET /api/users, so the two doors cannot differ (spec 1 "What the service does" 7).
 */
export async function listAllUsers (ctx: PanelCore): Promise<UserSummary[]> {
  const all: UserSummary[] = []
  let after: string | undefined
  for (let pages = 0; pages < 1_000_000; pages++) {
    const page = await listUsers(ctx, { after, limit: 1000 })
    all.push(...page.users)
    if (page.next === null) break
    after = page.next
  }
  return all
}

/** Deletes a user after an automatic config snapshot (its record, devices and grants go). */
export async function deleteUser (ctx: PanelContext, username: string): Promise<void> {
  await mustGet(ctx, username)
  await ctx.snapshots.beforeDestructive(`delete user ${username}`)
  await purgeUser(ctx, username)
}

/**
 * Deletes a user without a snapshot (a restore's removeExtra: the pre-restore snapshot covers
 * it). The groups it held are marked stale: it keeps their keys, so the next channel they gain
 * comes under a new generation.
 */
export async function purgeUser (ctx: PanelCore, username: string): Promise<void> {
  await withGrantLock(ctx, async () => {
    const record = await ctx.catalog.getUser(username)
    await markStale(ctx, Object.keys(record?.groups ?? {}))
    await ctx.catalog.deleteUser(username)
  })
  await ctx.registries.entitlements.update((users) => { delete users[username] })
  ctx.activity.record({ event: 'user.deleted', username }, 'user deleted')
}

/** Rotates the password: new verifier and keypair, grants re-sealed to the new key in the same write, every session ended. */
export async function setPassword (ctx: PanelCore, username: string, password: string): Promise<UserSummary> {
  await mustGet(ctx, username)
  const secrets = await deriveAccountSecrets(ctx, username, password)
  await reconcileUsers(ctx, [username], { edit: { username, apply: (u) => ({ ...u, ...secrets, tokenVersion: u.tokenVersion + 1 }) }, quiet: true })
  ctx.activity.record({ event: 'user.password', username }, 'user password rotated')
  return getUser(ctx, username)
}

/**
 * Enables or disables an account. A disabled account holds no grants at all (its groups and
 * manual grants leave its record in the same write, and its groups are marked stale); enabling
 * it seals them again from its provenance.
 */
export async function setStatus (ctx: PanelCore, username: string, status: 'active' | 'disabled'): Promise<UserSummary> {
  if (status !== 'active' && status !== 'disabled') throw PanelError.invalid('status must be active or disabled')
  await mustGet(ctx, username)
  const apply = (u: UserRecord): UserRecord => u.status === status ? u : { ...u, status, tokenVersion: status === 'disabled' ? u.tokenVersion + 1 : u.tokenVersion }
  await reconcileUsers(ctx, [username], { edit: { username, apply }, quiet: true })
  ctx.activity.record({ event: 'user.status', username, status }, 'user status set')
  return getUser(ctx, username)
}

export async function setMaxDevices (ctx: PanelCore, username: string, maxDevices: number): Promise<UserSummary> {
  if (!Number.isInteger(maxDevices) || maxDevices < 1 || maxDevices > 100) throw PanelError.invalid('maxDevices must be an integer 1-100')
  const out = await summary(ctx, username, await modify(ctx, username, (u) => u.maxDevices === maxDevices
    ? u
    : { ...u, maxDevices, tokenVersion: u.tokenVersion + 1, devices: u.devices.slice(-maxDevices) }))
  ctx.activity.record({ event: 'user.max-devices', username, maxDevices }, 'user device limit set')
  return out
}

/**
 * Ends every session: bumps tokenVersion (spec 1 "States and transitions"), so each device
 * fails its next online check. The enrollments stay — dropping one is its own operation,
 * {@link logoutDevice}; a device that logs in again is re-enrolled in its slot.
 */
export async function logoutAll (ctx: PanelCore, username: string): Promise<UserSummary> {
  const out = await summary(ctx, username, await modify(ctx, username, (u) => ({ ...u, tokenVersion: u.tokenVersion + 1 })))
  ctx.activity.record({ event: 'user.logout-all', username }, 'all sessions of a user ended')
  return out
}

export async function listDevices (ctx: PanelCore, username: string): Promise<UserRecord['devices']> {
  return (await mustGet(ctx, username)).devices
}

/** Drops one enrollment without bumping tokenVersion (spec: cooperative, only that device notices). */
export async function logoutDevice (ctx: PanelCore, username: string, deviceId: string): Promise<void> {
  let found = false
  await modify(ctx, username, (u) => {
    found = u.devices.some((d) => d.deviceId === deviceId)
    return found ? { ...u, devices: u.devices.filter((d) => d.deviceId !== deviceId) } : u
  })
  if (!found) throw PanelError.notFound(`device "${deviceId.slice(0, 64)}" of user "${username}"`)
  ctx.activity.record({ event: 'user.device-dropped', username }, 'device dropped')
}

/** Read-modify-write of one user; returning the same object writes nothing. */
export async function modify (ctx: PanelCore, username: string, fn: (u: UserRecord) => UserRecord): Promise<UserRecord> {
  parseUsername(username)
  let out: UserRecord | null = null
  await ctx.catalog.updateUser(username, (u) => {
    if (!u) throw PanelError.notFound(`user "${username}"`)
    out = fn(u)
    return out === u ? undefined : out
  })
  return out!
}

// --- schemas of these operations: the HTTP routes' request and reply, the CLI, the docs ---

export const ListUsersQuery = z.object({
  prefix: z.string().max(64).optional().describe('Only usernames starting with this'),
  after: z.string().max(64).optional().describe('The `next` value of the previous page'),
  limit: z.coerce.number().int().min(1).max(1000).optional().describe('Page size (default 100)')
})

export const CreateUserBody = z.strictObject({ username: Username, password: Password })
export const PasswordBody = z.strictObject({ password: Password })
export const UserStatusBody = z.strictObject({ status: z.enum(['active', 'disabled']) })
export const MaxDevicesBody = z.strictObject({ maxDevices: z.int().min(1).max(100).describe('Concurrent device limit') })

export const DeviceView = z.object({
  deviceId: z.string(),
  label: z.string(),
  enrolledAt: z.number(),
  expiresAt: z.number().nullable(),
  tokenVersion: z.number(),
  status: z.string()
})

export const UserView = z.object({
  username: z.string(),
  status: z.enum(['active', 'disabled']),
  tokenVersion: z.number(),
  maxDevices: z.number(),
  devices: z.array(DeviceView),
  grants: z.array(z.string()).describe('Stream ids granted: the manual grants and the channels of the grant groups held (none while disabled)'),
  manualGrants: z.array(z.string()).describe('Grants given by hand (a user from before packages: every grant)'),
  packages: z.array(z.string()).describe('Package names the user holds'),
  pub: z.string().describe('The user X25519 public key (hex)'),
  keyVersion: z.number().describe('Login key schedule: 2 stretches the password with Argon2id before any key; 1 (accounts from before issue 40) until the next login with a re-keying SDK or a new password')
})

export const UserPage = z.object({ users: z.array(UserView), next: z.string().nullable() })
export const DevicesReply = z.object({ devices: z.array(DeviceView) })
