import { z } from 'zod'
import { Username, type UserRecord } from '@arus/catalog'
import type { PanelContext, PanelCore } from '../context.js'
import { deriveAccountSecrets, sealGrants } from '../account-keys.js'
import { PanelError } from '../errors.js'
import type { Entitlement } from '../registries.js'
import { dueGrants, entitlementOf, loadLineup, reconciledWrapped } from './entitlements.js'
import { parseUsername, Password } from './ids.js'
import { defaultPackages } from './packages.js'

/** Admin operations on viewer accounts (spec 1 "Users" routes and Admin CLI). Shared by CLI and HTTP. */

/**
 * What every door shows of a user (the HTTP reply schema {@link UserView}): no secrets, no
 * record internals, and the provenance (spec 1 "User record": packages and manualGrants).
 */
export type UserSummary = z.infer<typeof UserView>

/** `entitlements` is the whole provenance registry: without it every grant would look manual and no package held. */
export function summarizeUser (username: string, u: UserRecord, entitlements: Record<string, Entitlement>): UserSummary {
  const ent = entitlementOf(entitlements, username, u)
  return {
    username,
    status: u.status,
    tokenVersion: u.tokenVersion,
    maxDevices: u.maxDevices,
    devices: u.devices,
    grants: Object.keys(u.wrapped).sort(),
    manualGrants: ent.manual.filter((id) => Object.hasOwn(u.wrapped, id)),
    packages: ent.packages,
    pub: u.pub,
    keyVersion: u.keyVersion ?? 1
  }
}

/** {@link summarizeUser} with the user's provenance read from the registry. */
async function summary (ctx: PanelCore, username: string, u: UserRecord): Promise<UserSummary> {
  return summarizeUser(username, u, await ctx.registries.entitlements.all())
}

async function mustGet (ctx: PanelCore, username: string): Promise<UserRecord> {
  const u = await ctx.catalog.getUser(parseUsername(username))
  if (!u) throw PanelError.notFound(`user "${username}"`)
  return u
}

/**
 * Creates a user holding the default packages (and the channels of auto-granting sources),
 * its grants sealed in the same single write.
 */
export async function createUser (ctx: PanelCore, input: { username: string; password: string }): Promise<UserSummary> {
  const username = parseUsername(input.username)
  if (await ctx.catalog.getUser(username)) throw PanelError.exists(`user "${username}"`)
  const secrets = await deriveAccountSecrets(ctx, username, input.password)
  const ent: Entitlement = { packages: await defaultPackages(ctx), manual: [] }
  const lineup = await loadLineup(ctx)
  await ctx.registries.entitlements.update((users) => { users[username] = ent })
  let created: UserRecord | null = null
  await ctx.catalog.updateUser(username, (current) => {
    if (current) throw PanelError.exists(`user "${username}"`)
    const base: UserRecord = { v: 1, ...secrets, wrapped: {}, devices: [], tokenVersion: 0, maxDevices: ctx.settings.defaultMaxDevices, status: 'active' }
    created = { ...base, wrapped: reconciledWrapped(base, dueGrants(ent, lineup), lineup.keys) }
    return created
  })
  ctx.activity.record({ event: 'user.created', username, count: ent.packages.length }, 'user created')
  return summary(ctx, username, created!)
}

export async function getUser (ctx: PanelCore, username: string): Promise<UserSummary> {
  return summary(ctx, username, await mustGet(ctx, username))
}

export async function listUsers (ctx: PanelCore, q: { prefix?: string; after?: string; limit?: number } = {}): Promise<{ users: UserSummary[]; next: string | null }> {
  const page = await ctx.catalog.listUsers(q)
  const entitlements = await ctx.registries.entitlements.all()
  return { users: page.users.map(({ username, record }) => summarizeUser(username, record, entitlements)), next: page.next }
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

/** Deletes a user without a snapshot (a restore's removeExtra: the pre-restore snapshot covers it). */
export async function purgeUser (ctx: PanelCore, username: string): Promise<void> {
  await ctx.catalog.deleteUser(username)
  await ctx.registries.entitlements.update((users) => { delete users[username] })
  ctx.activity.record({ event: 'user.deleted', username }, 'user deleted')
}

/** Rotates the password: new verifier and keypair, grants re-sealed to the new key, every session ended. */
export async function setPassword (ctx: PanelCore, username: string, password: string): Promise<UserSummary> {
  await mustGet(ctx, username)
  const secrets = await deriveAccountSecrets(ctx, username, password)
  const keys = await ctx.registries.streamKeys.all()
  const out = await summary(ctx, username, await modify(ctx, username, (u) => ({
    ...u,
    ...secrets,
    wrapped: sealGrants(keys, secrets.pub, Object.keys(u.wrapped)),
    tokenVersion: u.tokenVersion + 1
  })))
  ctx.activity.record({ event: 'user.password', username }, 'user password rotated')
  return out
}

export async function setStatus (ctx: PanelCore, username: string, status: 'active' | 'disabled'): Promise<UserSummary> {
  if (status !== 'active' && status !== 'disabled') throw PanelError.invalid('status must be active or disabled')
  const out = await summary(ctx, username, await modify(ctx, username, (u) => u.status === status ? u : { ...u, status, tokenVersion: status === 'disabled' ? u.tokenVersion + 1 : u.tokenVersion }))
  ctx.activity.record({ event: 'user.status', username, status }, 'user status set')
  return out
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
  grants: z.array(z.string()).describe('Stream ids sealed to the user'),
  manualGrants: z.array(z.string()).describe('Grants given by hand (a user from before packages: every grant)'),
  packages: z.array(z.string()).describe('Package names the user holds'),
  pub: z.string().describe('The user X25519 public key (hex)'),
  keyVersion: z.number().describe('Login key schedule: 2 stretches the password with Argon2id before any key; 1 (accounts from before issue 40) until the next login with a re-keying SDK or a new password')
})

export const UserPage = z.object({ users: z.array(UserView), next: z.string().nullable() })
export const DevicesReply = z.object({ devices: z.array(DeviceView) })
